"""Self-check of the adaptive part's code exercise (DESIGN.md, "Exercise checkers")."""
import numpy as np

from .base import _checker_doc, _compare_vectors, _run_cases, _student

PART = "adaptive"


def _catch_up_cases():
    rng = np.random.default_rng(2011)
    return [
        # (label, (w, gamma, c, eta, sigma, delta))
        ("no missed step (c = 0)", (rng.standard_normal(4), rng.random(4), np.zeros(4, int),
                                    0.1, 0.01, 1e-8)),
        ("a few missed steps", (rng.standard_normal(5), rng.random(5) * 3,
                                np.array([1, 2, 3, 10, 0]), 0.1, 0.01, 1e-8)),
        ("a coordinate never touched (Gamma = 0: H = delta)",
         (np.array([0.5, -2.0]), np.array([0.0, 4.0]), np.array([3, 3]), 0.5, 0.1, 1.0)),
        ("10**12 missed steps with eta sigma / H = 1e-13",
         (np.array([1.0, -3.0, 2.5]), np.array([1.0, 4.0, 100.0]),
          np.array([10 ** 12, 10 ** 12, 3 * 10 ** 12]), 1e-6, 1e-7, 0.0)),
        ("10**15 missed steps with eta sigma / H = 1e-16",
         (np.array([2.0]), np.array([1e6]), np.array([10 ** 15]), 1e-9, 1e-4, 1e-8)),
        ("a factor that underflows to 0", (np.array([1.0, 1e300]), np.array([1e-4, 1e-4]),
                                           np.array([10 ** 6, 10 ** 6]), 1.0, 1.0, 1e-8)),
        ("mixed magnitudes in w (1e300 and 1e-300)",
         (np.array([1e300, -1e-300, 0.0, 3.0]), np.array([2.0, 2.0, 5.0, 1e-300]),
          np.array([7, 7, 100, 2]), 0.2, 0.05, 1e-10)),
        ("sigma = 0: nothing shrinks", (rng.standard_normal(3), rng.random(3),
                                        np.array([5, 50, 500]), 0.3, 0.0, 1e-8)),
    ]


def _catch_up_compare(got, expected, desc, args):
    _compare_vectors("adagrad_catch_up", got, np.asarray(expected, float), 1e-10, desc,
                     atol=1e-300)


@_checker_doc("adagrad_catch_up", "(w, gamma, c, eta, sigma, delta) -> ndarray")
def check_adagrad_catch_up(adagrad_catch_up):
    """Exercise "AdaGrad's missed steps" (adaptive part): ``adagrad_catch_up(w, gamma, c,
    eta, sigma, delta)`` returns the coordinates w after c[j] steps that did not touch them
    (AdaGrad with the composite l2 step; gamma the accumulated squared gradients), as a new
    array; the inputs stay unchanged. Checked to 1e-10 relative, including 10^15 missed
    steps whose factor per step differs from 1 by 1e-16.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.checkers.adaptive import check_adagrad_catch_up
    >>> try:
    ...     check_adagrad_catch_up(lambda w, gamma, c, eta, sigma, delta: w.copy())
    ... except AssertionError as e:
    ...     print(str(e).split(" (")[0].split(":")[0])
    adagrad_catch_up on input 'a few missed steps'
    """
    _student("adagrad_catch_up", adagrad_catch_up)
    n = _run_cases("adagrad_catch_up", PART, adagrad_catch_up, _catch_up_cases(),
                   ("w", "gamma", "c", "eta", "sigma", "delta"), _catch_up_compare)
    return f"adagrad_catch_up passed all {n} inputs (relative error 1e-10)."


CASES = {"adagrad_catch_up": _catch_up_cases}
