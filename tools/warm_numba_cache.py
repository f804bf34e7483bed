"""Compile rlmlib's numba kernels into its disk cache (.numba_cache/, see README.md) by
calling every registered solver once on a tiny problem, dense and sparse, with each loss
it accepts.  Binder's postBuild runs it so that the image ships the kernels compiled and a
reader's first run of a chapter pays no compilation.

    .venv/bin/python tools/warm_numba_cache.py      # prints what it compiled and how long
"""
from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

LOSSES = ("hinge", "logistic", "squared_hinge", "squared")


def problems(seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((40, 6))
    y = np.where(X @ rng.standard_normal(6) > 0, 1.0, -1.0)
    return {"dense": (X, y), "csr": (sp.csr_matrix(X), y)}


def main() -> int:
    import rlmlib
    from solver_table import SOLVER_TABLE

    t_all = time.perf_counter()
    for name in sorted(rlmlib.SOLVERS):
        kwargs = dict(SOLVER_TABLE.get(name, {}).get("kwargs", {}))
        t0, done = time.perf_counter(), []
        for kind, (X, y) in problems().items():
            for loss in LOSSES:
                kw = dict(kwargs, loss=loss)
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        rlmlib.SOLVERS[name](X, y, sigma=0.1, **kw)
                except (TypeError, ValueError, NotImplementedError):
                    continue  # this solver does not take this loss or this input
                done.append(f"{kind}/{loss}")
        print(f"[warm] {name:13s} {time.perf_counter() - t0:6.1f} s  {' '.join(done)}")
    print(f"[warm] all kernels in {time.perf_counter() - t_all:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
