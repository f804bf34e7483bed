"""Redraw latency of the explorable demo figure in live (ipywidgets) mode.

Runs the demo cell of chapters/implementation/explorable.md as it is (read with jupytext),
builds its live widget, warms up, then moves the sliders through their values and reports
the median and 90th percentile of the wall time from the slider change to the new image and
readout being set (compute + draw + PNG encoding).  Target: median <= 200 ms.

    .venv/bin/python benchmarks/explore_latency.py [--repeats 60]
"""
import argparse
import itertools
import os
import statistics
import time
from pathlib import Path

import jupytext

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "chapters" / "implementation" / "explorable.md"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=60)
    args = ap.parse_args()
    os.environ["RLMLIB_EXPLORE"] = "live"
    nb = jupytext.read(CHAPTER)
    cell = next(c for c in nb.cells if c.cell_type == "code" and "explore(" in c.source)
    ns = {}
    exec(compile(cell.source, str(CHAPTER), "exec"), ns)
    fig = ns["fig_ridge"]
    box = fig.widget()
    combos = itertools.cycle(itertools.product(*fig.grids.values()))
    names = list(fig.grids)

    def move():
        values = dict(zip(names, next(combos)))
        t0 = time.perf_counter()
        changed = False
        for n, v in values.items():
            if box.sliders[n].value != v:
                box.sliders[n].value = v   # observers redraw synchronously
                changed = True
        if not changed:
            box.update()
        return time.perf_counter() - t0, box.last_redraw_seconds

    for _ in range(5):                      # warm-up: imports, font cache, first draws
        move()
    totals, redraws = [], []
    for _ in range(args.repeats):
        total, redraw = move()
        totals.append(total)
        redraws.append(redraw)
    q = statistics.quantiles(redraws, n=10)
    print(f"explorable demo ({CHAPTER.relative_to(ROOT)}), {args.repeats} slider moves after warm-up")
    print(f"  redraw latency (one change -> new image + readout): median "
          f"{1e3 * statistics.median(redraws):.1f} ms, p90 {1e3 * q[-1]:.1f} ms")
    print(f"  per move (one or two slider changes): median {1e3 * statistics.median(totals):.1f} ms")
    print(f"  target: median <= 200 ms -> {'met' if statistics.median(redraws) <= 0.2 else 'NOT met'}")


if __name__ == "__main__":
    main()
