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
    "svmsgd2": dict(kwargs=dict(epochs=2, t0=100.0), steps="epochs"),
    "sgdqn": dict(kwargs=dict(epochs=2, t0=100.0), steps="epochs"),
    "olbfgs": dict(kwargs=dict(epochs=2, t0=100.0), steps="epochs"),
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
    "saga": dict(kwargs=dict(epochs=2, loss="logistic"), steps="epochs"),
    "sdca": dict(kwargs=dict(epochs=2, loss="hinge"), steps="epochs"),
    "lbfgs": dict(kwargs=dict(loss="logistic"), steps=None),
    "asgd": dict(kwargs=dict(epochs=2), steps="epochs"),
    "sgd_momentum": dict(kwargs=dict(epochs=2, loss="logistic"), steps="epochs"),
    "catalyst": dict(kwargs=dict(epochs=2, loss="logistic"), steps="epochs"),
    "katyusha": dict(kwargs=dict(epochs=3, loss="logistic"), steps="epochs"),
    "adagrad": dict(kwargs=dict(epochs=2), steps="epochs"),
    "adam": dict(kwargs=dict(epochs=2, step=0.01), steps="epochs"),
}

#: The registered solvers of kind "distributed" (rlmlib.DISTRIBUTED), for
#: tests/test_distributed_registry.py, which runs them on a LocalCluster of two worker
#: processes: ``kwargs`` their smallest call (besides X, y, sigma), ``serial`` the serial
#: solver and its kwargs (inner="m": the number of rows) that one worker/one partition
#: (``one``) must reproduce to rounding with ``losses``, where the algorithm says so (hogwild: dense rows, where every feature is in
#: every support, so its per-support regularization is SGD's shrink).
DISTRIBUTED_TABLE = {
    "local_sgd": dict(kwargs=dict(epochs=2, partitions=2), steps="epochs",
                      one=dict(partitions=1), serial=("sgd", dict())),
    # epochs count the gradient pass of each round, as svrg's count its snapshots
    "local_svrg": dict(kwargs=dict(epochs=2, partitions=2), steps="epochs",
                       one=dict(partitions=1), losses=("logistic", "squared"),
                       serial=("svrg", dict(inner="m", order="reshuffle"))),
    "cocoa": dict(kwargs=dict(epochs=2, partitions=2), steps="epochs",
                  one=dict(partitions=1), serial=("sdca", dict(shrinking=False))),
    "hogwild": dict(kwargs=dict(epochs=2, threads=2), steps="epochs",
                    one=dict(threads=1), serial=("sgd", dict())),
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


#: The budget of each registered solver's default call in the tests of issue 19 item 1,
#: sigma = 1e-2, and the relative gap (F - F*)/F* it must reach: (kwargs, gap on the book's
#: small problems (tests/test_defaults.py), gap on random 40 - 80-row problems
#: (tests/test_properties.py)); None: below F(0) only (the solver's docstring gives the
#: measured cause). "c/L" for eta: c / L, L = smoothness * max||x||^2 + sigma (2/L is the
#: explicit steps' stability limit). Where the two gaps differ, 60 random problems (seeds
#: 1000..1059) measured a larger one: asgd 8.3e-3 (hypothesis found 1.01e-2, hinge), sdca
#: 8.9e-3 (hinge), pgs 2.2e-2 (squared). svrg: 0.133 was reported once (squared); on this
#: code 460 random problems (200 + 60 seeded, 100 + 100 hypothesis cases) measured at most
#: 4.4e-3. The l1 methods' default (eta = 1/L, 'slow_invsqrt', 500 epochs): at most 7.1e-3
#: on the book's problems, 2.0e-3 on 60 random ones (constant eta = 0.5/L, 60 epochs gave
#: 0.057 and 0.143).
DEFAULT_BUDGET = {
    "sgd": (dict(epochs=100), 1e-2, 1e-2),
    "svmsgd2": (dict(epochs=100), 1e-2, 1e-2),
    "asgd": (dict(epochs=200), 1e-2, 2e-2),
    "sag": (dict(epochs=30), 1e-2, 1e-2),
    "svrg": (dict(epochs=30), 1e-2, 1e-2),
    "saga": (dict(epochs=50), 1e-2, 1e-2),
    "sdca": (dict(epochs=50), 1e-2, 2e-2),
    "pegasos": (dict(T=200_000), 1e-2, 1e-2),
    "pgs": (dict(T=20_000, p=2.0), 1e-2, 5e-2),
    "lbfgs": (dict(), 1e-6, 1e-6),
    # the default eta (1/L, decreasing as 1/sqrt(1 + t/(10 m)); l1.solver_doc, "Accuracy")
    "fiol": (dict(epochs=500), 1e-2, 1e-2),
    "comid": (dict(epochs=500), 1e-2, 1e-2),
    "isgd": (dict(epochs=500), 1e-2, 1e-2),
    "sgd_l1": (dict(epochs=500), 1e-2, 1e-2),
    # the corrected SGD-QN's clipped secant (its docstring)
    "sgdqn": (dict(epochs=30), None, None),
    # the default call's pairs: 40 examples' secants, one pair every 4 steps, the clip
    # (olbfgs's docstring, "Accuracy"): at most 9.0e-3 on the book's problems, 5.1e-3 and
    # 8.9e-3 on 2 x 60 random ones (seeds 1000..1059, 2000..2059); one-example pairs
    # (pair_batch=pair_every=1) 0.004 - 0.16 whatever the budget
    "olbfgs": (dict(epochs=100), 1e-2, 1e-2),
    # constant step (1 - beta)/(2 L_max): the noise floor of the effective step 1/(2 L_max)
    "sgd_momentum": (dict(epochs=100), 1e-2, 1e-2),
    "catalyst": (dict(epochs=50), 1e-2, 1e-2),
    "katyusha": (dict(epochs=60), 1e-2, 1e-2),
    # constant step eta in units of w (chapters/adaptive/index.md): their defaults end in
    # a noise floor of size ~eta, not at a given gap; AdaGrad's steps shrink as 1/sqrt(G)
    "adagrad": (dict(epochs=100), None, None),
    "adam": (dict(epochs=100), None, None),
}
L1_SOLVERS = ("fiol", "comid", "isgd", "sgd_l1")


def default_losses(name):
    """The losses the default-call tests run ``name`` with."""
    if name == "pegasos":
        return ["hinge"]
    if name in ("pgs", "sag", "svrg", "saga", "catalyst", "katyusha"):
        return ["logistic", "squared"]
    if name == "asgd":
        return ["hinge", "squared_hinge", "logistic"]
    if name in ("sdca", "lbfgs"):
        return ["hinge", "squared_hinge", "logistic", "squared"] if name == "sdca" else \
            ["squared_hinge", "logistic", "squared"]
    if name in ("svmsgd2", "sgdqn", "olbfgs"):
        return ["squared_hinge", "logistic"]
    return ["squared_hinge", "logistic", "squared"]


def default_call(name, X, y, loss, sigma, kw=None, n_checkpoints=10, strict=True):
    """The default call of ``name`` with its DEFAULT_BUDGET (or ``kw``), with every warning
    an error when ``strict`` (a default call on a sound problem warns nothing: neither the
    end check nor the growth check at ``n_checkpoints``; else the caller's filters)."""
    import warnings

    import numpy as np
    import scipy.sparse as sp
    import rlmlib
    from rlmlib.solvers.limits import smoothness

    kw = dict(DEFAULT_BUDGET[name][0] if kw is None else kw)
    if str(kw.get("eta")).endswith("/L"):
        A = sp.csr_matrix(X)
        R = float(np.sqrt(np.max(A.multiply(A).sum(1))))
        kw["eta"] = float(kw["eta"][:-2]) / smoothness(rlmlib.loss_code(loss), R, sigma)
    if name != "pegasos":
        kw["loss"] = loss
    if name != "lbfgs":
        kw["n_checkpoints"] = n_checkpoints
    with warnings.catch_warnings():
        if strict:
            warnings.simplefilter("error")
        return rlmlib.SOLVERS[name](X, y, sigma=sigma, **kw)


def default_objective(name, X, y, w, loss, sigma):
    """F(w) as ``name`` minimizes it (l1 for the l1 methods)."""
    import rlmlib

    if name in L1_SOLVERS:
        return rlmlib.l1_objective(X, y, w, sigma=sigma, loss=loss)
    return rlmlib.objective(X, y, w, sigma=sigma, loss="hinge" if name == "pegasos" else loss)


def _mean_loss_grad(A, y, w, loss):
    import numpy as np

    z = A @ w
    d = {"squared": lambda: z - y, "logistic": lambda: -y / (1 + np.exp(y * z)),
         "squared_hinge": lambda: -y * np.maximum(0.0, 1 - y * z)}[loss]()
    return A.T @ d / A.shape[0]


def certified_optimum(X, y, loss, sigma, l1):
    """A certified F* (or a lower bound on it) independent of the solvers under test.

    l2: SDCA's dual value D(alpha) <= F* after 1000 epochs (a lower bound whatever its
    accuracy), its duality gap asserted below 1e-3 relative (so a gap measured against it
    is overstated by at most that, never understated). l1 (smooth
    losses): FISTA on sigma ||w||_1 + mean loss with step 1/L_F, L_F = smoothness
    lambda_max(X'X/m), until the l1 optimality conditions |grad_j + sigma sign(w_j)| (w_j
    != 0), |grad_j| <= sigma (w_j = 0) hold to 1e-9 (asserted)."""
    import math

    import numpy as np
    import scipy.sparse as sp
    import rlmlib

    if not l1:
        ref = rlmlib.sdca(X, y, sigma=sigma, loss=loss, epochs=1000)
        assert ref.info["gap"] <= 1e-3 * abs(ref.info["dual"]), ref.info["gap"]
        return ref.info["dual"]
    A = sp.csr_matrix(X).toarray()
    L = rlmlib.LOSSES[loss]["smoothness"] * np.linalg.eigvalsh(A.T @ A / A.shape[0]).max()
    w = v = np.zeros(A.shape[1])
    t, viol = 1.0, math.inf
    for k in range(100_000):
        u = v - _mean_loss_grad(A, y, v, loss) / L
        w_new = np.sign(u) * np.maximum(np.abs(u) - sigma / L, 0.0)
        t_new = (1 + math.sqrt(1 + 4 * t * t)) / 2
        v = w_new + (t - 1) / t_new * (w_new - w)
        w, t = w_new, t_new
        if k % 500 == 499:
            g = _mean_loss_grad(A, y, w, loss)
            viol = np.where(w != 0, np.abs(g + sigma * np.sign(w)),
                            np.maximum(np.abs(g) - sigma, 0)).max()
            if viol < 1e-9:
                break
    assert viol < 1e-9, viol
    return rlmlib.l1_objective(X, y, w, sigma=sigma, loss=loss)
