/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The built-in selection rules: what contrib/hc_tune measured on the
 * project's machine (docs/tuning.md, "Rules file format"), as the rules text.  To
 * change them, replace the text with hc_tune's output, e.g.
 *   contrib/hc_tune --build _build -n "2 3 4 6 8" --max 1M --runs 3 \
 *       | sed 's/\\/\\\\/g; s/"/\\"/g; s/^/    "/; s/$/\\n"/'
 *
 * Measured on a 2-core virtual machine shared with other jobs (np above 2
 * oversubscribed, mpi_yield_when_idle 1), Open MPI 4.1.4, tuned below:
 * three runs of 11 alternating trials per size; hiercoll's algorithm only
 * where it won by more than 5% in all three runs and at a neighbouring
 * size.  Communicators of more than 8 processes have no rule here (auto).
 * At the end, the collectives whose auto always passes on (gatherv and
 * scatterv excepted: coll_hiercoll_gatherv_tree_min decides them).
 */
#include "coll_hiercoll_rules.h"

const char hcp_rules_builtin[] =
    "hiercoll-rules 1\n"
    "# written by contrib/hc_tune on vm, 2026-11-22T16:26Z: np 2 3 4 6 8,\n"
    "# 8..1M bytes, median of 11 alternating trials of 1 ms, against\n"
    "# tuned; hiercoll's algorithm where it was more than 0.05 faster in each of\n"
    "# 3 runs and at a neighbouring size too\n"
    "allreduce np=2 bytes=0-262143 fallback:tuned\n"
    "allreduce np=2 bytes=262144- rhrd\n"
    "allreduce np=3 bytes=0-16383 fallback:tuned\n"
    "allreduce np=3 bytes=16384-131071 recursive_doubling\n"
    "allreduce np=3 bytes=131072-524287 rhrd\n"
    "allreduce np=3 bytes=524288- fallback:tuned\n"
    "allreduce np=4-5 bytes=0- fallback:tuned\n"
    "allreduce np=6-7 bytes=0-8191 fallback:tuned\n"
    "allreduce np=6-7 bytes=8192-32767 recursive_doubling\n"
    "allreduce np=6-7 bytes=32768- fallback:tuned\n"
    "allreduce np=8 bytes=0-65535 fallback:tuned\n"
    "allreduce np=8 bytes=65536- rhrd\n"
    "barrier np=2 bytes=0- fallback:tuned\n"
    "barrier np=3 bytes=0- fallback:tuned\n"
    "barrier np=4-5 bytes=0- fallback:tuned\n"
    "barrier np=6-7 bytes=0- fallback:tuned\n"
    "barrier np=8 bytes=0- fallback:tuned\n"
    "bcast np=2 bytes=0- fallback:tuned\n"
    "bcast np=3 bytes=0- fallback:tuned\n"
    "bcast np=4-5 bytes=0- fallback:tuned\n"
    "bcast np=6-7 bytes=0-31 binomial\n"
    "bcast np=6-7 bytes=32-524287 fallback:tuned\n"
    "bcast np=6-7 bytes=524288- binomial\n"
    "bcast np=8 bytes=0- fallback:tuned\n"
    "reduce np=2 bytes=0- fallback:tuned\n"
    "reduce np=3 bytes=0-262143 fallback:tuned\n"
    "reduce np=3 bytes=262144-1048575 binomial\n"
    "reduce np=3 bytes=1048576- fallback:tuned\n"
    "reduce np=4-5 bytes=0-32767 fallback:tuned\n"
    "reduce np=4-5 bytes=32768-131071 binomial\n"
    "reduce np=4-5 bytes=131072- fallback:tuned\n"
    "reduce np=6-7 bytes=0-16383 fallback:tuned\n"
    "reduce np=6-7 bytes=16384-65535 binomial\n"
    "reduce np=6-7 bytes=65536- fallback:tuned\n"
    "reduce np=8 bytes=0-131071 fallback:tuned\n"
    "reduce np=8 bytes=131072-524287 binomial\n"
    "reduce np=8 bytes=524288- fallback:tuned\n"
    "# hiercoll's own policy (auto) passes these on to the layer below,\n"
    "# whichever it is: as rules, communicators leave them in its slots\n"
    "allgather np=* bytes=* fallback\n"
    "allgatherv np=* bytes=* fallback\n"
    "alltoall np=* bytes=* fallback\n"
    "alltoallv np=* bytes=* fallback\n"
    "alltoallw np=* bytes=* fallback\n"
    "exscan np=* bytes=* fallback\n"
    "gather np=* bytes=* fallback\n"
    "reduce_scatter_block np=* bytes=* fallback\n"
    "reduce_scatter np=* bytes=* fallback\n"
    "scan np=* bytes=* fallback\n"
    "scatter np=* bytes=* fallback\n"
    "end\n";
