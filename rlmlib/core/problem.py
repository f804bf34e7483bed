"""The driver every solver runs through: one validated problem and one run loop.

``Problem`` checks the arguments and the data once, before any kernel runs, and ``run``
walks the example order, takes the checkpoints, watches for divergence and returns the
``Result`` (DESIGN.md, "The solver contract").
"""
import numpy as np

from .checks import check_int, check_positive, check_seed, check_steps
from .losses import loss_code, loss_task
from .order import ExampleStream, check_order
from .result import Result
from .rows import check_test_set, check_X_y, is_compact, n_rows, unsigned_index
from .runner import check_checkpoints, make_evaluate, run_checkpointed


class Problem:
    """Checked inputs shared by the scheduled solvers (built once per call)."""

    def __init__(self, X, y, sigma, epochs, loss, seed, order, n_checkpoints, X_test,
                 y_test):
        self.code = loss_code(loss)
        self.loss = loss
        self.sigma = check_positive("sigma", sigma)
        self.epochs = check_int("epochs", epochs)
        self.seed = check_seed(seed)
        self.order = check_order(order)
        self.look_ahead = self.order != "cyclic"  # storage order: the hardware streams it
        self.n_checkpoints = check_checkpoints(n_checkpoints)
        self.task = loss_task(loss)
        if self.task != "binary":
            raise ValueError(f"loss must be a classification loss for these solvers, got "
                             f"{loss!r}")
        self.rows, self.y, self.classes = check_X_y(X, y, task="binary", compact_dense=True)
        self.dense = is_compact(self.rows)  # m = 1 dense rows are valid CSR rows too
        self.test = check_test_set(X_test, y_test, self.rows.n_features, self.task,
                                   self.classes)
        self.m = n_rows(self.rows)
        self.n = self.rows.n_features
        check_steps("epochs", self.epochs * self.m, "epochs * m")

    def run(self, name, steps, get_w, params, info=None, on_checkpoint=None, progress=False):
        """Run ``steps(idx, start, stop, t)`` over epochs * m steps in the chosen order,
        with checkpoints; return the Result."""
        rows, m = self.rows, self.m
        stream = ExampleStream(m, self.order, self.seed)
        done = [0]

        def advance(t_begin, t_end):
            t = t_begin
            for idx, start, stop in stream.segments(t_end - t_begin):
                steps(idx, start, stop, t)
                t += stop - start
            done[0] = t_end
            if not np.isfinite(get_w()).all():
                diverged(t_end)

        def diverged(t):
            raise FloatingPointError(
                f"{name} diverged: the weights or the objective overflowed by step {t} "
                f"(epoch {t / m:.3g}) with sigma={self.sigma}, params={params}: the first "
                f"steps are too long for this data; scale the rows or pass a larger t0")

        evaluate_w = make_evaluate(rows, self.y, self.sigma, self.code, 2.0, self.test,
                                   self.task, get_w)

        def evaluate():
            obj, tm = evaluate_w()
            if not np.isfinite(obj):
                diverged(done[0])
            if on_checkpoint is not None:
                on_checkpoint()
            return obj, tm

        trace = run_checkpointed(advance, self.epochs * m, m, evaluate, self.n_checkpoints,
                                 progress, desc=name, test_metric_name="accuracy")
        return Result(w=get_w().copy(), solver=name, params=params, trace=trace,
                      classes=self.classes, info=info or {})

    def unsigned(self):
        """(indices, indptr) as unsigned views for the kernels."""
        return unsigned_index(self.rows)
