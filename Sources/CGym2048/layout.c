// The C side of the header's compile check: a C compiler reads gym2048.h in every build, and the
// sizes the Swift library assumes are the C compiler's.
#include "gym2048.h"

_Static_assert(sizeof(g2048_info_buffers) == 10 * sizeof(void *), "g2048_info_buffers is ten pointers");
_Static_assert(sizeof(uint8_t) == 1, "flags and exponents are bytes");
