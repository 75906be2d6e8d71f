#ifndef IMGQUALITY_CTESSERACT_SHIM_H
#define IMGQUALITY_CTESSERACT_SHIM_H
#include <tesseract/capi.h>
#include <stdint.h>

/* Leptonica's message threshold (allheaders.h declares it; that header is not needed
   otherwise). 6, L_SEVERITY_NONE, prints nothing: leptonica would write its complaints
   about boxes clipped during layout analysis to standard error. */
extern int32_t setMsgSeverity(int32_t newsev);
#endif
