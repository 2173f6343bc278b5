/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The entry points (coll_hiercoll_entry.c).  Layer: entry, below the
 * module (which installs them) and above the selection.
 */
#ifndef MCA_COLL_HIERCOLL_ENTRY_H
#define MCA_COLL_HIERCOLL_ENTRY_H

#include "coll_hiercoll.h"

BEGIN_C_DECLS

void mca_coll_hiercoll_set_entry_points(mca_coll_base_module_t *module);

END_C_DECLS

#endif /* MCA_COLL_HIERCOLL_ENTRY_H */
