"""The search agent ``mcts`` (issue 24, items 1 and 4): legal, deterministic for a seed, within its
budget, blind to what its seat cannot see, and played by the arena, the single-agent driver and
the play command through the state-taking agent protocol (``needs_state`` / ``act_state``).

Budgets are tiny (a handful of simulations, short play-outs): these tests check the machinery,
not the strength (docs/agents.md has the measured tables).
"""

from __future__ import annotations

import io

import numpy as np
import pytest

from agents.base import random_legal
from agents.evaluate import play_games
from agents.registry import agent_names, make_agent
from agents.search import SearchAgent, SearchSettings, parse_search_spec
from monkey_envs.core.driver import SingleAgentDriver
from monkey_envs.games import GAMES, make_game

#: The games of the package (toy games other tests register at collection are left out).
SHIPPED = sorted(name for name, path in GAMES.items() if path.startswith("monkey_envs."))
#: A tiny budget: 6 simulations over 3 re-deals, random play-outs of at most 6 decisions, UCB1 over
#: the whole tree, valued by who won (fixed here, so the tests do not depend on each game's defaults).
TINY = (
    "mcts:simulations=6,determinizations=3,max_rollout_depth=6,rollout=random,prior=none,root=ucb,max_tree_depth=0,"
    "margin_weight=0,evaluation=standing,focus=all,candidates=0,stick=0"
)


def mid_game(game, n: int = 24, steps: int = 9, seed: int = 0):
    """``n`` running rows after ``steps`` random moves (rows that ended are dropped)."""
    rng = np.random.default_rng(seed)
    s = game.init(np.arange(n) + 100 * seed)
    for _ in range(steps):
        s = game.step(s, random_legal(s.legal_action_mask, rng))
    return s.take(np.flatnonzero(s.current_player >= 0))


def ask(agent, state):
    cp = state.current_player.astype(np.int64)
    return agent.act_state(state, cp, agent.game.observe(state, cp), state.legal_action_mask)


def redeal(game, state, seed: int):
    """``state`` with every row's hidden information re-dealt from its current player's view."""
    twin = state.clone()
    cp = state.current_player.astype(np.int64)
    for seat in np.unique(cp).tolist():
        rows = np.flatnonzero(cp == seat)
        twin.put(rows, game.resample_hidden(state.take(rows), int(seat), seed))
    return twin


class PeekingSearch(SearchAgent):
    """A cheat for the no-peeking test: searches the true state instead of re-deals of it."""

    def _determinize(self, state, seats, seeds):
        return [state.clone() for _ in seeds.tolist()]


# ---------------------------------------------------------------- registered, legal, in the arena
@pytest.mark.parametrize("name", SHIPPED)
def test_mcts_is_registered_for_every_game_and_plays_legal_moves_in_the_arena(name):
    game = make_game(name)
    assert "mcts" in agent_names(game)
    # the arena's agent-contract check refuses any illegal or malformed answer
    for spec in (TINY, TINY.replace("prior=none", "prior=random")):  # UCB1 and PUCT
        r = play_games(game, [spec, *["random"] * (game.num_players - 1)], game.num_players, seed=1, max_steps=80)
        assert sum(a.seats for a in r.agents) == game.num_players**2


# ---------------------------------------------------------------- deterministic, budget
@pytest.mark.parametrize("name", SHIPPED)
def test_same_seed_same_actions_and_the_budget_is_counted(name):
    game = make_game(name)
    s = mid_game(game)
    a, b = make_agent(TINY, game, seed=3), make_agent(TINY, game, seed=3)
    acts = ask(a, s)
    assert np.array_equal(acts, ask(b, s))
    assert s.legal_action_mask[np.arange(s.batch_size), acts].all()
    searched = int((s.legal_action_mask.sum(1) > 1).sum())
    assert searched > 0
    assert a.counts["decisions"] == s.batch_size
    assert a.counts["simulations"] == 6 * searched  # exactly the budget per searched row
    # each simulation: at least one step; at most the tree (<= its nodes) plus the play-out
    per_node = game.num_players if game.spec.simultaneous else 1
    assert 6 * searched <= a.counts["steps"] <= 6 * searched * (1 + 6 * per_node + 6)
    c = make_agent(TINY.replace("simulations=6", "simulations=12"), game, seed=3)
    ask(c, s)
    assert c.counts["simulations"] == 2 * a.counts["simulations"]


# ---------------------------------------------------------------- never reads hidden state
@pytest.mark.parametrize("name", SHIPPED)
def test_resample_hidden_depends_only_on_what_the_seat_sees(name):
    """The hook the search samples from: two states a seat cannot tell apart re-deal alike for one
    seed (before the fix the deal read the hidden order: decks, piles and stacks came out differently)."""
    game = make_game(name)
    s = mid_game(game, seed=2)
    for seat in range(game.num_players):
        twin = game.resample_hidden(s, seat, 11)
        assert not twin.equals(s)
        assert game.resample_hidden(twin, seat, 5).equals(game.resample_hidden(s, seat, 5))


@pytest.mark.parametrize("name", SHIPPED)
def test_decisions_do_not_depend_on_the_hidden_information_and_a_peeking_search_fails(name):
    """Re-deal what each row's seat cannot see: with the same agent seed the decisions are
    identical (the search only ever steps its own re-deals); a search of the true state differs."""
    game = make_game(name)
    s = mid_game(game, n=32, seed=4)
    for k in (21, 22):
        twin = redeal(game, s, k)
        assert not twin.equals(s)
        assert np.array_equal(ask(make_agent(TINY, game, seed=7), s), ask(make_agent(TINY, game, seed=7), twin))
    settings = make_agent(TINY, game, seed=7).settings
    peek = [ask(PeekingSearch(game, 7, settings), x) for x in (s, redeal(game, s, 21), redeal(game, s, 22))]
    assert not (np.array_equal(peek[0], peek[1]) and np.array_equal(peek[0], peek[2]))


# ---------------------------------------------------------------- the driver and the play command
@pytest.mark.parametrize("name", SHIPPED)
def test_a_driver_with_mcts_opponents_steps_alike_on_both_pass_paths(name):
    game = make_game(name)
    runs = []
    for frozen in (True, False):
        d = SingleAgentDriver(game, 3, opponent=TINY)
        d._frozen_passes = frozen
        d.reset(np.arange(3) + 40)
        rng = np.random.default_rng(0)
        rewards = []
        for _ in range(4):
            out = d.step(random_legal(d.mask, rng))
            rewards.append(out.reward)
        (opp,) = {id(a): a for a in d.opponents}.values()
        assert opp.counts["decisions"] > 0
        runs.append((d.state, np.array(rewards)))
    assert runs[0][0].equals(runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])


#: Funky Monkey searches with a compiled play-out (``register_search_playout``): full play-outs by
#: the default's ``track``, play-outs cut after 4 decisions, and two other heuristics.
COMPILED_PLAYOUTS = (
    "mcts:simulations=12,determinizations=4",
    "mcts:simulations=12,determinizations=4,max_rollout_depth=4",
    "mcts:simulations=12,determinizations=4,rollout=honest,prior=none",
    "mcts:simulations=12,determinizations=4,rollout=skeptic,root=halving",
)


@pytest.mark.parametrize("spec", COMPILED_PLAYOUTS)
def test_the_compiled_play_out_decides_as_the_step_by_step_one(spec, monkeypatch):
    game = make_game("funky_monkey")
    s = mid_game(game, n=10, steps=5, seed=3)
    runs = []
    for compiled in (True, False):
        monkeypatch.setattr(SearchAgent, "_compiled_playouts", compiled)
        agent = make_agent(spec, game, seed=2)
        calls = []
        if compiled:  # count the compiled play-outs, so the test fails if none ran
            inner = agent._playout
            agent._playout = lambda *a, inner=inner, calls=calls: calls.append(1) or inner(*a)
        acts = [ask(agent, s).tolist() for _ in range(2)]
        runs.append((acts, dict(agent.counts), agent.rng.random(), agent._rollout_agent.rng.random()))
        assert bool(calls) == compiled
    assert runs[0] == runs[1]


def test_the_compiled_play_out_leaves_the_believer_and_foreign_agents_to_the_search():
    from agents.heuristics.funky_monkey import compiled_playout

    game = make_game("funky_monkey")
    s = mid_game(game, n=4, steps=5)
    left = np.full(s.batch_size, 50, dtype=np.int64)
    before = s.clone()
    for name in ("believer", "random"):
        assert compiled_playout(game, make_agent(name, game, 0), s, left) is None
    assert (
        compiled_playout(make_game("funky_monkey"), make_agent("track", game, 0), s, left) is None
    )  # another game object
    assert s.equals(before) and (left == 50).all()
    steps = compiled_playout(game, make_agent("track", game, 0), s, left)
    assert steps > 0 and (s.terminated | (left == 0)).all() and not s.truncated.any()


def test_the_play_command_plays_a_search_agent():
    from monkey_envs.play import play

    game = make_game(SHIPPED[0])
    specs = [TINY, *["random"] * (game.num_players - 1)]
    res = play(game, specs, seed=0, read=lambda _prompt="": "q", out=io.StringIO(), max_steps=20)
    assert res["steps"] == 20 or not res["quit"]


# ---------------------------------------------------------------- settings and bad input
def test_settings_come_from_the_spec_and_bad_ones_are_refused():
    game = make_game(SHIPPED[0])
    assert parse_search_spec("mcts:simulations=9,c=0.5,rollout=random") == {
        "simulations": 9,
        "c": 0.5,
        "rollout": "random",
    }
    agent = make_agent("mcts:simulations=9,determinizations=3,c=0.5", game)
    assert (agent.settings.simulations, agent.settings.determinizations, agent.settings.c) == (9, 3, 0.5)
    for bad in (
        "mcts:simulation=9",
        "mcts:simulations=0",
        "mcts:simulations=4,determinizations=8",
        "mcts:c=-1",
        "mcts:rollout=nobody",
        "mcts:prior_mix=0",
        "mcts:simulations",
        "mcts:c=1,c=2",
        "mcts:root=best",
        "mcts:candidates=-1",
        "mcts:stick=-0.1",
        "mcts:margin_weight=1.5",
        "mcts:margin_scale=0",
        "mcts:max_tree_depth=-1",
        "mcts:evaluation=oracle",
        "mcts:focus=some",
    ):
        with pytest.raises(ValueError):
            make_agent(bad, game)
    with pytest.raises(ValueError, match="act_state"):
        agent.act(np.zeros((1, game.obs_dim), np.float32), np.ones((1, game.num_actions), bool))
    s = mid_game(game, n=4)
    with pytest.raises(ValueError, match="not the players to move"):
        agent.act_state(s, (s.current_player.astype(np.int64) + 1) % game.num_players, None, s.legal_action_mask)


# ---------------------------------------------------------------- defaults of games that do not opt in
#: Decisions of the registered defaults of the games that keep the first search (and of the first
#: generic search spelled out for the other two), recorded from the code before sequential halving,
#: score margins, tree depth limits and evaluations were added (a digest of the actions and of
#: ``counts``): new settings must default to the old behaviour, bit for bit.
#: The first search's settings that the later defaults of these two games changed, spelled out.
FIRST_MONKEY_FUN = (
    "mcts:simulations=64,determinizations=8,rollout=greedy,prior=greedy,root=ucb,candidates=0,max_tree_depth=0"
)
FIRST_MONKI = (
    "mcts:simulations=32,determinizations=8,rollout=random,prior=none,focus=all,root=ucb,max_rollout_depth=200,"
    "evaluation=standing"
)
DEFAULT_DIGESTS = {
    ("funky_monkey", 4, "mcts"): "7c34a3ab54f1abde",
    ("four_monkeys", 4, "mcts"): "a66acf5b2848233f",
    ("monkey_fun", 2, FIRST_MONKEY_FUN): "7a1f4e93304c7473",
    ("monki", 2, FIRST_MONKI): "029789a20017199b",
}


def decision_digest(name: str, players: int, spec: str) -> str:
    """sha256 (16 hex digits) of one search call's actions and counts on 12 rows after 7 random moves."""
    import hashlib

    game = make_game(name, num_players=players)
    rng = np.random.default_rng(0)
    s = game.init(np.arange(12))
    for _ in range(7):
        s = game.step(s, random_legal(s.legal_action_mask, rng))
    s = s.take(np.flatnonzero(s.current_player >= 0))
    agent = make_agent(spec, game, seed=5)
    acts = ask(agent, s)
    return hashlib.sha256(acts.astype(np.int64).tobytes() + repr(sorted(agent.counts.items())).encode()).hexdigest()[
        :16
    ]


@pytest.mark.parametrize(("name", "players", "spec"), sorted(DEFAULT_DIGESTS))
def test_the_first_search_decides_as_it_did(name, players, spec):
    assert decision_digest(name, players, spec) == DEFAULT_DIGESTS[(name, players, spec)]


# ---------------------------------------------------------------- the later settings
#: Sequential halving at the root with the tiny budget (random prior: its move gets the bonus).
HALVING = (
    TINY.replace("prior=none", "prior=random").replace("root=ucb", "root=halving").replace(",stick=0", ",stick=0.05")
)


@pytest.mark.parametrize("name", SHIPPED)
def test_halving_is_legal_deterministic_within_budget_and_blind_to_hidden_information(name):
    game = make_game(name)
    s = mid_game(game, n=32, seed=4)
    a, b = make_agent(HALVING, game, seed=3), make_agent(HALVING, game, seed=3)
    acts = ask(a, s)
    assert np.array_equal(acts, ask(b, s))
    assert s.legal_action_mask[np.arange(s.batch_size), acts].all()
    searched = int((s.legal_action_mask.sum(1) > 1).sum())
    assert a.counts["simulations"] == 6 * searched
    per_node = game.num_players if game.spec.simultaneous else 1
    assert 6 * searched <= a.counts["steps"] <= 6 * searched * (1 + 6 * per_node + 6)
    for k in (21, 22):
        twin = redeal(game, s, k)
        assert np.array_equal(ask(make_agent(HALVING, game, seed=7), s), ask(make_agent(HALVING, game, seed=7), twin))
    # without the bonus the choice is the best mean: a search of the true state differs
    settings = make_agent(HALVING.replace("stick=0.05", "stick=0"), game, seed=7).settings
    peek = [ask(PeekingSearch(game, 7, settings), x) for x in (s, redeal(game, s, 21), redeal(game, s, 22))]
    assert not (np.array_equal(peek[0], peek[1]) and np.array_equal(peek[0], peek[2]))


@pytest.mark.parametrize(("name", "prior"), [("monkey_fun", "greedy"), ("monki", "lookahead")])
def test_halving_candidates_come_from_the_prior_scores_and_a_large_stick_keeps_the_prior_move(name, prior):
    game = make_game(name)
    s = mid_game(game, n=32, seed=5)
    cp = s.current_player.astype(np.int64)
    obs, mask = game.observe(s, cp), s.legal_action_mask
    guide = make_agent(prior, game)
    move = np.asarray(guide.act(obs, mask))
    base = f"mcts:simulations=12,determinizations=12,max_rollout_depth=4,rollout=random,prior={prior},root=halving"
    free = ask(make_agent(base, game, seed=1), s)
    searched = mask.sum(1) > 1
    assert (free != move)[searched].any()  # without a bonus the search leaves the prior's move somewhere
    stuck = ask(make_agent(base + ",stick=2", game, seed=1), s)  # values lie in [0, 1]: never left
    assert np.array_equal(stuck[searched], move[searched])
    sc = np.where(mask, np.asarray(guide.scores(obs, mask), dtype=np.float64), -np.inf)
    top2 = np.argsort(-sc, axis=1, kind="stable")[:, :2]
    two = ask(make_agent(base + ",candidates=2", game, seed=1), s)
    assert ((two[:, None] == top2).any(1) | ~searched).all()
    with pytest.raises(ValueError, match="scores"):
        make_agent(base.replace(f"prior={prior}", "prior=random") + ",candidates=2", game)


@pytest.mark.parametrize("name", SHIPPED)
def test_a_tree_depth_of_one_searches_the_root_only(name):
    """Without play-outs (``max_rollout_depth=0``) a simulation is its tree descent: one step each
    at depth 1, more once the unlimited tree revisits a root action (40 simulations, fewer moves)."""
    game = make_game(name)
    s = mid_game(game, n=16, seed=6)
    searched = int((s.legal_action_mask.sum(1) > 1).sum())
    flat = TINY.replace("simulations=6", "simulations=40").replace("max_rollout_depth=6", "max_rollout_depth=0")
    a = make_agent(flat.replace("max_tree_depth=0", "max_tree_depth=1"), game, seed=2)
    acts = ask(a, s)
    assert s.legal_action_mask[np.arange(s.batch_size), acts].all()
    assert a.counts["steps"] == a.counts["simulations"] == 40 * searched
    deep = make_agent(flat, game, seed=2)
    ask(deep, s)
    assert deep.counts["steps"] > 40 * searched


def test_score_margins_and_the_game_evaluation_value_the_play_outs():
    game = make_game("monkey_fun", num_players=2)
    rng = np.random.default_rng(0)
    s = game.init(np.arange(64))
    while not (s.terminated | s.truncated).all():
        run = ~(s.terminated | s.truncated)
        acts = np.zeros(s.batch_size, dtype=np.int64)
        acts[run] = random_legal(s.legal_action_mask[run], rng)
        s = game.step(s, acts)
    done = np.ones(s.batch_size, dtype=bool)
    plain = SearchAgent(game, 0, SearchSettings())._values(s, done)
    half = SearchAgent(game, 0, SearchSettings(margin_weight=0.5, margin_scale=4.0))._values(s, done)
    sc = game.scores(s)
    margin = sc - sc[:, ::-1]
    assert (margin != 0).any()
    np.testing.assert_allclose(half, 0.5 * plain + 0.5 / (1.0 + np.exp(-margin / 4.0)))
    # evaluation=game: a cut play-out is worth the game's registered evaluation (Monki registers one)
    from agents.heuristics.monki import search_evaluation

    mk = make_game("monki")
    m = mid_game(mk, n=16, steps=30, seed=1)
    agent = SearchAgent(mk, 0, SearchSettings(evaluation="game"))
    np.testing.assert_allclose(agent._values(m, np.zeros(m.batch_size, dtype=bool)), search_evaluation(mk, m))
    v = search_evaluation(mk, m)
    assert ((v >= 0) & (v <= 1)).all() and np.allclose(v.sum(1), 1.0)
    with pytest.raises(ValueError, match="registers no search evaluation"):
        SearchAgent(make_game("four_monkeys"), 0, SearchSettings(evaluation="game"))


def test_a_game_focus_leaves_the_other_decisions_to_the_prior_agent():
    """Monki searches the start of a turn only (``focus=game``): every other decision is the prior
    agent's move, and only the searched rows spend simulations."""
    from agents.heuristics.monki import search_focus

    game = make_game("monki")
    s = mid_game(game, n=48, steps=14, seed=3)
    cp = s.current_player.astype(np.int64)
    mask = s.legal_action_mask
    spec = "mcts:simulations=8,determinizations=8,max_rollout_depth=4,rollout=random,prior=lookahead,root=halving"
    focused = make_agent(spec + ",focus=game", game, seed=1)
    acts = ask(focused, s)
    assert mask[np.arange(s.batch_size), acts].all()
    searched = (mask.sum(1) > 1) & search_focus(game, s)
    others = (mask.sum(1) > 1) & ~searched
    assert searched.any() and others.any()
    guide = np.asarray(make_agent("lookahead", game).act(game.observe(s, cp), mask))
    assert np.array_equal(acts[others], guide[others])
    assert focused.counts["simulations"] == 8 * int(searched.sum())
    everywhere = make_agent(spec + ",focus=all", game, seed=1)
    ask(everywhere, s)
    assert everywhere.counts["simulations"] == 8 * int((mask.sum(1) > 1).sum())
    with pytest.raises(ValueError, match="registers no search focus"):
        SearchAgent(make_game("four_monkeys"), 0, SearchSettings(focus="game", prior="smart"))
    with pytest.raises(ValueError, match="needs a prior agent"):
        SearchAgent(game, 0, SearchSettings(focus="game"))
