#ifndef IMGQUALITY_ZBAR_LOADER_H
#define IMGQUALITY_ZBAR_LOADER_H
/* ZBar's C API (LGPL-2.1), loaded when a page's barcodes are first read rather than linked.

   Linked, libzbar and what it brings (libX11, libv4l2 and D-Bus among them) would
   load into every imgquality process, `score` on a photo included: about 2 ms more at each
   start and 1.7 MiB more resident. zbar_loader.c defines the zbar_* functions declared in
   <zbar.h> that imgquality calls, each forwarding to libzbar.so.0 opened with dlopen on first
   use. */
#include <zbar.h>

/* Opens libzbar (libzbar.so.0, else libzbar.so) and resolves every function imgquality uses,
   once per process; 0 when they are all there, -1 otherwise. Thread-safe. The zbar_*
   functions call it themselves; before it succeeds, the constructors return NULL and
   zbar_scan_image -1. */
int iq_zbar_load(void);

/* Why the load failed (dlopen's or dlsym's message), or NULL after a successful load. */
const char *iq_zbar_load_error(void);
#endif
