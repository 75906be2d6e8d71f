#ifndef IMGQUALITY_CTIFF_SHIM_H
#define IMGQUALITY_CTIFF_SHIM_H
#include <tiffio.h>
#endif
