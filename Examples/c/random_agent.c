/* A random legal-move agent on 256 boards through the C ABI: the shortest complete use of gym2048.h.
 *
 *     swift build -c release --product gym2048
 *     cc -std=c11 -I Sources/CGym2048/include Examples/c/random_agent.c -L .build/release -lgym2048 \
 *        -Wl,-rpath,"$PWD/.build/release" -o random_agent && ./random_agent
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gym2048.h"

#define ENVS 256

static int check(g2048_status status, const char *what) {
    if (status != G2048_OK) {
        fprintf(stderr, "error: %s: %s (status %d)\n", what, g2048_last_error(), (int)status);
        exit(1);
    }
    return 0;
}

int main(void) {
    /* The configuration is the protocol's `make` options, by name: the engine checks them. */
    int64_t handle;
    check(g2048_make("{\"num_envs\": 256, \"observation\": \"exponents\"}", &handle), "make");
    /* A bad option is refused with the protocol's message, and the option named in its data. */
    int64_t refused;
    if (g2048_make("{\"rows\": 9}", &refused) != G2048_INVALID_ARGUMENT) return 1;
    printf("refused: %s\n         %s\n", g2048_last_error(), g2048_last_error_json());

    /* The caller owns every buffer: one entry per environment, boards rows * cols bytes each. */
    static uint8_t observations[ENVS * 16], terminations[ENVS], truncations[ENVS], masks[ENVS], actions[ENVS];
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

    check(g2048_reset(handle, "{\"seed\": 42}", &out), "reset");
    unsigned state = 1;
    int64_t episodes = 0, total = 0;
    for (int t = 0; t < 2000; t++) {
        for (int i = 0; i < ENVS; i++) {
            int legal[4], n = 0;
            for (int a = 0; a < 4; a++)
                if (masks[i] >> a & 1) legal[n++] = a;
            state = state * 1103515245u + 12345u;
            actions[i] = n ? (uint8_t)legal[(state >> 16) % n] : 0; /* ignored while it waits for its autoreset */
        }
        check(g2048_step(handle, actions, ENVS, &out), "step");
        for (int i = 0; i < ENVS; i++)
            if (terminations[i]) { episodes++; total += scores[i]; }
    }
    /* Bad input is an error with a message, never a crash. */
    actions[3] = 7;
    if (g2048_step(handle, actions, ENVS, &out) != G2048_INVALID_ARGUMENT) return 1;
    printf("refused: %s\n", g2048_last_error());
    check(g2048_destroy(handle), "destroy");
    if (g2048_step(handle, actions, ENVS, &out) != G2048_INVALID_HANDLE) return 1;
    printf("gym2048 %s (rules version %d): %lld episodes, mean score %.0f\n", g2048_library_version(),
           (int)g2048_rules_version(), (long long)episodes, episodes ? (double)total / episodes : 0.0);
    return episodes > 0 ? 0 : 1;
}
