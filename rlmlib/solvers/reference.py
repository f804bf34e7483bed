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
import math
import time

import numpy as np

from ..core.checks import check_int, check_positive, sigma_keyword
from ..core.problem import Problem
from ..core.result import Result, Trace
from ..core.runner import holdout_metric
from ..core.losses import SMOOTH, loss_code
from ..core.rows import all_finite
from ..core.objective import mean_loss_derivs, mean_loss_grad, sigma_r
from ..core.pnorm import _grad_phi, _phi, _scaled_norm


def _dual_norm(g, p):
    """||g||_q, q = p/(p-1), without overflow."""
    M, nu = _scaled_norm(g, p / (p - 1.0))
    return M * nu


_ROUND = 2.0 ** -50  # relative rounding allowed for in the computed gradient (4 ulps)
_TINY_GRAD = 2.0 ** -970  # below it a gradient's entries are near the subnormal range


def _certify(g, parts, sigma, p, f, tol):
    """(bound, converged, reason) for the certificate F(w) - F* <= ||grad F(w)||_q^2 / (2 sigma).

    The computed gradient g = (loss part) + sigma grad r(w) carries rounding errors of about
    an ulp of its two parts, whose dual norms are ``parts``: they are added to ||g||_q, so a
    gradient that is small only because the two parts cancel in rounding certifies nothing.
    The square is formed as (||g|| / sqrt(2 sigma))^2, which underflows only when the bound
    does (||g||^2 alone underflows at ||g|| = 1e-162). When the gradient and both parts lie
    near the subnormal range (below 2^-970) their rounding is no longer relative: then no
    convergence is claimed, unless F(w) = 0, which is the minimum (every loss and r are >= 0).
    """
    gn = _dual_norm(g, p)
    if f == 0.0 and gn == 0.0:
        return 0.0, True, None
    b = (gn + _ROUND * (parts[0] + parts[1])) / math.sqrt(2.0 * sigma)
    bound = b * b  # inf, not OverflowError, beyond the double range
    if max(gn, parts[0], parts[1]) < _TINY_GRAD:
        return bound, False, (f"cannot certify: the gradient ({gn:.3g}) lies near the "
                              f"subnormal range, where its rounding is not relative")
    return bound, bool(bound <= tol * abs(f)), None


def _check_scale(pr, w_init):
    """lbfgs's data-scale bound: L-BFGS-B accepts only points with F(w) <= F(w0), so
    sigma r(w) <= F(w0) gives ||w||_2 <= ||w||_p <= sqrt(2 (p-1) F(w0) / sigma); trial
    points of the line search are allowed four times that."""
    f0 = pr.objective(w_init)
    if not math.isfinite(f0):
        raise ValueError(f"w0 is too large: the objective at w0 is beyond the double range")
    W = 4.0 * math.sqrt(2.0 * (pr.p - 1.0) * f0 / pr.sigma)
    # L-BFGS-B forms inner products of steps (||w||^2): they must stay finite too
    pr.check_scale(W, "4 sqrt(2 (p-1) F(w0) / sigma)",
                   ((W * W, "||w||^2 in L-BFGS-B's updates, (4 sqrt(2 (p-1) F(w0) / sigma))^2"),))


class _Point:
    """What L-BFGS-B's callback reads (x, fun), in the original variables."""

    def __init__(self, x, fun):
        self.x, self.fun = x, fun


def _variable_scale(rows, w_init):
    """A power of two c near max||x|| when that is beyond 2^+-20, else 1 (see lbfgs)."""
    from ..core.rows import row_scale
    R = row_scale(rows).max_norm
    if not (0.0 < R < math.inf) or 2.0 ** -20 <= R <= 2.0 ** 20:
        return 1.0
    c = 2.0 ** round(math.log2(R))
    return c if np.isfinite(w_init * c).all() else 1.0


def _scaled(fun, v, c):
    """F and its gradient in v = c w. At a far trial point of the line search (c ~ 2^-660
    for rows of norm 1e-200) g / c may overflow: inf tells L-BFGS-B to step back, and
    numpy's RuntimeWarning would reach the user's stderr."""
    f, g = fun(v / c)
    with np.errstate(over="ignore"):
        return f, g / c


def _conditioning_note(rows, code, sigma):
    """Why L-BFGS cannot certify on badly conditioned data: kappa = L max||x||^2 / sigma
    beyond 1/eps (an empty string otherwise)."""
    from ..core.losses import LOSSES, NAMES
    from ..core.rows import row_scale
    R = row_scale(rows).max_norm
    with np.errstate(over="ignore"):
        kappa = LOSSES[NAMES[code]]["smoothness"] * R * R / sigma
    if not kappa > 2.0 ** 52:
        return ""
    shown = f"{kappa:.3g}" if kappa < math.inf else "beyond the double range"
    return (f"; the condition number L max||x||^2 / sigma = {shown} exceeds 1/eps = "
            f"4.5e15, so no double-precision method can certify tol here: scale X down or "
            f"raise sigma")


def _loss_grad(rows, y, code, grad):
    """w -> the mean loss at w, its gradient written into ``grad``. Sparse rows: one pass
    over X per evaluation (:func:`rlmlib.core.objective.mean_loss_grad_blocks`: margins,
    derivatives and scatter 64 rows at a time, the same bits as the two products
    z = X w and X^T d with d_i = loss'(z_i) / m that scikit-learn's ``LinearModelLoss``
    computes; measured on 200,000 x 47,236 RCV1-like rows, 0.56-0.79 times their time).
    Dense rows (compact): the two products by BLAS (a loop of numba's took 2.2 times as
    long on 50,000 x 300). The overflow-safe loop (:func:`mean_loss_grad`) runs only when
    a margin is not finite."""
    from ..core.objective import GRAD_BLOCK, mean_loss_grad_blocks
    from ..core.rows import unsigned_index

    n = rows.n_features
    m = rows.indptr.shape[0] - 1
    if rows.sparse:
        ui, uptr = unsigned_index(rows)
        zb = np.empty(min(GRAD_BLOCK, m))
        safe = (rows.data, rows.indices)

        def loss_grad(w):
            row, f = mean_loss_grad_blocks(rows.data, ui, uptr, w, y, code, grad, zb)
            if row < 0:
                return f
            return mean_loss_grad(safe[0], safe[1], rows.indptr, w, y, code, grad)

        return loss_grad
    A = rows.data.reshape(-1, n)
    safe = None  # the non-compact indices, built on the rare path that needs them
    zd, d = np.empty(m), np.empty(m)

    def loss_grad(w):
        nonlocal safe
        z = np.dot(A, w, out=zd)
        if all_finite(z):
            f = mean_loss_derivs(code, z, y, d)
            np.dot(d, A, out=grad)
            return f
        if safe is None:
            safe = (rows.data, np.tile(rows.indices, m))
        return mean_loss_grad(safe[0], safe[1], rows.indptr, w, y, code, grad)

    return loss_grad


def objective_and_gradient(rows, y, code, sigma, p=2.0):
    """The callable :func:`lbfgs` hands to scipy: w -> (F(w), grad F(w)), no checks.

    One pass over X per evaluation for sparse rows (:func:`_loss_grad`: one numba loop,
    64 rows at a time), two BLAS products z = X w and X^T d for dense compact rows, then
    the regularizer's value and gradient in O(n); no conversion or copy of X. The loss part of the last gradient
    stays in the returned buffer (the certificate needs it, see :func:`_certify`).

    Parameters
    ----------
    rows : Rows
        Checked rows (``Problem(...).rows``, dense rows in compact form).
    y : numpy.ndarray of float64, shape (m,)
        Labels -1/+1 (or targets for 'squared').
    code : int
        Loss code of a differentiable loss.
    sigma : float > 0
        Regularization weight.
    p : float
        Exponent of the regularizer.

    Returns
    -------
    (callable, numpy.ndarray)
        ``fg(w) -> (F(w), grad F(w))`` (the gradient a new array) and the buffer that holds
        the mean loss's gradient at the last w evaluated.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> from rlmlib.core.problem import Problem
    >>> from rlmlib.solvers.reference import objective_and_gradient
    >>> X = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, -1.0]])
    >>> pr = Problem("lbfgs", X, [1, -1, 1], sigma=0.1, loss="logistic", compact_dense=True)
    >>> fg, _ = objective_and_gradient(pr.rows, pr.y, pr.code, 0.1)
    >>> w = np.array([0.5, -0.25])
    >>> f, g = fg(w)
    >>> bool(np.isclose(f, rlmlib.objective(X, [1, -1, 1], w, sigma=0.1, loss="logistic")))
    True
    """
    grad = np.empty(rows.n_features)
    loss_grad = _loss_grad(rows, y, code, grad)

    def fg(w):
        f = loss_grad(w)
        with np.errstate(over="ignore"):  # inf: the scaled form below
            ww = float(np.dot(w, w)) if p == 2.0 else 0.0  # one BLAS pass over w
        if 2.0 ** -500 < ww < 2.0 ** 500:  # no rounding beyond the relative one
            f += 0.5 * sigma * ww
        else:  # finite whenever sigma r(w) is (r(w) alone may not be)
            f += sigma_r(w, sigma, p)
        g = _reg_grad(w, sigma, p)
        g += grad
        return f, g

    return fg, grad


def _reg_grad(w, sigma, p):
    """sigma grad r(w)."""
    return sigma * w if p == 2.0 else sigma * _grad_phi(w, p, np.empty_like(w))


#: the stopping rules of lbfgs
STOPS = ("certified", "gradient")


@sigma_keyword
def lbfgs(X, y, *, sigma, loss, p=2.0, tol=1e-10, max_iter=20000, memory=10,
          stop="certified", w0=None, X_test=None, y_test=None):
    """Minimize F with L-BFGS-B until F(w) − F* <= tol · |F(w)| is certified.

    The reference solver of the book: the certificate is F(w) − F* <= ‖∇F(w)‖_q² / (2σ),
    q = p/(p − 1), from the σ-strong convexity of F with respect to ‖·‖_p. With
    ``stop="gradient"`` it stops as an estimator instead, by L-BFGS-B's own test with
    scikit-learn's ``LogisticRegression`` settings: max_j |∂F/∂w_j| <= tol, or a relative
    decrease of F below 64 ε in one iteration (``RLMClassifier(solver="lbfgs")``'s default,
    with tol = 1e-4 and max_iter = 100, as scikit-learn's).

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
        Training rows, dense or sparse.
    y : array-like, shape (m,)
        Any two labels (mapped to -1/+1 in sorted order) for a classification loss, real
        targets for 'squared'.
    sigma : float > 0
        Regularization weight σ.
    loss : str
        A differentiable loss: 'logistic', 'squared', 'squared_hinge' or 'exponential'.
    p : float in [1.0001, 2]
        Exponent of the regularizer ‖w‖_p²/(2(p − 1)) (½‖w‖² at p = 2).
    tol : float > 0
        Relative suboptimality to certify (``stop="certified"``), or the bound on the
        largest gradient entry (``stop="gradient"``).
    max_iter : int >= 1
        Iterations of L-BFGS-B at most (and 10 · max_iter function evaluations).
    memory : int >= 1
        Number of correction pairs L-BFGS keeps.
    stop : {'certified', 'gradient'}
        'certified': stop once F(w) − F* <= tol · |F(w)| is certified (a reference).
        'gradient': L-BFGS-B's own test, max_j |∂F/∂w_j| <= tol or a relative decrease of F
        below 64 ε (scikit-learn's; an estimator's stop: nothing is certified, the bound
        is still reported).
    w0 : array-like, shape (n,), optional
        Starting point (default 0).
    X_test, y_test : optional
        Held-out set; the trace then records its accuracy (MSE for 'squared').

    Returns
    -------
    Result
        ``res.info['converged']`` says whether the bound was certified (for
        ``stop="gradient"``: whether L-BFGS-B's own test ended the run),
        ``res.info['message']`` why it stopped, ``res.info['gap_bound']`` the certified
        bound on F(w) − F*; the trace has one checkpoint per L-BFGS iteration and
        ``epoch`` counts passes over the data (one per function-and-gradient evaluation).

    Raises
    ------
    ValueError
        For a loss that is not differentiable, a bad argument (named in the message), or a
        w0 of the wrong shape, not finite, or at which F is beyond the double range.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.array([[1.0, 0.2], [0.1, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    >>> res = rlmlib.lbfgs(X, [1, 1, -1, -1], sigma=0.1, loss="logistic")
    >>> res.info["converged"], res.info["message"].split(":")[0]
    (True, 'converged')
    >>> bool(res.info["gap_bound"] <= 1e-10 * res.objective)
    True
    >>> rlmlib.lbfgs(X, [1, 1, -1, -1], sigma=0.1, loss="hinge")
    Traceback (most recent call last):
    ...
    ValueError: loss must be a differentiable loss for L-BFGS (...); got 'hinge'
    """
    from scipy.optimize import minimize  # lazy: scipy.optimize is slow to import

    if loss not in SMOOTH:
        loss_code(loss)  # unknown names get the standard message
        raise ValueError(
            f"loss must be a differentiable loss for L-BFGS ({', '.join(map(repr, SMOOTH))}); "
            f"got {loss!r}"
        )
    tol = check_positive("tol", tol)
    max_iter = check_int("max_iter", max_iter)
    memory = check_int("memory", memory)
    if not (isinstance(stop, str) and stop in STOPS):
        raise ValueError(f"stop must be one of {', '.join(map(repr, STOPS))}; got "
                         f"{stop!r}")
    certified = stop == "certified"
    # the checks every solver shares (its loop is scipy's: no steps, order or seed)
    # a float32 sparse X stays float32: the one-pass gradient widens each entry exactly
    # (the same bits as on a float64 copy, 8 bytes read per non-zero instead of 12)
    pr = Problem("lbfgs", X, y, sigma=sigma, loss=loss, p=p, X_test=X_test, y_test=y_test,
                 compact_dense=True, keep_float32=True)
    rows, yf, classes, test, task = pr.rows, pr.y, pr.classes, pr.test, pr.task
    code, sigma, p, n = pr.code, pr.sigma, pr.p, pr.n
    w_init = np.zeros(n) if w0 is None else np.array(w0, dtype=np.float64)
    if w_init.shape != (n,) or not np.isfinite(w_init).all():
        raise ValueError(f"w0 must be a finite 1-D array of length n_features={n}")
    _check_scale(pr, w_init)

    fg, grad = objective_and_gradient(rows, yf, code, sigma, p)
    last = {"x": None, "f": None, "g": None, "nfev": 0, "first": False}

    def fun(w):
        if last["first"]:  # scipy's first call, at w0: the starting evaluation's values
            last["first"] = False
            if np.array_equal(w, last["x"]):
                return last["f"], last["g"].copy()
        f, g = fg(w)
        last.update(x=w.copy(), f=f, g=g, nfev=last["nfev"] + 1)
        return f, g

    def parts(w):
        """The dual norms of the last gradient's two parts (at w, the last point)."""
        return _dual_norm(grad, p), _dual_norm(_reg_grad(w, sigma, p), p)

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
    last["first"] = True
    record(0, w_init, f0)
    state = {"it": 0, "bound": np.inf, "last": w_init.copy()}

    def callback(intermediate_result):
        now = time.perf_counter()
        clock["solver"] += now - clock["since"]
        state["it"] += 1
        w = intermediate_result.x
        if np.isfinite(w).all():
            state["last"] = w.copy()  # L-BFGS-B's accepted iterates decrease F
        f = float(intermediate_result.fun)
        if not np.array_equal(last["x"], w):
            fun(w)
        if certified:
            state["bound"], ok, _ = _certify(last["g"], parts(w), sigma, p, f, tol)
        record(state["it"], w, f)
        clock["since"] = time.perf_counter()
        if certified and ok:
            state["certified"] = True
            raise StopIteration

    # L-BFGS-B runs on v = c w, c a power of two near max||x|| (1 for rows of usual size):
    # F and its certificate are unchanged, but gradients of order 1e150 no longer make its
    # line search fail at the first step (it returned w = 0 with "ABNORMAL:"); exact scaling
    c = _variable_scale(rows, w_init)
    # stop="gradient": scikit-learn's LogisticRegression settings (gtol on the gradient in
    # w, which is c times the gradient in v; ftol 64 eps; up to 50 line-search steps)
    stops = ({"ftol": 0.0, "gtol": 0.0} if certified else
             {"ftol": 64 * np.finfo(float).eps, "gtol": tol / c, "maxls": 50})
    clock["since"] = time.perf_counter()
    opt = minimize(lambda v: _scaled(fun, v, c), w_init * c, jac=True, method="L-BFGS-B",
                   callback=(callback if c == 1.0 else  # scipy passes the result by name
                             lambda intermediate_result: callback(
                                 _Point(intermediate_result.x / c, intermediate_result.fun))),
                   options={"maxiter": max_iter, "maxfun": 10 * max_iter, "maxcor": memory,
                            **stops})
    w = np.asarray(opt.x, dtype=np.float64) / c
    lost = not np.isfinite(w).all()
    if lost:  # L-BFGS-B's line search left the double range: keep its last finite iterate
        w = state["last"]
    # L-BFGS-B's last point is, as a rule, its last evaluation: no pass to repeat it
    f, g = (last["f"], last["g"]) if np.array_equal(w, last["x"]) else fun(w)
    bound, converged, reason = _certify(g, parts(w), sigma, p, f, tol)
    if not certified:
        converged = bool(opt.status == 0 and not lost)
        message = (f"{'converged' if converged else 'not converged'}: L-BFGS-B stopped with: "
                   f"{opt.message} (stop='gradient': max|grad F| <= tol = {tol:.3g} or a "
                   f"relative decrease below 64 eps; nothing certified, the bound on "
                   f"F(w) - F* is {bound:.3g})")
    elif converged:
        message = (f"converged: F(w) - F* <= {bound:.3g} <= tol * |F(w)| certified "
                   f"(||grad F||_q^2 / (2 sigma))")
    else:
        message = (f"not converged: the certified bound {bound:.3g} on F(w) - F* is above "
                   f"tol * |F(w)| = {tol * abs(f):.3g}; L-BFGS-B stopped with: "
                   f"{'' if state.get('certified') else opt.message}"
                   + ("" if reason is None else f"; {reason}")
                   + ("; its last point was not finite, the last finite iterate is returned"
                      if lost else "")
                   + _conditioning_note(rows, code, sigma))
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
              "memory": memory, "stop": stop}
    info = {"check_seconds": pr.check_seconds, "gap_bound": bound,
            "relative_gap_bound": bound / abs(f) if f != 0 else bound,
            "grad_dual_norm": _dual_norm(g, p), "message": message,
            "converged": converged, "n_iter": state["it"],
            "n_evaluations": last["nfev"]}
    return Result(w=w, solver="lbfgs", params=params, trace=trace, classes=classes, info=info)
