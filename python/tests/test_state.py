"""Tree search from Python: afterstates, get_state/set_state, pickle and deepcopy, and Gymnasium's per-environment
access on the vector, on both backends, which must agree."""

from __future__ import annotations

import copy
import pickle
import re
from typing import Any

import gymnasium
import numpy as np
import pytest

import gym2048  # noqa: F401 - registers Gym2048-v0
from gym2048 import G2048Error, G2048ParamsError, Gym2048Env, Gym2048VectorEnv

BACKENDS = ("inprocess", "server")
BOARD = [[2, 2, 4, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 4]]


def game(env: gymnasium.Env[Any, Any]) -> Gym2048Env:
    """The Gym2048Env under the wrappers gymnasium.make puts around it."""
    unwrapped = env.unwrapped
    assert isinstance(unwrapped, Gym2048Env)
    return unwrapped


def play(env: Any, actions: list[int]) -> list[tuple[Any, ...]]:
    out = []
    for action in actions:
        observation, reward, terminated, truncated, info = env.step(action)
        out.append((observation.tobytes(), np.asarray(reward).tobytes(), np.asarray(terminated).tobytes(),
                    np.asarray(truncated).tobytes(), np.asarray(info["action_mask"]).tobytes()))
        if np.all(terminated) and not isinstance(env, Gym2048VectorEnv):
            break
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_afterstates_of_a_hand_made_board(backend: str) -> None:
    env = Gym2048Env(backend=backend, observation="values")
    env.reset(seed=1, options={"board": BOARD})
    after = env.afterstates()
    assert after["legal"].tolist() == [True, True, True, True]
    # left merges 2+2 (reward 4) into [4, 4, 0, 0]: one merge per tile per move, from the side moved toward
    assert after["reward"].tolist() == [0.0, 4.0, 0.0, 4.0]
    assert after["observation"].shape == (4, 4, 4)
    assert after["observation"][3][0].tolist() == [4, 4, 0, 0]
    assert after["observation"][1][0].tolist() == [0, 0, 4, 4]
    assert after["observation"][0].tolist() == [[2, 2, 4, 4], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    # nothing changed: the next step from here is the same as without the call
    assert env.get_state()["board"] == BOARD
    env.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_illegal_afterstate_is_the_board_itself(backend: str) -> None:
    env = Gym2048Env(backend=backend, observation="values")
    board = [[2, 4, 8, 16], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    env.reset(seed=1, options={"board": board})
    after = env.afterstates()
    assert after["legal"].tolist() == [False, False, True, False]
    assert after["observation"][0].tolist() == board and after["reward"][0] == 0
    assert env.action_masks().tolist() == [False, False, True, False]
    env.close()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows, cols", [(4, 4), (3, 3), (2, 5)])
def test_a_restored_state_replays_the_same_episode(backend: str, rows: int, cols: int) -> None:
    rng = np.random.default_rng(rows * 10 + cols)
    env = Gym2048Env(backend=backend, rows=rows, cols=cols)
    env.reset(seed=4)
    play(env, rng.integers(0, 4, 15).tolist())
    saved = env.get_state()
    actions = rng.integers(0, 4, 40).tolist()
    first = play(env, actions)
    observation, info = env.set_state(saved)
    assert env.get_state() == saved
    assert info["score"] == saved["score"] and info["steps"] == saved["steps"]
    assert play(env, actions) == first
    # and in another environment, of the other backend
    other = Gym2048Env(backend=BACKENDS[1 - BACKENDS.index(backend)], rows=rows, cols=cols)
    other.set_state(saved)
    assert play(other, actions) == first
    env.close()
    other.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_pickle_and_deepcopy_continue_the_episode(backend: str) -> None:
    env = gymnasium.make("Gym2048-v0", backend=backend, rows=3, cols=4, max_steps=500)
    env.reset(seed=9)
    play(env, [0, 1, 2, 3, 0])
    actions = [3, 2, 1, 0] * 10
    for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert game(clone).spec_info == game(env).spec_info
        assert game(clone).get_state() == game(env).get_state()
        assert play(clone, actions) == play(copy.deepcopy(env), actions)
        clone.close()
    # the original is untouched by its copies
    assert game(env).get_state()["steps"] == 5
    # an environment never reset pickles its options only
    fresh = pickle.loads(pickle.dumps(Gym2048Env(backend=backend, rows=2, cols=2)))
    assert fresh.spec_info["rows"] == 2
    with pytest.raises(G2048Error, match="not reset"):
        fresh.get_state()
    fresh.close()
    env.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_forged_states_are_refused_and_change_nothing(backend: str) -> None:
    env = Gym2048Env(backend=backend)
    env.reset(seed=2)
    saved = env.get_state()
    forged: list[tuple[dict[str, Any], str]] = [
        ({**saved, "score": -5}, "state.score must be an integer from 0 to 9223372036854775807, got -5"),
        ({**saved, "generator": [0, 0, 0, 0]}, "state.generator must be 4 state words, not all 0"),
        ({**saved, "board": [[3] * 4] * 4}, "state.board cell 0 must be 0 or a power of two"),
        ({**saved, "board": [[2, 4, 2, 4], [4, 2, 4, 2]] * 2}, "the board has no legal move"),
        ({**saved, "phase": "needs_reset"}, "restore a state saved after a reset"),
        ({**saved, "extra": 1}, "unknown parameter 'state.extra'"),
    ]
    for state, message in forged:
        with pytest.raises(G2048ParamsError, match=message.replace(".", r"\.").replace("(", r"\(")):
            env.set_state(state)
    assert env.get_state() == saved
    with pytest.raises(G2048ParamsError, match="state.score must be a finite number, got nan"):
        env.set_state({**saved, "score": float("nan")})
    env.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_score_play_could_overflow_is_refused_and_the_ceiling_pickles(backend: str) -> None:
    """A score of 2^63 - 1 was accepted, the next merge wrapped it negative, and the environment's own state was
    then refused, so pickling it failed. A state's score is at most what no play from its board can carry past
    2^63 - 1; from that ceiling, every state play reaches pickles again."""
    env = Gym2048Env(backend=backend)
    env.reset(seed=2)
    saved = env.get_state()
    with pytest.raises(G2048ParamsError, match=r"score must be at most \d+ on this board") as refused:
        env.set_state({**saved, "score": 2**63 - 1})
    found = re.search(r"at most (\d+)", str(refused.value))
    assert found is not None
    ceiling = int(found.group(1))
    assert 2**62 < ceiling < 2**63 - 1
    _, info = env.set_state({**saved, "score": ceiling})
    rng = np.random.default_rng(4)
    for _ in range(40):
        # Every state play reaches round-trips through pickle.
        clone = pickle.loads(pickle.dumps(env))
        assert clone.get_state() == env.get_state()
        clone.close()
        _, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        assert info["score"] >= ceiling
        if terminated:
            break
    env.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_vector_state_afterstates_and_per_environment_access(backend: str) -> None:
    envs = Gym2048VectorEnv(5, backend=backend, render_mode="ansi")
    envs.reset(seed=3)
    rng = np.random.default_rng(5)
    for _ in range(30):
        envs.step(rng.integers(0, 4, 5))
    saved = envs.get_state()
    assert len(saved) == 5 and all(s["phase"] in ("running", "over") for s in saved)
    steps = [rng.integers(0, 4, 5) for _ in range(40)]
    first = [tuple(np.asarray(x).tobytes() for x in envs.step(a)[:4]) for a in steps]
    observations, infos = envs.set_state(saved)
    assert observations.shape == (5, 4, 4)
    assert [tuple(np.asarray(x).tobytes() for x in envs.step(a)[:4]) for a in steps] == first
    after = envs.afterstates()
    assert after["legal"].shape == (5, 4) and after["observation"].shape == (5, 4, 4, 4)
    assert (envs.action_masks() == after["legal"]).all()
    # Gymnasium's per-environment access
    assert envs.call("get_state") == tuple(envs.get_state())
    assert [m.tolist() for m in envs.call("action_masks")] == envs.action_masks().tolist()
    assert envs.call("afterstates")[2]["legal"].tolist() == after["legal"][2].tolist()
    texts = envs.call("render")
    assert len(texts) == 5 and "\n\n".join(text.rstrip("\n") for text in texts) + "\n" == envs.render()
    assert envs.get_attr("render_mode") == ("ansi",) * 5
    assert envs.get_attr("observation_space")[0] == envs.single_observation_space
    envs.set_attr("state", saved)
    assert envs.get_state() == saved
    envs.set_attr("state", saved[1])
    assert envs.get_state() == [saved[1]] * 5
    with pytest.raises(AttributeError, match="only 'state' can be set"):
        envs.set_attr("render_mode", "rgb_array")
    with pytest.raises(AttributeError, match="has no attribute 'bogus'"):
        envs.get_attr("bogus")
    with pytest.raises(ValueError, match="states must be a list of 5 states"):
        envs.set_state(saved[:2])
    broken = [dict(s) for s in saved]
    broken[3]["steps"] = -1
    with pytest.raises(G2048ParamsError, match=r"state\[3\]\.steps must be an integer from 0"):
        envs.set_state(broken)
    assert envs.get_state() == [saved[1]] * 5
    clone = pickle.loads(pickle.dumps(envs))
    action = np.zeros(5, dtype=np.int64)
    assert [x.tobytes() for x in clone.step(action)[:4]] == [x.tobytes() for x in envs.step(action)[:4]]
    clone.close()
    envs.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_vector_of_one_has_the_same_state_interface(backend: str) -> None:
    envs = Gym2048VectorEnv(1, backend=backend)
    envs.reset(seed=1)
    saved = envs.get_state()
    assert len(saved) == 1
    first = [x.tobytes() for x in envs.step(np.array([1]))[:4]]
    envs.set_state(saved)
    assert [x.tobytes() for x in envs.step(np.array([1]))[:4]] == first
    assert envs.afterstates()["legal"].shape == (1, 4)
    envs.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_request_sends_any_protocol_method(backend: str) -> None:
    env = gymnasium.make("Gym2048-v0", backend=backend, rows=3, cols=5)
    env.reset(seed=1)
    assert game(env).request("spec")["cols"] == 5
    assert game(env).request("get_state")["state"] == game(env).get_state()
    with pytest.raises(G2048Error, match="method not found: 'fly'"):
        game(env).request("fly")
    env.close()
