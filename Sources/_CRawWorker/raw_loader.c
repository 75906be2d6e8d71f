/* The libraw_* functions imgquality calls, forwarded to libraw_r opened on first use
   (raw_loader.h says why). Each entry of IQ_RAW_FUNCTIONS gives the return type, the name,
   the parameters, the arguments and what to return while the library is missing;
   IQ_RAW_PROCEDURES the same for functions that return nothing. */
#define _GNU_SOURCE
#include "raw_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "iq_library_loader.h"

#define IQ_RAW_FUNCTIONS(F) \
    F(const char *, libraw_strerror, (int errorcode), (errorcode), "LibRaw is not loaded") \
    F(libraw_data_t *, libraw_init, (unsigned int flags), (flags), NULL) \
    F(int, libraw_open_buffer, (libraw_data_t *raw, void *buffer, size_t size), (raw, buffer, size), \
      LIBRAW_UNSPECIFIED_ERROR) \
    F(int, libraw_unpack, (libraw_data_t *raw), (raw), LIBRAW_UNSPECIFIED_ERROR) \
    F(int, libraw_unpack_thumb, (libraw_data_t *raw), (raw), LIBRAW_UNSPECIFIED_ERROR) \
    F(int, libraw_dcraw_process, (libraw_data_t *raw), (raw), LIBRAW_UNSPECIFIED_ERROR) \
    F(libraw_processed_image_t *, libraw_dcraw_make_mem_image, (libraw_data_t *raw, int *error), (raw, error), NULL)

#define IQ_RAW_PROCEDURES(P) \
    P(libraw_set_dataerror_handler, (libraw_data_t *raw, data_callback handler, void *data), (raw, handler, data))

/* The loader: iq_raw_load, iq_raw_load_error and the forwarding definitions. */
IQ_LIBRARY_LOADER(iq_raw_load, iq_raw_load_error, "LibRaw", RTLD_NOW | RTLD_LOCAL, IQ_RAW_FUNCTIONS,
                  IQ_RAW_PROCEDURES, "libraw_r.so.20", "libraw_r.so")

static pthread_once_t omp_once = PTHREAD_ONCE_INIT;
static iq_omp_set_num_threads omp_threads;

/* libgomp as LibRaw loaded it (RTLD_NOLOAD: never a second copy). */
static void resolve_omp(void) {
    void *gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (gomp != NULL) *(void **)(&omp_threads) = dlsym(gomp, "omp_set_num_threads");
}

iq_omp_set_num_threads iq_raw_omp_set_num_threads(void) {
    if (iq_raw_load() != 0) return NULL;
    pthread_once(&omp_once, resolve_omp);
    return omp_threads;
}
