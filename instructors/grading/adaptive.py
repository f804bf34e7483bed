"""Hidden grading of the adaptive part's code exercise."""
import numpy as np

from instructors.reference import adaptive as ref
from rlmlib.book.checkers import adaptive as selfcheck

from .common import draw_seed, grade_cases


def _cases(rng):
    cases = []
    for k in range(12):
        n = int(rng.integers(1, 20))
        cases.append((f"random {k}", (rng.standard_normal(n) * 10 ** rng.uniform(-5, 5, n),
                                      rng.random(n) * 10 ** rng.uniform(-3, 6, n),
                                      rng.integers(0, 10 ** int(rng.integers(1, 16)), n),
                                      float(10 ** rng.uniform(-8, 0)),
                                      float(10 ** rng.uniform(-9, 0)),
                                      float(10 ** rng.uniform(-10, 0)))))
    cases.append(("c = 10**14, eta sigma / H = 1e-15",
                  (np.array([1.0, -1.0]), np.array([1.0, 1.0]),
                   np.array([10 ** 14, 2 * 10 ** 14]), 1e-8, 1e-7, 0.0)))
    return cases


def grade_adagrad_catch_up(adagrad_catch_up, seed=None):
    """Hidden test of ex-ada-catch-up (the self-check, then random and extreme steps)."""
    seed = draw_seed(seed)
    selfcheck.check_adagrad_catch_up(adagrad_catch_up)
    n = grade_cases("adagrad_catch_up", adagrad_catch_up, ref.adagrad_catch_up,
                    _cases(np.random.default_rng(seed)),
                    ("w", "gamma", "c", "eta", "sigma", "delta"),
                    selfcheck._catch_up_compare, seed=seed)
    return f"adagrad_catch_up: hidden tests pass ({n} instances, seed {seed})"
