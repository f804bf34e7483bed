"""Messages (issue 19, item 4): each names the argument (or the grid point), the value and
what was expected, instead of an exception from deep inside numpy, numba or Dask. One test
per message of the issue's list."""
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import rlmlib
from rlmlib.book import parallel

REPO = Path(rlmlib.__file__).resolve().parents[1]


def data(m=20, n=3, seed=0):
    X = np.random.default_rng(seed).standard_normal((m, n))
    return X, np.where(X[:, 0] > 0, 1.0, -1.0)


def test_dask_run_lost_names_the_grid_point_and_the_cause():
    """A worker that dies (KilledWorker) or a cancelled task (FutureCancelledError, 'reason:
    unknown') becomes a RuntimeError naming the solver, the grid point and the cause; the
    solver's own errors are left to _with_point (same type, point appended)."""
    from distributed.client import FutureCancelledError
    from distributed.scheduler import KilledWorker

    point = {"sigma": 0.01, "seed": 3}
    e = parallel._lost_run(KilledWorker("pgs-4-abc", None, 3), point, "pgs")
    assert isinstance(e, RuntimeError)
    msg = str(e)
    assert "pgs(X, y, sigma=0.01, seed=3)" in msg and "died 4 times" in msg
    assert "out of memory" in msg
    e = parallel._lost_run(FutureCancelledError("pgs-4-abc", None), point, "pgs")
    assert "sigma=0.01, seed=3" in str(e) and "cancelled by Dask (reason: Dask gave none)" in str(e)
    assert "worker died" in str(e)
    assert parallel._lost_run(ValueError("sigma must be ..."), point, "pgs") is None


def test_dask_worker_dying_in_one_run_is_blamed_on_that_run(tmp_path):
    """A run that kills its worker (os._exit at sigma=0.5) on the embedded cluster: the
    sweep's error names sigma=0.5 as the likely crash, not the run (sigma=0.1) that was
    merely lost with the dying workers' data and happened to come back first (audit of
    issue 19: the message said 'the run solver(X, y, sigma=0.1) was cancelled by Dask
    (reason: Dask gave none)')."""
    script = tmp_path / "dying_worker.py"
    script.write_text(textwrap.dedent("""
        import os
        import numpy as np, rlmlib
        from rlmlib.book import parallel

        def solver(X, y, *, sigma):
            if sigma == 0.5:
                os._exit(3)
            return rlmlib.sgd(X, y, sigma=sigma, epochs=1)

        if __name__ == "__main__":
            X = np.random.default_rng(0).standard_normal((20, 3))
            y = np.where(X[:, 0] > 0, 1.0, -1.0)
            try:
                parallel.sweep(solver, X, y, grid={"sigma": [0.1, 0.5]}, progress=False)
            except RuntimeError as e:
                print("@@", e)
            parallel.close()
    """))
    env = {k: v for k, v in __import__("os").environ.items() if k != parallel.ENV}
    env["PYTHONPATH"] = str(REPO)
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       timeout=300, env=env, cwd=tmp_path)
    msg = next(ln for ln in p.stdout.splitlines() if ln.startswith("@@"))
    assert "most likely a crash inside the run solver(X, y, sigma=0.5)" in msg, msg
    assert "solver(X, y, **fixed, sigma=0.5) in this process" in msg, msg


def _script(tmp_path, body):
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(body))
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin",
                               "RLMLIB_SCHEDULER": ""})


def test_missing_main_guard_is_explained_in_one_paragraph_before_any_worker(tmp_path):
    out = _script(tmp_path, """
        import numpy as np, rlmlib
        from rlmlib.book.parallel import sweep
        X = np.eye(4); y = np.array([1.0, -1, 1, -1])
        sweep(rlmlib.sgd, X, y, grid={"seed": [0, 1]}, fixed={"sigma": 0.1, "epochs": 1},
              progress=False)
        """)
    assert out.returncode != 0
    assert "RuntimeError: sweep: this script calls" in out.stderr
    assert 'if __name__ == "__main__":' in out.stderr and "spawn" in out.stderr
    assert "Nanny" not in out.stderr.replace("'Nanny failed to start'", "")
    assert len(out.stderr.splitlines()) < 15       # not 293 lines and 8 tracebacks
    ok = _script(tmp_path, """
        from rlmlib.book import parallel
        def main():
            parallel._check_main_guard()
            print("guarded: ok")
        if __name__ == "__main__":
            main()
        """)
    assert ok.returncode == 0 and "guarded: ok" in ok.stdout, ok.stderr


def test_main_guard_elsewhere_in_the_script_does_not_hide_an_unguarded_sweep(tmp_path):
    """Audit of issue 19: a script with an `if __name__ == "__main__":` block that calls
    sweep outside it (at module level, or through a function called at module level) passed
    the source check, and printed 290 lines and 8 tracebacks ending in 'Nanny failed to
    start'; the check now asks whether the script's executing top-level line is guarded."""
    for body in ("""
        import numpy as np, rlmlib
        from rlmlib.book.parallel import sweep
        X = np.eye(4); y = np.array([1.0, -1, 1, -1])
        sweep(rlmlib.sgd, X, y, grid={"seed": [0, 1]}, fixed={"sigma": 0.1, "epochs": 1},
              progress=False)
        if __name__ == "__main__":
            print("done")
        """, """
        from rlmlib.book import parallel
        def main():
            parallel._check_main_guard()
        main()
        if "__main__" == __name__:
            pass
        """):
        out = _script(tmp_path, body)
        assert out.returncode != 0
        assert "RuntimeError: sweep: this script calls" in out.stderr, out.stderr[-2000:]
        assert "Nanny" not in out.stderr.replace("'Nanny failed to start'", "")
        assert len(out.stderr.splitlines()) < 15
    ok = _script(tmp_path, """
        from rlmlib.book import parallel
        def main():
            parallel._check_main_guard()
            print("guarded: ok")
        if "__main__" == __name__:
            main()
        """)
    assert ok.returncode == 0 and "guarded: ok" in ok.stdout, ok.stderr


@pytest.mark.parametrize("name", ["svmsgd2", "sgdqn", "olbfgs"])
def test_epochs_beyond_the_step_range_names_epochs(name):
    X, y = data()
    with pytest.raises(ValueError, match=r"epochs is too large: epochs \* m = "):
        rlmlib.SOLVERS[name](X, y, sigma=0.1, epochs=10**30)


def test_condition_numbers_without_a_loss_names_loss():
    X, _ = data()
    with pytest.raises(ValueError, match=r"loss must be one of 'squared', 'logistic' for "
                                         r"condition_numbers .* got None"):
        rlmlib.condition_numbers(X, sigma=0.1, beta=1.0, loss=None)


def test_precondition_of_rows_whose_gram_overflows_says_scale_X_down():
    X, _ = data()
    with pytest.raises(ValueError, match=r"X is too large for precondition: max \|\|x_i\|\| "
                                         r"= .*e\+200.* scale X down"):
        rlmlib.precondition(X * 1e200, sigma=0.1, beta=1.0)
    rlmlib.precondition(X * 1e100, sigma=0.1, beta=1.0)     # 1e200 squared norms: fine


def test_olbfgs_memory_beyond_the_machine_names_memory():
    X, y = data()
    with pytest.raises(ValueError, match=r"memory=1000000000000 would need .* GiB"):
        rlmlib.olbfgs(X, y, sigma=0.1, epochs=1, memory=10**12)


def test_svrg_inner_too_large_blames_inner_not_epochs():
    X, y = data()
    with pytest.raises(ValueError, match=r"^inner must be an integer in \[1, 9007199254740992"
                                         r"\], got 100000000000000000000"):
        rlmlib.svrg(X, y, sigma=0.1, epochs=1, loss="logistic", inner=10**20)


def test_load_svmlight_of_an_empty_device_is_not_called_missing(tmp_path):
    with pytest.raises(ValueError, match=r"path='/dev/null' holds no examples .* expected an "
                                         r"svmlight file"):
        rlmlib.load_svmlight("/dev/null")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        rlmlib.load_svmlight(tmp_path / "missing.svm")
    with pytest.raises(IsADirectoryError, match="got the directory"):
        rlmlib.load_svmlight(tmp_path)


class _Frame:
    """The part of a pandas DataFrame as_rows reads: nullable Float64 columns (kind 'f')
    that numpy would turn into dtype object."""

    class _Float64:
        kind = "f"

    def __init__(self, values):
        self.values = values
        self.columns = list(range(values.shape[1]))
        self.dtypes = [self._Float64()] * values.shape[1]

    def __array__(self, dtype=None, copy=None):
        return self.values.astype(object)

    def to_numpy(self, dtype=None, na_value=None):
        return np.array(self.values, dtype=dtype)


def test_numeric_frames_of_nullable_dtypes_are_accepted():
    X, y = data()
    ref = rlmlib.sgd(X, y, sigma=0.1, epochs=2)
    np.testing.assert_array_equal(rlmlib.sgd(_Frame(X), y, sigma=0.1, epochs=2).w, ref.w)
    try:
        import pandas as pd
    except ImportError:
        return
    df = pd.DataFrame(X).astype("Float64")
    res = rlmlib.sgd(df, pd.Series(y).astype("Float64"), sigma=0.1, epochs=2)
    np.testing.assert_array_equal(res.w, ref.w)
    df.iloc[0, 0] = pd.NA
    with pytest.raises(ValueError, match="X must not contain NaN"):
        rlmlib.sgd(df, y, sigma=0.1, epochs=2)
    with pytest.raises(TypeError, match="X must hold real numbers"):
        rlmlib.sgd(pd.DataFrame({"a": ["x"] * 20, "b": X[:, 1]}), y, sigma=0.1, epochs=2)


def test_slider_refuses_num_beyond_max_frames_before_allocating():
    from rlmlib.book.explore import MAX_FRAMES, Slider
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=rf"Slider num must be at most "
                                             rf"MAX_FRAMES={MAX_FRAMES} .* got 20000000"):
            Slider(0.0, 1.0, num=2 * 10**7)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20                                   # not 918 MiB
    assert len(Slider(0.0, 1.0, num=MAX_FRAMES).grid()) == MAX_FRAMES


def _boom(*args):
    raise KeyError("my own bug")


@pytest.mark.parametrize("checker", ["check_scheduled_step", "check_skip_from_cost",
                                     "check_secant_ratio", "check_corrected_update",
                                     "check_rate_exponent"])
def test_checkers_report_the_readers_exception_with_the_input(checker):
    from rlmlib.book import checkers
    with pytest.raises(AssertionError, match=r"on input .* raised KeyError: 'my own bug'"):
        getattr(checkers, checker)(_boom)


@pytest.mark.parametrize("solver,arg", [("sgd", "t0"), ("svmsgd2", "t0"), ("sgdqn", "t0"),
                                        ("olbfgs", "t0"), ("asgd", "eta0")])
def test_a_subnormal_offset_is_refused_naming_it(solver, arg):
    # t0 = 5e-324 made svmsgd2, sgdqn and asgd divide by zero, and sgd blame X
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    with pytest.raises(ValueError, match=rf"{solver}: {arg}=5e-324 is too small for "
                                         rf"sigma=0\.01: 1/\(sigma \* {arg}\) overflows"):
        rlmlib.SOLVERS[solver](X, y, sigma=1e-2, epochs=2, **{arg: 5e-324})


def test_classifier_refuses_complex_X_by_name():
    """RLMClassifier.fit / predict on complex X: a ValueError naming X and its dtype
    (scikit-learn said 'Complex data not supported' followed by the whole array; audit of
    issue 19). A ValueError, not the solvers' TypeError: scikit-learn's estimator checks
    require one."""
    import scipy.sparse as sp

    X, y = data()
    clf = rlmlib.RLMClassifier(solver="sgd", sigma=0.1, epochs=1)
    for A in (X.astype(complex), sp.csr_matrix(X.astype(complex)), X.astype(complex).tolist()):
        with pytest.raises(ValueError, match=r"^X must hold real numbers, got complex values "
                                             r"of dtype complex128 \(Complex data not "):
            clf.fit(A, y)
    clf.fit(X, y)
    with pytest.raises(ValueError, match="^X must hold real numbers"):
        clf.predict(X.astype(complex))
    assert clf.score(X, y) > 0.8


def test_numerical_rank_names_the_bad_eigenvalue():
    # audit of issue 19: the message said "eigenvalues must be finite and >= 0" without the
    # value or where it is
    from rlmlib.precond.preconditioner import numerical_rank

    with pytest.raises(ValueError, match=r"^eigenvalues must be finite and >= 0, got "
                                         r"eigenvalues\[1\] = -1\.0$"):
        numerical_rank([1.0, -1.0], 1.0)
    with pytest.raises(ValueError, match=r"got eigenvalues\[0\] = nan \(2 such values\)$"):
        numerical_rank([np.nan, 2.0, np.inf], 1.0)
    assert numerical_rank([1e308, 0.0], 1.0) == 1.0


def test_gram_overflow_is_reported_by_the_function_the_user_called():
    # audit of issue 19: condition_numbers and incoherence on X * 1e200 said "X is too large
    # for precondition", a function the user had not called
    from rlmlib.precond.preconditioner import incoherence

    X, _ = data()
    for f, kw in ((rlmlib.precondition, {}), (rlmlib.condition_numbers, dict(loss="logistic")),
                  (incoherence, {})):
        with pytest.raises(ValueError, match=rf"^X is too large for {f.__name__}: max "
                                             rf"\|\|x_i\|\| = \d.\d+e\+200"):
            f(X * 1e200, sigma=0.1, beta=0.25, **kw)


def test_fiol_step_refuses_complex_and_names_the_non_finite_argument():
    # audit of issue 19 (s6): fiol_step with a complex x dropped the imaginary part with
    # numpy's ComplexWarning and returned a step; "w and x must be finite" named neither the
    # argument nor the value
    import warnings

    kw = dict(eta=1.0, sigma=0.1, loss="logistic")
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no ComplexWarning on the way to the refusal
        for w, x, arg in ((np.zeros(3), np.array([1.0, 2j, 3.0]), "x"),
                          (np.zeros(3, complex), np.ones(3), "w"),
                          ([0.0, 0.0, 0.0], [1 + 1j, 0.0, 0.0], "x")):
            with pytest.raises(TypeError, match=rf"^{arg} must hold real numbers, got an "
                                                rf"array of dtype complex128; complex values "
                                                rf"are refused"):
                rlmlib.fiol_step(w, x, 1.0, **kw)
    with pytest.raises(ValueError, match=r"^x must be finite \(no NaN or inf\); got "
                                         r"x\[1\] = nan$"):
        rlmlib.fiol_step(np.zeros(3), np.array([1.0, np.nan, 2.0]), 1.0, **kw)
    with pytest.raises(ValueError, match=r"^w must be finite \(no NaN or inf\); got "
                                         r"w\[2\] = -inf$"):
        rlmlib.fiol_step(np.array([0.0, 1.0, -np.inf]), np.ones(3), 1.0, **kw)
    # real input of any real dtype still steps
    a = rlmlib.fiol_step(np.zeros(3), np.array([1, 2, 3]), 1.0, **kw)
    b = rlmlib.fiol_step(np.zeros(3), np.array([1.0, 2.0, 3.0]), 1.0, **kw)
    np.testing.assert_array_equal(a, b)


def test_object_dtype_message_shows_an_entry_that_is_not_a_number():
    """The example in 'must hold real numbers' is the offending entry (it was the first
    entry, a real number, for [[0.1257, 'x'], ...])."""
    import numpy as np
    import pytest

    import rlmlib

    A = np.array([[0.1257, "x"], [1.0, 2.0]], dtype=object)
    with pytest.raises(TypeError, match=r"dtype object \(e\.g\. 'x'\)"):
        rlmlib.as_rows(A)
