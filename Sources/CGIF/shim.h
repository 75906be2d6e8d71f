#ifndef IMGQUALITY_CGIF_SHIM_H
#define IMGQUALITY_CGIF_SHIM_H
#include <gif_lib.h>
#endif
