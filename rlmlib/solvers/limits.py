"""Step limits a solver can compute before it runs, and the warnings that name the argument
beyond them (issue "no silent wrong answer"; DESIGN.md, "Validated ranges").

One example's objective f_i(w) = loss(<w, x_i>, y_i) + (sigma/2)||w||^2 has a gradient that is
L_i-Lipschitz with L_i = beta ||x_i||^2 + sigma, beta the loss's smoothness (squared and
squared hinge 1, logistic 1/4). An explicit gradient step of length eta on f_i changes the
example's own margin residual by the factor 1 - eta beta ||x_i||^2: beyond eta = 2 / L with
L = beta max||x_i||^2 + sigma the residual of the longest row grows at every visit, and the
run moves away from the minimizer instead of towards it (the objective can grow by orders
of magnitude). A kinked loss (hinge, absolute) has no smoothness; its kink sits at margin
scale 1, so the same limit is used with beta = 1: a longer step jumps over the kink of the
example it is taken on. Implicit steps (fiol, isgd's loss step) are stable for every eta
and get no warning.
"""
import math
import warnings

from ..core.losses import LOSSES, NAMES


class StepLimitWarning(RuntimeWarning):
    """A legal setting beyond a limit the solver computes before it runs (a step beyond
    2/L, a t0 below the stability limit, a skip longer than the run, a damping that drowns
    the curvature): the run goes ahead, but its objective may end far above F(0).

    Pages that sweep such settings on purpose silence it by class:
    ``warnings.simplefilter("ignore", rlmlib.StepLimitWarning)``.

    Attributes
    ----------
    args : tuple
        ``(message,)``: the solver, the argument, its value, the limit and what to expect.

    Examples
    --------
    >>> import rlmlib
    >>> issubclass(rlmlib.StepLimitWarning, RuntimeWarning)
    True
    """


def smoothness(code, R, sigma=0.0, kink_scale=True):
    """L = beta R^2 + sigma for the loss ``code`` (beta = 1 for a kinked loss when
    ``kink_scale``, else inf)."""
    beta = LOSSES[NAMES[code]]["smoothness"]
    if not math.isfinite(beta):
        if not kink_scale:
            return math.inf
        beta = 1.0
    return beta * R * R + sigma


def warn_step(solver, name, step, R, code, sigma=0.0, stacklevel=3):
    """RuntimeWarning, before the run, when an explicit step ``step`` (argument ``name``)
    exceeds 2/L (module docstring). Returns the limit 2/L."""
    L = smoothness(code, R, sigma)
    limit = 2.0 / L if L > 0 else math.inf
    if step > limit:
        warnings.warn(
            f"{solver}: {name}={step:.6g} exceeds the stability limit 2/L = {limit:.3g} "
            f"(L = {'smoothness' if math.isfinite(LOSSES[NAMES[code]]['smoothness']) else '1'}"
            f" * max||x||^2 + sigma = {L:.3g} for the {NAMES[code]} loss): a step this long "
            f"overshoots on the longest rows and the objective may end far above F(0); "
            f"expected {name} <= {limit:.3g}", StepLimitWarning, stacklevel=stacklevel + 1)
    return limit


def warn_damping(damping, R, code, sigma, stacklevel=3):
    """RuntimeWarning, before the run, for an oLBFGS ``damping`` above 100 times the
    largest curvature L of one example's objective: every pair then measures mostly the
    damping (H ~ I / damping, steps shrunk by damping / L), and beyond about 1e150 the
    products y.y overflow, every pair is dropped and the run is plain SGD."""
    L = smoothness(code, R, sigma)
    if damping > 100.0 * L:
        warnings.warn(
            f"olbfgs: damping={damping:.6g} exceeds 100 times the largest curvature of one "
            f"example's objective, L = smoothness * max||x||^2 + sigma = {L:.3g}: the (s, y) "
            f"pairs then measure the damping, not the data (and beyond ~1e150 y.y overflows, "
            f"every pair is dropped and the run is plain SGD); expected damping <= "
            f"{100 * L:.3g} (0, the default, is well defined since y already holds sigma s)",
            StepLimitWarning, stacklevel=stacklevel + 1)


def warmup_1_over_sigma_t(R, sigma, scale=1.0):
    """The warm-up (steps) of a solver whose steps are 1/(sigma t) (Pegasos, PGS) for the
    growth check (``core.result.warn_growth``, a checkpoint above GROWTH_MAX F(0) warns).

    Its iterate after t steps is (1/(sigma t)) times a sum of t loss subgradients of norm
    <= R (times ``scale``, e.g. p - 1 for PGS): the regularizer alone can reach
    R^2 / (2 sigma t) at step t when the first subgradients agree, above GROWTH_MAX F(0) for
    t below about R^2 / (sigma GROWTH_MAX): those steps are the warm-up. Measured on the
    standardized breast cancer data (R = 20.5) at sigma = 1e-6: the last checkpoint above
    1e3 F(0) at t = 2,200, within the warm-up 4.2e5 (``tests/test_defaults.py``)."""
    from ..core.result import GROWTH_MAX
    return scale * R * R / (sigma * GROWTH_MAX) if sigma > 0 else math.inf
