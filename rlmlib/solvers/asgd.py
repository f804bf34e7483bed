"""Averaged SGD (Polyak and Juditsky 1992; Xu 2011; Bottou's svmasgd).

Minimizes F(w) = (sigma/2)||w||^2 + (1/m) sum_i loss(<w, x_i>, y_i). At global step
t = 0, 1, 2, ... with example (x, y) (the algorithm box "Averaged SGD" of the book's
Convergence part, chapters/theory/averaging.md):

    z      = <w_t, x>
    w_t+1  = (1 - eta_t sigma) w_t - eta_t loss'(z; y) x
    j      = t + 1 - a                       (a = average_start; averaging from step a on)
    if j >= 1:  abar <- (1 - mu_j) abar + mu_j w_t+1,   mu_j = 1/j ('uniform')
                                                       or 2/(j+1) ('weighted')

so that abar = (1/(T-a)) sum_{t=a+1}^{T} w_t (uniform; a = T/2 is the suffix average) or
the average with weights proportional to j (Lacoste-Julien, Schmidt and Bach 2012).

Sparse rows (the lazy-averaging trick of Xu 2011, Bottou's svmasgd and scikit-learn's
``average=True``): w = s v as in ``sgd`` and abar = alpha u + beta v. A step changes v by
c x (c = -eta loss'/s, the non-zeros of x only) and then

    alpha' = (1 - mu) alpha,   beta' = (1 - mu) beta + mu s',   u <- u - (beta c / alpha) x,

which keeps abar' = (1 - mu) abar + mu w' exactly, at the cost of one more sparse update.
When s falls below 1e-3 (or alpha below 1e-9) both are folded (u <- alpha u + beta v,
v <- s v; O(n), rare), which bounds the cancellation in alpha u + beta v.
"""
import math

import numpy as np
from numba import njit

from ..core.checks import (check_choice, check_first_step, check_int, check_positive,
                           sigma_keyword)
from ..core.losses import LOSSES, NAMES, loss_deriv
from ..core.order import ORDERS
from ..core.prefetch import prefetch_ahead
from ..core.problem import Problem
from ..core.rowops import axpy, dot
from .sgd import t0_heuristic

#: step schedules: name -> code used by the kernel
SCHEDULES = {"sigma_t": 0, "xu": 1, "constant": 2, "sqrt": 3, "lacoste": 4}
#: averaging weights: name -> code
AVERAGINGS = {"uniform": 0, "weighted": 1}
#: fold w = s v and abar = alpha u + beta v when s falls below this: alpha u and beta v
#: cancel to abar with |beta| / s ~ (largest s since the last fold) / s, which multiplies
#: the rounding of abar (Bottou's svmasgd renormalizes at 1e5 for the same reason)
FOLD = 1e-3
RENORM = 1e-9  # ... and when alpha (~ 1/j, or 2/j^2 weighted) falls below this


def step_size(schedule, t, *, sigma, eta0):
    """The step length η_t of ``asgd``'s schedules at global step t (counted from 0).

    Parameters
    ----------
    schedule : {'sigma_t', 'xu', 'constant', 'sqrt', 'lacoste'}
        ``'sigma_t'``: 1/(σ(t + t0)) with t0 = 1/(σ η0); ``'xu'``: η0 (1 + σ η0 t)^(-3/4)
        (Xu 2011, Bottou's svmasgd); ``'constant'``: η0; ``'sqrt'``: η0/√(1 + t);
        ``'lacoste'``: 1/σ at t = 0, then 2/(σ(t + 1)) (Lacoste-Julien, Schmidt and Bach
        2012; η0 is not used).
    t : int or array of int >= 0
        Step index.
    sigma : float > 0
        Regularization weight σ.
    eta0 : float > 0
        The first step η_0.

    Returns
    -------
    float or numpy.ndarray
        η_t.

    Raises
    ------
    ValueError
        For an unknown schedule, a negative or non-finite t, sigma or eta0 not a finite
        number > 0.

    Examples
    --------
    >>> from rlmlib.solvers.asgd import step_size
    >>> (step_size("sigma_t", 0, sigma=0.1, eta0=2.0),
    ...  step_size("sqrt", 3, sigma=0.1, eta0=2.0))
    (2.0, 1.0)
    """
    check_choice("schedule", schedule, tuple(SCHEDULES))
    sigma = check_positive("sigma", sigma)
    if not (schedule == "lacoste" and eta0 is None):  # lacoste does not use eta0
        eta0 = check_positive("eta0", eta0)
    t = np.asarray(t)
    if t.dtype.kind not in "biuf" or not np.all(np.isfinite(t)) or np.any(t < 0):
        raise ValueError(f"t must hold finite step indices >= 0, got {t!r}")
    t = t.astype(float)
    if schedule == "sigma_t":
        out = 1.0 / (sigma * (t + 1.0 / (sigma * eta0)))
    elif schedule == "xu":
        out = eta0 * (1.0 + sigma * eta0 * t) ** -0.75
    elif schedule == "constant":
        out = eta0 + 0.0 * t
    elif schedule == "lacoste":
        out = np.where(t == 0, 1.0 / sigma, 2.0 / (sigma * (t + 1.0)))
    else:
        out = eta0 / np.sqrt(1.0 + t)
    return float(out) if out.ndim == 0 else out


def _check_scale(p):
    """Every iterate (so every average) has ||w|| <= R/sigma for |loss'| <= 1 when
    eta sigma <= 1: (1 - eta sigma)||w|| + eta R stays below R/sigma by induction. Other
    losses: the minimizer's bound, overflow along the run is the divergence check's."""
    if LOSSES[NAMES[p.code]]["lipschitz"] <= 1.0:
        p.check_scale(p.R / p.sigma, "max||x|| / sigma")
    else:
        p.check_scale(*p.minimizer_bound())


@sigma_keyword
def asgd(X, y, *, sigma, epochs, loss="hinge", eta0=None, schedule="sigma_t",
         average_start=0, averaging="uniform", seed=0, order="reshuffle", n_checkpoints=None,
         X_test=None, y_test=None, progress=False):
    """Averaged SGD: SGD steps, and the average of the iterates from ``average_start`` on.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
        Training rows (dense or any scipy.sparse format).
    y : array-like, shape (m,)
        Two distinct labels (mapped to -1/+1 in sorted order).
    sigma : float > 0
        Regularization weight σ of (σ/2)‖w‖².
    epochs : int >= 1
        Passes over the data (T = epochs · m steps). The defaults reach a relative gap of
        1e-2 in 200 epochs on the small problems of ``tests/test_defaults.py`` (hinge,
        squared hinge, logistic; 100 epochs leave 0.016 on the squared hinge).
    loss : str, default 'hinge'
        A classification loss of ``rlmlib.LOSSES``.
    eta0 : float > 0 or None
        The first step η_0, with σ η_0 <= 1. None: Bottou's heuristic, the first step of
        ``rlmlib.sgd`` (η_0 = 1/(σ t0), t0 from ``rlmlib.solvers.sgd.t0_heuristic``).
    schedule : {'sigma_t', 'xu', 'constant', 'sqrt', 'lacoste'}
        Step lengths (``step_size``): 1/(σ(t + t0)) with t0 = 1/(σ η0) (default; the steps of
        ``rlmlib.sgd`` and of scikit-learn's ``learning_rate='optimal'``), Xu's
        η0 (1 + σ η0 t)^(-3/4), the constant η0, η0/√(1 + t), or Lacoste-Julien et al.'s
        2/(σ(t + 1)) after a first step 1/σ (for ``averaging='weighted'``).
    average_start : int >= 0
        Averaging covers the iterates w_{a+1}, ..., w_T after step a = ``average_start``
        (0: all of them, like scikit-learn's ``average=True``; T/2: the suffix average).
        Must be below T.
    averaging : {'uniform', 'weighted'}
        Equal weights, or weights proportional to j for the j-th averaged iterate.
    seed : int >= 0
        Seed of the example order.
    order : {'reshuffle', 'shuffle_once', 'cyclic', 'replacement'}
        Example order (see ``rlmlib.core.order``); ``'replacement'`` draws each example
        uniformly and independently, as the convergence theorems assume.
    n_checkpoints : int or None
        None: no intermediate evaluation. N: an exact trace of the average at N checkpoints;
        ``res.info['last_objective']`` then holds F of the last iterate at the same points.
    X_test, y_test : optional
        A held-out set; the trace then records the average's accuracy.
    progress : bool
        Show a progress bar (tqdm).

    Returns
    -------
    Result
        ``res.w`` is the average; ``res.info['w_last']`` the last iterate w_T;
        ``res.params`` holds eta0, t0 (schedule 'sigma_t') and the rest.

    Raises
    ------
    ValueError
        For a bad argument (named in the message), before any step.
    TypeError
        For arguments of the wrong type or ``lam=``.
    FloatingPointError
        When the weights overflow.

    Warns
    -----
    rlmlib.ConvergenceWarning
        When the average ends above F(0) (the driver's end check).

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.array([[1.0, 0.2], [0.1, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    >>> res = rlmlib.asgd(X, [1, 1, -1, -1], sigma=0.1, epochs=50)
    >>> last = rlmlib.sgd(X, [1, 1, -1, -1], sigma=0.1, epochs=50).w
    >>> bool(np.array_equal(res.info["w_last"], last))   # the same SGD steps
    True
    >>> bool(res.objective < 1.0)         # F(0) = 1 for the hinge loss
    True
    """
    p = Problem("asgd", X, y, sigma=sigma, loss=loss, epochs=epochs, seed=seed,
                order=order, orders=ORDERS, n_checkpoints=n_checkpoints, X_test=X_test,
                y_test=y_test, progress=progress, losses="binary")
    check_choice("schedule", schedule, tuple(SCHEDULES))
    check_choice("averaging", averaging, tuple(AVERAGINGS))
    a = check_int("average_start", average_start, lo=0)
    if a >= p.total:
        raise ValueError(f"average_start must be below the number of steps epochs * m = "
                         f"{p.total}, got {a}")
    if schedule == "lacoste":
        eta0 = 1.0 / p.sigma
        t0 = 1.0
    elif eta0 is None:
        t0 = t0_heuristic(p.sigma, loss, p.R if p.R < 2.0 ** 500 else 1.0)  # as rlmlib.sgd
        # at a large sigma the heuristic's t0 falls below 1: keep the documented rule
        # sigma eta0 = 1/t0 <= 1 (a step may not reverse the shrink (1 - eta sigma) w)
        t0 = max(t0, 1.0)
        eta0 = 1.0 / (p.sigma * t0)
    else:
        eta0 = check_first_step("asgd", "eta0", check_positive("eta0", eta0), p.sigma)
        if p.sigma * eta0 > 1.0:
            raise ValueError(f"eta0 must satisfy sigma * eta0 <= 1 (a step may not reverse "
                             f"the shrink (1 - eta sigma) w), got eta0={eta0!r} with "
                             f"sigma={p.sigma!r}")
        t0 = 1.0 / (p.sigma * eta0)
    _check_scale(p)
    v, u = np.zeros(p.n), np.zeros(p.n)
    state = np.array([1.0, 1.0, 0.0])  # s, alpha, beta: w = s v, abar = alpha u + beta v
    sched, avg = SCHEDULES[schedule], AVERAGINGS[averaging]

    def steps(rows, yy, indices, indptr, idx, start, stop, t, look_ahead):
        asgd_steps(rows.data, indices, indptr, yy, v, u, state, idx, start, stop, t,
                   p.sigma, t0, eta0, sched, a, avg, p.code, p.dense, look_ahead)

    def get_w():
        return state[1] * u + state[2] * v

    def get_last():
        return state[0] * v

    info = {}
    on_checkpoint = None
    if p.n_checkpoints is not None:
        info["last_objective"] = []

        def on_checkpoint():
            info["last_objective"].append(p.objective(get_last()))

    params = {"sigma": p.sigma, "epochs": p.epochs, "loss": loss, "eta0": eta0,
              "t0": t0 if schedule == "sigma_t" else None, "schedule": schedule,
              "average_start": a, "averaging": averaging, "seed": p.seed, "order": p.order}
    res = p.run(steps, get_w, params, info=info, on_checkpoint=on_checkpoint,
                hint=f"eta0={eta0:.6g} ({schedule!r}): the first steps are too long for "
                     f"these rows; pass a smaller eta0", state=lambda: (v, u))
    res.info["w_last"] = get_last()
    if "last_objective" in info:
        res.info["last_objective"] = np.array(info["last_objective"])
    return res


@njit(cache=True, inline="always")
def _eta(sched, t, sigma, t0, eta0):
    """η_t of the schedule code (see ``step_size``)."""
    if sched == 0:
        return 1.0 / (sigma * (t + t0))        # 1/(σ(t + t0)), as rlmlib.sgd
    if sched == 1:
        return eta0 * (1.0 + sigma * eta0 * t) ** -0.75
    if sched == 2:
        return eta0
    if sched == 3:
        return eta0 / math.sqrt(1.0 + t)
    if t == 0:                                 # 'lacoste': 1/σ, then 2/(σ(t + 1))
        return 1.0 / sigma
    return 2.0 / (sigma * (t + 1.0))


@njit(cache=True)
def asgd_steps(data, indices, indptr, y, v, u, state, order, start, stop, t_first,
               sigma, t0, eta0, sched, a, avg, code, dense, look_ahead=True):
    """Averaged SGD steps on examples order[start:stop], global step counter from t_first.

    w = s v and abar = alpha u + beta v, (s, alpha, beta) = state, updated in place."""
    s, alpha, beta = state[0], state[1], state[2]
    t = t_first
    n = v.shape[0]
    for k in range(start, stop):
        i = order[k]
        if look_ahead:
            prefetch_ahead(data, indices, indptr, order, k, stop, not dense)
        lo = indptr[i]
        hi = indptr[i + 1]
        z = s * dot(data, indices, lo, hi, v, dense)  # z = <w_t, x>
        eta = _eta(sched, t, sigma, t0, eta0)
        d = loss_deriv(code, z, y[i])                 # loss'(z; y)
        s *= 1.0 - eta * sigma                        # w <- (1 - eta sigma) w, O(1)
        if abs(s) < FOLD or alpha < RENORM:           # fold (O(n), rare)
            for q in range(n):
                u[q] = alpha * u[q] + beta * v[q]     # abar = u
                v[q] *= s                             # w = v
            s, alpha, beta = 1.0, 1.0, 0.0
        c = 0.0
        if d != 0.0:                                  # w <- w - eta loss' x
            c = -eta * d / s                          # i.e. v <- v + c x
            axpy(data, indices, lo, hi, v, c, dense)
        j = t + 1 - a                                 # w_{t+1}: j-th averaged
        if j == 1:                                    # abar = w_{a+1}
            for q in range(n):
                u[q] = 0.0
            alpha, beta = 1.0, s
        elif j > 1:
            mu = 1.0 / j if avg == 0 else 2.0 / (j + 1)
            if c != 0.0:                              # u <- u - (beta c / alpha) x
                axpy(data, indices, lo, hi, u, -beta * c / alpha, dense)
            alpha *= 1.0 - mu                         # abar <- (1-mu) abar + mu w
            beta = (1.0 - mu) * beta + mu * s
        t += 1
    state[0], state[1], state[2] = s, alpha, beta
