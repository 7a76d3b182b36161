"""The driver's fast opponent passes change nothing: same moves, rewards, observations and states.

For a game with a fused in-place step the driver steps each opponents' pass on the whole batch,
the rows where the learner is to move frozen (``SingleAgentDriver._frozen_passes``), and asks a
family of agents for all its members in one ``act_jointly`` call (``_joint_acts``). The
reference takes the pass's rows out of the batch (``take`` / ``step`` / ``put``) and asks each
member on its own, which is also what a game without a fused step always does. Every field of
every :class:`~monkey_envs.core.driver.DriverStep`, the final infos, the pool's record and every
array of the driver's state must be equal, with heuristic mixes, the per-row random opponent,
fixed per-seat opponents, held rows and illegal-move forfeits.
"""

from __future__ import annotations

import numpy as np
import pytest

from monkey_envs.core.driver import SingleAgentDriver
from monkey_envs.core.opponents import OpponentPool
from monkey_envs.funky_monkey import FunkyMonkey
from monkey_envs.games import make_game

OPPONENTS = {
    "pool of heuristics and random": lambda: OpponentPool(["honest", "believer", "skeptic", "track", "random"]),
    "one heuristic": lambda: "track",
    "one per seat": lambda: ["random", "believer", "skeptic"],
}


#: Every other game with a fused step takes the whole-batch passes too (no joint acts there):
#: game, options, opponents.
OTHER_GAMES = {
    "monkey_fun 4p, greedy and random": ("monkey_fun", {"num_players": 4}, lambda: OpponentPool(["greedy", "random"])),
    "monki, cautious and greedy": ("monki", {}, lambda: OpponentPool(["cautious", "greedy"])),
    "four_monkeys 4p, honest / bluffer / smart": (
        "four_monkeys",
        {"num_players": 4},
        lambda: OpponentPool(["honest", "bluffer", "smart"]),
    ),
}


def record(
    frozen: bool,
    joint: bool,
    opponent,
    steps: int = 80,
    illegal: str = "raise",
    game_name=None,
    options=None,
    autoreset: bool = True,
) -> list:
    game = FunkyMonkey(num_players=4) if game_name is None else make_game(game_name, **(options or {}))
    d = SingleAgentDriver(game, 40, opponent=opponent(), illegal_action=illegal, autoreset=autoreset)
    d._frozen_passes = frozen
    d._joint_acts = joint
    obs, mask = d.reset(np.arange(40) + 100)
    rng = np.random.default_rng(1)
    out: list = [obs.copy(), mask.copy()]
    for t in range(steps):
        u = rng.random(mask.shape)
        u[~mask] = -1.0
        acts = u.argmax(1)
        if illegal == "lose" and t % 7 == 3:
            acts[t % 40] = -1  # a forfeit
        hold = (np.arange(40) + t) % 11 == 0 if t % 5 == 1 else None
        r = d.step(acts, hold=hold)
        mask = r.mask
        out += [r.obs.copy(), r.reward.copy(), r.terminated.copy(), r.truncated.copy(), r.mask.copy()]
        out += [r.final_rows.copy(), r.final_obs.copy()]
        out += [repr(sorted((k, np.asarray(v).tolist()) for k, v in i.items())) for i in r.final_info]
        out += [v.copy() for v in d.state.arrays().values()]
        if not autoreset and d.done.any():
            out.append(f"first finish after step {t}")  # the rows stay finished: no more steps
            break
    if d.pool is not None:
        out += [np.asarray(d.pool.games).copy(), np.asarray(d.pool.learner_score).copy()]
    return out


def same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(
        (x == y) if isinstance(x, str) else (x.shape == y.shape and x.dtype == y.dtype and np.array_equal(x, y))
        for x, y in zip(a, b, strict=True)
    )


@pytest.mark.parametrize("name", list(OPPONENTS))
def test_whole_batch_passes_and_joint_acts_equal_the_take_put_reference(name):
    ref = record(False, False, OPPONENTS[name])
    assert same(ref, record(True, True, OPPONENTS[name]))
    assert same(ref, record(True, False, OPPONENTS[name]))


@pytest.mark.parametrize("name", list(OTHER_GAMES))
def test_whole_batch_passes_equal_the_take_put_reference_in_every_fused_game(name):
    game_name, options, opponent = OTHER_GAMES[name]
    assert make_game(game_name, **options).fused_step  # else the fast path would not be under test
    ref = record(False, False, opponent, steps=60, illegal="lose", game_name=game_name, options=options)
    assert same(ref, record(True, True, opponent, steps=60, illegal="lose", game_name=game_name, options=options))


@pytest.mark.parametrize("name", ["funky_monkey 4p, heuristics and random", *OTHER_GAMES])
def test_finished_rows_keep_their_final_rewards_through_the_fast_passes(name):
    """Without autoreset a finished row stays in the batch: a pass's whole-batch step zeroes its
    ``rewards``, and the driver must put back the ones its last move left (as take / put does)."""
    if name in OTHER_GAMES:
        game_name, options, opponent = OTHER_GAMES[name]
    else:
        game_name, options, opponent = None, None, OPPONENTS["pool of heuristics and random"]
    kw = {"steps": 2000, "game_name": game_name, "options": options, "autoreset": False}
    ref = record(False, False, opponent, **kw)
    assert any(isinstance(x, str) and x.startswith("first finish") for x in ref)  # a game did end
    assert same(ref, record(True, True, opponent, **kw))


def test_forfeits_and_held_rows_are_unchanged_by_the_fast_passes():
    opp = OPPONENTS["pool of heuristics and random"]
    assert same(record(False, False, opp, steps=40, illegal="lose"), record(True, True, opp, steps=40, illegal="lose"))


def test_the_frozen_rows_are_running_again_after_each_step():
    """Rows the learner is to move in are marked truncated only inside a pass's step call."""
    game = FunkyMonkey(num_players=4)
    d = SingleAgentDriver(game, 32, opponent="skeptic", autoreset=False)
    d.reset(np.arange(32))
    rng = np.random.default_rng(0)
    for _ in range(30):
        if d.done.any():
            break
        u = rng.random(d.mask.shape)
        u[~d.mask] = -1.0
        r = d.step(u.argmax(1))
        assert not r.truncated.any()
        running = ~d.done
        assert (d.state.current_player[running] == d.seat[running]).all()
