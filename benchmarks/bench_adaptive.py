"""AdaGrad and Adam: the whole default call of ``rlmlib.adagrad`` / ``rlmlib.adam`` (lazy,
O(nnz) steps) against a NumPy transcription of the same algorithm on the same sparse rows
(one row's indices sliced per step: the natural NumPy code), in one process.

    .venv/bin/python benchmarks/bench_adaptive.py [--rows 20000] [--reps 3]

PyTorch's torch.optim.Adagrad/Adam would be the natural peer; it is used only when already
installed (it is not in requirements.txt). Prints each median (CPU seconds of the thread),
their ratio and the load average; asserts nothing about time.
"""
import argparse
import math
import os
import time

import numpy as np

import rlmlib
from rlmlib.datasets import synthetic


def numpy_adagrad(X, y, sigma, eta, delta, order):
    """Lazy AdaGrad, one row at a time (the box of chapters/adaptive/index.md)."""
    n = X.shape[1]
    w, G, last = np.zeros(n), np.zeros(n), np.zeros(n, np.int64)
    data, ind, ptr = X.data, X.indices, X.indptr
    for t, i in enumerate(order):
        j, x = ind[ptr[i]:ptr[i + 1]], data[ptr[i]:ptr[i + 1]]
        h = delta + np.sqrt(G[j])
        w[j] *= (h / (h + eta * sigma)) ** (t - last[j])
        d = -y[i] / (1 + math.exp(y[i] * (x @ w[j])))
        g = d * x
        G[j] += g * g
        h = delta + np.sqrt(G[j])
        w[j] = (h * w[j] - eta * g) / (h + eta * sigma)
        last[j] = t + 1
    h = delta + np.sqrt(G)
    return w * (h / (h + eta * sigma)) ** (len(order) - last)


def numpy_lazy_adam(X, y, sigma, eta, b1, b2, eps, order):
    """Lazy Adam, one row at a time (rlmlib.adam(lazy=True))."""
    n = X.shape[1]
    w, m, v = np.zeros(n), np.zeros(n), np.zeros(n)
    p1, p2, last = np.ones(n), np.ones(n), np.zeros(n, np.int64)
    data, ind, ptr = X.data, X.indices, X.indptr

    def metric(j):
        return np.where(p2[j] == 1.0, eps,
                        np.sqrt(v[j] / np.where(p2[j] == 1.0, 1.0, 1 - p2[j])) + eps)

    for t, i in enumerate(order):
        j, x = ind[ptr[i]:ptr[i + 1]], data[ptr[i]:ptr[i + 1]]
        h = metric(j)
        w[j] *= (h / (h + eta * sigma)) ** (t - last[j])
        g = -y[i] / (1 + math.exp(y[i] * (x @ w[j]))) * x
        p1[j] *= b1
        p2[j] *= b2
        m[j] = b1 * m[j] + (1 - b1) * g
        v[j] = b2 * v[j] + (1 - b2) * g * g
        h = metric(j)
        w[j] = (h * w[j] - eta * m[j] / (1 - p1[j])) / (h + eta * sigma)
        last[j] = t + 1
    h = metric(np.arange(n))
    return w * (h / (h + eta * sigma)) ** (len(order) - last)


def cpu(f, reps):
    out, times = None, []
    for _ in range(reps):
        t = time.thread_time()
        out = f()
        times.append(time.thread_time() - t)
    return out, float(np.median(times))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=20_000)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    d = synthetic.rcv1_like(m=a.rows, n=20_000, nnz_per_row=76, seed=0)
    X, y, sigma = d.X.tocsr(), d.y, 1e-4
    order = np.random.default_rng(0).permutation(X.shape[0])
    print(f"{X.shape[0]} x {X.shape[1]} rows, {X.nnz / X.shape[0]:.0f} non-zeros per row, "
          f"one epoch, load average {os.getloadavg()}")
    rlmlib.adagrad(X[:100], y[:100], sigma=sigma, epochs=1)     # compile once
    rlmlib.adam(X[:100], y[:100], sigma=sigma, epochs=1)
    rows = np.arange(X.shape[0])
    cases = [
        ("adagrad", dict(), lambda: numpy_adagrad(X, y, sigma, 0.1, 1e-8, rows)),
        ("adam", dict(), lambda: numpy_lazy_adam(X, y, sigma, 1e-3, 0.9, 0.999, 1e-8, rows)),
    ]
    for name, kw, ref in cases:
        solver = rlmlib.SOLVERS[name]
        # the whole default call (one epoch, reshuffled), timed; the same call in storage
        # order checks that the transcription computes the same weights
        _, t_lib = cpu(lambda: solver(X, y, sigma=sigma, epochs=1, **kw).w, a.reps)
        w_ref, t_ref = cpu(ref, 1)
        w_lib = solver(X, y, sigma=sigma, epochs=1, order="cyclic", **kw).w
        err = np.abs(w_lib - w_ref).max() / max(np.abs(w_ref).max(), 1e-300)
        print(f"{name:8s} rlmlib whole default call {t_lib:.3f} s, NumPy transcription "
              f"{t_ref:.3f} s, ratio {t_lib / t_ref:.4f} (weights agree to {err:.1e}); "
              f"load {os.getloadavg()[0]:.2f}")
    try:
        import torch  # noqa: F401  (only when already installed)
        print("torch is installed: a torch.optim peer is not written yet")
    except ImportError:
        print("torch is not installed: the peer is the NumPy transcription")


if __name__ == "__main__":
    main()
