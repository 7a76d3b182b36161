"""Typed, documented training configuration, loaded safely from YAML.

A config is a tree of dataclasses; every field has a docstring (the ``#:`` comment above it)
and a default, so ``TrainConfig()`` *is* the embedded default run. YAML files in ``configs/``
override any subset of fields::

    seed: 1
    total_timesteps: 100000
    env:
      opponent: random
    ppo:
      learning_rate: 0.001

``load_config(path, overrides=["ppo.n_steps=64"])`` reads the file with ``yaml.safe_load``,
applies ``--set``-style overrides (dotted keys, values parsed as YAML scalars), and checks every
key and value: an unknown key, a wrong type or an out-of-range value raises ``ValueError``
naming the key -- before any training starts.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from pathlib import Path
from typing import Any

from monkey_envs.games import DEFAULT_GAME

#: Algorithms this runner knows (more SB3 algorithms can be added to ``training.run.ALGOS``).
ALGOS = ("maskable_ppo",)
ACTIVATIONS = ("tanh", "relu")
#: Policy heads (see :mod:`training.policies`).
HEADS = ("linear", "scorer")


@dataclasses.dataclass
class EnvConfig:
    """The training environment: a native batched SB3 VecEnv of one game."""

    #: Game name (a key of ``monkey_envs.games.GAMES``; default: the registry's first game).
    game: str = DEFAULT_GAME
    #: Options passed to the game, e.g. ``{num_players: 2, variant: normal, board_side: 1}``.
    game_options: dict[str, Any] = dataclasses.field(default_factory=lambda: {"num_players": 2})
    #: Games played side by side in the VecEnv (rows of the batched core).
    num_envs: int = 128
    #: Opponent of every other seat: an agent name (``random``, ``greedy``, ``track``, ...) or
    #: ``ppo:PATH``; or a list of them -- a mix: every episode, each opponent seat draws one
    #: (uniformly, or by ``opponent_weights``).
    opponent: str | list[str] = "greedy"
    #: Weights of a mix (one per entry of ``opponent``), or ``null`` for uniform.
    opponent_weights: list[float] | None = None
    #: Fixed learner seat, or ``null`` for a random seat per episode.
    learner_seat: int | None = None
    #: Restrict the learner to one of the game's action filters (``null``: every legal action).
    #: Funky Monkey: ``honest`` -- announcements always equal the card (the honest-only ablation).
    learner_actions: str | None = None


@dataclasses.dataclass
class PPOConfig:
    """Hyperparameters of sb3-contrib's ``MaskablePPO`` (same names as its constructor)."""

    #: Adam step size.
    learning_rate: float = 1e-3
    #: Steps per env per rollout (rollout size = ``n_steps * num_envs``).
    n_steps: int = 32
    #: Minibatch size (should divide ``n_steps * num_envs``).
    batch_size: int = 1024
    #: Optimisation passes over each rollout.
    n_epochs: int = 8
    #: Discount factor.
    gamma: float = 0.95
    #: GAE lambda.
    gae_lambda: float = 0.95
    #: PPO clipping range.
    clip_range: float = 0.2
    #: Entropy bonus coefficient.
    ent_coef: float = 0.01
    #: Value loss coefficient.
    vf_coef: float = 0.5
    #: Gradient clipping norm.
    max_grad_norm: float = 0.5
    #: Hidden layer sizes of the policy and value networks (separate networks of this shape).
    net_arch: list[int] = dataclasses.field(default_factory=lambda: [128, 128])
    #: Hidden activation: ``tanh`` or ``relu``.
    activation: str = "relu"
    #: Feature extractor: ``auto`` (the game's registered default, else ``mlp``), ``mlp`` (flatten
    #: the observation; every game) or a name the game registers (``agents.registry.register_features``;
    #: Monkey Fun: ``board`` -- per-action target-field features from a convolution over the board,
    #: its default -- and ``greedy`` -- ``board`` plus the greedy heuristic's evaluation terms of each
    #: action, normal/quick game). Checked against the game before training starts.
    features: str = "auto"
    #: Policy head: ``linear`` (SB3's MLP then a linear layer over all actions) or ``scorer``
    #: (one network shared by every action with a per-action block scores it from that block; needs
    #: features with per-action blocks, e.g. Monkey Fun's ``board`` or ``greedy``; ``net_arch`` sets
    #: its hidden sizes).
    head: str = "linear"
    #: Convolution channels of the ``board`` extractor.
    board_channels: int = 16


SAMPLING = ("uniform", "latest", "prioritized")
PRETRAIN_OBJECTIVES = ("imitation", "rollout_q")


@dataclasses.dataclass
class SelfPlayConfig:
    """Self-play: opponents drawn from a pool of frozen snapshots of the learner (and heuristics).

    Every ``snapshot_every`` steps the current policy is frozen, saved to
    ``<run>/snapshots/snapshot_<steps>.zip`` and added to the pool; each episode, every opponent
    seat draws a pool member (see ``training/selfplay.py``).
    """

    #: Turn self-play on (``env.opponent`` then only seeds the pool, see ``heuristic_share``).
    enabled: bool = False
    #: Learner steps between snapshots (the first snapshot, of the initial policy, is taken at 0).
    snapshot_every: int = 50_000
    #: How snapshots are drawn: ``uniform`` over the window, ``latest`` (always the newest),
    #: or ``prioritized`` (weight ``(1 - w) ** priority_power`` with ``w`` the learner's smoothed
    #: win rate against the member, rescaled so the fair share ``1 / P`` counts as 0.5: opponents
    #: it still loses to come up more often).
    sampling: str = "uniform"
    #: Only the newest ``window`` snapshots are drawn (older ones get weight 0).
    window: int = 10
    #: Exponent of prioritized sampling.
    priority_power: float = 2.0
    #: Prioritized sampling reads the learner's win rate over roughly the last this many
    #: episodes of the pool (older episodes fade by ``1 - 1 / win_rate_memory`` per later
    #: episode), so a snapshot the learner has since learned to beat comes up less; ``null``
    #: counts every episode alike.
    win_rate_memory: int | None = 5000
    #: Keep ``env.opponent`` (heuristics) in the pool, sharing this probability of the draws
    #: (0 drops them once the first snapshot exists).
    heuristic_share: float = 0.2
    #: Snapshots sample their moves (``false``) or take the most likely one (``true``).
    deterministic: bool = False


@dataclasses.dataclass
class PretrainConfig:
    """Optional training from a teacher agent before RL (``objective``).

    ``imitation``: the teacher plays ``games`` games against itself (every seat); the policy
    learns its moves by cross-entropy over the legal actions and the value net the discounted
    outcomes (``training/pretrain.py``).
    ``rollout_q``: positions of those games (each decision with ``probe_prob``) are played out
    once per legal action with the teacher continuing every seat; the policy's logits learn
    those action values, so its most likely move improves on the teacher's
    (``training/rollout_q.py``).
    """

    #: Teacher agent name (e.g. ``greedy``, ``track``), or ``null`` for no pretraining.
    teacher: str | None = None
    #: Teacher's games to record.
    games: int = 2000
    #: Passes over the recorded decisions.
    epochs: int = 10
    #: Minibatch size.
    batch_size: int = 1024
    #: Adam step size.
    learning_rate: float = 1e-3
    #: ``imitation`` (behaviour cloning) or ``rollout_q`` (fit the teacher's action values).
    objective: str = "imitation"
    #: ``rollout_q``: chance that a decision of the teacher's games becomes a probe state.
    probe_prob: float = 0.1


@dataclasses.dataclass
class EvalConfig:
    """Evaluation after training: batched, seat-balanced games against fixed opponents."""

    #: Opponents: a name or ``ppo:PATH`` (plays every other seat), or a line-up of ``P - 1``
    #: joined by ``+`` (``honest+skeptic+track``: one agent per other seat; paths must not hold ``+``).
    opponents: list[str] = dataclasses.field(default_factory=lambda: ["random", "greedy"])
    #: Games per opponent (>= 500 for a tight interval; a multiple of the player count).
    num_games: int = 1000
    #: Seed of the evaluation deals (independent of the training seed).
    seed: int = 1_000_003
    #: Evaluate the policy's most likely action (``true``) or sample from it.
    deterministic: bool = True
    #: Learner steps between learning-curve evaluations (``0``: none; ``curve.csv``/``curve.png``).
    curve_every: int = 50_000
    #: Games per opponent at each learning-curve point.
    curve_games: int = 200


@dataclasses.dataclass
class TrainConfig:
    """One training run: algorithm, budget, environment, hyperparameters, evaluation."""

    #: Modules to import before anything else (plugins that register games or agents, e.g. a game
    #: from another package); ``--import MODULE`` adds one.
    imports: list[str] = dataclasses.field(default_factory=list)
    #: Algorithm: ``maskable_ppo``.
    algo: str = "maskable_ppo"
    #: Environment steps of the learner to train for (0: no reinforcement learning, only the
    #: pretraining; needs ``pretrain.teacher``).
    total_timesteps: int = 400_000
    #: Seed of the envs, the network initialisation and the learner's sampling.
    seed: int = 0
    #: Folder under which the run folder ``<game>__<algo>__<seed>__<time>`` is created.
    runs_dir: str = "runs"
    #: Show a progress bar while training (tqdm + rich).
    progress_bar: bool = True
    #: Torch CPU threads (``0`` keeps torch's default).
    torch_threads: int = 1
    #: Training device for torch (``cpu``, ``cuda``, ``auto``).
    device: str = "cpu"
    #: Start from the weights of a saved MaskablePPO ``.zip`` (same game, sizes and network) instead
    #: of a fresh policy -- to resume from a checkpoint or fine-tune a model (``null``: fresh).
    init_model: str | None = None
    #: Learner steps between checkpoints in ``<run>/checkpoints/`` (``0``: none).
    checkpoint_every: int = 100_000
    #: Also write a TensorBoard log to ``<run>/tb/`` (needs the ``tensorboard`` package).
    tensorboard: bool = True
    env: EnvConfig = dataclasses.field(default_factory=EnvConfig)
    ppo: PPOConfig = dataclasses.field(default_factory=PPOConfig)
    selfplay: SelfPlayConfig = dataclasses.field(default_factory=SelfPlayConfig)
    pretrain: PretrainConfig = dataclasses.field(default_factory=PretrainConfig)
    eval: EvalConfig = dataclasses.field(default_factory=EvalConfig)

    @property
    def opponents(self) -> list[str]:
        """``env.opponent`` as a list (one entry for a single opponent)."""
        o = self.env.opponent
        return [o] if isinstance(o, str) else list(o)

    # ------------------------------------------------------------------ checks
    def validate(self) -> TrainConfig:
        """Check value ranges and cross-field constraints; return ``self``.

        Raises:
            ValueError: the first problem found, naming the key.
        """
        _check(self.algo in ALGOS, "algo", f"must be one of {ALGOS}, got {self.algo!r}")
        _check(self.total_timesteps >= 0, "total_timesteps", f"must be >= 0, got {self.total_timesteps}")
        _check(
            self.total_timesteps > 0 or self.pretrain.teacher is not None,
            "total_timesteps",
            "0 (no reinforcement learning) needs pretraining (pretrain.teacher)",
        )
        _check(self.seed >= 0, "seed", f"must be >= 0, got {self.seed}")
        _check(self.torch_threads >= 0, "torch_threads", f"must be >= 0, got {self.torch_threads}")
        _check(self.device in ("cpu", "cuda", "auto"), "device", f"must be cpu, cuda or auto, got {self.device!r}")
        e = self.env
        _check(e.num_envs >= 1, "env.num_envs", f"must be >= 1, got {e.num_envs}")
        _check(
            bool(self.opponents) and all(isinstance(o, str) and o for o in self.opponents),
            "env.opponent",
            "must name an agent or a non-empty list of agents",
        )
        _check(
            len(set(self.opponents)) == len(self.opponents),
            "env.opponent",
            f"lists an agent twice ({self.opponents}); give it a larger share with env.opponent_weights instead",
        )
        if e.opponent_weights is not None:
            _check(
                len(e.opponent_weights) == len(self.opponents),
                "env.opponent_weights",
                f"needs one weight per opponent ({len(self.opponents)}), got {len(e.opponent_weights)}",
            )
            _check(
                all(0 <= w < float("inf") for w in e.opponent_weights) and sum(e.opponent_weights) > 0,
                "env.opponent_weights",
                f"must be >= 0 with a positive sum, got {e.opponent_weights}",
            )
        _check(self.checkpoint_every >= 0, "checkpoint_every", f"must be >= 0, got {self.checkpoint_every}")
        sp = self.selfplay
        _check(sp.snapshot_every >= 1, "selfplay.snapshot_every", f"must be >= 1, got {sp.snapshot_every}")
        _check(sp.sampling in SAMPLING, "selfplay.sampling", f"must be one of {SAMPLING}, got {sp.sampling!r}")
        _check(sp.window >= 1, "selfplay.window", f"must be >= 1, got {sp.window}")
        _check(
            sp.win_rate_memory is None or sp.win_rate_memory >= 1,
            "selfplay.win_rate_memory",
            f"must be >= 1 or null, got {sp.win_rate_memory}",
        )
        _check(sp.priority_power >= 0, "selfplay.priority_power", f"must be >= 0, got {sp.priority_power}")
        _check(0 <= sp.heuristic_share < 1, "selfplay.heuristic_share", f"must be in [0, 1), got {sp.heuristic_share}")
        pt = self.pretrain
        _check(pt.games >= 1, "pretrain.games", f"must be >= 1, got {pt.games}")
        _check(pt.epochs >= 1, "pretrain.epochs", f"must be >= 1, got {pt.epochs}")
        _check(pt.batch_size >= 2, "pretrain.batch_size", f"must be >= 2, got {pt.batch_size}")
        _check(pt.learning_rate > 0, "pretrain.learning_rate", f"must be > 0, got {pt.learning_rate}")
        _check(
            pt.objective in PRETRAIN_OBJECTIVES,
            "pretrain.objective",
            f"must be one of {PRETRAIN_OBJECTIVES}, got {pt.objective!r}",
        )
        _check(0 < pt.probe_prob <= 1, "pretrain.probe_prob", f"must be in (0, 1], got {pt.probe_prob}")
        p = self.ppo
        _check(p.learning_rate > 0, "ppo.learning_rate", f"must be > 0, got {p.learning_rate}")
        _check(p.n_steps >= 1, "ppo.n_steps", f"must be >= 1, got {p.n_steps}")
        _check(p.batch_size >= 2, "ppo.batch_size", f"must be >= 2, got {p.batch_size}")
        _check(
            p.batch_size <= p.n_steps * e.num_envs,
            "ppo.batch_size",
            f"{p.batch_size} exceeds the rollout size n_steps * num_envs = {p.n_steps * e.num_envs}",
        )
        _check(p.n_epochs >= 1, "ppo.n_epochs", f"must be >= 1, got {p.n_epochs}")
        _check(0 < p.gamma <= 1, "ppo.gamma", f"must be in (0, 1], got {p.gamma}")
        _check(0 <= p.gae_lambda <= 1, "ppo.gae_lambda", f"must be in [0, 1], got {p.gae_lambda}")
        _check(p.clip_range > 0, "ppo.clip_range", f"must be > 0, got {p.clip_range}")
        _check(p.ent_coef >= 0, "ppo.ent_coef", f"must be >= 0, got {p.ent_coef}")
        _check(p.vf_coef >= 0, "ppo.vf_coef", f"must be >= 0, got {p.vf_coef}")
        _check(p.max_grad_norm > 0, "ppo.max_grad_norm", f"must be > 0, got {p.max_grad_norm}")
        _check(len(p.net_arch) >= 1 and min(p.net_arch) >= 1, "ppo.net_arch", f"needs positive sizes, got {p.net_arch}")
        _check(p.activation in ACTIVATIONS, "ppo.activation", f"must be one of {ACTIVATIONS}, got {p.activation!r}")
        _check(
            isinstance(p.features, str) and p.features.isidentifier(),
            "ppo.features",
            f"must be a features name, got {p.features!r}",
        )
        _check(p.head in HEADS, "ppo.head", f"must be one of {HEADS}, got {p.head!r}")
        _check(
            p.head != "scorer" or p.features != "mlp",
            "ppo.head",
            "'scorer' needs per-action features (a game's registered features, e.g. 'board'), not 'mlp'",
        )
        _check(p.board_channels >= 1, "ppo.board_channels", f"must be >= 1, got {p.board_channels}")
        v = self.eval
        _check(v.num_games >= 0, "eval.num_games", f"must be >= 0, got {v.num_games}")
        _check(v.seed >= 0, "eval.seed", f"must be >= 0, got {v.seed}")
        _check(all(isinstance(o, str) and o for o in v.opponents), "eval.opponents", "must be agent names")
        _check(v.curve_every >= 0, "eval.curve_every", f"must be >= 0, got {v.curve_every}")
        _check(v.curve_games >= 1, "eval.curve_games", f"must be >= 1, got {v.curve_games}")
        return self

    def to_dict(self) -> dict[str, Any]:
        """The resolved config as plain data (what ``config.yaml`` of a run holds)."""
        return dataclasses.asdict(self)


def _check(ok: bool, key: str, message: str) -> None:
    if not ok:
        raise ValueError(f"config key {key!r}: {message}")


# ====================================================================== loading
def from_dict(data: dict[str, Any] | None, cls: type = TrainConfig, path: str = "") -> Any:
    """Build the dataclass ``cls`` from nested plain data, checking keys and types.

    Raises:
        ValueError: an unknown key, or a value of the wrong type (the message names the key).
    """
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValueError(f"config section {path or '<root>'!r} must be a mapping, got {type(data).__name__}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    hints = typing.get_type_hints(cls)
    unknown = sorted(set(data) - set(fields))
    if unknown:
        where = f" in section {path!r}" if path else ""
        raise ValueError(f"unknown config key(s) {unknown}{where}; known keys: {sorted(fields)}")
    kwargs = {}
    for name, value in data.items():
        key = f"{path}.{name}" if path else name
        kwargs[name] = _coerce(value, hints[name], key)
    return cls(**kwargs)


def _coerce(value: Any, tp: Any, key: str) -> Any:
    """Check ``value`` against the annotation ``tp`` (and convert where lossless)."""
    if dataclasses.is_dataclass(tp):
        return from_dict(value, tp, key)
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        errors = []
        for tp_i in inner:
            try:
                return _coerce(value, tp_i, key)
            except ValueError as exc:
                errors.append(str(exc))
        raise ValueError(errors[0] if len(errors) == 1 else f"config key {key!r}: none of {inner} fits {value!r}")
    if origin is list:
        if not isinstance(value, list):
            raise ValueError(f"config key {key!r} must be a list, got {value!r}")
        return [_coerce(x, args[0], f"{key}[{i}]") for i, x in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ValueError(f"config key {key!r} must be a mapping, got {value!r}")
        return dict(value)
    if tp is bool:
        if not isinstance(value, bool):
            raise ValueError(f"config key {key!r} must be true or false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                return int(value)
            raise ValueError(f"config key {key!r} must be an integer, got {value!r}")
        return value
    if tp is float:
        if isinstance(value, str):  # YAML 1.1 reads "3e-4" as a string
            try:
                return float(value)
            except ValueError:
                pass
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"config key {key!r} must be a number, got {value!r}")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise ValueError(f"config key {key!r} must be a string, got {value!r}")
        return value
    if tp is Any:
        return value
    raise ValueError(f"config key {key!r}: unsupported type {tp!r}")  # pragma: no cover - schema bug


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """Apply ``key=value`` overrides (dotted keys for nested sections) to plain config data.

    Values are parsed as YAML scalars/flow collections (``3``, ``true``, ``[64, 64]``, ``null``).

    Raises:
        ValueError: an override without ``=`` or that descends into a non-mapping.
    """
    import yaml

    out = _deepcopy(data)
    for item in overrides:
        if "=" not in item:
            raise ValueError(f"override {item!r} must look like key=value (e.g. ppo.learning_rate=3e-4)")
        key, raw = item.split("=", 1)
        parts = [p for p in key.strip().split(".") if p]
        if not parts:
            raise ValueError(f"override {item!r} has an empty key")
        node = out
        for p in parts[:-1]:
            node = node.setdefault(p, {})
            if not isinstance(node, dict):
                raise ValueError(f"override {item!r}: {p!r} is not a section")
        node[parts[-1]] = yaml.safe_load(raw) if raw.strip() else ""
    return out


def _deepcopy(data: dict[str, Any]) -> dict[str, Any]:
    return {k: _deepcopy(v) if isinstance(v, dict) else v for k, v in data.items()}


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> TrainConfig:
    """The embedded default, updated from a YAML file and ``key=value`` overrides, validated.

    Args:
        path: a YAML file (``configs/*.yaml``) or ``None`` for the embedded default.
        overrides: ``["ppo.learning_rate=3e-4", "env.num_envs=64"]``.

    Raises:
        ValueError: a missing/unreadable file, bad YAML, an unknown key or a bad value.
    """
    import yaml

    data: dict[str, Any] = {}
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise ValueError(f"config file {str(p)!r} not found")
        try:
            loaded = yaml.safe_load(p.read_text())
        except yaml.YAMLError as exc:
            raise ValueError(f"config file {str(p)!r} is not valid YAML: {exc}") from exc
        if loaded is not None and not isinstance(loaded, dict):
            raise ValueError(f"config file {str(p)!r} must hold a mapping at the top level")
        data = loaded or {}
    if overrides:
        data = apply_overrides(data, overrides)
    return from_dict(data).validate()


def describe() -> str:
    """Every config key with its default and documentation (for ``--help-config``)."""
    import inspect

    lines: list[str] = []

    def walk(cls: type, prefix: str) -> None:
        source = inspect.getsource(cls).splitlines()
        docs: dict[str, str] = {}
        pending: list[str] = []
        for line in source:
            s = line.strip()
            if s.startswith("#:"):
                pending.append(s[2:].strip())
            elif ":" in s and pending and not s.startswith(("#", '"')):
                docs[s.split(":")[0].strip()] = " ".join(pending)
                pending = []
            else:
                pending = []
        default = cls()
        for f in dataclasses.fields(cls):
            value = getattr(default, f.name)
            if dataclasses.is_dataclass(value):
                walk(type(value), f"{prefix}{f.name}.")
            else:
                lines.append(f"{prefix}{f.name} = {value!r}\n    {docs.get(f.name, '')}")

    walk(TrainConfig, "")
    return "\n".join(lines)
