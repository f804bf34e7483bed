"""Run a solver between checkpoints, timing only the solver (DESIGN.md, "The solver contract").

``advance(t_begin, t_end)`` performs steps t_begin .. t_end-1 in place (timed);
``evaluate()`` returns ``(objective, test_metric_or_None)`` at a checkpoint (not timed).
Solvers draw their random numbers in blocks that do not depend on where the checkpoints fall
(e.g. one permutation per epoch), so a run's result does not depend on ``n_checkpoints``.
"""
import sys
import time

import numpy as np

from .result import Trace


def checkpoints(total_steps, n_checkpoints):
    """0 and n_checkpoints step counts spread evenly up to total_steps (distinct, sorted)."""
    k = min(int(n_checkpoints), int(total_steps))
    pts = np.unique(np.round(np.linspace(0, total_steps, k + 1)).astype(np.int64))
    return pts


def run_checkpointed(advance, total_steps, steps_per_epoch, evaluate, n_checkpoints=None,
                     progress=False, desc="", test_metric_name=None, unit="step"):
    """Alternate timed ``advance`` calls and untimed ``evaluate`` calls; return a Trace.

    ``n_checkpoints=None`` (the solvers' default): the start is evaluated (cheap: every solver
    starts at w = 0, where no margin needs the data) and the end is left to the Trace to
    evaluate lazily, so a default call costs its steps only. An integer N gives an exact trace
    at N checkpoints spread evenly over the steps, each costing one pass over the training
    rows (and one over the test rows when a test set is given).
    """
    lazy = n_checkpoints is None
    pts = checkpoints(total_steps, 1 if lazy else n_checkpoints)
    bar = None
    if progress:
        from tqdm.auto import tqdm  # lazy: only when a bar is asked for

        bar = tqdm(total=int(total_steps), desc=desc, file=sys.stdout, unit=unit)
        if lazy:  # about 20 updates of the bar, no evaluation in between
            pts = checkpoints(total_steps, 20)
    its, secs, objs, tests = [], [], [], []
    elapsed = 0.0
    eval_seconds = 0.0

    def record(t):
        nonlocal eval_seconds
        e0 = time.perf_counter()
        obj, tm = evaluate()
        eval_seconds += time.perf_counter() - e0
        its.append(t)
        secs.append(elapsed)
        objs.append(obj)
        tests.append(tm)

    record(0)
    for a, b in zip(pts[:-1], pts[1:]):
        t_start = time.perf_counter()
        advance(int(a), int(b))
        elapsed += time.perf_counter() - t_start
        if bar is not None:
            bar.update(int(b - a))
        if not lazy:
            record(int(b))
    if bar is not None:
        bar.close()
    if lazy:
        its.append(int(pts[-1]))
        secs.append(elapsed)
        objs.append(np.nan)  # filled by the Trace on first access
        tests.append(np.nan if tests[0] is not None else None)
    it = np.asarray(its, dtype=np.int64)
    has_test = tests[0] is not None
    return Trace(
        iteration=it,
        epoch=it / float(steps_per_epoch),
        seconds=np.asarray(secs, dtype=np.float64),
        objective=np.asarray(objs, dtype=np.float64),
        test_metric=np.asarray(tests, dtype=np.float64) if has_test else None,
        test_metric_name=test_metric_name if has_test else None,
        eval_seconds=eval_seconds,
        pending=evaluate if lazy else None,
    )


def check_checkpoints(n_checkpoints):
    """``None`` (lazy end only) or an integer >= 1."""
    from .checks import check_n_checkpoints

    return check_n_checkpoints(n_checkpoints)


def holdout_metric(test, w, task):
    """Accuracy (binary) or mean squared error (regression) of w on ``test = (Rows, y)``,
    None when there is no test set."""
    if test is None:
        return None
    from .objective import decision_function_rows

    z = decision_function_rows(test[0], w)
    if task == "regression":
        r = z - test[1]
        return float(np.dot(r, r) / r.shape[0])
    return float(np.mean(np.where(z > 0.0, 1.0, -1.0) == test[1]))


def make_evaluate(rows, y, sigma, code, p, test, task, get_w):
    """The usual ``evaluate`` of a solver whose current weights ``get_w()`` returns: the
    objective, and the accuracy (binary) or mean squared error (regression) on
    ``test = (Rows, y)`` when a test set is given (else None)."""
    from .objective import objective_rows

    def evaluate():
        w = get_w()
        return objective_rows(rows, y, w, sigma, code, p), holdout_metric(test, w, task)

    return evaluate
