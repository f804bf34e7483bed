"""The figures of oLBFGS's docstring ("Accuracy"): relative gaps (F - F*)/F* of
``rlmlib.olbfgs``'s default call at sigma = 1e-2 on the book's small problems (the 60 x 5
Gaussian case of issue 19 and the standardized breast cancer data, dense and CSR) and on
random 40 - 80-row problems drawn as tests/test_properties.py's ``default_problems`` does,
against SDCA's certified dual value (tests/solver_table.py's ``certified_optimum``).

    .venv/bin/python benchmarks/olbfgs_gaps.py                      # default, 100 epochs
    .venv/bin/python benchmarks/olbfgs_gaps.py --epochs 30
    .venv/bin/python benchmarks/olbfgs_gaps.py --pairs 1 1          # the paper's pairs
    .venv/bin/python benchmarks/olbfgs_gaps.py --orders 8           # seeds 0..7, book only

A few seconds to a minute on the book's machine.
"""
import argparse
import warnings

import numpy as np
import scipy.sparse as sp

import rlmlib

SIGMA = 1e-2
LOSSES = ("squared_hinge", "logistic")


def book_problems():
    X = np.random.default_rng(0).standard_normal((60, 5))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    ds = rlmlib.load_dataset("breast_cancer", standardize=True)
    return [("gauss60", X, y), ("gauss60-csr", sp.csr_matrix(X), y), ("bc", ds.X, ds.y),
            ("bc-csr", sp.csr_matrix(ds.X), ds.y)]


def random_problem(seed):
    """m in [40, 80], n in [2, 5], noise, density and storage drawn from ``seed``."""
    draw = np.random.default_rng(seed)
    m, n = int(draw.integers(40, 81)), int(draw.integers(2, 6))
    noise, density = (0.0, 0.3, 1.0)[draw.integers(3)], (1.0, 0.6)[draw.integers(2)]
    csr = bool(draw.integers(2))
    rng = np.random.default_rng(seed + 7)
    A = rng.standard_normal((m, n)) * (rng.random((m, n)) < density)
    z = A @ rng.standard_normal(n) + noise * rng.standard_normal(m)
    y = np.where(z > 0, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0
    return (sp.csr_matrix(A) if csr else A), y


def fstar(X, y, loss):
    ref = rlmlib.sdca(X, y, sigma=SIGMA, loss=loss, epochs=1000)
    assert ref.info["gap"] <= 1e-3 * abs(ref.info["dual"])
    return ref.info["dual"]


TIES = []


def gap(X, y, loss, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlmlib.olbfgs(X, y, sigma=SIGMA, loss=loss, **kw)
    TIES.append(bool(res.info.get("t0_tie")))
    f = rlmlib.objective(X, y, res.w, sigma=SIGMA, loss=loss)
    ref = fstar(X, y, loss)
    return (f - ref) / ref


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--pairs", type=int, nargs=2, metavar=("BATCH", "EVERY"), default=None,
                    help="pair_batch pair_every (default: the default call's)")
    ap.add_argument("--random", type=int, nargs="*", default=[1000, 2000],
                    help="first seeds of the blocks of 60 random problems")
    ap.add_argument("--orders", type=int, default=1, help="example-order seeds 0..N-1")
    a = ap.parse_args()
    kw = dict(epochs=a.epochs)
    if a.pairs:
        kw.update(pair_batch=a.pairs[0], pair_every=a.pairs[1])
    for name, X, y in book_problems():
        for loss in LOSSES:
            g = [gap(X, y, loss, dict(kw, seed=s)) for s in range(a.orders)]
            print(f"{name:12s} {loss:13s} gap max {max(g):.2e} median {np.median(g):.2e}")
    TIES.clear()
    for base in a.random:
        for loss in LOSSES:
            g = [gap(*random_problem(s), loss, kw) for s in range(base, base + 60)]
            print(f"random {base}..{base + 59} {loss:13s} worst {max(g):.2e} median "
                  f"{np.median(g):.2e} above 1e-2: {sum(v > 1e-2 for v in g)}/60")
    print(f"t0 selections that tied at F(0) on the random problems: {sum(TIES)} of "
          f"{len(TIES)}")


if __name__ == "__main__":
    main()
