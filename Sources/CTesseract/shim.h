#ifndef IMGQUALITY_CTESSERACT_SHIM_H
#define IMGQUALITY_CTESSERACT_SHIM_H
#include <tesseract/capi.h>
#endif
