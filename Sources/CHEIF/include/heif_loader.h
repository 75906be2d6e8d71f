#ifndef IMGQUALITY_HEIF_LOADER_H
#define IMGQUALITY_HEIF_LOADER_H
/* libheif's C API, loaded when a HEIF or AVIF file is first decoded rather than linked.

   Debian builds libheif with its encoders linked in: libx265 (GPL-2.0-or-later) and libaom
   come with it. Linked, they would load into every imgquality process and every program that
   links ImageCodecs, whatever it decodes; loaded on first use, a process that meets no HEIF
   or AVIF file never loads them, and the core libraries carry no link to a GPL library.
   heif_loader.c defines the heif_* functions declared in <libheif/heif.h> that imgquality
   calls, each forwarding to libheif.so.1 opened with dlopen. */
#include <libheif/heif.h>

/* Opens libheif (libheif.so.1, else libheif.so) and resolves every function imgquality uses,
   once per process; 0 when they are all there, -1 otherwise. Thread-safe. The heif_*
   functions call it themselves; before it succeeds they return an error (heif_error_Plugin_loading_error), NULL or 0. */
int iq_heif_load(void);

/* Why the load failed (dlopen's or dlsym's message), or NULL after a successful load. */
const char *iq_heif_load_error(void);
#endif
