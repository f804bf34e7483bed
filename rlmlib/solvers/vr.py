"""Bookkeeping shared by the variance-reduced solvers ``sag`` and ``svrg``: the scaled,
just-in-time updated weight vector w = s (va + U vb) and the checked (plain or
preconditioned) problem they solve.
"""
import math

import numpy as np
from numba import njit

from ..core.checks import check_positive
from ..core.losses import LOSSES
from ..core.rows import unsigned_index
from ..precond.preconditioner import CURVATURE, Preconditioner, _check_beta, _row_norms2


RENORM = 1e-9  # fold the scale s into the stored vectors when it falls below this


@njit(cache=True)
def catch_up_all(va, vb, last, Sa, state):
    """Bring every coordinate of the lazily updated vector up to date and fold the scale in.

    The solvers keep w = s (va + U vb); between two visits of feature j its pending update
    is -Sa[j] (cum - last[j]) (cum is state[1], the running sum of the step factors), see
    ``sag_steps``. Afterwards s = 1, cum = 0 and w = va + U vb."""
    s = state[0]
    cum = state[1]
    for j in range(va.shape[0]):
        va[j] = (va[j] - Sa[j] * (cum - last[j])) * s
        last[j] = 0.0
    for q in range(vb.shape[0]):
        vb[q] *= s
    state[0] = 1.0
    state[1] = 0.0


@njit(cache=True)
def row_margin(data, indices, a, b, Q, i, va, vb, Sa, last, cum):
    """<va, x_i> + <vb, Q_i> after bringing the features of row i up to date (just in time)."""
    z = 0.0
    for p in range(a, b):
        j = indices[p]
        vj = va[j] - Sa[j] * (cum - last[j])
        va[j] = vj
        last[j] = cum
        z += data[p] * vj
    for q in range(vb.shape[0]):
        z += vb[q] * Q[i, q]
    return z


def problem_for(name, X, y, sigma, loss, epochs, seed, order, n_checkpoints, X_test, y_test,
                progress, losses=None):
    """The checked :class:`~rlmlib.core.problem.Problem` of ``sag``/``svrg`` (the losses
    of ``CURVATURE``, every order, CSR rows); ``losses`` narrows the accepted losses."""
    from ..core.order import ORDERS
    from ..core.problem import Problem

    return Problem(name, X, y, sigma=sigma, loss=loss, epochs=epochs, seed=seed, order=order,
                   orders=ORDERS, n_checkpoints=n_checkpoints, X_test=X_test, y_test=y_test,
                   progress=progress, losses=tuple(CURVATURE) if losses is None else losses,
                   compact_dense=False)


def accelerated_problem(name, X, y, sigma, loss, epochs, seed, order, n_checkpoints,
                        X_test, y_test, progress):
    """The checked Problem of ``catalyst``/``katyusha`` (squared or logistic loss, every
    order, CSR rows; the minimizer's scale checked) and L_max of the loss part,
    max_i smoothness·‖x_i‖² (ValueError beyond 2^960, ``check_curvature``).

    Returns
    -------
    tuple
        (Problem, L_max)
    """
    P = problem_for(name, X, y, sigma, loss, epochs, seed, order, n_checkpoints, X_test,
                    y_test, progress, losses=("squared", "logistic"))
    P.check_scale(*P.minimizer_bound())
    Lmax = LOSSES[P.loss]["smoothness"] * float(row_norms2(P.rows).max())
    check_curvature(name, Lmax, "L_max = max_i smoothness * ||x_i||^2")
    return P, Lmax


def solver_setup(name, prob, step, precondition):
    """Checked arrays for ``sag``/``svrg`` on the Problem ``prob``: plain problem when
    ``precondition`` is None, else the transformed one (in the original coordinates, see
    the module docstring)."""
    code, sigma, rows, yf, classes, m, loss = prob.code, prob.sigma, prob.rows, prob.y, \
        prob.classes, prob.m, prob.loss
    # data scale (DESIGN.md, "Validated ranges"): SAG and SVRG have no a-priori bound on
    # their iterates; the minimizer's, ||w*|| <= sqrt(2 F(0) / sigma), is checked (the same
    # point in either coordinates), and overflow along a run is caught by the divergence
    # check
    prob.check_scale(*prob.minimizer_bound())
    norms = row_norms2(rows)
    L = LOSSES[loss]["smoothness"]
    P = precondition
    if P is None:
        def U(b):  # no basis: U b = 0 in R^n
            return np.zeros(rows.n_features)
        Q = np.zeros((m, 0))
        e = np.zeros(0)
        alpha2, rho, shift, norms2 = 1.0, sigma, np.zeros(m), norms
        curv = np.full(m, L)
    else:
        if not isinstance(P, Preconditioner):
            raise TypeError(f"precondition must be a Preconditioner built by "
                            f"rlmlib.precondition, got {type(P).__name__}")
        if not math.isclose(P.sigma, sigma, rel_tol=1e-12):
            raise ValueError(f"precondition was built for sigma={P.sigma!r}, but sigma="
                             f"{sigma!r}: build it with the solver's sigma")
        _check_beta(P.beta, loss)
        P.check_data(rows)
        U, Q, e, alpha2, rho = P.U_apply, P.Q, P.e, P.alpha2, P.beta
        shift = P.beta * P.shift
        norms2 = P.norms2
        # |phihat_i''| <= max(shift_i, L - shift_i) (logistic: phi'' in (0, L]); squared:
        # phihat_i'' = 1 - shift_i exactly
        curv = np.abs(1.0 - shift) if loss == "squared" else np.maximum(shift, L - shift)
    Lmax = float(np.max(curv * norms2)) + rho
    check_curvature(name, Lmax, "L_max = max_i smoothness * ||x_i||^2 + sigma"
                    + (", preconditioned" if P is not None else ""))
    if step is None:
        step = 1.0 / Lmax
    else:
        step = check_positive("step", step)
        warn_step_limit(name, step, Lmax, "max_i smoothness * ||x_i||^2 + sigma"
                        + (", preconditioned" if P is not None else ""), "1/L_max")
    return dict(code=code, sigma=sigma, rows=rows, y=yf, classes=classes, m=m, U=U,
                Q=np.ascontiguousarray(Q), e=np.ascontiguousarray(e), alpha2=float(alpha2),
                rho=float(rho), shift=shift, step=float(step), Lmax=Lmax, task=prob.task)


def check_curvature(name, Lmax, what):
    """ValueError, before the run, when the largest curvature L_max of one term (``what``
    says how it is formed) is beyond 2^960: the default step 1/L_max would be 0 or
    subnormal, and the run would return w = 0 without a word (X * 1e200 did)."""
    if not Lmax <= 2.0 ** 960:
        raise ValueError(f"X is too large for {name}: {what} = {Lmax:.3g}, beyond 2**960, so "
                         f"the step 1/L_max underflows and w would not move from 0; scale X "
                         f"down")


def warn_step_limit(name, step, Lmax, what, default):
    """``StepLimitWarning`` when a given step exceeds the stability limit 2/L_max of the
    gradient step on one term (``solvers.limits``): refused by no theorem, but the iterates
    may grow; ``what`` says how L_max is formed, ``default`` the step None gives. The one
    message of sag, svrg and saga."""
    if step > 2.0 / Lmax:
        import warnings

        from ..core.problem import _caller_level
        from .limits import StepLimitWarning

        warnings.warn(StepLimitWarning(
            f"{name}: step={step:.6g} exceeds the stability limit 2/L_max = "
            f"{2.0 / Lmax:.3g} (L_max = {what} = {Lmax:.3g}): the iterates may grow and "
            f"the objective end far above F(0); expected step <= {2.0 / Lmax:.3g} (None: "
            f"{default})"), stacklevel=_caller_level())


def row_norms2(rows):
    """||x_i||^2 of every row of a CSR :class:`Rows` (one pass; through the unsigned view
    of indptr, ``unsigned_index``: no wraparound check per entry, 0.7x the time of the
    pass on the RCV1-like set, the same sums)."""
    m = rows.indptr.shape[0] - 1
    return _row_norms2(rows.data, unsigned_index(rows)[1], np.empty(m))
