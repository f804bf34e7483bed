"""The smallest call of every registered solver, for the tests that run over rlmlib.SOLVERS
(hardening, bounds, properties). A solver registered without a line here fails
tests/test_hardening.py::test_every_registered_solver_has_a_table_entry.

Each entry: ``kwargs`` (besides X, y, sigma) for a quick binary-classification call,
``steps`` the name of its step-count argument ('epochs': epochs * m steps, 'T': T * k
steps, None: its own iteration limit), ``sigma_zero`` whether sigma = 0 is legal (the l1
methods: no regularization).
"""

SOLVER_TABLE = {
    "sgd": dict(kwargs=dict(epochs=2), steps="epochs"),
    "pegasos": dict(kwargs=dict(T=50), steps="T"),
    "pgs": dict(kwargs=dict(p=1.5, T=50), steps="T"),
    "svmsgd2": dict(kwargs=dict(epochs=2, t0=10.0), steps="epochs"),
    "sgdqn": dict(kwargs=dict(epochs=2, t0=10.0), steps="epochs"),
    "olbfgs": dict(kwargs=dict(epochs=2, t0=10.0), steps="epochs"),
    "fiol": dict(kwargs=dict(eta=0.1, epochs=2, loss="logistic"), steps="epochs",
                 sigma_zero=True),
    "comid": dict(kwargs=dict(eta=0.1, epochs=2, loss="logistic"), steps="epochs",
                  sigma_zero=True),
    "isgd": dict(kwargs=dict(eta=0.1, epochs=2, loss="logistic"), steps="epochs",
                 sigma_zero=True),
    "sgd_l1": dict(kwargs=dict(eta=0.1, epochs=2, loss="logistic"), steps="epochs",
                   sigma_zero=True),
    "sag": dict(kwargs=dict(epochs=2, loss="logistic"), steps="epochs"),
    "svrg": dict(kwargs=dict(epochs=2, loss="logistic"), steps="epochs"),
    "lbfgs": dict(kwargs=dict(loss="logistic"), steps=None),
    "asgd": dict(kwargs=dict(epochs=2), steps="epochs"),
}


def call(name, X, y, **over):
    """rlmlib.SOLVERS[name](X, y, sigma=0.1, <its smallest kwargs>, **over)."""
    import rlmlib

    kw = dict(sigma=0.1, **SOLVER_TABLE[name]["kwargs"])
    kw.update(over)
    return rlmlib.SOLVERS[name](X, y, **kw)


def honest_end(f):
    """Run ``f()`` (a solver call), read its end objective, and return the Result after
    checking the end check: a ``ConvergenceWarning`` was issued exactly when the objective
    ended above F(0) (for tests whose legal settings may end there: a tiny t0, few steps)."""
    import warnings

    import numpy as np
    import rlmlib

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", rlmlib.ConvergenceWarning)
        res = f()
        end = res.objective
    F0 = res.trace.objective[0]
    warned = [c for c in caught if issubclass(c.category, rlmlib.ConvergenceWarning)]
    assert len(warned) == int(end > F0 and end - F0 > 1e-12 * max(1.0, abs(F0))), \
        (end, F0, [str(c.message) for c in warned])
    assert np.isfinite(end)
    return res
