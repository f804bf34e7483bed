"""Self-checks and graders of the Convergence part's code exercises: the reference answers
pass; every typical mistake of instructors/mistakes.py (sign, factor, off-by-one, order of
updates, in-place, dense updates, precision at extreme inputs) is rejected by both, with a
message that names the input; the student's exceptions are reported as such. (Not in the
student edition: it imports the instructors' material.)"""
import pytest

from instructors.exercises import checker, functions, grader, reference
from instructors.mistakes import MISTAKES, load

FUNCS = {f.name: f for _, f in functions() if f.part == "theory"}


def test_the_part_has_its_three_checked_exercises():
    assert set(FUNCS) == {"lazy_average_step", "minibatch_variance", "two_point_kl"}


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_reference_passes(name):
    f = FUNCS[name]
    assert "passed" in checker(f)(reference(f))
    assert "seed 7" in grader(f)(reference(f), seed=7)


@pytest.mark.parametrize("name, kind, what, spec", [
    (name, kind, what, spec) for name in sorted(FUNCS) for kind, what, spec in MISTAKES[name]])
def test_mistakes_are_rejected(name, kind, what, spec):
    f = FUNCS[name]
    with pytest.raises(AssertionError, match=rf"{name}(: \w+)? on input '"):
        checker(f)(load(name, spec))
    with pytest.raises(AssertionError, match=rf"{name}(: \w+)? on input '"):
        grader(f)(load(name, spec), seed=3)


def test_named_causes():
    f = FUNCS["lazy_average_step"]
    with pytest.raises(AssertionError, match=r"u: coordinate \d+ is .*not in idx"):
        checker(f)(load("lazy_average_step", MISTAKES["lazy_average_step"][8][2]))
    with pytest.raises(AssertionError, match=r"modified its input val in place"):
        checker(f)(load("lazy_average_step", MISTAKES["lazy_average_step"][7][2]))
    with pytest.raises(AssertionError, match=r"'a large common mean 1e8"):
        checker(FUNCS["minibatch_variance"])(load("minibatch_variance",
                                                  MISTAKES["minibatch_variance"][4][2]))
    with pytest.raises(AssertionError, match=r"'tiny delta = 1e-9'"):
        checker(FUNCS["two_point_kl"])(load("two_point_kl", MISTAKES["two_point_kl"][0][2]))


def test_student_exceptions_are_reported():
    f = FUNCS["two_point_kl"]
    with pytest.raises(AssertionError, match="your function raised ZeroDivisionError"):
        checker(f)(lambda delta, T: 1 / 0)
    with pytest.raises(TypeError, match="two_point_kl must be a function"):
        checker(f)(3)
