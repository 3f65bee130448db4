// Nothing to import: the target exists for its object file, which pins glibc symbol versions (see baseline.c).
#ifndef GLIBC_BASELINE_H
#define GLIBC_BASELINE_H
#endif
