"""The driver every solver runs through: one validated problem and one run loop.

``Problem`` checks the arguments and the data once, before any kernel runs (sigma, loss,
step count, seed, order, checkpoints, X, y, the test set; the data scale through
:meth:`Problem.check_scale` with the bound the solver derives), and :meth:`Problem.run` walks
the example order, takes the checkpoints, watches for divergence, checks the end against
F(0) and returns the ``Result`` (DESIGN.md, "The solver contract" and "Adding a solver").
"""
import math
import time
import warnings

import numpy as np
import scipy.sparse as sp

from .checks import (STEPS_MAX, _is_real, _show, check_condition, check_int, check_seed,
                     check_sigma, check_steps)
from .losses import LOSSES, loss_code, loss_derivs, loss_task, loss_values
from .pnorm import _scaled_norm
from .order import COPY_FROM_EPOCHS, ORDERS, ExampleStream, check_order, permute_rows
from .result import ConvergenceWarning, Result, warn_growth
from .rows import (check_scale, check_test_set, check_X_y, is_compact, n_rows, row_scale,
                   unsigned_index)
from .runner import check_checkpoints, holdout_metric, run_checkpointed

#: at most this many steps per call of ``steps`` in T mode (bounded memory for any T)
CHUNK = 1 << 20
#: keys of ``params`` that are bookkeeping, not settings (left out of messages)
_NOT_SETTINGS = ("seed", "order", "iterate")


def chunks(a, b, k):
    """Split steps a, ..., b − 1 into pieces of at most 2^20 / k steps.

    The indices drawn for one kernel call then take bounded memory however large T is.

    Parameters
    ----------
    a, b : int
        First step and one past the last.
    k : int >= 1
        Examples per step.

    Returns
    -------
    generator of (int, int)
        Consecutive half-open ranges (c, d) that cover [a, b).

    Examples
    --------
    >>> from rlmlib.core.problem import chunks
    >>> list(chunks(0, 5, 2 ** 19))
    [(0, 2), (2, 4), (4, 5)]
    """
    step = max(1, CHUNK // k)
    for c in range(a, b, step):
        yield c, min(b, c + step)


def l1_objective_rows(rows, y, w, sigma, code):
    """sigma ||w||_1 + mean loss on checked rows (no checks)."""
    from .objective import decision_function_rows

    z = decision_function_rows(rows, w) if w.any() else np.zeros(y.shape[0])
    return sigma * float(np.abs(w).sum()) + float(np.mean(loss_values(code, z, y,
                                                                      np.empty_like(z))))


class Problem:
    """The checked inputs of one solver call and its run loop.

    Parameters (keyword-only after X, y)
    ------------------------------------
    name : str
        The solver's name (messages, progress bar, ``Result.solver``).
    X, y
        As the solver received them.
    sigma : float
        Checked by ``check_sigma`` ([2^-1022, 2^960]); ``sigma_zero=True`` also allows 0.
    loss : str
        A name of ``LOSSES``; ``losses`` restricts it: a tuple of names, or ``"binary"``
        (classification losses only) / ``"regression"``; None allows every loss.
    epochs : int or None
        Epoch mode: ``epochs * m`` steps of one example, ``check_steps`` on the product.
    T, k : int or None, int
        T mode: ``T`` steps of ``k`` examples (``check_steps`` on ``T * k``). Neither epochs
        nor T: a solver with its own loop (``lbfgs``); ``run`` is then unavailable.
    seed, order, orders
        ``check_seed``; ``order`` must be one of ``orders`` (the solver's allowed set; its
        default is the solver's signature's).
    n_checkpoints, X_test, y_test, progress
        As in every solver (DESIGN.md, "The solver contract").
    p : float
        Exponent of the regularizer ``||w||_p^2 / (2(p-1))`` (``check_p``); ``penalty="l1"``
        makes the objective ``sigma ||w||_1 + mean loss`` instead.
    compact_dense : bool
        Dense X as compact rows (kernels with a ``dense`` flag) or as a CSR view (default
        True; ``self.dense`` tells which the kernel got).
    keep_float32 : bool
        A float32 sparse X keeps its float32 values (``rlmlib.core.rows.as_rows``): only for
        solvers whose kernels widen each entry exactly (lbfgs).
    """

    def __init__(self, name, X, y, *, sigma, loss, epochs=None, T=None, k=1, seed=0,
                 order="reshuffle", orders=ORDERS[:3], n_checkpoints=None, X_test=None,
                 y_test=None, progress=False, losses=None, sigma_zero=False, p=2.0,
                 penalty="l2", compact_dense=True, keep_float32=False):
        from .objective import check_p

        self.name = name
        self.code = loss_code(loss)
        self.loss = loss
        self.task = loss_task(loss)
        _check_loss(name, loss, self.task, losses)
        self.p = 2.0 if p == 2.0 and penalty == "l2" else check_p(p)
        self.penalty = penalty
        if sigma_zero and _is_real(sigma) and sigma == 0:
            self.sigma = 0.0
        else:
            try:
                self.sigma = check_sigma(sigma)
            except ValueError as e:  # the same message, saying that 0 is allowed too
                if not sigma_zero:
                    raise
                raise ValueError(f"{e} (or 0: no regularization)") from None
        self.epochs = None if epochs is None else check_int("epochs", epochs)
        self.T = None if T is None else check_int("T", T)
        self.k = check_int("k", k)
        if self.T is not None:
            check_steps("T", self.T * self.k, "T * k")
        self.seed = check_seed(seed)
        self.order = check_order(order, orders)
        self.look_ahead = self.order != "cyclic"  # storage order: the hardware streams it
        self.n_checkpoints = check_checkpoints(n_checkpoints)
        if not isinstance(progress, (bool, np.bool_)):
            raise TypeError(f"progress must be True or False, got {_show(progress)}")
        self.progress = bool(progress)
        start = time.perf_counter()
        self.rows, self.y, self.classes = check_X_y(X, y, task=self.task,
                                                     compact_dense=compact_dense,
                                                     keep_float32=keep_float32)
        self.check_seconds = time.perf_counter() - start  # res.info["check_seconds"]
        self.dense = is_compact(self.rows)  # m = 1 dense rows are valid CSR rows too
        self.m = n_rows(self.rows)
        self.n = self.rows.n_features
        if self.epochs is not None:
            self.total = check_steps("epochs", self.epochs * self.m, "epochs * m")
            self.per_epoch = self.m
        elif self.T is not None:
            self.total, self.per_epoch = self.T, self.m / self.k
        else:
            self.total = self.per_epoch = None
        self.test = check_test_set(X_test, y_test, self.n, self.task, self.classes)
        self.inner = None  # stage mode (set_stages): steps per stage
        self._stats = None
        self._zmax = None
        self._F0 = None

    # ------------------------------------------------------------------ data scale
    @property
    def stats(self):
        """(max_i ||x_i||_2, smallest non-zero |x_ij|), one pass over X, computed once."""
        if self._stats is None:
            self._stats = row_scale(self.rows)
        return self._stats

    @property
    def R(self):
        """max_i ||x_i||_2 (inf when beyond the double range)."""
        return self.stats[0]

    @property
    def F0(self):
        """F(0) = the mean loss at w = 0, computed once (no pass over X; O(1) for a margin
        loss, see ``core.objective.mean_loss_at_zero``)."""
        if self._F0 is None:
            from .objective import mean_loss_at_zero

            self._F0 = float(mean_loss_at_zero(self.code, self.y))
        return self._F0

    def minimizer_bound(self):
        """(W, why) with W = sqrt(2 (p-1) F(0) / sigma) >= ||w*||_2 (sigma r(w*) <= F(w*) <=
        F(0)): the bound of solvers whose iterates have none of their own (their overflow
        along the run is caught by the divergence check)."""
        W = math.sqrt(2.0 * (self.p - 1.0) * self.F0 / self.sigma) if self.p != 2.0 else \
            math.sqrt(2.0 * self.F0 / self.sigma)
        return W, "sqrt(2 F(0) / sigma)" if self.p == 2.0 else "sqrt(2 (p-1) F(0) / sigma)"

    def check_scale(self, W, why, extra=()):
        """The data-scale check (``core.rows.check_scale``) with the solver's bound ``W`` on
        ||w||_2 over the run and its derivation ``why`` (e.g. '1/sqrt(sigma)'); ``extra``:
        further (value, description) the kernel forms, each <= 2^960. ``W=None``: the solver
        has no a-priori bound (its overflow is left to the divergence check); only a finite
        row norm is required. Must be called before :meth:`run`. Returns R. First, unless the
        penalty is l1 (no curvature), the condition number beta R^2 / sigma <= 2^52
        (``check_condition``, one rule for every solver)."""
        R = self.R
        if self.penalty != "l1" and math.isfinite(R):
            beta = LOSSES[self.loss]["smoothness"]
            check_condition(self.name, self.sigma, R, beta if math.isfinite(beta) else 1.0)
        if W is None:
            if not math.isfinite(R):
                check_scale(self.rows, self.y, self.code, 1.0, "1", self.name,
                            stats=self.stats)
            self._zmax = (R, math.inf)
            return R
        check_scale(self.rows, self.y, self.code, W, why, self.name, extra, stats=self.stats)
        self._zmax = (R, max(R * W, 1.0))  # margins beyond R W: the run left the range
        return R

    # ------------------------------------------------------------------ stages
    def set_stages(self, inner):
        """Stage mode (SVRG's outer loop): the run's unit becomes a stage, a snapshot (one
        pass, the ``snapshot()`` given to :meth:`run`) then ``inner`` steps of one example.
        The epoch budget buys ``ceil(epochs / (1 + inner/m))`` stages; ``total`` counts
        stages and ``per_epoch = m / (m + inner)`` of them make a pass. Checks ``inner``
        (an integer in [1, 2^53]) and ``stages * inner`` (``check_steps``) before anything
        runs. Returns the number of stages."""
        if self.epochs is None:
            raise RuntimeError(f"{self.name}: stages need epoch mode")
        self.inner = check_int("inner", inner, 1, STEPS_MAX)
        stages = math.ceil(self.epochs / (1.0 + self.inner / self.m))
        check_steps("inner", stages * self.inner, "stages * inner")
        self.total, self.per_epoch = stages, self.m / (self.m + self.inner)
        return stages

    # ------------------------------------------------------------------ the run
    def unsigned(self):
        """(indices, indptr) as unsigned views for the kernels."""
        return unsigned_index(self.rows)

    def stream(self):
        """A fresh :class:`ExampleStream` of this problem's order and seed."""
        return ExampleStream(self.m, self.order, self.seed)

    def objective(self, w):
        """F(w) on the training rows (no checks)."""
        from .objective import objective_rows

        if self.penalty == "l1":
            return l1_objective_rows(self.rows, self.y, w, self.sigma, self.code)
        return objective_rows(self.rows, self.y, w, self.sigma, self.code, self.p)

    def lower_bound(self, w):
        """sigma r(w) <= F(w) (every loss is >= 0), O(n)."""
        from .objective import sigma_r

        if self.penalty == "l1":
            return self.sigma * float(np.abs(w).sum())
        return float(sigma_r(w, self.sigma, self.p))

    def walker(self, steps, copy_rows=True, snapshot=None):
        """``advance(t_begin, t_end)``: steps t_begin .. t_end-1 through
        ``steps(rows, y, indices, indptr, idx, start, stop, t, look_ahead)``.

        Stage mode (:meth:`set_stages`): t_begin .. t_end-1 are stages; each calls
        ``snapshot()`` and then walks ``inner`` examples of the order (t counts the steps of
        one example before them, the rows stay in storage order).

        Epoch mode: ``idx[start:stop]`` are the examples of steps t .. t+stop-start-1, never
        crossing an epoch. With ``order='shuffle_once'`` and at least ``COPY_FROM_EPOCHS``
        epochs (and ``copy_rows``) the rows are copied once into the permuted order and
        walked in storage order (same steps to the bit). T mode: ``idx`` holds the
        ``(stop - start) = k * steps`` examples of steps t+1 .. (chunks of <= 2^20 / k
        steps), t counts the steps done before."""
        ind, ptr = self.unsigned()
        walk = [self.rows, self.y, ind, ptr, self.stream(), self.look_ahead]
        if self.T is not None:
            k = self.k

            def advance(a, b):
                rows, y, ind, ptr, stream, look = walk
                for c, d in chunks(a, b, k):
                    batch = stream.take((d - c) * k)  # uint64: see unsigned_index
                    steps(rows, y, ind, ptr, batch, 0, batch.shape[0], c, look)
            return advance
        if self.inner is not None:
            inner = self.inner

            def advance(a, b):
                rows, y, ind, ptr, stream, look = walk
                for stage in range(a, b):
                    snapshot()
                    t = stage * inner
                    for idx, start, stop in stream.segments(inner):
                        steps(rows, y, ind, ptr, idx, start, stop, t, look)
                        t += stop - start
            return advance
        copy = copy_rows and self.order == "shuffle_once" and self.epochs >= COPY_FROM_EPOCHS
        m = self.m

        def advance(a, b):
            if copy and a == 0:  # timed: the copy is part of the solver's work
                prow, py = permute_rows(self.rows, self.y, self.stream().take(self.m))
                walk[:] = [prow, py, *unsigned_index(prow),
                           ExampleStream(self.m, "cyclic", self.seed), False]
            rows, y, ind, ptr, stream, look = walk
            t = a
            for idx, start, stop in stream.segments(b - a):
                # a block of uniform draws ('replacement') spans epochs: cut it at each
                # epoch's end, so that no piece crosses one (what kernels with per-epoch
                # state, SDCA's shrinking and its m-long scratch, rely on)
                while start < stop:
                    end = min(stop, start + m - t % m)
                    steps(rows, y, ind, ptr, idx, start, end, t, look)
                    t += end - start
                    start = end
        return advance

    def run(self, steps, get_w, params, *, info=None, on_checkpoint=None, hint=None,
            copy_rows=True, state=None, snapshot=None, warmup=0):
        """Run the ``total`` steps with checkpoints; return the Result.

        ``steps``: see :meth:`walker`. ``get_w()`` returns the current weights (a new array
        or one the solver keeps; it is copied into the Result). ``params``: every
        hyperparameter as used. ``info``: solver facts for ``res.info`` (which also holds
        ``check_seconds``, the wall seconds of the validation pass). ``on_checkpoint()``
        is called after each evaluation. ``state()`` returns the arrays whose finiteness is
        checked after each segment of steps (default ``get_w()``; give it when ``get_w``
        costs more than a look or changes the solver's state). ``copy_rows``: see
        :meth:`walker`. ``snapshot()``: stage mode only (:meth:`set_stages`), called at the
        start of every stage. ``hint`` names the setting most likely responsible
        when the run diverges, grows by orders of magnitude or ends above F(0) (e.g. 't0=10:
        the first steps 1/(sigma (t + t0)) are too long for these rows; pass a larger t0').
        ``warmup``: the steps before which a checkpoint's growth is not checked
        (``core.result.warn_growth``: with ``n_checkpoints``, a checkpoint above 1e3 F(0)
        warns at once).

        Raises FloatingPointError when the weights or the objective overflow (at the end of
        each segment, at each checkpoint, and at the end when ||x|| ||w|| left the range
        :meth:`check_scale` validated); warns :class:`ConvergenceWarning` when the objective
        ends above F(0): at once when sigma r(w) > F(0) certifies it (O(n), no pass over
        X), otherwise when the end objective is evaluated (at the last checkpoint, or on
        first access of a lazy ``res.objective``).
        """
        if self.total is None:
            raise RuntimeError(f"{self.name}: Problem.run needs epochs or T")
        if self._zmax is None:
            raise RuntimeError(f"{self.name} must call Problem.check_scale before run "
                               f"(DESIGN.md, 'Adding a solver')")
        if (snapshot is None) != (self.inner is None):
            raise RuntimeError(f"{self.name}: Problem.run takes snapshot= exactly in stage "
                               f"mode (set_stages)")
        settings = ", ".join(f"{k}={v!r}" for k, v in params.items()
                             if k not in _NOT_SETTINGS and not k.endswith(
                                 ("_heuristic", "_selected", "_default")))
        hint = hint or "the steps are too long for this data: scale the rows"
        m, name = self.per_epoch, self.name
        done = [0]
        walk = self.walker(steps, copy_rows, snapshot)
        unit = "step" if self.inner is None else "stage"

        def state_arrays():
            return (get_w(),) if state is None else state()

        def diverged(t):
            raise FloatingPointError(
                f"{name} diverged: the weights or the objective overflowed by {unit} {t} "
                f"(epoch {t / m:.3g}) with {settings}; {hint}")

        def advance(a, b):
            walk(a, b)
            done[0] = b
            if not all(np.isfinite(a).all() for a in state_arrays()):
                diverged(b)

        def evaluate():
            w = get_w()
            obj = self.objective(w)
            if not np.isfinite(obj):
                diverged(done[0])
            if self.n_checkpoints is not None:  # growth by orders of magnitude: warn now
                warn_growth(obj, F0, done[0], warmup, (name, settings, lambda t: t / m),
                            hint, grew, _caller_level())
            if on_checkpoint is not None:
                on_checkpoint()
            return obj, holdout_metric(self.test, w, self.task)

        F0 = self.F0
        warned, grew = [False], [False]

        def check_end(obj, at_least=False):
            if not warned[0] and obj > F0 and obj - F0 > 1e-12 * max(1.0, abs(F0)):
                warned[0] = True
                warnings.warn(ConvergenceWarning(
                    f"{name} ended at F(w) {'>=' if at_least else '='} {obj:.6g}, above "
                    f"F(0) = {F0:.6g} (w = 0) with {settings}: {hint}"),
                    stacklevel=_caller_level())

        trace = run_checkpointed(advance, self.total, self.per_epoch, evaluate,
                                 self.n_checkpoints, self.progress, desc=name,
                                 test_metric_name="mse" if self.task == "regression"
                                 else "accuracy", unit=unit)
        w = get_w().copy()
        if trace.lazy:
            R, bound = self._zmax
            # ||w|| = M nu (M = max|w_i|) in one numba pass without temporaries (each
            # n-vector cost ~0.1 ms of page faults, 0.02 SpMV in all); not np.linalg.norm:
            # BLAS ddot wakes its threads (54 ms a call on the loaded 2-core machine)
            M, nu = _scaled_norm(w, 2.0)
            if M > 0.0 and R * (M * nu) > bound:  # false for a NaN or inf in w, as before
                trace.objective  # settle now: evaluate() raises if it overflowed
            else:
                trace.on_settle = check_end
                lb = self.lower_bound(w)
                if lb > F0:  # certainly above F(0), without a pass over X
                    check_end(lb, at_least=True)
        if not trace.lazy:
            check_end(float(trace.objective[-1]))
        self._check_moved(w, params, _caller_level())
        info = {} if info is None else info  # the solver's own dict: it may add to it later
        info["check_seconds"] = self.check_seconds
        return Result(w=w, solver=name, params=params, trace=trace,
                      classes=self.classes, info=info)

    def _check_moved(self, w, params, stacklevel):
        """ConvergenceWarning when a step setting too short to move w left it at its start:
        some t0/step/eta/eta0 in ``params`` makes the first step eta_1 (1/(sigma t0) for t0)
        at least 2^40 shorter than 1/L (L = beta R^2 + sigma), the end w is so close to
        w = 0 that F(w) = F(0) to rounding (mean|l'(0)| m R ||w|| <= 2^-52 F(0)), and F could
        drop by more than 2^-40 F(0) (||g||^2 / (2L), g = grad F(0), soft-thresholded by
        sigma for the l1 penalty). Names those settings. O(n) unless all that holds up to
        the gradient; then one pass over X. p = 2 only (r is not smooth for p < 2)."""
        l1 = self.penalty == "l1"
        beta = LOSSES[self.loss]["smoothness"]
        R = self.R  # R * R, not R ** 2: inf rather than OverflowError (l1 rows may be huge)
        L = (beta if math.isfinite(beta) else 1.0) * R * R + (0.0 if l1 else self.sigma)
        short = [k for k in ("step", "eta", "eta0", "t0") if _is_real(params.get(k)) and
                 (1.0 / (self.sigma * params[k]) if k == "t0" else params[k]) * L
                 <= 2.0 ** -40]
        if not short or self.p != 2.0:
            return
        F0 = self.F0
        if not F0 > 0.0:
            return
        M, nu = _scaled_norm(w, 2.0)  # ||w|| = M nu, as the end check above
        norm = M * nu
        z = np.zeros(self.m)
        d = loss_derivs(self.code, z, self.y, np.empty_like(z)) / self.m
        if float(np.sum(np.abs(d))) * self.R * norm > 2.0 ** -52 * F0:
            return  # F(w) differs from F(0) by more than its rounding: the run moved
        r = self.rows
        A = (r.data.reshape(self.m, self.n) if is_compact(r) else
             sp.csr_matrix((r.data, r.indices, r.indptr), shape=(self.m, self.n)))
        g = np.asarray(A.T @ d).ravel()
        if l1:
            g = np.sign(g) * np.maximum(np.abs(g) - self.sigma, 0.0)
        gn = float(np.linalg.norm(g))
        drop = gn * gn / (2.0 * L) if L > 0.0 else 0.0
        if not drop > 2.0 ** -40 * F0:
            return  # w = 0 is (numerically) optimal: not moving is right
        warnings.warn(ConvergenceWarning(
            f"{self.name} did not move: it ended at ||w|| = {norm:.3g} from its start w = 0, "
            f"F(w) = F(0) = {F0:.6g} to rounding, while ||grad F(0)|| = {gn:.3g}"
            f"{' beyond sigma' if l1 else ''} (F can drop by at least {drop:.3g}); the step "
            f"setting {', '.join(f'{k}={params[k]!r}' for k in short)} makes the steps at "
            f"least 2**40 shorter than 1/L = {1.0 / L:.3g}: pass a "
            f"{'smaller' if short[0] == 't0' else 'larger'} {short[0]}"
            + (" (the solver's default choice)" if any(params.get(f) is True for f in (
                "t0_heuristic", "t0_selected", "default")) else "")),
            stacklevel=stacklevel + 1)

def _caller_level():
    """The ``stacklevel`` of the first frame outside rlmlib, counted from the function that
    calls this one (so a warning points at the user's line, whether it is issued during the
    call or when a lazy end objective is first read)."""
    import os
    import sys

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(here):
        frame, level = frame.f_back, level + 1
    return level


def _check_loss(name, loss, task, losses):
    """``loss`` among the solver's ``losses`` (a tuple of names, 'binary', 'regression')."""
    if losses is None:
        return
    if losses in ("binary", "regression"):
        if task != losses:
            kind = "a classification" if losses == "binary" else "a regression"
            ok = [k for k, v in LOSSES.items() if v["task"] == losses]
            raise ValueError(f"loss must be {kind} loss for {name} "
                             f"({', '.join(map(repr, ok))}), got {loss!r}")
        return
    if loss not in losses:
        raise ValueError(f"loss must be one of {', '.join(map(repr, losses))}; got "
                         f"{_show(loss)}")
