#ifndef IMGQUALITY_CJXL_SHIM_H
#define IMGQUALITY_CJXL_SHIM_H
#include <jxl/decode.h>
#endif
