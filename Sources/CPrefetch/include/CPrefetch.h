// A software prefetch for Swift, which has no spelling of its own for one.
//
// The n-tuple network's hot loops read weights at random in tables of hundreds of megabytes, so
// most reads miss every cache. Asking for all of a move's weights before summing any lets those
// misses overlap instead of waiting on the CPU's reorder window to reach them one board at a time.
#ifndef CPREFETCH_H
#define CPREFETCH_H

/// Starts loading the cache line holding `address` into every cache level, for a read; never faults
/// and does not wait for the data. Inlined into the Swift caller (a static inline function of an
/// imported header).
static inline __attribute__((always_inline)) void prefetch_for_read(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
