/* A remembering agent playing Memorize through the C ABI's columns: any game through the same calls, its result
 * columns described at run time by g2048_columns.
 *
 *     swift build -c release --product gym2048
 *     cc -std=c11 -I Sources/CGym2048/include Examples/c/memorize_agent.c -L .build/release -lgym2048 \
 *        -Wl,-rpath,"$PWD/.build/release" -o memorize_agent && ./memorize_agent
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gym2048.h"

#define ENVS 64
#define CARDS 16

static void check(g2048_status status, const char *what) {
    if (status != G2048_OK) {
        fprintf(stderr, "error: %s: %s (status %d)\n", what, g2048_last_error(), (int)status);
        exit(1);
    }
}

int main(void) {
    int64_t handle;
    check(g2048_make("{\"game\": \"memorize\", \"rows\": 4, \"cols\": 4, \"num_envs\": 64}", &handle), "make");
    g2048_layout layout;
    check(g2048_layout_get(handle, &layout), "layout");
    if (layout.num_actions != CARDS || layout.values_per_observation != CARDS) return 1;

    /* Observations are one code per card: 0 face down, 1 matched, 2 + c face up showing content c. The columns, in
       the order g2048_columns lists them: observation, reward (a double), terminated, truncated, then Memorize's info
       columns action_mask (a flag per card), pairs_matched, mismatches, moves and steps. */
    const char *described;
    check(g2048_columns(handle, &described), "columns");
    if (strstr(described, "{\"name\":\"action_mask\",\"dtype\":\"bool\",\"width\":16}") == NULL) return 1;
    static uint8_t codes[ENVS * CARDS], terminations[ENVS], truncations[ENVS], legal[ENVS * CARDS];
    static int64_t actions[ENVS], pairs[ENVS], mismatches[ENVS];
    static double rewards[ENVS];
    void *columns[9] = {codes, rewards, terminations, truncations, legal, pairs, mismatches, NULL, NULL};
    check(g2048_reset_columns(handle, "{\"seed\": 7}", columns, 9), "reset");

    /* The agent remembers every content it has seen, per environment: -1 while unseen. */
    static int seen[ENVS][CARDS];
    memset(seen, -1, sizeof seen);
    static int first[ENVS]; /* the move's first card, -1 before it */
    for (int i = 0; i < ENVS; i++) first[i] = -1;
    int64_t games = 0, moves = 0;
    while (games < 1000) {
        for (int i = 0; i < ENVS; i++) {
            int choice = -1;
            if (first[i] >= 0) { /* the second card: the first one's partner if it was seen, else an unseen card */
                for (int c = 0; c < CARDS && choice < 0; c++)
                    if (legal[i * CARDS + c] && c != first[i] && seen[i][c] == seen[i][first[i]]) choice = c;
            } else { /* the first card: half of a known pair if there is one */
                for (int c = 0; c < CARDS && choice < 0; c++)
                    for (int d = c + 1; d < CARDS && choice < 0; d++)
                        if (legal[i * CARDS + c] && legal[i * CARDS + d] && seen[i][c] >= 0 && seen[i][c] == seen[i][d]) choice = c;
            }
            for (int c = 0; c < CARDS && choice < 0; c++)
                if (legal[i * CARDS + c] && seen[i][c] < 0) choice = c;
            for (int c = 0; c < CARDS && choice < 0; c++)
                if (legal[i * CARDS + c]) choice = c;
            /* No legal card: the game is over and this step resets it (autoreset "next_step"), the card ignored. */
            actions[i] = choice < 0 ? 0 : choice;
            if (choice >= 0) first[i] = first[i] >= 0 ? -1 : choice;
        }
        check(g2048_step_columns(handle, actions, ENVS, columns, 9), "step");
        for (int i = 0; i < ENVS; i++) {
            int card = (int)actions[i];
            if (codes[i * CARDS + card] >= 2) seen[i][card] = codes[i * CARDS + card] - 2;
            if (terminations[i]) {
                games++;
                moves += pairs[i] + mismatches[i];
                memset(seen[i], -1, sizeof seen[i]);
                first[i] = -1;
            }
        }
    }
    check(g2048_destroy(handle), "destroy");
    printf("memorize 4x4: %lld games, %.2f moves a game (optimal play with perfect memory: 12.39)\n", (long long)games,
           (double)moves / (double)games);
    return 0;
}
