#ifndef IMGQUALITY_CWEBP_SHIM_H
#define IMGQUALITY_CWEBP_SHIM_H
#include <webp/decode.h>
#include <webp/demux.h>
#endif
