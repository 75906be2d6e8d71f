/*
 * _CImagingShims: the only code that calls libjpeg, libpng and libtiff.
 *
 * No stable API: this header exists for the ImageCodecs module. Every
 * setjmp/longjmp pair used by libjpeg and libpng lives and dies inside one
 * function of imaging_shims.c, so no longjmp ever crosses a Swift frame.
 * Functions return IQ_OK (0) or a failure kind and fill an iq_diagnostics
 * with the library's own message.
 */
#ifndef IMGQUALITY_IMAGING_SHIMS_H
#define IMGQUALITY_IMAGING_SHIMS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IQ_MESSAGE_LENGTH 240
#define IQ_MAX_WARNINGS 8

/* Failure kinds returned by every shim function. */
enum {
    IQ_OK = 0,
    IQ_FAIL_CORRUPT = 1,      /* the data violates the format */
    IQ_FAIL_TRUNCATED = 2,    /* the data ends before the image does */
    IQ_FAIL_UNSUPPORTED = 3,  /* valid, but a feature this build cannot decode */
    IQ_FAIL_MEMORY = 4,       /* an allocation failed or exceeded its limit */
    IQ_FAIL_LIMIT = 5,        /* a decode limit (scans, page index) was exceeded */
    IQ_FAIL_TIME = 6          /* the deadline passed before the image was decoded */
};

/* Warning kinds: recoverable problems the library decoded through. */
enum {
    IQ_WARN_TRUNCATED = 1,    /* premature end of data; the rest is filled in */
    IQ_WARN_CORRUPT = 2,      /* corrupt entropy data or a bad ancillary chunk */
    IQ_WARN_OTHER = 3         /* anything else the library chose to mention */
};

typedef struct iq_warning {
    int kind;
    char message[IQ_MESSAGE_LENGTH];
} iq_warning;

typedef struct iq_diagnostics {
    int failure;                         /* IQ_OK or an IQ_FAIL_* kind */
    char message[IQ_MESSAGE_LENGTH];     /* the failure's message */
    int warning_count;                   /* all warnings seen, kept or not */
    int kept_warnings;                   /* distinct warnings kept below */
    iq_warning warnings[IQ_MAX_WARNINGS];
} iq_diagnostics;

/* Deadlines: a CLOCK_MONOTONIC time in nanoseconds, 0 for none. Decoders check it
   between rows (JPEG, PNG) or strips and tiles (TIFF) and fail with IQ_FAIL_TIME. */
uint64_t iq_monotonic_ns(void);

/* Keeps allocations up to mmap_threshold bytes in the heap, and up to trim_threshold bytes
   of freed memory at the heap's top, instead of mapping each large block afresh and
   unmapping it when freed (glibc's mallopt M_MMAP_THRESHOLD and M_TRIM_THRESHOLD); 1 when
   both were taken, 0 otherwise or without glibc. */
int iq_keep_large_allocations(int mmap_threshold, int trim_threshold);

/* ---- JPEG (libjpeg-turbo) --------------------------------------------- */

enum { IQ_JPEG_GRAY = 1, IQ_JPEG_YCBCR = 2, IQ_JPEG_RGB = 3, IQ_JPEG_CMYK = 4, IQ_JPEG_YCCK = 5, IQ_JPEG_OTHER = 6 };

typedef struct iq_jpeg_header {
    uint32_t width, height;
    int components;
    int color_space;          /* IQ_JPEG_* as stored */
    int progressive;
    int adobe_marker;         /* an APP14 Adobe marker was seen (CMYK stored inverted) */
    int precision;            /* bits per sample */
    const uint8_t *exif;      /* TIFF structure after "Exif\0\0", or NULL; valid until the next call */
    size_t exif_length;
    double x_resolution;      /* pixels per inch from the JFIF density, 0 when absent or unitless */
    double y_resolution;
} iq_jpeg_header;

typedef struct iq_jpeg iq_jpeg;

/* A decoder reusable across images. Returns NULL when out of memory. */
iq_jpeg *iq_jpeg_create(void);
void iq_jpeg_destroy(iq_jpeg *decoder);
const iq_diagnostics *iq_jpeg_diagnostics(const iq_jpeg *decoder);

/* Reads markers up to the first scan. `data` must outlive the decode; `deadline` holds
   until the image is finished or aborted. */
int iq_jpeg_read_header(iq_jpeg *decoder, const uint8_t *data, size_t size, int max_scans, uint64_t deadline,
                        iq_jpeg_header *header);

/* Starts decompression at 1/scale_denominator (1, 2, 4 or 8) size into
   `out_components` = 1 (luma), 3 (RGB) or 4 (CMYK as stored). */
int iq_jpeg_start(iq_jpeg *decoder, int scale_denominator, int out_components, uint32_t *out_width, uint32_t *out_height);

/* Decodes every output row into dst (row r at dst + r * stride) and finishes. */
int iq_jpeg_read_all(iq_jpeg *decoder, uint8_t *dst, size_t stride, uint32_t rows);

/* Releases the current image's state; the decoder can take another. */
void iq_jpeg_abort(iq_jpeg *decoder);

/* Encodes 8-bit gray (components 1) or RGB (3) pixels as a baseline JPEG in memory.
   On success *out points to a malloc'd buffer of *out_size bytes: free it with iq_free. */
int iq_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int components, size_t stride,
                   int quality, uint8_t **out, size_t *out_size, iq_diagnostics *diagnostics);
void iq_free(void *pointer);

/* ---- PNG (libpng) ----------------------------------------------------- */

typedef struct iq_png_header {
    uint32_t width, height;
    int bit_depth;            /* as stored: 1, 2, 4, 8, 16 */
    int color_type;           /* PNG colour type as stored */
    int interlaced;
    int channels;             /* after expansion: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
    int sample_bits;          /* after expansion: 8 or 16 (native endian) */
    const uint8_t *exif;      /* eXIf chunk contents before IDAT, or NULL */
    size_t exif_length;
    double x_resolution;      /* pixels per inch from pHYs, 0 when absent or unitless */
    double y_resolution;
} iq_png_header;

typedef struct iq_png iq_png;

/* Reads the signature and chunks up to the image data. */
iq_png *iq_png_open(const uint8_t *data, size_t size, iq_diagnostics *diagnostics, iq_png_header *header);
/* Decodes all rows (interlaced or not) into dst, then reads to IEND; a
   problem after the image data is a warning. */
int iq_png_read(iq_png *png, uint8_t *dst, size_t stride, uint64_t deadline);
void iq_png_close(iq_png *png);

/* ---- TIFF (libtiff >= 4.5) -------------------------------------------- */

typedef struct iq_tiff_info {
    uint32_t width, height;
    int bits_per_sample, samples_per_pixel, sample_format;
    int photometric;          /* TIFF PhotometricInterpretation; YCbCr+JPEG is reported as RGB */
    int planar_separate;
    int compression;
    int tiled;
    uint32_t block_width;     /* a tile's width and length, or the image width and rows per strip */
    uint32_t block_length;
    int orientation;          /* TIFF Orientation tag, 1 when absent */
    int alpha;                /* 0 none, 1 associated (premultiplied), 2 unassociated */
    int direct;               /* 1: iq_tiff_read_samples can decode it; 0: use iq_tiff_read_rgba */
    int colormap_is_8bit;     /* palette entries were written as 0...255 instead of 0...65535 */
    double x_resolution;      /* pixels per inch from XResolution/YResolution and ResolutionUnit,
                                 0 when absent, unitless (ResolutionUnit 1) or not a positive number */
    double y_resolution;
} iq_tiff_info;

typedef struct iq_tiff iq_tiff;

/* Opens a TIFF held in memory; no single libtiff allocation may exceed max_single_alloc bytes. */
iq_tiff *iq_tiff_open(const uint8_t *data, size_t size, size_t max_single_alloc, iq_diagnostics *diagnostics);
void iq_tiff_close(iq_tiff *tiff);
int iq_tiff_page_count(iq_tiff *tiff);
int iq_tiff_select_page(iq_tiff *tiff, int page_index, iq_tiff_info *info);
/* Direct path: samples unpacked to 8 bits (for 1–8-bit data, values unscaled) or
   16 bits (native endian), interleaved, `samples_per_pixel` per pixel, stored order. */
int iq_tiff_read_samples(iq_tiff *tiff, uint8_t *dst, size_t stride, uint64_t deadline);
/* Fallback path: libtiff's RGBA conversion, 8-bit premultiplied RGBA, stored order. */
int iq_tiff_read_rgba(iq_tiff *tiff, uint8_t *dst, size_t stride, uint64_t deadline);
/* The current page's colormap (three tables of 2^bits entries), or 0 if none. */
int iq_tiff_colormap(iq_tiff *tiff, const uint16_t **red, const uint16_t **green, const uint16_t **blue);

#ifdef __cplusplus
}
#endif
#endif
