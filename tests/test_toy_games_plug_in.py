"""A game from outside the package plugs into everything with no edit outside its own files.

The toy games ``toy_games.dice`` (sequential, "Toy Pig") and ``toy_games.bidding`` (simultaneous)
live only in ``tests/toy_games/``; importing one registers it (``register_game``) and its heuristic
agent (``register_agent``). Nothing in ``monkey_envs``, ``agents``, ``training`` or ``benchmarks``
names them, yet they get every face (PettingZoo AEC through the generated versioned module and the
registry, gymnasium single and vector, the SB3 VecEnv, both ``check_env``), the conformance suite,
recorded playthroughs, and -- in subprocesses that only pass ``--import toy_games.dice`` -- the arena,
``training.run`` from a config and the two benchmarks.

Like ``tests/test_parallel.py``, this module keeps the toys out of the game registry outside its
own tests: ``tests/test_playthroughs.py`` wants a committed recording of every registered game.
Once its parameters are built it also forgets the toy modules it was first to import (``sys.modules``),
so another module's ``import toy_games.<x>`` registers the toy again whichever module pytest collects
first, while a toy module that another test module holds is never loaded again (its classes stay the live ones).
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pettingzoo
import pytest

import monkey_envs
from monkey_envs.core import playthrough as pt
from monkey_envs.core.registry import temporary_games
from monkey_envs.games import GAMES, game_class, register_game

ROOT = Path(__file__).resolve().parents[1]
#: toy name -> (its rules, ``"module:Class"``, and its heuristic agent)
TOYS: dict[str, tuple[str, str]] = {
    "toy_dice": ("toy_games.dice:ToyDice", "hold20"),
    "toy_bidding": ("toy_games.bidding:ToyBidding", "half"),
}
try:  # the conformance suite (monkey_envs.core.testing), when the checkout has it
    from monkey_envs.core.testing import conformance_params, run_check
except ImportError:  # pragma: no cover - the suite is young
    conformance_params = run_check = None  # type: ignore[assignment]
#: Run by name below (check_env with default arguments, playthroughs from a fresh recording).
_BY_NAME = ("gymnasium_check_env", "sb3_check_env", "playthroughs")

_IMPORTED = {name: path.partition(":")[0] in sys.modules for name, (path, _) in TOYS.items()}
with temporary_games():  # the parameters are built with the toys registered; then the registry is restored
    for _name, (_path, _) in TOYS.items():
        importlib.import_module(_path.partition(":")[0])  # registers the game, its env ids and its agent ...
        register_game(_name, _path)  # ... or, imported already by another test module that undid it, again
    CONFORMANCE = conformance_params(games=list(TOYS), exclude=_BY_NAME) if conformance_params else []

for _name, (_path, _) in TOYS.items():  # a toy module first imported here is forgotten, so that another
    if _name not in GAMES and not _IMPORTED[_name]:  # test module's import registers it
        sys.modules.pop(_path.partition(":")[0], None)


@pytest.fixture(scope="module", autouse=True)
def _toys_registered():
    """Keep the toy games in the game registry for this module's tests only."""
    with temporary_games():
        for name, (path, _) in TOYS.items():
            register_game(name, path)  # idempotent: the env ids are registered already
        yield


def _gym_id(name: str) -> str:
    spec = game_class(name).spec
    return f"monkey_envs/{spec.gym_name}-v{spec.version}"


def _legal(mask: Any, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(np.asarray(mask))))


# ------------------------------------------------------------------ every face
@pytest.mark.parametrize("name", list(TOYS))
def test_aec_faces_play_whole_games(name: str) -> None:
    """``monkey_envs.<name>_v0.env()`` (a generated module) and ``pettingzoo.make`` play to the end."""
    spec = game_class(name).spec
    module = getattr(monkey_envs, f"{spec.name}_v{spec.version}")
    assert module.__name__ == f"monkey_envs.{name}_v0" and sys.modules[module.__name__] is module
    rng = np.random.default_rng(0)
    for env in (module.env(), pettingzoo.make("aec", f"monkey_envs/{name}-v{spec.version}")):
        for seed in range(3):
            env.reset(seed=seed)
            returns = dict.fromkeys(env.agents, 0.0)
            for agent in env.agent_iter(5000):
                obs, reward, term, trunc, info = env.last()
                returns[agent] += reward
                env.step(None if term or trunc else _legal(obs["action_mask"], rng))
            assert env.agents == []
            assert spec.end_reason_name(info["end_reason"]) in spec.end_reasons[1:]
            assert sorted(set(returns.values())) in ([-1.0, 1.0], [0.0], [-1.0, 0.0])


@pytest.mark.parametrize("name", list(TOYS))
def test_gymnasium_single_env_against_the_toys_agent(name: str) -> None:
    """The registered gymnasium id plays episodes against the toy's own heuristic."""
    spec = game_class(name).spec
    env = gymnasium.make(_gym_id(name), opponent=TOYS[name][1], illegal_action="raise")
    rng = np.random.default_rng(1)
    for seed in range(4):
        obs, info = env.reset(seed=seed)
        done, ret = False, 0.0
        while not done:
            assert env.observation_space.contains(obs)
            obs, r, term, trunc, info = env.step(_legal(info["action_mask"], rng))
            ret, done = ret + r, term or trunc
        assert spec.reward_range[0] <= ret <= spec.reward_range[1]
        assert spec.end_reason_name(info["end_reason"]) in spec.end_reasons[1:]
    env.close()


@pytest.mark.parametrize("name", list(TOYS))
def test_gymnasium_vector_and_sb3_vecenv(name: str) -> None:
    """``gymnasium.make_vec`` (native vector entry point) and SB3's ``MonkeyVecEnv`` run with autoresets."""
    from monkey_envs.core.gym_vector import GameVectorEnv
    from monkey_envs.core.sb3_vec import MonkeyVecEnv

    opponent, rng, n = TOYS[name][1], np.random.default_rng(2), 4
    vec = gymnasium.make_vec(_gym_id(name), num_envs=n, vectorization_mode="vector_entry_point", opponent=opponent)
    assert isinstance(vec, GameVectorEnv)
    obs, info = vec.reset(seed=0)
    ended = 0
    for _ in range(150):
        assert obs.shape == (n, vec.single_observation_space.shape[0])
        obs, _, term, trunc, info = vec.step(np.array([_legal(m, rng) for m in info["action_mask"]]))
        ended += int((term | trunc).sum())
    assert ended > 0
    vec.close()

    sb3 = MonkeyVecEnv(name, num_envs=n, opponent=opponent, seed=0)
    sb3.reset()
    ended = 0
    for _ in range(150):
        _, _, dones, infos = sb3.step(np.array([_legal(m, rng) for m in sb3.action_masks()]))
        ended += int(dones.sum())
        assert all("terminal_observation" in infos[i] for i in np.flatnonzero(dones))
    assert ended > 0
    sb3.close()


@pytest.mark.parametrize("name", list(TOYS))
def test_check_env_with_default_arguments(name: str) -> None:
    """gymnasium's and SB3's ``check_env`` accept ``gymnasium.make(<id>)`` with no arguments."""
    from gymnasium.utils.env_checker import check_env as gym_check
    from stable_baselines3.common.env_checker import check_env as sb3_check

    gym_check(gymnasium.make(_gym_id(name)).unwrapped)
    sb3_check(gymnasium.make(_gym_id(name)).unwrapped, warn=True)


# ------------------------------------------------------------------ the shared test kit
@pytest.mark.parametrize("name", list(TOYS))
def test_playthroughs_record_and_replay(name: str, tmp_path: Path) -> None:
    """A playthrough of each test configuration records, re-records identically, and satisfies the suite."""
    for i, cfg in enumerate(game_class(name).test_configs):
        path = tmp_path / f"{name}__{i}.txt"
        path.write_text(pt.record(name, cfg, [0, 1]), encoding="utf-8", newline="\n")
        pt.check(path)
    if run_check is not None:
        run_check(name, {}, "playthroughs", directory=tmp_path)


@pytest.mark.skipif(not CONFORMANCE, reason="monkey_envs.core.testing (the conformance suite) is not there")
@pytest.mark.parametrize(("game", "config", "check"), CONFORMANCE or [("-", {}, "-")])
def test_conformance(game: str, config: dict, check: str) -> None:
    """Every check of the conformance suite on every test configuration of both toys."""
    run_check(game, config, check)


# ------------------------------------------------------------------ the tools, by --import only
def _run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run a command of this checkout in a fresh interpreter that finds the toys (``PYTHONPATH=tests``)."""
    path = os.pathsep.join([str(ROOT / "tests"), str(ROOT), os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, PYTHONPATH=path, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", MPLBACKEND="Agg")
    res = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert res.returncode == 0, f"{args} exited {res.returncode}\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    return res


def test_arena_runs_the_toy_with_its_analytics(tmp_path: Path) -> None:
    """``agents.arena --import toy_games.dice`` plays random vs hold20 and reports the game's risk analytics."""
    out = tmp_path / "arena"
    args = ("--game", "toy_dice", "--agents", "random", "hold20", "--games", "40", "--out", str(out))
    res = _run("-m", "agents.arena", "--import", "toy_games.dice", *args)
    report = json.loads((out / "arena.json").read_text(encoding="utf-8"))
    assert report["num_games"] >= 40 and report["truncated"] == 0
    assert report["analytics_title"] == "Risk analytics" and "risk analytics" in res.stdout
    for agent in ("random", "hold20"):
        stats = report["analytics"][agent]
        assert stats["turns"] > 0 and 0.0 <= stats["bust_rate"] <= 1.0 and stats["rolls_per_turn"] >= 1.0
    assert report["analytics"]["hold20"]["rolls_per_turn"] > report["analytics"]["random"]["rolls_per_turn"]
    assert set(report["end_reasons"]) <= {"reached_target", "turn_cap"}


def test_arena_runs_the_simultaneous_toy(tmp_path: Path) -> None:
    """``agents.arena --import toy_games.bidding`` plays the simultaneous toy (commits one seat after another)."""
    out = tmp_path / "arena"
    args = ("--game", "toy_bidding", "--agents", "random", "half", "--games", "40", "--out", str(out))
    _run("-m", "agents.arena", "--import", "toy_games.bidding", *args)
    report = json.loads((out / "arena.json").read_text(encoding="utf-8"))
    assert report["num_games"] >= 40 and report["truncated"] == 0
    assert {a["name"] for a in report["agents"]} == {"random", "half"}


@pytest.mark.parametrize(
    ("config", "game", "agent"), [("dice", "toy_dice", "hold20"), ("bidding", "toy_bidding", "half")]
)
def test_training_run_from_the_toy_config(config: str, game: str, agent: str, tmp_path: Path) -> None:
    """``training.run --config tests/toy_games/<toy>_smoke.yaml`` trains, evaluates and writes eval.json."""
    _run("-m", "training.run", "--config", f"tests/toy_games/{config}_smoke.yaml", "--set", f"runs_dir={tmp_path}")
    (run,) = tmp_path.iterdir()
    assert run.name.startswith(f"{game}__")
    evaluation = json.loads((run / "eval.json").read_text(encoding="utf-8"))
    text = json.dumps(evaluation)
    assert agent in text and "random" in text
    assert (run / "model.zip").is_file()


def game_class_title(name: str) -> str:
    return game_class(name).spec.title


def test_benchmarks_take_the_toy_by_import() -> None:
    """Both benchmarks run on the toy with ``--import`` (throughput names it by its title)."""
    thr = _run(
        "benchmarks/throughput.py",
        *("--import", "toy_games.dice", "--games", "toy_dice", "--seconds", "0.2", "--batch-sizes", "1", "64"),
    )
    assert "Toy Pig core" in thr.stdout and "Toy Pig AEC (toy_dice_v0)" in thr.stdout
    speed = _run(
        "benchmarks/arena_speed.py",
        *("--import", "toy_games.dice", "--cases", "toy_dice_2p", "--games", "20", "--single-games", "4"),
    )
    assert "toy_dice 2p: hold20 random" in speed.stdout
    thr = _run(
        "benchmarks/throughput.py",
        *("--import", "toy_games.bidding", "--games", "toy_bidding", "--seconds", "0.2", "--batch-sizes", "1", "64"),
    )
    title = game_class_title("toy_bidding")
    assert f"{title} core" in thr.stdout and f"{title} AEC (toy_bidding_v0)" in thr.stdout


def test_a_failed_re_registration_keeps_the_game_that_was_registered(monkeypatch):
    """``register_game`` of a registered name whose class cannot be loaded raises and leaves the entry.

    The rollback of a failed registration used to delete the name even when it was registered
    before the call, so one failed re-import took a working game out of the registry.
    """
    import monkey_envs.core.registry as registry  # the registry's mechanism (monkey_envs.games re-exports it)

    name = "toy_dice"
    path = GAMES[name]

    def broken(_name):
        raise ImportError("simulated failure while importing the rules module")

    monkeypatch.setattr(registry, "game_class", broken)
    with pytest.raises(ImportError, match="simulated"):
        register_game(name, path)
    assert GAMES[name] == path
    monkeypatch.undo()
    assert game_class(name).spec.name == name


def test_temporary_games_restores_the_registry_even_after_an_error():
    """``temporary_games`` undoes what a block did to the registry: entries, order and paths."""
    before = list(GAMES.items())
    with pytest.raises(RuntimeError, match="inside"), temporary_games() as games:
        assert games is GAMES
        path = GAMES.pop("toy_dice")
        GAMES["toy_dice"] = path  # moved to the end
        GAMES["not_a_game"] = "nowhere:Nothing"
        raise RuntimeError("inside the block")
    assert list(GAMES.items()) == before
