// CPrefetch is its header alone (a static inline function); SwiftPM wants one source file per C target.
#include "CPrefetch.h"
