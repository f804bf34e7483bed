"""AdaGrad and Adam/AMSGrad (rlmlib.adagrad, rlmlib.adam): equal to literal NumPy
transcriptions of their algorithm boxes (chapters/adaptive/index.md), dense = sparse where the
algorithm says so, lazy Adam's relation to dense Adam, and convergence certified by lbfgs."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

import rlmlib


def _data(m=40, n=12, density=0.3, seed=0, dense_rows=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n))
    if not dense_rows:
        X *= rng.random((m, n)) < density
    y = np.where(X @ rng.standard_normal(n) + 0.3 * rng.standard_normal(m) > 0, 1.0, -1.0)
    return X, y


def _dloss(z, y):   # logistic: l'(z; y) = -y / (1 + exp(y z))
    return -y / (1.0 + math.exp(y * z))


def adagrad_box(X, y, sigma, eta, delta, epochs):
    """The AdaGrad box, every coordinate at every step, cyclic order."""
    m, n = X.shape
    w, G = np.zeros(n), np.zeros(n)
    for _ in range(epochs):
        for i in range(m):
            g = _dloss(X[i] @ w, y[i]) * X[i]
            G += g * g
            H = delta + np.sqrt(G)
            w = (H * w - eta * g) / (H + eta * sigma)
    return w


def adam_box(X, y, sigma, eta, b1, b2, eps, epochs, amsgrad=False):
    """The Adam / AMSGrad box, every coordinate at every step, cyclic order."""
    m, n = X.shape
    w, mo, v, vmax = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
    tau = 0
    for _ in range(epochs):
        for i in range(m):
            tau += 1
            g = _dloss(X[i] @ w, y[i]) * X[i]
            mo = b1 * mo + (1 - b1) * g
            v = b2 * v + (1 - b2) * g * g
            vmax = np.maximum(vmax, v)
            H = np.sqrt((vmax if amsgrad else v) / (1 - b2 ** tau)) + eps
            w = (H * w - eta * mo / (1 - b1 ** tau)) / (H + eta * sigma)
    return w


def lazy_adam_box(X, y, sigma, eta, b1, b2, eps, epochs, amsgrad=False):
    """The lazy Adam box, every coordinate at every step: touched coordinates (x_ij != 0)
    update their averages (k_j counts them) and step; the others take the factor
    H_j / (H_j + eta sigma) with their frozen H_j."""
    m, n = X.shape
    w, mo, v, vmax = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
    k = np.zeros(n)
    for _ in range(epochs):
        for i in range(m):
            d = _dloss(X[i] @ w, y[i])
            for j in range(n):
                if X[i, j] != 0:
                    g = d * X[i, j]
                    k[j] += 1
                    mo[j] = b1 * mo[j] + (1 - b1) * g
                    v[j] = b2 * v[j] + (1 - b2) * g * g
                    vmax[j] = max(vmax[j], v[j])
                    H = math.sqrt((vmax[j] if amsgrad else v[j]) / (1 - b2 ** k[j])) + eps
                    w[j] = (H * w[j] - eta * mo[j] / (1 - b1 ** k[j])) / (H + eta * sigma)
                elif k[j] > 0:
                    H = math.sqrt((vmax[j] if amsgrad else v[j]) / (1 - b2 ** k[j])) + eps
                    w[j] *= H / (H + eta * sigma)
    return w


def _close(a, b, tol=1e-12):
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol * np.abs(b).max())


@pytest.mark.parametrize("sparse", [False, True])
def test_adagrad_equals_its_box(sparse):
    X, y = _data()
    A = sp.csr_matrix(X) if sparse else X
    res = rlmlib.adagrad(A, y, sigma=0.05, epochs=3, step=0.2, delta=1e-3, order="cyclic")
    _close(res.w, adagrad_box(X, y, 0.05, 0.2, 1e-3, 3))


def test_adagrad_dense_equals_sparse_with_and_without_stored_zeros():
    X, y = _data(seed=3)
    kw = dict(sigma=0.01, epochs=4, step=0.1, seed=5)
    a = rlmlib.adagrad(X, y, **kw).w
    b = rlmlib.adagrad(sp.csr_matrix(X), y, **kw).w
    _close(a, b)
    assert not np.array_equal(a, np.zeros_like(a))


@pytest.mark.parametrize("amsgrad", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
def test_adam_dense_variant_equals_its_box(amsgrad, sparse):
    X, y = _data(seed=1)
    A = sp.csr_matrix(X) if sparse else X
    res = rlmlib.adam(A, y, sigma=0.02, epochs=3, step=0.05, beta1=0.8, beta2=0.95,
                      eps=1e-6, amsgrad=amsgrad, lazy=False, order="cyclic")
    _close(res.w, adam_box(X, y, 0.02, 0.05, 0.8, 0.95, 1e-6, 3, amsgrad))


@pytest.mark.parametrize("amsgrad", [False, True])
def test_lazy_adam_equals_its_box_dense_or_sparse(amsgrad):
    X, y = _data(seed=2)
    kw = dict(sigma=0.02, epochs=3, step=0.05, beta1=0.8, beta2=0.95, eps=1e-6,
              amsgrad=amsgrad, order="cyclic")
    box = lazy_adam_box(X, y, 0.02, 0.05, 0.8, 0.95, 1e-6, 3, amsgrad)
    _close(rlmlib.adam(sp.csr_matrix(X), y, **kw).w, box)
    _close(rlmlib.adam(X, y, **kw).w, box)


def test_lazy_adam_is_dense_adam_iff_every_row_touches_every_coordinate():
    kw = dict(sigma=0.02, epochs=3, step=0.05, seed=4)
    X, y = _data(seed=6, dense_rows=True)   # no zero entry
    _close(rlmlib.adam(X, y, **kw, lazy=True).w, rlmlib.adam(X, y, **kw, lazy=False).w)
    X, y = _data(seed=6)                     # sparse rows: a different algorithm
    a = rlmlib.adam(X, y, **kw, lazy=True).w
    b = rlmlib.adam(X, y, **kw, lazy=False).w
    assert np.abs(a - b).max() > 1e-3 * np.abs(b).max()


def test_rmsprop_is_adam_with_beta1_zero():
    # beta1 = 0: m = g, mhat = g; the box with beta1 = 0 is RMSProp (v bias-corrected)
    X, y = _data(seed=7)
    res = rlmlib.adam(X, y, sigma=0.02, epochs=2, step=0.05, beta1=0.0, lazy=False,
                      order="cyclic")
    _close(res.w, adam_box(X, y, 0.02, 0.05, 0.0, 0.999, 1e-8, 2))


@pytest.mark.parametrize("solver,kw", [
    ("adagrad", dict(epochs=200, step=0.5)),
    ("adam", dict(epochs=200, step=3e-3, amsgrad=True)),
])
def test_convergence_certified_by_lbfgs(solver, kw):
    X, y = _data(m=200, n=8, density=0.5, seed=8)
    ref = rlmlib.lbfgs(X, y, sigma=0.05, loss="logistic")
    assert ref.info["converged"]
    res = rlmlib.SOLVERS[solver](X, y, sigma=0.05, **kw)
    gap = (res.objective - ref.objective) / ref.objective
    assert 0 <= gap < 1e-3, gap


@pytest.mark.parametrize("arg,value,exc,msg", [
    ("beta1", 1.0, ValueError, "beta1"), ("beta2", 0.0, ValueError, "beta2"),
    ("beta2", 1.0, ValueError, "beta2"), ("eps", 0.0, ValueError, "eps"),
    ("step", -1.0, ValueError, "step"), ("amsgrad", "yes", TypeError, "amsgrad"),
    ("lazy", 1, TypeError, "lazy")])
def test_adam_bad_arguments_are_named(arg, value, exc, msg):
    X, y = _data()
    with pytest.raises(exc, match=msg):
        rlmlib.adam(X, y, sigma=0.1, **{arg: value})


def test_adagrad_bad_delta_is_named():
    X, y = _data()
    with pytest.raises(ValueError, match="delta"):
        rlmlib.adagrad(X, y, sigma=0.1, delta=0.0)
