"""Self-check of the Foundations part's code exercise (DESIGN.md, "Exercise checkers")."""
import math

import numpy as np

from .base import (_as_real, _checker_doc, _compare_vectors, _pair, _run_cases, _student)

PART = "foundations"


def _scaled_step_cases():
    rng = np.random.default_rng(2010)
    x_sparse = np.zeros(8)
    x_sparse[[1, 4, 6]] = rng.standard_normal(3)
    return [
        # (label, (s, v, x, y, t, sigma, t0))
        ("a first step from w = 0", (1.0, np.zeros(5), rng.standard_normal(5), 1.0, 0, 0.1,
                                     10.0)),
        ("a generic step", (0.37, rng.standard_normal(6), rng.standard_normal(6), -1.0, 41,
                            0.01, 100.0)),
        ("a sparse x (only 3 non-zeros)", (0.8, rng.standard_normal(8), x_sparse, 1.0, 7,
                                           0.05, 20.0)),
        ("a large margin (loss' about 1e-9)", (2.0, np.ones(4), np.full(4, 2.6), 1.0, 3,
                                               0.1, 50.0)),
        ("a tiny scale s = 1e-7 (w = s v is moderate)",
         (1e-7, rng.standard_normal(5) * 1e7, rng.standard_normal(5), -1.0, 1000, 1e-3,
          10.0)),
        ("1 - eta*sigma = 0 (t + t0 = 1)", (0.5, rng.standard_normal(5),
                                            rng.standard_normal(5), 1.0, 0, 0.2, 1.0)),
        ("margin y<w,x> = -1400", (1.0, np.full(4, 350.0), np.ones(4), -1.0, 5, 0.1, 10.0)),
        ("margin y<w,x> = +1400", (1.0, np.full(4, 350.0), np.ones(4), 1.0, 5, 0.1, 10.0)),
        ("margin -1e3 on a sparse x with s = 1e-3",
         (1e-3, np.full(6, 5e5), np.array([0.0, 1.0, 0.0, 0.0, 1.0, 0.0]), -1.0, 2, 0.5,
          3.0)),
        ("mixed magnitudes in v (1e300 and 1e-300) off the support of x",
         (1e-300, np.array([1e300, 1e-300, 0.0, 2e299]), np.array([0.0, 1.0, 0.0, 1e-3]),
          1.0, 9, 0.1, 10.0)),
    ]


@_checker_doc("scaled_step", "(s, v, x, y, t, sigma, t0) -> (float, ndarray)")
def check_scaled_step(scaled_step):
    """Exercise "one SGD step in scaled form" (Foundations): ``scaled_step(s, v, x, y, t,
    sigma, t0)`` performs one step of plain SGD on the logistic loss on w = s v and returns
    (s+, v+); s+ v+ must equal the step of the algorithm box to 1e-10, the shrink must go
    into s alone (v unchanged where x is 0) unless the new scale is tiny and folded into v,
    and the result must stay finite when 1 - eta sigma = 0 and at margins of +-1400.
    Changing v in place is allowed (that is the O(nnz) update).

    Examples
    --------
    >>> from rlmlib.book.checkers.foundations import check_scaled_step
    >>> try:
    ...     check_scaled_step(lambda s, v, x, y, t, sigma, t0: (s, v))   # no step at all
    ... except AssertionError as e:
    ...     print(str(e).split(" (s=")[0])
    scaled_step: s*v on input 'a first step from w = 0'
    """
    _student("scaled_step", scaled_step)

    def compare(out, expected, desc, args):
        s, v, x, _, t, sigma, t0 = args
        s_new, v_new = _pair("scaled_step", out, desc)
        s_new = float(_as_real("scaled_step: s", s_new, desc).reshape(-1)[0])
        if not math.isfinite(s_new) or s_new == 0.0:
            raise AssertionError(f"scaled_step on input {desc}: the new scale s is {s_new}; "
                                 "it must be finite and non-zero")
        v_new = _as_real("scaled_step: v", v_new, desc)
        with np.errstate(all="ignore"):
            w_new = s_new * v_new
        _compare_vectors("scaled_step: s*v", w_new, expected, 1e-10, desc)
        eta = 1.0 / (sigma * (t + t0))
        s_shrunk = (1.0 - eta * sigma) * s
        if abs(s_shrunk) < 1e-9:          # the scale may be folded into v
            return
        if not math.isclose(s_new, s_shrunk, rel_tol=1e-12):
            raise AssertionError(
                f"scaled_step on input {desc}: the new scale is {s_new:.17g}, expected "
                f"(1 - eta*sigma)*s = {s_shrunk:.17g} (relative error "
                f"{abs(s_new / s_shrunk - 1):.3g}): the shrink of w must go into s (O(1))")
        zero = x == 0
        if np.any(v_new[zero] != v_orig[id(args)][zero]):
            i = int(np.flatnonzero(zero & (v_new != v_orig[id(args)]))[0])
            raise AssertionError(
                f"scaled_step on input {desc}: coordinate {i} of v changed from "
                f"{v_orig[id(args)][i]:.17g} to {v_new[i]:.17g} although x[{i}] = 0: the "
                "shrink must go into s alone (O(1)), not into v")

    cases = _scaled_step_cases()
    v_orig = {id(args): args[1].copy() for _, args in cases}
    n = _run_cases("scaled_step", PART, scaled_step, cases,
                   ("s", "v", "x", "y", "t", "sigma", "t0"), compare, allowed=("v",))
    return (f"scaled_step passed all {n} inputs (s*v is the SGD step to 1e-10, "
            "v kept off x's support).")


CASES = {"scaled_step": _scaled_step_cases}
