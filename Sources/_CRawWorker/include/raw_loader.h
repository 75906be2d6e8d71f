#ifndef IMGQUALITY_RAW_LOADER_H
#define IMGQUALITY_RAW_LOADER_H
/* LibRaw's C API (libraw_r, LGPL-2.1 or CDDL-1.0), loaded when a camera raw file is first
   read rather than linked, and its status codes and messages for the caller.

   Linked, LibRaw would load into every imgquality process, whatever it decodes: about 2 ms
   more at each start and 1.8 MiB more resident. raw_loader.c defines the libraw_* functions
   declared in <libraw/libraw.h> that imgquality calls, each forwarding to libraw_r opened with
   dlopen on first use. iq_raw_worker_start opens it in the parent, before it forks the child
   that reads the file. */
#include <libraw/libraw.h>

/* Opens LibRaw (libraw_r.so.20, else libraw_r.so) and resolves every function imgquality
   uses, once per process; 0 when they are all there, -1 otherwise. Thread-safe. The libraw_*
   functions call it themselves; before it succeeds, libraw_init returns NULL, the others
   LIBRAW_UNSPECIFIED_ERROR, NULL or a message that says so. */
int iq_raw_load(void);

/* Why the load failed (dlopen's or dlsym's message), or NULL after a successful load. */
const char *iq_raw_load_error(void);

/* libgomp's omp_set_num_threads (LibRaw's OpenMP runtime), or NULL: resolved by iq_raw_load
   from the library LibRaw brought, for the child, which must not wait for a team of threads
   that stayed in the parent. */
typedef void (*iq_omp_set_num_threads)(int);
iq_omp_set_num_threads iq_raw_omp_set_num_threads(void);
#endif
