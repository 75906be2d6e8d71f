/*
 * The C side of imgquality's decoders. See include/imaging_shims.h.
 *
 * Error handling follows one rule: a library that reports errors by longjmp
 * (libjpeg, libpng) gets its setjmp in the same C function that calls it, and
 * that function returns a status. Swift only ever sees return codes.
 */
#include "imaging_shims.h"

#include <setjmp.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jpeglib.h>
#include <jerror.h>
#include <png.h>
#include <tiffio.h>

/* ---- diagnostics ------------------------------------------------------ */

static void iq_reset(iq_diagnostics *d) {
    memset(d, 0, sizeof(*d));
}

static void iq_fail(iq_diagnostics *d, int kind, const char *message) {
    if (d->failure != IQ_OK) return; /* the first failure is the cause */
    d->failure = kind;
    snprintf(d->message, sizeof(d->message), "%s", message ? message : "unknown error");
}

static void iq_warn(iq_diagnostics *d, int kind, const char *message) {
    d->warning_count++;
    for (int i = 0; i < d->kept_warnings; i++) {
        if (d->warnings[i].kind == kind && strcmp(d->warnings[i].message, message) == 0) return;
    }
    if (d->kept_warnings >= IQ_MAX_WARNINGS) return;
    iq_warning *w = &d->warnings[d->kept_warnings++];
    w->kind = kind;
    snprintf(w->message, sizeof(w->message), "%s", message);
}

/* ---- allocation ------------------------------------------------------- */

int iq_keep_large_allocations(int mmap_threshold, int trim_threshold) {
#ifdef __GLIBC__
    return mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1 && mallopt(M_TRIM_THRESHOLD, trim_threshold) == 1;
#else
    (void)mmap_threshold;
    (void)trim_threshold;
    return 0;
#endif
}

/* ---- time limit ------------------------------------------------------- */

uint64_t iq_monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Whether a deadline (iq_monotonic_ns() time; 0 for none) has passed. */
static int iq_past(uint64_t deadline) {
    return deadline != 0 && iq_monotonic_ns() > deadline;
}

static const char iq_time_message[] = "decoding took longer than the time limit";

/* ---- JPEG ------------------------------------------------------------- */

struct iq_jpeg_error_manager {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
};

struct iq_jpeg {
    struct jpeg_decompress_struct cinfo;
    struct iq_jpeg_error_manager error;
    struct jpeg_progress_mgr progress;
    iq_diagnostics diagnostics;
    int max_scans;
    uint64_t deadline;
    int saw_eof_warning;
};

static int iq_jpeg_failure_kind(const iq_jpeg *dec, int code) {
    switch (code) {
    case JERR_INPUT_EMPTY:
    case JERR_INPUT_EOF:
        return IQ_FAIL_TRUNCATED;
    case JERR_BAD_PRECISION:
    case JERR_CONVERSION_NOTIMPL:
    case JERR_NOT_COMPILED:
    case JERR_NO_ARITH_TABLE:
        return IQ_FAIL_UNSUPPORTED;
    case JERR_OUT_OF_MEMORY:
    case JERR_VIRTUAL_BUG:
        return IQ_FAIL_MEMORY;
    case JERR_IMAGE_TOO_BIG:
        return IQ_FAIL_LIMIT;
    default:
        /* libjpeg inserts a fake EOI at the end of the data and warns; an
           error after that warning is a consequence of the truncation. */
        return dec->saw_eof_warning ? IQ_FAIL_TRUNCATED : IQ_FAIL_CORRUPT;
    }
}

static void iq_jpeg_error_exit(j_common_ptr cinfo) {
    iq_jpeg *dec = (iq_jpeg *)cinfo->client_data;
    char buffer[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, buffer);
    iq_fail(&dec->diagnostics, iq_jpeg_failure_kind(dec, cinfo->err->msg_code), buffer);
    longjmp(dec->error.jump, 1);
}

static void iq_jpeg_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return; /* trace messages */
    iq_jpeg *dec = (iq_jpeg *)cinfo->client_data;
    char buffer[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, buffer);
    cinfo->err->num_warnings++;
    int kind;
    switch (cinfo->err->msg_code) {
    case JWRN_JPEG_EOF:
        kind = IQ_WARN_TRUNCATED;
        dec->saw_eof_warning = 1;
        break;
    case JWRN_HIT_MARKER:
    case JWRN_MUST_RESYNC:
    case JWRN_EXTRANEOUS_DATA:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_ARITH_BAD_CODE:
    case JWRN_BOGUS_PROGRESSION:
    case JWRN_NOT_SEQUENTIAL:
    case JWRN_TOO_MUCH_DATA:
        kind = IQ_WARN_CORRUPT;
        break;
    default:
        kind = IQ_WARN_OTHER;
    }
    iq_warn(&dec->diagnostics, kind, buffer);
}

static void iq_jpeg_output_message(j_common_ptr cinfo) {
    (void)cinfo; /* never print to stderr: messages go to diagnostics */
}

/* Bounds the work a hostile file can demand: thousands of tiny progressive scans, or
   more time than the deadline. libjpeg calls this for every group of output rows and,
   while it absorbs a multi-scan file, for every row of MCUs it reads. */
static void iq_jpeg_progress(j_common_ptr cinfo) {
    iq_jpeg *dec = (iq_jpeg *)cinfo->client_data;
    if (iq_past(dec->deadline)) {
        iq_fail(&dec->diagnostics, IQ_FAIL_TIME, iq_time_message);
        longjmp(dec->error.jump, 1);
    }
    if (cinfo->is_decompressor) {
        j_decompress_ptr d = (j_decompress_ptr)cinfo;
        if (dec->max_scans > 0 && d->input_scan_number > dec->max_scans) {
            char message[IQ_MESSAGE_LENGTH];
            snprintf(message, sizeof(message), "progressive JPEG has more than %d scans", dec->max_scans);
            iq_fail(&dec->diagnostics, IQ_FAIL_LIMIT, message);
            longjmp(dec->error.jump, 1);
        }
    }
}

iq_jpeg *iq_jpeg_create(void) {
    iq_jpeg *dec = calloc(1, sizeof(iq_jpeg));
    if (!dec) return NULL;
    dec->cinfo.err = jpeg_std_error(&dec->error.pub);
    dec->error.pub.error_exit = iq_jpeg_error_exit;
    dec->error.pub.emit_message = iq_jpeg_emit_message;
    dec->error.pub.output_message = iq_jpeg_output_message;
    dec->cinfo.client_data = dec;
    if (setjmp(dec->error.jump)) {
        free(dec);
        return NULL;
    }
    jpeg_create_decompress(&dec->cinfo);
    dec->progress.progress_monitor = iq_jpeg_progress;
    dec->cinfo.progress = &dec->progress;
    return dec;
}

void iq_jpeg_destroy(iq_jpeg *dec) {
    if (!dec) return;
    jpeg_destroy_decompress(&dec->cinfo);
    free(dec);
}

const iq_diagnostics *iq_jpeg_diagnostics(const iq_jpeg *dec) {
    return &dec->diagnostics;
}

void iq_jpeg_abort(iq_jpeg *dec) {
    jpeg_abort_decompress(&dec->cinfo);
}

static int iq_jpeg_color_space(J_COLOR_SPACE space) {
    switch (space) {
    case JCS_GRAYSCALE: return IQ_JPEG_GRAY;
    case JCS_YCbCr: return IQ_JPEG_YCBCR;
    case JCS_RGB: return IQ_JPEG_RGB;
    case JCS_CMYK: return IQ_JPEG_CMYK;
    case JCS_YCCK: return IQ_JPEG_YCCK;
    default: return IQ_JPEG_OTHER;
    }
}

int iq_jpeg_read_header(iq_jpeg *dec, const uint8_t *data, size_t size, int max_scans, uint64_t deadline,
                        iq_jpeg_header *header) {
    iq_reset(&dec->diagnostics);
    dec->saw_eof_warning = 0;
    dec->max_scans = max_scans;
    dec->deadline = deadline;
    dec->error.pub.num_warnings = 0;
    memset(header, 0, sizeof(*header));
    if (setjmp(dec->error.jump)) {
        jpeg_abort_decompress(&dec->cinfo);
        return dec->diagnostics.failure;
    }
    jpeg_mem_src(&dec->cinfo, data, (unsigned long)size);
    jpeg_save_markers(&dec->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&dec->cinfo, TRUE);

    struct jpeg_decompress_struct *c = &dec->cinfo;
    header->width = c->image_width;
    header->height = c->image_height;
    header->components = c->num_components;
    header->color_space = iq_jpeg_color_space(c->jpeg_color_space);
    header->progressive = c->progressive_mode ? 1 : 0;
    header->adobe_marker = c->saw_Adobe_marker ? 1 : 0;
    header->precision = c->data_precision;
    /* JFIF density: unit 1 is dots per inch, 2 dots per centimetre, 0 an aspect ratio only. */
    if (c->saw_JFIF_marker && c->X_density > 0 && c->Y_density > 0 && (c->density_unit == 1 || c->density_unit == 2)) {
        double scale = c->density_unit == 2 ? 2.54 : 1.0;
        header->x_resolution = c->X_density * scale;
        header->y_resolution = c->Y_density * scale;
    }
    for (jpeg_saved_marker_ptr m = c->marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 1 && m->data_length > 6 && memcmp(m->data, "Exif\0\0", 6) == 0) {
            header->exif = m->data + 6;
            header->exif_length = m->data_length - 6;
            break;
        }
    }
    return IQ_OK;
}

int iq_jpeg_start(iq_jpeg *dec, int scale_denominator, int out_components, uint32_t *out_width, uint32_t *out_height) {
    if (setjmp(dec->error.jump)) {
        jpeg_abort_decompress(&dec->cinfo);
        return dec->diagnostics.failure;
    }
    struct jpeg_decompress_struct *c = &dec->cinfo;
    c->scale_num = 1;
    c->scale_denom = (unsigned int)scale_denominator;
    switch (out_components) {
    case 1: c->out_color_space = JCS_GRAYSCALE; break;
    case 3: c->out_color_space = JCS_RGB; break;
    default: c->out_color_space = JCS_CMYK; break;
    }
    /* Defaults favour fidelity: islow DCT and fancy upsampling, as djpeg does. */
    jpeg_start_decompress(c);
    *out_width = c->output_width;
    *out_height = c->output_height;
    return IQ_OK;
}

int iq_jpeg_read_all(iq_jpeg *dec, uint8_t *dst, size_t stride, uint32_t rows) {
    if (setjmp(dec->error.jump)) {
        jpeg_abort_decompress(&dec->cinfo);
        return dec->diagnostics.failure;
    }
    struct jpeg_decompress_struct *c = &dec->cinfo;
    JSAMPROW pointers[16];
    while (c->output_scanline < c->output_height && c->output_scanline < rows) {
        JDIMENSION first = c->output_scanline;
        JDIMENSION count = c->rec_outbuf_height;
        if (count > 16) count = 16;
        for (JDIMENSION i = 0; i < count; i++) {
            JDIMENSION row = first + i < rows ? first + i : rows - 1;
            pointers[i] = dst + (size_t)row * stride;
        }
        jpeg_read_scanlines(c, pointers, count);
    }
    jpeg_finish_decompress(c);
    return IQ_OK;
}

struct iq_jpeg_encoder {
    struct jpeg_compress_struct cinfo;
    struct iq_jpeg_error_manager error;
    iq_diagnostics *diagnostics;
};

static void iq_jpeg_encode_error_exit(j_common_ptr cinfo) {
    struct iq_jpeg_encoder *encoder = (struct iq_jpeg_encoder *)cinfo->client_data;
    char buffer[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, buffer);
    iq_fail(encoder->diagnostics, IQ_FAIL_CORRUPT, buffer);
    longjmp(encoder->error.jump, 1);
}

int iq_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int components, size_t stride,
                   int quality, uint8_t **out, size_t *out_size, iq_diagnostics *diagnostics) {
    iq_reset(diagnostics);
    struct iq_jpeg_encoder encoder;
    memset(&encoder, 0, sizeof(encoder));
    encoder.diagnostics = diagnostics;
    encoder.cinfo.err = jpeg_std_error(&encoder.error.pub);
    encoder.error.pub.error_exit = iq_jpeg_encode_error_exit;
    encoder.error.pub.output_message = iq_jpeg_output_message;
    encoder.cinfo.client_data = &encoder;
    unsigned char *buffer = NULL;
    unsigned long size = 0;
    if (setjmp(encoder.error.jump)) {
        jpeg_destroy_compress(&encoder.cinfo);
        free(buffer);
        return diagnostics->failure;
    }
    jpeg_create_compress(&encoder.cinfo);
    jpeg_mem_dest(&encoder.cinfo, &buffer, &size);
    encoder.cinfo.image_width = width;
    encoder.cinfo.image_height = height;
    encoder.cinfo.input_components = components;
    encoder.cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&encoder.cinfo);
    jpeg_set_quality(&encoder.cinfo, quality, TRUE);
    jpeg_start_compress(&encoder.cinfo, TRUE);
    while (encoder.cinfo.next_scanline < height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)encoder.cinfo.next_scanline * stride);
        jpeg_write_scanlines(&encoder.cinfo, &row, 1);
    }
    jpeg_finish_compress(&encoder.cinfo);
    jpeg_destroy_compress(&encoder.cinfo);
    *out = buffer;
    *out_size = size;
    return IQ_OK;
}

void iq_free(void *pointer) { free(pointer); }

/* ---- PNG -------------------------------------------------------------- */

struct iq_png {
    png_structp png;
    png_infop info;
    const uint8_t *data;
    size_t size;
    size_t offset;
    int hit_end;
    uint64_t deadline;
    int timed_out;
    int out_of_memory;        /* an allocation libpng asked for failed */
    iq_diagnostics *diagnostics;
    iq_png_header header;
    /* Row pointers of the read in progress. Kept here, not in a local: a local assigned
       after setjmp is indeterminate after png_error's longjmp, so a corrupt PNG leaked
       them (or freed a wrong pointer). */
    png_bytep *rows;
};

static void iq_png_error(png_structp png, png_const_charp message) {
    iq_png *p = (iq_png *)png_get_error_ptr(png);
    /* libpng reports text only: the kind comes from the reader's own state. */
    int kind = p->timed_out ? IQ_FAIL_TIME
             : p->out_of_memory ? IQ_FAIL_MEMORY
             : p->hit_end ? IQ_FAIL_TRUNCATED
             : IQ_FAIL_CORRUPT;
    iq_fail(p->diagnostics, kind, message);
    png_longjmp(png, 1);
}

static void iq_png_warning(png_structp png, png_const_charp message) {
    iq_png *p = (iq_png *)png_get_error_ptr(png);
    int kind = IQ_WARN_OTHER;
    if (message && (strstr(message, "CRC") || strstr(message, "invalid") || strstr(message, "bad")))
        kind = IQ_WARN_CORRUPT;
    iq_warn(p->diagnostics, kind, message ? message : "warning");
}

static void iq_png_read_data(png_structp png, png_bytep out, size_t length) {
    iq_png *p = (iq_png *)png_get_io_ptr(png);
    if (length > p->size - p->offset) {
        p->hit_end = 1;
        png_error(png, "unexpected end of PNG data");
    }
    memcpy(out, p->data + p->offset, length);
    p->offset += length;
}

/* libpng's allocator, so that a failed allocation is known without reading the message. */
static png_voidp iq_png_malloc(png_structp png, png_alloc_size_t size) {
    void *pointer = malloc(size);
    if (!pointer) ((iq_png *)png_get_mem_ptr(png))->out_of_memory = 1;
    return pointer;
}

static void iq_png_free(png_structp png, png_voidp pointer) {
    (void)png;
    free(pointer);
}

/* libpng's row callback: ends the read once the deadline has passed. */
static void iq_png_row_done(png_structp png, png_uint_32 row, int pass) {
    (void)row; (void)pass;
    iq_png *p = (iq_png *)png_get_io_ptr(png);
    if (iq_past(p->deadline)) {
        p->timed_out = 1;
        png_error(png, iq_time_message);
    }
}

iq_png *iq_png_open(const uint8_t *data, size_t size, iq_diagnostics *diagnostics, iq_png_header *header) {
    iq_reset(diagnostics);
    memset(header, 0, sizeof(*header));
    iq_png *p = calloc(1, sizeof(iq_png));
    if (!p) {
        iq_fail(diagnostics, IQ_FAIL_MEMORY, "out of memory");
        return NULL;
    }
    p->data = data;
    p->size = size;
    p->diagnostics = diagnostics;
    p->png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, p, iq_png_error, iq_png_warning, p, iq_png_malloc,
                                      iq_png_free);
    if (!p->png) {
        iq_fail(diagnostics, IQ_FAIL_MEMORY, "png_create_read_struct failed");
        free(p);
        return NULL;
    }
    p->info = png_create_info_struct(p->png);
    if (!p->info || setjmp(png_jmpbuf(p->png))) {
        if (!p->info) iq_fail(diagnostics, IQ_FAIL_MEMORY, "png_create_info_struct failed");
        iq_png_close(p);
        return NULL;
    }
    png_set_read_fn(p->png, p, iq_png_read_data);
    /* libpng's own dimension cap is 1,000,000; callers check pixel counts. */
    png_read_info(p->png, p->info);

    png_uint_32 width, height;
    int bit_depth, color_type, interlace;
    png_get_IHDR(p->png, p->info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
    header->width = width;
    header->height = height;
    header->bit_depth = bit_depth;
    header->color_type = color_type;
    header->interlaced = interlace != PNG_INTERLACE_NONE;

#ifdef PNG_eXIf_SUPPORTED
    png_bytep exif = NULL;
    png_uint_32 exif_length = 0;
    if (png_get_eXIf_1(p->png, p->info, &exif_length, &exif) && exif && exif_length > 0) {
        header->exif = exif;
        header->exif_length = exif_length;
    }
#endif

    /* pHYs: unit 1 is pixels per metre, 0 an aspect ratio only. */
    png_uint_32 x_ppu = 0, y_ppu = 0;
    int unit = PNG_RESOLUTION_UNKNOWN;
    if (png_get_pHYs(p->png, p->info, &x_ppu, &y_ppu, &unit) && unit == PNG_RESOLUTION_METER && x_ppu > 0 && y_ppu > 0) {
        header->x_resolution = x_ppu * 0.0254;
        header->y_resolution = y_ppu * 0.0254;
    }

    /* Expand to gray/RGB at 8 or 16 bits, keeping the stored values: no
       gamma or ICC correction, alpha kept for the caller to composite. */
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(p->png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(p->png);
    if (png_get_valid(p->png, p->info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(p->png);
    if (bit_depth == 16) {
        const uint16_t probe = 1;
        if (*(const uint8_t *)&probe == 1) png_set_swap(p->png);
    }
    if (header->interlaced) png_set_interlace_handling(p->png);
    png_read_update_info(p->png, p->info);
    header->channels = png_get_channels(p->png, p->info);
    header->sample_bits = png_get_bit_depth(p->png, p->info);
    p->header = *header;
    return p;
}

int iq_png_read(iq_png *p, uint8_t *dst, size_t stride, uint64_t deadline) {
    p->deadline = deadline;
    if (deadline != 0) png_set_read_status_fn(p->png, iq_png_row_done);
    if (setjmp(png_jmpbuf(p->png))) {
        free(p->rows);
        p->rows = NULL;
        return p->diagnostics->failure;
    }
    p->rows = malloc(sizeof(png_bytep) * p->header.height);
    if (!p->rows) {
        p->out_of_memory = 1;
        png_error(p->png, "out of memory for row pointers");
    }
    for (uint32_t y = 0; y < p->header.height; y++) p->rows[y] = dst + (size_t)y * stride;
    png_read_image(p->png, p->rows);
    free(p->rows);
    p->rows = NULL;

    /* The pixels are complete; what follows them (text chunks, IEND) can only warn. */
    iq_diagnostics *saved = p->diagnostics;
    iq_diagnostics trailing;
    iq_reset(&trailing);
    p->diagnostics = &trailing;
    if (!setjmp(png_jmpbuf(p->png))) {
        png_read_end(p->png, NULL);
    }
    p->diagnostics = saved;
    for (int i = 0; i < trailing.kept_warnings; i++)
        iq_warn(saved, trailing.warnings[i].kind, trailing.warnings[i].message);
    if (trailing.failure != IQ_OK) {
        char message[IQ_MESSAGE_LENGTH];
        snprintf(message, sizeof(message), "after the image data: %s", trailing.message);
        iq_warn(saved, trailing.failure == IQ_FAIL_TRUNCATED ? IQ_WARN_TRUNCATED : IQ_WARN_CORRUPT, message);
    }
    return IQ_OK;
}

void iq_png_close(iq_png *p) {
    if (!p) return;
    free(p->rows);
    if (p->png) png_destroy_read_struct(&p->png, p->info ? &p->info : NULL, NULL);
    free(p);
}

/* ---- TIFF ------------------------------------------------------------- */

struct iq_tiff {
    TIFF *tif;
    const uint8_t *data;
    size_t size;
    toff_t offset;
    int hit_end;              /* libtiff asked for bytes past the end of the data */
    iq_diagnostics *diagnostics;
    iq_tiff_info info;
};

/* libtiff reports text only, no codes. Truncation is known from the reader's state (the file
   is read through iq_tiff_read_proc, never mapped, so every byte libtiff wants passes there);
   the rest is told from the text, and anything not recognised is corruption. */
static int iq_tiff_failure_kind(const iq_tiff *t, const char *text) {
    if (t->hit_end) return IQ_FAIL_TRUNCATED;
    if (strstr(text, "not configured") || strstr(text, "not supported") || strstr(text, "unsupported") ||
        strstr(text, "Sorry"))
        return IQ_FAIL_UNSUPPORTED;
    if (strstr(text, "memory") || strstr(text, "Memory") || strstr(text, "allocat"))
        return IQ_FAIL_MEMORY;
    return IQ_FAIL_CORRUPT;
}

/* "module: message" from a libtiff handler's arguments. */
static void iq_tiff_format(char *out, size_t size, const char *module, const char *format, va_list ap, char *text, size_t text_size) {
    vsnprintf(text, text_size, format, ap);
    snprintf(out, size, "%s%s%s", module ? module : "", module ? ": " : "", text);
}

/* Removes the first occurrence of `phrase` from `text`. */
static void iq_drop_phrase(char *text, const char *phrase) {
    char *at = strstr(text, phrase);
    if (at) memmove(at, at + strlen(phrase), strlen(at + strlen(phrase)) + 1);
}

static int iq_tiff_error_handler(TIFF *tif, void *user, const char *module, const char *format, va_list ap) {
    (void)tif;
    char text[IQ_MESSAGE_LENGTH], message[IQ_MESSAGE_LENGTH];
    iq_tiff_format(message, sizeof(message), module, format, ap, text, sizeof(text));
    iq_tiff *t = (iq_tiff *)user;
    int kind = iq_tiff_failure_kind(t, text);
    if (kind == IQ_FAIL_TRUNCATED) {
        /* Said plainly, libtiff's words kept as the detail. Reading a whole strip, libtiff
           numbers its row (uint32_t)-1: "Read error at scanline 4294967295". */
        iq_drop_phrase(text, " at scanline 4294967295");
        snprintf(message, sizeof(message), "the file ends early (%s%s%s)", module ? module : "", module ? ": " : "", text);
    }
    iq_fail(t->diagnostics, kind, message);
    return 1;
}

static int iq_tiff_warning_handler(TIFF *tif, void *user, const char *module, const char *format, va_list ap) {
    (void)tif;
    char text[IQ_MESSAGE_LENGTH], message[IQ_MESSAGE_LENGTH];
    iq_tiff_format(message, sizeof(message), module, format, ap, text, sizeof(text));
    iq_tiff *t = (iq_tiff *)user;
    iq_warn(t->diagnostics, t->hit_end ? IQ_WARN_TRUNCATED : IQ_WARN_OTHER, message);
    return 1;
}

static tmsize_t iq_tiff_read_proc(thandle_t handle, void *buffer, tmsize_t size) {
    iq_tiff *t = (iq_tiff *)handle;
    if (size < 0) return -1;
    if (t->offset >= t->size) {
        if (size > 0) t->hit_end = 1;
        return 0;
    }
    size_t available = t->size - (size_t)t->offset;
    size_t n = (size_t)size < available ? (size_t)size : available;
    if (n < (size_t)size) t->hit_end = 1;
    memcpy(buffer, t->data + t->offset, n);
    t->offset += n;
    return (tmsize_t)n;
}

static tmsize_t iq_tiff_write_proc(thandle_t handle, void *buffer, tmsize_t size) {
    (void)handle; (void)buffer; (void)size;
    return -1;
}

static toff_t iq_tiff_seek_proc(thandle_t handle, toff_t offset, int whence) {
    iq_tiff *t = (iq_tiff *)handle;
    toff_t base;
    switch (whence) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = t->offset; break;
    case SEEK_END: base = t->size; break;
    default: return (toff_t)-1;
    }
    t->offset = base + offset;
    return t->offset;
}

static int iq_tiff_close_proc(thandle_t handle) { (void)handle; return 0; }
static toff_t iq_tiff_size_proc(thandle_t handle) { return ((iq_tiff *)handle)->size; }

iq_tiff *iq_tiff_open(const uint8_t *data, size_t size, size_t max_single_alloc, iq_diagnostics *diagnostics) {
    iq_reset(diagnostics);
    iq_tiff *t = calloc(1, sizeof(iq_tiff));
    if (!t) {
        iq_fail(diagnostics, IQ_FAIL_MEMORY, "out of memory");
        return NULL;
    }
    t->data = data;
    t->size = size;
    t->diagnostics = diagnostics;
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) {
        iq_fail(diagnostics, IQ_FAIL_MEMORY, "out of memory");
        free(t);
        return NULL;
    }
    TIFFOpenOptionsSetErrorHandlerExtR(options, iq_tiff_error_handler, t);
    TIFFOpenOptionsSetWarningHandlerExtR(options, iq_tiff_warning_handler, t);
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)max_single_alloc);
    /* "m": no memory mapping, so every read goes through iq_tiff_read_proc and a read past
       the end is seen there. */
    t->tif = TIFFClientOpenExt("image", "rm", (thandle_t)t, iq_tiff_read_proc, iq_tiff_write_proc,
                               iq_tiff_seek_proc, iq_tiff_close_proc, iq_tiff_size_proc,
                               NULL, NULL, options);
    TIFFOpenOptionsFree(options);
    if (!t->tif) {
        iq_fail(diagnostics, IQ_FAIL_CORRUPT, "not a readable TIFF");
        free(t);
        return NULL;
    }
    return t;
}

void iq_tiff_close(iq_tiff *t) {
    if (!t) return;
    if (t->tif) TIFFClose(t->tif);
    free(t);
}

int iq_tiff_page_count(iq_tiff *t) {
    return (int)TIFFNumberOfDirectories(t->tif);
}

/* XResolution/YResolution in pixels per inch; one alone (or one of 0) stands for both. ResolutionUnit
   defaults to inch (2); centimetre (3) is converted; none (1) gives 0, as does a value
   that is not a positive finite number. */
static void iq_tiff_resolution(TIFF *tif, double *x_out, double *y_out) {
    *x_out = *y_out = 0;
    float x = 0, y = 0;
    uint16_t unit = RESUNIT_INCH;
    int has_x = TIFFGetField(tif, TIFFTAG_XRESOLUTION, &x);
    int has_y = TIFFGetField(tif, TIFFTAG_YRESOLUTION, &y);
    TIFFGetFieldDefaulted(tif, TIFFTAG_RESOLUTIONUNIT, &unit);
    if (!has_x && !has_y) return;
    /* libtiff keeps one "set" bit for both tags, so a missing one reads as 0. */
    if (!has_x || !(x > 0)) x = y;
    if (!has_y || !(y > 0)) y = x;
    if (unit != RESUNIT_INCH && unit != RESUNIT_CENTIMETER) return;
    if (!(x > 0 && y > 0 && x < 1e7f && y < 1e7f)) return;  /* also false for NaN */
    double scale = unit == RESUNIT_CENTIMETER ? 2.54 : 1.0;
    *x_out = x * scale;
    *y_out = y * scale;
}

int iq_tiff_select_page(iq_tiff *t, int page_index, iq_tiff_info *info) {
    memset(info, 0, sizeof(*info));
    if (page_index < 0 || page_index >= iq_tiff_page_count(t)) {
        char message[IQ_MESSAGE_LENGTH];
        snprintf(message, sizeof(message), "page %d requested, the file has %d", page_index + 1, iq_tiff_page_count(t));
        iq_fail(t->diagnostics, IQ_FAIL_LIMIT, message);
        return IQ_FAIL_LIMIT;
    }
    if (!TIFFSetDirectory(t->tif, (tdir_t)page_index)) {
        iq_fail(t->diagnostics, IQ_FAIL_CORRUPT, "cannot read the page's directory");
        return t->diagnostics->failure;
    }
    TIFF *tif = t->tif;
    uint32_t width = 0, height = 0;
    uint16_t bits = 1, spp = 1, photometric = 0, planar = PLANARCONFIG_CONTIG, compression = COMPRESSION_NONE;
    uint16_t sample_format = SAMPLEFORMAT_UINT, orientation = ORIENTATION_TOPLEFT;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height)) {
        iq_fail(t->diagnostics, IQ_FAIL_CORRUPT, "the page has no ImageWidth or ImageLength");
        return t->diagnostics->failure;
    }
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &sample_format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &orientation);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric))
        photometric = spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;

    uint16_t extra_count = 0;
    uint16_t *extra_types = NULL;
    int alpha = 0;
    if (TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra_types) && extra_count > 0 && extra_types) {
        if (extra_types[0] == EXTRASAMPLE_ASSOCALPHA) alpha = 1;
        else if (extra_types[0] == EXTRASAMPLE_UNASSALPHA) alpha = 2;
    }

    if (photometric == PHOTOMETRIC_YCBCR && compression == COMPRESSION_JPEG) {
        TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
        photometric = PHOTOMETRIC_RGB;
    }

    int colour_samples = (photometric == PHOTOMETRIC_RGB) ? 3 : 1;
    int direct = sample_format == SAMPLEFORMAT_UINT &&
                 (photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE ||
                  photometric == PHOTOMETRIC_RGB || photometric == PHOTOMETRIC_PALETTE) &&
                 spp >= colour_samples && spp <= 8 &&
                 compression != COMPRESSION_OJPEG &&
                 (bits == 8 || bits == 16 || ((bits == 1 || bits == 2 || bits == 4) && spp == 1)) &&
                 !(photometric == PHOTOMETRIC_PALETTE && (bits == 16 || spp != 1));
    if (!TIFFIsCODECConfigured(compression)) {
        char message[IQ_MESSAGE_LENGTH];
        snprintf(message, sizeof(message), "TIFF compression scheme %u is not supported by this libtiff", compression);
        iq_fail(t->diagnostics, IQ_FAIL_UNSUPPORTED, message);
        return IQ_FAIL_UNSUPPORTED;
    }

    info->width = width;
    info->height = height;
    info->bits_per_sample = bits;
    info->samples_per_pixel = spp;
    info->sample_format = sample_format;
    info->photometric = photometric;
    info->planar_separate = planar == PLANARCONFIG_SEPARATE;
    info->compression = compression;
    info->tiled = TIFFIsTiled(tif) ? 1 : 0;
    if (info->tiled) {
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &info->block_width);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &info->block_length);
    } else {
        uint32_t rows = 0;
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows);
        info->block_width = width;
        info->block_length = rows == 0 || rows > height ? height : rows;
    }
    info->orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
    iq_tiff_resolution(tif, &info->x_resolution, &info->y_resolution);
    info->alpha = (spp > colour_samples) ? alpha : 0;
    info->direct = direct;
    if (photometric == PHOTOMETRIC_PALETTE) {
        uint16_t *r, *g, *b;
        if (!TIFFGetField(tif, TIFFTAG_COLORMAP, &r, &g, &b)) {
            iq_fail(t->diagnostics, IQ_FAIL_CORRUPT, "palette image without a ColorMap");
            return IQ_FAIL_CORRUPT;
        }
        int entries = 1 << bits, small = 1;
        for (int i = 0; i < entries; i++)
            if (r[i] > 255 || g[i] > 255 || b[i] > 255) { small = 0; break; }
        info->colormap_is_8bit = small;
    }
    t->info = *info;
    return IQ_OK;
}

int iq_tiff_colormap(iq_tiff *t, const uint16_t **red, const uint16_t **green, const uint16_t **blue) {
    uint16_t *r, *g, *b;
    if (!TIFFGetField(t->tif, TIFFTAG_COLORMAP, &r, &g, &b)) return 0;
    *red = r; *green = g; *blue = b;
    return 1;
}

/* Copies `count` samples of `bits` (1, 2, 4) from a packed row, unscaled, one byte each. */
static void iq_unpack_bits(const uint8_t *src, uint8_t *dst, uint32_t count, int bits) {
    const int per_byte = 8 / bits;
    const uint8_t mask = (uint8_t)((1 << bits) - 1);
    for (uint32_t i = 0; i < count; i++) {
        uint8_t byte = src[i / per_byte];
        int shift = 8 - bits * (int)(i % per_byte + 1);
        dst[i] = (byte >> shift) & mask;
    }
}

/* Places `width` pixels of one decoded row (of one plane, or all samples for contig) into dst. */
static void iq_tiff_place_row(const iq_tiff_info *info, const uint8_t *src, uint8_t *dst_row,
                              uint32_t x0, uint32_t width, int plane) {
    const int spp = info->samples_per_pixel;
    if (info->bits_per_sample < 8) {
        iq_unpack_bits(src, dst_row + x0, width, info->bits_per_sample);
        return;
    }
    const size_t bytes = (size_t)info->bits_per_sample / 8;
    if (!info->planar_separate) {
        memcpy(dst_row + (size_t)x0 * spp * bytes, src, (size_t)width * spp * bytes);
        return;
    }
    if (bytes == 1) {
        uint8_t *out = dst_row + (size_t)x0 * spp + plane;
        for (uint32_t x = 0; x < width; x++) out[(size_t)x * spp] = src[x];
    } else {
        uint16_t *out = (uint16_t *)(void *)dst_row + (size_t)x0 * spp + plane;
        const uint16_t *in = (const uint16_t *)(const void *)src;
        for (uint32_t x = 0; x < width; x++) out[(size_t)x * spp] = in[x];
    }
}

int iq_tiff_read_samples(iq_tiff *t, uint8_t *dst, size_t stride, uint64_t deadline) {
    TIFF *tif = t->tif;
    const iq_tiff_info *info = &t->info;
    const int planes = info->planar_separate ? info->samples_per_pixel : 1;
    /* Strips are handled as tiles as wide as the image. */
    const uint32_t block_width = info->block_width, block_length = info->block_length;
    const tmsize_t block_size = info->tiled ? TIFFTileSize(tif) : TIFFStripSize(tif);
    const tmsize_t row_size = info->tiled ? TIFFTileRowSize(tif) : TIFFScanlineSize(tif);
    if (block_width == 0 || block_length == 0 || block_size <= 0 || row_size <= 0) {
        iq_fail(t->diagnostics, IQ_FAIL_CORRUPT, info->tiled ? "invalid tile geometry" : "invalid strip geometry");
        return IQ_FAIL_CORRUPT;
    }
    uint8_t *buffer = _TIFFmalloc(block_size);
    if (!buffer) {
        iq_fail(t->diagnostics, IQ_FAIL_MEMORY, "out of memory for a strip or tile");
        return IQ_FAIL_MEMORY;
    }
    for (int plane = 0; plane < planes; plane++) {
        for (uint32_t y0 = 0; y0 < info->height; y0 += block_length) {
            uint32_t rows = info->height - y0 < block_length ? info->height - y0 : block_length;
            for (uint32_t x0 = 0; x0 < info->width; x0 += block_width) {
                uint32_t cols = info->width - x0 < block_width ? info->width - x0 : block_width;
                if (iq_past(deadline)) {
                    _TIFFfree(buffer);
                    iq_fail(t->diagnostics, IQ_FAIL_TIME, iq_time_message);
                    return IQ_FAIL_TIME;
                }
                tmsize_t wanted = info->tiled ? block_size : (tmsize_t)rows * row_size;
                tmsize_t got = info->tiled
                    ? TIFFReadEncodedTile(tif, TIFFComputeTile(tif, x0, y0, 0, (uint16_t)plane), buffer, block_size)
                    : TIFFReadEncodedStrip(tif, TIFFComputeStrip(tif, y0, (uint16_t)plane), buffer, wanted);
                if (got < wanted) {
                    _TIFFfree(buffer);
                    if (got < 0) iq_fail(t->diagnostics, IQ_FAIL_CORRUPT, "cannot decode a strip or tile");
                    else iq_fail(t->diagnostics, IQ_FAIL_TRUNCATED, "a strip or tile holds fewer bytes than its rows need");
                    return t->diagnostics->failure;
                }
                for (uint32_t r = 0; r < rows; r++)
                    iq_tiff_place_row(info, buffer + (size_t)r * (size_t)row_size,
                                      dst + (size_t)(y0 + r) * stride, x0, cols, plane);
            }
        }
    }
    _TIFFfree(buffer);
    return IQ_OK;
}

int iq_tiff_read_rgba(iq_tiff *t, uint8_t *dst, size_t stride, uint64_t deadline) {
    TIFF *tif = t->tif;
    char emsg[1024] = {0};
    if (!TIFFRGBAImageOK(tif, emsg)) {
        iq_fail(t->diagnostics, IQ_FAIL_UNSUPPORTED, emsg[0] ? emsg : "libtiff cannot convert this TIFF to RGBA");
        return IQ_FAIL_UNSUPPORTED;
    }
    /* Read the raster in stored order: imgquality applies Orientation itself. */
    TIFFSetField(tif, TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT);
    TIFFRGBAImage image;
    if (!TIFFRGBAImageBegin(&image, tif, 1, emsg)) {
        iq_fail(t->diagnostics, IQ_FAIL_UNSUPPORTED, emsg[0] ? emsg : "TIFFRGBAImageBegin failed");
        return t->diagnostics->failure;
    }
    image.req_orientation = ORIENTATION_TOPLEFT;
    const uint32_t width = t->info.width, height = t->info.height;
    /* Bands of whole strips or tiles (at least 64 rows), as TIFFReadRGBAStrip reads them:
       the deadline is checked between bands, and the raster holds one band, not the image. */
    uint32_t block = 0;
    if (t->info.tiled) TIFFGetField(tif, TIFFTAG_TILELENGTH, &block);
    else TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &block);
    if (block == 0 || block > height) block = height;
    uint32_t band = block >= 64 ? block : (64 + block - 1) / block * block;
    if (band > height) band = height;
    uint32_t *raster = _TIFFmalloc((tmsize_t)((size_t)width * band * sizeof(uint32_t)));
    if (!raster) {
        TIFFRGBAImageEnd(&image);
        iq_fail(t->diagnostics, IQ_FAIL_MEMORY, "out of memory for the RGBA raster");
        return IQ_FAIL_MEMORY;
    }
    int status = IQ_OK;
    for (uint32_t y0 = 0; y0 < height && status == IQ_OK; y0 += band) {
        if (iq_past(deadline)) {
            iq_fail(t->diagnostics, IQ_FAIL_TIME, iq_time_message);
            status = IQ_FAIL_TIME;
            break;
        }
        const uint32_t rows = height - y0 < band ? height - y0 : band;
        image.row_offset = (int)y0;
        image.col_offset = 0;
        if (!TIFFRGBAImageGet(&image, raster, width, rows)) {
            iq_fail(t->diagnostics, IQ_FAIL_CORRUPT, "cannot decode the image");
            status = t->diagnostics->failure;
            break;
        }
        for (uint32_t y = 0; y < rows; y++) {
            uint8_t *out = dst + (size_t)(y0 + y) * stride;
            const uint32_t *in = raster + (size_t)y * width;
            for (uint32_t x = 0; x < width; x++) {
                uint32_t p = in[x];
                out[4 * x + 0] = (uint8_t)TIFFGetR(p);
                out[4 * x + 1] = (uint8_t)TIFFGetG(p);
                out[4 * x + 2] = (uint8_t)TIFFGetB(p);
                out[4 * x + 3] = (uint8_t)TIFFGetA(p);
            }
        }
    }
    TIFFRGBAImageEnd(&image);
    _TIFFfree(raster);
    return status;
}
