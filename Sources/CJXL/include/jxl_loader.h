#ifndef IMGQUALITY_JXL_LOADER_H
#define IMGQUALITY_JXL_LOADER_H
/* libjxl's decoder API (BSD-3-Clause), loaded when a JPEG XL file is first decoded rather
   than linked.

   Linked, libjxl and what it brings (Highway, Brotli's encoder and decoder) would load into
   every imgquality process, whatever it decodes: about 5 ms more at each start and 1.5 MiB
   more resident. jxl_loader.c defines the Jxl* functions declared in <jxl/decode.h> that
   imgquality calls, each forwarding to libjxl opened with dlopen on first use. */
#include <jxl/decode.h>

/* Opens libjxl (libjxl.so.0.7, else libjxl.so) and resolves every function imgquality uses,
   once per process; 0 when they are all there, -1 otherwise. Thread-safe. The Jxl*
   functions call it themselves; before it succeeds, JxlDecoderCreate returns NULL and the
   others JXL_DEC_ERROR or 0. */
int iq_jxl_load(void);

/* Why the load failed (dlopen's or dlsym's message), or NULL after a successful load. */
const char *iq_jxl_load_error(void);
#endif
