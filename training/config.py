"""Typed, documented training configuration, loaded safely from YAML.

A config is a tree of dataclasses; every field is a :func:`setting` with its documentation (with
its allowed range) and a base value, its default: ``TrainConfig()`` (plain MaskablePPO against
greedy, ``configs/monkey_fun_2p_plain_ppo.yaml``). The embedded default run of
``python -m training.run`` without ``--config`` is ``configs/default.yaml`` over those base values
(:func:`default_run`: the strongest Monkey Fun recipe, every key spelled out). YAML files in
``configs/`` override any subset of the base values::

    seed: 1
    total_timesteps: 100000
    env:
      opponent: random
    ppo:
      learning_rate: 0.001

``load_config(path, overrides=["ppo.n_steps=64"])`` reads the file with a strict safe YAML
loader, applies ``--set``-style overrides (dotted keys, values parsed as YAML scalars or flow
collections), and checks every key and value: an unknown key, a wrong type or an out-of-range
value raises :class:`ConfigError` (a ``ValueError``) whose message is ``<key>: <why>`` -- before
anything is built or written.

Untrusted input: the loader refuses YAML anchors, aliases and merge keys (a "billion laughs"
file fails at its first anchor), duplicate keys and any non-standard tag; files over 1 MiB and
values nested too deeply are refused; integers must be integers (``1e12`` or ``true`` are not),
numbers finite and within each key's documented range; messages quote values cut to 80
characters.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from pathlib import Path
from typing import Any

from agents.strict_yaml import (  # the shared strict reader (training.run / exploit import these names from here)
    ConfigError,
    _no_alias_dumper,
    cut,
    parse_yaml,
    read_yaml,
    short,
)
from monkey_envs.games import DEFAULT_GAME

#: Algorithms this runner knows (more SB3 algorithms can be added to ``training.run.ALGOS``).
ALGOS = ("maskable_ppo", "rllib_ppo")
ACTIVATIONS = ("tanh", "relu")
#: Policy heads (see :mod:`training.policies`).
HEADS = ("linear", "scorer")
DEVICES = ("cpu", "cuda", "auto")

#: Limits (documented per key below).
MAX_STEPS = 10**10
#: ``init_model`` of a recipe that must start from a trained policy (``training.run`` refuses to
#: train it from fresh weights).
INIT_MODEL_REQUIRED = "required"
MAX_SEED = 2**63
MAX_ENVS = 65_536
MAX_ROLLOUT = 2**20
MAX_WIDTH = 4096
MAX_LAYERS = 16
MAX_THREADS = 256
MAX_WORKERS = 256
MAX_GAMES = 100_000
MAX_SNAPSHOTS = 1000
MAX_CHECKPOINTS = 10_000
#: Size limits of the input itself (the file's size and nesting: :mod:`agents.strict_yaml`).
MAX_VALUE_CHARS = 1 << 16
MAX_STRING = 4096
MAX_LIST = 1024


def setting(doc: str, default: Any = dataclasses.MISSING, *, default_factory: Any = dataclasses.MISSING) -> Any:
    """A config key of the schema: its base value (``default`` or ``default_factory``) and its
    documentation, kept in the field's ``metadata["doc"]`` -- what ``--help-config`` prints
    (:func:`describe`), with the key's allowed range."""
    return dataclasses.field(default=default, default_factory=default_factory, metadata={"doc": doc})


@dataclasses.dataclass
class EnvConfig:
    """The training environment: a native batched SB3 VecEnv of one game."""

    game: str = setting(
        "Game name (a key of ``monkey_envs.games.GAMES``; default: the registry's first game).",
        DEFAULT_GAME,
    )
    game_options: dict[str, Any] = setting(
        "Options passed to the game, e.g. ``{num_players: 2, variant: normal, board_side: 1}`` "
        "(plain values: numbers, strings, booleans, null, or short lists of them).",
        default_factory=lambda: {"num_players": 2},
    )
    num_envs: int = setting(
        "Games played side by side in the VecEnv (rows of the batched core). Range: [1, 65536].",
        128,
    )
    opponent: str | list[str] = setting(
        "Opponent of every other seat: an agent name (``random``, ``greedy``, ``track``, ...) or "
        "``ppo:PATH`` (a policy's safe files; ``ppo+pickle:PATH`` unpickles a trusted SB3 zip); or a "
        "list of them -- a mix: every episode, each opponent seat draws one (uniformly, or by "
        "``opponent_weights``).",
        "greedy",
    )
    opponent_weights: list[float] | None = setting(
        "Weights of a mix (one per entry of ``opponent``; finite, >= 0, positive sum), or ``null`` for uniform.",
        None,
    )
    learner_seat: int | None = setting(
        "Fixed learner seat (in [0, players)), or ``null`` for a random seat per episode.",
        None,
    )
    learner_actions: str | None = setting(
        "Restrict the learner to one of the game's action filters (``null``: every legal action). "
        "Funky Monkey: ``honest`` -- announcements always equal the card (the honest-only ablation).",
        None,
    )


@dataclasses.dataclass
class PPOConfig:
    """Hyperparameters of sb3-contrib's ``MaskablePPO`` (same names as its constructor)."""

    learning_rate: float = setting(
        "Adam step size. Range: (0, 1].",
        1e-3,
    )
    n_steps: int = setting(
        "Steps per env per rollout (rollout size = ``n_steps * num_envs``, at most 2**20). Range: [1, 2**20].",
        32,
    )
    batch_size: int = setting(
        "Minibatch size (should divide ``n_steps * num_envs``). Range: [2, n_steps * num_envs].",
        1024,
    )
    n_epochs: int = setting(
        "Optimisation passes over each rollout. Range: [1, 1000].",
        8,
    )
    gamma: float = setting(
        "Discount factor. Range: (0, 1].",
        0.95,
    )
    gae_lambda: float = setting(
        "GAE lambda. Range: [0, 1].",
        0.95,
    )
    clip_range: float = setting(
        "PPO clipping range. Range: (0, 1].",
        0.2,
    )
    ent_coef: float = setting(
        "Entropy bonus coefficient. Range: [0, 1].",
        0.01,
    )
    vf_coef: float = setting(
        "Value loss coefficient. Range: [0, 10].",
        0.5,
    )
    max_grad_norm: float = setting(
        "Gradient clipping norm. Range: (0, 1000].",
        0.5,
    )
    net_arch: list[int] = setting(
        "Hidden layer sizes of the policy and value networks (separate networks of this shape). "
        "Range: 1 to 16 layers, each of 1 to 4096 units.",
        default_factory=lambda: [128, 128],
    )
    activation: str = setting(
        "Hidden activation: ``tanh`` or ``relu``.",
        "relu",
    )
    features: str = setting(
        "Feature extractor: ``auto`` (the game's registered default, else ``mlp``), ``mlp`` (flatten "
        "the observation; every game) or a name the game registers (``agents.registry.register_features``; "
        "Monkey Fun: ``board`` -- per-action target-field features from a convolution over the board, "
        "its default -- and ``greedy`` -- ``board`` plus the greedy heuristic's evaluation terms of each "
        "action, normal/quick game). Checked against the game before training starts.",
        "auto",
    )
    head: str = setting(
        "Policy head: ``linear`` (SB3's MLP then a linear layer over all actions) or ``scorer`` "
        "(one network shared by every action with a per-action block scores it from that block; needs "
        "features with per-action blocks, e.g. Monkey Fun's ``board`` or ``greedy``; ``net_arch`` sets "
        "its hidden sizes).",
        "linear",
    )
    board_channels: int = setting(
        "Convolution channels of the ``board`` extractor. Range: [1, 1024].",
        16,
    )


SAMPLING = ("uniform", "latest", "prioritized")
PRETRAIN_OBJECTIVES = ("imitation", "rollout_q")


@dataclasses.dataclass
class SelfPlayConfig:
    """Self-play: opponents drawn from a pool of frozen snapshots of the learner (and heuristics).

    Every ``snapshot_every`` steps the current policy is frozen, saved to
    ``<run>/snapshots/snapshot_<steps>.zip`` (+ its safe files) and added to the pool; each
    episode, every opponent seat draws a pool member (see ``training/selfplay.py``).
    """

    enabled: bool = setting(
        "Turn self-play on (``env.opponent`` then only seeds the pool, see ``heuristic_share``).",
        False,
    )
    snapshot_every: int = setting(
        "Learner steps between snapshots (the first snapshot, of the initial policy, is taken at 0). "
        "Range: [1, 10**10], and at most 1000 snapshots per run (``total_timesteps / snapshot_every``).",
        50_000,
    )
    sampling: str = setting(
        "How snapshots are drawn: ``uniform`` over the window, ``latest`` (always the newest), "
        "or ``prioritized`` (weight ``(1 - w) ** priority_power`` with ``w`` the learner's smoothed "
        "win rate against the member, rescaled so the fair share ``1 / P`` counts as 0.5: opponents "
        "it still loses to come up more often).",
        "uniform",
    )
    window: int = setting(
        "Only the newest ``window`` snapshots are drawn (older ones get weight 0). Range: [1, 1000].",
        10,
    )
    priority_power: float = setting(
        "Exponent of prioritized sampling. Range: [0, 100].",
        2.0,
    )
    win_rate_memory: int | None = setting(
        "Prioritized sampling reads the learner's win rate over roughly the last this many "
        "episodes of the pool (older episodes fade by ``1 - 1 / win_rate_memory`` per later "
        "episode), so a snapshot the learner has since learned to beat comes up less; ``null`` "
        "counts every episode alike. Range: [1, 10**9] or null.",
        5000,
    )
    heuristic_share: float = setting(
        "Keep ``env.opponent`` (heuristics) in the pool, sharing this probability of the draws "
        "(0 drops them once the first snapshot exists). Range: [0, 1).",
        0.2,
    )
    deterministic: bool = setting(
        "Snapshots sample their moves (``false``) or take the most likely one (``true``).",
        False,
    )


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

    teacher: str | None = setting(
        "Teacher agent name (e.g. ``greedy``, ``track``, or the search agent ``mcts``: asked through its state), or ``null`` for no pretraining.",
        None,
    )
    games: int = setting(
        "Teacher's games to record. Range: [1, 100000].",
        2000,
    )
    epochs: int = setting(
        "Passes over the recorded decisions. Range: [1, 10000].",
        10,
    )
    batch_size: int = setting(
        "Minibatch size. Range: [2, 2**20].",
        1024,
    )
    learning_rate: float = setting(
        "Adam step size. Range: (0, 1].",
        1e-3,
    )
    objective: str = setting(
        "``imitation`` (behaviour cloning) or ``rollout_q`` (fit the teacher's action values).",
        "imitation",
    )
    probe_prob: float = setting(
        "``rollout_q``: chance that a decision of the teacher's games becomes a probe state. Range: (0, 1].",
        0.1,
    )
    table: list[str] | None = setting(
        "``rollout_q``: agent names for a mixed table, or ``null``: the teacher plays every seat. "
        "With a table, every seat of every recorded game plays one of these agents (drawn uniformly "
        "per game and seat; the teacher only if listed), and each play-out goes on with those "
        "seats, the acting seat as the teacher: its action values are the teacher's against the "
        "table its position came from.",
        None,
    )
    workers: int = setting(
        "``rollout_q``: processes that play out the probe states (chunks of 1,000 positions shared "
        "out to ``spawn``-started workers; 1: this process only; 0: one per CPU core this process "
        "may use, ``os.sched_getaffinity``). The action values do not depend on it (each chunk's "
        "teacher is seeded from the chunk, each position's chance from its own row). Range: [0, 256].",
        0,
    )


@dataclasses.dataclass
class EvalConfig:
    """Evaluation after training: batched, seat-balanced games against fixed opponents."""

    opponents: list[str] = setting(
        "Opponents: a name or ``ppo:PATH`` (plays every other seat), or a line-up of ``P - 1`` "
        "joined by ``+`` (``honest+skeptic+track``: one agent per other seat; paths must not hold ``+``). "
        "Must not be empty when ``num_games > 0``.",
        default_factory=lambda: ["random", "greedy"],
    )
    num_games: int = setting(
        "Games per opponent (>= 500 for a tight interval). Range: [0, 100000], a multiple of the "
        "player count (seat-balanced games); 0: no final evaluation.",
        1000,
    )
    seed: int = setting(
        "Seed of the evaluation deals (independent of the training seed). Range: [0, 2**63).",
        1_000_003,
    )
    deterministic: bool = setting(
        "Evaluate the policy's most likely action (``true``) or sample from it.",
        True,
    )
    curve_every: int = setting(
        "Learner steps between learning-curve evaluations (``0``: none; ``curve.csv``/``curve.png``). "
        "Range: [0, 10**10].",
        50_000,
    )
    curve_games: int = setting(
        "Games per opponent at each learning-curve point. Range: [1, 100000], a multiple of the "
        "player count when curve points are taken.",
        200,
    )
    save_games: bool = setting(
        "Also write every final-evaluation game (seed + moves) to ``games_vs_<opponent>.json`` in the "
        "run folder: replay one with ``python -m monkey_envs.replay FILE``.",
        False,
    )


@dataclasses.dataclass
class RayConfig:
    """Ray's own keys, read by ``algo: rllib_ppo`` (RLlib's PPO on the batched core)."""

    address: str | None = setting(
        "Ray cluster to join (``ray start --head`` prints it, e.g. ``10.0.0.1:6379``; ``auto``: the "
        "one ``RAY_ADDRESS`` or a local ``ray start`` names); ``null``: start a Ray of the run's own on "
        "this machine (even where a cluster runs here).",
        None,
    )
    num_cpus: int = setting(
        "CPUs of the Ray started on this machine (with ``address: null``; 0: all). Range: [0, 4096].",
        0,
    )
    num_env_runners: int = setting(
        "RLlib env runners (Ray worker processes sampling in parallel; 0: sample in the driver). Range: [0, 1024].",
        0,
    )
    num_envs_per_env_runner: int = setting(
        "Games each env runner steps per call of the batched core. Range: [1, 65536].",
        64,
    )
    num_learners: int = setting(
        "RLlib learner workers (0: learn in the driver). Range: [0, 256].",
        0,
    )
    num_gpus_per_learner: float = setting(
        "GPUs per learner (0: CPU). Range: [0, 8].",
        0.0,
    )


@dataclasses.dataclass
class TrainConfig:
    """One training run: algorithm, budget, environment, hyperparameters, evaluation."""

    imports: list[str] = setting(
        "Modules to import before anything else (plugins that register games or agents, e.g. a game "
        "from another package); ``--import MODULE`` adds one. Dotted module names; importing runs "
        "that module's code, so name only modules you trust.",
        default_factory=list,
    )
    algo: str = setting(
        "Algorithm: ``maskable_ppo`` (sb3-contrib) or ``rllib_ppo`` (RLlib's PPO on the batched "
        "core, the ``ray`` keys; against ``env.opponent``, without self-play, pretraining or "
        "``init_model`` yet).",
        "maskable_ppo",
    )
    total_timesteps: int = setting(
        "Environment steps of the learner to train for (0: no reinforcement learning, only the "
        "pretraining; needs ``pretrain.teacher``). Range: [0, 10**10].",
        400_000,
    )
    seed: int = setting(
        "Seed of the envs, the network initialisation and the learner's sampling. Range: [0, 2**63).",
        0,
    )
    runs_dir: str = setting(
        "Folder under which the run folder ``<game>__<algo>__<seed>__<time>`` is created.",
        "runs",
    )
    progress_bar: bool = setting(
        "Show a progress bar while training (tqdm + rich).",
        True,
    )
    torch_threads: int = setting(
        "Torch CPU threads (``0`` keeps torch's default). Range: [0, 256].",
        1,
    )
    device: str = setting(
        "Training device for torch (``cpu``, ``cuda``, ``auto``).",
        "cpu",
    )
    init_model: str | None = setting(
        "Start from the weights of a saved policy (same game, sizes and network) instead of a fresh "
        "one -- to resume from a checkpoint or fine-tune a model (``null``: fresh). An SB3 ``.zip`` "
        "loads its policy and optimizer tensors (``torch.load(weights_only=True)``, its pickled "
        "``data`` is not read); a ``.safetensors`` / ``.json`` / run folder loads the safe weights. "
        "``required``: a recipe that fine-tunes a trained policy, which refuses to start until one is "
        "given (``--set init_model=...``) rather than train from fresh weights.",
        None,
    )
    checkpoint_every: int = setting(
        "Learner steps between checkpoints in ``<run>/checkpoints/`` (``0``: none). Range: [0, 10**10], "
        "and at most 10000 checkpoints per run.",
        100_000,
    )
    tensorboard: bool = setting(
        "Also write a TensorBoard log to ``<run>/tb/`` (needs the ``tensorboard`` package).",
        True,
    )
    env: EnvConfig = dataclasses.field(default_factory=EnvConfig)
    ppo: PPOConfig = dataclasses.field(default_factory=PPOConfig)
    selfplay: SelfPlayConfig = dataclasses.field(default_factory=SelfPlayConfig)
    pretrain: PretrainConfig = dataclasses.field(default_factory=PretrainConfig)
    eval: EvalConfig = dataclasses.field(default_factory=EvalConfig)
    ray: RayConfig = dataclasses.field(default_factory=RayConfig)

    @property
    def opponents(self) -> list[str]:
        """``env.opponent`` as a list (one entry for a single opponent)."""
        o = self.env.opponent
        return [o] if isinstance(o, str) else list(o)

    # ------------------------------------------------------------------ checks
    def validate(self) -> TrainConfig:
        """Check value ranges and cross-field constraints; return ``self``.

        Raises:
            ConfigError: the first problem found, naming the key.
        """
        _check(self.algo in ALGOS, "algo", f"must be one of {ALGOS}, got {short(self.algo)}")
        r = self.ray
        _check(
            r.address is None or (isinstance(r.address, str) and bool(r.address)),
            "ray.address",
            f"must be null or a cluster address, got {short(r.address)}",
        )
        _int_range(r.num_cpus, "ray.num_cpus", 0, 4096)
        _int_range(r.num_env_runners, "ray.num_env_runners", 0, 1024)
        _int_range(r.num_envs_per_env_runner, "ray.num_envs_per_env_runner", 1, 65536)
        _int_range(r.num_learners, "ray.num_learners", 0, 256)
        _float_range(r.num_gpus_per_learner, "ray.num_gpus_per_learner", 0.0, 8.0)
        if self.algo == "rllib_ppo":
            for ok, key, why in (
                (self.pretrain.teacher is None, "pretrain.teacher", "pretraining is not on the rllib_ppo path yet"),
                (self.init_model is None, "init_model", "starting from saved weights is not on the rllib_ppo path yet"),
                (
                    self.env.learner_actions is None,
                    "env.learner_actions",
                    "action filters are not on the rllib_ppo path yet",
                ),
                (self.ppo.features == "mlp", "ppo.features", "the rllib_ppo path reads the flat observation: set mlp"),
                (self.ppo.head == "linear", "ppo.head", "the rllib_ppo path has the linear head only"),
                (self.total_timesteps > 0, "total_timesteps", "rllib_ppo needs steps to train"),
            ):
                _check(ok, key, why)
        _int_range(self.total_timesteps, "total_timesteps", 0, MAX_STEPS)
        _check(
            self.total_timesteps > 0 or self.pretrain.teacher is not None,
            "total_timesteps",
            "0 (no reinforcement learning) needs pretraining (pretrain.teacher)",
        )
        _int_range(self.seed, "seed", 0, MAX_SEED - 1, shown="[0, 2**63)")
        _int_range(self.torch_threads, "torch_threads", 0, MAX_THREADS)
        _check(self.device in DEVICES, "device", f"must be cpu, cuda or auto, got {short(self.device)}")
        _check(bool(self.runs_dir), "runs_dir", "must name a folder")
        for i, module in enumerate(self.imports):
            _check(
                bool(module) and all(part.isidentifier() for part in module.split(".")),
                f"imports[{i}]",
                f"must be a dotted module name, got {short(module)}",
            )
        e = self.env
        _check(
            isinstance(e.game, str) and e.game.isidentifier(), "env.game", f"must be a game name, got {short(e.game)}"
        )
        _int_range(e.num_envs, "env.num_envs", 1, MAX_ENVS)
        _check(
            bool(self.opponents) and all(isinstance(o, str) and o for o in self.opponents),
            "env.opponent",
            "must name an agent or a non-empty list of agents",
        )
        _check(
            len(set(self.opponents)) == len(self.opponents),
            "env.opponent",
            f"lists an agent twice ({short(self.opponents)}); give it a larger share with env.opponent_weights instead",
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
                f"must be >= 0 with a positive sum, got {short(e.opponent_weights)}",
            )
        if e.learner_seat is not None:
            _int_range(e.learner_seat, "env.learner_seat", 0, 1023)
        _int_range(self.checkpoint_every, "checkpoint_every", 0, MAX_STEPS)
        if self.checkpoint_every:
            _check(
                self.total_timesteps // self.checkpoint_every <= MAX_CHECKPOINTS,
                "checkpoint_every",
                f"{self.checkpoint_every} would write {self.total_timesteps // self.checkpoint_every} checkpoints "
                f"(at most {MAX_CHECKPOINTS}); raise it",
            )
        sp = self.selfplay
        _int_range(sp.snapshot_every, "selfplay.snapshot_every", 1, MAX_STEPS)
        if sp.enabled:
            _check(
                self.total_timesteps // sp.snapshot_every + 1 <= MAX_SNAPSHOTS,
                "selfplay.snapshot_every",
                f"{sp.snapshot_every} would take {self.total_timesteps // sp.snapshot_every + 1} snapshots "
                f"(at most {MAX_SNAPSHOTS}, each kept in memory); raise it",
            )
        _check(sp.sampling in SAMPLING, "selfplay.sampling", f"must be one of {SAMPLING}, got {short(sp.sampling)}")
        _int_range(sp.window, "selfplay.window", 1, 1000)
        if sp.win_rate_memory is not None:
            _int_range(sp.win_rate_memory, "selfplay.win_rate_memory", 1, 10**9, shown="[1, 10**9] or null")
        _float_range(sp.priority_power, "selfplay.priority_power", 0, 100)
        _float_range(sp.heuristic_share, "selfplay.heuristic_share", 0, 1, hi_open=True)
        pt = self.pretrain
        _int_range(pt.games, "pretrain.games", 1, MAX_GAMES)
        _int_range(pt.epochs, "pretrain.epochs", 1, 10_000)
        _int_range(pt.batch_size, "pretrain.batch_size", 2, MAX_ROLLOUT, shown="[2, 2**20]")
        _float_range(pt.learning_rate, "pretrain.learning_rate", 0, 1, lo_open=True)
        _check(
            pt.objective in PRETRAIN_OBJECTIVES,
            "pretrain.objective",
            f"must be one of {PRETRAIN_OBJECTIVES}, got {short(pt.objective)}",
        )
        _float_range(pt.probe_prob, "pretrain.probe_prob", 0, 1, lo_open=True)
        if pt.table is not None:
            _check(
                isinstance(pt.table, list) and bool(pt.table) and all(isinstance(a, str) and a for a in pt.table),
                "pretrain.table",
                f"must be a non-empty list of agent names or null, got {short(pt.table)}",
            )
            _check(
                pt.objective == "rollout_q",
                "pretrain.table",
                f"is used by the rollout_q objective only (pretrain.objective is {short(pt.objective)})",
            )
        _int_range(pt.workers, "pretrain.workers", 0, MAX_WORKERS)
        p = self.ppo
        _float_range(p.learning_rate, "ppo.learning_rate", 0, 1, lo_open=True)
        _int_range(p.n_steps, "ppo.n_steps", 1, MAX_ROLLOUT, shown="[1, 2**20]")
        rollout = p.n_steps * e.num_envs
        _check(
            rollout <= MAX_ROLLOUT,
            "ppo.n_steps",
            f"the rollout n_steps * num_envs = {rollout} exceeds {MAX_ROLLOUT} (2**20); lower n_steps or env.num_envs",
        )
        _int_range(p.batch_size, "ppo.batch_size", 2, MAX_ROLLOUT, shown="[2, n_steps * num_envs]")
        _check(
            p.batch_size <= rollout,
            "ppo.batch_size",
            f"{p.batch_size} exceeds the rollout size n_steps * num_envs = {rollout}",
        )
        _int_range(p.n_epochs, "ppo.n_epochs", 1, 1000)
        _float_range(p.gamma, "ppo.gamma", 0, 1, lo_open=True)
        _float_range(p.gae_lambda, "ppo.gae_lambda", 0, 1)
        _float_range(p.clip_range, "ppo.clip_range", 0, 1, lo_open=True)
        _float_range(p.ent_coef, "ppo.ent_coef", 0, 1)
        _float_range(p.vf_coef, "ppo.vf_coef", 0, 10)
        _float_range(p.max_grad_norm, "ppo.max_grad_norm", 0, 1000, lo_open=True)
        _check(
            1 <= len(p.net_arch) <= MAX_LAYERS and all(1 <= h <= MAX_WIDTH for h in p.net_arch),
            "ppo.net_arch",
            f"needs 1 to {MAX_LAYERS} layer sizes in [1, {MAX_WIDTH}], got {short(p.net_arch)}",
        )
        _check(
            p.activation in ACTIVATIONS, "ppo.activation", f"must be one of {ACTIVATIONS}, got {short(p.activation)}"
        )
        _check(
            isinstance(p.features, str) and p.features.isidentifier(),
            "ppo.features",
            f"must be a features name, got {short(p.features)}",
        )
        _check(p.head in HEADS, "ppo.head", f"must be one of {HEADS}, got {short(p.head)}")
        _check(
            p.head != "scorer" or p.features != "mlp",
            "ppo.head",
            "'scorer' needs per-action features (a game's registered features, e.g. 'board'), not 'mlp'",
        )
        _int_range(p.board_channels, "ppo.board_channels", 1, 1024)
        v = self.eval
        _int_range(v.num_games, "eval.num_games", 0, MAX_GAMES)
        _int_range(v.seed, "eval.seed", 0, MAX_SEED - 1, shown="[0, 2**63)")
        _check(all(isinstance(o, str) and o for o in v.opponents), "eval.opponents", "must be agent names")
        _check(
            bool(v.opponents) or v.num_games == 0,
            "eval.opponents",
            f"is empty but eval.num_games is {v.num_games}; name opponents or set eval.num_games: 0",
        )
        _int_range(v.curve_every, "eval.curve_every", 0, MAX_STEPS)
        _int_range(v.curve_games, "eval.curve_games", 1, MAX_GAMES)
        return self

    def check_players(self, num_players: int) -> None:
        """Check the counts that depend on the game's player count (seat-balanced evaluations).

        Raises:
            ConfigError: ``eval.num_games`` (or ``eval.curve_games`` when curve points are taken)
                not a multiple of ``num_players``, or ``env.learner_seat`` outside the seats.
        """
        v = self.eval
        P = int(num_players)
        _check(
            v.num_games % P == 0,
            "eval.num_games",
            f"must be a multiple of the player count {P} (seat-balanced games), got {v.num_games}",
        )
        if v.curve_every and v.opponents:
            _check(
                v.curve_games % P == 0,
                "eval.curve_games",
                f"must be a multiple of the player count {P} (seat-balanced games), got {v.curve_games}",
            )
        seat = self.env.learner_seat
        _check(
            seat is None or 0 <= seat < P,
            "env.learner_seat",
            f"must be in [0, {P}) or null, got {short(seat)}",
        )

    def to_dict(self) -> dict[str, Any]:
        """The resolved config as plain data (what ``config.yaml`` of a run holds)."""
        return dataclasses.asdict(self)


def _check(ok: bool, key: str, message: str) -> None:
    if not ok:
        raise ConfigError(key, message)


def _int_range(value: int, key: str, lo: int, hi: int, shown: str | None = None) -> None:
    _check(lo <= value <= hi, key, f"must be in {shown or f'[{lo}, {_num(hi)}]'}, got {short(value)}")


def _float_range(value: float, key: str, lo: float, hi: float, lo_open: bool = False, hi_open: bool = False) -> None:
    ok = (lo < value if lo_open else lo <= value) and (value < hi if hi_open else value <= hi)
    shown = f"{'(' if lo_open else '['}{_num(lo)}, {_num(hi)}{')' if hi_open else ']'}"
    _check(ok and math.isfinite(value), key, f"must be in {shown}, got {short(value)}")


def _num(x: float) -> str:
    if x == MAX_STEPS:
        return "10**10"
    return str(int(x)) if float(x).is_integer() else str(x)


# ====================================================================== YAML
def dump_config(cfg: TrainConfig) -> str:
    """``cfg`` as YAML (no anchors or aliases: the strict loader reads it back)."""
    import yaml

    return yaml.dump(cfg.to_dict(), Dumper=_no_alias_dumper(), sort_keys=False)


# ====================================================================== loading
def from_dict(data: dict[str, Any] | None, cls: type = TrainConfig, path: str = "") -> Any:
    """Build the dataclass ``cls`` from nested plain data, checking keys and types.

    Raises:
        ConfigError: an unknown key, or a value of the wrong type (the message names the key).
    """
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(path or "<root>", f"must be a mapping of keys, got {type(data).__name__}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    hints = typing.get_type_hints(cls)
    bad = [k for k in data if not isinstance(k, str)]
    if bad:
        raise ConfigError(path or "<root>", f"keys must be strings, got {short(bad[0])}")
    unknown = [k for k in data if k not in fields]
    if unknown:
        key = f"{path}.{unknown[0]}" if path else unknown[0]
        more = f" (also unknown: {short(unknown[1:])})" if len(unknown) > 1 else ""
        where = f" in section {path!r}" if path else ""
        raise ConfigError(cut(key), f"unknown config key{more}; known keys{where}: {sorted(fields)}")
    kwargs = {}
    for name, value in data.items():
        key = f"{path}.{name}" if path else name
        kwargs[name] = _coerce(value, hints[name], key)
    return cls(**kwargs)


def _type_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(a) for a in typing.get_args(tp))
    if origin is list:
        inner = typing.get_args(tp)[0]
        return "a list of " + {int: "integers", float: "numbers", str: "strings"}.get(inner, str(inner))
    return {int: "an integer", float: "a number", str: "a string", bool: "true or false", type(None): "null"}.get(
        tp, "a mapping" if origin is dict else str(tp)
    )


def _plain(value: Any, key: str, depth: int = 0) -> Any:
    """A game option: a finite number, short string, boolean, null or a short list of them."""
    if value is None or isinstance(value, (bool, str)):
        if isinstance(value, str) and len(value) > 256:
            raise ConfigError(key, f"a string of at most 256 characters, got {short(value)}")
        return value
    if isinstance(value, int):
        if abs(value) > 2**62:
            raise ConfigError(key, f"must be an integer in [-2**62, 2**62], got {short(value)}")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ConfigError(key, f"must be a finite number, got {short(value)}")
        return value
    if isinstance(value, list) and depth == 0 and len(value) <= 64:
        return [_plain(x, f"{key}[{i}]", 1) for i, x in enumerate(value)]
    raise ConfigError(key, f"must be a number, string, boolean, null or a short list of them, got {short(value)}")


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
            except ConfigError as exc:
                errors.append(exc)
        if len(errors) == 1:
            raise errors[0]
        raise ConfigError(key, f"must be {_type_name(tp)}, got {short(value)}")
    if origin is list:
        if not isinstance(value, list):
            raise ConfigError(key, f"must be a list, got {short(value)}")
        if len(value) > MAX_LIST:
            raise ConfigError(key, f"must hold at most {MAX_LIST} entries, got {len(value)}")
        return [_coerce(x, args[0], f"{key}[{i}]") for i, x in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(key, f"must be a mapping, got {short(value)}")
        if len(value) > 64:
            raise ConfigError(key, f"must hold at most 64 entries, got {len(value)}")
        out = {}
        for k, v in value.items():
            if not isinstance(k, str) or not k.isidentifier():
                raise ConfigError(key, f"keys must be names, got {short(k)}")
            out[k] = _plain(v, f"{key}.{k}")
        return out
    if tp is bool:
        if not isinstance(value, bool):
            raise ConfigError(key, f"must be true or false, got {short(value)}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(key, f"must be an integer, got {short(value)}")
        return value
    if tp is float:
        if isinstance(value, str):  # YAML 1.1 reads "3e-4" as a string
            try:
                value = float(value)
            except ValueError:
                raise ConfigError(key, f"must be a number, got {short(value)}") from None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(key, f"must be a number, got {short(value)}")
        try:
            out = float(value)
        except OverflowError:
            raise ConfigError(key, f"must be a finite number, got {short(value)}") from None
        if not math.isfinite(out):
            raise ConfigError(key, f"must be a finite number, got {short(value)}")
        return out
    if tp is str:
        if not isinstance(value, str):
            raise ConfigError(key, f"must be a string, got {short(value)}")
        if len(value) > MAX_STRING:
            raise ConfigError(key, f"must be at most {MAX_STRING} characters, got {len(value)}")
        return value
    if tp is Any:
        return value
    raise ConfigError(key, f"unsupported type {tp!r}")  # pragma: no cover - schema bug


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """Apply ``key=value`` overrides (dotted keys for nested sections) to plain config data.

    Values are parsed with the strict YAML loader as scalars/flow collections (``3``, ``true``,
    ``[64, 64]``, ``null``).

    Raises:
        ConfigError: an override without ``=``, with a bad value, or that descends into a non-mapping.
    """
    out = _deepcopy(data)
    for item in overrides:
        if not isinstance(item, str) or "=" not in item:
            raise ConfigError("--set", f"{short(item)} must look like KEY=VALUE (e.g. ppo.learning_rate=3e-4)")
        key, raw = item.split("=", 1)
        parts = [p for p in key.strip().split(".") if p]
        if not parts:
            raise ConfigError("--set", f"{short(item)} has an empty key")
        dotted = cut(".".join(parts))
        if len(raw) > MAX_VALUE_CHARS:
            raise ConfigError(dotted, f"the --set value has {len(raw)} characters (at most {MAX_VALUE_CHARS})")
        node = out
        for i, p in enumerate(parts[:-1]):
            node = node.setdefault(p, {})
            if not isinstance(node, dict):
                raise ConfigError(cut(".".join(parts[: i + 1])), f"is not a section (in --set {short(item)})")
        if raw.strip():
            node[parts[-1]] = parse_yaml(raw, dotted)
        else:
            node[parts[-1]] = ""
    return out


def _deepcopy(data: dict[str, Any]) -> dict[str, Any]:
    return {k: _deepcopy(v) if isinstance(v, dict) else list(v) if isinstance(v, list) else v for k, v in data.items()}


#: The embedded default run of ``python -m training.run`` without ``--config``: a config file of
#: the checkout, read like any other (keys it does not name keep their base values).
DEFAULT_CONFIG = Path(__file__).resolve().parents[1] / "configs" / "default.yaml"


def default_run() -> TrainConfig:
    """The embedded default run: :data:`DEFAULT_CONFIG` over the base values, validated.

    Raises:
        ConfigError: the file is missing (a ``training`` package installed without the
            checkout's ``configs/``: pass ``--config``) or holds a bad key or value.
    """
    return load_config(DEFAULT_CONFIG)


def _default_run_data() -> dict[str, Any]:
    data = read_yaml(DEFAULT_CONFIG)
    if not isinstance(data, dict):
        raise ConfigError(cut(str(DEFAULT_CONFIG), 200), "must hold a mapping of keys at the top level")
    return data


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> TrainConfig:
    """A YAML file over the base values -- or, without a file, the embedded default run
    (:data:`DEFAULT_CONFIG`, ``configs/default.yaml``) -- updated from ``key=value`` overrides,
    validated.

    Args:
        path: a YAML file (``configs/*.yaml``; keys it does not name keep their base values) or
            ``None`` for the embedded default run.
        overrides: ``["ppo.learning_rate=3e-4", "env.num_envs=64"]``.

    Raises:
        ConfigError: a missing/unreadable file, bad or refused YAML, an unknown key or a bad value.
    """
    where = DEFAULT_CONFIG if path is None else path
    loaded = read_yaml(where)
    if loaded is not None and not isinstance(loaded, dict):
        raise ConfigError(cut(str(where), 200), "must hold a mapping of keys at the top level")
    data: dict[str, Any] = loaded or {}
    if overrides:
        data = apply_overrides(data, overrides)
    return from_dict(data).validate()


def _dotted(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in data.items():
        if isinstance(v, dict) and k != "game_options":
            out.update(_dotted(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def describe() -> str:
    """Every config key with its default (base value), its value in the embedded default run
    where that differs, and its documentation -- all read from the schema (the dataclasses'
    fields and their :func:`setting` docs; for ``--help-config``)."""
    lines: list[str] = [
        "Every key = its default (what a --config file leaves unnamed gets); [default run: X] marks a key",
        f"that `python -m training.run` without --config sets otherwise ({_shown_path(DEFAULT_CONFIG)}).",
        "",
    ]
    run = _dotted(_default_run_data())

    def walk(cls: type, prefix: str) -> None:
        default = cls()
        for f in dataclasses.fields(cls):
            value = getattr(default, f.name)
            if dataclasses.is_dataclass(value):
                walk(type(value), f"{prefix}{f.name}.")
            else:
                key = f"{prefix}{f.name}"
                mark = f" [default run: {run[key]!r}]" if key in run and run[key] != value else ""
                lines.append(f"{key} = {value!r}{mark}\n    {f.metadata.get('doc', '')}")

    walk(TrainConfig, "")
    return "\n".join(lines)


def _shown_path(path: Path) -> str:
    """``path`` relative to the checkout when it lies in it (``configs/default.yaml``)."""
    try:
        return str(path.relative_to(Path(__file__).resolve().parents[1]))
    except ValueError:
        return str(path)
