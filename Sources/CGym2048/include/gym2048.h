/*
 * gym2048.h: the Gym2048 engine in-process, for C and any language with a C FFI.
 *
 * Link with the shared library the Swift package builds (libgym2048.so, product "gym2048"):
 *
 *     swift build -c release --product gym2048
 *     cc -I Sources/CGym2048/include my_agent.c -L .build/release -lgym2048 -Wl,-rpath,.build/release
 *
 * One contract with `g2048 serve`. A handle is a session of the protocol (docs/PROTOCOL.md): it is made from a
 * configuration given by name, as a JSON object, the same text the protocol's `make` takes
 * ({"rows": 5, "num_envs": 256, "observation": "onehot"}), and checked by the same code with the same messages.
 * Every protocol method can be called on it (g2048_call); reset and step can also write their results straight
 * into the caller's buffers (g2048_reset, g2048_step), the fast path. The options, their types, ranges and
 * defaults are the engine's one table: g2048_options returns it as JSON. The same configuration, seeds and
 * actions give byte-identical results here, through the pipe and in Swift.
 *
 * Every game: g2048_games lists the games the library serves, each with its options. A configuration with
 * "game": NAME makes a session of that game (2048 when none is named). Whatever the game, g2048_columns describes
 * the handle's result columns at run time (name, dtype, width per environment), and g2048_reset_columns and
 * g2048_step_columns write them into the caller's arrays, one per column: a new game needs no new struct here.
 * 2048 sessions also write the fixed g2048_buffers struct (g2048_reset, g2048_step), its fastest path.
 *
 * Ownership: every buffer is the caller's. A call reads and writes only the buffers it is given, only during
 * the call, and keeps no pointer. Results go into a g2048_buffers whose columns each hold `num_envs` entries.
 * Observations (and final observations and afterstates) are written in the handle's observation encoding:
 * `values_per_observation` values of `observation_dtype` each (G2048_UINT8: uint8_t, G2048_FLOAT32: float for
 * "onehot_float32" and "onehot_flat", G2048_INT64: int64_t), see
 * g2048_layout; "exponents", "base64" and "base64_batch" are exponents (0 empty, k the tile 2^k) in memory. A NULL
 * info column is not written.
 *
 * Errors: every function that can fail returns a g2048_status. On failure nothing changed (the environments and
 * the buffers are as before), g2048_last_error() returns the message and g2048_last_error_json() the protocol's
 * error object, {"code": -32602, "message": "invalid params: rows must be an integer from 2 to 8, got 9",
 * "data": {"option": "rows", "reason": "invalid"}}: the same words, codes and data as `g2048 serve`. No input
 * makes the library abort: a null, unknown or destroyed handle, malformed JSON, a null or mis-sized buffer, an
 * action outside 0..3 and options out of range are all errors.
 *
 * Threads: handles are independent; calls on the same handle from several threads are serialized by the
 * handle's lock (safe, not parallel). g2048_last_error() and a call's result text are per thread.
 *
 * fork(): a child may make and use handles of its own. A call in the child on a handle its parent made is
 * G2048_INVALID_HANDLE with a message that says so (one of the parent's threads may have held the handle's lock
 * at the fork, and the child does not have that thread); g2048_destroy on it only forgets it.
 *
 * dlclose(): once loaded, the library stays loaded (RTLD_NODELETE): each thread's texts live in thread-local
 * storage whose destructor is the library's code, run when the thread exits, so unloading it would leave a
 * thread that made a call with nowhere to return to. Loading it again gives the same library.
 */
#ifndef GYM2048_H
#define GYM2048_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this interface: it changes when a declaration here changes meaning. Version 2 made handles
   from a JSON configuration (the fixed rules struct of version 1 is gone: it restated the engine's options);
   version 3 added trained players (g2048_player_*), solutions (g2048_solution_*) and g2048_evaluation_report;
   version 4, exact evaluation (g2048_exact_*) and the solution's objective in g2048_solution_info; version 5,
   Memorize sessions through the buffers: g2048_layout.num_actions, g2048_buffers.reward_values and the info
   columns pairs_matched and mismatches; version 6, g2048_solution_values; version 7, g2048_solution_moves;
   version 8, g2048_exact_progress; version 9, every game through run-time columns (g2048_games, g2048_columns,
   g2048_reset_columns, g2048_step_columns); g2048_info_buffers lost Memorize's pairs_matched and mismatches,
   which its columns now carry; version 10, games records and evaluation protocols (g2048_protocols,
   g2048_action_alphabet, g2048_games_verify, g2048_games_record) and learners (g2048_learner_*). */
#define G2048_ABI_VERSION 13

/* Action indices, the same everywhere in Gym2048. */
enum { G2048_UP = 0, G2048_RIGHT = 1, G2048_DOWN = 2, G2048_LEFT = 3 };

/* The type of one observation value (g2048_layout.observation_dtype): its size in bytes names it. */
enum { G2048_UINT8 = 1, G2048_FLOAT32 = 4, G2048_INT64 = 8 };

typedef enum {
    G2048_OK = 0,
    G2048_INVALID_ARGUMENT = 1, /* a bad option, parameter, buffer, action, seed or board (code -32602) */
    G2048_INVALID_HANDLE = 2,   /* null, unknown or destroyed */
    G2048_NOT_RESET = 3,        /* a step before the first reset (code -32001) */
    G2048_ILLEGAL_ACTION = 4,   /* under invalid_action "reject" (code -32003) */
    G2048_EPISODE_OVER = 5,     /* a step after the episode ended (code -32002) */
    G2048_FAILED = 6            /* any other protocol error: malformed JSON, an unknown method; see the code */
} g2048_status;

/* Info columns, one entry per environment; a NULL column is not written. Flags are bytes 0/1. */
typedef struct {
    uint8_t *action_masks;    /* bit i set when action i is legal in the returned observation */
    int64_t *scores;
    int64_t *max_tiles;       /* the largest tile's value */
    int64_t *steps;           /* steps in the episode, illegal no-ops included */
    uint8_t *invalid;         /* the action was illegal */
    uint8_t *won;             /* the win tile appeared */
    void *afterstates;        /* an observation each, in the handle's encoding: the board after the slide, before
                                 the spawn; all zero after a reset */
    int8_t *spawn_cells;      /* the spawned tile's cell, -1 when none */
    uint8_t *spawn_exponents; /* 1 for a 2, 2 for a 4, 0 when none */
    uint8_t *legal_actions;   /* num_envs * num_actions bytes (g2048_layout): 1 where action i is legal, 0
                                 elsewhere (action_masks as bytes, the shape an action-masking policy reads) */
} g2048_info_buffers;

/* Where a reset or a step writes. The first four columns are required. */
typedef struct {
    int64_t num_envs;            /* how many environments every column holds: the handle's count */
    void *observations;          /* num_envs observations in the handle's encoding (see g2048_layout) */
    int64_t *rewards;            /* 0 after a reset */
    uint8_t *terminations;       /* after a reset: the episode is over at once */
    uint8_t *truncations;
    g2048_info_buffers info;
    /* autoreset_mode "same_step": the environments that ended during the step, their final observations and
       infos (zero elsewhere, spawn cell -1). Written on every call when given. */
    uint8_t *finals;
    void *final_observations;
    g2048_info_buffers final_info;
    /* The rewards as doubles, written when given. */
    double *reward_values;
} g2048_buffers;

/* The shape of a handle's results, as its configuration gives them (it changes only with a "make" call). */
typedef struct {
    int64_t num_envs;
    int32_t rows, cols;
    int64_t values_per_observation; /* rows * cols, or channels * rows * cols for "onehot" */
    int32_t observation_dtype;      /* G2048_UINT8, G2048_FLOAT32 or G2048_INT64 */
    int64_t num_actions;            /* 4 for 2048 (G2048_UP .. G2048_LEFT); another game's action count */
} g2048_layout;

/* The library's version, e.g. "0.3.0" (static storage): the version of g2048 and of the Python package. */
const char *g2048_library_version(void);
/* G2048_ABI_VERSION of the library loaded. */
int32_t g2048_abi_version(void);
/* The rules' behaviour version: it changes when the same rules, seed and actions would play differently. */
int32_t g2048_rules_version(void);
/* The message of this thread's last failed call ("" if none); valid until this thread's next call. */
const char *g2048_last_error(void);
/* The same failure as the protocol's error object, JSON ("null" if none); valid until this thread's next call. */
const char *g2048_last_error_json(void);

/* The engine's options as a JSON array, one object each: name, type, default, the allowed values (range or
   choices) and a line of help (static storage). The same table `g2048 serve --help` and docs/PROTOCOL.md show. */
const char *g2048_options(void);

/* Makes a session from a configuration: a JSON object of options (NULL or "{}": the original game, one
   environment), checked as the protocol's `make` checks it. Reset it before stepping. */
g2048_status g2048_make(const char *config, int64_t *handle);
/* Releases a handle; using it afterwards is G2048_INVALID_HANDLE. */
g2048_status g2048_destroy(int64_t handle);
/* The handle's result shape. */
g2048_status g2048_layout_get(int64_t handle, g2048_layout *layout);

/* Calls a protocol method ("spec", "make", "reset", "step", "afterstates", "render", ...) with its params (a
   JSON object, or NULL) and sets *result to its result as JSON text, valid until this thread's next call. */
g2048_status g2048_call(int64_t handle, const char *method, const char *params, const char **result);
/* What the protocol's `spec` returns: shapes, bounds and the whole configuration (as g2048_call "spec"). */
g2048_status g2048_spec(int64_t handle, const char **spec);

/* Resets every environment with the protocol's reset params (NULL or a JSON object with "seed", "seeds" and
   "options": {"board": ...}), the results written into out. */
g2048_status g2048_reset(int64_t handle, const char *params, const g2048_buffers *out);
/* Steps every environment with its action (num_actions == num_envs, each 0..3, or a card for Memorize), the
   results written into out. */
g2048_status g2048_step(int64_t handle, const uint8_t *actions, int64_t num_actions, const g2048_buffers *out);

/* The games the library serves, as a JSON array, one object each: name, summary and options (each as
   g2048_options describes one: name, type, default, allowed values, help). Static storage. */
const char *g2048_games(void);
/* The handle's result columns as a JSON array, in the order the *_columns calls take them: one object each with
   name, dtype ("bool", "uint8", "int8", "int64", "float32" or "float64") and width (values per environment; a
   column holds num_envs * width values). First "observation", "reward", "terminated" and "truncated", then the
   game's info columns; in vector mode under autoreset_mode "same_step", "final" (the environments the step
   ended) and "final_" + each earlier column but the reward and flags (their last observation and info, zero
   elsewhere). Valid until this thread's next call. */
g2048_status g2048_columns(int64_t handle, const char **columns);
/* Resets every environment with the protocol's reset params, the results written into columns: num_columns
   addresses, one per column g2048_columns lists (a NULL address is not written; the first four must not be NULL). */
g2048_status g2048_reset_columns(int64_t handle, const char *params, void *const *columns, int64_t num_columns);
/* Steps every environment with its action (num_actions == num_envs, each 0 .. g2048_layout.num_actions - 1), the
   results written into columns as for g2048_reset_columns. */
g2048_status g2048_step_columns(int64_t handle, const int64_t *actions, int64_t num_actions, void *const *columns,
                                int64_t num_columns);

/* Trained players: a weights file written by `g2048 train`, valuing boards and picking moves as `g2048 eval`
   plays them (the same search, node budget, pruning and tile-downgrading defaults). A player handle is not a
   session handle: each kind's functions refuse the other's (G2048_INVALID_HANDLE). Calls on one player take
   turns. Boards are `count` boards of rows * cols tile exponents (0 empty, k the tile 2^k, at most 50), row-major,
   of the network's size. */
g2048_status g2048_player_load(const char *path, int64_t *player);
g2048_status g2048_player_destroy(int64_t player);
/* JSON: rows, cols, patterns, games (trained), downgrade_tile, depths ([lowest, highest]) and rules (the `make`
   options of the rules it was trained under), valid until this thread's next call. */
g2048_status g2048_player_info(int64_t player, const char **info);
/* The network's value of each board (an afterstate's expected score to come). */
g2048_status g2048_player_values(int64_t player, const uint8_t *boards, int64_t count, float *values);
/* The move `g2048 eval --depth depth` makes on each board (0 up .. 3 left), -1 where no move is legal; depth 0 is
   greedy over afterstates. */
g2048_status g2048_player_moves(int64_t player, const uint8_t *boards, int64_t count, int32_t depth, int8_t *moves);

/* The published evaluation protocols, as a JSON array, one object each: name (ending with its version), summary,
   game, config (every option), seed (game i's seed is the (i+1)-th output of SplitMix64(seed)) and games.
   Static storage. */
const char *g2048_protocols(void);
/* A games record's action characters, in action order: action k is the k-th character. Static storage. */
const char *g2048_action_alphabet(void);
/* Reads a games record (docs/RECORDS.md, "gym2048-games") of `length` bytes and replays every game: with
   `protocol` (a name, or NULL for the one the record names, if any) the record must hold exactly that protocol's
   games. On success *result is a JSON object: the header's game, protocol, config and player, games, steps, a
   summary (mean, standard_error, ci95, median, min, max, reach) and every game's replayed result with its actions;
   valid until this thread's next call. A record that is malformed, truncated, of other rules or seeds, or whose
   games do not replay as it says is G2048_INVALID_PARAMS, g2048_last_error giving the first difference. */
g2048_status g2048_games_verify(const uint8_t *data, int64_t length, const char *protocol, const char **result);
/* Writes the games record of `games` games of `game` (a registered name) under `config` (a JSON object of make
   options; the others at their defaults), played by `player`: game i reset with seeds[i], then its lengths[i]
   actions, taken from `actions` one after another (all games' actions concatenated). Every game is replayed to
   write what it gave; one that does not replay to its end is refused. With `protocol` (a name, or NULL) the
   games must be that protocol's. *text is the record, valid until this thread's next call. */
g2048_status g2048_games_record(const char *game, const char *config, const char *protocol, const char *player, int64_t games,
                                const uint64_t *seeds, const int64_t *lengths, const uint8_t *actions, const char **text);

/* `g2048 eval --json`'s report of `games` games (each's score, largest tile and moves) played by `player` (a name)
   on a rows x cols board in `seconds`: mean, standard error, median, max, reach rates. JSON, valid until this
   thread's next call. */
g2048_status g2048_evaluation_report(const char *player, int32_t rows, int32_t cols, const int64_t *scores,
                                     const int64_t *max_tiles, const int64_t *moves, int64_t games, double seconds,
                                     const char **report);

/* Exact solutions of small boards (`g2048 solve` files): for each of `count` boards (tile exponents, as for
   players, of the solution's size), the value of each action (up, right, down, left) — its reward plus the optimal
   expected score to come — or NaN where the action is illegal or the board is not one a game reaches. The
   optimal move is the first of the largest, which g2048_solution_moves writes (0 up .. 3 left; -1 where no action
   has a value). g2048_solution_values gives each board's optimal expected score to
   come: its largest action value, its end's worth where no move is legal (0; 1 for the win objective on a board
   with the win tile), NaN for a board no game reaches. A solution is read-only: calls on it from several threads
   run at once. */
g2048_status g2048_solution_load(const char *path, int64_t *solution);
g2048_status g2048_solution_destroy(int64_t solution);
/* JSON: rows, cols, afterstates, expected_score (from the starting boards) and rules (`make` options). */
g2048_status g2048_solution_info(int64_t solution, const char **info);
g2048_status g2048_solution_action_values(int64_t solution, const uint8_t *boards, int64_t count, double *values);
g2048_status g2048_solution_values(int64_t solution, const uint8_t *boards, int64_t count, double *values);
g2048_status g2048_solution_moves(int64_t solution, const uint8_t *boards, int64_t count, int8_t *moves);

/* Exact evaluation of a policy on a solution's board (`g2048 eval --exact`), the caller driving the loop so the
   policy is asked a whole age of boards at a time: g2048_exact_begin makes an evaluation (symmetric 1 when the policy
   treats mirrored and rotated boards alike: it is then asked one board of each class; threads 1 to 256); then, until
   g2048_exact_next gives 0, g2048_exact_boards writes the batch's boards (count x rows x cols tile exponents) and,
   unless NULL, their legal moves (count x 4 bytes, 1 where legal), and g2048_exact_answer takes the policy's move on
   each (0 up .. 3 left; a move that is not legal there is refused, naming the board); then g2048_exact_result gives
   `g2048 eval --exact --json`'s report (expected_score, optimal_score, fraction_of_optimal, expected_moves,
   suboptimal_share, reachable_states, suboptimal_states, suboptimal_state_share), `player` naming the policy. Only the
   boards the policy reaches are asked. An evaluation is one caller's loop: its calls are serialized.
   g2048_exact_progress says how far the loop has come, as `g2048 eval --exact` shows it: the layers (ages) whose
   boards have their moves, of total_layers; the solution's afterstates of those layers (work, of total_work: the
   middle layers hold most boards, so this is the share of the loop done); and the afterstates the policy reached. */
g2048_status g2048_exact_begin(int64_t solution, int32_t symmetric, int32_t threads, int64_t *evaluation);
g2048_status g2048_exact_destroy(int64_t evaluation);
g2048_status g2048_exact_next(int64_t evaluation, int64_t *count);
g2048_status g2048_exact_boards(int64_t evaluation, uint8_t *boards, uint8_t *masks);
g2048_status g2048_exact_answer(int64_t evaluation, const int8_t *moves, int64_t count);
g2048_status g2048_exact_progress(int64_t evaluation, int64_t *layers, int64_t *total_layers, int64_t *work,
                                  int64_t *total_work, int64_t *reached);
g2048_status g2048_exact_result(int64_t evaluation, const char *player, const char **report);

/* Learners: the n-tuple network `g2048 train` trains, trained in-process by the same learner, a call at a time.
   `options` is a JSON object of `g2048 train`'s settings, named as its flags with underscores (tc_alpha is
   --tc-alpha), as g2048_learner_settings lists them, resume being a weights file to continue; each left out
   takes the command's default, and they are checked as the command checks its flags (G2048_INVALID_ARGUMENT, in
   its words). A learner handle is no other kind's; calls on one learner take turns. g2048_learner_settings lists
   those settings as JSON, each {"name", "kind"} with "integer" or "number" and its "min" and "max", "choice" and
   its "choices", or "text" (static storage). */
const char *g2048_learner_settings(void);
g2048_status g2048_learner_make(const char *options, int64_t *learner);
g2048_status g2048_learner_destroy(int64_t learner);
/* Trains for `games` more games (0: no limit) or until `seconds` (0: no limit; one of the two must be set) on
   `threads` self-play threads. A call plays the games of one `g2048 train` run of them, the first from the new
   network, each next one resuming the last (`--resume` with the learner's settings, by its schedule: OTD+TC's
   switch, a small board's afterstate table; TC's accumulators, which files do not store, carry over); with one
   thread, a seed gives the weights those runs write. *report is a JSON object: games, moves and seconds of
   this call, mean_score of its games, total_games (so far), valid until this thread's next call. */
g2048_status g2048_learner_train(int64_t learner, int64_t games, double seconds, int32_t threads, const char **report);
/* Writes the weights file `g2048 train --out` writes (atomically: a reader sees the old file or the new). */
g2048_status g2048_learner_save(int64_t learner, const char *path);
/* JSON: weights (their count), rows, cols, patterns, games and moves (trained so far), learning, valid until this
   thread's next call. */
g2048_status g2048_learner_info(int64_t learner, const char **info);
/* The network's weights (not an afterstate table's values), as `count` floats: `count` must be the info's weights. */
g2048_status g2048_learner_weights(int64_t learner, float *weights, int64_t count);
g2048_status g2048_learner_set_weights(int64_t learner, const float *weights, int64_t count);
/* Sparse deltas, for learners in several processes: g2048_learner_delta writes the weights that moved since the
   learner's last export (its last weights, set_weights, delta or apply_delta call; none before the first is
   refused) as their indices and changes (now minus then), and sets *count to how many moved; when that is more than
   `capacity` it writes nothing and the export stays (call again with room for *count). g2048_learner_apply_delta
   adds `count` changes at `indices`, and to the export too: a delta from others is not sent back;
   g2048_learner_assign sets the weights at `indices` to `values`, and the export too (a driver's combined weights,
   exactly, where any learner's moved). A learner keeps a copy of its weights from its first export on. */
g2048_status g2048_learner_delta(int64_t learner, int64_t *indices, float *changes, int64_t capacity, int64_t *count);
g2048_status g2048_learner_apply_delta(int64_t learner, const int64_t *indices, const float *changes, int64_t count);
g2048_status g2048_learner_assign(int64_t learner, const int64_t *indices, const float *values, int64_t count);
/* The games behind the deltas, for a driver that combines several learners: g2048_learner_games sets *report to the
   games trained since the last report, {"games": G, "moves": M, "seconds": S, "last": [[score, max_tile, moves],
   ...]} (the last 1 000 of them one by one, in the order they ended), and starts the next report.
   g2048_learner_record counts such a report's games as this learner's own and adds `seconds` to its training time:
   a save then writes the games, moves and seconds of all, and on 4x4 from an optimistic start the tile to
   downgrade from that its last 1 000 recorded games suggest, as `g2048 train` does. */
g2048_status g2048_learner_games(int64_t learner, const char **report);
g2048_status g2048_learner_record(int64_t learner, const char *report, double seconds);

#ifdef __cplusplus
}
#endif

#endif /* GYM2048_H */
