"""The fuzz target of tests/test_fuzz_solvers.py, run in a subprocess (a signal then fails
the test instead of killing pytest): every registered solver called with random shapes,
dtypes, sparsity, scales, orders, losses, checkpoints and options. Each call must return
finite weights and objective, or raise a named error (ValueError, TypeError,
FloatingPointError with a message); no warning may name a setting the solver does not have
or, for olbfgs, t0 when eta0 replaced it. ``python fuzz_solvers.py N`` runs N examples.
"""
import inspect
import re
import sys
import warnings

import numpy as np
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings, strategies as st

import rlmlib
from rlmlib.core.losses import LOSSES
from solver_options import choices
from solver_table import SOLVER_TABLE

ORDERS = ("reshuffle", "shuffle_once", "cyclic", "replacement")
#: the numeric options beyond order/loss/checkpoints, one strategy each; the categorical
#: ones (shrinking, method, variant, averaging, penalty, ...) are drawn from the choices
#: the solvers name (tests/solver_options.py: a hand-made list once held choices no
#: solver takes, so those draws only ever exercised the refusal)
OPTIONS = {
    "olbfgs": {"eta0": st.none() | st.floats(1e-3, 10.0), "memory": st.integers(1, 12),
               "clip": st.none() | st.floats(0.1, 10.0)},
    "asgd": {"average_start": st.integers(0, 50)},
    "pegasos": {"k": st.integers(1, 7)},
    "pgs": {"k": st.integers(1, 7)},
    "svrg": {"inner": st.none() | st.integers(1, 60)},
}
CHOICES = {name: {k: v for k, v in choices(name).items() if k not in ("loss", "order")}
           for name in rlmlib.SOLVERS}
SETTINGS = ("t0", "eta0", "eta", "step", "skip", "inner", "clip", "damping", "radius")
NAMED = (ValueError, TypeError, FloatingPointError)


@st.composite
def problems(draw):
    m = draw(st.integers(1, 40))
    n = draw(st.integers(1, 12))
    seed = draw(st.integers(0, 2 ** 16))
    rng = np.random.default_rng(seed)
    scale = 10.0 ** draw(st.integers(-3, 3))
    X = scale * rng.standard_normal((m, n))
    if draw(st.booleans()):
        X[rng.random((m, n)) < draw(st.floats(0.0, 0.9))] = 0.0
    X = X.astype(draw(st.sampled_from([np.float64, np.float32])))
    if draw(st.booleans()):
        X = sp.csr_matrix(X)
    y = np.where(rng.random(m) < 0.5, -1, 1)
    y[0] = 1
    if m > 1:
        y[1] = -1
    return X, y


@st.composite
def calls(draw):
    name = draw(st.sampled_from(sorted(rlmlib.SOLVERS)))
    params = inspect.signature(rlmlib.SOLVERS[name]).parameters
    kw = dict(SOLVER_TABLE[name]["kwargs"])
    kw["sigma"] = 10.0 ** draw(st.integers(-6, 1))
    if "order" in params:
        kw["order"] = draw(st.sampled_from(ORDERS))
    if "loss" in params and draw(st.booleans()):  # else the table's or the default loss
        kw["loss"] = draw(st.sampled_from(sorted(k for k, v in LOSSES.items()
                                                 if v["task"] == "binary")))
    if "epochs" in params:
        kw["epochs"] = draw(st.integers(1, 4))
    if "T" in params:
        kw["T"] = draw(st.integers(1, 60))
    if "n_checkpoints" in params:
        kw["n_checkpoints"] = draw(st.none() | st.integers(1, 9))
    for opt, vals in CHOICES[name].items():
        if draw(st.booleans()):
            kw[opt] = draw(st.sampled_from(vals))
    for opt, strat in OPTIONS.get(name, {}).items():
        if draw(st.booleans()):
            kw[opt] = draw(strat)
    return name, kw


def check(name, kw, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = rlmlib.SOLVERS[name](X, y, **kw)
            w, obj = res.w, res.objective
        except NAMED as e:
            assert str(e), (name, kw, type(e))
            return
    # a ConvergenceWarning may report an end above F(0); then the objective is still finite
    assert np.all(np.isfinite(w)) and np.isfinite(obj), (name, kw, obj)
    params = inspect.signature(rlmlib.SOLVERS[name]).parameters
    for c in caught:
        # the blame, without the " with sigma=..., t0=...: " list of the settings as used
        msg = re.sub(r" with [^:]*: ", " ", str(c.message), count=1)
        for s in SETTINGS:
            if re.search(rf"\b{s}=|(larger|smaller|pass|raise|lower) {s}\b", msg):
                assert s in params, (name, kw, msg)
                assert not (name == "olbfgs" and s == "t0" and kw.get("eta0") is not None), \
                    (name, kw, msg)


def main(n_examples):
    @settings(max_examples=n_examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(calls(), problems())
    def fuzz(call, problem):
        check(*call, *problem)

    fuzz()
    print("ok")


if __name__ == "__main__":
    main(int(sys.argv[1]))
