"""Out-of-bounds accesses in the kernels, caught with numba's bounds checking on (in a
subprocess with its own cache directory, so no bounds-checked kernel is shared).

- The kernels prefetch the rows of coming examples (rlmlib.core.prefetch). A prefetch hint never
  changes a value (the solvers' tests compare their results with the papers' loops); what can
  go wrong is the look-ahead reading order[pos + AHEAD] past the end of the batch: every
  registered solver runs on dense and sparse rows, in every order it accepts, with runs
  shorter and longer than the look-ahead and checkpoints that cut the epochs into segments.
- pgs with k > 1 on dense data touches every column in one step: its branch-free list of
  touched columns writes one slot past the last column."""
import os
import subprocess
import sys
from pathlib import Path

import rlmlib

ROOT = Path(__file__).resolve().parent.parent

CODE = """
import inspect, sys, warnings
import numpy as np, scipy.sparse as sp, rlmlib
from rlmlib.solvers.pgs import pgs_iterates
from solver_table import call
warnings.simplefilter("ignore", rlmlib.ConvergenceWarning)  # short runs may end above F(0)
names = sys.argv[1].split(",")
rng = np.random.default_rng(0)
X = rng.standard_normal((30, 6)); y = np.where(X[:, 0] > 0, 1, -1)
Xs = sp.random(30, 50, density=0.2, format="csr", random_state=1)
for A in (X, Xs):
    for name in names:   # every registered solver, every order it takes
        params = inspect.signature(rlmlib.SOLVERS[name]).parameters
        orders = ("reshuffle", "shuffle_once", "cyclic", "replacement")
        default = params["order"].default if "order" in params else None
        for order in (orders if default else (None,)):
            kw = {} if order is None else dict(order=order)
            if "T" in params:
                for T in (1, 3, 9, 40):
                    for k in (1, 5):
                        try:
                            call(name, A, y, T=T, k=k, n_checkpoints=1, **kw)
                        except ValueError as e:   # an order the solver does not take
                            assert str(e).startswith("order must be one of"), e
            elif "epochs" in params:
                # checkpoints shorter than an epoch, and one segment of several epochs
                # (a block of uniform draws spans them: sdca's shrinking once wrote past
                # its m-long scratch there)
                for epochs, nc in ((1, 7), (2, 7), (3, 7), (3, 1)):
                    try:
                        call(name, A, y, epochs=epochs, n_checkpoints=nc, **kw)
                    except ValueError as e:
                        assert str(e).startswith("order must be one of"), e
            else:
                call(name, A, y)
    rlmlib.pgs(A, y, p=2.0, sigma=0.1, T=9, k=7, loss="logistic", n_checkpoints=1)
    pgs_iterates(A, y, p=1.8, sigma=0.1, at=[1, 2, 3, 12], loss="logistic")
    for epochs in (1, 2):   # the lazy average started mid-run
        rlmlib.asgd(A, y, sigma=0.1, epochs=epochs, n_checkpoints=7, average_start=5)
print("ok")
"""


def test_kernels_in_bounds(tmp_path):
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path),
               PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]))
    out = subprocess.run([sys.executable, "-c", CODE, ",".join(rlmlib.SOLVERS)], env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
