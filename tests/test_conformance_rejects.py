"""The conformance suite rejects broken games: each ``broken_*`` toy of ``tests/toy_games/broken.py``
breaks one law and the check named for it must fail with an ``AssertionError`` saying why, while
the correct toys (``toy_coins``, sequential; ``toy_grab``, simultaneous) pass every check."""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest

from monkey_envs.core import testing
from monkey_envs.core.registry import temporary_games
from monkey_envs.core.testing import CHECKS, CheckSkipped, conformance_params, run_check

CORRECT = ["toy_coins", "toy_grab"]

with temporary_games():  # importing the toys registers them; the global registry is left as it was
    broken = importlib.import_module("toy_games.broken")
    CORRECT_PARAMS = conformance_params(games=CORRECT, exclude=["playthroughs"])


@pytest.fixture(scope="module", autouse=True)
def _toys_registered():
    """The toys are in the registry for this module's tests only."""
    from monkey_envs.games import register_game

    with temporary_games():
        for name, cls in broken.TOYS.items():
            register_game(name, cls)
        yield


@pytest.mark.parametrize(("game", "config", "check"), CORRECT_PARAMS)
def test_a_correct_toy_passes_every_check(game, config, check):
    run_check(game, config, check)


#: (broken toy, the check that must reject it, check options, what the message must say)
REJECTIONS = [
    ("broken_leaky", "no_peeking", {}, "observation changed"),
    ("broken_mask", "legal_masks", {}, "masked-legal"),
    ("broken_global_rng", "batch_invariance", {}, "field 'secret' differs"),
    ("broken_global_rng", "pettingzoo_seed", {}, "Incorrect"),
    ("broken_conservation", "random_play_fuzz", {}, "state_violations flagged none"),
    ("broken_batch_obs", "batch_invariance", {}, "depends on the other rows"),
    ("broken_batch_obs", "vector_equivalence", {}, "vector env observation"),
    ("broken_clone", "round_trips", {}, "shares memory"),
    ("broken_unchecked", "bad_input", {}, "float actions"),
    ("broken_endless", "random_play_fuzz", {"max_game_steps": 200}, "without ending"),
    ("broken_reward", "random_play_fuzz", {}, "outside reward_range"),
    ("broken_bounds", "pettingzoo_api", {}, "Out of bounds observation"),
    ("broken_bounds", "gymnasium_check_env", {}, "observation space"),
    ("broken_bounds", "sb3_check_env", {}, "bounds"),
    ("broken_bounds", "random_play_fuzz", {}, "outside"),
    ("broken_render", "pettingzoo_render", {}, "render_test"),
    ("broken_no_picture", "pictures", {}, "draws no picture"),
    ("broken_grab_leak", "no_peeking", {}, "observation changed"),
    # without resampling, the simultaneous part alone: a later mover sees the earlier commit
    ("broken_grab_leak", "no_peeking", {"resample_seeds": ()}, r"commits \d instead of \d: seat \d's observation"),
    ("broken_row_blame", "random_play_fuzz", {}, r"violations reported in rows \[0\], not in row \d+ alone"),
    ("broken_garbage_blind", "random_play_fuzz", {}, "garbage in every field at once passes"),
    ("broken_resample_in_place", "no_peeking", {}, "resample_hidden changed the state it was given"),
    ("broken_resample_unseeded", "no_peeking", {}, "the same seed resampled differently"),
    ("broken_rng_seen", "no_peeking", {}, "observes the RNG"),
]


@pytest.mark.parametrize(
    ("game", "check", "options", "match"), REJECTIONS, ids=[f"{g}-{c}-{i}" for i, (g, c, _, _) in enumerate(REJECTIONS)]
)
def test_a_broken_toy_is_rejected_by_its_check(game, check, options, match):
    np.random.seed(0)  # noqa: NPY002 - broken_global_rng draws from the global RNG: keep the test reproducible
    with pytest.raises(AssertionError, match=match):
        CHECKS[check](game, {}, **options)


def test_the_broken_toys_pass_the_checks_they_do_not_break():
    """Each rejection above is specific: e.g. the leaky toy is batch-invariant and its masks are right."""
    for game, check in [
        ("broken_leaky", "batch_invariance"),
        ("broken_leaky", "legal_masks"),
        ("broken_leaky", "random_play_fuzz"),
        ("broken_conservation", "no_peeking"),
        ("broken_reward", "batch_invariance"),
        ("broken_grab_leak", "legal_masks"),
        ("broken_row_blame", "no_peeking"),
        ("broken_garbage_blind", "no_peeking"),
        ("broken_resample_in_place", "random_play_fuzz"),
        ("broken_rng_seen", "random_play_fuzz"),
    ]:
        CHECKS[check](game, {})


def test_the_playthrough_check_needs_a_recorded_file_of_the_game(tmp_path: Path):
    from monkey_envs.core import playthrough

    with pytest.raises(AssertionError, match="no recorded playthrough of 'toy_coins'"):
        testing.check_playthroughs("toy_coins", {}, directory=tmp_path)
    (tmp_path / "toy_grab.txt").write_text(playthrough.record("toy_grab", {}, [0]), encoding="utf-8")
    with pytest.raises(AssertionError, match="no recorded playthrough"):
        testing.check_playthroughs("toy_coins", {}, directory=tmp_path)  # another game's file does not count
    (tmp_path / "toy_coins.txt").write_text(
        playthrough.record("toy_coins", {"num_players": 3}, [0, 1]), encoding="utf-8"
    )
    testing.check_playthroughs("toy_coins", {}, directory=tmp_path)
    playthrough.check(tmp_path / "toy_coins.txt")


def test_the_params_of_the_package_games_hold_no_test_toys():
    games = {p.values[0] for p in conformance_params()}
    assert games == set(testing.package_games()) and {"monkey_fun", "funky_monkey"} <= games
    assert not any(g.startswith(("broken_", "toy_")) for g in games)


def test_params_cross_games_configs_and_checks():
    params = conformance_params(games=CORRECT)
    ids = [p.id for p in params]
    assert len(ids) == len(set(ids))
    per_game = [p for p in params if p.values[2] in testing.PER_GAME_CHECKS]
    assert sorted((p.values[0], p.values[2]) for p in per_game) == sorted(
        (g, c) for g in CORRECT for c in testing.PER_GAME_CHECKS
    )
    assert all(p.values[1] == {} for p in per_game)
    parallel = {p.values[0] for p in params if p.values[2] == "pettingzoo_parallel"}
    assert parallel == {"toy_grab"}  # simultaneous games only
    coins = [p.values[1] for p in params if p.values[0] == "toy_coins" and p.values[2] == "no_peeking"]
    assert coins == [dict(c) for c in broken.ToyCoins.test_configs]
    with pytest.raises(ValueError, match="unknown checks"):
        conformance_params(checks=["no_such_check"])


def test_a_check_that_cannot_run_is_skipped_not_failed():
    with pytest.raises(CheckSkipped, match="sequential"):
        CHECKS["pettingzoo_parallel"]("toy_coins", {})
    with pytest.raises(pytest.skip.Exception, match="sequential"):
        run_check("toy_coins", {}, "pettingzoo_parallel")
    with pytest.raises(ValueError, match="unknown check"):
        run_check("toy_coins", {}, "no_such_check")


def test_a_built_game_can_be_checked_too():
    game = broken.ToyCoins(num_players=3)
    testing.check_batch_invariance(game)
    with pytest.raises(AssertionError, match="observation changed"):
        testing.check_no_peeking(broken.BrokenLeaky(num_players=3))
