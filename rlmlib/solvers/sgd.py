"""Plain stochastic gradient descent (Bottou 2010; Bordes, Bottou and Gallinari 2009).

Minimizes  F(w) = (sigma/2) ||w||^2 + (1/m) sum_i loss(<w, x_i>, y_i)  by visiting the
examples in the order ``order`` (rlmlib/_order.py; a fresh permutation each epoch by default)
and taking, at global step t = 0, 1, 2, ...,

    eta_t = 1 / (sigma (t + t0)),
    w    <- w - eta_t (sigma w + loss'(<w, x_i>, y_i) x_i)
          = (1 - eta_t sigma) w - eta_t loss'(z_i, y_i) x_i     (z_i computed before the step).

Scaled-vector trick (Bottou's ``wDivisor``, scikit-learn's ``WeightVector``): store w = s v.
The shrink w <- (1 - eta sigma) w becomes s <- (1 - eta sigma) s, O(1), and the loss step
touches only the non-zeros of x_i: v <- v - (eta loss' / s) x_i. When |s| < 1e-9, fold s into v
(O(n), rare) so that v does not grow without bound.

t0 heuristic (Bottou's svmsgd, also scikit-learn's learning_rate='optimal'): a typical weight
norm is typw = sigma^(-1/4) (||w*|| <= 1/sqrt(sigma) for losses with l(0) <= 1); the
initial rate is eta0 = typw / max(1, |loss'(-typw; y=1)|) and t0 = 1 / (eta0 sigma), so the
first step is eta0.
"""
import math

import numpy as np
from numba import njit

from ..core.checks import check_first_step, check_positive, sigma_keyword
from ..core.order import ORDERS
from ..core.prefetch import prefetch_ahead
from ..core.problem import Problem
from ..core.losses import loss_code, loss_deriv
from ..core.objective import row_dot

RENORM = 1e-9  # fold s into v when |s| falls below this (scikit-learn uses the same value)


@njit(cache=True)
def sgd_steps(data, indices, indptr, y, v, state, order, start, stop, t_first, sigma, t0, code,
              dense, look_ahead=True):
    """SGD steps on examples order[start:stop]; global step counter starts at t_first.

    w = state[0] * v is updated in place (state[0] is the scale s). With dense=True the rows
    are dense and compact (row i is data[indptr[i]:indptr[i+1]], feature j at offset j), so
    ``indices`` is not read; otherwise they are CSR rows.
    """
    s = state[0]
    t = t_first
    n = v.shape[0]
    for k in range(start, stop):
        i = order[k]
        if look_ahead:
            prefetch_ahead(data, indices, indptr, order, k, stop, not dense)  # rows to come
        a = indptr[i]
        b = indptr[i + 1]
        if dense:
            z = 0.0
            for j in range(n):
                z += data[a + j] * v[j]
            z *= s  # z = <w, x_i> with w = s v
        else:
            z = s * row_dot(data, indices, a, b, v)
        eta = 1.0 / (sigma * (t + t0))  # eta_t = 1 / (sigma (t + t0))
        d = loss_deriv(code, z, y[i])  # loss'(z; y_i), derivative w.r.t. z
        s *= 1.0 - eta * sigma  # w <- (1 - eta sigma) w, in O(1)
        if abs(s) < RENORM:  # fold the scale into v (also handles s = 0 exactly)
            for j in range(n):
                v[j] *= s
            s = 1.0
        if d != 0.0:  # w <- w - eta loss' x_i, i.e. v <- v - (eta loss' / s) x_i
            c = -eta * d / s
            if dense:
                for j in range(n):
                    v[j] += c * data[a + j]
            else:
                for j in range(a, b):
                    v[indices[j]] += c * data[j]
        t += 1
    state[0] = s


def t0_heuristic(sigma, loss, row_norm=1.0):
    """Bottou's offset t0 of the step schedule η_t = 1/(σ (t + t0)), for rows of any scale.

    Bottou's heuristic assumes ‖x‖ <= 1: t0 = 1/(η0 σ) with η0 = typw / max(1, |ℓ'(−typw; 1)|)
    and typw = σ^(−1/4), a typical weight norm (‖w*‖ <= 1/√σ when ℓ(0) <= 1), so that the
    first step has length η0. For rows of norm up to R = ``row_norm`` > 1 it is applied to the
    rescaled problem: with x = R x' and w' = R w, F(w) = (σ/R²)/2 ‖w'‖² + mean ℓ(⟨w', x'⟩), and
    SGD on w with step 1/(σ (t + t0)) is SGD on w' with step 1/((σ/R²)(t + t0)): the same t0.
    So t0 is Bottou's t0 at σ' = σ/R² (the first step on w is η0'/R²). For a loss that is not
    Lipschitz but β-smooth (squared hinge, squared: β = 1) the first step is moreover capped
    at 1/L, L = β R² + σ, the example objective's smoothness, so every step is within the
    stability limit 2/L: t0 >= L/σ. With R <= 1 this is Bottou's t0 unchanged. The
    exponential loss (neither Lipschitz nor smooth) would give |ℓ'(−typw)| = e^typw and steps
    too short to move (t0 = 1.2e272 at σ = 1e-8, R = 4.7e3): it takes the hinge's offset
    1/(typw σ'), with the first step within 1/L of its curvature at w = 0, L = R² + σ.

    Parameters
    ----------
    sigma : float > 0
        Regularization weight σ.
    loss : str
        One of ``rlmlib.LOSSES``.
    row_norm : float > 0, default 1
        R = max ‖x_i‖ of the data (values <= 1 give Bottou's heuristic).

    Returns
    -------
    float
        t0 > 0.

    Raises
    ------
    ValueError
        For an unknown loss, or when t0 is beyond the double range (pass t0 explicitly).

    Examples
    --------
    >>> from rlmlib.solvers.sgd import t0_heuristic
    >>> t0_heuristic(1e-4, "hinge")   # η0 = 10: t0 = 1 / (10 · 1e-4)
    1000.0
    >>> t0_heuristic(1e-4, "squared") > t0_heuristic(1e-4, "hinge")  # |ℓ'(-10)| = 11 > 1
    True
    >>> t0_heuristic(1e-2, "hinge", row_norm=10.0) == t0_heuristic(1e-4, "hinge")
    True
    >>> t0_heuristic(1e-2, "squared_hinge", row_norm=10.0) >= (100 + 1e-2) / 1e-2
    True
    """
    from ..core.losses import LOSSES
    R2 = max(1.0, float(row_norm)) ** 2
    s = sigma / R2   # sigma of the rescaled problem (rows of norm <= 1)
    typw = math.sqrt(1.0 / math.sqrt(s))
    # t0 = max(1, |loss'|) / (typw s), in an order that cannot underflow to 1/0
    spec = LOSSES[loss]
    if math.isinf(spec["smoothness"]) and math.isinf(spec["lipschitz"]):
        # the exponential loss: |loss'(-typw)| = e^typw would stop every step (t0 = 1e272
        # at sigma = 1e-8 on rows of norm 4.7e3, a run that never moves); take the hinge's
        # offset, and the first step within 1/L of the loss's curvature at w = 0 (1 R^2)
        t0 = max(1.0 / typw / s, (R2 + sigma) / sigma)
    else:
        t0 = max(1.0, abs(loss_deriv(loss_code(loss), -typw, 1.0))) / typw / s
    if not spec["lipschitz"] <= 1.0 and math.isfinite(spec["smoothness"]):
        t0 = max(t0, (spec["smoothness"] * R2 + sigma) / sigma)   # first step <= 1/L
    if not math.isfinite(t0):
        raise ValueError(f"the t0 heuristic overflows for loss={loss!r} at sigma={sigma!r} "
                         f"(|loss'(-sigma^-1/4)| / (sigma^3/4) is beyond the double range): "
                         f"pass t0 explicitly or raise sigma")
    return t0


def _check_scale(p, t0):
    """sgd's data-scale bound (``Problem.check_scale``). For a loss with |loss'| <= 1 (hinge,
    logistic, absolute) every iterate has ||w_t|| <= R / (sigma min(1, t0)), R = max ||x_i||:
    by induction, (1 - eta sigma) ||w|| + eta R stays below it. Other losses have no such
    bound on the iterates; the minimizer's, ||w*|| <= sqrt(2 F(0) / sigma), is checked and
    overflow along the run is caught by the divergence check."""
    from ..core.losses import LOSSES

    if LOSSES[p.loss]["lipschitz"] <= 1.0:
        p.check_scale(p.R / p.sigma / min(1.0, t0),   # sigma t0 may underflow to 0
                      "max||x|| / (sigma min(1, t0))")
    else:
        p.check_scale(*p.minimizer_bound())


@sigma_keyword
def sgd(X, y, *, sigma, epochs, loss="hinge", t0=None, seed=0, order="reshuffle",
        n_checkpoints=None, X_test=None, y_test=None, progress=False):
    """Plain SGD with step 1/(sigma (t + t0)) on (sigma/2)||w||^2 + mean loss.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
        Training rows, dense or sparse (any scipy format; CSR is used as is).
    y : array-like, shape (m,)
        Labels: any two values for a classification loss (mapped to -1/+1 in sorted order),
        real targets for ``'squared'`` and ``'absolute'``.
    sigma : float > 0
        Regularization weight σ of (σ/2)‖w‖².
    epochs : int >= 1
        Passes over the data; step t (counted from 0 over all epochs) has length
        η_t = 1/(σ (t + t0)).
    loss : str, default 'hinge'
        One of ``rlmlib.LOSSES``.
    t0 : float > 0 or None
        Offset of the step schedule. None: Bottou's heuristic t0 = 1/(η0 σ) with
        η0 = σ^(-1/4) / max(1, |ℓ'(-σ^(-1/4); 1)|), derived for ‖x‖ <= 1 and applied at
        σ/R² for rows of norm up to R = max ‖x_i‖ > 1 (the same run on rows scaled to norm
        1); for the squared hinge and squared losses the first step is at most 1/L,
        L = R² + σ (``rlmlib.solvers.sgd.t0_heuristic``).
    seed : int >= 0
        Seed of ``numpy.random.default_rng`` for the example order.
    order : {'reshuffle', 'shuffle_once', 'cyclic', 'replacement'}
        A new permutation each epoch (default), one permutation reused, storage order, or
        m independent uniform draws per epoch (sampling with replacement).
    n_checkpoints : int or None
        None (default): no intermediate evaluation; ``res.objective`` is computed exactly on
        first access (one pass over the data). N: an exact trace at N checkpoints, each one
        pass over the training rows (and one over ``X_test``).
    X_test, y_test : optional
        A held-out set; the trace then records accuracy (or MSE for regression losses).
    progress : bool
        Show a progress bar (tqdm).

    Returns
    -------
    Result
        ``res.w``, ``res.objective``, ``res.trace``; ``res.params['t0']`` holds the t0 used.

    Raises
    ------
    ValueError
        For a bad argument (named in the message), before any step is taken.
    TypeError
        For ``lam=`` (the weight is ``sigma``) or arguments of the wrong type.
    FloatingPointError
        When the weights overflow (steps too long for the data's scale).

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    >>> res = rlmlib.sgd(X, [1, 1, -1, -1], sigma=0.1, epochs=20)
    >>> bool(res.objective < rlmlib.objective(X, [1, 1, -1, -1], np.zeros(2), sigma=0.1,
    ...                                       loss="hinge"))
    True
    """
    p = Problem("sgd", X, y, sigma=sigma, loss=loss, epochs=epochs, seed=seed, order=order,
                orders=ORDERS, n_checkpoints=n_checkpoints, X_test=X_test, y_test=y_test,
                progress=progress)
    heuristic = t0 is None
    # scaled to the data's largest row (t0_heuristic); rows beyond 2^500 (rejected by the
    # scale check below) get the unscaled value, whose square is finite
    t0 = (t0_heuristic(p.sigma, loss, p.R if p.R < 2.0 ** 500 else 1.0) if heuristic
          else check_first_step("sgd", "t0", check_positive("t0", t0), p.sigma))
    _check_scale(p, t0)
    v = np.zeros(p.n)
    state = np.ones(1)  # state[0] = s, w = s v

    def steps(rows, y, indices, indptr, idx, start, stop, t, look_ahead):
        sgd_steps(rows.data, indices, indptr, y, v, state, idx, start, stop, t, p.sigma, t0,
                  p.code, p.dense, look_ahead)

    params = {"sigma": p.sigma, "epochs": p.epochs, "loss": loss, "t0": t0,
              "t0_heuristic": heuristic, "seed": p.seed, "order": p.order}
    hint = ("the first steps 1/(sigma (t + t0)) are too long for this data: pass a "
            "larger t0")
    return p.run(steps, lambda: state[0] * v, params, hint=f"t0={t0:.6g}: " + hint,
                 state=lambda: (v,))
