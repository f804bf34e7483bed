"""SVMSGD2 (Bordes, Bottou and Gallinari 2009, Fig. 1): SGD with scheduled regularization.

Minimizes F(w) = (sigma/2)||w||^2 + (1/m) sum_i loss(<w, x_i>, y_i). The paper's lambda is
our sigma. At global step t = 0, 1, 2, ... with example (x, y):

    z     = <w, x>                                     (margin, before either update)
    count = count - 1
    if count <= 0:  w <- (1 - skip / (t + t0)) w        (regularization, every skip steps, O(n))
                    count = skip
    w <- w - (1 / (sigma (t + t0))) loss'(z; y) x       (loss step, O(d): non-zeros of x only)

The regularization step is taken at the start of the step, on w_t, with the margin computed
before it (the order of the authors' later reference code): with skip = 1 this is plain SGD,
w_{t+1} = (1 - 1/(t + t0)) w_t - eta_t loss'(z) x, exactly. The paper's Fig. 1 applies the
regularization after the loss step of the same example; the two orders differ by
O(eta^2) once every skip steps. ``svmsgd2(..., skip=1)`` is the paper's "SGD" row of Table 5:
the same arithmetic as SGD with a dense regularization step at every example (no scaled
vector), so its cost per pass is O(m n) on sparse data, as in the paper.
"""
import numpy as np
from numba import njit

from ..core.checks import sigma_keyword
from ..core.prefetch import prefetch_ahead
from ..core.problem import Problem
from ..core.rowops import axpy, dot, scale
from .t0 import check_skip, choose_t0
from ..core.losses import loss_deriv


@njit(cache=True)
def svmsgd2_steps(data, indices, indptr, y, w, state, order, start, stop, t_first, sigma,
                  t0, skip, code, dense, look_ahead=True):
    """SVMSGD2 steps on examples order[start:stop]; state[0] is the countdown ``count``.
    Each combination of ``dense`` and ``look_ahead`` runs its own copy of the loop, the
    flags constant in it (tested inside the loop they cost about 15 % of a storage-order
    epoch on sparse rows)."""
    a = (data, indices, indptr, y, w, state, order, start, stop, t_first, sigma, t0, skip,
         code)
    if dense:
        _svmsgd2_loop(a, True, True) if look_ahead else _svmsgd2_loop(a, True, False)
    else:
        _svmsgd2_loop(a, False, True) if look_ahead else _svmsgd2_loop(a, False, False)


@njit(cache=True, inline="always")
def _svmsgd2_loop(args, dense, look_ahead):
    """The loop of :func:`svmsgd2_steps` on its arguments ``args``, inlined with constant
    ``dense`` and ``look_ahead``."""
    (data, indices, indptr, y, w, state, order, start, stop, t_first, sigma, t0, skip,
     code) = args
    count = state[0]
    t = t_first
    for k in range(start, stop):
        i = order[k]
        if look_ahead:  # not for storage order: the hardware streams it
            prefetch_ahead(data, indices, indptr, order, k, stop, not dense)
        a = indptr[i]
        b = indptr[i + 1]
        z = dot(data, indices, a, b, w, dense)       # z = <w_t, x>
        d = loss_deriv(code, z, y[i])               # loss'(z; y)
        count -= 1
        if count <= 0:                              # every skip steps:
            scale(w, 1.0 - skip / (t + t0))         #   w <- (1 - skip/(t+t0)) w
            count = skip
        if d != 0.0:                                # w <- w - loss'(z) x / (sigma (t+t0))
            axpy(data, indices, a, b, w, -d / (sigma * (t + t0)), dense)
        t += 1
    state[0] = count


def _one_pass(p, skip):
    """One pass in storage order over given rows with a given t0 (for t0 selection)."""
    def run(rows, y, t0):
        w = np.zeros(rows.n_features)
        m = rows.indptr.shape[0] - 1
        order = np.arange(m, dtype=np.uint64)
        svmsgd2_steps(rows.data, rows.indices.view(np.uint32), rows.indptr.view(np.uint64),
                      y, w, np.array([float(skip)]), order, 0, m, 0, p.sigma, t0, skip,
                      p.code, p.dense, False)
        return w
    return run


@sigma_keyword
def svmsgd2(X, y, *, sigma, epochs, loss="squared_hinge", t0=None, skip=None, seed=0,
            order="reshuffle", n_checkpoints=None, X_test=None, y_test=None, progress=False):
    """SVMSGD2: SGD whose regularization step is applied every ``skip`` examples.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
        Training rows (dense or any scipy.sparse format).
    y : array-like, shape (m,)
        Two distinct labels (mapped to -1/+1 in sorted order).
    sigma : float > 0
        Regularization weight σ of (σ/2)‖w‖² (the paper's λ).
    epochs : int >= 1
        Passes over the data.
    loss : str, default 'squared_hinge'
        A classification loss of ``rlmlib.LOSSES``.
    t0 : float > 0 or None
        Offset of the gain 1/(σ(t + t0)). None: the paper's selection on a sample of fixed
        size, as Bottou's programs: one pass over min(m, 1000) examples drawn with ``seed``
        for each t0 in 10^0 … 10^10 at or above the stability limit
        L/(2σ), L = smoothness · max‖x‖² + σ, keeping the one whose primal
        is lowest among those that lowered it (a tie at F(0) warns); the value is in
        ``res.params['t0']``; ``res.info`` holds the table, ``t0_sample``, ``t0_seconds``
        and ``t0_tie``. A given t0 far enough below the limit that w can grow a thousandfold
        warns before the run (``rlmlib.solvers.t0.amplification``). On small
        standardized problems ``epochs=100`` reaches a relative gap of 1e-2
        (``tests/test_defaults.py``).
    skip : int >= 1 or None
        Regularization every ``skip`` steps with a ``skip``-times larger gain. None:
        16 n / d (n features, d average non-zero values per row, whatever the storage; 16
        for data without zeros). ``skip=1`` is plain SGD with a dense regularization step
        (the paper's "SGD").
    seed : int >= 0
        Seed of the example order (and of the t0 subset).
    order : {'reshuffle', 'shuffle_once', 'cyclic'}
        Example order (see ``rlmlib.core.order``).
    n_checkpoints : int or None
        None: no intermediate evaluation (the end objective is computed on first access).
        N: an exact trace at N checkpoints.
    X_test, y_test : optional
        A held-out set; the trace then records its accuracy.
    progress : bool
        Show a progress bar (tqdm).

    Returns
    -------
    Result
        ``res.w``, ``res.trace``; ``res.params`` holds sigma, t0, skip and the rest.

    Raises
    ------
    ValueError
        For a bad argument (e.g. ``skip < 1``, ``t0 <= 0``), before any step.
    FloatingPointError
        When the weights overflow.

    Warns
    -----
    ConvergenceWarning
        When the objective ends above F(0) (names t0 or skip).

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    >>> res = rlmlib.svmsgd2(X, [1, 1, -1, -1], sigma=0.1, epochs=20, t0=10.0)
    >>> res.params["skip"]
    32
    >>> bool(res.objective < 0.5)
    True
    """
    p = Problem("svmsgd2", X, y, sigma=sigma, loss=loss, epochs=epochs, seed=seed,
                order=order, n_checkpoints=n_checkpoints, X_test=X_test, y_test=y_test,
                progress=progress, losses="binary")
    skip, skip_default = check_skip(skip, p.rows)
    p.check_scale(*p.minimizer_bound())
    t0, selected, info = choose_t0(p, t0, _one_pass(p, skip), skip, "svmsgd2",
                                   skip_given=not skip_default)
    w = np.zeros(p.n)
    state = np.array([float(skip)])

    def steps(rows, y, indices, indptr, idx, start, stop, t, look_ahead):
        svmsgd2_steps(rows.data, indices, indptr, y, w, state, idx, start, stop, t,
                      p.sigma, t0, skip, p.code, p.dense, look_ahead)

    params = {"sigma": p.sigma, "epochs": p.epochs, "loss": loss, "t0": t0,
              "t0_selected": selected, "skip": skip, "skip_default": skip_default,
              "seed": p.seed, "order": p.order}
    return p.run(steps, lambda: w, params, info=info, hint=schedule_hint(p, t0, skip))


def schedule_hint(p, t0, skip=1):
    """The setting most likely responsible when a scheduled solver (svmsgd2, sgdqn, olbfgs)
    diverges or ends above F(0): a skip longer than the run (regularization never applied),
    a t0 whose first gain 1/(sigma t0) exceeds the stability limit 2 / (max||x||^2 + sigma)
    of a step on these rows, or else t0 as the first suspect.

    Parameters
    ----------
    p : rlmlib.core.problem.Problem
        The checked problem (its R, sigma and step count are used).
    t0 : float
        The t0 of the run.
    skip : int
        The skip of the run (1 for oLBFGS).

    Returns
    -------
    str
        The hint ``Problem.run`` puts into its divergence and end-check messages.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.core.problem import Problem
    >>> from rlmlib.solvers.svmsgd2 import schedule_hint
    >>> p = Problem("svmsgd2", np.eye(2), [1, -1], sigma=0.1, loss="hinge", epochs=1)
    >>> print(schedule_hint(p, 1e4, skip=10)[:33])
    skip=10 exceeds the run's 2 steps
    >>> schedule_hint(p, 1.0)[:8]
    't0=1: th'
    """
    why = []
    if skip > p.total:
        why.append(f"skip={skip} exceeds the run's {p.total} steps, so the regularization "
                   f"step is never applied: pass a smaller skip (None: 16 n / d)")
    if not why or (p.R * p.R + p.sigma) / (p.sigma * t0) > 2.0:
        why.append(f"t0={t0:.6g}: the first gains 1/(sigma (t + t0)) are too long for these "
                   f"rows (max||x|| = {p.R:.3g}); pass a larger t0 (None: the paper's "
                   f"selection) or scale the rows")
    return "; ".join(why)
