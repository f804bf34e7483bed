"""scikit-learn compatible wrapper around any rlmlib solver (DESIGN.md, "Estimators").

    clf = RLMClassifier(solver="sgd", sigma=1e-4, epochs=5, loss="logistic")
    clf.fit(X, y).score(X_test, y_test)
    GridSearchCV(RLMClassifier(solver="sgd", epochs=5), {"sigma": [1e-3, 1e-4]})

The keyword arguments are the solver's own hyperparameters (``rlmlib.<solver>``'s keyword
arguments), stored as attributes so ``get_params``/``set_params``/``clone`` work as for any
scikit-learn estimator. Two classes are solved directly (labels mapped to -1/+1 in sorted
order); more than two one-vs-rest, one binary problem per class. No intercept is fitted
(``intercept_`` is 0): add a constant column or centre the data.
"""
import inspect

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from .core.checks import _show

# defaults for required hyperparameters, so RLMClassifier(solver=...) is constructible
_DEFAULTS = {
    "sgd": {"sigma": 1e-4, "epochs": 5},
    # an estimator's stopping rule, scikit-learn's LogisticRegression's: L-BFGS-B's own test
    # max|grad F| <= 1e-4 (or a relative decrease below 64 eps), at most 100 iterations.
    # The certificate stays one argument away: stop="certified" with tol the relative gap
    # (rlmlib.lbfgs's own default, tol 1e-10 and 20,000 iterations, a reference; DESIGN.md
    # "lbfgs at scikit-learn's pace")
    "lbfgs": {"sigma": 1e-4, "loss": "logistic", "stop": "gradient", "tol": 1e-4,
              "max_iter": 100},
}
_RESERVED = {"X", "y", "X_test", "y_test", "progress", "n_checkpoints"}


def _solver_function(solver):
    import rlmlib

    f = rlmlib.SOLVERS.get(solver) if isinstance(solver, str) else None
    if f is None:
        raise ValueError(f"solver must be the name of a registered rlmlib solver (one of "
                         f"{', '.join(map(repr, rlmlib.SOLVERS))}); got {_show(solver)}")
    return f


def _solver_params(f):
    return [p.name for p in inspect.signature(f).parameters.values()
            if p.kind == p.KEYWORD_ONLY and p.name not in _RESERVED]


def _loss_of(est):
    """The loss the estimator's solver uses (its keyword, else the solver's default)."""
    if "loss" in vars(est):
        return est.loss
    if est.solver in _DEFAULTS and "loss" in _DEFAULTS[est.solver]:
        return _DEFAULTS[est.solver]["loss"]
    prm = inspect.signature(_solver_function(est.solver)).parameters.get("loss")
    return None if prm is None else prm.default


def _check_fit_inputs(est, X):
    """Before scikit-learn touches X: the shared O(nnz) check of a sparse structure (scipy's
    converters would read a malformed one out of bounds), and a classification loss (a
    regression loss would fit the labels as numbers)."""
    from .core.rows import _check_structure, _is_sparse
    from .core.losses import LOSSES

    if _is_sparse(X):
        _check_structure(X, "X")
    _refuse_complex(X)
    loss = getattr(est, "loss", None)
    if isinstance(loss, str) and loss in LOSSES and LOSSES[loss]["task"] != "binary":
        classification = [k for k, v in LOSSES.items() if v["task"] == "binary"]
        raise ValueError(f"loss={loss!r} is a regression loss; RLMClassifier needs a "
                         f"classification loss: one of {', '.join(map(repr, classification))}")


def _refuse_complex(X):
    """ValueError for complex X naming it (scikit-learn's own message names no argument and
    prints the whole array; its estimator checks expect a ValueError saying "Complex data
    not supported", which this message keeps)."""
    dtype = getattr(X, "dtype", None)     # arrays, sparse matrices, pandas Series
    if dtype is None and not hasattr(X, "dtypes"):    # lists (not numpy functions: array
        try:                                          # likes may refuse them)
            dtype = np.asarray(X).dtype
        except Exception:  # noqa: BLE001 - ragged input: scikit-learn's check names it
            return
    if isinstance(dtype, np.dtype) and dtype.kind == "c":
        raise ValueError(f"X must hold real numbers, got complex values of dtype {dtype} "
                         f"(Complex data not supported): pass the real part or the modulus "
                         f"explicitly")


class RLMClassifier(LinearClassifierMixin, ClassifierMixin, BaseEstimator):
    """Linear classifier trained by the rlmlib solver ``solver`` with its hyperparameters.

    The model is ``sign(<w, x>)``: **no intercept is fitted** (``intercept_`` is 0), so add a
    constant column or centre the data. Two classes are solved directly, more one-vs-rest.

    Parameters
    ----------
    solver : str, default 'sgd'
        Name of a registered solver (a key of ``rlmlib.SOLVERS``: 'sgd', 'pegasos', 'pgs',
        'lbfgs', ...); anything else raises a ValueError listing them.
    **params
        The solver's keyword arguments (``sigma``, ``epochs``, ``loss``, ``p``, ...), stored
        as attributes so that ``get_params``, ``set_params`` and ``clone`` work. Defaults
        for solvers that have no default of their own: 'sgd' σ = 1e-4, 5 epochs; 'lbfgs'
        σ = 1e-4, logistic loss and an estimator's stop, scikit-learn's
        ``LogisticRegression``'s (``stop="gradient"``: max|∂F/∂w_j| <= ``tol`` = 1e-4, at
        most ``max_iter`` = 100 iterations); a certified relative gap instead with
        ``RLMClassifier(solver="lbfgs", stop="certified", tol=1e-10, max_iter=20000)``
        (``rlmlib.lbfgs``'s defaults).

    Attributes
    ----------
    coef_ : ndarray, shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of zeros
    classes_ : ndarray
    results_ : list of Result
        The solver's result for each binary problem.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.array([[2.0, 0.0], [1.0, 1.0], [-2.0, 0.0], [-1.0, -1.0]])
    >>> clf = rlmlib.RLMClassifier(solver="lbfgs", sigma=0.1).fit(X, [1, 1, 0, 0])
    >>> clf.predict(X).tolist()
    [1, 1, 0, 0]
    >>> (clf.predict_proba(X)[:, 1] > 0.5).tolist()      # P(y = 1 | x)
    [True, True, False, False]
    """

    def __init__(self, solver="sgd", **params):
        self.solver = solver
        for k, v in params.items():
            setattr(self, k, v)

    def get_params(self, deep=True):
        # the parameters are exactly the public attributes set in __init__ / set_params
        return {k: v for k, v in vars(self).items()
                if not k.startswith("_") and not k.endswith("_")}

    def set_params(self, **params):
        # any name is stored; fit() checks it against the solver's signature (scikit-learn
        # asks that validation wait until fit)
        for k, v in params.items():
            setattr(self, k, v)
        return self

    def _solve(self, X, y):
        f = _solver_function(self.solver)
        names = _solver_params(f)
        kw = dict(_DEFAULTS.get(self.solver, {}))
        params = self.get_params()
        unknown = sorted(set(params) - set(names) - {"solver"})
        if unknown:
            raise ValueError(f"Invalid parameter(s) {unknown} for solver {self.solver!r}; valid: "
                             f"{names}")
        kw.update({k: v for k, v in params.items() if k != "solver"})
        sig = inspect.signature(f).parameters
        missing = [k for k, prm in sig.items() if prm.kind is prm.KEYWORD_ONLY
                   and prm.default is prm.empty and k not in kw]
        if missing:
            raise ValueError(f"solver {self.solver!r} needs {missing}: pass them to "
                             f"RLMClassifier(solver={self.solver!r}, ...)")
        return f(X, y, **kw)

    def fit(self, X, y):
        """Fit on X (dense or sparse) and labels y (two or more classes)."""
        _check_fit_inputs(self, X)
        with np.errstate(invalid="ignore", over="ignore"):  # [inf, -inf] sums to NaN
            # float32 kept as scikit-learn's LogisticRegression keeps it: the solver's
            # check converts it once (lbfgs keeps a sparse one: rlmlib.lbfgs)
            X, y = validate_data(self, X, y, accept_sparse="csr",
                                 dtype=[np.float64, np.float32], y_numeric=False)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if self.classes_.shape[0] < 2:
            raise ValueError(f"y must contain at least two classes, got one class: "
                             f"{_show(self.classes_[0])}")
        if self.classes_.shape[0] == 2:
            res = self._solve(X, y)
            self.results_ = [res]
            self.coef_ = res.w.reshape(1, -1)
        else:  # one-vs-rest: class c against the others, +1 for c
            self.results_ = [self._solve(X, np.where(y == c, 1, -1)) for c in self.classes_]
            self.coef_ = np.vstack([r.w for r in self.results_])
        self.intercept_ = np.zeros(self.coef_.shape[0])
        return self

    def decision_function(self, X):
        """<w_c, x> for every row (one column per class beyond two), as scikit-learn's
        linear classifiers; complex X is refused by name. X goes through the one validation
        pass (``rlmlib.as_rows``), as in ``fit``: a malformed sparse structure is refused
        before anything reads it. ``predict``, ``score`` and ``predict_proba`` call this."""
        from sklearn.utils.validation import check_is_fitted

        from .core.objective import decision_function_rows
        from .core.rows import _check_structure, _is_sparse, as_rows

        check_is_fitted(self)
        if _is_sparse(X):
            _check_structure(X, "X")  # before scikit-learn's converters read it
        _refuse_complex(X)
        with np.errstate(invalid="ignore", over="ignore"):
            X = validate_data(self, X, accept_sparse="csr", reset=False, dtype=np.float64)
        rows = as_rows(X, "X", compact_dense=True)
        z = np.column_stack([decision_function_rows(rows, c) for c in self.coef_])
        return z[:, 0] if z.shape[1] == 1 else z

    @available_if(lambda est: _loss_of(est) == "logistic")
    def predict_proba(self, X):
        """Class probabilities of the logistic model, P(y = +1 | x) = 1 / (1 + exp(-<w, x>)).

        Only for ``loss='logistic'``. For more than two classes the one-vs-rest
        probabilities are normalized to sum to one, as scikit-learn's one-vs-rest logistic
        regression does.

        Parameters
        ----------
        X : array-like or sparse matrix, shape (m, n_features)

        Returns
        -------
        ndarray, shape (m, n_classes)
            Columns in the order of ``classes_``.
        """
        z = self.decision_function(X)
        if z.ndim == 1:
            p = np.exp(-np.logaddexp(0.0, -z))       # 1 / (1 + e^-z) without overflow
            return np.column_stack([1.0 - p, p])
        logp = -np.logaddexp(0.0, -z)  # log of each one-vs-rest probability
        # normalized in log space: at very negative margins every e^logp underflows to 0
        # and p / p.sum would be 0/0
        p = np.exp(logp - logp.max(axis=1, keepdims=True))
        return p / p.sum(axis=1, keepdims=True)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
