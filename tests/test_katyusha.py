"""katyusha: equality with the literal NumPy transcription of its algorithm box
(rlmlib.book.momentum.katyusha_literal), dense = sparse, the optimum certified by
rlmlib.lbfgs, its parameters against Allen-Zhu's, and errors on bad input."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

import rlmlib
from rlmlib.book.momentum import katyusha_literal
from rlmlib.book.vr import draws
from test_saga import close, problem  # sparse random rows; equality to 1e-12


@pytest.mark.parametrize("loss", ["squared", "logistic"])
@pytest.mark.parametrize("inner", [None, 50])
def test_katyusha_equals_its_box(loss, inner):
    X, y = problem(loss)
    m = len(y)
    res = rlmlib.katyusha(sp.csr_matrix(X), y, sigma=1e-3, epochs=9, loss=loss,
                          inner=inner, seed=3)
    k = res.params["inner"]
    ref = katyusha_literal(X, y, 1e-3, k, draws(m, res.params["stages"] * k, seed=3),
                           loss)
    close(res.w, ref)


def test_dense_equals_sparse():
    X, y = problem("logistic", m=150)
    close(rlmlib.katyusha(X, y, sigma=0.01, epochs=9).w,
          rlmlib.katyusha(sp.csr_matrix(X), y, sigma=0.01, epochs=9).w)


@pytest.mark.parametrize("loss", ["squared", "logistic"])
def test_katyusha_reaches_certified_optimum(loss):
    X, y = problem(loss)
    ref = rlmlib.lbfgs(X, y, sigma=1e-2, loss=loss, tol=1e-13)
    res = rlmlib.katyusha(X, y, sigma=1e-2, epochs=120, loss=loss)
    assert res.objective - ref.objective <= 1e-9 * abs(ref.objective)


def test_parameters_are_the_papers():
    X, y = problem("squared")
    res = rlmlib.katyusha(X, y, sigma=1e-3, epochs=3, loss="squared")
    m, L = len(y), float((X * X).sum(axis=1).max())
    p = res.params
    assert p["inner"] == 2 * m and p["tau2"] == 0.5
    assert p["tau1"] == pytest.approx(min(math.sqrt(2 * m * 1e-3 / (3 * L)), 0.5))
    assert p["alpha"] == pytest.approx(1.0 / (3.0 * p["tau1"] * L))


def test_bad_input_is_named():
    X, y = problem("logistic")
    with pytest.raises(ValueError, match="inner"):
        rlmlib.katyusha(X, y, sigma=0.1, inner=0)
    with pytest.raises(ValueError, match="loss"):
        rlmlib.katyusha(X, y, sigma=0.1, loss="hinge")
    with pytest.raises(TypeError):
        rlmlib.katyusha(X, y, lam=0.1)
