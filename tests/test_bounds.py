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

import pytest

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


@pytest.fixture(scope="module")
def bounds_env(tmp_path_factory):
    """Bounds checking on, one cache directory for this module's subprocesses (the
    bounds-checked kernels are compiled once, and never shared with other tests)."""
    return dict(os.environ, NUMBA_BOUNDSCHECK="1",
                NUMBA_CACHE_DIR=str(tmp_path_factory.mktemp("numba_boundscheck")),
                PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]))


def test_kernels_in_bounds(bounds_env):
    out = subprocess.run([sys.executable, "-c", CODE, ",".join(rlmlib.SOLVERS)],
                         env=bounds_env, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_every_option_in_bounds(bounds_env):
    """tests/bounds_sweep.py: every registered solver with every choice of every
    categorical option (loss, order, shrinking, schedule, method, variant, snapshot,
    penalty, averaging, nesterov, amsgrad, lazy, project; read from the solvers' own
    refusals), each with every order, the integer options that decide positions at their
    edges, dense and CSR rows, one epoch and several cut in checkpoint segments, sag/svrg
    also preconditioned. RLMLIB_BOUNDS_SWEEP=full runs the whole product of the options
    (5,344 calls, 43 s with compilation under load 2)."""
    full = os.environ.get("RLMLIB_BOUNDS_SWEEP") == "full"
    out = subprocess.run([sys.executable, str(ROOT / "tests" / "bounds_sweep.py")]
                         + ([] if full else ["--quick"]), env=bounds_env,
                         capture_output=True, text=True)
    last = out.stdout.strip().splitlines()[-1:] or [""]
    assert out.returncode == 0 and last[0].startswith("ok "), \
        (out.stdout[-3000:], out.stderr[-2000:])


def test_option_choices_are_read_from_the_solvers():
    """The sweep's choices come from the solvers' refusals: every categorical option of
    every registered solver names at least two choices, and the ones the documentation
    fixes are found (a refusal that stops naming its choices fails here)."""
    from solver_options import CATEGORICAL, choices

    import inspect

    for name, f in rlmlib.SOLVERS.items():
        ch = choices(name)
        params = inspect.signature(f).parameters
        assert set(ch) == {o for o in CATEGORICAL if o in params}, name
        assert all(len(v) >= 2 for v in ch.values()), (name, ch)
    assert choices("sdca")["shrinking"] == (False, True)
    assert set(choices("fiol")["method"]) == {"sort", "partition"}
    assert choices("sgd")["order"] == ("reshuffle", "shuffle_once", "cyclic", "replacement")
