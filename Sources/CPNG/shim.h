#ifndef IMGQUALITY_CPNG_SHIM_H
#define IMGQUALITY_CPNG_SHIM_H
#include <png.h>
#endif
