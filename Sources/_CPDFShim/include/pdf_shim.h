#ifndef IMGQUALITY_PDF_SHIM_H
#define IMGQUALITY_PDF_SHIM_H
/* A C interface to Poppler's C++ API (poppler-cpp): open a PDF held in memory, count and
   measure its pages, render one to 8-bit RGB. C++ exceptions never cross it. */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct iq_pdf iq_pdf;

/* Why opening failed. */
enum { IQ_PDF_OK = 0, IQ_PDF_DAMAGED = 1, IQ_PDF_LOCKED = 2, IQ_PDF_NO_MEMORY = 3, IQ_PDF_TOO_LARGE = 4 };

/* Opens `size` bytes at `data`, which must stay valid until iq_pdf_close; NULL with `status` set on failure. */
iq_pdf *iq_pdf_open(const uint8_t *data, size_t size, int *status);
void iq_pdf_close(iq_pdf *pdf);
int iq_pdf_page_count(const iq_pdf *pdf);
/* The page's crop box in points (1/72 inch), and its /Rotate in degrees (0, 90, 180, 270);
   0 when the page cannot be read. */
int iq_pdf_page_size(const iq_pdf *pdf, int index, double *width, double *height, int *rotation);
/* Renders page `index` at `dpi` on white paper, writing its `width` × `height` RGB rows
   through `write_row(context, y, row, width, height)`, rows in order; returns 0, or 1 when the
   page could not be rendered. `width` and `height` are what the page measures at that
   resolution after its rotation. */
int iq_pdf_render(const iq_pdf *pdf, int index, double dpi,
                  void (*write_row)(void *context, int y, const uint8_t *rgb, int width, int height), void *context);

#ifdef __cplusplus
}
#endif
#endif
