#ifndef IMGQUALITY_CZBAR_SHIM_H
#define IMGQUALITY_CZBAR_SHIM_H
#include <zbar.h>
#endif
