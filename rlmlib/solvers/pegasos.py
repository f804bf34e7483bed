"""Pegasos (Shalev-Shwartz, Singer & Srebro 2007): stochastic sub-gradient descent for the SVM

    F(w) = sigma/2 ||w||^2 + (1/m) sum_i max(0, 1 - y_i <w, x_i>).

Step t = 1, 2, ..., T with eta_t = 1/(sigma t) and a batch A_t of k examples drawn uniformly
with replacement (the paper's sampling; ``order=`` offers the others, rlmlib/_order.py):

    A_t^+     = {(x, y) in A_t : y <w_t, x> < 1}
    w_{t+1/2} = (1 - 1/t) w_t + eta_t/k * sum_{A_t^+} y x
    w_{t+1}   = min(1, (1/sqrt(sigma)) / ||w_{t+1/2}||) w_{t+1/2}        (if project)

The returned iterate is the last one, w_{T+1} (the chapter explains why). w is stored as
s * v (the scaled-vector trick of Bottou's svmsgd and scikit-learn's WeightVector): the shrink
and the projection change the scalar s in O(1), the sum touches only the batch's non-zeros,
and ||v||^2 is kept up to date at those non-zeros, so a step costs O(non-zeros of the batch).
"""
import math

import numpy as np
from numba import njit

from ..core.checks import check_bool, check_int, check_memory, check_seed, sigma_keyword
from ..core.order import ORDERS, ExampleStream, check_order
from ..core.prefetch import prefetch_ahead
from ..core.problem import Problem, chunks  # noqa: F401  (chunks: public here too)
from ..core.objective import row_dot
from .limits import warmup_1_over_sigma_t


def sample_indices(m, k, T, seed=0, order="replacement"):
    """The example indices that :func:`rlmlib.pegasos` and :func:`rlmlib.pgs` draw.

    For replaying a run step by step, as the Pegasos chapter does.

    Parameters
    ----------
    m : int >= 1
        Number of training examples.
    k : int >= 1
        Examples per step.
    T : int >= 1
        Number of steps.
    seed : int >= 0
        The solver's ``seed``.
    order : {'replacement', 'reshuffle', 'shuffle_once', 'cyclic'}
        The solver's ``order``.

    Returns
    -------
    numpy.ndarray of int64, shape (T, k)
        Row t − 1 holds the batch A_t of step t.

    Raises
    ------
    ValueError
        For a bad argument (named in the message), or when the (T, k) array would not fit
        in memory.

    Examples
    --------
    >>> from rlmlib.solvers.pegasos import sample_indices
    >>> sample_indices(4, 2, 3, order="cyclic").tolist()
    [[0, 1], [2, 3], [0, 1]]
    >>> idx = sample_indices(10, 1, 1000)
    >>> idx.shape, int(idx.min()), int(idx.max())
    ((1000, 1), 0, 9)
    """
    m, k, T = check_int("m", m, 1, 2 ** 53), check_int("k", k), check_int("T", T)
    check_memory("T", T, 16 * T * k, "a (T, k) array of indices")
    stream = ExampleStream(m, check_order(order, ORDERS), check_seed(seed))
    return stream.take(T * k).astype(np.int64).reshape(T, k)


@njit(cache=True)
def _add_row(data, indices, start, stop, c, v, vv):
    """v <- v + c x for the row x = data[start:stop]; returns ||v||^2 kept up to date."""
    for j in range(start, stop):
        col = indices[j]
        old = v[col]
        new = old + c * data[j]
        v[col] = new
        vv += new * new - old * old
    return max(vv, 0.0)


_VV_MAX = 2.0 ** 1000  # ||v||^2 beyond this (or inf, NaN): v is rescaled (see _rescale)


@njit(cache=True)
def _rescale(v, s):
    """Scale v by the power of two that brings max|v_i| into [1/2, 1) and s by its inverse
    (exact; w = s v unchanged); returns (s, ||v||^2) recomputed. Called when the tracked
    ||v||^2 left the double range (X * 1e160: ||v|| ~ 1e164), so ||v||^2 stays finite and
    the projection sees the true norm instead of inf (which would collapse w to 0)."""
    M = 0.0
    for j in range(v.shape[0]):
        M = max(M, abs(v[j]))
    if M == 0.0:
        return s, 0.0
    f = math.ldexp(1.0, -math.frexp(M)[1])
    vv = 0.0
    for j in range(v.shape[0]):
        v[j] *= f
        vv += v[j] * v[j]
    return s / f, vv


@njit(cache=True)
def _settle(v, s, vv, project, radius):
    """Projection onto ||w|| <= radius (only s changes), then fold s into v when it gets
    tiny (O(n), rare). Returns the new (s, ||v||^2)."""
    if not vv <= _VV_MAX:  # ||v||^2 overflowed (inf or inf - inf): track it scaled
        s, vv = _rescale(v, s)
    if project:
        norm_w = s * math.sqrt(vv)
        if norm_w > radius:
            s *= radius / norm_w
    if s < 1e-9:
        vv = 0.0
        for j in range(v.shape[0]):
            v[j] *= s
            vv += v[j] * v[j]
        s = 1.0
    return s, vv


@njit(cache=True)
def _pegasos_steps(data, indices, indptr, y, batch, k, sigma, t_begin, project, v, state, coef,
                   look_ahead):
    """Steps t = t_begin+1 .. t_begin+len(batch)/k on w = s v; state = [s, ||v||^2]."""
    s = state[0]
    vv = state[1]
    radius = 1.0 / math.sqrt(sigma)
    n_steps = batch.shape[0] // k
    for step in range(n_steps):
        t = t_begin + step + 1
        eta = 1.0 / (sigma * t)
        if k == 1 and t > 1:
            # the same step for a single example: one margin, then shrink and add
            i = batch[step]
            if look_ahead:
                prefetch_ahead(data, indices, indptr, batch, step, n_steps, True)
            viol = y[i] * s * row_dot(data, indices, indptr[i], indptr[i + 1], v) < 1.0
            s *= 1.0 - 1.0 / t                               # shrink
            if viol:                                         # w <- w + eta y x
                vv = _add_row(data, indices, indptr[i], indptr[i + 1], eta * y[i] / s, v, vv)
                s, vv = _settle(v, s, vv, project, radius)   # only a sum can leave the ball
            else:
                s, vv = _settle(v, s, vv, False, radius)
            continue
        # A_t^+: margins y <w_t, x> = y s <v, x> of the whole batch at w_t
        for b in range(k):
            i = batch[step * k + b]
            if look_ahead:
                prefetch_ahead(data, indices, indptr, batch, step * k + b, batch.shape[0], True)
            z = row_dot(data, indices, indptr[i], indptr[i + 1], v)
            coef[b] = y[i] if y[i] * s * z < 1.0 else 0.0
        # shrink: w <- (1 - eta sigma) w = (1 - 1/t) w, in O(1) through s
        if t == 1:  # the factor is 0: w_{3/2} is the sum alone
            v[:] = 0.0
            s = 1.0
            vv = 0.0
        else:
            s *= 1.0 - 1.0 / t
        # w <- w + eta/k sum_{A_t^+} y x, i.e. v <- v + eta/(k s) y x, keeping ||v||^2
        c = eta / (k * s)
        for b in range(k):
            if coef[b] != 0.0:
                i = batch[step * k + b]
                vv = _add_row(data, indices, indptr[i], indptr[i + 1], c * coef[b], v, vv)
        # projection onto the ball ||w|| <= 1/sqrt(sigma), and the fold of s into v
        s, vv = _settle(v, s, vv, project, radius)
    state[0] = s
    state[1] = vv


def _check_scale(p, project):
    """Pegasos's data-scale bounds (``Problem.check_scale``): every half step w_{t+1/2} has
    norm <= R / sigma (R = max ||x_i||; by induction from (1 - 1/t) ||w_t|| + R / (sigma
    t)), and with the projection the margins use ||w_t|| <= 1 / sqrt(sigma)."""
    step = ((p.R / p.sigma, "a step (1/sigma) x of length max||x|| / sigma"),)
    if project:
        p.check_scale(1.0 / math.sqrt(p.sigma), "1/sqrt(sigma)", step)
    else:
        p.check_scale(p.R / p.sigma, "max||x|| / sigma", step)


@sigma_keyword
def pegasos(X, y, *, sigma, T, k=1, project=True, seed=0, order="replacement",
            n_checkpoints=None, X_test=None, y_test=None, progress=False):
    """Pegasos for the linear SVM: min sigma/2 ||w||^2 + mean hinge loss (no intercept).

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
        Training rows, dense or sparse.
    y : array-like, shape (m,)
        Any two labels (mapped to -1/+1 in sorted order).
    sigma : float > 0
        Regularization weight σ (the paper's λ).
    T : int >= 1
        Number of steps; step t has length η_t = 1/(σ t).
    k : int >= 1
        Batch size.
    project : bool
        Project onto the ball ‖w‖ <= 1/√σ after each step.
    seed : int >= 0
        Seed of ``numpy.random.default_rng`` for the examples drawn.
    order : {'replacement', 'reshuffle', 'shuffle_once', 'cyclic'}
        How the T·k examples are drawn: uniformly with replacement (the paper's analysis,
        the default), or walking permutations / storage order epoch by epoch.
    n_checkpoints : int or None
        None (default): no intermediate evaluation, ``res.objective`` computed exactly on
        first access (one pass over the data); N: an exact trace at N checkpoints, one pass
        over the data each.
    X_test, y_test : optional
        Held-out set; the trace then records its accuracy.
    progress : bool
        Show a progress bar.

    Returns
    -------
    Result
        The last iterate w_{T+1}; ``res.trace.epoch`` counts examples drawn / m.

    Raises
    ------
    ValueError, TypeError
        For a bad argument (named in the message), before any step; TypeError for
        ``lam=`` (the weight is ``sigma``).

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.array([[1.0, 0.2], [0.1, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    >>> res = rlmlib.pegasos(X, [1, 1, -1, -1], sigma=0.1, T=1000)
    >>> res.predict(X).tolist()
    [1, 1, -1, -1]
    """
    check_bool("project", project)
    check_memory("k", check_int("k", k), 16 * k, "two arrays of k entries")
    p = Problem("pegasos", X, y, sigma=sigma, loss="hinge", T=T, k=k, seed=seed, order=order,
                orders=ORDERS, n_checkpoints=n_checkpoints, X_test=X_test, y_test=y_test,
                progress=progress, compact_dense=False)
    _check_scale(p, bool(project))
    v = np.zeros(p.n)
    state = np.array([1.0, 0.0])
    coef = np.empty(k)

    def steps(rows, y, indices, indptr, batch, start, stop, t, look_ahead):
        _pegasos_steps(rows.data, indices, indptr, y, batch, k, p.sigma, t, bool(project), v,
                       state, coef, look_ahead)

    params = dict(sigma=p.sigma, T=p.T, k=p.k, project=bool(project), seed=p.seed,
                  order=p.order, loss="hinge", iterate="last")
    return p.run(steps, lambda: state[0] * v, params, state=lambda: (v,),
                 warmup=warmup_1_over_sigma_t(p.R, p.sigma),
                 hint=f"T={p.T}: the last iterate of a short run can be far from the "
                      f"minimizer (its first steps have length 1/(sigma t)); run more steps")
