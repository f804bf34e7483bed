"""Hidden grading of the momentum part's code exercises."""
import numpy as np

from instructors.exercises import EXERCISES
from instructors.reference import momentum as ref
from rlmlib.book.checkers import momentum as selfcheck

from .common import draw_seed, grade_cases

TWINS = {f.name: f.twins for fs in EXERCISES.values() for f in fs}


def grade_momentum_catch_up(momentum_catch_up, seed=None):
    """Hidden test of ex-mom-catch-up (the self-check, then random states, steps, momenta,
    both variants, real and complex roots, gaps up to 10^5)."""
    seed = draw_seed(seed)
    selfcheck.check_momentum_catch_up(momentum_catch_up)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(40):
        scale = 10 ** rng.uniform(-100, 100)
        cases.append((f"random {k}", (float(rng.normal() * scale),
                                      float(rng.normal() * scale),
                                      float(10 ** rng.uniform(-4, -0.3)),
                                      float(rng.uniform(0.0, 0.995)),
                                      float(10 ** rng.uniform(-5, 0)), bool(k % 2),
                                      int(10 ** rng.uniform(0, 5)))))
    n = grade_cases("momentum_catch_up", momentum_catch_up, ref.momentum_catch_up, cases,
                    ("w", "v", "step", "beta", "sigma", "nesterov", "d"),
                    selfcheck._catch_up_compare, seed=seed,
                    twins=TWINS["momentum_catch_up"])
    return f"momentum_catch_up: hidden tests pass ({n} instances, seed {seed})"


def grade_polyak_parameters(polyak_parameters, seed=None):
    """Hidden test of ex-mom-polyak (the self-check, then random (L, mu) over 600 orders
    of magnitude, Q from 1 to beyond the largest double)."""
    seed = draw_seed(seed)
    selfcheck.check_polyak_parameters(polyak_parameters)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(40):
        lmu = rng.uniform(-300, 300)
        lL = min(lmu + rng.uniform(0, 600 if k % 4 == 0 else 12), 307.0)
        cases.append((f"random {k}", (float(10 ** lL), float(10 ** lmu))))
    n = grade_cases("polyak_parameters", polyak_parameters, ref.polyak_parameters, cases,
                    ("L", "mu"), selfcheck._polyak_compare, seed=seed,
                    twins=TWINS["polyak_parameters"])
    return f"polyak_parameters: hidden tests pass ({n} instances, seed {seed})"
