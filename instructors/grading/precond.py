"""Hidden grading of the data-preconditioning part's code exercises."""
import numpy as np

from instructors.exercises import EXERCISES
from instructors.reference import precond as ref
from rlmlib.book.checkers import precond as selfcheck
from rlmlib.book.checkers.base import _compare_vectors

from .common import draw_seed, grade_cases

TWINS = {f.name: f.twins for fs in EXERCISES.values() for f in fs}


def grade_gamma(gamma, seed=None):
    """Hidden test of ex-pre-gamma: random spectra over 600 orders of magnitude (mixed in one
    vector), zeros, ratios from 1e-300 to 1e300."""
    seed = draw_seed(seed)
    selfcheck.check_numerical_rank(gamma)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(20):
        n = int(rng.integers(1, 30))
        c = 10 ** rng.uniform(-300, 300, n) * (rng.random(n) < 0.85)
        cases.append((f"random {k}", (list(c), float(10 ** rng.uniform(-300, 300)))))
    cases.append(("1e300 and 1e-300 with ratio 1e-300", ([1e300, 1e-300, 0.0], 1e-300)))

    def compare(got, expected, desc, args):
        _compare_vectors("gamma", got, expected, 1e-10, desc, atol=1e-300)

    n = grade_cases("gamma", gamma, ref.gamma, cases, ("eigenvalues", "ratio"), compare,
                    seed=seed, twins=TWINS["gamma"])
    return f"gamma: hidden tests pass ({n} instances, seed {seed})"


def grade_sampled_transform(sampled_transform, seed=None):
    """Hidden test of ex-pre-sampled: random shapes, samples, rank-deficient data."""
    seed = draw_seed(seed)
    selfcheck.check_sampled_transform(sampled_transform)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(10):
        m, n = int(rng.integers(2, 40)), int(rng.integers(1, 10))
        X = rng.standard_normal((m, n)) * 10 ** rng.uniform(-2, 2, n)
        if rng.random() < 0.3:
            X[:, rng.integers(0, n)] = 0.0
        s = int(rng.integers(1, m + 1))
        cases.append((f"random {k}", (X, np.sort(rng.choice(m, s, replace=False)),
                                      float(10 ** rng.uniform(-5, 0)),
                                      float(rng.uniform(0.1, 1.0)))))

    def compare(got, expected, desc, args):
        _compare_vectors("sampled_transform", got, expected, 0.0, desc,
                         atol=1e-8 * max(float(np.abs(expected).max()), 1e-300))

    n = grade_cases("sampled_transform", sampled_transform, ref.sampled_transform, cases,
                    ("X", "sample", "sigma", "beta"), compare, seed=seed,
                    twins=TWINS["sampled_transform"])
    return f"sampled_transform: hidden tests pass ({n} instances, seed {seed})"


def grade_logistic_curvature_bound(bound, seed=None):
    """Hidden test of ex-pre-beta: R over the whole stated domain [0, 700]."""
    seed = draw_seed(seed)
    selfcheck.check_logistic_beta(bound)
    rng = np.random.default_rng(seed)
    Rs = list(rng.uniform(0, 700, 40)) + list(rng.uniform(0, 50, 40)) + [0.0, 700.0]
    cases = [(f"R={R!r}", (float(R),)) for R in Rs]

    def compare(got, expected, desc, args):
        _compare_vectors("bound", got, expected, 1e-12, desc)

    n = grade_cases("bound", bound, ref.logistic_curvature_bound, cases, ("R",), compare,
                    seed=seed, twins=TWINS["logistic_curvature_bound"])
    return f"logistic_curvature_bound: hidden tests pass ({n} instances, seed {seed})"
