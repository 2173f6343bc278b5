/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * The built-in selection rules: what contrib/hc_tune measured on the
 * project's machine (README, "Selection rules"), in the rules file
 * format.  Replace the text with hc_tune's output to change them.
 */
#include "coll_hiercoll_rules.h"

const char hcp_rules_builtin[] =
    "hiercoll-rules 1\n"
    "# contrib/hc_tune on the project's 2-core machine (shared), np 2-8\n"
    "bcast np=2-8 bytes=* fallback:tuned\n"
    "reduce np=2-8 bytes=* fallback:tuned\n"
    "allreduce np=2-8 bytes=0-65535 fallback:tuned\n"
    "barrier np=2-8 bytes=* fallback:tuned\n"
    "end\n";
