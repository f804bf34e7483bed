"""Hidden grading of the Convergence part's code exercises."""
import numpy as np

from instructors.reference import theory as ref
from rlmlib.book.checkers import theory as selfcheck

from .common import draw_seed, grade_cases


def _lazy_cases(rng):
    cases = []
    for k in range(10):
        n = int(rng.integers(1, 40))
        idx = np.sort(rng.choice(n, size=int(rng.integers(0, n + 1)), replace=False))
        scale = float(10 ** rng.uniform(-3, 3))
        cases.append((f"random {k}", (rng.standard_normal(n) * scale,
                                      rng.standard_normal(n) * scale,
                                      float(10 ** rng.uniform(-9, 0)),
                                      float(rng.standard_normal() * 10 ** rng.uniform(-3, 3)),
                                      float(10 ** rng.uniform(-3, 0)), idx,
                                      rng.standard_normal(idx.size) * scale,
                                      float(rng.standard_normal()),
                                      float(rng.uniform(1e-6, 1 - 1e-6)))))
    return cases


def grade_lazy_average_step(lazy_average_step, seed=None):
    """Hidden test of ex-lazy-average (the self-check, then random steps)."""
    seed = draw_seed(seed)
    selfcheck.check_lazy_average_step(lazy_average_step)
    n = grade_cases("lazy_average_step", lazy_average_step, ref.lazy_average_step,
                    _lazy_cases(np.random.default_rng(seed)),
                    ("u", "v", "alpha", "beta", "s", "idx", "val", "c", "mu"),
                    selfcheck._lazy_compare, seed=seed, allowed=("u", "v"))
    return f"lazy_average_step: hidden tests pass ({n} instances, seed {seed})"


def grade_minibatch_variance(minibatch_variance, seed=None):
    """Hidden test of ex-mb-variance (the self-check, then random sizes and scales)."""
    seed = draw_seed(seed)
    selfcheck.check_minibatch_variance(minibatch_variance)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(10):
        m, n = int(rng.integers(1, 30)), int(rng.integers(1, 6))
        G = rng.standard_normal((m, n)) * 10 ** rng.uniform(-50, 50) + \
            rng.uniform(-1, 1) * 10 ** rng.uniform(0, 6)
        replace = bool(rng.integers(0, 2))
        kk = int(rng.integers(1, m + 1 if not replace else 2 * m + 1))
        cases.append((f"random {k}", (G, kk, replace)))
    n = grade_cases("minibatch_variance", minibatch_variance, ref.minibatch_variance,
                    cases, ("G", "k", "replace"), selfcheck._variance_compare, seed=seed)
    return f"minibatch_variance: hidden tests pass ({n} instances, seed {seed})"


def grade_two_point_kl(two_point_kl, seed=None):
    """Hidden test of ex-lb-kl (the self-check, then delta over (0, 1) on a log grid)."""
    seed = draw_seed(seed)
    selfcheck.check_two_point_kl(two_point_kl)
    rng = np.random.default_rng(seed)
    cases = [(f"random {k}", (float(d), int(T))) for k, (d, T) in enumerate(zip(
        1 - 10 ** -rng.uniform(0, 12, 5), rng.integers(1, 10 ** 9, 5)))]
    cases += [(f"small {k}", (float(d), int(T))) for k, (d, T) in enumerate(zip(
        10 ** -rng.uniform(1, 15, 5), rng.integers(1, 10 ** 9, 5)))]
    n = grade_cases("two_point_kl", two_point_kl, ref.two_point_kl, cases, ("delta", "T"),
                    selfcheck._kl_compare, seed=seed)
    return f"two_point_kl: hidden tests pass ({n} instances, seed {seed})"
