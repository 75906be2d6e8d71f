/* _CLibraryLoader is its header, iq_library_loader.h: SwiftPM builds a C target only from a
   source file. */
#include "iq_library_loader.h"
