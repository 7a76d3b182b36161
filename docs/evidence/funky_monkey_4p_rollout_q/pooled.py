"""Per-seed and pooled figures of the Funky Monkey rollout-Q recipe (issue 25), from the evidence.

Reads ``seed<S>/paired.json`` (``python -m agents.paired``: the trained agent and ``track`` in the
same seats against honest + skeptic + track, 4,008 games on the 1,002 deals of schedule seed 0 -- the same
deals for every training seed), ``seed<S>/exploit<B>.json`` (``python -m training.exploit``) and
``honest_only_seed<S>/...`` for the honest-only ablation, and ``full_vs_honest_seed<S>/paired.json``
(the trained agent against its honest-only ablation of the same training seed, in the same seats),
and prints them as markdown tables.

Pooled: the mean over the training seeds. The seeds were evaluated on the same deals, so their
errors are correlated; the pooled interval is the mean of the seeds' interval ends, which is at
least as wide as the interval of the mean however the seeds' errors correlate (the standard error
of a mean is at most the mean of the standard errors).

    python docs/evidence/funky_monkey_4p_rollout_q/pooled.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load(folder: Path) -> dict | None:
    f = folder / "paired.json"
    return json.loads(f.read_text()) if f.is_file() else None


def exploits(folder: Path) -> list[float]:
    return [json.loads(f.read_text())["evaluation"]["win_rate"] for f in sorted(folder.glob("exploit*.json"))]


def row(label: str, r: dict, brs: list[float]) -> str:
    c, b, d = r["candidate"], r["baseline"], r["difference"]
    br = ", ".join(f"{x:.3f}" for x in brs) or "-"
    return (
        f"| {label} | {r['games']} | {c['win_rate']:.3f} [{c['ci_low']:.3f}, {c['ci_high']:.3f}] | "
        f"{b['win_rate']:.3f} | {d['mean']:+.3f} [{d['ci_low']:+.3f}, {d['ci_high']:+.3f}] | {br} |"
    )


def main() -> int:
    print(
        "| agent (training seed) | games | win rate vs honest + skeptic + track | track in its seats | paired difference | BR win rates |"
    )
    print("|---|---:|---|---:|---|---|")
    for kind in ("seed", "honest_only_seed", "full_vs_honest_seed"):
        if kind == "full_vs_honest_seed":
            print()
            print(
                "| bluffing agent vs its honest-only ablation (training seed) | games | bluffing agent | ablation in its seats | paired difference | |"
            )
            print("|---|---:|---|---:|---|---|")
        runs = sorted(p for p in HERE.glob(f"{kind}[0-9]*") if load(p))
        if not runs:
            continue
        reports = [load(p) for p in runs]
        for p, r in zip(runs, reports, strict=True):
            print(row(p.name, r, exploits(p)))
        if len(reports) > 1:

            def mean(f, reports=reports):
                return sum(f(r) for r in reports) / len(reports)

            n = len(reports)
            pooled = {
                "games": sum(r["games"] for r in reports),
                "candidate": {k: mean(lambda r, k=k: r["candidate"][k]) for k in ("win_rate", "ci_low", "ci_high")},
                "baseline": {"win_rate": mean(lambda r: r["baseline"]["win_rate"])},
                "difference": {k: mean(lambda r, k=k: r["difference"][k]) for k in ("mean", "ci_low", "ci_high")},
            }
            print(row(f"pooled {kind.replace('_seed', '')} ({n} seeds, the same deals)", pooled, []))
    print()
    print(
        "| bluff rate of face-down plays (training seed) | overall | "
        + " | ".join(f"receiver {c}" for c in POSITIONS)
        + " | "
        + " | ".join(f"true {c}" for c in CARDS)
        + " |"
    )
    print("|---|" + "---|" * (1 + len(POSITIONS) + len(CARDS)))
    for folder in sorted(HERE.glob("seed[0-9]*")):
        f = folder / "bluff_context.json"
        if not f.is_file():
            continue
        b = json.loads(f.read_text())
        pos = {r["context"]: r for r in b["by_receiver_position"]}
        card = {r["context"]: r for r in b["by_card"]}

        def cell(r):
            return f"{r['bluff_rate']:.1%} [{r['ci'][0]:.1%}, {r['ci'][1]:.1%}]"

        cells = [f"{b['bluff_rate']:.1%}", *(cell(pos[c]) for c in POSITIONS), *(cell(card[c]) for c in CARDS)]
        print(f"| {folder.name} ({b['plays']} plays) | " + " | ".join(cells) + " |")
    return 0


#: Contexts of the bluff tables (``agents.decision_report``'s Funky Monkey report).
POSITIONS = ("ahead", "level", "behind")
CARDS = ("1", "2", "3", "4", "MiNuss")

if __name__ == "__main__":
    sys.exit(main())
