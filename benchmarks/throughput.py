"""Throughput of the game cores and their AEC faces against Pgx and PettingZoo, in the same run.

::

    python benchmarks/throughput.py                          # every game, 5 rounds x 1.5 s per row
    python benchmarks/throughput.py --rounds 5 --seconds 1.5 --markdown
    python benchmarks/throughput.py --games funky_monkey --players 4 --batch-sizes 1 4096
    python benchmarks/throughput.py --scaling --out docs/benchmarks/scaling.png   # + scaling.csv
    python benchmarks/throughput.py --check-threads          # does XLA_FLAGS make XLA one thread?

Every row's step is the same work: a uniformly random legal action per row from the legal mask,
the step, the new legal mask and the observation of the player to move; finished games restart.

- **core, batch B** (every registered game, its spec's player counts): ``game.step_inplace`` on
  a batch of ``B`` games with the random actions drawn from ``state.legal_action_mask`` by one
  compiled (numba) pass, ``game.observe(..., out=)`` of the player to move into one kept buffer,
  finished rows restarted in place with new seeds (``game.reset_rows``): the forms a training loop
  that owns its batch uses (the vector faces do). ``--copying`` adds a twin row per core row that
  steps through the copying forms (``game.step`` returns a new state, ``state.put(rows,
  game.init(seeds))``, a new observation array each step): the same games, bit for bit. Reference:
  **Pgx** ``connect_four`` on the CPU at the same ``B`` -- one ``jax.jit``-compiled function that
  draws the actions (``jax.random.categorical`` over the masked logits), steps ``jax.vmap`` of
  ``pgx.experimental.auto_reset(env.step, env.init)`` (Pgx computes ``legal_action_mask`` and
  ``observation`` inside ``step``), timed with ``block_until_ready``. Needs the ``peers`` extra
  (``pip install '.[peers]'``); without it the Pgx rows print as absent and the core rows have no
  ratio.
- **AEC**: the game's PettingZoo ``env()`` (its first player count) through ``agent_iter`` /
  ``last`` / ``step`` with a random legal action from ``obs["action_mask"]``, ``reset`` after
  every game. Reference: PettingZoo's ``connect_four_v3`` through the same loop (the ``bench``
  extra, ``pettingzoo[classic]``).

How it is timed: every row is built and warmed up (one step, which compiles the Pgx function)
before the clock starts; then ``--rounds`` rounds, in each of which every row in turn steps for
``--seconds`` of wall time. A turn's rate is its decisions over the CPU time the process got in it
(``time.process_time``; ``--clock wall`` divides by wall time instead), so other programs sharing
the core lengthen the run but do not lower the rates (what they do to the caches still shows). A
row's steps/s is the median of its rounds, and its ratio is the median over the rounds of (its
rate / its reference's rate in the same round), so load that changes between rounds cancels out
of the ratios as far as it can. Only decisions count as steps (the ``None`` steps of finished
AEC agents do not).

One core, one thread: the process pins itself to one core (``os.sched_setaffinity``, ``--core``)
before anything starts a thread, so every thread it makes (numba's, XLA's pools) inherits it; the
header counts the threads on that core after the run. BLAS, OpenMP and numba get one thread
(``*_NUM_THREADS=1``); XLA gets ``--xla_cpu_multi_thread_eigen=false
intra_op_parallelism_threads=1`` in ``XLA_FLAGS`` and ``JAX_PLATFORMS=cpu``, set before jax is
imported. ``--check-threads`` shows the flag working: it times 1500 x 1500 ``jit`` matmuls in
unpinned subprocesses with and without it and prints CPU time / wall time, about the number of
cores kept busy (on an idle machine; measured here: 1.96 without, 0.89 with). The pin is what
guarantees one core; the flag keeps XLA from splitting work across threads that would then take
turns on it. Benchmarks are not tests.
"""

from __future__ import annotations

import os

#: Thread limits set before numpy, numba or jax load (the XLA flag is checked by --check-threads).
XLA_ONE_THREAD_FLAGS = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
ONE_THREAD_ENV = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
    "TF_NUM_INTRAOP_THREADS": "1",
    "TF_NUM_INTEROP_THREADS": "1",
    "JAX_PLATFORMS": "cpu",
}
for _var, _value in ONE_THREAD_ENV.items():
    os.environ.setdefault(_var, _value)
if "xla_cpu_multi_thread_eigen" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{XLA_ONE_THREAD_FLAGS} {os.environ.get('XLA_FLAGS', '')}".strip()

import argparse  # noqa: E402
import csv  # noqa: E402
import dataclasses  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Protocol  # noqa: E402

import numba  # noqa: E402
import numpy as np  # noqa: E402

#: Batch sizes of the comparison table and of the scaling figure.
TABLE_BATCH_SIZES = [1, 64, 1024, 4096]
SCALING_BATCH_SIZES = [4**k for k in range(9)]  # 1, 4, ..., 65,536
PEERS_HINT = "absent: pip install '.[peers]'"
CONNECT_FOUR_HINT = "absent: pip install '.[bench]'"


class Stepper(Protocol):
    """A measured thing: each call does some steps and returns how many decisions they were."""

    def __call__(self) -> int: ...


# ====================================================================== the measured loops
class CoreStepper:
    """One batched step of a registered game per call: random legal actions, step, observe, autoreset.

    Args:
        game_name: a registered game.
        batch_size: ``B``, the rows stepped per call.
        num_players: the game's player count.
        seed: seeds the action RNG; the games use seeds ``0 .. B-1``, then the next free ones.
    """

    def __init__(self, game_name: str, batch_size: int, num_players: int, seed: int = 0, copying: bool = False) -> None:
        from monkey_envs.games import make_game

        self.game = make_game(game_name, num_players=num_players)
        self.batch_size = batch_size
        self.rng = np.random.default_rng(seed)
        self.state = self.game.init(np.arange(batch_size))
        self.next_seed = batch_size
        self.obs: np.ndarray = self.game.observe(self.state, self.state.current_player)
        self.copying = copying

    def random_legal(self, mask: np.ndarray) -> np.ndarray:
        """``(B,) int64`` a uniformly random legal action of each row of ``mask`` ``(B, A) bool`` (0 if none).

        One uniform per row from numpy's generator, then a compiled pass over the mask
        (:func:`_kth_legal`) takes the ``floor(u * n)``-th of the row's ``n`` legal actions: the draw
        is compiled, as Pgx's
        ``jax.random.categorical`` is compiled into its step.
        """
        out = np.empty(self.batch_size, np.int64)
        _kth_legal(mask, self.rng.random(self.batch_size), out)
        return out

    def __call__(self) -> int:
        game, state = self.game, self.state
        actions = self.random_legal(state.legal_action_mask)
        if self.copying:
            state = self.state = game.step(state, actions)
        else:
            game.step_inplace(state, actions)
        done = np.flatnonzero(state.terminated | state.truncated)
        if done.size:
            seeds = self.next_seed + np.arange(done.size)
            if self.copying:
                state.put(done, game.init(seeds))
            else:
                game.reset_rows(state, done, seeds)
            self.next_seed += done.size
        if self.copying:
            self.obs = game.observe(state, state.current_player)
        else:
            game.observe(state, state.current_player, out=self.obs)
        return self.batch_size

    def profile(self, calls: int) -> dict[str, float]:
        """CPU milliseconds per call of each piece of :meth:`__call__` (in-place forms), over ``calls`` calls.

        Pieces: ``draw`` (the random legal actions), ``step`` (``step_inplace``), ``done`` (finding
        the finished rows), ``reset`` (``reset_rows``), ``observe`` (``observe(out=)``) and
        ``total``. The same loop as :meth:`__call__`, with a ``time.process_time`` read between
        the pieces (about a microsecond each).
        """
        game, state, clock = self.game, self.state, time.process_time
        spent = dict.fromkeys(("draw", "step", "done", "reset", "observe"), 0.0)
        start = clock()
        for _ in range(calls):
            t0 = clock()
            actions = self.random_legal(state.legal_action_mask)
            t1 = clock()
            game.step_inplace(state, actions)
            t2 = clock()
            done = np.flatnonzero(state.terminated | state.truncated)
            t3 = clock()
            if done.size:
                game.reset_rows(state, done, self.next_seed + np.arange(done.size))
                self.next_seed += done.size
            t4 = clock()
            game.observe(state, state.current_player, out=self.obs)
            t5 = clock()
            for k, dt in zip(spent, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=True):
                spent[k] += dt
        spent["total"] = clock() - start
        return {k: 1000 * v / calls for k, v in spent.items()}

    def footprint(self) -> tuple[float, float]:
        """``(state bytes, observation bytes)`` per env: the arrays' ``nbytes`` over ``B``."""
        state = sum(a.nbytes for a in self.state.arrays().values())
        return state / self.batch_size, self.obs.nbytes / self.batch_size


_BYTE_ONES = np.uint64(0x0101010101010101)


@numba.njit(cache=True, inline="always")
def _word(m: np.ndarray, b: int, a: int) -> np.uint64:
    """Bytes ``m[b, a : a + 8]`` as one little-endian ``uint64`` (LLVM merges the eight loads into one)."""
    w = np.uint64(0)
    for i in range(8):
        w |= np.uint64(m[b, a + i]) << np.uint64(8 * i)
    return w


@numba.njit(cache=True)
def _kth_legal(mask: np.ndarray, u: np.ndarray, out: np.ndarray) -> None:
    """``out[b]`` = the ``floor(u[b] * n_b)``-th legal action of row ``b`` of ``mask`` (0 if it has none).

    The mask's bytes (0 or 1) are read eight at a time: a word's legal actions are the top byte of
    ``word * 0x0101010101010101``. One pass counts the row's legal actions word by word, the draw
    picks ``k``, a second pass over the kept word counts finds the word holding the ``k``-th, and
    a scan of its at most eight bytes finds the action: about 2.5x faster than one branch-free
    pass over every action (134 actions a row), the same actions drawn.
    """
    B, A = mask.shape
    m = mask.view(np.uint8)
    W = A // 8
    counts = np.empty(W, np.int64)
    for b in range(B):
        n = 0
        for w in range(W):
            c = np.int64((_word(m, b, 8 * w) * _BYTE_ONES) >> np.uint64(56))
            counts[w] = c
            n += c
        for a in range(8 * W, A):
            n += m[b, a]
        if n == 0:
            out[b] = 0
            continue
        k = min(int(u[b] * n), n - 1)
        seen = 0
        a = 0
        for w in range(W):
            if seen + counts[w] > k:
                break
            seen += counts[w]
            a += 8
        while True:  # the k-th legal action is in a's word (or the tail after the last word)
            seen += m[b, a]
            if seen > k:
                break
            a += 1
        out[b] = a


def core_stepper(
    game_name: str, batch_size: int, num_players: int, seed: int = 0, copying: bool = False
) -> CoreStepper:
    """One batched step (random legal policy + step + observe + autoreset) per call."""
    return CoreStepper(game_name, batch_size, num_players, seed, copying)


class PgxStepper:
    """One batched step of a Pgx env per call, all in one ``jax.jit``: random legal actions, step, autoreset.

    Pgx's ``step`` computes the next ``legal_action_mask`` and ``observation`` itself; the call
    returns after ``jax.block_until_ready`` of the new state.
    """

    def __init__(self, env_id: str, batch_size: int, seed: int = 0) -> None:
        import jax
        import jax.numpy as jnp
        import pgx
        from pgx.experimental import auto_reset

        env = pgx.make(env_id)
        step_row = auto_reset(env.step, env.init)

        def step(state, key):  # type: ignore[no-untyped-def]
            k_act, k_reset, k_next = jax.random.split(key, 3)
            logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
            action = jax.random.categorical(k_act, logits, axis=-1)
            return jax.vmap(step_row)(state, action, jax.random.split(k_reset, batch_size)), k_next

        self._jax = jax
        self._step = jax.jit(step)
        self.batch_size = batch_size
        self.key, init_key = jax.random.split(jax.random.PRNGKey(seed))
        self.state = jax.block_until_ready(jax.jit(jax.vmap(env.init))(jax.random.split(init_key, batch_size)))

    def __call__(self) -> int:
        self.state, self.key = self._step(self.state, self.key)
        self._jax.block_until_ready(self.state)
        return self.batch_size

    def footprint(self) -> tuple[float, float]:
        """``(state bytes, observation bytes)`` per env; Pgx's state holds the observation."""
        leaves = self._jax.tree_util.tree_leaves(self.state)
        return sum(x.nbytes for x in leaves) / self.batch_size, self.state.observation.nbytes / self.batch_size


def pgx_factory(batch_size: int, env_id: str = "connect_four") -> Callable[[], PgxStepper] | None:
    """A maker of :class:`PgxStepper` if Pgx (the ``peers`` extra) imports, else ``None``."""
    try:
        import pgx  # noqa: F401
    except ImportError:
        return None
    return lambda: PgxStepper(env_id, batch_size)


def pgx_version() -> str:
    """``"Pgx 2.6.0 / jax 0.10.2"`` style, or ``""`` without Pgx."""
    try:
        import jax
        import pgx
    except ImportError:
        return ""
    return f"Pgx {pgx.__version__} / jax {jax.__version__}"


def aec_stepper(make_env: Callable[[], object], seed: int = 0) -> Callable[[], int]:
    """One game of an AEC env per call, random legal moves; returns its decisions."""
    env = make_env()
    rng = np.random.default_rng(seed)
    counter = {"episode": seed}

    def step() -> int:
        env.reset(seed=counter["episode"])
        counter["episode"] += 1
        decisions = 0
        for agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                decisions += 1
            env.step(action)
            del agent
        return decisions

    return step


def connect_four_factory() -> Callable[[], object] | None:
    """PettingZoo's ``classic/connect_four-v3`` AEC env if ``pettingzoo[classic]`` is installed, else ``None``."""
    import pettingzoo

    try:
        pettingzoo.make("aec", "classic/connect_four-v3").close()
    except ImportError:
        return None
    return lambda: pettingzoo.make("aec", "classic/connect_four-v3")


def aec_factory(game_name: str, num_players: int) -> Callable[[], object]:
    """The game's PettingZoo ``env()`` (the standard wrapper chain) for ``num_players``."""
    from monkey_envs.core.versioned import aec_api

    env = aec_api(game_name)[0]
    return lambda: env(num_players=num_players)


def game_facts(game_name: str) -> tuple[str, str, list[int]]:
    """``(title, versioned env name, default player counts)`` of a registered game (its spec)."""
    from monkey_envs.games import game_class

    spec = game_class(game_name).spec
    return spec.title, f"{spec.name}_v{spec.version}", list(spec.default_players)


# ====================================================================== rows and the interleaved run
@dataclasses.dataclass
class Row:
    """One line of the table.

    Attributes:
        name: what is measured ("<title> core", "<title> AEC (<env>)", the peers' names).
        players: player count.
        batch: rows stepped per call (1 for AEC loops).
        kind: ``"core"`` or ``"aec"``: a row is compared to the reference of its kind and batch.
        make: builds the row's stepper; ``None`` when the row cannot run here (``absent`` says why).
        reference: the row is the reference (ratio 1) of its kind and batch.
        absent: why ``make`` is ``None``.
    """

    name: str
    players: int
    batch: int
    kind: str
    make: Callable[[], Stepper] | None
    reference: bool = False
    absent: str = ""

    @property
    def ref_key(self) -> tuple[str, int]:
        """``(kind, batch)``: the rows that share a reference."""
        return self.kind, self.batch


@dataclasses.dataclass
class Measured:
    """A row and what its turns measured.

    Attributes:
        row: the row.
        rates: steps/s of each round, in round order (empty for an absent row).
        steps: decisions over all rounds.
        footprint: ``(state, observation)`` bytes per env when the stepper tells (core rows).
    """

    row: Row
    rates: list[float] = dataclasses.field(default_factory=list)
    steps: int = 0
    footprint: tuple[float, float] | None = None

    @property
    def steps_per_s(self) -> float | None:
        """Median of the rounds' steps/s; ``None`` for an absent row."""
        return statistics.median(self.rates) if self.rates else None


def timed_turn(
    step: Stepper,
    seconds: float,
    clock: Callable[[], float] = time.perf_counter,
    work_clock: Callable[[], float] | None = None,
) -> tuple[float, int]:
    """Call ``step`` until ``seconds`` pass on ``clock`` (at least once); ``(steps/s, steps)``.

    The rate divides by the time ``work_clock`` saw pass (``clock`` when ``None``): with
    ``time.process_time`` that is the CPU time this process got, whatever else ran on its core.
    """
    work_clock = work_clock or clock
    steps = 0
    t0, w0 = clock(), work_clock()
    end = t0 + seconds
    while True:
        steps += step()
        if clock() >= end:
            break
    return steps / max(work_clock() - w0, 1e-9), steps


def run_interleaved(
    rows: Sequence[Row],
    rounds: int,
    seconds: float,
    clock: Callable[[], float] = time.perf_counter,
    on_turn: Callable[[int, Row], None] | None = None,
    work_clock: Callable[[], float] | None = time.process_time,
) -> list[Measured]:
    """Build and warm up every present row, then ``rounds`` rounds of one ``seconds`` turn per row.

    Args:
        rows: the rows, in the order they take their turns in every round.
        rounds: rounds (every present row gets one turn per round).
        seconds: length of a turn on ``clock``.
        clock: the time source that ends turns (a fake one in tests).
        on_turn: called with ``(round, row)`` before each turn (progress, tests).
        work_clock: the time a rate divides by: ``time.process_time`` (default: the CPU time the
            process got, so other programs on the core slow the run but not the rates), or
            ``None`` for ``clock`` (wall time).

    Returns:
        One :class:`Measured` per row, in ``rows`` order; absent rows have no rates.
    """
    if rounds < 1 or seconds <= 0:
        raise ValueError(f"rounds must be >= 1 and seconds > 0, got rounds={rounds}, seconds={seconds}")
    measured = [Measured(row) for row in rows]
    steppers: list[Stepper | None] = []
    for m in measured:
        stepper = m.row.make() if m.row.make is not None else None
        if stepper is not None:
            stepper()  # warm-up: compiles jit / numba code, fills caches
        steppers.append(stepper)
    for r in range(rounds):
        for m, stepper in zip(measured, steppers, strict=True):
            if stepper is None:
                continue
            if on_turn is not None:
                on_turn(r, m.row)
            rate, n = timed_turn(stepper, seconds, clock, work_clock)
            m.rates.append(rate)
            m.steps += n
    for m, stepper in zip(measured, steppers, strict=True):
        footprint = getattr(stepper, "footprint", None)
        m.footprint = footprint() if callable(footprint) else None
    return measured


def ratios(measured: Sequence[Measured]) -> dict[int, tuple[float, float, float] | None]:
    """Each row's ``(median, min, max)`` over the rounds of its rate / its reference's, by row index.

    A row's reference is the present reference row with its ``(kind, batch)``; rows without one
    (it is absent, or the kind has none) map to ``None``; a reference maps to ``(1, 1, 1)``.
    """
    refs = {m.row.ref_key: m for m in measured if m.row.reference and m.rates}
    out: dict[int, tuple[float, float, float] | None] = {}
    for i, m in enumerate(measured):
        ref = refs.get(m.row.ref_key)
        if ref is None or not m.rates:
            out[i] = None
            continue
        per_round = [a / b for a, b in zip(m.rates, ref.rates, strict=True)]
        out[i] = (statistics.median(per_round), min(per_round), max(per_round))
    return out


def comparison_rows(
    games: Sequence[str],
    batch_sizes: Sequence[int],
    players: Sequence[int] | None,
    peers: bool = True,
    copying: bool = False,
) -> list[Row]:
    """Every game's core rows (each player count x batch size) and AEC row, then the peers' rows.

    With ``copying`` every core row gets a twin that steps through the copying forms.
    """
    rows: list[Row] = []
    for g in games:
        title, env_name, default_counts = game_facts(g)
        counts = list(players or default_counts)
        for p in counts:
            for b in batch_sizes:
                rows.append(Row(f"{title} core", p, b, "core", lambda g=g, b=b, p=p: core_stepper(g, b, p)))
                if copying:
                    rows.append(
                        Row(
                            f"{title} core (copying)",
                            p,
                            b,
                            "core",
                            lambda g=g, b=b, p=p: core_stepper(g, b, p, copying=True),
                        )
                    )
        aec = aec_factory(g, counts[0])
        rows.append(Row(f"{title} AEC ({env_name})", counts[0], 1, "aec", lambda aec=aec: aec_stepper(aec)))
    if peers:
        rows += peer_core_rows(batch_sizes)
        c4 = connect_four_factory()
        make_c4 = (lambda: aec_stepper(c4)) if c4 is not None else None
        rows.append(
            Row("PettingZoo connect_four_v3 AEC", 2, 1, "aec", make_c4, reference=True, absent=CONNECT_FOUR_HINT)
        )
    return rows


def peer_core_rows(batch_sizes: Sequence[int]) -> list[Row]:
    """The Pgx ``connect_four`` reference row of every batch size (absent without Pgx)."""
    label = pgx_version().split(" / ")[0] or "Pgx"
    return [
        Row(f"{label} connect_four core (jit, vmap)", 2, b, "core", pgx_factory(b), reference=True, absent=PEERS_HINT)
        for b in batch_sizes
    ]


# ====================================================================== output
def _ratio_text(ratio: tuple[float, float, float] | None, m: Measured) -> str:
    if m.row.reference:
        return "1 (reference)" if m.rates else ""
    if ratio is None:
        return "n/a"
    return f"{ratio[0]:.2f}x ({ratio[1]:.2f}-{ratio[2]:.2f})"


def format_table(measured: Sequence[Measured], markdown: bool) -> str:
    """The rows with steps/s (median of rounds, and their min-max) and the ratio to their reference."""
    rs = ratios(measured)
    cells = []
    for i, m in enumerate(measured):
        sps = m.steps_per_s
        if sps is None:
            rate, spread = m.row.absent or "absent", ""
        else:
            rate, spread = f"{sps:,.0f}", f"{min(m.rates):,.0f}-{max(m.rates):,.0f}"
        cells.append((m.row.name, str(m.row.players), str(m.row.batch), rate, spread, _ratio_text(rs[i], m)))
    head = ("environment", "players", "batch", "steps/s", "rounds min-max", "ratio to reference (min-max)")
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|---|---:|---:|---:|---:|---:|"]
        lines += ["| " + " | ".join(c) + " |" for c in cells]
        return "\n".join(lines)
    widths = [max(len(c[k]) for c in [head, *cells]) for k in range(len(head))]

    def fmt(c: Sequence[str]) -> str:
        return "  ".join(s.ljust(w) if k == 0 else s.rjust(w) for k, (s, w) in enumerate(zip(c, widths, strict=True)))

    return "\n".join([fmt(head), "-" * (sum(widths) + 2 * len(widths) - 2), *map(fmt, cells)])


# ====================================================================== one core, one thread
def pin_to_core(core: int | None) -> tuple[int, set[int]]:
    """Pin the calling thread (and the threads it starts later) to ``core``; ``(core, previous set)``.

    ``None`` takes the lowest core this process may use. Raises ValueError for a core it may not use.
    """
    allowed = os.sched_getaffinity(0)
    chosen = min(allowed) if core is None else core
    if chosen not in allowed:
        raise ValueError(f"--core {chosen} is not one this process may run on: {sorted(allowed)}")
    os.sched_setaffinity(0, {chosen})
    return chosen, allowed


def threads_on(core: int) -> tuple[int, int]:
    """``(threads pinned to exactly core, all threads)`` of this process (Linux ``/proc``)."""
    tids = [int(t) for t in os.listdir("/proc/self/task")]
    pinned = 0
    for tid in tids:
        try:
            pinned += os.sched_getaffinity(tid) == {core}
        except OSError:  # the thread ended meanwhile
            pass
    return pinned, len(tids)


_MATMUL_PROBE = """
import time
import jax, jax.numpy as jnp
x = jnp.ones((1500, 1500)); f = jax.jit(lambda a: (a @ a).sum()); f(x).block_until_ready()
c, t = time.process_time(), time.perf_counter()
for _ in range(20): f(x).block_until_ready()
print(f"{(time.process_time() - c) / (time.perf_counter() - t):.2f}")
"""


def check_xla_threads() -> list[tuple[str, float]]:
    """CPU time / wall time of jit matmuls in fresh unpinned interpreters: ``(XLA_FLAGS, ratio)`` rows.

    About the number of cores the matmul kept busy -- on an otherwise idle machine only (other
    programs' load lowers both). Raises ValueError when jax is not installed.
    """
    try:
        import jax  # noqa: F401
    except ImportError as e:
        raise ValueError("--check-threads needs jax: pip install '.[peers]'") from e
    out = []
    for flags in ("", XLA_ONE_THREAD_FLAGS):
        env = {**os.environ, "XLA_FLAGS": flags}
        res = subprocess.run([sys.executable, "-c", _MATMUL_PROBE], env=env, capture_output=True, text=True, check=True)
        out.append((flags, float(res.stdout.split()[-1])))
    return out


# ====================================================================== scaling figure
def scaling(
    games: Sequence[str],
    batch_sizes: Sequence[int],
    players: Sequence[int] | None,
    rounds: int,
    seconds: float,
    work_clock: Callable[[], float] | None = time.process_time,
) -> list[Measured]:
    """Core rows of every game and the Pgx reference at each batch size, interleaved within each size.

    One batch size at a time (its rows interleaved round by round), so only one size's batches are
    in memory at once.
    """
    out: list[Measured] = []
    for b in batch_sizes:
        rows = [r for r in comparison_rows(games, [b], players, peers=False) if r.kind == "core"]
        rows += peer_core_rows([b])
        print(f"# batch {b}: {len(rows)} rows", file=sys.stderr, flush=True)
        out += run_interleaved(rows, rounds, seconds, work_clock=work_clock)
    return out


def write_scaling(measured: Sequence[Measured], png: Path) -> Path:
    """Write ``png`` (steps/s and memory per env vs batch size) and the CSV beside it; returns the CSV path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rs = ratios(measured)
    png.parent.mkdir(parents=True, exist_ok=True)
    out_csv = png.with_suffix(".csv")
    with out_csv.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(
            [
                *("row", "players", "batch", "steps_per_s_median", "steps_per_s_min", "steps_per_s_max"),
                *("ratio_to_pgx", "state_bytes_per_env", "obs_bytes_per_env"),
            ]
        )
        for i, m in enumerate(measured):
            if not m.rates:
                continue
            ratio = rs[i][0] if rs[i] else ""
            state_b, obs_b = m.footprint or ("", "")
            w.writerow(
                [
                    *(m.row.name, m.row.players, m.row.batch, f"{m.steps_per_s:.1f}", f"{min(m.rates):.1f}"),
                    *(f"{max(m.rates):.1f}", f"{ratio:.4f}" if ratio != "" else "", state_b, obs_b),
                ]
            )
    curves: dict[str, list[Measured]] = {}
    for m in measured:
        if m.rates:
            curves.setdefault(f"{m.row.name.removesuffix(' core')} {m.row.players}p", []).append(m)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 5))
    for label, ms in curves.items():
        state_b, obs_b = ms[-1].footprint or (0.0, 0.0)
        batches = [m.row.batch for m in ms]
        sps = [m.steps_per_s for m in ms]
        line = ax.plot(batches, sps, marker="o", label=f"{label}: {state_b:,.0f} B state + {obs_b:,.0f} B obs / env")
        work = [b * (state_b + (0.0 if "Pgx" in label else obs_b)) for b in batches]
        bx.plot(work, sps, marker="o", color=line[0].get_color(), label=label)
    for a in (ax, bx):
        a.set_xscale("log", base=2)
        a.set_yscale("log")
        a.set_ylabel("steps/s (one core, median of rounds)")
        a.grid(True, which="both", alpha=0.3)
    ax.set_xlabel("batch size B")
    ax.set_title("steps/s vs batch size")
    ax.legend(fontsize=7)
    bx.set_xlabel("batch bytes = B x (state + observation) per env  (Pgx: its state holds the observation)")
    bx.set_title("steps/s vs batch working set, with this CPU's caches")
    for level, size in cache_sizes():
        bx.axvline(size, color="grey", linestyle="--", linewidth=1)
        bx.text(size, bx.get_ylim()[0], f" L{level} {size // 1024:,} KiB", rotation=90, va="bottom", fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return out_csv


def cache_sizes() -> list[tuple[int, int]]:
    """``(level, bytes)`` of cpu0's data/unified caches from Linux sysfs (empty elsewhere)."""
    out = []
    for d in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            kind = (d / "type").read_text().strip()
            level = int((d / "level").read_text())
            size = (d / "size").read_text().strip()
        except OSError:
            continue
        if kind == "Instruction":
            continue
        mult = {"K": 1024, "M": 1024**2}.get(size[-1], 1)
        out.append((level, int(size.rstrip("KM")) * mult))
    return out


# ====================================================================== CLI
def main(argv: list[str] | None = None) -> int:
    from monkey_envs.games import add_import_option, import_plugins

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], prog="python benchmarks/throughput.py")
    parser.add_argument("--rounds", type=int, default=5, help="rounds; every row gets one turn per round (default 5)")
    parser.add_argument("--seconds", type=float, default=1.5, help="length of a row's turn, per round (default 1.5)")
    parser.add_argument(
        "--batch-sizes",
        type=int,
        nargs="+",
        default=None,
        help=f"core batch sizes (default {' '.join(map(str, TABLE_BATCH_SIZES))}; with --scaling 1 4 ... 65536)",
    )
    parser.add_argument("--games", nargs="+", default=None, help="registered games to measure (default: all)")
    add_import_option(parser)
    parser.add_argument(
        "--players", type=int, nargs="+", default=None, help="player counts for every game (default: per game)"
    )
    parser.add_argument("--markdown", action="store_true", help="print a markdown table (for docs/benchmarks.md)")
    parser.add_argument("--no-peers", action="store_true", help="skip the Pgx and PettingZoo reference rows")
    parser.add_argument(
        "--copying",
        action="store_true",
        help="also time every core row through the copying forms (step, put(init), observe without out=)",
    )
    parser.add_argument("--core", type=int, default=None, help="CPU core to pin to (default: the lowest allowed)")
    parser.add_argument("--scaling", action="store_true", help="steps/s and memory per env vs batch size: PNG + CSV")
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks/scaling.png"), help="--scaling's PNG")
    parser.add_argument(
        "--clock",
        choices=["cpu", "wall"],
        default="cpu",
        help="divide steps by the process's CPU time (default: other programs on the core do not count) or wall time",
    )
    parser.add_argument("--check-threads", action="store_true", help="show XLA_FLAGS limiting XLA to one thread")
    parser.add_argument(
        "--profile",
        type=int,
        metavar="CALLS",
        default=None,
        help="instead of the table: CPU ms per call of each piece of every core row's loop, over CALLS calls",
    )
    args = parser.parse_args(argv)
    batch_sizes = args.batch_sizes or (SCALING_BATCH_SIZES if args.scaling else TABLE_BATCH_SIZES)
    if args.seconds <= 0 or args.rounds < 1 or any(b < 1 for b in batch_sizes):
        parser.error("--seconds, --rounds and every --batch-sizes entry must be positive")
    if args.check_threads:
        try:
            probe = check_xla_threads()
        except ValueError as e:
            parser.error(str(e))
        print(f"# load average (1 min) {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores (meaningful when idle)")
        for flags, ratio in probe:
            print(f"XLA_FLAGS={flags!r}: jit matmul CPU time / wall time = {ratio:.2f} (unpinned)")
        return 0
    from monkey_envs.games import GAMES

    import_plugins(args.imports)
    games = args.games or list(GAMES)
    unknown = sorted(set(games) - set(GAMES))
    if unknown:
        parser.error(f"unknown games {unknown}; registered: {sorted(GAMES)}")
    try:
        core, previous = pin_to_core(args.core)
    except ValueError as e:
        parser.error(str(e))
    try:
        load0, wall0, cpu0 = os.getloadavg()[0], time.perf_counter(), time.process_time()
        work_clock = time.process_time if args.clock == "cpu" else None
        print(
            f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}, numpy {np.__version__}, {pgx_version() or 'no Pgx'}; pinned to core "
            f"{core}; {args.rounds} rounds x {args.seconds:g} s per row; steps per {args.clock} second; XLA_FLAGS={os.environ['XLA_FLAGS']!r}"
        )
        if args.profile is not None:
            if args.profile < 1:
                parser.error("--profile needs at least one call")
            for game_name in games:
                for players in args.players or game_facts(game_name)[2]:
                    for b in batch_sizes:
                        stepper = CoreStepper(game_name, b, players)
                        for _ in range(min(50, args.profile)):  # compiled and warm first
                            stepper()
                        ms = stepper.profile(args.profile)
                        pieces = " ".join(f"{k} {v:.3f}" for k, v in ms.items())
                        print(
                            f"{game_name} {players}p B={b}: ms per call: {pieces} ({b / ms['total'] / 1000:.2f}M steps/s)"
                        )
            return 0
        if args.scaling:
            measured = scaling(games, batch_sizes, args.players, args.rounds, args.seconds, work_clock)
            out_csv = write_scaling(measured, args.out)
            print(f"# wrote {args.out} and {out_csv}")
        else:
            rows = comparison_rows(games, batch_sizes, args.players, peers=not args.no_peers, copying=args.copying)
            measured = run_interleaved(rows, args.rounds, args.seconds, work_clock=work_clock)
        pinned, threads = threads_on(core)
        print(
            f"# load average (1 min) {load0:.2f} at start, {os.getloadavg()[0]:.2f} at end; "
            f"{pinned} of {threads} threads on core {core}; the process got "
            f"{(time.process_time() - cpu0) / (time.perf_counter() - wall0):.0%} of that core"
        )
        print(format_table(measured, args.markdown))
    finally:
        os.sched_setaffinity(0, previous)
    return 0


if __name__ == "__main__":
    sys.exit(main())
