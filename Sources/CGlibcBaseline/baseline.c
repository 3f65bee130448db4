// The glibc a build needs: glibc 2.35 gave `hypotf` a new symbol version (its error handling changed), and the
// Swift runtime's static Glibc module refers to it, which alone made a self-contained build (the Python wheel)
// need glibc 2.35 where every other symbol it uses is 2.34 or older. This definition takes the reference
// instead and calls the version glibc has had since 2.2.5 (the same function for every finite input; a range
// error sets errno as SVID did), so the wheel runs on glibc 2.34 (RHEL 9 and its rebuilds).
// `python/tests/test_wheel.py` checks the versions the wheel's files need.
#include "glibc_baseline.h"

#if defined(__linux__) && defined(__x86_64__)
#include <features.h>
#if defined(__GLIBC__)
float gym2048_hypotf_glibc_2_2_5(float x, float y);
__asm__(".symver gym2048_hypotf_glibc_2_2_5, hypotf@GLIBC_2.2.5");

__attribute__((visibility("hidden"))) float hypotf(float x, float y) { return gym2048_hypotf_glibc_2_2_5(x, y); }
#endif
#endif
