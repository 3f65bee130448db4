// CPackedLanes is its header alone (static inline functions, compiled where Swift calls them); SwiftPM wants one
// source file per C target.
#include "CPackedLanes.h"
