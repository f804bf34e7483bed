"""Self-checks and graders of the Variance-reduction part's code exercises: the reference
answers (tests/test_checkers_mistakes.py runs them and every typical mistake against all
checkers) and the library's own kernels pass; the messages name the input and the value
found and expected; the references agree with rlmlib's SDCA. (Not in the student edition:
it imports the instructors' material.)"""
import math

import numpy as np
import pytest

from instructors.exercises import functions, reference
from instructors.mistakes import MISTAKES, load
from rlmlib.book.checkers import vr as ck
from rlmlib.solvers.saga import l1_catch_up

FUNCS = {f.name: f for _, f in functions() if f.part == "vr"}


def test_the_part_has_its_three_checked_exercises():
    assert set(FUNCS) == {"catch_up", "sqhinge_step", "gap"}
    assert set(ck.CASES) == set(FUNCS)


def loop(u, c, eta, sigma, k):
    for _ in range(k):
        v = u - eta * c
        u = math.copysign(max(abs(v) - eta * sigma, 0.0), v)
    return u


def test_catch_up_the_plain_loop_and_the_librarys_closed_form_pass():
    assert "passed" in ck.check_saga_catch_up(loop)
    assert "passed" in ck.check_saga_catch_up(
        lambda u, c, eta, sigma, k: l1_catch_up(u, c, eta, eta * sigma, float(k)))
    # an error of 1e-9 is beyond the tolerance, and said with its size
    with pytest.raises(AssertionError, match=r"the value is .*, expected .* \(error "):
        ck.check_saga_catch_up(lambda u, c, e, s, k: loop(u, c, e, s, k) * (1 + 1e-9) + 1e-9)
    with pytest.raises(TypeError, match="catch_up must be a function"):
        ck.check_saga_catch_up(3)


def test_messages_name_the_input_and_the_values():
    lumped = load("catch_up", MISTAKES["catch_up"][0][2])
    # exact while the sign holds: the first case that crosses zero finds it
    with pytest.raises(AssertionError, match=r"catch_up on input '\|c\| > sigma: crosses 0' "
                                             r"\(u=1\.0, c=1\.0, eta=0\.5, sigma=0\.2, k=6\): "
                                             r"the value is -1\.39+\d*, expected -1\.60+\d* "
                                             r"\(error 0\.2"):
        ck.check_saga_catch_up(lumped)
    hinge = load("sqhinge_step", MISTAKES["sqhinge_step"][0][2])
    with pytest.raises(AssertionError, match=r"your function raised ZeroDivisionError|"
                                             r"the value is .*expected"):
        ck.check_sdca_squared_hinge(hinge)
    over = load("sqhinge_step", MISTAKES["sqhinge_step"][9][2])
    # beta q + 1 - yz loses beta = 1e-300 against 1 (and overflows at q = 1e308)
    with pytest.raises(AssertionError, match=r"'beta = 1e-300'.*the value is 0, expected "
                                             r"5\.0+\d*e-301 \(relative error 1\)"):
        ck.check_sdca_squared_hinge(over)
    inplace = load("gap", MISTAKES["gap"][2][2])
    with pytest.raises(AssertionError, match="modified its input alpha in place"):
        ck.check_duality_gap(inplace)


def test_squared_hinge_reference_agrees_with_the_library():
    import rlmlib
    from rlmlib.book.vr import draws

    # one coordinate step of rlmlib.sdca from alpha = 0 equals the reference step
    X = np.array([[1.0, 2.0], [0.5, -1.0], [-1.0, 0.3]])
    y = np.array([1.0, -1.0, 1.0])
    i = int(draws(3, 1, "cyclic")[0])
    res = rlmlib.sdca(X, y, sigma=0.5, epochs=1, loss="squared_hinge", order="cyclic")
    q = X[i] @ X[i] / (0.5 * 3)
    step = reference(FUNCS["sqhinge_step"])
    assert res.info["alpha"][i] * y[i] == pytest.approx(step(0.0, 0.0, q))


def test_gap_reference_agrees_with_the_library():
    import rlmlib

    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 4))
    y = np.sign(X[:, 0] + 0.5 * rng.standard_normal(50))
    res = rlmlib.sdca(X, y, sigma=0.1, epochs=3, loss="hinge")
    gap = reference(FUNCS["gap"])
    assert res.info["gap"] == pytest.approx(gap(X, y, res.info["alpha"], 0.1), rel=1e-10)
