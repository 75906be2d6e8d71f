/* The zbar_* functions imgquality calls, forwarded to libzbar opened on first use
   (zbar_loader.h says why). Each entry of IQ_ZBAR_FUNCTIONS gives the return type, the name,
   the parameters, the arguments and what to return while the library is missing;
   IQ_ZBAR_PROCEDURES the same for functions that return nothing. */
#define _GNU_SOURCE
#include "zbar_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "iq_library_loader.h"

#define IQ_ZBAR_FUNCTIONS(F) \
    F(zbar_image_scanner_t *, zbar_image_scanner_create, (void), (), NULL) \
    F(int, zbar_image_scanner_set_config, \
      (zbar_image_scanner_t *scanner, zbar_symbol_type_t symbology, zbar_config_t config, int value), \
      (scanner, symbology, config, value), 1) \
    F(zbar_image_t *, zbar_image_create, (void), (), NULL) \
    F(int, zbar_scan_image, (zbar_image_scanner_t *scanner, zbar_image_t *image), (scanner, image), -1) \
    F(const zbar_symbol_t *, zbar_image_first_symbol, (const zbar_image_t *image), (image), NULL) \
    F(const zbar_symbol_t *, zbar_symbol_next, (const zbar_symbol_t *symbol), (symbol), NULL) \
    F(zbar_symbol_type_t, zbar_symbol_get_type, (const zbar_symbol_t *symbol), (symbol), ZBAR_NONE) \
    F(const char *, zbar_symbol_get_data, (const zbar_symbol_t *symbol), (symbol), NULL) \
    F(unsigned int, zbar_symbol_get_data_length, (const zbar_symbol_t *symbol), (symbol), 0) \
    F(unsigned, zbar_symbol_get_loc_size, (const zbar_symbol_t *symbol), (symbol), 0) \
    F(int, zbar_symbol_get_loc_x, (const zbar_symbol_t *symbol, unsigned index), (symbol, index), -1) \
    F(int, zbar_symbol_get_loc_y, (const zbar_symbol_t *symbol, unsigned index), (symbol, index), -1)

#define IQ_ZBAR_PROCEDURES(P) \
    P(zbar_image_scanner_destroy, (zbar_image_scanner_t *scanner), (scanner)) \
    P(zbar_image_destroy, (zbar_image_t *image), (image)) \
    P(zbar_image_set_format, (zbar_image_t *image, unsigned long format), (image, format)) \
    P(zbar_image_set_size, (zbar_image_t *image, unsigned width, unsigned height), (image, width, height)) \
    P(zbar_image_set_data, \
      (zbar_image_t *image, const void *data, unsigned long length, zbar_image_cleanup_handler_t *cleanup), \
      (image, data, length, cleanup))

/* The loader: iq_zbar_load, iq_zbar_load_error and the forwarding definitions. */
IQ_LIBRARY_LOADER(iq_zbar_load, iq_zbar_load_error, "libzbar", RTLD_NOW | RTLD_LOCAL, IQ_ZBAR_FUNCTIONS,
                  IQ_ZBAR_PROCEDURES, "libzbar.so.0", "libzbar.so")
