"""Gymnasium environments over `g2048 serve`: `G2048Env` (one board) and `G2048VectorEnv` (many).

    import gymnasium
    from gymnasium_env import G2048Env
    env = G2048Env(rows=4, cols=4, render_mode="ansi")
    obs, info = env.reset(seed=42)              # obs: uint8 exponents, shape (rows, cols)
    obs, reward, terminated, truncated, info = env.step(3)   # 0=up 1=right 2=down 3=left
    info["action_mask"]                         # int8 array of 4: 1 = legal

Requires numpy and gymnasium (pip install gymnasium numpy).
"""

import base64

import numpy as np
import gymnasium
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from g2048 import G2048


def _decode(text, rows, cols):
    return np.frombuffer(base64.b64decode(text), dtype=np.uint8).reshape(rows, cols)


_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_LOOKUP = bytes.maketrans(_ALPHABET + b"=", bytes(range(64)) + b"\0")


def decode_batch(texts, size):
    """Decode equal-length base64 strings at once (numpy), each to `size` bytes: shape (len(texts), size).

    256 calls to base64.b64decode cost more than the server's whole step; one
    table lookup and a few shifts over the joined text do not.
    """
    sextets = "".join(texts).encode("ascii").translate(_LOOKUP)
    v = np.frombuffer(sextets, dtype=np.uint8).reshape(len(texts), -1, 4)
    out = np.empty((len(texts), v.shape[1], 3), dtype=np.uint8)
    out[..., 0] = (v[..., 0] << 2) | (v[..., 1] >> 4)
    out[..., 1] = (v[..., 1] << 4) | (v[..., 2] >> 2)
    out[..., 2] = (v[..., 2] << 6) | v[..., 3]
    return out.reshape(len(texts), -1)[:, :size]


class G2048Env(gymnasium.Env):
    """2048 on a rows×cols board, served by a `g2048 serve` child process.

    Observation: Box(0, high, (rows, cols), uint8) of tile exponents (0 = empty, k = 2^k).
    Action: Discrete(4), 0 = up, 1 = right, 2 = down, 3 = left.
    Reward: the value of the tiles merged by the move. `info["action_mask"]` marks
    the legal moves of the returned observation. Any other keyword is a server
    option (spawn_four_probability, win_tile, max_steps, invalid_action, ...).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, rows=4, cols=4, render_mode=None, binary=None, **options):
        assert render_mode is None or render_mode in self.metadata["render_modes"], render_mode
        self.render_mode = render_mode
        self.rows, self.cols = rows, cols
        self._client = G2048(binary=binary, rows=rows, cols=cols, observation="base64",
                             info=["action_mask", "score", "max_tile", "steps", "invalid", "won"], **options)
        spec = self._client.spec_info
        self.observation_space = spaces.Box(0, spec["observation"]["high"], shape=(rows, cols), dtype=np.uint8)
        self.action_space = spaces.Discrete(4)

    def _info(self, raw):
        info = dict(raw)
        info["action_mask"] = np.array(raw["action_mask"], dtype=np.int8)
        return info

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        board = (options or {}).get("board")
        if seed is None and not hasattr(self, "_seeded"):
            # Gymnasium's convention: an unseeded first reset draws its seed from np_random.
            seed = int(self.np_random.integers(0, 2**63))
        self._seeded = True
        result = self._client.reset(seed=seed, board=board)
        return _decode(result["observation"], self.rows, self.cols), self._info(result["info"])

    def step(self, action):
        result = self._client.step(int(action))
        obs = _decode(result["observation"], self.rows, self.cols)
        return obs, float(result["reward"]), result["terminated"], result["truncated"], self._info(result["info"])

    def render(self):
        if self.render_mode == "ansi":
            return self._client.render() + "\n"
        return None

    def action_masks(self):
        """The legal moves of the current state (for maskable-policy libraries)."""
        return np.array([a["legal"] for a in self._client.afterstates()], dtype=bool)

    def close(self):
        if getattr(self, "_client", None) is not None:
            self._client.close()
            self._client = None


class G2048VectorEnv(VectorEnv):
    """`num_envs` boards stepped in one request, with Gymnasium's next-step autoreset.

    Observations: (num_envs, rows, cols) uint8; `infos` is a dict of arrays
    (Gymnasium's vector layout) with "action_mask" of shape (num_envs, 4).
    """

    metadata = {"render_modes": ["ansi"], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs, rows=4, cols=4, render_mode=None, binary=None, **options):
        self.num_envs = num_envs
        self.rows, self.cols = rows, cols
        self.render_mode = render_mode
        self._client = G2048(binary=binary, rows=rows, cols=cols, num_envs=num_envs, observation="base64",
                             info_layout="columns", info=["action_mask", "score", "max_tile", "steps"],
                             autoreset_mode="next_step", **options)
        high = self._client.spec_info["observation"]["high"]
        self.single_observation_space = spaces.Box(0, high, shape=(rows, cols), dtype=np.uint8)
        self.single_action_space = spaces.Discrete(4)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)

    def _unpack(self, result):
        obs = decode_batch(result["observation"], self.rows * self.cols).reshape(self.num_envs, self.rows, self.cols)
        raw = result["info"]
        masks = np.frombuffer(base64.b64decode(raw["action_mask"]), dtype=np.uint8)
        infos = {"action_mask": ((masks[:, None] >> np.arange(4)) & 1).astype(np.int8)}
        for key in ("score", "max_tile", "steps"):
            infos[key] = np.array(raw[key], dtype=np.int64)
        return obs, infos

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if isinstance(seed, (list, tuple)):
            seed = seed[0]
        result = self._client.reset(seed=seed, board=(options or {}).get("board"))
        return self._unpack(result)

    def step(self, actions):
        result = self._client.step_vector((np.asarray(actions, dtype=np.uint8) + 48).tobytes().decode("ascii"))
        obs, infos = self._unpack(result)
        return (obs, np.array(result["reward"], dtype=np.float64), np.array(result["terminated"], dtype=bool),
                np.array(result["truncated"], dtype=bool), infos)

    def render(self):
        return self._client.render() if self.render_mode == "ansi" else None

    def close_extras(self, **kwargs):
        if getattr(self, "_client", None) is not None:
            self._client.close()
            self._client = None


gymnasium.register(id="Gym2048-v0", entry_point="gymnasium_env:G2048Env")
