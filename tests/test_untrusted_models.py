"""Untrusted model files: loading runs no code from them, damaged files are clear ``ValueError``s.

A crafted SB3 zip whose pickled ``data`` entry creates a marker file when unpickled is loaded
through every path that takes a ``ppo:`` name (``make_agent``, the arena CLI, ``training.run``
with and without ``--dry-run``): the marker never appears. ``ppo+pickle:`` (explicit trust) does
unpickle it -- the marker appears -- which shows the payload is live and the tests can fail.
The safe form (``.safetensors`` + ``.json``) gives the same actions as the pickled zip; each way
of damaging it is refused with a message naming the problem. ``training.run`` writes the safe
form for the final model, checkpoints and self-play snapshots, and stops a diverged run.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import pickle
import shutil
import struct
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

import agents.policy as policy_mod  # noqa: E402 (after the skips)
from agents import make_agent  # noqa: E402
from agents.policy import load_policy_agent, save_policy  # noqa: E402
from monkey_envs.games import make_game  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: The base values (plain PPO), not the embedded default run (rollout_q pretraining, scorer head).
PLAIN_PPO = ROOT / "configs" / "monkey_fun_2p_plain_ppo.yaml"


class _Payload:
    """Unpickling this calls ``open(marker, "w")``: it creates the marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        return (open, (self.marker, "w"))


def craft_pickle_zip(path: Path, marker: Path) -> Path:
    """An SB3-style zip whose ``data`` JSON holds a cloudpickled payload (as SB3 stores classes)."""
    blob = base64.b64encode(pickle.dumps(_Payload(marker))).decode()
    data = {"policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": blob}}
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps(data))
        z.writestr("_stable_baselines3_version", "2.4.0")
    return path


def _positions(game: Any, rows: int = 64, steps: int = 6) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(obs, mask)`` of ``rows`` games after 0, 1, .. ``steps - 1`` random moves."""
    rng = np.random.default_rng(0)
    state = game.init(np.arange(rows))
    out = []
    for _ in range(steps):
        live = state.current_player >= 0
        out.append((game.observe(state, np.maximum(state.current_player, 0))[live], state.legal_action_mask[live]))
        mask = state.legal_action_mask
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        state = game.step(state, acts)
    return out


def _train_tiny(features: str = "mlp", head: str = "linear") -> tuple[Any, Any]:
    from training.config import load_config
    from training.run import build_env, build_model

    cfg = load_config(
        None,
        [
            "env.num_envs=4",
            "ppo.n_steps=8",
            "ppo.batch_size=32",
            "ppo.net_arch=[16]",
            f"ppo.features={features}",
            f"ppo.head={head}",
            "ppo.board_channels=4",
        ],
    )
    venv = build_env(cfg)
    model = build_model(cfg, venv)
    model.learn(64)
    game = venv.venv.game
    venv.close()
    return model, game


@pytest.fixture(scope="module")
def game() -> Any:
    return make_game("monkey_fun", num_players=2)


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a small trained model saved both ways (model.zip + model.safetensors/json)."""
    torch.set_num_threads(1)
    model, game = _train_tiny()
    folder = tmp_path_factory.mktemp("tiny")
    save_policy(model, folder / "model.zip", game)
    return folder


def _copy(saved: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "copy"
    shutil.copytree(saved, folder)
    return folder


# ====================================================================== no code runs from a file
def test_ppo_name_refuses_a_pickled_zip_and_runs_none_of_it(tmp_path, game):
    marker = tmp_path / "PWNED"
    evil = craft_pickle_zip(tmp_path / "evil" / "model.zip", marker)
    with pytest.raises(
        ValueError, match=r"is a pickled SB3 zip without the safe files model\.json / model\.safetensors"
    ):
        make_agent(f"ppo:{evil}", game)
    with pytest.raises(ValueError, match=rf"python -m agents\.policy convert {evil}"):
        load_policy_agent(evil, game)
    with pytest.raises(ValueError, match="pickled SB3 zip"):
        make_agent(f"ppo:{evil.parent}", game)  # the folder
    assert not marker.exists()


def test_ppo_pickle_name_does_unpickle_which_shows_the_payload_is_live(tmp_path, game):
    marker = tmp_path / "PWNED"
    evil = craft_pickle_zip(tmp_path / "evil.zip", marker)
    with pytest.raises(Exception):  # noqa: B017 (the crafted zip is no model: loading fails after the payload ran)
        make_agent(f"ppo+pickle:{evil}", game)
    assert marker.exists(), "the payload did not run: the refusal tests above would prove nothing"
    marker.unlink()
    with pytest.raises(Exception):  # noqa: B017
        load_policy_agent(evil, game, trusted=True)
    assert marker.exists()


def test_safe_files_next_to_a_malicious_zip_are_what_ppo_loads(tmp_path, saved, game):
    folder = _copy(saved, tmp_path)
    marker = tmp_path / "PWNED"
    craft_pickle_zip(folder / "model.zip", marker)
    agent = make_agent(f"ppo:{folder / 'model.zip'}", game)
    obs, mask = _positions(game)[2]
    assert mask[np.arange(len(obs)), agent.act(obs, mask)].all()
    assert not marker.exists()


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}


def test_arena_cli_refuses_a_pickled_zip_without_running_it(tmp_path):
    marker = tmp_path / "PWNED"
    evil = craft_pickle_zip(tmp_path / "evil.zip", marker)
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "agents.arena", "--game", "monkey_fun", "--agents", "random", f"ppo:{evil}"),
            *("--games", "8", "--out", str(tmp_path / "arena")),
        ],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "pickled SB3 zip without the safe files" in proc.stderr and "agents.policy convert" in proc.stderr
    assert not marker.exists() and not (tmp_path / "arena").exists()


def test_training_run_dry_run_loads_no_model(tmp_path, capsys):
    """``--dry-run`` checks that named model files exist and reads none: a pickled zip named as
    ``ppo:`` is reported (exit 2), named as ``ppo+pickle:`` accepted (exit 0) -- and never unpickled."""
    from training.run import main

    marker = tmp_path / "PWNED"
    evil = craft_pickle_zip(tmp_path / "evil.zip", marker)
    runs = tmp_path / "runs"
    common = ["--set", f"runs_dir={runs}", "--dry-run"]
    assert main(["--set", f"eval.opponents=[random, ppo:{evil}]", *common]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: eval.opponents: 'ppo:") and "pickled SB3 zip without the safe files" in err
    trusted = ["--set", f"env.opponent=ppo+pickle:{evil}", "--set", f"pretrain.teacher=ppo+pickle:{evil}"]
    assert main([*trusted, *common]) == 0
    assert f"ppo+pickle:{evil}" in capsys.readouterr().out
    assert not marker.exists() and not runs.exists()
    # a ppo+pickle: name cannot be an evaluation opponent ('+' joins line-ups): said plainly
    assert main(["--set", f"eval.opponents=[ppo+pickle:{evil}]", *common]) == 2
    assert "so a ppo+pickle: model cannot be an evaluation opponent" in capsys.readouterr().err
    assert not marker.exists()


def test_training_run_refuses_a_pickled_opponent_before_writing_anything(tmp_path, capsys):
    from training.run import main

    marker = tmp_path / "PWNED"
    evil = craft_pickle_zip(tmp_path / "evil.zip", marker)
    runs = tmp_path / "runs"
    assert main(["--set", f"env.opponent=ppo:{evil}", "--set", f"runs_dir={runs}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: env.opponent: agent ") and "pickled SB3 zip without the safe files" in err
    assert not marker.exists() and not runs.exists()
    # a missing model is a missing model, also in a dry run
    assert main(["--set", f"env.opponent=ppo:{tmp_path / 'nowhere.zip'}", "--dry-run"]) == 2
    assert "error: env.opponent: agent " in capsys.readouterr().err


# ====================================================================== same policy, safe or pickled
@pytest.mark.parametrize(("features", "head"), [("mlp", "linear"), ("greedy", "scorer")])
def test_safe_and_pickled_forms_act_identically(tmp_path, features, head):
    torch.set_num_threads(1)
    model, game = _train_tiny(features, head)
    path = save_policy(model, tmp_path / "run" / "model.zip", game)
    safe = make_agent(f"ppo:{path}", game)
    pickled = make_agent(f"ppo+pickle:{path}", game)
    assert isinstance(safe.model, policy_mod.LoadedPolicy) and not isinstance(pickled.model, policy_mod.LoadedPolicy)
    for other in (f"ppo:{path.parent}", f"ppo:{path.with_suffix('.safetensors')}", f"ppo:{path.with_suffix('.json')}"):
        assert isinstance(make_agent(other, game).model, policy_mod.LoadedPolicy)
    before = torch.get_rng_state()
    loaded_without_game = load_policy_agent(path.parent)  # the game comes from model.json
    assert torch.equal(before, torch.get_rng_state()), "loading moved torch's global generator"
    for obs, mask in _positions(game):
        a = safe.act(obs, mask)
        np.testing.assert_array_equal(a, pickled.act(obs, mask))
        np.testing.assert_array_equal(a, loaded_without_game.act(obs, mask))
    for name, t in model.policy.state_dict().items():
        assert torch.equal(safe.model.policy.state_dict()[name], t), name


def test_convert_writes_the_safe_files_of_a_trusted_zip(tmp_path, capsys):
    torch.set_num_threads(1)
    game = make_game("funky_monkey", num_players=3)
    from sb3_contrib import MaskablePPO

    from monkey_envs.core.sb3_vec import MonkeyVecEnv

    venv = MonkeyVecEnv(game, num_envs=4, opponent="random", seed=0, learner_actions="honest")
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=32, n_epochs=1, policy_kwargs={"net_arch": [8]})
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "config.yaml").write_text(
        "env:\n  game: funky_monkey\n  game_options: {num_players: 3}\n  learner_actions: honest\n"
    )
    model.save(run / "checkpoints" / "model_8_steps.zip")  # an old run: the zip alone
    zip_path = run / "checkpoints" / "model_8_steps.zip"
    with pytest.raises(ValueError, match="convert"):
        make_agent(f"ppo:{zip_path}", game)
    assert policy_mod.main(["convert", str(zip_path)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert {p.name for p in (run / "checkpoints").iterdir()} == {
        "model_8_steps.zip",
        "model_8_steps.safetensors",
        "model_8_steps.json",
    }
    safe = make_agent(f"ppo:{zip_path}", game)
    np.testing.assert_array_equal(safe.allowed_actions, game.action_filter("honest"))  # the run's restriction
    pickled = make_agent(f"ppo+pickle:{zip_path}", game)
    for obs, mask in _positions(game, rows=32, steps=4):
        np.testing.assert_array_equal(safe.act(obs, mask), pickled.act(obs, mask))
    assert policy_mod.main(["convert", str(tmp_path / "none.zip")]) == 2
    assert "error: no SB3 zip at" in capsys.readouterr().err


# ====================================================================== damaged safe files
def _rewrite_weights(folder: Path, change: Any) -> None:
    """Apply ``change(arrays)`` to the weights and record the new file's hash (a consistent forgery)."""
    arrays = {k: v.copy() for k, v in policy_mod.read_safetensors(folder / "model.safetensors").items()}
    change(arrays)
    digest = policy_mod.write_safetensors(arrays, folder / "model.safetensors")
    _edit_json(folder, lambda d: d.update(weights_sha256=digest))


def _edit_json(folder: Path, change: Any) -> None:
    d = json.loads((folder / "model.json").read_text())
    change(d)
    (folder / "model.json").write_text(json.dumps(d))


def _flip_bit(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0x10
    path.write_bytes(bytes(data))


def _first(arrays: dict[str, np.ndarray]) -> str:
    return next(k for k in arrays if k.endswith("weight"))


DAMAGE = {
    "truncated weights": (
        lambda f: (f / "model.safetensors").write_bytes((f / "model.safetensors").read_bytes()[:-100]),
        r"model\.safetensors: SHA-256 differs from the one its description records: the weights file is damaged",
    ),
    "bit flip in the weights": (
        lambda f: _flip_bit(f / "model.safetensors", -7),
        r"model\.safetensors: SHA-256 differs",
    ),
    "bit flip in the weights header": (lambda f: _flip_bit(f / "model.safetensors", 12), r"SHA-256 differs"),
    "weights file missing": (lambda f: (f / "model.safetensors").unlink(), r"model\.safetensors: cannot read"),
    "wrong shapes": (
        lambda f: _rewrite_weights(f, lambda a: a.update({_first(a): np.zeros((3, 3), np.float32)})),
        r"tensor '[\w.]+weight' has shape \(3, 3\), the network .*model\.json describes needs \(\d+, \d+\)",
    ),
    "a missing tensor": (
        lambda f: _rewrite_weights(f, lambda a: a.pop(_first(a))),
        r"does not fit the network .* describes: missing \['[\w.]+'\], unexpected \[\]",
    ),
    "an extra tensor": (
        lambda f: _rewrite_weights(f, lambda a: a.update(extra=np.zeros(2, np.float32))),
        r"missing \[\], unexpected \['extra'\]",
    ),
    "NaN weights": (
        lambda f: _rewrite_weights(f, lambda a: a[_first(a)].__setitem__((0, 0), np.nan)),
        r"tensor '[\w.]+' holds NaN or infinite values",
    ),
    "another dtype": (
        lambda f: _rewrite_weights(f, lambda a: a.update({_first(a): a[_first(a)].astype(np.float64)})),
        r"tensor '[\w.]+' is torch\.float64, the network needs torch\.float32",
    ),
    "bad header offsets": (
        lambda f: _forge_header(f, lambda h: h[next(iter(h))].update(data_offsets=[0, 10**12])),
        r"not a valid safetensors file",
    ),
    "header not JSON": (lambda f: _forge_header(f, None), r"not a valid safetensors file .*invalid JSON"),
    "JSON syntax": (lambda f: (f / "model.json").write_text('{"format": '), r"model\.json is not valid JSON"),
    "JSON not an object": (lambda f: (f / "model.json").write_text("[1, 2]"), r"must hold a JSON object, got list"),
    "JSON duplicate key": (
        lambda f: (f / "model.json").write_text('{"game": "monkey_fun", "game": "x"}'),
        r"not valid JSON: duplicate key 'game'",
    ),
    "JSON NaN": (
        lambda f: (f / "model.json").write_text(
            (f / "model.json").read_text().replace('"obs_dim": 752', '"obs_dim": NaN')
        ),
        r"not valid JSON: NaN is not allowed",
    ),
    "JSON deeply nested": (lambda f: (f / "model.json").write_text("[" * 100_000), r"not valid JSON"),
    "JSON too large": (lambda f: (f / "model.json").write_text(" " * (2 << 20)), r"more than a description may hold"),
    "unknown game": (lambda f: _edit_json(f, lambda d: d.update(game="chess")), r"the model plays 'chess', not"),
    "unknown features": (
        lambda f: _edit_json(f, lambda d: d.update(features="transformer")),
        r"'monkey_fun' has no features 'transformer'",
    ),
    "unknown key": (lambda f: _edit_json(f, lambda d: d.update(code="os.system")), r"unknown key\(s\) \['code'\]"),
    "missing key": (lambda f: _edit_json(f, lambda d: d.pop("head")), r"missing key\(s\) \['head'\]"),
    "another format": (
        lambda f: _edit_json(f, lambda d: d.update(version=99)),
        r"is not 'monkey-envs-policy' version 1",
    ),
    "weights outside the folder": (
        lambda f: _edit_json(f, lambda d: d.update(weights="../other.safetensors")),
        r"'weights' must be a \.safetensors file name in the same folder, got '\.\./other\.safetensors'",
    ),
    "huge network": (
        lambda f: _edit_json(f, lambda d: d.update(net_arch=[4096] * 16)),
        r"holds fewer weights than the network .* describes",
    ),
    "too many layers": (
        lambda f: _edit_json(f, lambda d: d.update(net_arch=[8] * 17)),
        r"'net_arch' must be a list of at most 16 sizes in \[1, 4096\], got \[8, 8,",
    ),
    "bool for an integer": (
        lambda f: _edit_json(f, lambda d: d.update(obs_dim=True)),
        r"'obs_dim' must be an integer in \[1, 16777216\], got True",
    ),
    "other sizes": (
        lambda f: _edit_json(f, lambda d: d.update(obs_dim=751)),
        r"model observations have shape \(751,\), but .* observations have \(752,\)",
    ),
    "unknown activation": (
        lambda f: _edit_json(f, lambda d: d.update(activation="gelu")),
        r"'activation' must be one of \('tanh', 'relu'\), got 'gelu'",
    ),
    "unknown filter": (
        lambda f: _edit_json(f, lambda d: d.update(learner_actions="honest")),
        r"'learner_actions': monkey_fun has no action filter 'honest'",
    ),
    "long value": (
        lambda f: _edit_json(f, lambda d: d.update(head="x" * 100_000)),
        r"'head' must be one of \[.*\], got 'xxxx+\.\.\.$",
    ),
}


def _forge_header(folder: Path, change: Any) -> None:
    data = (folder / "model.safetensors").read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    if change is None:
        head = b"{" + b" " * (n - 1)
    else:
        header = json.loads(data[8 : 8 + n])
        change(header)
        head = json.dumps(header).encode()
    forged = struct.pack("<Q", len(head)) + head + data[8 + n :]
    (folder / "model.safetensors").write_bytes(forged)
    _edit_json(folder, lambda d: d.update(weights_sha256=hashlib.sha256(forged).hexdigest()))


@pytest.mark.parametrize("damage", list(DAMAGE), ids=list(DAMAGE))
def test_a_damaged_safe_file_is_a_clear_value_error(tmp_path, saved, game, damage):
    folder = _copy(saved, tmp_path)
    (folder / "model.zip").unlink()  # no fallback to anything else
    spoil, message = DAMAGE[damage]
    spoil(folder)
    with pytest.raises(ValueError, match=message) as info:
        make_agent(f"ppo:{folder / 'model.zip'}", game)
    assert len(str(info.value)) < 600, "messages stay short"


def test_a_description_naming_an_unknown_game_fails_without_a_game_given(tmp_path, saved):
    folder = _copy(saved, tmp_path)
    _edit_json(folder, lambda d: d.update(game="chess"))
    with pytest.raises(ValueError, match=r"cannot build game 'chess': unknown game 'chess'"):
        load_policy_agent(folder)
    _edit_json(folder, lambda d: d.update(game="monkey_fun", game_options={"num_players": 99}))
    with pytest.raises(ValueError, match=r"cannot build game 'monkey_fun': .*num_players"):
        load_policy_agent(folder)


def test_paths_of_other_kinds_are_refused(tmp_path, game):
    (tmp_path / "model.pt").write_bytes(b"x")
    with pytest.raises(ValueError, match=r"is not a saved policy: expected a \.zip, \.safetensors or \.json"):
        make_agent(f"ppo:{tmp_path / 'model.pt'}", game)
    with pytest.raises(ValueError, match="no saved model at"):
        make_agent(f"ppo:{tmp_path / 'none.zip'}", game)


# ====================================================================== training.run writes the safe form
def _tiny_run_args(runs: Path) -> list[str]:
    return [
        "--config",  # plain PPO (the base values), not the embedded default's rollout_q pretraining
        str(ROOT / "configs" / "monkey_fun_2p_plain_ppo.yaml"),
        "--set",
        f"runs_dir={runs}",
        "--set",
        "total_timesteps=256",
        "--set",
        "env.num_envs=8",
        "--set",
        "ppo.n_steps=16",
        "--set",
        "ppo.batch_size=64",
        "--set",
        "ppo.n_epochs=1",
        "--set",
        "ppo.net_arch=[16]",
        "--set",
        "ppo.features=mlp",
        "--set",
        "checkpoint_every=128",
        "--set",
        "eval.num_games=0",
        "--set",
        "eval.curve_every=0",
        "--set",
        "tensorboard=false",
        "--set",
        "progress_bar=false",
    ]


def test_training_run_writes_safe_files_for_the_model_checkpoints_and_snapshots(tmp_path, game):
    from training.run import main

    runs = tmp_path / "runs"
    args = [*_tiny_run_args(runs), "--set", "selfplay.enabled=true", "--set", "selfplay.snapshot_every=128"]
    assert main(args) == 0
    (run,) = runs.iterdir()
    zips = [run / "model.zip", *sorted((run / "checkpoints").glob("*.zip")), *sorted((run / "snapshots").glob("*.zip"))]
    assert len(zips) == 1 + 2 + 3, zips  # final model, checkpoints at 128 and 256, snapshots at 0, 128, 256
    for z in zips:
        assert z.with_suffix(".safetensors").is_file() and z.with_suffix(".json").is_file(), z
        agent = make_agent(f"ppo:{z}", game)
        assert isinstance(agent.model, policy_mod.LoadedPolicy)
    obs, mask = _positions(game)[1]
    np.testing.assert_array_equal(
        make_agent(f"ppo:{run}", game).act(obs, mask), make_agent(f"ppo+pickle:{run}", game).act(obs, mask)
    )
    assert json.loads((run / "model.json").read_text())["timesteps"] == 256


def test_a_run_whose_parameters_turn_nan_stops_with_a_clear_error_and_keeps_its_checkpoints(
    tmp_path, capsys, monkeypatch
):
    """Poison one weight after the second rollout: the run stops, exit 2, no final model, the
    checkpoint of the healthy network stays."""
    from stable_baselines3.common.callbacks import BaseCallback

    import training.run as run_mod

    class Poison(BaseCallback):
        def _on_step(self) -> bool:
            return True

        def _on_rollout_end(self) -> None:
            if self.num_timesteps >= 256:
                with torch.no_grad():
                    next(self.model.policy.parameters())[0, 0] = float("nan")

    monkeypatch.setattr(run_mod, "win_rate_callback", Poison)
    runs = tmp_path / "runs"
    args = _tiny_run_args(runs)
    args[args.index("total_timesteps=256")] = "total_timesteps=512"
    assert run_mod.main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: training diverged: policy parameter '"), err
    assert "NaN" in err
    (run,) = runs.iterdir()
    assert not (run / "model.zip").exists() and not (run / "model.json").exists()
    assert (run / "checkpoints" / "model_128_steps.zip").is_file()
    ckpt = make_agent(f"ppo:{run / 'checkpoints' / 'model_128_steps.zip'}", make_game("monkey_fun", num_players=2))
    assert all(bool(torch.isfinite(p).all()) for p in ckpt.model.policy.parameters())


def test_a_nan_loss_is_named(saved):
    """The check reads the logged ``train/`` values too (a NaN loss with finite parameters)."""
    from training.run import non_finite

    class Model:
        def __init__(self, policy: Any) -> None:
            self.policy = policy
            self.logger = type("L", (), {"name_to_value": {"train/loss": float("nan"), "rollout/x": 1.0}})()

    loaded = load_policy_agent(saved).model
    assert non_finite(Model(loaded.policy)) == "train/loss is nan"
    healthy = Model(loaded.policy)
    healthy.logger.name_to_value = {"train/loss": 0.5}
    assert non_finite(healthy) is None


def test_init_model_reads_weights_only_from_safe_files_or_a_zip_and_runs_no_pickle(tmp_path, saved):
    """``init_model`` takes the safe form (folder / .safetensors / .json) or an SB3 zip's tensors
    (weights-only); a crafted zip's pickled ``data`` is never unpickled, and a damaged or
    mismatching file is an ``init_model:`` error."""
    from training.config import ConfigError, load_config
    from training.run import build_env, build_model, load_initial_weights

    cfg = load_config(PLAIN_PPO, ["env.num_envs=4", "ppo.n_steps=8", "ppo.batch_size=32", "ppo.net_arch=[16]"])
    cfg.ppo.features = "mlp"
    venv = build_env(cfg)
    game = venv.venv.game
    reference = load_policy_agent(saved).model.policy.state_dict()
    for path in (saved, saved / "model.safetensors", saved / "model.json", saved / "model.zip"):
        fresh = build_model(cfg, venv)
        load_initial_weights(fresh, str(path), game)
        for name, t in fresh.policy.state_dict().items():
            assert torch.equal(t, reference[name]), (path, name)
    marker = tmp_path / "PWNED"
    evil = craft_pickle_zip(tmp_path / "evil.zip", marker)
    with pytest.raises(ConfigError, match=r"^init_model: '.*evil\.zip' does not fit the configured game and network"):
        load_initial_weights(build_model(cfg, venv), str(evil), game)
    assert not marker.exists()
    folder = _copy(saved, tmp_path)
    _flip_bit(folder / "model.safetensors", -3)
    with pytest.raises(ConfigError, match=r"^init_model: .* does not fit .*: .*SHA-256 differs"):
        load_initial_weights(build_model(cfg, venv), str(folder), game)
    other = load_config(PLAIN_PPO, ["env.num_envs=4", "ppo.n_steps=8", "ppo.batch_size=32", "ppo.net_arch=[32]"])
    other.ppo.features = "mlp"
    with pytest.raises(ConfigError, match=r"^init_model: .* does not fit .*: Error\(s\) in loading state_dict"):
        load_initial_weights(build_model(other, venv), str(saved), game)
    venv.close()
