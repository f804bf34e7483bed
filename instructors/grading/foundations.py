"""Hidden grading of the Foundations part's code exercise."""
import math

import numpy as np

from instructors.reference import foundations as ref
from rlmlib.book.checkers import foundations as selfcheck
from rlmlib.book.checkers.base import _as_real, _compare_vectors, _pair

from .common import draw_seed, grade_cases


def _cases(rng):
    cases = []
    for k in range(12):
        n = int(rng.integers(1, 12))
        s = float(10 ** rng.uniform(-6, 3))
        x = rng.standard_normal(n) * (rng.random(n) < 0.6)
        cases.append((f"random {k}", (s, rng.standard_normal(n) / s, x,
                                      float(rng.choice([-1.0, 1.0])),
                                      int(rng.integers(0, 10 ** 5)),
                                      float(10 ** rng.uniform(-6, 0)),
                                      float(10 ** rng.uniform(0, 4)))))
    for k, margin in enumerate((1e3, -1e3, 3e2, -7e2)):   # margins far beyond exp's range
        x = np.zeros(6)
        x[[0, 3]] = 1.0
        v = np.full(6, margin / 2)
        cases.append((f"margin {margin:+g}", (1.0, v, x, 1.0, k + 3, 0.1, 10.0)))
    cases.append(("t + t0 = 1 with a sparse x", (2.0, rng.standard_normal(5),
                                                np.array([0.0, 1.0, 0.0, 0.0, 2.0]), -1.0,
                                                0, 0.3, 1.0)))
    cases.append(("mixed magnitudes: v holds 1e300 and 1e-300",
                  (1e-300, np.array([1e300, 1e-300, 2e299, 0.0]),
                   np.array([1e-3, 1.0, 0.0, 0.0]), 1.0, 50, 0.1, 10.0)))
    return cases


def grade_scaled_step(scaled_step, seed=None):
    """Hidden test of ex-scaled-step (the self-check, then random and extreme steps)."""
    seed = draw_seed(seed)
    selfcheck.check_scaled_step(scaled_step)

    def compare(out, expected, desc, args):
        s, v, x, _, t, sigma, t0 = args
        s_new, v_new = _pair("scaled_step", out, desc)
        s_new = float(_as_real("scaled_step: s", s_new, desc).reshape(-1)[0])
        if not math.isfinite(s_new) or s_new == 0.0:
            raise AssertionError(f"scaled_step on input {desc}: the new scale s is {s_new}")
        w_exp = expected[0] * expected[1]
        with np.errstate(all="ignore"):
            w_new = s_new * _as_real("scaled_step: v", v_new, desc)
        _compare_vectors("scaled_step: s*v", w_new, w_exp, 1e-10, desc,
                         atol=1e-13 * float(np.abs(w_exp).max(initial=0.0)))

    n = grade_cases("scaled_step", scaled_step, ref.scaled_step,
                    _cases(np.random.default_rng(seed)),
                    ("s", "v", "x", "y", "t", "sigma", "t0"), compare, seed=seed,
                    allowed=("v",))
    return f"scaled_step: hidden tests pass ({n} instances, seed {seed})"
