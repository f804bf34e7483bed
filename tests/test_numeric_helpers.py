"""Public numeric helpers refuse non-finite and out-of-domain arguments by name (they
returned inf or nan)."""
import numpy as np
import pytest

import rlmlib
from rlmlib.book.checkers.pegasos import pgs_time_model
from rlmlib.solvers.asgd import step_size


@pytest.mark.parametrize("kw, name", [
    (dict(t=0, sigma=-1.0, eta0=1.0), "sigma"), (dict(t=0, sigma=np.nan, eta0=1.0), "sigma"),
    (dict(t=0, sigma=0.1, eta0=-2.0), "eta0"), (dict(t=0, sigma=0.1, eta0=np.inf), "eta0"),
    (dict(t=-1, sigma=0.1, eta0=1.0), "t"), (dict(t=[0, np.nan], sigma=0.1, eta0=1.0), "t"),
])
def test_step_size_refuses(kw, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        step_size("sigma_t", **kw)
    assert step_size("lacoste", 0, sigma=0.5, eta0=None) == 2.0


def test_l1_objective_refuses_non_finite_w_and_sigma():
    X, y = np.eye(2), [1.0, -1.0]
    with pytest.raises(ValueError, match="^w must not contain NaN or inf"):
        rlmlib.l1_objective(X, y, [np.nan, 0.0], sigma=0.5, loss="logistic")
    for sigma in (-1.0, np.nan, np.inf):
        with pytest.raises(ValueError, match="^sigma"):
            rlmlib.l1_objective(X, y, [0.0, 0.0], sigma=sigma, loss="logistic")


@pytest.mark.parametrize("args, name", [
    ((0, 100, 10, 1.0, 4.0), "k"), ((np.nan, 100, 10, 1.0, 4.0), "k"),
    ((2, -1, 10, 1.0, 4.0), "n"), ((2, 100, np.nan, 1.0, 4.0), "d"),
    ((2, 100, 10, np.inf, 4.0), "a"), ((2, 100, 10, 1.0, -4.0), "b"),
])
def test_pgs_time_model_refuses(args, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        pgs_time_model(*args)
    assert pgs_time_model(2, 100, 10, 1.0, 4.0) == 360.0
