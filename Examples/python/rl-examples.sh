#!/usr/bin/env bash
# The RL examples from a fresh clone: a virtualenv .venv-rl at the repository root with the gym2048 package
# (pip builds the Swift engine), torch (CPU build), sb3-contrib, tensorboard, ray and pufferlib-core, then their
# opt-in tests (the MaskablePPO example, the Stable-Baselines3 adapter, the PufferLib binding, Ray rollouts,
# Memorize with SB3 and sb3-contrib).
#
#   bash Examples/python/rl-examples.sh                 # set up (first run) and run the tests
#   bash Examples/python/rl-examples.sh --minutes 5     # also: train MaskablePPO's recipe for 5 minutes
#   bash Examples/python/rl-examples.sh --ray-seconds 10  # also: Ray rollouts on 1 and 2 actors, 10 s each
#
# torch is pinned to its CPU build (2.13.0+cpu): plain `torch` would pull gigabytes of GPU libraries.
set -euo pipefail
cd "$(dirname "$0")/../.."

minutes=""
ray_seconds=""
while [ $# -gt 0 ]; do
    case "$1" in
        --minutes) minutes="${2:?error: --minutes needs a number}"; shift 2 ;;
        --ray-seconds) ray_seconds="${2:?error: --ray-seconds needs a number}"; shift 2 ;;
        -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown argument '$1' (expected --minutes N or --ray-seconds N)" >&2; exit 64 ;;
    esac
done

venv=.venv-rl
if [ ! -x "$venv/bin/python" ]; then
    echo "== creating $venv"
    python3 -m venv "$venv"
    echo '*' > "$venv/.gitignore"   # keep the venv out of git without touching the repository's .gitignore
fi
echo "== installing gym2048 (builds the Swift engine), torch (CPU), sb3-contrib, tensorboard, ray, pufferlib-core, pytest"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check ./python
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "torch==2.13.0+cpu" sb3-contrib tensorboard ray pytest
# pufferlib-core pins a CUDA torch; its environment API and vectorization need only torch itself (any build),
# numpy, gymnasium, psutil and rich.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps pufferlib-core psutil rich

echo "== RL example tests"
# From outside the clone's Examples/python so `import gym2048` finds the installed package.
G2048_RL_TESTS=1 "$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests/test_rl_examples.py \
    python/tests/test_sb3.py python/tests/test_puffer.py python/tests/test_rl_memorize.py

if [ -n "$minutes" ]; then
    echo "== MaskablePPO, $minutes minutes"
    "$venv/bin/python" -m gym2048.examples.maskable_ppo --minutes "$minutes" --seed 1 --eval-episodes 50
fi
if [ -n "$ray_seconds" ]; then
    for k in 1 2; do
        echo "== Ray rollouts, $k actor(s)"
        "$venv/bin/python" Examples/python/ray_rollouts.py --actors "$k" --num-envs 256 --seconds "$ray_seconds"
    done
fi
