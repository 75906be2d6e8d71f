#include "pdf_shim.h"

#include <poppler/cpp/poppler-document.h>
#include <poppler/cpp/poppler-global.h>
#include <poppler/cpp/poppler-image.h>
#include <poppler/cpp/poppler-page-renderer.h>
#include <poppler/cpp/poppler-page.h>

#include <climits>
#include <memory>
#include <mutex>
#include <new>
#include <string>

struct iq_pdf {
    std::unique_ptr<poppler::document> document;
};

namespace {
/* Poppler prints its complaints about damaged files on standard error unless given a
   function for them; records say what failed, so they are dropped. Set once: the function
   is global in Poppler. */
void quiet(const std::string &, void *) {}

void silence_once() {
    static std::once_flag once;
    std::call_once(once, [] { poppler::set_debug_error_function(quiet, nullptr); });
}
}  // namespace

extern "C" iq_pdf *iq_pdf_open(const uint8_t *data, size_t size, int *status) {
    silence_once();
    if (size > INT_MAX) {
        *status = IQ_PDF_TOO_LARGE;
        return nullptr;
    }
    try {
        std::unique_ptr<poppler::document> document(
            poppler::document::load_from_raw_data(reinterpret_cast<const char *>(data), static_cast<int>(size)));
        if (!document) {
            *status = IQ_PDF_DAMAGED;
            return nullptr;
        }
        if (document->is_locked()) {
            *status = IQ_PDF_LOCKED;
            return nullptr;
        }
        auto *pdf = new iq_pdf;
        pdf->document = std::move(document);
        *status = IQ_PDF_OK;
        return pdf;
    } catch (const std::bad_alloc &) {
        *status = IQ_PDF_NO_MEMORY;
    } catch (...) {
        *status = IQ_PDF_DAMAGED;
    }
    return nullptr;
}

extern "C" void iq_pdf_close(iq_pdf *pdf) { delete pdf; }

extern "C" int iq_pdf_page_count(const iq_pdf *pdf) {
    try {
        return pdf->document->pages();
    } catch (...) {
        return 0;
    }
}

extern "C" int iq_pdf_page_size(const iq_pdf *pdf, int index, double *width, double *height, int *rotation) {
    try {
        std::unique_ptr<poppler::page> page(pdf->document->create_page(index));
        if (!page) return 0;
        poppler::rectf box = page->page_rect(poppler::crop_box);
        *width = box.width();
        *height = box.height();
        switch (page->orientation()) {
        case poppler::page::landscape: *rotation = 90; break;
        case poppler::page::upside_down: *rotation = 180; break;
        case poppler::page::seascape: *rotation = 270; break;
        default: *rotation = 0;
        }
        return 1;
    } catch (...) {
        return 0;
    }
}

extern "C" int iq_pdf_render(const iq_pdf *pdf, int index, double dpi,
                             void (*write_row)(void *context, int y, const uint8_t *rgb, int width, int height), void *context) {
    try {
        std::unique_ptr<poppler::page> page(pdf->document->create_page(index));
        if (!page) return 1;
        poppler::page_renderer renderer;
        renderer.set_render_hint(poppler::page_renderer::antialiasing, true);
        renderer.set_render_hint(poppler::page_renderer::text_antialiasing, true);
        renderer.set_paper_color(0xFFFFFFFF);
        renderer.set_image_format(poppler::image::format_rgb24);
        poppler::image image = renderer.render_page(page.get(), dpi, dpi);
        if (!image.is_valid() || image.format() != poppler::image::format_rgb24) return 1;
        const char *rows = image.const_data();
        for (int y = 0; y < image.height(); y++)
            write_row(context, y, reinterpret_cast<const uint8_t *>(rows + static_cast<size_t>(y) * image.bytes_per_row()), image.width(),
                      image.height());
        return 0;
    } catch (...) {
        return 1;
    }
}
