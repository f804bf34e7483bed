"""What every solver returns (DESIGN.md, "The solver contract")."""
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Trace:
    """Checkpoints of a run. Arrays of equal length, one entry per checkpoint (the first is the
    starting point). ``seconds`` counts solver time only: evaluating the checkpoints is not
    included (its total is ``eval_seconds``). ``test_metric`` is NaN-free: it is None when no
    test set was given; ``test_metric_name`` says what it holds ('accuracy' or 'mse')."""

    iteration: np.ndarray
    epoch: np.ndarray
    seconds: np.ndarray
    objective: np.ndarray
    test_metric: np.ndarray | None = None
    test_metric_name: str | None = None
    eval_seconds: float = 0.0

    def __len__(self):
        return len(self.iteration)

    def as_dict(self):
        d = {"iteration": self.iteration, "epoch": self.epoch, "seconds": self.seconds,
             "objective": self.objective}
        if self.test_metric is not None:
            d[self.test_metric_name or "test_metric"] = self.test_metric
        return d


@dataclass
class Result:
    """Final weights, the hyperparameters actually used, the label mapping and the trace."""

    w: np.ndarray
    solver: str
    params: dict
    trace: Trace
    classes: np.ndarray | None = None
    info: dict = field(default_factory=dict)

    @property
    def objective(self):
        """Objective of ``w`` (the last checkpoint of the trace)."""
        return float(self.trace.objective[-1])

    def decision_function(self, X):
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
        return (f"Result(solver={self.solver!r}, {ps}, objective={self.objective:.10g}, "
                f"n_features={self.w.shape[0]}, checkpoints={len(self.trace)}, "
                f"seconds={self.trace.seconds[-1]:.4g})")
