#ifndef IMGQUALITY_CRAW_SHIM_H
#define IMGQUALITY_CRAW_SHIM_H
#include <libraw/libraw.h>

/* Fields of LibRaw's large structures, read here so Swift imports four small functions
   instead of the structures' hundreds of members. */
static inline void iq_raw_sizes(const libraw_data_t *raw, int *width, int *height, int *flip) {
    *width = raw->sizes.width;
    *height = raw->sizes.height;
    *flip = raw->sizes.flip;
}

static inline void iq_raw_thumbnail(const libraw_data_t *raw, int *is_jpeg, int *width, int *height,
                                    const unsigned char **bytes, unsigned *length) {
    *is_jpeg = raw->thumbnail.tformat == LIBRAW_THUMBNAIL_JPEG;
    *width = raw->thumbnail.twidth;
    *height = raw->thumbnail.theight;
    *bytes = (const unsigned char *)raw->thumbnail.thumb;
    *length = raw->thumbnail.tlength;
}

/* Half-size development: camera white balance, 8-bit sRGB, LibRaw's own orientation. */
static inline void iq_raw_develop_settings(libraw_data_t *raw) {
    raw->params.half_size = 1;
    raw->params.use_camera_wb = 1;
    raw->params.output_bps = 8;
    raw->params.output_color = 1;
}

static inline const unsigned char *iq_raw_image_data(const libraw_processed_image_t *image) { return image->data; }
#endif
