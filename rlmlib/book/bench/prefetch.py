"""Random order against storage order, and what the prefetch look-ahead recovers.

    .venv/bin/python benchmarks/bench_prefetch.py [--rows 781265]

The simplest kernel there is, one dot product <w, x_i> per row, over the rows in storage
order, in a random order, and in that random order with ``rlmlib``'s look-ahead
(``rlmlib/_prefetch.py``). Prints each as a multiple of the time in storage order.
"""
import argparse
import time

import numpy as np
from numba import njit

from rlmlib.core.rows import as_rows, unsigned_index
from rlmlib.core.prefetch import prefetch_ahead

from .timing import cpu_clock


@njit(cache=True)
def dots(data, indices, indptr, order, w, look_ahead):
    """sum over the rows order[0], order[1], ... of <w, x_i>, with or without prefetching."""
    total = 0.0
    for pos in range(order.shape[0]):
        if look_ahead:
            prefetch_ahead(data, indices, indptr, order, pos, order.shape[0], True)
        i = order[pos]
        for j in range(indptr[i], indptr[i + 1]):
            total += data[j] * w[indices[j]]
    return total


def measure(X, reps=9, clock="wall"):
    """Median time of one pass of ``dots`` in each case, relative to storage order; the cases
    alternate. ``clock="cpu"``: the process's CPU time, which does not count the time other
    processes held the core but does count the cycles stalled on memory."""
    if clock not in ("wall", "cpu"):
        raise ValueError(f"clock must be 'wall' or 'cpu', got {clock!r}")
    now = cpu_clock if clock == "cpu" else time.perf_counter
    rows = as_rows(X)
    ind, ptr = unsigned_index(rows)
    w = np.random.default_rng(0).standard_normal(rows.n_features)
    m = ptr.shape[0] - 1
    orders = {"storage order": np.arange(m, dtype=np.uint64),
              "random order": np.random.default_rng(1).permutation(m).view(np.uint64)}
    cases = [("storage order", False), ("random order", False), ("random order", True)]
    for name, la in cases:  # compile / load both variants first
        dots(rows.data, ind, ptr, orders[name][:10], w, la)
    secs = {c: [] for c in cases}
    for _ in range(reps):
        for name, la in cases:
            t0 = now()
            dots(rows.data, ind, ptr, orders[name], w, la)
            secs[name, la].append(now() - t0)
    base = np.median(secs["storage order", False])
    return {name + (", prefetching" if la else ""): float(np.median(v) / base)
            for (name, la), v in secs.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=781_265)
    a = ap.parse_args()
    from rlmlib.datasets import synthetic

    d = synthetic.rcv1_like(m=a.rows, seed=0)
    for k, v in measure(d.X).items():
        print(f"{k:28s} {v:5.2f} x the time in storage order")


if __name__ == "__main__":
    main()
