"""rlmlib.distributed.hogwild: one thread is the step written out; more threads
converge."""
import numpy as np
import pytest
import scipy.sparse as sp

import rlmlib
from rlmlib.distributed import hogwild


def _data(m=300, n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(m, n, density=0.1, random_state=seed, format="csr")
    X.data = rng.standard_normal(X.data.shape[0])
    y = np.where(X @ rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


def test_one_thread_is_the_transcription():
    X, y = _data()
    sigma, m = 0.05, X.shape[0]
    res = hogwild(X, y, sigma=sigma, epochs=2, threads=1, loss="logistic", seed=4)
    t0 = res.params["t0"]
    counts = np.bincount(X.indices, minlength=X.shape[1])
    w = np.zeros(X.shape[1])
    rng = np.random.default_rng(4)
    t = 0
    for _ in range(2):
        for i in rng.permutation(m):
            row = X[i]
            z = float((row @ w)[0])
            eta = 1 / (sigma * (t + t0))
            d = -y[i] / (1 + np.exp(y[i] * z))      # logistic loss' in z
            for j, x in zip(row.indices, row.data):
                w[j] = w[j] * max(0.0, 1 - eta * sigma * m / counts[j]) - eta * d * x
            t += 1
    assert np.allclose(res.w, w, rtol=1e-10, atol=1e-14)


def test_two_threads_converge():
    X, y = _data()
    ref = rlmlib.lbfgs(X, y, sigma=0.05, loss="logistic", tol=1e-12)
    res = hogwild(X, y, sigma=0.05, epochs=30, threads=2, loss="logistic")
    F0 = res.trace.objective[0]
    assert res.objective - ref.objective <= 0.02 * (F0 - ref.objective)


def test_bad_input_is_named():
    X, y = _data()
    with pytest.raises(ValueError, match="threads"):
        hogwild(X, y, sigma=0.1, epochs=1, threads=0)
    with pytest.raises(ValueError, match="^sigma must be a finite number > 0, got -1.0$"):
        hogwild(X, y, sigma=-1.0, epochs=1)


def test_one_thread_with_replacement_is_sgd_with_replacement():
    # the sampling of thm-dist-hogwild: dense rows (every p_j = 1, so the split
    # regularizer is SGD's shrink), one thread, uniform draws with replacement
    rng = np.random.default_rng(2)
    X = rng.standard_normal((120, 6))
    y = np.where(X @ rng.standard_normal(6) > 0, 1.0, -1.0)
    res = hogwild(X, y, sigma=0.05, epochs=3, threads=1, loss="logistic", seed=7,
                  order="replacement")
    ref = rlmlib.sgd(X, y, sigma=0.05, epochs=3, loss="logistic", seed=7,
                     order="replacement")
    assert res.params["order"] == "replacement"
    assert np.allclose(res.w, ref.w, rtol=1e-9, atol=1e-12)
    other = hogwild(X, y, sigma=0.05, epochs=3, threads=1, loss="logistic", seed=7)
    assert not np.allclose(res.w, other.w, rtol=1e-6)     # a different sampling


def test_order_is_checked_like_sgd():
    X, y = _data()
    with pytest.raises(ValueError, match="order"):
        hogwild(X, y, sigma=0.1, epochs=1, order="sorted")


def test_one_thread_with_replacement_is_the_theorem_model():
    # thm-dist-hogwild's model at delay 0 (rlmlib.book.proof_checks.delayed_sgd): draws
    # with replacement, the split regularizer, t0 >= max_j 1/p_j so the clip never acts
    from rlmlib.book.proof_checks import delayed_sgd, sparse_instance

    X, y, sigma = sparse_instance(m=400, n=150, d=3, seed=3)
    t0 = float(X.shape[0] / np.bincount(X.indices).min())
    res = hogwild(X, y, sigma=sigma, epochs=5, threads=1, loss="logistic", t0=t0,
                  seed=5, order="replacement")
    w, _ = delayed_sgd(X, y, sigma, t0, 0, 5 * X.shape[0], 5)
    assert np.allclose(res.w, w, rtol=1e-10, atol=1e-13)
    # below max_j 1/p_j the kernel clips the shrink and leaves the model
    short = hogwild(X, y, sigma=sigma, epochs=5, threads=1, loss="logistic", t0=1.0,
                    seed=5, order="replacement")
    w1, _ = delayed_sgd(X, y, sigma, 1.0, 0, 5 * X.shape[0], 5)
    assert not np.allclose(short.w, w1, rtol=1e-6)
