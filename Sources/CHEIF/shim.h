#ifndef IMGQUALITY_CHEIF_SHIM_H
#define IMGQUALITY_CHEIF_SHIM_H
#include <libheif/heif.h>
#endif
