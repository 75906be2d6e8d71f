/* The Jxl* functions imgquality calls, forwarded to libjxl opened on first use
   (jxl_loader.h says why). Each entry of IQ_JXL_FUNCTIONS gives the return type, the name,
   the parameters, the arguments and what to return while the library is missing;
   IQ_JXL_PROCEDURES the same for functions that return nothing. */
#define _GNU_SOURCE
#include "jxl_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "iq_library_loader.h"

#define IQ_JXL_FUNCTIONS(F) \
    F(JxlDecoder *, JxlDecoderCreate, (const JxlMemoryManager *memory_manager), (memory_manager), NULL) \
    F(JxlDecoderStatus, JxlDecoderSubscribeEvents, (JxlDecoder *dec, int events_wanted), (dec, events_wanted), \
      JXL_DEC_ERROR) \
    F(JxlDecoderStatus, JxlDecoderSetKeepOrientation, (JxlDecoder *dec, JXL_BOOL skip_reorientation), \
      (dec, skip_reorientation), JXL_DEC_ERROR) \
    F(JxlDecoderStatus, JxlDecoderSetInput, (JxlDecoder *dec, const uint8_t *data, size_t size), (dec, data, size), \
      JXL_DEC_ERROR) \
    F(size_t, JxlDecoderReleaseInput, (JxlDecoder *dec), (dec), 0) \
    F(JxlDecoderStatus, JxlDecoderProcessInput, (JxlDecoder *dec), (dec), JXL_DEC_ERROR) \
    F(JxlDecoderStatus, JxlDecoderGetBasicInfo, (const JxlDecoder *dec, JxlBasicInfo *info), (dec, info), \
      JXL_DEC_ERROR) \
    F(JxlDecoderStatus, JxlDecoderImageOutBufferSize, (const JxlDecoder *dec, const JxlPixelFormat *format, size_t *size), \
      (dec, format, size), JXL_DEC_ERROR) \
    F(JxlDecoderStatus, JxlDecoderSetImageOutBuffer, \
      (JxlDecoder *dec, const JxlPixelFormat *format, void *buffer, size_t size), (dec, format, buffer, size), \
      JXL_DEC_ERROR)

#define IQ_JXL_PROCEDURES(P) P(JxlDecoderDestroy, (JxlDecoder *dec), (dec))

/* The loader: iq_jxl_load, iq_jxl_load_error and the forwarding definitions. */
IQ_LIBRARY_LOADER(iq_jxl_load, iq_jxl_load_error, "libjxl", RTLD_NOW | RTLD_LOCAL, IQ_JXL_FUNCTIONS,
                  IQ_JXL_PROCEDURES, "libjxl.so.0.7", "libjxl.so")
