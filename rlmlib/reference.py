"""Reference solver: L-BFGS (scipy's L-BFGS-B) on the common objective, smooth losses only.

    F(w) = sigma * r(w) + (1/m) sum_i loss(<w, x_i>, y_i),   r(w) = ||w||_p^2 / (2(p-1)).

It is the tests' reference for F* and the "quasi-Newton" baseline of the PGS chapter.

Certificate of accuracy: r is 1-strongly convex with respect to ||.||_p, so F is
sigma-strongly convex with respect to ||.||_p and, with q = p/(p-1),

    F(w) - F* <= ||grad F(w)||_q^2 / (2 sigma).

The run stops as soon as this bound is below ``tol * |F(w)|`` (or when L-BFGS-B cannot make
progress any more); the bound is returned in ``res.info['gap_bound']`` and
``res.info['converged']`` says whether ``tol`` was certified. For p close to 1 (say p < 1.3)
r is C^1 but far from C^2 near w_i = 0 and L-BFGS can stall above tol: check ``converged``.
"""
import time

import numpy as np

from ._checks import check_int, check_positive, check_test_set, check_X_y
from ._result import Result, Trace
from ._runner import holdout_metric
from .losses import SMOOTH, loss_code, loss_task
from .objective import check_p, mean_loss_grad
from .pnorm import _grad_phi, _phi, _scaled_norm


def _dual_norm(g, p):
    """||g||_q, q = p/(p-1), without overflow."""
    M, nu = _scaled_norm(g, p / (p - 1.0))
    return M * nu


def lbfgs(X, y, *, sigma, loss, p=2.0, tol=1e-10, max_iter=20000, memory=10, w0=None,
          X_test=None, y_test=None):
    """Minimize F with L-BFGS-B until F(w) - F* <= tol * |F(w)| is certified.

    Returns a Result whose trace has one checkpoint per L-BFGS iteration; ``epoch`` counts
    passes over the data (one per function-and-gradient evaluation).
    """
    from scipy.optimize import minimize  # lazy: scipy.optimize is slow to import

    if loss not in SMOOTH:
        loss_code(loss)  # unknown names get the standard message
        raise ValueError(
            f"loss must be a differentiable loss for L-BFGS ({', '.join(map(repr, SMOOTH))}); "
            f"got {loss!r}"
        )
    code = loss_code(loss)
    sigma = check_positive("sigma", sigma)
    p = check_p(p)
    tol = check_positive("tol", tol)
    max_iter = check_int("max_iter", max_iter)
    memory = check_int("memory", memory)
    task = loss_task(loss)
    rows, yf, classes = check_X_y(X, y, task=task)
    test = check_test_set(X_test, y_test, rows.n_features, task, classes)
    n = rows.n_features
    w_init = np.zeros(n) if w0 is None else np.array(w0, dtype=np.float64)
    if w_init.shape != (n,) or not np.isfinite(w_init).all():
        raise ValueError(f"w0 must be a finite 1-D array of length n_features={n}")

    grad = np.empty(n)
    last = {"x": None, "f": None, "g": None, "nfev": 0}

    def fun(w):
        f = mean_loss_grad(rows.data, rows.indices, rows.indptr, w, yf, code, grad)
        if p == 2.0:
            f += sigma * 0.5 * float(w @ w)
            g = grad + sigma * w
        else:
            f += sigma * _phi(w, p)
            g = grad + sigma * _grad_phi(w, p, np.empty_like(w))
        last.update(x=w.copy(), f=f, g=g, nfev=last["nfev"] + 1)
        return f, g

    its, eps, secs, objs, tms = [], [], [], [], []
    clock = {"solver": 0.0, "since": 0.0, "eval": 0.0}

    def record(it, w, f):
        its.append(it)
        eps.append(last["nfev"])
        secs.append(clock["solver"])
        objs.append(f)
        tms.append(holdout_metric(test, w, task))

    f0, g0 = fun(w_init)
    last["nfev"] = 0  # the starting evaluation is a checkpoint, not solver work
    record(0, w_init, f0)
    state = {"it": 0, "bound": np.inf}

    def callback(intermediate_result):
        now = time.perf_counter()
        clock["solver"] += now - clock["since"]
        state["it"] += 1
        w = intermediate_result.x
        f = float(intermediate_result.fun)
        g = last["g"] if np.array_equal(last["x"], w) else fun(w)[1]
        state["bound"] = _dual_norm(g, p) ** 2 / (2.0 * sigma)
        record(state["it"], w, f)
        clock["since"] = time.perf_counter()
        if state["bound"] <= tol * abs(f):
            raise StopIteration

    clock["since"] = time.perf_counter()
    opt = minimize(fun, w_init, jac=True, method="L-BFGS-B", callback=callback,
                   options={"maxiter": max_iter, "maxfun": 10 * max_iter, "maxcor": memory,
                            "ftol": 0.0, "gtol": 0.0})
    w = np.asarray(opt.x, dtype=np.float64)
    f, g = fun(w)
    bound = _dual_norm(g, p) ** 2 / (2.0 * sigma)
    if state["it"] == 0 or objs[-1] != f:
        clock["solver"] += max(0.0, time.perf_counter() - clock["since"])
        record(state["it"], w, f)
    trace = Trace(iteration=np.asarray(its, dtype=np.int64),
                  epoch=np.asarray(eps, dtype=np.float64),
                  seconds=np.asarray(secs), objective=np.asarray(objs),
                  test_metric=None if test is None else np.asarray(tms, dtype=np.float64),
                  test_metric_name=None if test is None else
                  ("mse" if task == "regression" else "accuracy"))
    params = {"sigma": sigma, "loss": loss, "p": p, "tol": tol, "max_iter": max_iter,
              "memory": memory}
    info = {"gap_bound": bound, "relative_gap_bound": bound / abs(f) if f != 0 else bound,
            "grad_dual_norm": _dual_norm(g, p), "message": str(opt.message),
            "converged": bool(bound <= tol * abs(f)), "n_iter": state["it"],
            "n_evaluations": last["nfev"]}
    return Result(w=w, solver="lbfgs", params=params, trace=trace, classes=classes, info=info)
