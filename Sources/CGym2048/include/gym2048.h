/*
 * gym2048.h: the Gym2048 engine in-process, for C and any language with a C FFI.
 *
 * Link with the shared library the Swift package builds (libgym2048.so, product "gym2048"):
 *
 *     swift build -c release --product gym2048
 *     cc -I Sources/CGym2048/include my_agent.c -L .build/release -lgym2048 -Wl,-rpath,.build/release
 *
 * A handle is a batch of `num_envs` 2048 environments with the same rules (one environment is a
 * batch of one). It plays exactly as the Swift VectorEnvironment and `g2048 serve` do: the same
 * rules, seeds and actions give byte-identical results everywhere.
 *
 * Ownership: every buffer is the caller's. A call reads and writes only the buffers it is given,
 * only during the call, and keeps no pointer. Results go into a g2048_buffers whose columns each
 * hold `num_envs` entries (boards: num_envs * rows * cols exponents, environment-major,
 * row-major); a NULL info column is not written.
 *
 * Errors: every function that can fail returns a g2048_status. On failure nothing changed (the
 * environments and the buffers are as before) and g2048_last_error() returns a message naming
 * the argument, in the wording of the protocol's errors, for example
 * "rules.rows must be between 2 and 8, got 9" or "actions[3] must be 0..3 (up, right, down,
 * left), got 7". No input makes the library abort: a null, unknown or destroyed handle, a null
 * or mis-sized buffer, an action outside 0..3 and options out of range are all errors.
 *
 * Threads: handles are independent; use one handle per thread and nothing is shared. Calls on
 * the same handle from several threads are serialized by the handle's lock (safe, not parallel).
 * g2048_last_error() is per thread.
 */
#ifndef GYM2048_H
#define GYM2048_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this interface: it changes when a declaration here changes meaning. */
#define G2048_ABI_VERSION 1

/* Action indices, the same everywhere in Gym2048. */
enum { G2048_UP = 0, G2048_RIGHT = 1, G2048_DOWN = 2, G2048_LEFT = 3 };

/* What a step does with an action that would not change the board (g2048_rules.invalid_action). */
enum {
    G2048_INVALID_NOOP = 0,      /* nothing changes, reward 0, info.invalid set */
    G2048_INVALID_TERMINATE = 1, /* the episode terminates with reward -invalid_action_penalty */
    G2048_INVALID_REJECT = 2     /* the step fails with G2048_ILLEGAL_ACTION and changes nothing */
};

/* What a step does with an environment whose episode ended (Gymnasium 1.x's autoreset modes). */
enum {
    G2048_AUTORESET_NEXT_STEP = 0, /* the next step ignores its action and starts a new episode */
    G2048_AUTORESET_SAME_STEP = 1, /* the ending step starts it at once; final_* columns hold the end */
    G2048_AUTORESET_DISABLED = 2   /* the caller resets; stepping it fails with G2048_EPISODE_OVER */
};

typedef enum {
    G2048_OK = 0,
    G2048_INVALID_ARGUMENT = 1, /* a bad option, buffer, action, seed or board: see g2048_last_error() */
    G2048_INVALID_HANDLE = 2,   /* null, unknown or destroyed */
    G2048_NOT_RESET = 3,        /* a step before the first reset */
    G2048_ILLEGAL_ACTION = 4,   /* under G2048_INVALID_REJECT */
    G2048_EPISODE_OVER = 5,     /* under G2048_AUTORESET_DISABLED */
    G2048_TOO_SMALL = 6         /* g2048_render: the text needs more room (see its needed argument) */
} g2048_status;

/* The rules. Fill with g2048_rules_default, then change what you need. */
typedef struct {
    int32_t rows, cols;              /* 2..8 each (default 4, 4) */
    double spawn_four_probability;   /* 0..1 (0.1) */
    int32_t initial_tiles;           /* 1..rows*cols (2) */
    int64_t win_tile;                /* 0 = off (default), else a power of two from 4 to 2^50 */
    int64_t max_steps;               /* 0 = off (default), else at least 1: truncate there */
    int32_t invalid_action;          /* G2048_INVALID_* (G2048_INVALID_NOOP) */
    int64_t invalid_action_penalty;  /* 0 or more, with G2048_INVALID_TERMINATE (0) */
} g2048_rules;

/* Info columns, one entry per environment; a NULL column is not written. Flags are bytes 0/1. */
typedef struct {
    uint8_t *action_masks;    /* bit i set when action i is legal in the returned observation */
    int64_t *scores;
    int64_t *max_tiles;       /* the largest tile's value */
    int64_t *steps;           /* steps in the episode, illegal no-ops included */
    uint8_t *invalid;         /* the action was illegal */
    uint8_t *won;             /* the win tile appeared */
    uint8_t *afterstates;     /* num_envs * rows * cols: the board after the slide, before the spawn;
                                 all zero after a reset */
    int8_t *spawn_cells;      /* the spawned tile's cell, -1 when none */
    uint8_t *spawn_exponents; /* 1 for a 2, 2 for a 4, 0 when none */
    uint8_t *legal_actions;   /* num_envs * 4 bytes: 1 where action i is legal, 0 elsewhere (action_masks
                                 as bytes, the shape an action-masking policy reads) */
} g2048_info_buffers;

/* Where a reset or a step writes. The first four columns are required. */
typedef struct {
    int64_t num_envs;            /* how many environments every column holds: the handle's count */
    uint8_t *observations;       /* num_envs * rows * cols exponents (0 = empty, k = tile 2^k) */
    int64_t *rewards;            /* 0 after a reset */
    uint8_t *terminations;       /* after a reset: the episode is over at once */
    uint8_t *truncations;
    g2048_info_buffers info;
    /* G2048_AUTORESET_SAME_STEP: the environments that ended during the step, their final
       observations and infos (zero elsewhere, spawn cell -1). Written on every call when given. */
    uint8_t *finals;
    uint8_t *final_observations;
    g2048_info_buffers final_info;
} g2048_buffers;

/* Facts about a handle. */
typedef struct {
    int64_t num_envs;
    int32_t rows, cols;
    int32_t largest_exponent; /* the largest exponent an observation can hold: its bound */
    int32_t autoreset_mode;
} g2048_env_info;

/* The library's version, e.g. "0.2.0" (static storage). */
const char *g2048_library_version(void);
/* G2048_ABI_VERSION of the library loaded. */
int32_t g2048_abi_version(void);
/* The rules' behaviour version: it changes when the same rules, seed and actions would play differently. */
int32_t g2048_rules_version(void);
/* The message of this thread's last failed call ("" if none); valid until this thread's next call. */
const char *g2048_last_error(void);

/* The original game's rules. */
void g2048_rules_default(g2048_rules *rules);

/* Creates num_envs (1..65536) environments, seeded from seed (environment i gets the i+1-th
   SplitMix64 output of it); reset them before stepping. */
g2048_status g2048_create(const g2048_rules *rules, int32_t autoreset_mode, int64_t num_envs, uint64_t seed,
                          int64_t *handle);
/* Releases a handle; using it afterwards is G2048_INVALID_HANDLE. */
g2048_status g2048_destroy(int64_t handle);
g2048_status g2048_env_info_get(int64_t handle, g2048_env_info *info);

/* Resets every environment. seed: NULL continues each environment's stream, else environment i is
   seeded with the i+1-th SplitMix64 output of *seed. board: NULL for random starting tiles, else
   rows * cols tile values (0 or 2, 4, 8, ...) every environment starts from. */
g2048_status g2048_reset(int64_t handle, const uint64_t *seed, const int64_t *board, const g2048_buffers *out);
/* Resets every environment with its own seed, as a single environment reset with seeds[i] would;
   given: NULL (all given) or num_envs bytes, 0 = continue that environment's stream. */
g2048_status g2048_reset_each(int64_t handle, const uint64_t *seeds, const uint8_t *given, const int64_t *board,
                              const g2048_buffers *out);
/* Resets environment index alone (the way to restart under G2048_AUTORESET_DISABLED). Writes only
   entry index of each column. */
g2048_status g2048_reset_one(int64_t handle, int64_t index, const uint64_t *seed, const g2048_buffers *out);
/* Steps every environment with its action (num_actions == num_envs, each 0..3). */
g2048_status g2048_step(int64_t handle, const uint8_t *actions, int64_t num_actions, const g2048_buffers *out);

/* What each action would do from each environment's current board, changing nothing: num_envs * 4
   entries each, in action order (boards: num_envs * 4 * rows * cols). Any may be NULL. */
g2048_status g2048_afterstates(int64_t handle, int64_t num_envs, uint8_t *legal, int64_t *rewards, uint8_t *boards);
/* The boards as text (separated by blank lines), with ANSI colours when ansi != 0, NUL-terminated
   in text[0..capacity). *needed (if not NULL) gets the bytes the text needs, NUL included;
   G2048_TOO_SMALL when capacity is less. */
g2048_status g2048_render(int64_t handle, int32_t ansi, char *text, size_t capacity, size_t *needed);

#ifdef __cplusplus
}
#endif

#endif /* GYM2048_H */
