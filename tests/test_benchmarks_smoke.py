"""The throughput benchmark runs, and its interleaving and ratio logic (smoke tests, not benchmarks)."""

from __future__ import annotations

import os
import sys

import pytest
from benchmark_scripts import load_benchmark


def test_throughput_prints_every_row_without_pgx(capsys, monkeypatch):
    """Without Pgx (the ``peers`` extra) every game's rows still print and the Pgx rows say they are absent."""
    monkeypatch.setitem(sys.modules, "pgx", None)  # `import pgx` raises ImportError
    bench = load_benchmark("throughput")
    assert bench.pgx_factory(64) is None
    affinity = os.sched_getaffinity(0)
    assert bench.main(["--rounds", "1", "--seconds", "0.1", "--batch-sizes", "1", "64", "--markdown"]) == 0
    assert os.sched_getaffinity(0) == affinity  # the pin to one core is undone
    out = capsys.readouterr().out
    assert "| Monkey Fun core | 2 | 1 |" in out and "| Monkey Fun core | 2 | 64 |" in out
    assert "Monkey Fun AEC (monkey_fun_v0)" in out
    for p in (2, 4, 7):
        assert f"| Funky Monkey core | {p} | 64 |" in out
    assert "Funky Monkey AEC (funky_monkey_v0)" in out
    assert "| Pgx connect_four core (jit, vmap) | 2 | 64 | absent: pip install '.[peers]' |" in out
    core_row = next(line for line in out.splitlines() if line.startswith("| Monkey Fun core | 2 | 64 |"))
    assert core_row.endswith("| n/a |")  # no reference, no ratio
    if bench.connect_four_factory() is not None:
        aec_row = next(line for line in out.splitlines() if "Monkey Fun AEC" in line)
        assert "x (" in aec_row and "1 (reference)" in out


def test_core_stepper_counts_every_row_and_autoresets():
    bench = load_benchmark("throughput")
    step = bench.core_stepper("monkey_fun", 8, 2)
    assert sum(step() for _ in range(200)) == 1600  # 200 steps x 8 rows: finished rows restart
    state_bytes, obs_bytes = step.footprint()
    assert state_bytes == sum(a.nbytes for a in step.state.arrays().values()) / 8 > 0
    assert obs_bytes == step.obs.nbytes / 8 > 0


def test_core_random_policy_draws_uniformly_among_legal_actions():
    """The benchmark's compiled random policy: only legal actions, each equally likely, 0 for an empty row."""
    import numpy as np

    bench = load_benchmark("throughput")
    step = bench.core_stepper("monkey_fun", 4000, 2)
    mask = np.zeros((4000, 7), dtype=bool)
    mask[:, [1, 4, 6]] = True
    mask[7] = False
    counts = np.zeros(7, dtype=np.int64)
    for _ in range(10):
        acts = step.random_legal(mask)
        assert acts.dtype == np.int64 and acts.shape == (4000,)
        assert acts[7] == 0
        np.add.at(counts, np.delete(acts, 7), 1)
    assert counts[[0, 2, 3, 5]].sum() == 0
    share = counts[[1, 4, 6]] / counts.sum()
    assert np.all(np.abs(share - 1 / 3) < 0.02), share  # 39,990 draws: sd of a share ~0.0024


def test_core_random_policy_takes_the_kth_legal_action_of_wide_rows():
    """The word-at-a-time draw equals the plain definition (the ``floor(u * n)``-th legal action)
    for row widths around its 8-byte words and for empty, sparse, dense and full rows."""
    import numpy as np

    bench = load_benchmark("throughput")
    rng = np.random.default_rng(3)
    for width in (1, 7, 8, 9, 16, 17, 134):
        for p in (0.0, 0.05, 0.5, 1.0):
            mask = rng.random((400, width)) < p
            u = rng.random(400)
            u[::5] = np.nextafter(1.0, 0.0)  # the last legal action
            u[::7] = 0.0  # the first
            out = np.empty(400, np.int64)
            bench._kth_legal(mask, u, out)
            for b in range(400):
                legal = np.flatnonzero(mask[b])
                want = legal[min(int(u[b] * legal.size), legal.size - 1)] if legal.size else 0
                assert out[b] == want, (width, p, b)


def test_profile_prints_the_loops_pieces(capsys):
    """``--profile CALLS`` times the core loop's pieces; they add up to no more than the whole call."""
    bench = load_benchmark("throughput")
    ms = bench.core_stepper("monkey_fun", 16, 2).profile(20)
    assert set(ms) == {"draw", "step", "done", "reset", "observe", "total"}
    assert all(v >= 0 for v in ms.values()) and sum(v for k, v in ms.items() if k != "total") <= ms["total"] + 1e-9
    assert bench.main(["--profile", "5", "--games", "monkey_fun", "--batch-sizes", "8"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("monkey_fun 2p B=8:"))
    assert "ms per call: draw " in line and " observe " in line and "steps/s" in line


class FakeClock:
    """A clock that only the fake steppers advance."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def fake_row(bench, clock, name, kind, batch, seconds_per_step, reference=False):
    """A row whose every step takes ``seconds_per_step()`` of ``clock`` and counts ``batch`` decisions."""

    def make():
        def step():
            clock.now += seconds_per_step()
            return batch

        return step

    return bench.Row(name, 2, batch, kind, make, reference=reference)


def test_rows_take_turns_round_by_round_and_ratios_use_the_same_round():
    """Interleaving: every row gets one turn per round, in order; a ratio is the median of same-round ratios."""
    bench = load_benchmark("throughput")
    clock = FakeClock()
    turns = []
    speed = {"factor": 1.0}  # the machine's speed, changed between rounds (load)
    rows = [
        fake_row(bench, clock, "ref", "core", 10, lambda: 0.01 * speed["factor"], reference=True),
        fake_row(bench, clock, "fast", "core", 10, lambda: 0.005 * speed["factor"]),
        fake_row(bench, clock, "other size", "core", 20, lambda: 0.01),
        fake_row(bench, clock, "aec", "aec", 1, lambda: 0.001),
        bench.Row("absent ref", 2, 1, "aec", None, reference=True, absent="absent: test"),
    ]

    def on_turn(r, row):
        turns.append((r, row.name))
        speed["factor"] = 1.0 + r  # each round slower: rates change, same-round ratios do not

    measured = bench.run_interleaved(rows, rounds=3, seconds=0.1, clock=clock, on_turn=on_turn, work_clock=None)
    names = ["ref", "fast", "other size", "aec"]
    assert turns == [(r, n) for r in range(3) for n in names]
    ref, fast, _other, _aec, absent = measured
    assert ref.rates == pytest.approx([1000.0, 500.0, 1000.0 / 3])  # 10 decisions / 0.01 s x factor
    assert fast.steps_per_s == pytest.approx(1000.0)
    assert absent.rates == [] and absent.steps_per_s is None
    rs = bench.ratios(measured)
    assert rs[0] == (1.0, 1.0, 1.0)
    assert rs[1] == pytest.approx((2.0, 2.0, 2.0))  # 2x the reference in every round despite the load
    assert rs[2] is None  # batch 20 has no reference row
    assert rs[3] is None  # its reference is absent
    table = bench.format_table(measured, markdown=True)
    assert "| fast | 2 | 10 | 1,000 | 667-2,000 | 2.00x (2.00-2.00) |" in table
    assert "| ref | 2 | 10 | 500 | 333-1,000 | 1 (reference) |" in table
    assert "| absent ref | 2 | 1 | absent: test |  |  |" in table
    assert "| aec | 2 | 1 | 1,000 | 1,000-1,000 | n/a |" in table


def test_ratio_is_the_median_of_per_round_ratios():
    """One disturbed round moves a row's ratio range, not its median."""
    bench = load_benchmark("throughput")
    ref = bench.Measured(bench.Row("ref", 2, 1, "core", None, reference=True), rates=[100.0, 100.0, 100.0])
    row = bench.Measured(bench.Row("row", 2, 1, "core", None), rates=[300.0, 30.0, 310.0])
    assert bench.ratios([ref, row])[1] == pytest.approx((3.0, 0.3, 3.1))


def test_run_interleaved_rejects_bad_rounds_and_seconds():
    bench = load_benchmark("throughput")
    with pytest.raises(ValueError, match="rounds"):
        bench.run_interleaved([], rounds=0, seconds=1.0)
    with pytest.raises(ValueError, match="seconds"):
        bench.run_interleaved([], rounds=1, seconds=0.0)


def test_scaling_writes_png_and_csv_without_pgx(tmp_path, monkeypatch):
    """--scaling writes the plot and a CSV row per game, player count and batch size (memory per env included)."""
    monkeypatch.setitem(sys.modules, "pgx", None)
    bench = load_benchmark("throughput")
    out = tmp_path / "scaling.png"
    args = ["--scaling", "--games", "monkey_fun", "--batch-sizes", "1", "4", "--rounds", "1", "--seconds", "0.05"]
    assert bench.main([*args, "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    lines = out.with_suffix(".csv").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("row,players,batch,steps_per_s_median")
    assert [line.split(",")[2] for line in lines[1:]] == ["1", "4"]
    assert all(float(line.split(",")[-2]) > 0 for line in lines[1:])  # state bytes per env


def test_turn_rate_divides_by_the_cpu_time_the_process_got():
    """A turn lasts ``seconds`` of wall time, but its rate counts only the (CPU) time it was given."""
    bench = load_benchmark("throughput")
    wall, cpu = FakeClock(), FakeClock()

    def step():  # each step: 0.01 s of wall time, of which the process ran 0.004 s (a shared core)
        wall.now += 0.01
        cpu.now += 0.004
        return 4

    rate, steps = bench.timed_turn(step, 0.1, clock=wall, work_clock=cpu)
    assert steps == 4 * round(wall.now / 0.01)
    assert rate == pytest.approx(1000.0)  # 4 decisions per 0.004 CPU-seconds, not 400/s
    assert bench.timed_turn(step, 0.1, clock=wall)[0] == pytest.approx(400.0)  # --clock wall


def test_cold_start_measures_a_fresh_process_on_an_empty_cache_and_marks_absent_peers(tmp_path):
    """``benchmarks/cold_start.py`` (issue 23): a cell is the CPU time of a new interpreter with
    NUMBA_CACHE_DIR on the given folder; a body that fails (a peer not installed) is absent."""
    bench = load_benchmark("cold_start")
    body = f"import os\nassert os.environ['NUMBA_CACHE_DIR'] == {str(tmp_path)!r}\nsum(range(3_000_000))\n"
    cpu = bench._measure(body, tmp_path)
    assert cpu is not None and 0.0 < cpu < 30.0
    assert bench._measure("import no_such_peer_module\n", tmp_path) is None
    rows = [
        {"name": "monki", "aec": 4.25, "aec_warm": None, "core": 7.0, "core_warm": None},
        {"name": "Pgx connect_four (jit)", "aec": None, "aec_warm": None, "core": None, "core_warm": None},
    ]
    text = bench.table(rows, 4096, warm=False, markdown=True)
    assert "| monki | 4.2 | 7.0 |" in text and "| Pgx connect_four (jit) | - | - |" in text
    assert "first core step, B=4096" in text.splitlines()[0]
