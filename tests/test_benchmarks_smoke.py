"""The throughput benchmark runs (a smoke test, not a benchmark: 0.2 s per row)."""

from __future__ import annotations

from benchmark_scripts import load_benchmark


def test_throughput_prints_every_row(capsys):
    bench = load_benchmark("throughput")
    assert bench.main(["--seconds", "0.1", "--batch-sizes", "1", "64", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "| Monkey Fun core | 2 | 1 |" in out and "| Monkey Fun core | 2 | 64 |" in out
    assert "Monkey Fun AEC (monkey_fun_v0)" in out
    for p in (2, 4, 7):
        assert f"| Funky Monkey core | {p} | 64 |" in out
    assert "Funky Monkey AEC (funky_monkey_v0)" in out
    if bench.connect_four_factory() is not None:
        assert "connect_four_v3" in out and "ratio" in out


def test_core_stepper_counts_every_row_and_autoresets():
    bench = load_benchmark("throughput")
    step = bench.core_stepper("monkey_fun", 8, 2)
    assert sum(step() for _ in range(200)) == 1600  # 200 steps x 8 rows: finished rows restart
