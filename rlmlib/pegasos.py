"""Pegasos (Shalev-Shwartz, Singer & Srebro 2007): stochastic sub-gradient descent for the SVM

    F(w) = lam/2 ||w||^2 + (1/m) sum_i max(0, 1 - y_i <w, x_i>).

Step t = 1, 2, ..., T with eta_t = 1/(lam t) and a batch A_t of k examples drawn uniformly
with replacement:

    A_t^+     = {(x, y) in A_t : y <w_t, x> < 1}
    w_{t+1/2} = (1 - 1/t) w_t + eta_t/k * sum_{A_t^+} y x
    w_{t+1}   = min(1, (1/sqrt(lam)) / ||w_{t+1/2}||) w_{t+1/2}        (if project)

The returned iterate is the last one, w_{T+1} (the chapter explains why). w is stored as
s * v (the scaled-vector trick of Bottou's svmsgd and scikit-learn's WeightVector): the shrink
and the projection change the scalar s in O(1), the sum touches only the batch's non-zeros,
and ||v||^2 is kept up to date at those non-zeros, so a step costs O(non-zeros of the batch).
"""
import math

import numpy as np
from numba import njit

from ._checks import (check_int, check_positive, check_seed, check_test_set, check_X_y,
                      n_rows, unsigned_index)
from ._prefetch import prefetch_ahead
from ._result import Result
from ._runner import make_evaluate, run_checkpointed
from .losses import HINGE
from .objective import row_dot

_BLOCK = 1 << 16  # random indices are drawn in blocks of this size, whatever the checkpoints


class _IndexStream:
    """Uniform example indices drawn from default_rng(seed) in fixed-size blocks, so the
    indices used by steps a..b-1 do not depend on how the run is split into segments."""

    def __init__(self, seed, m):
        self.rng = np.random.default_rng(seed)
        self.m = m
        self.buf = np.empty(0, dtype=np.int64)
        self.pos = 0

    def take(self, count):
        out = np.empty(count, dtype=np.int64)
        filled = 0
        while filled < count:
            if self.pos == self.buf.shape[0]:
                self.buf = self.rng.integers(0, self.m, _BLOCK, dtype=np.int64)
                self.pos = 0
            c = min(count - filled, self.buf.shape[0] - self.pos)
            out[filled:filled + c] = self.buf[self.pos:self.pos + c]
            filled += c
            self.pos += c
        return out


def sample_indices(m, k, T, seed=0):
    """The (T, k) example indices that ``pegasos`` and ``pgs`` use with this seed (row t-1 is
    the batch A_t). For replaying a run step by step, e.g. in the chapter."""
    return _IndexStream(check_seed(seed), check_int("m", m)).take(
        check_int("T", T) * check_int("k", k)).reshape(T, k)


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


@njit(cache=True)
def _settle(v, s, vv, project, radius):
    """Projection onto ||w|| <= radius (only s changes), then fold s into v when it gets
    tiny (O(n), rare). Returns the new (s, ||v||^2)."""
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
def _pegasos_steps(data, indices, indptr, y, batch, k, lam, t_begin, project, v, state, coef):
    """Steps t = t_begin+1 .. t_begin+len(batch)/k on w = s v; state = [s, ||v||^2]."""
    s = state[0]
    vv = state[1]
    radius = 1.0 / math.sqrt(lam)
    n_steps = batch.shape[0] // k
    for step in range(n_steps):
        t = t_begin + step + 1
        eta = 1.0 / (lam * t)
        if k == 1 and t > 1:
            # the same step for a single example: one margin, then shrink and add
            i = batch[step]
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
            prefetch_ahead(data, indices, indptr, batch, step * k + b, batch.shape[0], True)
            z = row_dot(data, indices, indptr[i], indptr[i + 1], v)
            coef[b] = y[i] if y[i] * s * z < 1.0 else 0.0
        # shrink: w <- (1 - eta lam) w = (1 - 1/t) w, in O(1) through s
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
        # projection onto the ball ||w|| <= 1/sqrt(lam), and the fold of s into v
        s, vv = _settle(v, s, vv, project, radius)
    state[0] = s
    state[1] = vv


def pegasos(X, y, *, lam, T, k=1, project=True, seed=0, n_checkpoints=20, X_test=None,
            y_test=None, progress=False):
    """Pegasos for the linear SVM: min lam/2 ||w||^2 + mean hinge loss (no intercept).

    Parameters: ``lam`` > 0 the regularization weight, ``T`` the number of steps, ``k`` the
    batch size (examples drawn uniformly with replacement), ``project`` whether to project onto
    the ball ||w|| <= 1/sqrt(lam) after each step, ``seed`` the random seed. X dense or sparse;
    y any two labels (mapped to -1/+1). Returns a :class:`Result` holding the last iterate;
    ``res.trace.epoch`` counts examples drawn / m.
    """
    lam = check_positive("lam", lam)
    T = check_int("T", T)
    k = check_int("k", k)
    if not isinstance(project, (bool, np.bool_)):
        raise TypeError(f"project must be True or False, got {project!r}")
    seed = check_seed(seed)
    n_checkpoints = check_int("n_checkpoints", n_checkpoints)
    rows, yf, classes = check_X_y(X, y, task="binary")
    test = check_test_set(X_test, y_test, rows.n_features, "binary", classes)
    m = n_rows(rows)

    v = np.zeros(rows.n_features)
    state = np.array([1.0, 0.0])
    coef = np.empty(k)
    stream = _IndexStream(seed, m)
    indices, indptr = unsigned_index(rows)

    def advance(a, b):
        batch = stream.take((b - a) * k).view(np.uint64)  # unsigned: see unsigned_index
        _pegasos_steps(rows.data, indices, indptr, yf, batch, k, lam, a,
                       bool(project), v, state, coef)

    def get_w():
        return state[0] * v

    evaluate = make_evaluate(rows, yf, lam, HINGE, 2.0, test, "binary", get_w)
    trace = run_checkpointed(advance, T, m / k, evaluate, n_checkpoints, progress, "pegasos",
                             "accuracy")
    params = dict(lam=lam, T=T, k=k, project=bool(project), seed=seed, loss="hinge",
                  iterate="last")
    return Result(w=get_w(), solver="pegasos", params=params, trace=trace, classes=classes)
