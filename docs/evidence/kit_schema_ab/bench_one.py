"""Steps/s of step_inplace + observe for one game at batch B (random legal actions, finished rows re-dealt).

``python bench_one.py GAME PLAYERS BATCH SECONDS`` prints ``{"first_s": ..., "rows_per_s": ...}``:
``first_s`` is the import, the build and the first step (the numba compile when the cache is empty).
"""

import json
import sys
import time

t0 = time.perf_counter()
import numpy as np  # noqa: E402 - timed: the import is part of the cold start

from monkey_envs.games import make_game  # noqa: E402

game, P, B, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
g = make_game(game, num_players=P)
s = g.init(np.arange(B))
out = np.empty((B, g.obs_dim), np.float32)
rng = np.random.default_rng(0)


def one() -> None:
    m = s.legal_action_mask
    a = (rng.random(m.shape) * m).argmax(1)
    g.step_inplace(s, a)
    done = np.flatnonzero(s.terminated | s.truncated)
    if done.size:
        g.reset_rows(s, done, rng.integers(0, 2**31, done.size))
    g.observe(s, np.maximum(s.current_player, 0), out=out)


one()
first = time.perf_counter() - t0
n, t = 0, time.perf_counter()
while time.perf_counter() - t < secs:
    for _ in range(10):
        one()
    n += 10
el = time.perf_counter() - t
print(json.dumps({"first_s": first, "rows_per_s": n * B / el}))
