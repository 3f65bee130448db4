"""Env steps per second through `g2048 serve`, against a bare pipe and an in-process pure-Python peer.

    python3 Examples/python/bench_protocol.py [--seconds 5] [--json]

Measures, in one run and with the same random legal-action agent:
  pipe       a bare request/response round trip between two Python processes (1 byte each way, os.read/os.write):
             the physical limit of any protocol over a pipe on this machine
  single     one environment through the pipe (base64 observation, info: action_mask)
  single-full one environment with the default configuration (nested-list observation, every info field)
  vector     256 environments per request (base64 observations, columnar info), raw client
  make_vec   gymnasium.make_vec("Gym2048-v0", num_envs=256): the package's vector env (base64_batch, columns),
             a numpy random legal-action agent (one table lookup per step)
  peer       gymnasium-2048 (PyPI, pure Python) stepped in-process, legality from its own apply_action
Installs numpy and gymnasium-2048 into the repository's .venv on first use.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PACKAGES = ["numpy", "gymnasium", "gymnasium-2048"]


def ensure_packages():
    """Re-run this script inside the repository's .venv with the packages it needs, installing them once."""
    try:
        import numpy  # noqa: F401
        import gymnasium_2048  # noqa: F401
        return
    except ImportError:
        pass
    venv = os.path.join(REPO, ".venv")
    python = os.path.join(venv, "bin", "python")
    if os.path.abspath(sys.executable) == os.path.abspath(python):
        subprocess.check_call([python, "-m", "pip", "install", "--quiet"] + PACKAGES)
    else:
        if not os.path.exists(python):
            print(f"creating {venv} ...", file=sys.stderr)
            subprocess.check_call([sys.executable, "-m", "venv", venv])
        print(f"installing {' '.join(PACKAGES)} into {venv} ...", file=sys.stderr)
        subprocess.check_call([python, "-m", "pip", "install", "--quiet"] + PACKAGES)
    os.execv(python, [python] + sys.argv)


ECHO = "import os\nwhile True:\n    b = os.read(0, 1)\n    if not b: break\n    os.write(1, b)\n"


def bench_pipe(seconds):
    child = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    w, r = child.stdin.fileno(), child.stdout.fileno()
    count, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        os.write(w, b"x")
        os.read(r, 1)
        count += 1
        if (count & 255) == 0 and time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    child.stdin.close()
    child.wait()
    return count, elapsed


def bench_single(seconds, seed, **options):
    from gym2048.client import G2048
    rng = random.Random(seed)
    with G2048(**options) as env:
        info = env.reset(seed=seed)["info"]
        steps, episodes, start = 0, 0, time.perf_counter()
        deadline = start + seconds
        while True:
            mask = info["action_mask"]
            result = env.step(rng.choice([a for a in range(4) if mask[a]]))
            info = result["info"]
            steps += 1
            if result["terminated"] or result["truncated"]:
                episodes += 1
                info = env.reset()["info"]
            if (steps & 63) == 0 and time.perf_counter() >= deadline:
                break
        return steps, time.perf_counter() - start


def bench_vector(seconds, seed, num_envs):
    import base64
    import numpy as np
    from gym2048.client import G2048
    from gym2048.wire import decode_rows as decode_batch
    rng = np.random.default_rng(seed)
    bits = np.arange(4, dtype=np.uint8)
    with G2048(num_envs=num_envs, observation="base64", info_layout="columns", info=["action_mask"]) as env:
        result = env.reset(seed=seed)
        steps, start = 0, time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            masks = np.frombuffer(base64.b64decode(result["info"]["action_mask"]), dtype=np.uint8)
            legal = (masks[:, None] >> bits) & 1
            # A uniformly random legal action per environment (an env awaiting autoreset picks 0, ignored).
            actions = np.argmax(rng.random((num_envs, 4)) * legal, axis=1)
            result = env.step_vector((actions.astype(np.uint8) + 48).tobytes().decode("ascii"))
            decode_batch(result["observation"], 16)
            steps += num_envs
        return steps, time.perf_counter() - start


def legal_picker(np):
    """A table for a uniformly random legal action per environment in one lookup: row b (a mask byte, bit i =
    action i) holds its legal actions repeated over 12 columns (12 is a multiple of 1, 2, 3 and 4, so a uniform
    column is a uniform legal action). The all-zero mask of an environment awaiting autoreset picks 0, which
    the environment ignores."""
    table = np.zeros((16, 12), dtype=np.int64)
    for b in range(16):
        legal = [a for a in range(4) if b >> a & 1]
        if legal:
            table[b] = [legal[k % len(legal)] for k in range(12)]
    return table


def bench_make_vec(seconds, seed, num_envs):
    import gymnasium
    import numpy as np
    import gym2048  # noqa: F401  (registers Gym2048-v0)
    rng = np.random.default_rng(seed)
    table, weights = legal_picker(np), np.array([1, 2, 4, 8], dtype=np.int64)
    env = gymnasium.make_vec("Gym2048-v0", num_envs=num_envs, vectorization_mode="vector_entry_point")
    try:
        _, infos = env.reset(seed=seed)
        steps, start = 0, time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            actions = table[infos["action_mask"] @ weights, rng.integers(0, 12, num_envs)]
            _, _, _, _, infos = env.step(actions)
            steps += num_envs
        return steps, time.perf_counter() - start
    finally:
        env.close()


def bench_peer(seconds, seed):
    import gymnasium as gym
    import gymnasium_2048  # noqa: F401
    from gymnasium_2048.envs import TwentyFortyEightEnv
    apply_action = TwentyFortyEightEnv.apply_action
    rng = random.Random(seed)
    env = gym.make("gymnasium_2048/TwentyFortyEight-v0")
    raw = env.unwrapped
    env.reset(seed=seed)
    steps, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        legal = [a for a in range(4) if apply_action(raw.board, a)[2]]
        _, _, terminated, truncated, _ = env.step(rng.choice(legal))
        steps += 1
        if terminated or truncated:
            env.reset()
        if (steps & 63) == 0 and time.perf_counter() >= deadline:
            break
    return steps, time.perf_counter() - start


def measure(name, run, seconds, reps):
    run(min(1.0, seconds))  # warm-up
    rates = []
    for _ in range(reps):
        cpu0 = time.process_time()
        count, elapsed = run(seconds)
        rates.append(count / elapsed)
    rates.sort()
    rate = rates[len(rates) // 2]
    print(f"  {name:<12} {rate:>12,.0f} per second (median of {reps})", file=sys.stderr, flush=True)
    return rate


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement (default 5)")
    parser.add_argument("--reps", type=int, default=3, help="repetitions per measurement (default 3)")
    parser.add_argument("--envs", type=int, default=256, help="environments in the vector measurement (default 256)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args()
    ensure_packages()
    sys.path.insert(0, os.path.join(REPO, "python"))
    s, reps = args.seconds, args.reps
    print("measuring ...", file=sys.stderr)
    figures = {
        "pipe_round_trips_per_second": measure("pipe", lambda t: bench_pipe(t), s, reps),
        "single_steps_per_second": measure(
            "single", lambda t: bench_single(t, args.seed, observation="base64", info=["action_mask"]), s, reps),
        "single_full_steps_per_second": measure("single-full", lambda t: bench_single(t, args.seed), s, reps),
        "vector_steps_per_second": measure("vector", lambda t: bench_vector(t, args.seed, args.envs), s, reps),
        "make_vec_steps_per_second": measure("make_vec", lambda t: bench_make_vec(t, args.seed, args.envs), s, reps),
        "peer_steps_per_second": measure("peer", lambda t: bench_peer(t, args.seed), s, reps),
        "vector_envs": args.envs,
    }
    f = figures
    f["single_vs_pipe"] = f["single_steps_per_second"] / f["pipe_round_trips_per_second"]
    f["single_vs_peer"] = f["single_steps_per_second"] / f["peer_steps_per_second"]
    f["vector_vs_peer"] = f["vector_steps_per_second"] / f["peer_steps_per_second"]
    f["make_vec_vs_peer"] = f["make_vec_steps_per_second"] / f["peer_steps_per_second"]
    if args.json:
        print(json.dumps(f, indent=2))
        return
    print(f"""
what                                   per second     ratio
bare pipe round trip (1 byte each way) {f['pipe_round_trips_per_second']:>12,.0f}
single env, base64 + action_mask       {f['single_steps_per_second']:>12,.0f}     {f['single_vs_pipe']:.2f} of the pipe, {f['single_vs_peer']:.1f}x the peer
single env, default config             {f['single_full_steps_per_second']:>12,.0f}
vector, {args.envs} envs, base64            {f['vector_steps_per_second']:>12,.0f}     {f['vector_vs_peer']:.0f}x the peer
gymnasium.make_vec, {args.envs} envs        {f['make_vec_steps_per_second']:>12,.0f}     {f['make_vec_vs_peer']:.0f}x the peer
gymnasium-2048 in-process (peer)       {f['peer_steps_per_second']:>12,.0f}""")


if __name__ == "__main__":
    main()
