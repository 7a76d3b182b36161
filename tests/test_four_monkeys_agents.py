"""4 Monkeys heuristics and analytics: legal, seeded, honest means honest, bluffs follow the standing.

Rules checked (``shared/rules/four_monkeys.txt``, DECISIONS.md "4 Monkeys"): a combo is correct
iff its cards cover the requirement and no card is superfluous (Step 3); only the Smartest
Monkey -- most visible points after repeated combos are set aside (Steps 1-2) -- is checked, so a
bluff pays when the bluffer is behind. Strength checks use margins far outside the noise of the
game counts played.
"""

from __future__ import annotations

import numpy as np
import pytest

import agents
import agents.heuristics.four_monkeys as H
from agents.base import RandomAgent
from agents.evaluate import decision_report, play_games
from monkey_envs.four_monkeys import FourMonkeys
from monkey_envs.four_monkeys import analytics as A
from monkey_envs.four_monkeys import data as D
from monkey_envs.four_monkeys import kernels as K
from monkey_envs.four_monkeys.state import TILE_ORANGE

NAMES = ("honest", "bluffer", "smart", "smart_honest")


def test_heuristics_are_registered_for_four_monkeys_only():
    game = FourMonkeys(4)
    from monkey_envs.monki import Monki

    for name in NAMES:
        assert isinstance(agents.make_agent(name, game, seed=1), H.AGENT_CLASSES[name])
        with pytest.raises(ValueError):
            agents.make_agent(name, Monki(), seed=1)


def test_the_correct_sets_table_is_the_rulebook_rule_by_brute_force():
    # every multiset of up to 6 cards: in the table exactly when kernels.correct says so
    import itertools

    table = {(int(c), tuple(v)) for v, c in zip(A.CORRECT_SETS.tolist(), A.CORRECT_SET_COMBO.tolist(), strict=True)}
    n = 0
    for r in range(1, 8):
        for cards in itertools.combinations_with_replacement(range(D.NUM_KINDS), r):
            v = np.bincount(cards, minlength=D.NUM_KINDS).astype(np.int8)
            for c in range(D.NUM_COMBOS):
                ok = FourMonkeys.is_correct(c, v)
                assert ok == ((c, tuple(v.tolist())) in table), (c, v)
                n += ok
    assert n == len(table)


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 4},
        {"num_players": 2},
        {"num_players": 3, "banana_skins": True, "family": True, "ticks": 30},
        {"num_players": 8, "banana_skins": True, "ticks": 12},
    ],
)
@pytest.mark.parametrize("name", NAMES)
def test_heuristics_always_choose_legal_actions_and_repeat_with_the_same_seed(name, options):
    # the heuristic in seat 0 and every other seat random: varied positions, odd pending sets
    game = FourMonkeys(**options)
    a1, a2 = H.AGENT_CLASSES[name](game, seed=4), H.AGENT_CLASSES[name](game, seed=4)
    other = RandomAgent(game, seed=5)
    s = game.init(np.arange(24))
    while not s.terminated.all():
        cp = np.maximum(s.current_player, 0)
        obs = game.observe(s, cp)
        act = other.act(obs, s.legal_action_mask)
        mine = np.flatnonzero((cp % 2 == 0) & ~s.terminated)
        act[mine] = a1.act(obs[mine], s.legal_action_mask[mine])
        np.testing.assert_array_equal(act[mine], a2.act(obs[mine], s.legal_action_mask[mine].astype(np.int8)))
        live = ~s.terminated
        assert s.legal_action_mask[np.flatnonzero(live), act[live]].all()
        s = game.step(s, act)


def _grab_audit(game: FourMonkeys, lineup: list, num_games: int, seed: int) -> tuple[np.ndarray, list]:
    """Play ``lineup`` (seat i = lineup[i]); every grab is checked after its tick resolved.

    Returns ``(stats (B, P, 12), audit)``: ``audit`` rows ``(seat, predicted correct, grabbed,
    true correct)``, the truth read from the engine's stats (grabs and bluffs counters) and,
    for a grab that took its tile, from ``kernels.correct`` on the true cards under it.
    """
    P = game.num_players
    s = game.init(np.arange(num_games) + seed)
    pending: list[tuple[int, int, int, bool]] = []
    audit = []
    while not s.terminated.all():
        cp = np.maximum(s.current_player, 0)
        obs = game.observe(s, cp)
        act = np.full(num_games, game.a_wait, np.int64)
        for q, agent in enumerate(lineup):
            rows = np.flatnonzero((cp == q) & ~s.terminated)
            if rows.size:
                act[rows] = agent.act(obs[rows], s.legal_action_mask[rows])
        grabs = np.flatnonzero(~s.terminated & (A.grab_tiles(game, act) >= 0))
        pred = A.grab_is_correct(game, obs[grabs], act[grabs])
        for b, ok in zip(grabs.tolist(), pred.tolist(), strict=True):
            pending.append((b, int(cp[b]), int(A.grab_tiles(game, act[b : b + 1])[0]), ok))
        before = s.stats.copy()
        resolving = (cp == P - 1) & ~s.terminated
        s = game.step(s, act)
        keep = []
        for b, q, t, ok in pending:
            if not resolving[b]:
                keep.append((b, q, t, ok))
                continue
            took = int(s.stats[b, q, K.ST_GRABS] - before[b, q, K.ST_GRABS]) == 1
            bluff = int(s.stats[b, q, K.ST_BLUFFS] - before[b, q, K.ST_BLUFFS]) == 1
            if took and int(s.tile_owner[b, t]) == q:  # still on the table (the round went on)
                assert game.is_correct(t % D.NUM_COMBOS, s.under[b, t]) == (not bluff)
            audit.append((q, ok, took, took and not bluff))
        pending = keep
    return s.stats, audit


def test_honest_never_grabs_an_incorrect_combo_and_the_reading_agrees_with_the_engine():
    game = FourMonkeys(4)
    lineup = [H.HonestAgent(game, 1), RandomAgent(game, 2), H.HonestAgent(game, 3), H.BlufferAgent(game, 4)]
    stats, audit = _grab_audit(game, lineup, num_games=16, seed=3)
    honest = [r for r in audit if r[0] in (0, 2)]
    assert len(honest) > 200
    assert all(pred for _, pred, _, _ in honest)  # it only ever chose correct grabs
    assert all(true for _, _, took, true in honest if took)  # and the engine found each correct
    assert stats[:, [0, 2], K.ST_BLUFFS].sum() == 0 and stats[:, [0, 2], K.ST_GRABS].sum() > 100
    # the observation-side reading of a bluff is the engine's, for every seat's successful grabs
    taken = [(pred, true) for _, pred, took, true in audit if took]
    assert all(p == t for p, t in taken) and sum(not t for _, t in taken) > 100


def _true_visible_points(game: FourMonkeys, s, b: int) -> list[int]:
    """Step 2's points of row ``b`` by plain Python on the true state."""
    out = []
    for q in range(game.num_players):
        tiles = [t for t in range(game.num_tiles) if int(s.tile_owner[b, t]) == q]
        combos = [t % D.NUM_COMBOS for t in tiles]
        pts = 0
        for t in tiles:
            if combos.count(t % D.NUM_COMBOS) == 1:
                pts += int(D.COMBO_GREEN[t % D.NUM_COMBOS]) - (1 if s.tile_state[b, t] == TILE_ORANGE else 0)
        out.append(pts - (1 if s.replenish_used[b, q] else 0))
    return out


def test_visible_points_from_an_observation_are_step_2s_points_of_the_true_state():
    game = FourMonkeys(3)
    rnd = RandomAgent(game, 7)
    s = game.init(np.arange(8))
    checked = 0
    for _ in range(200):
        cp = np.maximum(s.current_player, 0)
        obs = game.observe(s, cp)
        pts = A.visible_points(game, obs)
        for b in range(8):
            if s.terminated[b]:
                continue
            truth = _true_visible_points(game, s, b)
            o = int(cp[b])
            assert pts[b].tolist() == [truth[(o + r) % 3] for r in range(3)]
            checked += int(any(truth))
        s = game.step(s, rnd.act(obs, s.legal_action_mask))
    assert checked > 100


def test_bluffer_bluffs_more_when_behind_than_when_leading():
    game = FourMonkeys(4)
    _title, data, text = decision_report(game, "bluffer", ["honest", "smart", "honest"], 40, seed=1)
    lead, not_lead = data["by_lead"]
    assert lead["grabs"] > 100 and not_lead["grabs"] > 100
    # measured: the intervals do not overlap (leading ~5% by construction, behind far more)
    assert lead["ci"][1] < not_lead["ci"][0], data["by_lead"]
    assert "standing" in text and sum(r["grabs"] for r in data["by_standing"]) == data["grabs"]


def test_honest_has_no_bluffs_in_the_summary_and_the_bluffer_gets_caught_sometimes():
    game = FourMonkeys(4)
    r = play_games(game, ["honest", "bluffer", "smart", "random"], 24, seed=2)
    by = {a.name: a for a in r.agents}
    hon = game.stats_summary(by["honest"].stats, by["honest"].seats)
    blu = game.stats_summary(by["bluffer"].stats, by["bluffer"].seats)
    assert hon["bluffs"] == 0 and hon["bluff_rate"] == 0.0 and hon["bluffs_caught_rate"] is None
    assert 0 < blu["bluffs_caught"] <= blu["bluffs"] and 0 < blu["bluff_rate"] < 1
    lo, hi = blu["bluff_rate_ci"]
    assert lo < blu["bluff_rate"] < hi
    assert hon["smartest_per_seat"] > 0


def test_report_decisions_selects_the_grabs_and_the_only_filter_removes_stop():
    game = FourMonkeys(4)
    a = np.arange(game.num_actions)
    sel = game.report_decisions(a)
    assert sel.sum() == game.num_tiles * game.grab_variants and sel[game.a_grab] and not sel[game.a_wait]
    assert sorted(game.action_filters()) == ["no_stop"]
    f = game.action_filter("no_stop")
    assert not f[game.a_stop] and f[game.a_wait] and f.sum() == game.num_actions - 1


def test_smart_beats_honest_and_honest_beats_random():
    game = FourMonkeys(4)
    r = play_games(game, ["smart", "honest", "honest", "honest"], 80, seed=5)
    assert r.agents[0].win_rate > 0.4, [a.win_rate for a in r.agents]  # chance: 0.25
    r = play_games(game, ["honest", "random", "random", "random"], 40, seed=6)
    assert r.agents[0].win_rate > 0.9, [a.win_rate for a in r.agents]


def test_the_honest_mask_lets_a_random_agent_grab_only_correct_combos_and_keeps_a_legal_action():
    game = FourMonkeys(4)
    wrapped = H.HonestMask(RandomAgent(game, 8), game)
    s = game.init(np.arange(12))
    while not s.terminated.all():
        cp = np.maximum(s.current_player, 0)
        obs = game.observe(s, cp)
        m = H.honest_mask(game, obs, s.legal_action_mask)
        live = ~s.terminated
        assert (m <= s.legal_action_mask).all() and m[live, game.a_wait].all()
        s = game.step(s, wrapped.act(obs, s.legal_action_mask))
    assert s.stats[:, :, K.ST_BLUFFS].sum() == 0 and s.stats[:, :, K.ST_GRABS].sum() > 0


def test_smart_honest_is_smart_without_its_bluffs():
    # the honest-only ablation of smart: never a bluff, and smart's move wherever smart does not bluff
    game = FourMonkeys(4)
    r = play_games(game, ["smart_honest", "smart", "bluffer", "honest"], 24, seed=3)
    by = {a.name: game.stats_summary(a.stats, a.seats) for a in r.agents}
    assert by["smart_honest"]["bluffs"] == 0 and by["smart_honest"]["grabs_per_seat"] > 10
    assert by["smart"]["bluffs"] > 0
    smart, ablation = H.SmartAgent(game, seed=9), H.SmartHonestAgent(game, seed=9)
    s = game.init(np.arange(16))
    same = differ = 0
    while not s.terminated.all():
        cp = np.maximum(s.current_player, 0)
        obs = game.observe(s, cp)
        act = smart.act(obs, s.legal_action_mask)
        alt = ablation.act(obs, s.legal_action_mask)
        live = ~s.terminated
        grab = A.grab_tiles(game, act) >= 0
        bluff_grab = np.zeros_like(grab)
        bluff_grab[grab] = ~A.grab_is_correct(game, obs[grab], act[grab])
        plain = live & ~bluff_grab & (act >= D.NUM_KINDS)  # puts may start a bluff: not compared
        np.testing.assert_array_equal(alt[plain], act[plain])
        same += int(plain.sum())
        differ += int((live & bluff_grab & (alt != act)).sum())
        s = game.step(s, act)
    assert same > 1000 and differ > 10


def _reference_plan(pend: np.ndarray, hand: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, ...]:
    """The plan as whole-batch numpy over every correct set (what the compiled ``_plan_rows`` replaced)."""
    S, C, Z, V = H._SETS, H._SET_COMBO, H._SET_SIZE, H._SET_VALUE
    B = pend.shape[0]
    reach = (S[None] >= pend[:, None, :]).all(2) & (S[None] <= (pend + hand)[:, None, :]).all(2)
    reach &= wanted[:, C]
    need = np.maximum(Z[None, :] - pend.sum(1)[:, None], 0)
    rate = np.where(reach, V[None] / (need + 1) + 1e-3 * V[None] - 1e-6 * need, -np.inf)
    idx = rate.argmax(1)
    ok = np.isfinite(rate[np.arange(B), idx])
    return np.where(ok, idx, -1), np.where(ok, need[np.arange(B), idx], 0), np.where(ok, rate[np.arange(B), idx], 0.0)


@pytest.mark.parametrize("options", [{"num_players": 4}, {"num_players": 3, "family": True, "ticks": 30}])
def test_the_compiled_plan_is_the_whole_batch_one(options):
    """Every position of random and heuristic play, from every seat, and random hands and pending
    sets: the compiled plan picks the same set, the same cards to put and the same rate (bit for bit)."""
    game = FourMonkeys(**options)
    P = game.num_players
    lineup = [H.SmartAgent(game, 1), RandomAgent(game, 2), H.BlufferAgent(game, 3), *[RandomAgent(game, 9)] * (P - 3)]
    s = game.init(np.arange(16) + 7)
    rng = np.random.default_rng(0)
    checked = 0
    while not s.terminated.all():
        cp = np.maximum(s.current_player, 0)
        obs = game.observe(s, cp)
        for seat in range(P):
            v = H._View(game, game.observe(s, seat), s.legal_action_mask, np.random.default_rng(0))
            want = _reference_plan(v.pend, v.hand, v.wanted)
            for got, ref in zip((v.target, v.need, v.target_rate), want, strict=True):
                assert got.dtype == ref.dtype
                np.testing.assert_array_equal(got, ref)
            checked += int((v.target >= 0).sum())
        act = np.full(s.batch_size, game.a_wait, np.int64)
        for q, agent in enumerate(lineup):
            rows = np.flatnonzero(cp == q)
            if rows.size:
                act[rows] = agent.act(obs[rows], s.legal_action_mask[rows])
        s = game.step(s, act)
    assert checked > 1000
    # random hands and pending sets (counts a game may never show), random wanted combos
    pend, hand = rng.integers(0, 4, (4000, 10)), rng.integers(0, 6, (4000, 10))
    pend[rng.random(4000) < 0.5] = 0
    wanted = rng.random((4000, 10)) < 0.6
    target, need, rate = (np.empty(4000, np.int64), np.empty(4000, np.int64), np.empty(4000))
    H._plan_rows(pend, hand, wanted, H._SETS, H._SET_COMBO, H._SET_SIZE, H._SET_VALUE, target, need, rate)
    for got, ref in zip((target, need, rate), _reference_plan(pend, hand, wanted), strict=True):
        np.testing.assert_array_equal(got, ref)
    assert (target >= 0).mean() > 0.2
