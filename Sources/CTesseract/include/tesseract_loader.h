#ifndef IMGQUALITY_TESSERACT_LOADER_H
#define IMGQUALITY_TESSERACT_LOADER_H
/* libtesseract's C API, loaded when first used rather than linked.

   imgquality links no Tesseract library: libtesseract and what it brings (leptonica,
   libarchive, libcurl and their TLS and Kerberos stacks, about sixty shared objects) would
   load into every process, `score` on a photo included, adding about 20 ms to each start
   and 18 MiB to each process. tesseract_loader.c defines the Tess* functions declared in
   <tesseract/capi.h> that imgquality calls, each forwarding to the library opened with
   dlopen on first use (RTLD_GLOBAL, so its OpenMP runtime is found as when linked). */
#include <tesseract/capi.h>
#include <stdint.h>

/* Opens libtesseract (libtesseract.so.5, else libtesseract.so) and resolves every function
   imgquality uses, once per process; 0 when they are all there, -1 otherwise. Thread-safe.
   The Tess* functions call it themselves; before it succeeds, TessBaseAPICreate returns
   NULL and TessVersion "unavailable". */
int iq_tesseract_load(void);

/* Why the load failed (dlopen's or dlsym's message), or NULL after a successful load. */
const char *iq_tesseract_load_error(void);

/* Leptonica's message threshold (allheaders.h declares it; that header is not needed
   otherwise). 6, L_SEVERITY_NONE, prints nothing: leptonica would write its complaints
   about boxes clipped during layout analysis to standard error. Forwarded like the Tess*
   functions; 0 when the library is not loaded. */
int32_t setMsgSeverity(int32_t newsev);
#endif
