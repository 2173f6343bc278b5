/* placeholder */
#include "ompi_config.h"
#include "coll_hiercoll_offload.h"
int mca_coll_hiercoll_ucx_open(mca_coll_hiercoll_module_t *m, hct_chan_t **chan, hc_ol_engine_t **eng)
{
    (void) m; (void) chan; (void) eng;
    return OMPI_ERR_NOT_SUPPORTED;
}
void mca_coll_hiercoll_ucx_close(hct_chan_t *chan) { (void) chan; }
void mca_coll_hiercoll_ucx_fini(void) {}
