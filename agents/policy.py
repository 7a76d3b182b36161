"""Trained policies as batched agents, saved and loaded without running code from the files.

``make_agent("ppo:runs/<run>/model.zip", game)`` loads a policy ``training.run`` saved and wraps
it::

    agent = make_agent("ppo:runs/monkey_fun__maskable_ppo__0__20250101-120000/model.zip", game)
    actions = agent.act(obs, mask)   # policy.predict(obs, action_masks=mask, deterministic=True)

**The safe form** (what ``ppo:PATH`` loads). Next to every SB3 ``model.zip`` (and every checkpoint
and self-play snapshot) ``training.run`` writes ``model.safetensors`` -- the policy's weights as
plain arrays in the `safetensors <https://github.com/huggingface/safetensors>`_ format (written and
read by the ``safetensors`` library: no pickle) -- and ``model.json``, which describes the network: the
game and its options, the observation and action sizes, the features extractor (a name of
:mod:`agents.registry`'s features registry), the head, ``net_arch``, the activation, the board
channels, ``env.learner_actions`` and the SHA-256 of the weights file. Loading rebuilds that
network with this project's own classes (the same ``policy_kwargs`` ``training.run.build_model``
uses) and copies the weights in (``load_state_dict(strict=True)``); nothing in either file is
ever executed or unpickled. ``PATH`` may name the ``.zip``, the ``.safetensors``, the ``.json``
or the run folder. A damaged or mismatching file (truncated, bit-flipped, wrong shapes, bad JSON,
an unknown game or features name) is a ``ValueError`` that says what is wrong.

**The pickle form.** An SB3 ``.zip`` holds cloudpickled Python objects: loading one can run any
code its author wanted. ``ppo+pickle:PATH`` (``trusted=True`` in :func:`load_policy_agent`) loads it
anyway -- only for files you trust. A zip without the safe files next to it is refused by
``ppo:PATH`` with a message naming the conversion command::

    python -m agents.policy convert runs/<run>/model.zip runs/<run>/checkpoints/*.zip

which loads each zip (trusting it, explicitly) and writes the safe files beside it.

An in-memory model can be wrapped directly with :class:`PolicyAgent` (as ``training.run``
does for its evaluation); :func:`save_policy` writes both forms of a model.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import re
import struct
import sys
from pathlib import Path
from typing import Any

import numpy as np

from agents.strict_yaml import cut, short

#: Prefix of agent names that load a saved policy from its safe files.
PPO_PREFIX = "ppo:"
#: Prefix of agent names that load a full SB3 zip, unpickling it (runs code from the file).
PICKLE_PREFIX = "ppo+pickle:"
#: ``format`` / ``version`` of the network description (``model.json``).
FORMAT = "monkey-envs-policy"
FORMAT_VERSION = 1
WEIGHTS_SUFFIX = ".safetensors"
DESCRIPTION_SUFFIX = ".json"
#: Hidden activations a description may name.
ACTIVATIONS = ("tanh", "relu")
#: Limits on what a description may ask the loader to build (the ranges of ``training.config``).
MAX_LAYERS = 16
MAX_WIDTH = 4096
MAX_CHANNELS = 1024
MAX_OBS_DIM = 1 << 24
MAX_ACTIONS = 1 << 20
#: Size limits of the files read.
MAX_DESCRIPTION_BYTES = 1 << 20
MAX_WEIGHTS_BYTES = 4 << 30
MAX_HEADER_BYTES = 16 << 20
_DESCRIPTION_KEYS = {
    "format": True,
    "version": True,
    "algo": True,
    "game": True,
    "game_options": True,
    "obs_dim": True,
    "num_actions": True,
    "features": True,
    "head": True,
    "net_arch": True,
    "activation": True,
    "board_channels": True,
    "learner_actions": True,
    "weights": True,
    "weights_sha256": True,
    "timesteps": False,
}


class PolicyAgent:
    """A MaskablePPO model acting on batches.

    Args:
        model: a ``sb3_contrib.MaskablePPO``, a :class:`LoadedPolicy` (or anything with the same
            ``predict`` and ``observation_space`` / ``action_space``).
        game: the game it plays (to check the observation and action sizes), or ``None``.
        deterministic: take the most likely legal action (``True``) or sample from the policy.
        name: display name.
        allowed_actions: ``(A,) bool`` actions the policy may take at all (a learner trained with
            ``learner_actions``, e.g. the honest-only ablation, keeps its restriction), or ``None``.

    Raises:
        ValueError: the model's observation or action space does not fit ``game``.
    """

    def __init__(
        self,
        model: Any,
        game: Any = None,
        deterministic: bool = True,
        name: str = "ppo",
        allowed_actions: np.ndarray | None = None,
    ) -> None:
        if game is not None:
            obs_shape = tuple(getattr(model.observation_space, "shape", ()) or ())
            n = getattr(model.action_space, "n", None)
            _check_sizes(obs_shape, n, game)
        self.model = model
        self.deterministic = bool(deterministic)
        self.name = name
        self.allowed_actions = None if allowed_actions is None else np.asarray(allowed_actions, dtype=bool)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``(B,) int64`` actions for ``obs (B, D) float32`` and ``mask (B, A)``.

        Rows without any legal action (finished games) get action 0.
        """
        obs = np.asarray(obs, dtype=np.float32)
        m = np.asarray(mask).astype(bool)
        if self.allowed_actions is not None:
            restricted = m & self.allowed_actions
            # a row whose legal moves are all outside the restriction keeps its legal moves
            m = np.where(restricted.any(1, keepdims=True), restricted, m)
        if obs.shape[0] == 0:
            return np.zeros(0, dtype=np.int64)
        empty = ~m.any(1)
        if empty.any():  # a distribution over no action is undefined: let such rows pick anything
            m = m.copy()
            m[empty] = True
        actions, _ = self.model.predict(obs, action_masks=m, deterministic=self.deterministic)
        out = np.asarray(actions, dtype=np.int64).reshape(obs.shape[0])
        out[empty] = 0
        return out


def _check_sizes(obs_shape: tuple[int, ...], num_actions: Any, game: Any) -> None:
    if obs_shape != (game.obs_dim,):
        raise ValueError(
            f"model observations have shape {obs_shape}, but {game!r} observations have ({game.obs_dim},) "
            "-- trained on a different game or configuration?"
        )
    if num_actions != game.num_actions:
        raise ValueError(f"model has {num_actions} actions, but {game!r} has {game.num_actions}")


class LoadedPolicy:
    """A policy network rebuilt from safe files, in eval mode: what a loaded ``ppo:`` agent plays.

    Attributes:
        policy: the SB3 ``MaskableActorCriticPolicy`` (gradients off).
        description: the validated ``model.json`` it was built from.
    """

    def __init__(self, policy: Any, description: dict[str, Any]) -> None:
        self.policy = policy
        self.description = description
        self.observation_space = policy.observation_space
        self.action_space = policy.action_space

    def predict(self, obs: np.ndarray, action_masks: np.ndarray | None = None, deterministic: bool = False) -> Any:
        """``(actions (B,) int64, None)`` for ``obs (B, D) float32`` and ``action_masks (B, A) bool``."""
        return self.policy.predict(obs, action_masks=action_masks, deterministic=deterministic)


# ====================================================================== network description
def policy_kwargs_for(
    features: str,
    net_arch: list[int] | dict[str, list[int]],
    activation: str,
    board_channels: int | None,
    game: Any,
    game_name: str | None = None,
    game_options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``policy_kwargs`` of a MaskablePPO network (``training.run.build_model`` and the loader).

    Args:
        features: a ``ppo.features`` name (``mlp``, ``auto`` or one ``game`` registers).
        net_arch: hidden sizes, shared by the policy and value networks, or ``{"pi": .., "vf": ..}``.
        activation: ``tanh`` or ``relu``.
        board_channels: ``channels`` of a registered extractor (``None``: the extractor's default).
        game: the game (the features registry checks it).
        game_name / game_options: what the extractor rebuilds the game from (default: ``game``'s).

    Raises:
        ValueError: an unknown activation or features name, or a game the extractor cannot serve.
    """
    import torch

    from agents.registry import features_class

    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {ACTIVATIONS}, got {short(activation)}")
    pi, vf = (net_arch["pi"], net_arch["vf"]) if isinstance(net_arch, dict) else (net_arch, net_arch)
    kwargs: dict[str, Any] = {
        "net_arch": {"pi": list(pi), "vf": list(vf)},
        "activation_fn": {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[activation],
    }
    extractor = features_class(features, game)
    if extractor is not None:
        kwargs["features_extractor_class"] = extractor
        extra: dict[str, Any] = {
            "game": game.spec.name if game_name is None else game_name,
            "game_options": dict(game.config if game_options is None else game_options),
        }
        if board_channels is not None:
            extra["channels"] = board_channels
        kwargs["features_extractor_kwargs"] = extra
    return kwargs


def _head_classes() -> dict[str, type]:
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from agents.networks import HEADS

    return {name: cls or MaskableActorCriticPolicy for name, cls in HEADS.items()}


def describe_policy(
    policy: Any,
    game: Any,
    learner_actions: str | None = None,
    timesteps: int | None = None,
) -> dict[str, Any]:
    """The ``model.json`` description of an SB3 MaskablePPO ``policy`` playing ``game``.

    Raises:
        ValueError: a network this project cannot rebuild (another policy class, activation or
            extractor, a separate value extractor), or sizes that do not fit ``game``.
    """
    from stable_baselines3.common.torch_layers import FlattenExtractor

    from agents.registry import GENERIC_FEATURES, features_class, features_names

    heads = [name for name, cls in _head_classes().items() if type(policy) is cls]
    if not heads:
        raise ValueError(f"cannot describe a {type(policy).__name__}: only the heads {sorted(_head_classes())}")
    if not getattr(policy, "share_features_extractor", True):
        raise ValueError("cannot describe a policy with separate policy and value features extractors")
    activation = {"Tanh": "tanh", "ReLU": "relu"}.get(getattr(policy.activation_fn, "__name__", ""))
    if activation is None:
        raise ValueError(f"cannot describe the activation {policy.activation_fn!r}; known: {ACTIVATIONS}")
    arch = policy.net_arch
    pi, vf = (arch.get("pi", []), arch.get("vf", [])) if isinstance(arch, dict) else (arch, arch)
    net_arch: Any = list(pi) if list(pi) == list(vf) else {"pi": list(pi), "vf": list(vf)}
    cls = policy.features_extractor_class
    kwargs = dict(policy.features_extractor_kwargs or {})
    channels = None
    if cls is FlattenExtractor:
        features = "mlp"
    else:
        features = ""
        for name in features_names(game):
            if name in GENERIC_FEATURES:
                continue
            try:
                if features_class(name, game) is cls:
                    features = name
                    break
            except ValueError:
                continue
        if not features:
            raise ValueError(f"features extractor {cls.__name__} is not registered for {game.spec.name!r}")
        if kwargs.get("game", game.spec.name) != game.spec.name or set(kwargs) - {"game", "game_options", "channels"}:
            raise ValueError(f"features extractor arguments {short(kwargs)} do not describe {game!r}")
        channels = kwargs.get("channels")
    _check_sizes(tuple(policy.observation_space.shape), getattr(policy.action_space, "n", None), game)
    out: dict[str, Any] = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "algo": "maskable_ppo",
        "game": game.spec.name,
        "game_options": dict(game.config),
        "obs_dim": int(game.obs_dim),
        "num_actions": int(game.num_actions),
        "features": features,
        "head": heads[0],
        "net_arch": net_arch,
        "activation": activation,
        "board_channels": channels,
        "learner_actions": learner_actions,
    }
    if timesteps is not None:
        out["timesteps"] = int(timesteps)
    return out


def safe_paths(path: str | Path) -> tuple[Path, Path]:
    """``(description, sb3 zip)`` paths of a saved policy named by ``path``.

    ``path`` may be the ``.zip``, the ``.safetensors``, the ``.json`` or a folder holding
    ``model.*``; the files need not exist.

    Raises:
        ValueError: a path of another kind.
    """
    p = Path(path)
    if p.is_dir():
        return p / f"model{DESCRIPTION_SUFFIX}", p / "model.zip"
    if p.suffix in (".zip", WEIGHTS_SUFFIX, DESCRIPTION_SUFFIX):
        return p.with_suffix(DESCRIPTION_SUFFIX), p.with_suffix(".zip")
    raise ValueError(
        f"{cut(str(p), 200)} is not a saved policy: expected a .zip, {WEIGHTS_SUFFIX} or {DESCRIPTION_SUFFIX} "
        "file or a run folder"
    )


def write_safe_files(
    model: Any,
    path: str | Path,
    game: Any,
    learner_actions: str | None = None,
    allowed_actions: np.ndarray | None = None,
) -> tuple[Path, Path]:
    """Write ``<stem>.safetensors`` and ``<stem>.json`` for ``model`` next to ``path``.

    Args:
        model: a MaskablePPO model (or its policy).
        path: the SB3 zip they accompany (``.zip``, ``.safetensors`` or ``.json``: same stem) or a folder.
        game: the game it plays.
        learner_actions: the ``env.learner_actions`` restriction it keeps when loaded.
        allowed_actions: the restriction as an ``(A,) bool`` mask instead (named by matching
            ``game.action_filters()``; ``None``: no restriction).

    Returns:
        ``(description path, weights path)``.

    Raises:
        ValueError: a network this project cannot describe, or a mask matching no filter.
    """
    policy = getattr(model, "policy", model)
    if learner_actions is None and allowed_actions is not None:
        allowed = np.asarray(allowed_actions, dtype=bool)
        names = [n for n, f in game.action_filters().items() if np.array_equal(np.asarray(f, bool), allowed)]
        if not names and not allowed.all():
            raise ValueError("allowed_actions matches none of the game's action filters")
        learner_actions = names[0] if names else None
    timesteps = getattr(model, "num_timesteps", None)
    description = describe_policy(policy, game, learner_actions, timesteps if isinstance(timesteps, int) else None)
    json_path, _ = safe_paths(path)
    weights_path = json_path.with_suffix(WEIGHTS_SUFFIX)
    json_path.parent.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().numpy() for k, v in policy.state_dict().items()}
    digest = write_safetensors(state, weights_path, {"format": FORMAT})
    description["weights"] = weights_path.name
    description["weights_sha256"] = digest
    _atomic_write(json_path, (json.dumps(description, indent=2) + "\n").encode())
    return json_path, weights_path


def save_policy(model: Any, path: str | Path, game: Any, learner_actions: str | None = None) -> Path:
    """Save ``model`` as an SB3 zip at ``path`` plus its safe files beside it; returns ``path``.

    The zip (pickle) is for resuming training in a trusted setting; ``ppo:PATH`` loads the safe files.
    """
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    model.save(p)
    write_safe_files(model, p, game, learner_actions)
    return p


# ====================================================================== reading descriptions
def _strict_json(text: bytes | str, what: str) -> Any:
    """``json.loads`` that refuses duplicate keys, NaN/Infinity and pathological nesting."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in items:
            if k in out:
                raise ValueError(f"duplicate key {short(k)}")
            out[k] = v
        return out

    def constant(name: str) -> Any:
        raise ValueError(f"{name} is not allowed")

    try:
        return json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
    except RecursionError:
        raise ValueError(f"{what} is not valid JSON: nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError is a ValueError
        raise ValueError(f"{what} is not valid JSON: {cut(str(exc), 160)}") from None


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _int_in(d: dict[str, Any], key: str, lo: int, hi: int, where: str) -> int:
    x = d[key]
    if not _is_int(x) or not lo <= x <= hi:
        raise ValueError(f"{where}: {key!r} must be an integer in [{lo}, {hi}], got {short(x)}")
    return x


def _layers(x: Any, key: str, where: str) -> list[int]:
    if not isinstance(x, list) or len(x) > MAX_LAYERS or not all(_is_int(h) and 1 <= h <= MAX_WIDTH for h in x):
        raise ValueError(
            f"{where}: {key!r} must be a list of at most {MAX_LAYERS} sizes in [1, {MAX_WIDTH}], got {short(x)}"
        )
    return list(x)


def _check_description(d: Any, where: str) -> dict[str, Any]:
    """Validate a parsed ``model.json`` (types, ranges, no unknown keys); return it."""
    if not isinstance(d, dict):
        raise ValueError(f"{where}: must hold a JSON object, got {type(d).__name__}")
    unknown = sorted(set(d) - set(_DESCRIPTION_KEYS))
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {short(unknown)}")
    missing = sorted(k for k, required in _DESCRIPTION_KEYS.items() if required and k not in d)
    if missing:
        raise ValueError(f"{where}: missing key(s) {missing}")
    if d["format"] != FORMAT or d["version"] != FORMAT_VERSION:
        raise ValueError(
            f"{where}: format {short(d['format'])} version {short(d['version'])} is not {FORMAT!r} version "
            f"{FORMAT_VERSION}"
        )
    if d["algo"] != "maskable_ppo":
        raise ValueError(f"{where}: 'algo' must be 'maskable_ppo', got {short(d['algo'])}")
    for key in ("game", "features"):
        v = d[key]
        if not isinstance(v, str) or not v.isidentifier() or len(v) > 64:
            raise ValueError(f"{where}: {key!r} must be a name, got {short(v)}")
    opts = d["game_options"]
    if not isinstance(opts, dict) or len(opts) > 64:
        raise ValueError(f"{where}: 'game_options' must be an object of at most 64 options, got {short(opts)}")
    for k, v in opts.items():
        scalar = v is None or isinstance(v, (bool, float, str)) or (_is_int(v) and abs(v) <= 2**62)
        if not k.isidentifier() or not scalar or (isinstance(v, str) and len(v) > 256):
            raise ValueError(f"{where}: game option {short(k)} must be a plain value, got {short(v)}")
    _int_in(d, "obs_dim", 1, MAX_OBS_DIM, where)
    _int_in(d, "num_actions", 1, MAX_ACTIONS, where)
    if d["head"] not in _head_classes():
        raise ValueError(f"{where}: 'head' must be one of {sorted(_head_classes())}, got {short(d['head'])}")
    arch = d["net_arch"]
    if isinstance(arch, dict):
        if set(arch) != {"pi", "vf"}:
            raise ValueError(f"{where}: 'net_arch' must be a list or {{'pi': [...], 'vf': [...]}}, got {short(arch)}")
        d["net_arch"] = {k: _layers(arch[k], f"net_arch.{k}", where) for k in ("pi", "vf")}
    else:
        d["net_arch"] = _layers(arch, "net_arch", where)
    if d["activation"] not in ACTIVATIONS:
        raise ValueError(f"{where}: 'activation' must be one of {ACTIVATIONS}, got {short(d['activation'])}")
    if d["board_channels"] is not None:
        _int_in(d, "board_channels", 1, MAX_CHANNELS, where)
    la = d["learner_actions"]
    if la is not None and (not isinstance(la, str) or not la.isidentifier() or len(la) > 64):
        raise ValueError(f"{where}: 'learner_actions' must be a filter name or null, got {short(la)}")
    w = d["weights"]
    if not isinstance(w, str) or not w.endswith(WEIGHTS_SUFFIX) or Path(w).name != w or w.startswith("."):
        raise ValueError(f"{where}: 'weights' must be a {WEIGHTS_SUFFIX} file name in the same folder, got {short(w)}")
    sha = d["weights_sha256"]
    if not isinstance(sha, str) or not re.fullmatch(r"[0-9a-f]{64}", sha):
        raise ValueError(f"{where}: 'weights_sha256' must be 64 lowercase hex digits, got {short(sha)}")
    if "timesteps" in d:
        _int_in(d, "timesteps", 0, 2**63 - 1, where)
    return d


def read_description(json_path: str | Path) -> dict[str, Any]:
    """Read and validate a ``model.json``.

    Raises:
        ValueError: a missing, oversized or invalid file (the message names the problem).
    """
    p = Path(json_path)
    where = str(p)
    try:
        size = p.stat().st_size
        if size > MAX_DESCRIPTION_BYTES:
            raise ValueError(f"{where}: {size} bytes, more than a description may hold ({MAX_DESCRIPTION_BYTES})")
        raw = p.read_bytes()
    except OSError as exc:
        raise ValueError(f"{where}: cannot read: {exc.strerror or exc}") from None
    return _check_description(_strict_json(raw, where), where)


# ====================================================================== safetensors
def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def write_safetensors(tensors: dict[str, np.ndarray], path: str | Path, metadata: dict[str, str] | None = None) -> str:
    """Write ``tensors`` with the ``safetensors`` library (no pickle); returns the file's SHA-256 (hex).

    Raises:
        ValueError: a dtype safetensors does not handle.
    """
    from safetensors.numpy import save

    try:
        data = save({k: np.ascontiguousarray(v) for k, v in tensors.items()}, metadata=metadata)
    except Exception as exc:  # safetensors raises its own error types for unsupported arrays
        raise ValueError(f"cannot write weights to {str(path)!r}: {exc}") from exc
    _atomic_write(Path(path), data)
    return hashlib.sha256(data).hexdigest()


def read_safetensors(path: str | Path, sha256: str | None = None) -> dict[str, np.ndarray]:
    """Read a safetensors file with the ``safetensors`` library (no pickle, no code run).

    Args:
        path: the file.
        sha256: the expected SHA-256 of the whole file (``None``: not checked).

    Returns:
        ``name -> array``.

    Raises:
        ValueError: a missing, oversized, truncated, altered or malformed file.
    """
    from safetensors.numpy import load

    p = Path(path)
    where = str(p)
    try:
        size = p.stat().st_size
        if size > MAX_WEIGHTS_BYTES:
            raise ValueError(f"{where}: {size} bytes, more than {MAX_WEIGHTS_BYTES}")
        data = p.read_bytes()
    except OSError as exc:
        raise ValueError(f"{where}: cannot read: {exc.strerror or exc}") from None
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        raise ValueError(
            f"{where}: SHA-256 differs from the one its description records: the weights file is damaged "
            "(truncated or altered) or not the one the description was written with"
        )
    if len(data) >= 8:
        (n,) = struct.unpack("<Q", data[:8])
        if n > MAX_HEADER_BYTES:
            raise ValueError(f"{where}: header size {n} is larger than {MAX_HEADER_BYTES} bytes: damaged")
    try:
        return load(data)
    except Exception as exc:  # SafetensorError and friends: a damaged or foreign file
        raise ValueError(
            f"{where}: not a valid safetensors file (truncated or damaged): {cut(str(exc), 200)}"
        ) from None


# ====================================================================== loading
def _min_weights(net_arch: list[int] | dict[str, list[int]]) -> int:
    """A lower bound on the weights of the hidden layers ``net_arch`` describes."""
    arch = net_arch if isinstance(net_arch, dict) else {"pi": net_arch, "vf": net_arch}
    return sum(a * b for layers in arch.values() for a, b in itertools.pairwise(layers))


def build_policy(description: dict[str, Any], game: Any, device: str = "cpu") -> Any:
    """A fresh MaskablePPO policy network as ``description`` (a validated ``model.json``) says.

    Raises:
        ValueError: a features name or configuration the game does not serve.
    """
    from gymnasium import spaces

    from monkey_envs.core.faces import observation_box

    kwargs = policy_kwargs_for(
        description["features"],
        description["net_arch"],
        description["activation"],
        description["board_channels"],
        game,
        game_name=description["game"],
    )
    cls = _head_classes()[description["head"]]
    with _global_rng_kept():  # initialisation draws from torch's generator: a caller must not feel it
        policy = cls(
            observation_box(game),
            spaces.Discrete(game.num_actions),
            lambda _: 0.0,
            ortho_init=False,  # the weights are overwritten; skip the QR decompositions
            **kwargs,
        )
    return policy.to(device)


def _resolve_game(description: dict[str, Any], game: Any, where: str) -> Any:
    if game is None:
        from monkey_envs.games import make_game

        try:
            game = make_game(description["game"], **description["game_options"])
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{where}: cannot build game {description['game']!r}: {cut(str(exc), 200)}") from None
    elif description["game"] != game.spec.name:
        raise ValueError(f"{where}: the model plays {description['game']!r}, not {game.spec.name!r}")
    _check_sizes((description["obs_dim"],), description["num_actions"], game)
    return game


def load_safe_policy(path: str | Path, game: Any = None, device: str = "cpu") -> tuple[LoadedPolicy, Any]:
    """Rebuild a saved policy from its description and weights; returns ``(policy, game)``.

    Raises:
        ValueError: missing, damaged or mismatching files (the message names the problem).
    """
    import torch

    json_path, _ = safe_paths(path)
    description = read_description(json_path)
    where = str(json_path)
    game = _resolve_game(description, game, where)
    weights_path = json_path.with_name(description["weights"])
    arrays = read_safetensors(weights_path, description["weights_sha256"])
    if sum(a.size for a in arrays.values()) < _min_weights(description["net_arch"]):
        raise ValueError(f"{weights_path}: holds fewer weights than the network {where} describes")
    try:
        policy = build_policy(description, game, device)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    expected = policy.state_dict()
    missing = sorted(set(expected) - set(arrays))
    unexpected = sorted(set(arrays) - set(expected))
    if missing or unexpected:
        raise ValueError(
            f"{weights_path}: does not fit the network {where} describes: missing {short(missing)}, "
            f"unexpected {short(unexpected)}"
        )
    state: dict[str, Any] = {}
    for name, ref in expected.items():
        a = arrays[name]
        if tuple(a.shape) != tuple(ref.shape):
            raise ValueError(
                f"{weights_path}: tensor {name!r} has shape {tuple(a.shape)}, the network {where} describes needs "
                f"{tuple(ref.shape)}"
            )
        t = torch.from_numpy(a.copy())
        if t.dtype != ref.dtype:
            raise ValueError(f"{weights_path}: tensor {name!r} is {t.dtype}, the network needs {ref.dtype}")
        if t.is_floating_point() and not bool(torch.isfinite(t).all()):
            raise ValueError(f"{weights_path}: tensor {name!r} holds NaN or infinite values")
        state[name] = t
    try:
        policy.load_state_dict(state, strict=True)
    except RuntimeError as exc:  # pragma: no cover - the checks above match what strict loading checks
        raise ValueError(f"{weights_path}: {cut(str(exc), 200)}") from None
    policy.optimizer = None  # a loaded policy only predicts
    policy.set_training_mode(False)
    for param in policy.parameters():
        param.requires_grad_(False)
    return LoadedPolicy(policy, description), game


def _label(p: Path) -> str:
    if p.is_dir() or p.stem in ("model", ""):
        return (p if p.is_dir() else p.parent).name
    return f"{p.parent.parent.name}/{p.stem}"


def check_model_files(path: str | Path, trusted: bool = False) -> Path:
    """The file a load of ``path`` would read, checked for existence only (nothing is read).

    Raises:
        ValueError: no saved policy there, or (``trusted=False``) only a pickled SB3 zip.
    """
    p = Path(path)
    json_path, zip_path = safe_paths(p)
    if trusted and (p.is_dir() or p.suffix == ".zip") and zip_path.is_file():
        return zip_path
    if json_path.is_file():
        return json_path
    if zip_path.is_file():
        raise ValueError(
            f"{cut(str(zip_path), 200)} is a pickled SB3 zip without the safe files "
            f"{json_path.name} / {json_path.with_suffix(WEIGHTS_SUFFIX).name} next to it; loading the zip would run "
            f"code from the file. If you trust it, convert it once with `python -m agents.policy convert {zip_path}` "
            f"(or load it as {PICKLE_PREFIX}PATH)"
        )
    raise ValueError(f"no saved model at {short(str(p), 200)}")


def load_policy_agent(
    path: str | Path, game: Any = None, seed: int = 0, device: str = "cpu", trusted: bool = False
) -> PolicyAgent:
    """Load a saved policy as a :class:`PolicyAgent`.

    Args:
        path: the ``.zip``, ``.safetensors`` or ``.json`` of a saved policy, or its folder.
        game: the game it will play (name and sizes are checked; ``None``: the one it was saved for).
        seed: seeds torch's sampling of a pickled model (only matters with ``deterministic=False``).
        device: torch device.
        trusted: load the SB3 zip itself, unpickling it -- this runs code from the file; only for
            files you trust (``ppo+pickle:PATH``). Without it only the safe files are read.

    Raises:
        ValueError: no saved model, only a pickled zip (``trusted=False``), or files that are
            damaged or do not fit ``game``.
    """
    p = Path(path)
    target = check_model_files(p, trusted)
    label = f"ppo:{_label(p)}"
    if target.suffix == DESCRIPTION_SUFFIX:
        loaded, game = load_safe_policy(target, game, device)
        allowed = None
        if loaded.description["learner_actions"] is not None:
            try:
                allowed = game.action_filter(loaded.description["learner_actions"])
            except ValueError as exc:
                raise ValueError(f"{target}: 'learner_actions': {exc}") from None
        return PolicyAgent(loaded, game, deterministic=True, name=label, allowed_actions=allowed)
    from sb3_contrib import MaskablePPO  # lazy: torch is only needed here

    with _global_rng_kept():  # loading reseeds python/numpy/torch globally; a caller's training must not feel it
        model = MaskablePPO.load(str(target), device=device)  # unpickles: trusted files only
        model.set_random_seed(seed)
    allowed = None
    restriction = _learner_actions_of_run(target)
    if restriction is not None and game is not None:
        allowed = game.action_filter(restriction)
    return PolicyAgent(model, game, deterministic=True, name=label, allowed_actions=allowed)


class _global_rng_kept:
    """Context manager restoring the global ``random``, numpy and torch generators on exit."""

    def __enter__(self) -> None:
        import random

        import torch

        self._states = (random.getstate(), np.random.get_state(), torch.get_rng_state())  # noqa: NPY002 (SB3 seeds it)

    def __exit__(self, *exc: object) -> None:
        import random

        import torch

        random.setstate(self._states[0])
        np.random.set_state(self._states[1])  # noqa: NPY002
        torch.set_rng_state(self._states[2])


def _run_config(model_path: Path) -> dict[str, Any] | None:
    """The ``config.yaml`` of the run a model file belongs to (same folder or one above, e.g.
    ``checkpoints/`` / ``snapshots/``), read with the strict config loader; ``None`` if none."""
    for folder in (model_path.parent, model_path.parent.parent):
        cfg = folder / "config.yaml"
        if cfg.is_file():
            from agents.strict_yaml import read_yaml

            data = read_yaml(cfg)
            return data if isinstance(data, dict) else {}
    return None


def _learner_actions_of_run(model_path: Path) -> str | None:
    """``env.learner_actions`` of the run a model file belongs to, so a restricted learner stays
    restricted when loaded; ``None`` when there is no such config."""
    data = _run_config(model_path)
    env = data.get("env") if data else None
    return env.get("learner_actions") if isinstance(env, dict) else None


def make_ppo_agent(spec: str, game: Any, seed: int = 0) -> PolicyAgent:
    """Factory for ``make_agent("ppo:PATH", game, seed)``: the safe files only."""
    return load_policy_agent(spec[len(PPO_PREFIX) :], game, seed)


def make_pickle_ppo_agent(spec: str, game: Any, seed: int = 0) -> PolicyAgent:
    """Factory for ``make_agent("ppo+pickle:PATH", game, seed)``: unpickles a trusted SB3 zip."""
    return load_policy_agent(spec[len(PICKLE_PREFIX) :], game, seed, trusted=True)


def _register() -> None:
    from agents.registry import PREFIXES, register_prefix

    if PICKLE_PREFIX not in PREFIXES:
        register_prefix(PICKLE_PREFIX, make_pickle_ppo_agent)


_register()


# ====================================================================== convert
def convert(path: str | Path, game: Any = None) -> tuple[Path, Path]:
    """Write the safe files of a trusted SB3 zip (this unpickles it); returns their paths.

    The game comes from ``game``, else the run's ``config.yaml`` (``env.game`` /
    ``env.game_options``), else the model's features extractor arguments; ``env.learner_actions``
    of the run is recorded. The written files are loaded back and checked against the zip.

    Raises:
        ValueError: no zip there, no way to tell the game, or a network that cannot be described.
    """
    import torch
    from sb3_contrib import MaskablePPO

    from monkey_envs.games import make_game

    _, zip_path = safe_paths(path)
    if not zip_path.is_file():
        raise ValueError(f"no SB3 zip at {zip_path}")
    with _global_rng_kept():
        model = MaskablePPO.load(str(zip_path), device="cpu")
    config = _run_config(zip_path) or {}
    env = config.get("env") if isinstance(config.get("env"), dict) else {}
    if game is None:
        fe = dict(model.policy.features_extractor_kwargs or {})
        if env.get("game"):
            game = make_game(env["game"], **dict(env.get("game_options") or {}))
        elif fe.get("game"):
            game = make_game(fe["game"], **dict(fe.get("game_options") or {}))
        else:
            raise ValueError(f"{zip_path}: no config.yaml next to it names the game; pass --game")
    written = write_safe_files(model, zip_path, game, learner_actions=env.get("learner_actions"))
    loaded, _ = load_safe_policy(written[0], game)
    for name, t in model.policy.state_dict().items():
        if not torch.equal(loaded.policy.state_dict()[name].cpu(), t.cpu()):  # pragma: no cover - a writer bug
            raise ValueError(f"{zip_path}: tensor {name!r} did not survive the conversion")
    return written


def main(argv: list[str] | None = None) -> int:
    """``python -m agents.policy convert PATH [PATH ...]``: write safe files for trusted SB3 zips."""
    parser = argparse.ArgumentParser(prog="python -m agents.policy", description="Saved policies.")
    sub = parser.add_subparsers(dest="command", required=True)
    conv = sub.add_parser(
        "convert",
        help="write <stem>.safetensors + <stem>.json next to SB3 zips (unpickles them: trusted files only)",
    )
    conv.add_argument("paths", nargs="+", metavar="PATH", help="an SB3 .zip or a run folder (its model.zip)")
    conv.add_argument("--game", help="game name (default: the run's config.yaml)")
    conv.add_argument("--game-options", default="{}", metavar="JSON", help="game options, e.g. '{\"num_players\": 3}'")
    args = parser.parse_args(argv)
    try:
        game = None
        if args.game:
            from monkey_envs.games import make_game

            options = _strict_json(args.game_options, "--game-options")
            if not isinstance(options, dict):
                raise ValueError("--game-options must be a JSON object")
            game = make_game(args.game, **options)
        for path in args.paths:
            json_path, weights_path = convert(path, game)
            print(f"wrote {weights_path} and {json_path}")
    except (ValueError, TypeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
