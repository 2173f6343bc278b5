/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Decomposition of a communicator into parts and a leaders' bridge.
 * (The algorithms land with the decomposition capability; the module
 * already owns the state's lifetime.)
 */
#include "ompi_config.h"

#include "coll_hiercoll.h"

void mca_coll_hiercoll_decomp_free(mca_coll_hiercoll_module_t *m)
{
    m->decomp = NULL;
}
