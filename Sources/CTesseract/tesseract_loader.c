/* The Tess* functions imgquality calls, forwarded to libtesseract opened on first use
   (tesseract_loader.h says why). Each entry of IQ_TESSERACT_FUNCTIONS gives the return type,
   the name, the parameters, the arguments and what to return while the library is missing;
   IQ_TESSERACT_PROCEDURES the same for functions that return nothing. */
#define _GNU_SOURCE
#include "tesseract_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "iq_library_loader.h"

#define IQ_TESSERACT_FUNCTIONS(F) \
    F(const char *, TessVersion, (void), (), "unavailable") \
    F(TessBaseAPI *, TessBaseAPICreate, (void), (), NULL) \
    F(int, TessBaseAPIInit3, (TessBaseAPI *handle, const char *datapath, const char *language), \
      (handle, datapath, language), -1) \
    F(int, TessBaseAPIInit4, \
      (TessBaseAPI *handle, const char *datapath, const char *language, TessOcrEngineMode mode, char **configs, \
       int configs_size, char **vars_vec, char **vars_values, size_t vars_vec_size, BOOL set_only_non_debug_params), \
      (handle, datapath, language, mode, configs, configs_size, vars_vec, vars_values, vars_vec_size, \
       set_only_non_debug_params), -1) \
    F(TessPageIterator *, TessBaseAPIAnalyseLayout, (TessBaseAPI *handle), (handle), NULL) \
    F(BOOL, TessBaseAPIGetBoolVariable, (const TessBaseAPI *handle, const char *name, BOOL *value), \
      (handle, name, value), FALSE) \
    F(const char *, TessBaseAPIGetInitLanguagesAsString, (const TessBaseAPI *handle), (handle), NULL) \
    F(TessResultIterator *, TessBaseAPIGetIterator, (TessBaseAPI *handle), (handle), NULL) \
    F(char **, TessBaseAPIGetLoadedLanguagesAsVector, (const TessBaseAPI *handle), (handle), NULL) \
    F(int, TessBaseAPIGetSourceYResolution, (TessBaseAPI *handle), (handle), 0) \
    F(const char *, TessBaseAPIGetStringVariable, (const TessBaseAPI *handle, const char *name), (handle, name), NULL) \
    F(int, TessBaseAPIRecognize, (TessBaseAPI *handle, ETEXT_DESC *monitor), (handle, monitor), -1) \
    F(BOOL, TessBaseAPISetVariable, (TessBaseAPI *handle, const char *name, const char *value), \
      (handle, name, value), FALSE) \
    F(ETEXT_DESC *, TessMonitorCreate, (void), (), NULL) \
    F(TessPolyBlockType, TessPageIteratorBlockType, (const TessPageIterator *handle), (handle), PT_UNKNOWN) \
    F(BOOL, TessPageIteratorBoundingBox, \
      (const TessPageIterator *handle, TessPageIteratorLevel level, int *left, int *top, int *right, int *bottom), \
      (handle, level, left, top, right, bottom), FALSE) \
    F(BOOL, TessPageIteratorIsAtBeginningOf, (const TessPageIterator *handle, TessPageIteratorLevel level), \
      (handle, level), FALSE) \
    F(BOOL, TessPageIteratorNext, (TessPageIterator *handle, TessPageIteratorLevel level), (handle, level), FALSE) \
    F(float, TessResultIteratorConfidence, (const TessResultIterator *handle, TessPageIteratorLevel level), \
      (handle, level), 0) \
    F(const TessPageIterator *, TessResultIteratorGetPageIteratorConst, (const TessResultIterator *handle), \
      (handle), NULL) \
    F(char *, TessResultIteratorGetUTF8Text, (const TessResultIterator *handle, TessPageIteratorLevel level), \
      (handle, level), NULL) \
    F(BOOL, TessResultIteratorNext, (TessResultIterator *handle, TessPageIteratorLevel level), (handle, level), FALSE) \
    F(const char *, TessResultIteratorWordRecognitionLanguage, (const TessResultIterator *handle), (handle), NULL) \
    F(int32_t, setMsgSeverity, (int32_t newsev), (newsev), 0)

#define IQ_TESSERACT_PROCEDURES(P) \
    P(TessBaseAPIDelete, (TessBaseAPI *handle), (handle)) \
    P(TessBaseAPIEnd, (TessBaseAPI *handle), (handle)) \
    P(TessBaseAPIClear, (TessBaseAPI *handle), (handle)) \
    P(TessBaseAPISetImage, \
      (TessBaseAPI *handle, const unsigned char *imagedata, int width, int height, int bytes_per_pixel, \
       int bytes_per_line), \
      (handle, imagedata, width, height, bytes_per_pixel, bytes_per_line)) \
    P(TessBaseAPISetPageSegMode, (TessBaseAPI *handle, TessPageSegMode mode), (handle, mode)) \
    P(TessBaseAPISetRectangle, (TessBaseAPI *handle, int left, int top, int width, int height), \
      (handle, left, top, width, height)) \
    P(TessBaseAPISetSourceResolution, (TessBaseAPI *handle, int ppi), (handle, ppi)) \
    P(TessDeleteText, (const char *text), (text)) \
    P(TessDeleteTextArray, (char **arr), (arr)) \
    P(TessMonitorDelete, (ETEXT_DESC *monitor), (monitor)) \
    P(TessMonitorSetDeadlineMSecs, (ETEXT_DESC *monitor, int deadline), (monitor, deadline)) \
    P(TessPageIteratorDelete, (TessPageIterator *handle), (handle)) \
    P(TessResultIteratorDelete, (TessResultIterator *handle), (handle))

/* The loader: iq_tesseract_load, iq_tesseract_load_error and the forwarding definitions. */
IQ_LIBRARY_LOADER(iq_tesseract_load, iq_tesseract_load_error, "libtesseract", RTLD_NOW | RTLD_GLOBAL,
                  IQ_TESSERACT_FUNCTIONS, IQ_TESSERACT_PROCEDURES, "libtesseract.so.5", "libtesseract.so")
