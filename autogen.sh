#!/bin/sh
# Regenerate the autotools files (configure, Makefile.in, ...).
set -e
cd "$(dirname "$0")"
mkdir -p config/m4
autoreconf --install --force --warnings=all,no-portability "$@"
