"""Fuzzing every registered solver in a subprocess (tests/fuzz_solvers.py): no signal,
finite outputs or a named error, no warning naming a setting the solver does not have.
RLMLIB_FUZZ_EXAMPLES (default 300, ~30 s) sets the number of calls; RLMLIB_FUZZ_BOUNDSCHECK=1 runs
the same calls a second time with numba's bounds checking on (own cache directory)."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(env_extra, n):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]),
               **env_extra)
    out = subprocess.run([sys.executable, str(ROOT / "tests" / "fuzz_solvers.py"), str(n)],
                         env=env, capture_output=True, text=True, timeout=3600)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), \
        (out.returncode, out.stderr[-3000:])


def test_fuzz_every_solver():
    _run({}, int(os.environ.get("RLMLIB_FUZZ_EXAMPLES", "300")))


def test_fuzz_every_solver_in_bounds(tmp_path):
    import pytest

    if os.environ.get("RLMLIB_FUZZ_BOUNDSCHECK") != "1":
        pytest.skip("set RLMLIB_FUZZ_BOUNDSCHECK=1 (compiles every kernel bounds-checked)")
    _run({"NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(tmp_path)},
         int(os.environ.get("RLMLIB_FUZZ_EXAMPLES", "1000")))


def test_olbfgs_with_eta0_blames_eta0():
    """eta0 sets olbfgs's first step: a run it makes too long blames eta0, not t0."""
    import numpy as np
    import pytest

    import rlmlib

    rng = np.random.default_rng(3)
    X = 30 * rng.standard_normal((40, 4))
    y = np.where(X[:, 0] > 0, 1, -1)
    with pytest.warns(rlmlib.ConvergenceWarning) as rec:
        try:
            rlmlib.olbfgs(X, y, sigma=1.0, epochs=1, eta0=10.0, t0=100.0).objective
        except FloatingPointError as e:
            import warnings

            warnings.warn(rlmlib.ConvergenceWarning(str(e)))
    msg = " ".join(str(r.message) for r in rec)
    assert "pass a smaller eta0" in msg and "larger t0" not in msg, msg
