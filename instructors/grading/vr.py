"""Hidden grading of the variance-reduction part's code exercises."""
import math

import numpy as np

from instructors.exercises import EXERCISES
from instructors.reference import vr as ref
from rlmlib.book.checkers import vr as selfcheck

from .common import draw_seed, grade_cases

TWINS = {f.name: f.twins for fs in EXERCISES.values() for f in fs}


def _close(name, rtol):
    def compare(got, expected, desc, args):
        got = float(got)
        scale = max(1.0, *(abs(float(a)) for a in np.ravel(args[:1])))
        if not math.isclose(got, float(expected), rel_tol=rtol, abs_tol=rtol * scale):
            raise AssertionError(f"{name}: {desc} returned {got!r}, expected "
                                 f"{float(expected)!r}")
    return compare


def grade_catch_up(catch_up, seed=None):
    """Hidden test of ex-vr-lazy: random coordinates, tables beyond and below σ, long gaps."""
    seed = draw_seed(seed)
    selfcheck.check_saga_catch_up(catch_up)
    rng = np.random.default_rng(seed)
    cases = [(f"random {k}", (float(rng.normal() * 10 ** rng.uniform(-3, 3)),
                              float(rng.normal() * 10 ** rng.uniform(-2, 1)),
                              float(10 ** rng.uniform(-3, 0)), float(10 ** rng.uniform(-3, 1)),
                              int(rng.integers(0, 500)))) for k in range(40)]
    n = grade_cases("catch_up", catch_up, ref.catch_up, cases,
                    ("u", "c", "eta", "sigma", "k"), _close("catch_up", 1e-10), seed=seed,
                    twins=TWINS["catch_up"])
    return f"catch_up: hidden tests pass ({n} instances, seed {seed})"


def grade_sqhinge_step(step, seed=None):
    """Hidden test of ex-vr-sqhinge: random dual variables, margins and curvatures."""
    seed = draw_seed(seed)
    selfcheck.check_sdca_squared_hinge(step)
    rng = np.random.default_rng(seed)
    cases = [(f"random {k}", (float(abs(rng.normal()) * 10 ** rng.uniform(-3, 2)),
                              float(rng.normal() * 10 ** rng.uniform(-2, 2)),
                              float(10 ** rng.uniform(-6, 6)))) for k in range(40)]
    n = grade_cases("sqhinge_step", step, ref.sqhinge_step, cases, ("beta", "yz", "q"),
                    _close("sqhinge_step", 1e-12), seed=seed, twins=TWINS["sqhinge_step"])
    return f"sqhinge_step: hidden tests pass ({n} instances, seed {seed})"


def grade_gap(gap, seed=None):
    """Hidden test of ex-vr-gap: random shapes, feasible duals, σ over nine orders."""
    seed = draw_seed(seed)
    selfcheck.check_duality_gap(gap)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(15):
        m, n = int(rng.integers(2, 50)), int(rng.integers(1, 8))
        X = rng.standard_normal((m, n)) * 10 ** rng.uniform(-1, 1)
        y = np.where(rng.random(m) < 0.5, -1.0, 1.0)
        cases.append((f"random {k}", (X, y, y * rng.random(m),
                                      float(10 ** rng.uniform(-6, 3)))))

    def compare(got, expected, desc, args):
        if not math.isclose(float(got), float(expected), rel_tol=1e-9, abs_tol=1e-12):
            raise AssertionError(f"gap: {desc} returned {got!r}, expected {expected!r}")

    n = grade_cases("gap", gap, ref.gap, cases, ("X", "y", "alpha", "sigma"), compare,
                    seed=seed, twins=TWINS["gap"])
    return f"gap: hidden tests pass ({n} instances, seed {seed})"
