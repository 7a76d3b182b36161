"""PettingZoo ParallelEnv face (monkey_envs.core.parallel) over a simultaneous game, proved on the
toy game ``toy_games.bidding``: PettingZoo's own API tests, equality with the AEC face (and its
``aec_to_parallel`` conversion), hidden commits, seeding, bad input, refusal of sequential games,
and the gymnasium face and arena on a simultaneous game."""

from __future__ import annotations

import copy
import functools
import importlib
import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test
from pettingzoo.utils.conversions import aec_to_parallel
from pettingzoo.utils.env_logger import EnvLogger

import monkey_envs
from monkey_envs.core.parallel import GameParallelEnv, make_parallel_api
from monkey_envs.core.registry import temporary_games
from monkey_envs.core.testing import random_legal_actions
from monkey_envs.games import GAMES, game_class, make_game, register_game

# Importing the toy game registers it (game, env ids, its "half" agent). Outside this module the game
# registry lists the package's games only (test_playthroughs wants a recording of each), so the
# registration is undone here and redone by the fixture below for this module's tests.
with temporary_games():
    ToyBidding = importlib.import_module("toy_games.bidding").ToyBidding

PZ_ID = "monkey_envs/toy_bidding-v0"
#: The registry's simultaneous games (the package's: the toy is not registered at collection).
#: The shipped simultaneous games (toy games that other test modules register at collection are not
#: among them: the package's own games live in ``monkey_envs``).
SIMULTANEOUS = sorted(g for g in GAMES if GAMES[g].startswith("monkey_envs.") and game_class(g).spec.simultaneous)
#: api_test's warnings for every dict observation (connect_four_v3 gets them too).
DICT_OBS_WARNINGS = ("Observation space for each agent probably should be", "Observation is not a NumPy array")
CONFIGS = [{}, {"num_players": 3, "coins": 4, "rounds": 2}, {"num_players": 4, "coins": 2, "rounds": 5}]


@pytest.fixture(scope="module", autouse=True)
def _toy_game_registered():
    """Keep the toy game in the game registry for this module's tests only."""
    with temporary_games():
        register_game("toy_bidding", ToyBidding)  # idempotent (its env ids are registered already)
        yield


def _random_actions(obs: dict, agents: list[str], rng: np.random.Generator) -> dict[str, int]:
    return {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in agents}


def _assert_no_warnings(caught: list) -> None:
    unexpected = [str(w.message) for w in caught if not str(w.message).startswith(DICT_OBS_WARNINGS)]
    assert unexpected == []


# ------------------------------------------------------------------ PettingZoo's own test kit
@pytest.mark.parametrize("cfg", CONFIGS, ids=str)
def test_parallel_api_test_on_registry_and_module(cfg):
    for env in (pettingzoo.make("parallel", PZ_ID, **cfg), monkey_envs.toy_bidding_v0.parallel_env(**cfg)):
        assert isinstance(env, GameParallelEnv)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            parallel_api_test(env, num_cycles=100)
        _assert_no_warnings(caught)


def test_aec_api_test_and_parallelizable():
    env = monkey_envs.toy_bidding_v0.env(num_players=3)
    assert env.unwrapped.metadata["is_parallelizable"] is True
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=100)
    _assert_no_warnings(caught)


# ------------------------------------------------------------------ the AEC face plays the same game
@pytest.mark.parametrize("cfg", CONFIGS, ids=str)
def test_aec_to_parallel_gives_the_native_trajectories(cfg):
    """Same seed and actions: PettingZoo's conversion of the AEC env and the native env agree on
    everything, every mover's mask included (the AEC env of a simultaneous game shows each seat
    still to commit in the tick its choices of the tick, issue 22 item 4), and the native env's
    masks are the ones the raw AEC env shows at each mover's turn."""
    rng = np.random.default_rng(0)
    native = monkey_envs.toy_bidding_v0.parallel_env(**cfg)
    converted = aec_to_parallel(monkey_envs.toy_bidding_v0.env(**cfg))
    raw = monkey_envs.toy_bidding_v0.raw_env(**cfg)
    for episode in range(3):
        seed = None if episode else 5  # later episodes continue the seed's episode stream
        obs_n, info_n = native.reset(seed=seed)
        obs_c, info_c = converted.reset(seed=seed)
        raw.reset(seed=seed)
        np.testing.assert_equal(info_n, info_c)  # infos hold numpy arrays
        while native.agents:
            assert native.agents == converted.agents == raw.agents
            for a in native.agents:
                np.testing.assert_array_equal(obs_n[a]["observation"], obs_c[a]["observation"])
                np.testing.assert_array_equal(obs_c[a]["action_mask"], obs_n[a]["action_mask"])
            actions = _random_actions(obs_n, native.agents, rng)
            for a in native.agents:  # the raw AEC env, one commit at a time
                assert raw.agent_selection == a
                np.testing.assert_array_equal(raw.observe(a)["action_mask"], obs_n[a]["action_mask"])
                np.testing.assert_array_equal(raw.observe(a)["observation"], obs_n[a]["observation"])
                raw.step(actions[a])
            out_n = native.step(actions)
            out_c = converted.step(actions)
            obs_n, obs_c = out_n[0], out_c[0]
            for got, want in zip(out_c[1:], out_n[1:], strict=True):
                np.testing.assert_equal(dict(got), want)
            assert set(obs_c) == set(obs_n)
        assert not converted.agents
        assert native.core_state.equals(raw.core_state)
        assert native.core_state.terminated[0]


# ------------------------------------------------------------------ hidden commits
@pytest.mark.parametrize("players", [2, 3])
def test_a_commit_is_hidden_from_the_next_movers(players):
    game = make_game("toy_bidding", num_players=players)
    start = game.init(3)
    for s0 in (start, _after_one_round(game, start)):
        views = []
        for bid in np.flatnonzero(s0.legal_action_mask[0]):
            s = game.step(s0, [bid])
            views.append(
                (s.current_player.copy(), s.legal_action_mask.copy(), [game.observe(s, p) for p in range(players)])
            )
        cp, mask, obs = views[0]
        assert cp[0] == 1
        for cp2, mask2, obs2 in views[1:]:
            np.testing.assert_array_equal(cp2, cp)
            np.testing.assert_array_equal(mask2, mask)
            for a, b in zip(obs, obs2, strict=True):
                np.testing.assert_array_equal(a, b)
    # through the AEC face: player_1 sees the same whatever player_0 bid
    seen = []
    for bid in range(game.num_actions):
        env = monkey_envs.toy_bidding_v0.raw_env(num_players=players)
        env.reset(seed=3)
        env.step(bid)
        o = env.observe("player_1")
        seen.append(np.concatenate([o["observation"], o["action_mask"]]))
    assert all(np.array_equal(seen[0], x) for x in seen[1:])


def _after_one_round(game: ToyBidding, s):
    for bid in (3, 1, 2, 0)[: game.num_players]:
        s = game.step(s, [bid])
    return s


def test_resample_hidden_changes_only_what_the_seat_cannot_see():
    game = make_game("toy_bidding", num_players=3)
    s = game.step(game.step(game.init(11), [4]), [2])  # seats 0 and 1 committed, seat 2 to bid
    changed = 0
    for seed in range(8):
        r = game.resample_hidden(s, 2, seed)
        assert game.state_violations(r) == []
        changed += int(not np.array_equal(r.bids, s.bids))
        np.testing.assert_array_equal(r.bids[:, 2], s.bids[:, 2])
        np.testing.assert_array_equal(game.observe(r, 2), game.observe(s, 2))
        np.testing.assert_array_equal(r.legal_action_mask, s.legal_action_mask)
        assert game.render(r, 0, 2) == game.render(s, 0, 2)
    assert changed > 0


def test_random_play_keeps_the_laws_and_the_game_hooks_agree():
    for cfg in ToyBidding.test_configs:
        game = ToyBidding(**cfg)
        rng = np.random.default_rng(1)
        s = game.init(np.arange(300))
        while not s.terminated.all():
            movers = game.movers(s)
            masks = game.mover_masks(s)
            live = np.flatnonzero(~s.terminated)
            np.testing.assert_array_equal(masks[live, s.current_player[live]], s.legal_action_mask[live])
            assert movers[live, s.current_player[live]].all()
            s = game.step(s, random_legal_actions(s.legal_action_mask, rng))
            assert game.state_violations(s) == []
        assert (s.step_count == game.num_players * game.rounds).all()
        assert s.winners_mask.any(1).all()


# ------------------------------------------------------------------ masks: generic walk vs the game's hook
class _NoHook(ToyBidding):
    """The toy game without its ``mover_masks`` hook: the face finds the masks by its generic walk."""

    mover_masks = None


def test_generic_mask_walk_matches_the_hook_also_mid_tick():
    game, plain = ToyBidding(num_players=4, coins=3), _NoHook(num_players=4, coins=3)
    fast, slow = GameParallelEnv(game), GameParallelEnv(plain)
    rng = np.random.default_rng(2)
    s = game.init(np.arange(40))
    while not s.terminated.all():
        for row in range(s.batch_size):
            one = s.take([row])
            one_plain = plain.state_class(**one.arrays())
            obs_f, _ = fast.load_state(one)
            obs_s, _ = slow.load_state(one_plain)
            assert fast.agents == slow.agents
            assert len(fast.agents) == int(game.movers(one).sum())
            for a in fast.agents:
                np.testing.assert_array_equal(obs_f[a]["action_mask"], obs_s[a]["action_mask"])
        s = game.step(s, random_legal_actions(s.legal_action_mask, rng))


def test_a_tick_resolves_the_same_from_a_mid_tick_state():
    env = monkey_envs.toy_bidding_v0.parallel_env(num_players=3)
    env.reset(seed=4)
    game = env.game
    mid = game.step(env.core_state, [1])  # player_0 committed already
    env.load_state(mid)
    assert env.agents == ["player_1", "player_2"]
    out = env.step({"player_2": 0, "player_1": 2})  # dict order does not matter: the core's order does
    want = game.step(game.step(mid, [2]), [0])
    assert env.core_state.equals(want)
    assert set(out[0]) == {"player_0", "player_1", "player_2"}


# ------------------------------------------------------------------ seeding
def test_seeded_resets_play_the_core_game_and_the_aec_stream():
    game = make_game("toy_bidding", num_players=3)
    par = monkey_envs.toy_bidding_v0.parallel_env(num_players=3)
    aec = monkey_envs.toy_bidding_v0.raw_env(num_players=3)
    par.reset(seed=9)
    aec.reset(seed=9)
    assert par.core_state.equals(game.init(9))
    for _ in range(3):
        par.reset()
        aec.reset()
        assert par.core_state.equals(aec.core_state)


def test_same_seed_same_actions_same_trajectory():
    def play(seed: int) -> list:
        env = monkey_envs.toy_bidding_v0.parallel_env(num_players=3)
        rng = np.random.default_rng(seed)
        out = []
        for ep in range(2):
            obs, _ = env.reset(seed=seed if ep == 0 else None)
            while env.agents:
                acts = _random_actions(obs, env.agents, rng)
                obs, rew, term, _, info = env.step(acts)
                out.append((acts, rew, term, info, {a: o["observation"].tolist() for a, o in obs.items()}))
        return out

    np.testing.assert_equal(play(3), play(3))  # infos hold numpy arrays
    assert play(3) != play(4)


def test_deepcopy_continues_identically():
    env = monkey_envs.toy_bidding_v0.parallel_env()
    env.reset(seed=1)
    env.step({a: 1 for a in env.agents})
    twin = copy.deepcopy(env)
    acts = {a: 2 for a in env.agents}
    a, b = env.step(acts), twin.step(acts)
    assert a[1:] == b[1:]
    assert env.core_state.equals(twin.core_state)


# ------------------------------------------------------------------ bad input
BAD_ACTIONS = [
    ({"player_0": 1}, "player_1"),  # missing
    ({"player_0": 1, "player_1": 1, "player_7": 0}, "player_7"),  # unknown
    ({"player_0": 1, "player_1": 7}, "player_1"),  # out of range
    ({"player_0": -1, "player_1": 0}, "player_0"),  # out of range
    ({"player_0": 1.0, "player_1": 0}, "player_0"),  # not an integer
    ({"player_0": True, "player_1": 0}, "player_0"),  # bool
    ({"player_0": None, "player_1": 0}, "player_0"),  # None
]
ILLEGAL = ({"player_0": 1, "player_1": 5}, "player_1")  # illegal: more than its coins


@pytest.mark.parametrize(
    ("policy", "actions", "named"),
    [("raise", *ILLEGAL)] + [(p, *bad) for p in ("raise", "lose") for bad in BAD_ACTIONS],
)
def test_bad_actions_raise_naming_the_agent_and_change_nothing(policy, actions, named):
    """Malformed input is a ValueError under either illegal-action policy; an illegal action is
    one under ``illegal_action="raise"`` (the default ends the game, below)."""
    env = monkey_envs.toy_bidding_v0.parallel_env(coins=6, illegal_action=policy)
    env.reset(seed=0)
    env.step({"player_0": 2, "player_1": 2})  # both have 4 coins left: bids 0..4 legal
    before, agents = env.core_state, list(env.agents)
    snapshot = before.clone()
    with pytest.raises(ValueError, match=named):
        env.step(actions)
    assert env.core_state is before and before.equals(snapshot)
    assert env.agents == agents
    env.step({"player_0": 4, "player_1": 0})  # still playable
    assert env.core_state.round[0] == 2


def test_step_before_reset_after_the_end_and_non_dict():
    env = monkey_envs.toy_bidding_v0.parallel_env(rounds=1)
    with pytest.raises(ValueError, match="reset"):
        env.step({})
    env.reset(seed=0)
    with pytest.raises(ValueError, match="dict"):
        env.step([1, 1])
    _, rew, term, _, info = env.step({"player_0": 3, "player_1": 1})
    assert env.agents == [] and all(term.values())
    assert rew == {"player_0": 1.0, "player_1": -1.0}
    assert info["player_0"]["winners"].tolist() == [True, False]
    with pytest.raises(ValueError, match="over"):
        env.step({})


def test_sequential_games_are_refused():
    with pytest.raises(ValueError, match="sequential"):
        GameParallelEnv(make_game("monkey_fun"))
    with pytest.raises(ValueError, match="sequential"):
        GameParallelEnv("monkey_fun", num_players=3)
    with pytest.raises(ValueError, match="sequential"):
        make_parallel_api("monkey_fun", "somewhere")
    assert "monkey_envs/monkey_fun-v0" not in pettingzoo.parallel_registry
    assert not hasattr(monkey_envs.monkey_fun_v0, "parallel_env")


def test_bad_options_and_render_modes(capsys):
    with pytest.raises(ValueError, match="render_mode"):
        monkey_envs.toy_bidding_v0.parallel_env(render_mode="rgb")
    with pytest.raises(ValueError, match="num_players"):
        monkey_envs.toy_bidding_v0.parallel_env(num_players=5)
    assert monkey_envs.toy_bidding_v0.parallel_env().reset(seed=0) is not None
    quiet = monkey_envs.toy_bidding_v0.parallel_env()
    quiet.reset(seed=0)
    with pytest.warns(UserWarning, match="render mode"):
        assert quiet.render() is None
    ansi = monkey_envs.toy_bidding_v0.parallel_env(render_mode="ansi")
    ansi.reset(seed=0)
    assert ansi.render().startswith("Toy Bidding: round 1/3")
    pictured = monkey_envs.toy_bidding_v0.parallel_env(render_mode="rgb_array")  # the toy's text_picture
    pictured.reset(seed=0)
    frame = pictured.render()
    assert frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8
    pictured.step({"player_0": 1, "player_1": 2})
    assert pictured.render().shape == frame.shape and not np.array_equal(pictured.render(), frame)
    human = monkey_envs.toy_bidding_v0.parallel_env(render_mode="human")
    human.reset(seed=0)
    capsys.readouterr()
    human.step({"player_0": 1, "player_1": 2})
    assert "round 2/3" in capsys.readouterr().out


# ------------------------------------------------------------------ the other faces run on a simultaneous game
def test_gymnasium_single_agent_env_runs():
    env = gymnasium.make("monkey_envs/ToyBidding-v0", opponent="half", num_players=3)
    rng = np.random.default_rng(0)
    for ep in range(5):
        obs, info = env.reset(seed=ep)
        done, ret = False, 0.0
        while not done:
            assert env.observation_space.contains(obs)
            obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            ret, done = ret + r, term or trunc
        assert ret in (-1.0, 0.0, 1.0)
        assert env.unwrapped.game.spec.end_reason_name(info["end_reason"]) == "rounds_played"
    env.close()


def test_arena_plays_random_against_half():
    from agents.evaluate import play_games

    game = make_game("toy_bidding")
    res = play_games(game, ["random", "half"], 100, seed=0)
    assert res.num_games == 100 and res.truncated == 0
    assert [a.name for a in res.agents] == ["random", "half"]
    assert sum(a.seats for a in res.agents) == 200
    assert res.end_reasons == {"rounds_played": 100}
    assert res.mean_length == game.num_players * game.rounds


# ------------------------------------------------------------------ illegal actions (issue 22, item 4)
def test_by_default_an_illegal_action_ends_the_game_with_its_agents_losing():
    """Issue 22 item 4: the Parallel env raised on an illegal action by default, so PettingZoo's
    ``parallel_seed_test`` (unmasked samples) failed. Now, as the AEC ``env()`` (PettingZoo's
    TerminateIllegalWrapper), the game ends: -1 to every agent that chose an illegal action, 0 to
    the others, everyone terminated and truncated, masks zero, the tick unplayed."""
    env = monkey_envs.toy_bidding_v0.parallel_env(num_players=3, coins=4)
    assert env.illegal_action == "lose"
    env.reset(seed=0)
    env.step({"player_0": 4, "player_1": 2, "player_2": 0})  # 0, 2 and 4 coins left
    before = env.core_state.clone()
    obs, rew, term, trunc, info = env.step({"player_0": 1, "player_1": 3, "player_2": 4})
    assert rew == {"player_0": -1.0, "player_1": -1.0, "player_2": 0.0}
    assert all(term.values()) and all(trunc.values()) and set(term) == set(env.possible_agents)
    assert info == {a: {"illegal_action": a != "player_2"} for a in env.possible_agents}
    assert env.agents == [] and not any(o["action_mask"].any() for o in obs.values())
    assert env.core_state.equals(before)  # nothing was committed
    with pytest.raises(ValueError, match="over"):
        env.step({})
    obs, _ = env.reset(seed=0)
    assert env.agents == env.possible_agents and all(o["action_mask"].any() for o in obs.values())
    with pytest.raises(ValueError, match="illegal_action"):
        monkey_envs.toy_bidding_v0.parallel_env(illegal_action="ignore")


def test_the_aec_env_ends_an_illegal_commit_at_the_end_of_its_tick():
    """Issue 22 item 4: ``env()`` of a simultaneous game ended the game at the illegal commit, in
    the middle of a tick, which PettingZoo's ``aec_to_parallel`` cannot follow. Now the tick's
    later seats still commit, then the game ends with -1 to each offender of the tick, 0 to the
    others (the same outcome as the Parallel env's default)."""
    env = monkey_envs.toy_bidding_v0.env(num_players=3, coins=4)
    env.reset(seed=0)
    for a in ("player_0", "player_1", "player_2"):
        assert env.agent_selection == a
        env.step({"player_0": 4, "player_1": 2, "player_2": 0}[a])
    start = env.unwrapped.core_state.clone()  # the tick's start
    env.step(1)  # player_0 has no coin left: illegal
    assert env.agent_selection == "player_1" and not any(env.terminations.values())
    np.testing.assert_array_equal(env.last()[0]["action_mask"], [1, 1, 1, 0, 0])
    env.step(2)  # legal
    env.step(4)  # player_2's legal last commit: the tick ends, player_0 loses
    assert all(env.terminations.values()) and all(env.truncations.values())
    assert env.unwrapped.core_state.equals(start)  # the tick is not played (its commits undone)
    seen = {}
    for a in env.agent_iter():
        _, reward, term, _, info = env.last()
        assert term and not env.observe(a)["action_mask"].any()
        seen[a] = (reward, info["illegal_action"])
        env.step(None)
    assert seen == {"player_0": (-1.0, True), "player_1": (0.0, False), "player_2": (0.0, False)}


@pytest.mark.parametrize("name", [*SIMULTANEOUS, "toy_bidding"])
def test_pettingzoo_parallel_kit_passes_on_the_defaults_and_on_the_converted_aec_env(name):
    """Issue 22 item 4, as reported: ``parallel_seed_test(functools.partial(<game>.parallel_env,
    num_players=4))`` failed (an unmasked sample is illegal: the env raised), and
    ``aec_to_parallel(<game>.env())`` failed ("expected agent player_2 got termination or
    truncation agent player_0"). PettingZoo's own parallel tests now pass on both, with default
    arguments, for every simultaneous game (the conformance check ``pettingzoo_parallel`` runs
    them for every configuration and compares the converted env with the native one)."""
    spec = game_class(name).spec
    module = monkey_envs.versioned_module(f"{spec.name}_v{spec.version}")
    makers = {
        "parallel_env()": module.parallel_env,
        "the issue's partial": functools.partial(module.parallel_env, num_players=max(spec.default_players)),
        "aec_to_parallel(env())": lambda: aec_to_parallel(module.env()),
    }
    EnvLogger.suppress_output()  # its illegal-move warnings
    try:
        for what, make in makers.items():
            try:
                parallel_seed_test(make)
                parallel_api_test(make(), num_cycles=200)
            except Exception as e:
                raise AssertionError(f"{what}: {type(e).__name__}: {e}") from e
    finally:
        EnvLogger.unsuppress_output()
