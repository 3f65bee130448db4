/* The process around libgym2048: fork while another thread is inside a call, threads that exit after a failed
 * call once the library was dlclose()d, and load/unload cycles. Each must give an error or the right result:
 * never a signal, never a hang. Run by Tests/run-all.sh:
 *
 *     cc -std=c11 -Wall -Wextra -Werror -pthread -I Sources/CGym2048/include Tests/CABI/process.c -ldl \
 *        -o process && ./process .build/release/libgym2048.so
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gym2048.h"

#define ENVS 512

static int failures = 0;
#define CHECK(condition, ...)                                                                                        \
    do {                                                                                                             \
        if (!(condition)) {                                                                                          \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                                     \
            fprintf(stderr, __VA_ARGS__);                                                                            \
            fprintf(stderr, "\n");                                                                                   \
            failures++;                                                                                              \
        }                                                                                                            \
    } while (0)

/* The functions, looked up in the library loaded by path. */
typedef struct {
    void *library;
    const char *(*last_error)(void);
    g2048_status (*make)(const char *, int64_t *);
    g2048_status (*destroy)(int64_t);
    g2048_status (*reset)(int64_t, const char *, const g2048_buffers *);
    g2048_status (*step)(int64_t, const uint8_t *, int64_t, const g2048_buffers *);
} api;

static api load(const char *path) {
    api a;
    memset(&a, 0, sizeof a);
    a.library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (a.library == NULL) {
        fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
        exit(2);
    }
    *(void **)&a.last_error = dlsym(a.library, "g2048_last_error");
    *(void **)&a.make = dlsym(a.library, "g2048_make");
    *(void **)&a.destroy = dlsym(a.library, "g2048_destroy");
    *(void **)&a.reset = dlsym(a.library, "g2048_reset");
    *(void **)&a.step = dlsym(a.library, "g2048_step");
    return a;
}

static uint8_t observations[ENVS * 16], terminations[ENVS], truncations[ENVS], actions[ENVS];
static int64_t rewards[ENVS];
static g2048_buffers buffers(void) {
    g2048_buffers out;
    memset(&out, 0, sizeof out);
    out.num_envs = ENVS;
    out.observations = observations;
    out.rewards = rewards;
    out.terminations = terminations;
    out.truncations = truncations;
    return out;
}

static api lib;
static int64_t shared_handle;
static volatile int stop_stepping = 0;

static void *stepper(void *unused) {
    (void)unused;
    static uint8_t own_observations[ENVS * 16], own_terminations[ENVS], own_truncations[ENVS], own_actions[ENVS];
    static int64_t own_rewards[ENVS];
    g2048_buffers out = buffers();
    out.observations = own_observations;
    out.rewards = own_rewards;
    out.terminations = own_terminations;
    out.truncations = own_truncations;
    while (!stop_stepping) lib.step(shared_handle, own_actions, ENVS, &out);
    return NULL;
}

/* fork() while another thread is inside a call on a handle: the child's call on that handle is an error that
   names the cause; the child can make and use a handle of its own. */
static void fork_during_calls(void) {
    g2048_buffers out = buffers();
    CHECK(lib.make("{\"num_envs\": 512}", &shared_handle) == G2048_OK, "make: %s", lib.last_error());
    CHECK(lib.reset(shared_handle, "{\"seed\": 1}", &out) == G2048_OK, "reset: %s", lib.last_error());
    pthread_t thread;
    pthread_create(&thread, NULL, stepper, NULL);
    for (int round = 0; round < 20; round++) {
        usleep(2000);
        pid_t child = fork();
        if (child == 0) {
            alarm(5); /* a hang is a failure */
            g2048_buffers mine = buffers();
            int code = 0;
            if (lib.step(shared_handle, actions, ENVS, &mine) != G2048_INVALID_HANDLE) code = 3;
            else if (strstr(lib.last_error(), "forked") == NULL) code = 4;
            int64_t fresh;
            if (lib.make("{\"num_envs\": 512}", &fresh) != G2048_OK) code = 5;
            else if (lib.reset(fresh, "{\"seed\": 2}", &mine) != G2048_OK) code = 6;
            else if (lib.step(fresh, actions, ENVS, &mine) != G2048_OK) code = 7;
            _exit(code);
        }
        int status = 0;
        waitpid(child, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "fork round %d: child %s %d", round,
              WIFEXITED(status) ? "exited with" : "killed by signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    }
    stop_stepping = 1;
    pthread_join(thread, NULL);
    CHECK(lib.destroy(shared_handle) == G2048_OK, "destroy: %s", lib.last_error());
}

static volatile int failed_once = 0;

static void *fail_once(void *unused) {
    (void)unused;
    lib.make("{\"rows\": 99}", &shared_handle); /* a failure: its message is kept in this thread's storage */
    __atomic_store_n(&failed_once, 1, __ATOMIC_SEQ_CST);
    usleep(20000); /* the library is dlclose()d meanwhile (no call in progress); then the thread exits */
    return NULL;
}

/* Threads that exit after a failed call, once the library was unloaded, and load/unload cycles. */
static void unload_then_exit(const char *path) {
    for (int cycle = 0; cycle < 5; cycle++) {
        lib = load(path);
        pthread_t thread;
        __atomic_store_n(&failed_once, 0, __ATOMIC_SEQ_CST);
        pthread_create(&thread, NULL, fail_once, NULL);
        while (!__atomic_load_n(&failed_once, __ATOMIC_SEQ_CST)) usleep(100);
        dlclose(lib.library);
        pthread_join(thread, NULL);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s path/to/libgym2048.so\n", argv[0]);
        return 2;
    }
    lib = load(argv[1]);
    fork_during_calls();
    dlclose(lib.library);
    unload_then_exit(argv[1]);
    if (failures) return 1;
    printf("process: fork during calls, unload then thread exit, load/unload cycles: no signal, no hang\n");
    return 0;
}
