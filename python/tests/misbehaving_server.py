"""A stand-in for `g2048 serve` that misbehaves at random, for the client fuzz in test_client_fuzz.py.

Run as `python3 misbehaving_server.py serve` with G2048_DOUBLE_SEED set. It answers `spec` (the client's first
request) correctly; every later request gets, by a seeded draw: a correct answer ({"answer_to": id}), an answer
with another id, a line that is not JSON, an endless line, no answer at all (it sleeps), a stop of its own
process (SIGSTOP), or an exit. A correct answer may come in pieces, with pauses between them.
"""

import json
import os
import random
import signal
import sys
import time

rng = random.Random(int(os.environ.get("G2048_DOUBLE_SEED", "0")))
out = sys.stdout.buffer


def send(data: bytes) -> None:
    out.write(data)
    out.flush()


for line in sys.stdin.buffer:
    request = json.loads(line)
    request_id = request.get("id")
    if request.get("method") == "spec":
        send(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {"num_envs": 1}}).encode() + b"\n")
        continue
    kind = rng.choice(["right", "right", "right", "pieces", "wrong id", "garbage", "endless", "silent", "stop",
                       "exit"])
    if kind in ("right", "pieces"):
        reply = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {"answer_to": request_id}}).encode() + b"\n"
        if kind == "pieces":
            for start in range(0, len(reply), 7):
                send(reply[start:start + 7])
                time.sleep(0.001)
        else:
            send(reply)
    elif kind == "wrong id":
        other = (request_id or 0) + rng.choice([-1, 1, 1000])
        send(json.dumps({"jsonrpc": "2.0", "id": other, "result": {"answer_to": other}}).encode() + b"\n")
    elif kind == "garbage":
        send(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 50))).replace(b"\n", b"") + b"\n")
    elif kind == "endless":
        try:
            while True:
                send(b"x" * 65536)
        except BrokenPipeError:
            sys.exit(0)
    elif kind == "silent":
        time.sleep(3600)
    elif kind == "stop":
        os.kill(os.getpid(), signal.SIGSTOP)
    else:
        sys.exit(rng.choice([0, 1, 3]))
