"""Steps/s of step_inplace + observe for one game at batch B (random legal actions, finished rows re-dealt)."""
import json, sys, time
import numpy as np
t0 = time.perf_counter()
from monkey_envs.games import make_game
game, P, B, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
g = make_game(game, num_players=P)
s = g.init(np.arange(B))
out = np.empty((B, g.obs_dim), np.float32)
rng = np.random.default_rng(0)
def one():
    m = s.legal_action_mask
    r = rng.random(m.shape) * m
    a = r.argmax(1)
    g.step_inplace(s, a)
    done = np.flatnonzero(s.terminated | s.truncated)
    if done.size:
        g.reset_rows(s, done, rng.integers(0, 2**31, done.size))
    g.observe(s, np.maximum(s.current_player, 0), out=out)
one()
first = time.perf_counter() - t0
n = 0; t = time.perf_counter()
while time.perf_counter() - t < secs:
    for _ in range(10): one()
    n += 10
el = time.perf_counter() - t
print(json.dumps({"first_s": first, "rows_per_s": n * B / el}))
