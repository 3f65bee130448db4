// The contract every game shares (the seeded generators, option values, autoreset modes) lives in GymCore, so
// that a second game depends on it without depending on 2048; a user of Game2048 keeps seeing it as before.
@_exported import GymCore
