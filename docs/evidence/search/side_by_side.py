"""Print the side-by-side table of docs/agents.md from the run reports in docs/evidence.

For every game and every heuristic or random agent X: the search agent's win rate against three
(or one) X in its arena table (docs/evidence/search/<game>_<P>p_vs_X/arena.json) and the win rate
of the best responses trained against X (docs/evidence/exploitability/<game>__X__seed<S>__100000/).

    python docs/evidence/search/side_by_side.py
"""

from __future__ import annotations

import json
from pathlib import Path

EVIDENCE = Path(__file__).resolve().parents[1]
GAMES = (
    ("monkey_fun", "Monkey Fun, 2 players", "2p", ("greedy", "random")),
    ("funky_monkey", "Funky Monkey, 4 players", "4p", ("track", "honest", "skeptic", "believer", "random")),
    ("monki", "Monki, 2 players", "2p", ("lookahead", "cautious", "greedy", "random")),
    ("four_monkeys", "4 Monkeys, 4 players", "4p", ("smart", "smart_honest", "honest", "bluffer", "random")),
)


def main() -> None:
    print("| game | agent X | `mcts` vs X (arena) [95% CI] | best response vs X (BR seeds 0 / 1) |")
    print("|---|---|---|---|")
    for game, label, players, agents in GAMES:
        for x in agents:
            arena = EVIDENCE / "search" / f"{game}_{players}_vs_{x}" / "arena.json"
            cell = "(not measured)"
            if arena.exists():
                rows = json.loads(arena.read_text())["agents"]
                a = next(r for r in rows if r["name"].startswith("mcts"))
                cell = f"{a['win_rate']:.3f} [{a['ci_low']:.3f}, {a['ci_high']:.3f}]"
            br = []
            for seed in (0, 1):
                f = EVIDENCE / "exploitability" / f"{game}__{x}__seed{seed}__100000" / "exploit.json"
                if f.exists():
                    br.append(f"{json.loads(f.read_text())['evaluation']['win_rate']:.3f}")
            print(f"| {label} | `{x}` | {cell} | {' / '.join(br) or '(not measured)'} |")


if __name__ == "__main__":
    main()
