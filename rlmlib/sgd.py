"""Plain stochastic gradient descent (Bottou 2010; Bordes, Bottou and Gallinari 2009).

Minimizes  P(w) = (lam/2) ||w||^2 + (1/m) sum_i loss(<w, x_i>, y_i)  by visiting the examples
in a fresh random order each epoch and taking, at global step t = 0, 1, 2, ...,

    eta_t = 1 / (lam (t + t0)),
    w    <- w - eta_t (lam w + loss'(<w, x_i>, y_i) x_i)
          = (1 - eta_t lam) w - eta_t loss'(z_i, y_i) x_i          (z_i computed before the step).

Scaled-vector trick (Bottou's ``wDivisor``, scikit-learn's ``WeightVector``): store w = s v.
The shrink w <- (1 - eta lam) w becomes s <- (1 - eta lam) s, O(1), and the loss step touches
only the non-zeros of x_i: v <- v - (eta loss' / s) x_i. When |s| < 1e-9, fold s into v
(O(n), rare) so that v does not grow without bound.

t0 heuristic (Bottou's svmsgd, also scikit-learn's learning_rate='optimal'): a typical weight
norm is typw = lam^(-1/4) (an upper bound on ||w*|| is 1/sqrt(lam) for losses with l(0) <= 1);
the initial rate is eta0 = typw / max(1, |loss'(-typw; y=1)|) and t0 = 1 / (eta0 lam), so the
first step is eta0.
"""
import math

import numpy as np
from numba import njit

from ._checks import (check_int, check_positive, check_seed, check_test_set, check_X_y,
                      is_compact, n_rows, unsigned_index)
from ._prefetch import prefetch_ahead
from ._result import Result
from ._runner import make_evaluate, run_checkpointed
from .losses import loss_code, loss_deriv, loss_task
from .objective import row_dot

RENORM = 1e-9  # fold s into v when |s| falls below this (scikit-learn uses the same value)


@njit(cache=True)
def sgd_steps(data, indices, indptr, y, v, state, order, start, stop, t_first, lam, t0, code,
              dense):
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
        eta = 1.0 / (lam * (t + t0))  # eta_t = 1 / (lam (t + t0))
        d = loss_deriv(code, z, y[i])  # loss'(z; y_i), derivative w.r.t. z
        s *= 1.0 - eta * lam  # w <- (1 - eta lam) w, in O(1)
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


def t0_heuristic(lam, loss):
    """Bottou's t0 = 1 / (eta0 lam) with eta0 = typw / max(1, |loss'(-typw)|), typw = lam^-1/4."""
    typw = math.sqrt(1.0 / math.sqrt(lam))
    eta0 = typw / max(1.0, abs(loss_deriv(loss_code(loss), -typw, 1.0)))
    return 1.0 / (eta0 * lam)


def sgd(X, y, *, lam, epochs, loss="hinge", t0=None, seed=0, n_checkpoints=20, X_test=None,
        y_test=None, progress=False):
    """Plain SGD with step 1/(lam (t + t0)) on (lam/2)||w||^2 + mean loss.

    Parameters: lam > 0 (regularization), epochs >= 1 (passes, each in a new random order drawn
    from numpy.random.default_rng(seed)), loss (see rlmlib.LOSSES), t0 > 0 or None for the
    heuristic above. Returns a Result; ``res.params['t0']`` holds the t0 used.
    """
    code = loss_code(loss)
    lam = check_positive("lam", lam)
    epochs = check_int("epochs", epochs)
    seed = check_seed(seed)
    n_checkpoints = check_int("n_checkpoints", n_checkpoints)
    heuristic = t0 is None
    t0 = t0_heuristic(lam, loss) if heuristic else check_positive("t0", t0)
    task = loss_task(loss)
    # dense input in compact form: the kernel indexes dense rows directly (see sgd_steps)
    rows, yf, classes = check_X_y(X, y, task=task, compact_dense=True)
    dense = is_compact(rows)
    test = check_test_set(X_test, y_test, rows.n_features, task, classes)
    m = n_rows(rows)

    v = np.zeros(rows.n_features)
    state = np.ones(1)  # state[0] = s, w = s v
    indices, indptr = unsigned_index(rows)  # unsigned: no wraparound checks in the kernel
    rng = np.random.default_rng(seed)
    perm = {"epoch": -1, "order": None, "t": 0}

    def advance(t_begin, t_end):
        t = t_begin
        while t < t_end:
            e, pos = divmod(t, m)
            if perm["epoch"] != e:  # one permutation per epoch, drawn in order
                perm["epoch"], perm["order"] = e, rng.permutation(m).view(np.uint64)
            stop = min(m, pos + (t_end - t))
            sgd_steps(rows.data, indices, indptr, yf, v, state, perm["order"], pos,
                      stop, t, lam, t0, code, dense)
            t += stop - pos
        perm["t"] = t_end
        if not np.isfinite(v).all():
            diverged(t_end)

    def diverged(t):
        raise FloatingPointError(
            f"sgd diverged: the weights or the objective overflowed by step {t} (epoch "
            f"{t / m:.3g}) with lam={lam}, t0={t0:.6g}, loss={loss!r}; the first steps "
            f"1/(lam (t + t0)) are too long for this data (the t0 heuristic assumes ||x|| of "
            f"order 1): scale the rows or pass a larger t0")

    def get_w():
        return state[0] * v

    evaluate_w = make_evaluate(rows, yf, lam, code, 2.0, test, task, get_w)

    def evaluate():
        obj, tm = evaluate_w()
        if not np.isfinite(obj):
            diverged(perm["t"])
        return obj, tm

    trace = run_checkpointed(advance, epochs * m, m, evaluate, n_checkpoints, progress,
                             desc="sgd", test_metric_name="mse" if task == "regression"
                             else "accuracy")
    params = {"lam": lam, "epochs": epochs, "loss": loss, "t0": t0, "t0_heuristic": heuristic,
              "seed": seed}
    return Result(w=get_w(), solver="sgd", params=params, trace=trace, classes=classes)
