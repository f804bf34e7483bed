"""Compile rlmlib's numba kernels into its disk cache (.numba_cache/, see README.md) by
calling every registered solver once on a tiny problem, dense and sparse, with each loss
it accepts; with --chapters, also by executing every chapter of the book once (into a
throw-away jupyter-cache), which compiles exactly the kernels, options and dtypes the
chapters use (the solvers' sweep alone misses the options and helpers a chapter calls
first).  Binder's postBuild runs it with --chapters so that the image ships the kernels
compiled and a reader's first run of a chapter pays no compilation.

    .venv/bin/python tools/warm_numba_cache.py [--chapters]   # prints what it compiled
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
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


ROOT = Path(__file__).resolve().parents[1]
#: the environment `make book` executes the chapters in (see the Makefile's BUILD_ENV)
BUILD_ENV = {"RLMLIB_EXPLORE": "static", "TQDM_DISABLE": "1",
             "MPLBACKEND": "module://matplotlib_inline.backend_inline"}


def chapters() -> float:
    """Execute every chapter once (tools/execute.py into a temporary cache); seconds."""
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="rlm-warm-") as tmp:
        subprocess.run([sys.executable, str(ROOT / "tools" / "execute.py"), str(ROOT),
                        "--cache", tmp, "--timed-in-parallel"],
                       env=dict(os.environ, **BUILD_ENV), check=True)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv not in ([], ["--chapters"]):
        print(f"usage: warm_numba_cache.py [--chapters] (got {argv})", file=sys.stderr)
        return 2
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
    print(f"[warm] all solvers in {time.perf_counter() - t_all:.1f} s")
    if argv == ["--chapters"]:
        print(f"[warm] every chapter executed in {chapters():.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
