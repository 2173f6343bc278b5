/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Per-communicator set-up (coll_hiercoll_module.c): query, enable, info
 * keys, the module's end.  Layer: module, called by the component only.
 */
#ifndef MCA_COLL_HIERCOLL_MODULE_H
#define MCA_COLL_HIERCOLL_MODULE_H

#include "coll_hiercoll.h"

BEGIN_C_DECLS

/* The info key that chooses a collective's algorithm on a communicator:
 * "hiercoll_<coll>_algorithm", or "hiercoll_<coll>" where that is longer
 * than MPI allows (MPI_MAX_INFO_KEY: reduce_scatter_block and the
 * neighborhood collectives). */
const char *mca_coll_hiercoll_info_key(hc_coll_t k, char *buf, size_t len);

mca_coll_base_module_t *mca_coll_hiercoll_comm_query(ompi_communicator_t *comm, int *priority);

END_C_DECLS

#endif /* MCA_COLL_HIERCOLL_MODULE_H */
