#ifndef IMGQUALITY_CRAW_SHIM_H
#define IMGQUALITY_CRAW_SHIM_H
/* LibRaw's status codes and messages; the files themselves are read by _CRawWorker in a child
   process. */
#include <libraw/libraw.h>
#endif
