// The C side of the header's compile check: a C compiler reads gym2048.h in every build, and the
// sizes the Swift library assumes are the C compiler's. And the library's one piece of C code: it stays loaded.
#define _GNU_SOURCE
#include <dlfcn.h>

#include "gym2048.h"

_Static_assert(sizeof(g2048_info_buffers) == 10 * sizeof(void *), "g2048_info_buffers is ten pointers");
_Static_assert(sizeof(uint8_t) == 1, "flags and exponents are bytes");

// Once loaded, libgym2048 is never unloaded: dlclose() leaves it in place (RTLD_NODELETE). Each thread's last
// error and result text live in thread-local storage whose destructor is code of this library, run when the
// thread exits; after an unload, that exit would jump into unmapped memory. Plugin hosts, Rust's libloading and
// Julia's Libdl unload libraries this way. (Linked into an executable instead, dladdr names the executable and
// the call changes nothing.)
__attribute__((constructor)) static void g2048_stay_loaded(void) {
    Dl_info info;
    if (dladdr((void *)&g2048_stay_loaded, &info) != 0 && info.dli_fname != NULL) {
        (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    }
}
