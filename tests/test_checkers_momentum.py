"""Self-checks and graders of the momentum part's code exercises: the references and the
library's own kernels pass, the messages name the input and the values, the reference of the
catch-up agrees with the library's sparse steps, and Polyak's parameters give heavy ball's
optimal rate. (Not in the student edition: it imports the instructors' material.)"""
import math

import numpy as np
import pytest

from instructors.exercises import functions, reference
from rlmlib.book.checkers import momentum as ck
from rlmlib.solvers.sgd_momentum import momentum_matrix

FUNCS = {f.name: f for _, f in functions() if f.part == "momentum"}


def test_the_part_has_its_two_checked_exercises():
    assert set(FUNCS) == {"momentum_catch_up", "polyak_parameters"}
    assert set(ck.CASES) == set(FUNCS)


def loop(w, v, step, beta, sigma, nesterov, d):
    for _ in range(d):
        v_new = beta * v + sigma * w
        w = w - step * (sigma * w + beta * v_new) if nesterov else w - step * v_new
        v = v_new
    return w, v


def test_the_plain_loop_passes_and_a_small_error_is_named():
    assert "passed" in ck.check_momentum_catch_up(loop)
    with pytest.raises(AssertionError, match=r"coordinate 0 is .*, expected .* \(error "):
        ck.check_momentum_catch_up(
            lambda *a: tuple(x * (1 + 1e-8) for x in loop(*a)))
    with pytest.raises(TypeError, match="momentum_catch_up must be a function"):
        ck.check_momentum_catch_up(None)


def test_the_librarys_table_agrees_with_the_reference():
    from rlmlib.solvers.sgd_momentum import power_table

    ref = reference(FUNCS["momentum_catch_up"])
    for nesterov in (False, True):
        for step, beta, sigma in ((0.1, 0.9, 0.01), (0.4, 0.9, 0.5), (0.01, 0.0, 1.0)):
            A, _ = momentum_matrix(step, beta, sigma, nesterov)
            U = power_table(A, 300)
            delta = A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0]
            for d in (1, 7, 300):
                P = U[d] * A - delta * U[d - 1] * np.eye(2)
                np.testing.assert_allclose(P @ [1.5, -0.5],
                                           ref(1.5, -0.5, step, beta, sigma, nesterov, d),
                                           rtol=1e-10, atol=1e-14)


def test_polyak_parameters_give_the_optimal_rate():
    from rlmlib.book.momentum import heavy_ball_radius

    ref = reference(FUNCS["polyak_parameters"])
    assert "passed" in ck.check_polyak_parameters(ref)
    for L, mu in ((25.0, 1.0), (1e4, 3.0)):
        eta, beta = ref(L, mu)
        Q = L / mu
        rate = (math.sqrt(Q) - 1) / (math.sqrt(Q) + 1)
        assert abs(heavy_ball_radius(eta, beta, np.linspace(mu, L, 50)) - rate) < 1e-6
    with pytest.raises(AssertionError, match="expected a pair"):
        ck.check_polyak_parameters(lambda L, mu: 1.0)
