#ifndef IMGQUALITY_LIBRARY_LOADER_H
#define IMGQUALITY_LIBRARY_LOADER_H
/* A shared library opened with dlopen on first use, and the functions imgquality calls
   forwarded to it, for the loaders of libtesseract (CTesseract), libheif (CHEIF), libjxl (CJXL),
   ZBar (CZBar) and LibRaw (_CRawWorker).

   A loader lists its functions as X-macros: FUNCTIONS(F) with F(type, name, (parameters),
   (arguments), what to return while the library is missing), PROCEDURES(P) with P(name,
   (parameters), (arguments)) for those that return nothing. IQ_LIBRARY_LOADER then defines,
   in that translation unit, a pointer per function, `LOAD` (opens the first of the file names
   that loads and resolves every function, once per process; 0 when all are there, -1
   otherwise; thread-safe), `LOAD_ERROR` (why it failed, or NULL) and every listed function,
   forwarding to the library once it is loaded. A library without one of the functions is not
   used at all. Needs <dlfcn.h>, <pthread.h> and <stdio.h> (with _GNU_SOURCE). */

#define IQ_LIBRARY_POINTER(type, name, parameters, arguments, missing) static type(*resolved_##name) parameters;
#define IQ_LIBRARY_PROCEDURE_POINTER(name, parameters, arguments) static void(*resolved_##name) parameters;
#define IQ_LIBRARY_RESOLVE(name)                                                                    \
    do {                                                                                            \
        void *symbol = dlsym(library, #name);                                                       \
        if (symbol == NULL) {                                                                       \
            snprintf(iq_library_failure, sizeof iq_library_failure, "%s has no %s: %s", iq_library_label, \
                     #name, dlerror());                                                             \
            return;                                                                                 \
        }                                                                                           \
        *(void **)(&resolved_##name) = symbol;                                                      \
    } while (0);
#define IQ_LIBRARY_RESOLVE_FUNCTION(type, name, parameters, arguments, missing) IQ_LIBRARY_RESOLVE(name)
#define IQ_LIBRARY_RESOLVE_PROCEDURE(name, parameters, arguments) IQ_LIBRARY_RESOLVE(name)
#define IQ_LIBRARY_FORWARD(type, name, parameters, arguments, missing) \
    type name parameters { return iq_library_ready() == 0 ? resolved_##name arguments : missing; }
#define IQ_LIBRARY_FORWARD_PROCEDURE(name, parameters, arguments) \
    void name parameters {                                        \
        if (iq_library_ready() == 0) resolved_##name arguments;   \
    }

#define IQ_LIBRARY_LOADER(LOAD, LOAD_ERROR, LABEL, FLAGS, FUNCTIONS, PROCEDURES, ...)                  \
    FUNCTIONS(IQ_LIBRARY_POINTER)                                                                      \
    PROCEDURES(IQ_LIBRARY_PROCEDURE_POINTER)                                                           \
    static const char iq_library_label[] = LABEL;                                                      \
    static pthread_once_t iq_library_once = PTHREAD_ONCE_INIT;                                         \
    static int iq_library_status = -1;                                                                 \
    static char iq_library_failure[512] = LABEL " was not loaded";                                     \
    static void iq_library_load(void) {                                                                \
        const char *names[] = {__VA_ARGS__};                                                           \
        void *library = NULL;                                                                          \
        for (size_t i = 0; i < sizeof names / sizeof names[0] && library == NULL; i++) {               \
            library = dlopen(names[i], FLAGS);                                                         \
        }                                                                                              \
        if (library == NULL) {                                                                         \
            const char *reason = dlerror();                                                            \
            snprintf(iq_library_failure, sizeof iq_library_failure, "cannot load %s: %s", iq_library_label, \
                     reason ? reason : "not found");                                                   \
            return;                                                                                    \
        }                                                                                              \
        FUNCTIONS(IQ_LIBRARY_RESOLVE_FUNCTION)                                                         \
        PROCEDURES(IQ_LIBRARY_RESOLVE_PROCEDURE)                                                       \
        iq_library_status = 0;                                                                         \
    }                                                                                                  \
    static int iq_library_ready(void) {                                                                \
        pthread_once(&iq_library_once, iq_library_load);                                               \
        return iq_library_status;                                                                      \
    }                                                                                                  \
    int LOAD(void) { return iq_library_ready(); }                                                      \
    const char *LOAD_ERROR(void) { return iq_library_ready() == 0 ? NULL : iq_library_failure; }       \
    FUNCTIONS(IQ_LIBRARY_FORWARD)                                                                      \
    PROCEDURES(IQ_LIBRARY_FORWARD_PROCEDURE)
#endif
