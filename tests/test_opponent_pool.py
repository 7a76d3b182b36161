"""Opponent pools (per-episode, per-seat opponents) and learner action filters in the driver.

Checks: weighted draws (zero weight never drawn), the record of the learner against each
member, ``seat_agents`` in the final info, batch invariance of seeded rows with a pool, and the
Funky Monkey honest-only learner (``learner_actions="honest"``) never bluffing.
"""

from __future__ import annotations

import numpy as np
import pytest

from monkey_envs.core.driver import SingleAgentDriver
from monkey_envs.core.opponents import OpponentPool
from monkey_envs.core.testing import random_legal_actions
from monkey_envs.funky_monkey.rules import NUM_PLAY_ACTIONS, FunkyMonkey
from monkey_envs.games import make_game


def first_legal(mask: np.ndarray) -> np.ndarray:
    return np.asarray(mask).argmax(1).astype(np.int64)


def test_pool_sampling_follows_weights_and_skips_zero_weight():
    pool = OpponentPool(["random", "greedy", "honest"], weights=[1.0, 0.0, 3.0])
    u = np.random.default_rng(0).random(40_000)
    drawn = pool.sample(u)
    counts = np.bincount(drawn, minlength=3)
    assert counts[1] == 0
    assert counts[2] / counts.sum() == pytest.approx(0.75, abs=0.01)


@pytest.mark.parametrize(
    "bad, match",
    [
        (dict(members=[]), "non-empty"),
        (dict(members=["random"], weights=[-1.0]), ">= 0"),
        (dict(members=["random"], weights=[0.0]), "positive"),
        (dict(members=["random", "random"]), "already taken"),
        (dict(members=[3]), "agent name"),
    ],
)
def test_pool_rejects_bad_input(bad, match):
    with pytest.raises(ValueError, match=match):
        OpponentPool(**bad)


def test_pool_record_and_smoothed_win_rate():
    pool = OpponentPool(["random", "greedy"])
    pool.record(np.array([[0], [0], [1]]), np.array([1.0, 0.0, 1.0]))
    np.testing.assert_array_equal(pool.games, [2, 1])
    np.testing.assert_allclose(pool.learner_score, [1.0, 1.0])
    np.testing.assert_allclose(pool.learner_win_rate(prior_games=2), [(1 + 1) / 4, (1 + 1) / 3])
    # a member in two seats of one episode counts that episode once
    pool.record(np.array([[1, 1]]), np.array([0.0]))
    assert pool.games[1] == 2


def test_driver_draws_members_per_episode_and_records_results():
    game = make_game("monkey_fun", num_players=3)
    pool = OpponentPool(["random", "greedy"])
    d = SingleAgentDriver(game, 16, opponent=pool)
    d.reset(np.arange(16))
    seen: set[tuple[str, ...]] = set()
    episodes = 0
    learner_wins = 0.0
    while episodes < 60:
        r = d.step(first_legal(d.mask))
        for info in r.final_info:
            episodes += 1
            codes = info["seat_agents"]  # (P,) int64: -1 the learner, else an index into member_names
            assert codes.dtype == np.int64 and codes[info["learner_seat"]] == -1
            agents = ["learner" if m < 0 else d.member_names[m] for m in codes.tolist()]
            assert agents.count("learner") == 1
            seen.add(tuple(a for a in agents if a != "learner"))
            if info["winners"][info["learner_seat"]]:  # (P,) bool
                learner_wins += 1 / info["winners"].sum()
    # both members appear, in mixed line-ups too
    assert {"random", "greedy"} <= {a for lineup in seen for a in lineup}
    assert any(len(set(lineup)) == 2 for lineup in seen)
    # every finished episode is in the record of each member that played in it
    assert pool.games.sum() >= episodes
    assert pool.games.max() <= episodes
    assert pool.learner_score.max() <= learner_wins + 1e-9


def test_pool_rows_are_batch_invariant():
    """Row i of a seeded batch with a pool replays like a one-row driver seeded s + i."""
    game = make_game("monkey_fun", num_players=3)

    def trajectory(num_envs: int, row: int, seed_base: int, steps: int) -> list:
        d = SingleAgentDriver(game, num_envs, opponent=OpponentPool(["random", "greedy"]))
        obs, _ = d.reset(seed_base + np.arange(num_envs))
        out = [obs[row].copy()]
        for _ in range(steps):
            r = d.step(first_legal(d.mask))
            out.append((r.obs[row].copy(), float(r.reward[row])))
        return out

    big = trajectory(6, 4, 100, 60)
    single = trajectory(1, 0, 104, 60)
    np.testing.assert_array_equal(big[0], single[0])
    for (ob, rb), (os_, rs) in zip(big[1:], single[1:], strict=True):
        np.testing.assert_array_equal(ob, os_)
        assert rb == rs


def test_set_opponent_pool_then_fixed():
    game = make_game("monkey_fun", num_players=2)
    d = SingleAgentDriver(game, 4, opponent="random")
    d.reset(np.arange(4))
    pool = OpponentPool(["random"])
    d.set_opponent(pool)
    assert d.pool is pool
    pool.add("greedy", weight=1.0)  # members added later are drawn too
    names = set()
    for _ in range(200):
        for info in d.step(first_legal(d.mask)).final_info:
            names.update(d.member_names[m] for m in info["seat_agents"].tolist() if m >= 0)
    assert names == {"random", "greedy"}
    d.set_opponent("greedy")
    assert d.pool is None
    assert [getattr(a, "name", "") for a in d.opponents] == ["greedy"]


# ---------------------------------------------------------------- learner action filters
def test_honest_filter_allows_only_true_announcements():
    allowed = FunkyMonkey(num_players=4).action_filter("honest")
    plays = np.arange(NUM_PLAY_ACTIONS)
    np.testing.assert_array_equal(allowed[plays], plays // 5 == plays % 5)
    assert allowed[NUM_PLAY_ACTIONS:].all()


def test_unknown_filter_is_a_clear_error():
    with pytest.raises(ValueError, match="no action filter 'honest'"):
        SingleAgentDriver(make_game("monkey_fun", num_players=2), 2, learner_actions="honest")
    with pytest.raises(ValueError, match="no action filter 'liar'"):
        SingleAgentDriver(FunkyMonkey(num_players=4), 2, learner_actions="liar")


def test_honest_learner_never_bluffs_and_bluffs_are_rejected():
    game = FunkyMonkey(num_players=4)
    d = SingleAgentDriver(game, 16, opponent="random", learner_actions="honest")
    d.reset(np.arange(16))
    rng = np.random.default_rng(0)
    episodes = truthful = rejected = 0
    for _ in range(250):
        mask = d.mask
        assert mask.any(1).all(), "the filter must leave every decision a legal action"
        assert not (mask & ~game.action_filter("honest")).any()
        # a bluff the rules allow is refused, naming the filter, and nothing changes
        full = d.state.legal_action_mask
        bluffs = full & ~game.action_filter("honest")
        rows = np.flatnonzero(bluffs.any(1))
        if rows.size and rejected < 3:
            acts = first_legal(mask)
            acts[rows[0]] = bluffs[rows[0]].argmax()
            before = d.state.clone()
            with pytest.raises(ValueError, match="learner_actions='honest'"):
                d.step(acts)
            assert d.state.equals(before)
            rejected += 1
        for info in d.step(random_legal_actions(mask, rng)).final_info:
            episodes += 1
            seat = info["learner_seat"]
            assert info["bluff_stats"]["bluffs"][seat] == 0
            truthful += info["bluff_stats"]["truthful"][seat]
    assert episodes > 10 and truthful > 0 and rejected == 3


def test_honest_filter_with_lose_policy_forfeits_a_bluff():
    game = FunkyMonkey(num_players=2)
    d = SingleAgentDriver(game, 8, opponent="random", learner_actions="honest", illegal_action="lose")
    d.reset(np.arange(8))
    for _ in range(50):
        full = d.state.legal_action_mask
        bluffs = full & ~game.action_filter("honest")
        rows = np.flatnonzero(bluffs.any(1))
        if rows.size:
            break
        d.step(first_legal(d.mask))
    acts = first_legal(d.mask)
    acts[rows[0]] = bluffs[rows[0]].argmax()
    r = d.step(acts)
    j = r.final_rows.tolist().index(rows[0])
    assert r.final_info[j]["illegal_action"] is True
    assert r.reward[rows[0]] == game.spec.reward_range[0]


def test_a_saved_restricted_learner_stays_restricted_when_loaded(tmp_path):
    """A model trained with learner_actions=honest, loaded as ppo+pickle:PATH (a trusted SB3 zip),
    never bluffs (its run's config.yaml carries the restriction; checkpoints/ and snapshots/ one
    folder down too). The safe form records it in its model.json (tests/test_untrusted_models.py)."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from agents import make_agent
    from monkey_envs.core.sb3_vec import MonkeyVecEnv

    venv = MonkeyVecEnv("funky_monkey", num_envs=4, opponent="random", seed=0, num_players=3, learner_actions="honest")
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", venv, n_steps=8, batch_size=32, n_epochs=1, policy_kwargs={"net_arch": [8]}
    )
    (tmp_path / "snapshots").mkdir()
    (tmp_path / "config.yaml").write_text("env:\n  learner_actions: honest\n")
    model.save(tmp_path / "snapshots" / "snapshot_0.zip")
    game = venv.game
    agent = make_agent(f"ppo+pickle:{tmp_path / 'snapshots' / 'snapshot_0.zip'}", game)
    np.testing.assert_array_equal(agent.allowed_actions, game.action_filter("honest"))
    state = game.init(np.arange(64))
    mask = state.legal_action_mask
    assert (mask & ~game.action_filter("honest")).any(), "positions with a bluff available"
    acts = agent.act(game.observe(state, state.current_player), mask)
    assert game.action_filter("honest")[acts].all()
    (tmp_path / "config.yaml").unlink()
    assert make_agent(f"ppo+pickle:{tmp_path / 'snapshots' / 'snapshot_0.zip'}", game).allowed_actions is None


def test_switching_to_a_pool_redraws_episodes_in_progress():
    game = make_game("monkey_fun", num_players=2)
    d = SingleAgentDriver(game, 8, opponent="random")
    d.reset(np.arange(8))
    d.set_opponent(OpponentPool(["greedy", "random"], weights=[0.0, 1.0]))
    assert all(d.seat_agents(r).count("random") == 1 for r in range(8))
    d.set_opponent(OpponentPool(["greedy", "random"], weights=[1.0, 0.0]))
    assert all(d.seat_agents(r).count("greedy") == 1 for r in range(8))


def test_a_restricted_policy_whose_restriction_leaves_nothing_plays_a_legal_move():
    from agents.policy import PolicyAgent

    class Uniform:
        observation_space = None
        action_space = None

        def predict(self, obs, action_masks, deterministic):
            return np.asarray(action_masks).argmax(1), None

    allowed = np.array([True, False, False])
    agent = PolicyAgent(Uniform(), allowed_actions=allowed)
    mask = np.array([[1, 1, 0], [0, 1, 1]], dtype=bool)
    np.testing.assert_array_equal(agent.act(np.zeros((2, 1), np.float32), mask), [0, 1])


def test_memory_lets_the_win_rate_forget_old_episodes():
    """PFSP reads recent results: after losing 200 episodes to a member and then winning 200,
    a pool with a memory of 50 episodes sees a high win rate; one without memory sees 0.5."""
    forgetful = OpponentPool(["a", "b"], memory=50)
    plain = OpponentPool(["a", "b"])
    for pool in (forgetful, plain):
        pool.record(np.zeros((200, 1), dtype=np.int64), np.zeros(200))
        for _ in range(4):  # in several calls: the decay counts episodes, not calls
            pool.record(np.zeros((50, 1), dtype=np.int64), np.ones(50))
    np.testing.assert_array_equal(forgetful.games, [400, 0])  # the plain counts stay exact
    with np.errstate(invalid="ignore"):  # member "b" never played: 0 / 0 without a prior
        assert plain.learner_win_rate(prior_games=0)[0] == pytest.approx(0.5)
        assert forgetful.learner_win_rate(prior_games=0)[0] == pytest.approx((1 - 0.98**200) / (1 - 0.98**400))
    # the decayed record equals one batch of the same 400 episodes
    once = OpponentPool(["a", "b"], memory=50)
    once.record(np.zeros((400, 1), dtype=np.int64), np.r_[np.zeros(200), np.ones(200)])
    np.testing.assert_allclose(once.recent_games, forgetful.recent_games)
    np.testing.assert_allclose(once.recent_score, forgetful.recent_score)


def test_memory_below_one_episode_is_refused():
    with pytest.raises(ValueError, match="memory must be"):
        OpponentPool(["a"], memory=0.5)


def test_agent_names_resolve_through_the_resolver_the_wiring_layer_installs(monkeypatch):
    """The core asks the resolver ``monkey_envs.registration`` installs (the agent library's entry
    point); without one, or without an agent library, a name is refused with the reason."""
    import monkey_envs.registration as registration
    from monkey_envs.core import opponents

    game = make_game("funky_monkey")
    assert opponents._NAME_RESOLVER == [registration.resolve_agent_name]
    assert hasattr(opponents.resolve_agent("honest", game), "act")
    monkeypatch.setattr(registration.importlib.metadata, "entry_points", lambda group: [])
    with pytest.raises(ValueError, match="no agent library is installed"):
        opponents.resolve_agent("honest", game)
    monkeypatch.setattr(opponents, "_NAME_RESOLVER", [])
    with pytest.raises(ValueError, match="nothing is installed to resolve agent names"):
        opponents.resolve_agent("honest", game)
    monkeypatch.undo()
    assert hasattr(opponents.resolve_agent("honest", game), "act")
