"""What every solver returns (DESIGN.md, "The solver contract")."""
import time
from dataclasses import dataclass, field

import numpy as np


class ConvergenceWarning(RuntimeWarning):
    """A run ended where it should not have: its objective is above F(0), the value at the
    starting point w = 0. The message names the setting most likely responsible (a step
    size, t0, eta, skip ...), as the solver tells its driver (DESIGN.md, "The solver
    contract"). Overflow is not a warning: it raises ``FloatingPointError``.

    Attributes
    ----------
    args : tuple
        ``(message,)``: the solver, F(w), F(0), the settings and the suspect.

    Examples
    --------
    >>> import numpy as np, warnings, rlmlib
    >>> X = np.array([[1.0, 0.2], [0.1, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     res = rlmlib.svmsgd2(X * 10, [1, 1, -1, -1], sigma=1.0, epochs=2, t0=0.5)
    >>> [type(c.message).__name__ for c in caught], res.objective > 0.5
    (['StepLimitWarning', 'ConvergenceWarning'], True)
    >>> print(str(caught[1].message)[:51])
    svmsgd2 ended at F(w) = 204.082, above F(0) = 0.5 (
    >>> issubclass(rlmlib.ConvergenceWarning, RuntimeWarning)
    True
    """


#: a checkpoint whose objective exceeds GROWTH_MAX * F(0), after the solver's warm-up, warns
#: at once (the run has grown by orders of magnitude; issue 19, item 2)
GROWTH_MAX = 1e3


def warn_growth(obj, F0, t, warmup, where, suspect, state, stacklevel):
    """Warn when a checkpoint's objective has grown by orders of magnitude.

    Issues :class:`ConvergenceWarning` (once per run: ``state[0]`` records it) when the
    objective ``obj`` at checkpoint step ``t >= warmup`` exceeds GROWTH_MAX · F(0) (F(0) > 0).
    Every run starts at w = 0, so this is a growth by three orders of magnitude over F(0)
    and over the run's minimum so far. The end check only sees the last value; this one,
    called by ``Problem.run`` wherever the solver's trace is evaluated (``n_checkpoints``),
    names the checkpoint and the suspect setting while a long run is still going.

    Parameters
    ----------
    obj, F0 : float
        The checkpoint's objective and F(0).
    t, warmup : int or float
        The checkpoint's step and the steps during which the solver's own iterates may
        legitimately sit that high (Pegasos's first steps 1/(σ t)).
    where : tuple
        (solver name, its settings as text, a callable giving the epoch of step t).
    suspect : str
        The setting most likely responsible (the solver's hint).
    state : list
        ``[warned]``, shared by the run's checkpoints.
    stacklevel : int
        For ``warnings.warn``.

    Returns
    -------
    None

    Examples
    --------
    >>> import warnings
    >>> from rlmlib.core.result import warn_growth
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     state = [False]
    ...     for t, obj in [(0, 0.5), (10, 600.0), (20, 900.0)]:
    ...         warn_growth(obj, 0.5, t, 0, ("sgd", "t0=1", lambda t: t / 10),
    ...                     "t0=1: too long", state, 2)
    >>> len(caught), str(caught[0].message)[:45]
    (1, 'sgd: the objective grew to F(w) = 600 at step')
    """
    if state[0] or t < warmup or not F0 > 0.0 or not obj > GROWTH_MAX * F0:
        return
    state[0] = True
    name, settings, epoch = where
    import warnings
    warnings.warn(ConvergenceWarning(
        f"{name}: the objective grew to F(w) = {obj:.6g} at step {t} (epoch {epoch(t):.3g}), "
        f"more than {GROWTH_MAX:g} times F(0) = {F0:.6g} (w = 0), with {settings}: "
        f"{suspect}"), stacklevel=stacklevel)


class Trace:
    """Checkpoints of a run. Arrays of equal length, one entry per checkpoint (the first is the
    starting point). ``seconds`` counts solver time only: evaluating the checkpoints is not
    included (its total is ``eval_seconds``). ``test_metric`` is None when no test set was
    given; ``test_metric_name`` says what it holds ('accuracy' or 'mse').

    A solver called with its default ``n_checkpoints=None`` records only the start and the
    end, and evaluates the end lazily: the last entries of ``objective`` and ``test_metric``
    are computed (exactly, one pass over the data) the first time either is read, so a call
    that never looks at them costs nothing more than its steps. Until then the trace keeps a
    reference to the training (and test) rows. Pickling or copying forces the evaluation.

    Attributes
    ----------
    iteration : numpy.ndarray of int
        Steps taken at each checkpoint.
    epoch : numpy.ndarray of float
        Passes over the data (examples visited / m) at each checkpoint.
    seconds : numpy.ndarray of float
        Solver time at each checkpoint.
    objective : numpy.ndarray of float
        F(w) at each checkpoint.
    test_metric : numpy.ndarray of float or None
        Held-out accuracy or MSE at each checkpoint.
    test_metric_name : str or None
        'accuracy' or 'mse'.
    eval_seconds : float
        Total time spent evaluating checkpoints.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.array([[1.0, 0.2], [0.1, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    >>> tr = rlmlib.sgd(X, [1, 1, -1, -1], sigma=0.1, epochs=5, n_checkpoints=5).trace
    >>> len(tr), tr.epoch.tolist(), float(tr.objective[0])
    (6, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], 1.0)
    >>> rlmlib.sgd(X, [1, 1, -1, -1], sigma=0.1, epochs=5).trace
    Trace(2 checkpoints, lazy end)
    """

    def __init__(self, iteration, epoch, seconds, objective, test_metric=None,
                 test_metric_name=None, eval_seconds=0.0, pending=None):
        self.iteration = iteration
        self.epoch = epoch
        self.seconds = seconds
        self._objective = objective
        self._test_metric = test_metric
        self.test_metric_name = test_metric_name
        self.eval_seconds = eval_seconds
        self._pending = pending  # evaluate() -> (objective, test_metric) of the last entry
        self.on_settle = None  # called with the end objective once a lazy end is evaluated

    def _settle(self):
        if self._pending is not None:
            evaluate, self._pending = self._pending, None
            t = time.perf_counter()
            obj, tm = evaluate()
            self.eval_seconds += time.perf_counter() - t
            self._objective[-1] = obj
            if self._test_metric is not None:
                self._test_metric[-1] = tm
            if self.on_settle is not None:
                self.on_settle(float(obj))

    @property
    def lazy(self):
        """True while the last checkpoint has not been evaluated yet."""
        return self._pending is not None

    @property
    def objective(self):
        self._settle()
        return self._objective

    @property
    def test_metric(self):
        self._settle()
        return self._test_metric

    def __getstate__(self):
        self._settle()
        state = self.__dict__.copy()
        state["on_settle"] = None  # settled: nothing left to check (and closures do not pickle)
        return state

    def __len__(self):
        return len(self.iteration)

    def __repr__(self):
        state = "lazy end" if self.lazy else f"objective[-1]={self._objective[-1]:.10g}"
        return f"Trace({len(self)} checkpoints, {state})"

    def as_dict(self):
        d = {"iteration": self.iteration, "epoch": self.epoch, "seconds": self.seconds,
             "objective": self.objective}
        if self.test_metric is not None:
            d[self.test_metric_name or "test_metric"] = self.test_metric
        return d


@dataclass
class Result:
    """What every solver returns: the final weights, the hyperparameters actually used, the
    label mapping and the trace.

    Attributes
    ----------
    w : numpy.ndarray, shape (n,)
        The final weights.
    solver : str
        The solver's name.
    params : dict
        Every hyperparameter, as used (e.g. the t0 that :func:`sgd` chose).
    trace : Trace
        The checkpoints.
    classes : numpy.ndarray or None
        The original labels that -1 and +1 stand for (classification).
    info : dict
        Solver-specific facts (e.g. :func:`lbfgs`'s certificate), and for every solver
        ``check_seconds``: the wall seconds of the validation pass over X and y
        (structure, finiteness, scale, labels) that ran before the first step.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.array([[1.0, 0.2], [0.1, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    >>> res = rlmlib.pegasos(X, ["no", "no", "yes", "yes"], sigma=0.1, T=100)
    >>> res.classes.tolist(), res.predict(X).tolist()
    (['no', 'yes'], ['no', 'no', 'yes', 'yes'])
    >>> res.decision_function(X).shape, res.objective_representable
    ((4,), True)
    """

    w: np.ndarray
    solver: str
    params: dict
    trace: Trace
    classes: np.ndarray | None = None
    info: dict = field(default_factory=dict)

    @property
    def objective(self):
        """Objective of ``w`` (the last checkpoint of the trace), exact; computed on first
        access when the run recorded no intermediate checkpoints (one pass over the data)."""
        return float(self.trace.objective[-1])

    @property
    def objective_representable(self):
        """False when F(w) exceeds the largest double (``objective`` is then inf, an honest
        overflow, not a value): inside the validated ranges (DESIGN.md) this cannot happen."""
        return bool(np.isfinite(self.objective))

    def decision_function(self, X):
        """The margins ⟨w, x_i⟩ of the rows of X (:func:`rlmlib.decision_function`)."""
        from .objective import decision_function

        return decision_function(X, self.w)

    def predict(self, X):
        """Original labels for classification (z > 0 -> classes[1]); <w, x> for regression."""
        z = self.decision_function(X)
        if self.classes is None:
            return z
        return np.where(z > 0.0, self.classes[1], self.classes[0])

    def __repr__(self):
        ps = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        obj = (f"{self.objective:.10g}" if self.objective_representable
               else f"{self.objective} (beyond the largest double)")
        return (f"Result(solver={self.solver!r}, {ps}, objective={obj}, "
                f"n_features={self.w.shape[0]}, checkpoints={len(self.trace)}, "
                f"seconds={self.trace.seconds[-1]:.4g})")
