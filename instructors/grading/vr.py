"""Hidden grading of the variance-reduction part's code exercises."""
import numpy as np

from instructors.exercises import EXERCISES
from instructors.reference import vr as ref
from rlmlib.book.checkers import vr as selfcheck

from .common import draw_seed, grade_cases

TWINS = {f.name: f.twins for fs in EXERCISES.values() for f in fs}


def _loose(compare, rtol):
    """The self-check's comparison at the grader's tolerance (random instances: longer
    walks, wider magnitudes)."""
    def judge(got, expected, desc, args):
        compare(got, expected, desc, args, rtol=rtol)
    return judge


def grade_catch_up(catch_up, seed=None):
    """Hidden test of ex-vr-lazy (the self-check, then random coordinates, tables beyond
    and below sigma, long gaps)."""
    seed = draw_seed(seed)
    selfcheck.check_saga_catch_up(catch_up)
    rng = np.random.default_rng(seed)
    cases = [(f"random {k}", (float(rng.normal() * 10 ** rng.uniform(-3, 3)),
                              float(rng.normal() * 10 ** rng.uniform(-2, 1)),
                              float(10 ** rng.uniform(-3, 0)), float(10 ** rng.uniform(-3, 1)),
                              int(rng.integers(0, 500)))) for k in range(40)]
    n = grade_cases("catch_up", catch_up, ref.catch_up, cases,
                    ("u", "c", "eta", "sigma", "k"),
                    _loose(selfcheck._catch_up_compare, 1e-10), seed=seed,
                    twins=TWINS["catch_up"])
    return f"catch_up: hidden tests pass ({n} instances, seed {seed})"


def grade_sqhinge_step(sqhinge_step, seed=None):
    """Hidden test of ex-vr-sqhinge (the self-check, then random dual variables, margins
    and curvatures)."""
    seed = draw_seed(seed)
    selfcheck.check_sdca_squared_hinge(sqhinge_step)
    rng = np.random.default_rng(seed)
    cases = [(f"random {k}", (float(abs(rng.normal()) * 10 ** rng.uniform(-3, 2)),
                              float(rng.normal() * 10 ** rng.uniform(-2, 2)),
                              float(10 ** rng.uniform(-6, 6)))) for k in range(40)]
    n = grade_cases("sqhinge_step", sqhinge_step, ref.sqhinge_step, cases,
                    ("beta", "yz", "q"), selfcheck._sqhinge_compare, seed=seed,
                    twins=TWINS["sqhinge_step"])
    return f"sqhinge_step: hidden tests pass ({n} instances, seed {seed})"


def grade_gap(gap, seed=None):
    """Hidden test of ex-vr-gap (the self-check, then random shapes, feasible duals,
    sigma over nine orders)."""
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
    n = grade_cases("gap", gap, ref.gap, cases, ("X", "y", "alpha", "sigma"),
                    _loose(selfcheck._gap_compare, 1e-9), seed=seed, twins=TWINS["gap"])
    return f"gap: hidden tests pass ({n} instances, seed {seed})"
