/* Optimal play through the C ABI: a solution written by `g2048 solve` answers the move of 64 boards at a time,
 * and the mean score of its games meets the solution's optimal expected score.
 *
 *     swift build -c release && swift build -c release --product gym2048
 *     .build/release/g2048 solve --rows 2 --cols 3 --out s2x3.bin
 *     cc -std=c11 -I Sources/CGym2048/include Examples/c/optimal_agent.c -L .build/release -lgym2048 -lm \
 *        -Wl,-rpath,"$PWD/.build/release" -o optimal_agent && ./optimal_agent s2x3.bin
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gym2048.h"

#define ENVS 64
#define EPISODES 20000

static void check(g2048_status status, const char *what) {
    if (status != G2048_OK) {
        fprintf(stderr, "error: %s: %s (status %d)\n", what, g2048_last_error(), (int)status);
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s SOLUTION (a 2x3 board's, from g2048 solve --rows 2 --cols 3)\n", argv[0]);
        return 64;
    }
    int64_t solution;
    check(g2048_solution_load(argv[1], &solution), "solution_load");
    const char *info;
    check(g2048_solution_info(solution, &info), "solution_info");
    printf("solution: %s\n", info);

    /* The environments play the solved rules: here the default rules on 2x3 (the solve command's defaults). */
    int64_t handle;
    check(g2048_make("{\"num_envs\": 64, \"rows\": 2, \"cols\": 3, \"observation\": \"exponents\"}", &handle), "make");
    static uint8_t observations[ENVS * 6], terminations[ENVS], truncations[ENVS], masks[ENVS], actions[ENVS];
    static int8_t moves[ENVS];
    static int64_t rewards[ENVS], scores[ENVS];
    g2048_buffers out;
    memset(&out, 0, sizeof out);
    out.num_envs = ENVS;
    out.observations = observations;
    out.rewards = rewards;
    out.terminations = terminations;
    out.truncations = truncations;
    out.info.action_masks = masks;
    out.info.scores = scores;

    check(g2048_reset(handle, "{\"seed\": 7}", &out), "reset");
    int64_t episodes = 0;
    double total = 0, squares = 0;
    while (episodes < EPISODES) {
        /* The observations are the boards' tile exponents, the layout the solution reads. */
        check(g2048_solution_moves(solution, observations, ENVS, moves), "solution_moves");
        for (int i = 0; i < ENVS; i++) actions[i] = moves[i] < 0 ? 0 : (uint8_t)moves[i]; /* -1: the game is over */
        check(g2048_step(handle, actions, ENVS, &out), "step");
        for (int i = 0; i < ENVS; i++)
            if (terminations[i]) {
                episodes++;
                total += (double)scores[i];
                squares += (double)scores[i] * (double)scores[i];
            }
    }
    double mean = total / episodes, error = sqrt((squares / episodes - mean * mean) / episodes);

    /* The optimal expected score of a game: the mean of the starting boards' values. Here, from the info's JSON. */
    const char *field = strstr(info, "\"expected_score\":");
    if (field == NULL) return 1;
    double expected = strtod(field + strlen("\"expected_score\":"), NULL);
    printf("%lld games of optimal play: mean score %.2f +- %.2f; the solution's expected score %.2f\n",
           (long long)episodes, mean, error, expected);
    check(g2048_destroy(handle), "destroy");
    check(g2048_solution_destroy(solution), "solution_destroy");
    /* Within four standard errors, or the engine and the solution disagree about the game. */
    return fabs(mean - expected) <= 4 * error ? 0 : 1;
}
