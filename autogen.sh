#!/bin/sh
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# Regenerate the autotools files (configure, Makefile.in, ...).
set -e
cd "$(dirname "$0")"
mkdir -p config/m4
autoreconf --install --force --warnings=all,no-portability "$@"
