/* The heif_* functions imgquality calls, forwarded to libheif opened on first use
   (heif_loader.h says why). Each entry of IQ_HEIF_FUNCTIONS gives the return type, the name,
   the parameters, the arguments and what to return while the library is missing;
   IQ_HEIF_PROCEDURES the same for functions that return nothing. */
#define _GNU_SOURCE
#include "heif_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "iq_library_loader.h"

static const struct heif_error missing_library = {heif_error_Plugin_loading_error, heif_suberror_Unspecified,
                                                  "libheif is not loaded"};

#define IQ_HEIF_FUNCTIONS(F) \
    F(struct heif_context *, heif_context_alloc, (void), (), NULL) \
    F(struct heif_error, heif_context_read_from_memory_without_copy, \
      (struct heif_context *context, const void *memory, size_t size, const struct heif_reading_options *options), \
      (context, memory, size, options), missing_library) \
    F(struct heif_error, heif_context_get_primary_image_handle, \
      (struct heif_context *context, struct heif_image_handle **handle), (context, handle), missing_library) \
    F(int, heif_image_handle_get_width, (const struct heif_image_handle *handle), (handle), 0) \
    F(int, heif_image_handle_get_height, (const struct heif_image_handle *handle), (handle), 0) \
    F(int, heif_image_handle_get_ispe_width, (const struct heif_image_handle *handle), (handle), 0) \
    F(int, heif_image_handle_get_ispe_height, (const struct heif_image_handle *handle), (handle), 0) \
    F(int, heif_image_handle_has_alpha_channel, (const struct heif_image_handle *handle), (handle), 0) \
    F(int, heif_image_handle_is_premultiplied_alpha, (const struct heif_image_handle *handle), (handle), 0) \
    F(int, heif_image_handle_get_luma_bits_per_pixel, (const struct heif_image_handle *handle), (handle), -1) \
    F(int, heif_image_handle_get_list_of_metadata_block_IDs, \
      (const struct heif_image_handle *handle, const char *type_filter, heif_item_id *ids, int count), \
      (handle, type_filter, ids, count), 0) \
    F(size_t, heif_image_handle_get_metadata_size, (const struct heif_image_handle *handle, heif_item_id id), \
      (handle, id), 0) \
    F(struct heif_error, heif_image_handle_get_metadata, \
      (const struct heif_image_handle *handle, heif_item_id id, void *out), (handle, id, out), missing_library) \
    F(struct heif_decoding_options *, heif_decoding_options_alloc, (void), (), NULL) \
    F(struct heif_error, heif_decode_image, \
      (const struct heif_image_handle *handle, struct heif_image **image, enum heif_colorspace colorspace, \
       enum heif_chroma chroma, const struct heif_decoding_options *options), \
      (handle, image, colorspace, chroma, options), missing_library) \
    F(int, heif_image_get_width, (const struct heif_image *image, enum heif_channel channel), (image, channel), 0) \
    F(int, heif_image_get_height, (const struct heif_image *image, enum heif_channel channel), (image, channel), 0) \
    F(int, heif_image_get_bits_per_pixel_range, (const struct heif_image *image, enum heif_channel channel), \
      (image, channel), 0) \
    F(const uint8_t *, heif_image_get_plane_readonly, \
      (const struct heif_image *image, enum heif_channel channel, int *stride), (image, channel, stride), NULL)

#define IQ_HEIF_PROCEDURES(P) \
    P(heif_context_free, (struct heif_context *context), (context)) \
    P(heif_context_set_max_decoding_threads, (struct heif_context *context, int threads), (context, threads)) \
    P(heif_context_set_maximum_image_size_limit, (struct heif_context *context, int limit), (context, limit)) \
    P(heif_image_handle_release, (const struct heif_image_handle *handle), (handle)) \
    P(heif_decoding_options_free, (struct heif_decoding_options *options), (options)) \
    P(heif_image_release, (const struct heif_image *image), (image))

/* The loader: iq_heif_load, iq_heif_load_error and the forwarding definitions. */
IQ_LIBRARY_LOADER(iq_heif_load, iq_heif_load_error, "libheif", RTLD_NOW | RTLD_LOCAL, IQ_HEIF_FUNCTIONS,
                  IQ_HEIF_PROCEDURES, "libheif.so.1", "libheif.so")
