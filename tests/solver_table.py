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
}


def call(name, X, y, **over):
    """rlmlib.SOLVERS[name](X, y, sigma=0.1, <its smallest kwargs>, **over)."""
    import rlmlib

    kw = dict(sigma=0.1, **SOLVER_TABLE[name]["kwargs"])
    kw.update(over)
    return rlmlib.SOLVERS[name](X, y, **kw)
