"""Self-checks (rlmlib.book.checkers) and hidden graders (instructors/grading) of every
checked code exercise: the reference answers pass both; every typical wrong answer of
instructors/mistakes.py is rejected by the grader, and every one but a call or copy of the
library's twin by the self-check too; the messages name the input, the coordinate and the
size of the error, name a cause only when it is proven, and report the student's
exceptions as such. (Not in the student edition: it imports the instructors' material.)

`pytest -s tests/test_checkers_mistakes.py -k report` prints the table of mistakes tried
and rejected per checker.
"""
import re

import numpy as np
import pytest

from instructors import expected as expected_tool
from instructors.exercises import functions, grader, checker, reference
from instructors.grading import common
from instructors.mistakes import MISTAKES, load, source
from rlmlib.book.checkers import fiol, pegasos, precond, sgdqn

FUNCS = {f.name: f for _, f in functions()}
#: where a message says what is wrong: a coordinate (or the value, a matrix entry, the
#: count) with the value found and expected, the student's exception, an input changed in
#: place, the wrong type or shape, or the library's function used
LOCATED = re.compile(r"on input .*(coordinate \d+ is .*expected|the value is .*expected|"
                     r"entry \(\d+, \d+\) is .*expected|count_new is|your function raised|"
                     r"modified its input|returned its input|"
                     r"expected an? (array|number|integer|int|pair|real)|"
                     r"returned k=\d+ with modelled time|the new scale)|library")


def test_expected_values_are_in_sync_with_the_references():
    assert expected_tool.out_of_sync() == [], "run python -m instructors.expected"


def _perturbed_file(tmp_path, monkeypatch, rel):
    """expected.json with every fiol step value multiplied by (1 + rel)."""
    import json

    from rlmlib.book.checkers import base

    table = json.loads(base.EXPECTED_FILE.read_text(encoding="utf8"))
    step = table["fiol"]["step"]
    for label, v in step.items():
        step[label] = (np.asarray(v, dtype=float) * (1 + rel)).tolist()
    path = tmp_path / "expected.json"
    path.write_text(json.dumps(table))
    monkeypatch.setattr(base, "EXPECTED_FILE", path)
    monkeypatch.setattr(expected_tool, "EXPECTED_FILE", path)


def test_expected_sync_tolerates_another_machines_last_bits(tmp_path, monkeypatch):
    # a few roundings of difference (another CPU's BLAS): still in sync
    _perturbed_file(tmp_path, monkeypatch, 4e-16)
    assert expected_tool.out_of_sync() == []


def test_expected_sync_catches_a_changed_reference(tmp_path, monkeypatch):
    # the step's self-check allows 1e-9 of the largest entry: 2e-10 is a fifth of it, more
    # than the tenth the sync allows, so a reference that moved this much is caught
    _perturbed_file(tmp_path, monkeypatch, 2e-10)
    problems = expected_tool.out_of_sync()
    assert problems and all(p.startswith("fiol.step") for p in problems), problems


def test_expected_sync_catches_a_missing_case(tmp_path, monkeypatch):
    import json

    from rlmlib.book.checkers import base

    table = json.loads(base.EXPECTED_FILE.read_text(encoding="utf8"))
    dropped = sorted(table["theory"]["two_point_kl"])[0]
    del table["theory"]["two_point_kl"][dropped]
    path = tmp_path / "expected.json"
    path.write_text(json.dumps(table))
    monkeypatch.setattr(base, "EXPECTED_FILE", path)
    monkeypatch.setattr(expected_tool, "EXPECTED_FILE", path)
    problems = expected_tool.out_of_sync()
    assert any("theory.two_point_kl: the file has cases" in p for p in problems), problems


def test_every_exercise_has_a_checker_grader_reference_and_mistakes():
    for name, f in FUNCS.items():
        assert callable(checker(f)) and callable(grader(f)) and callable(reference(f))
        assert len(MISTAKES[name]) >= 8, name


@pytest.mark.parametrize("name", list(FUNCS))
def test_reference_passes_self_check_and_grader(name):
    f = FUNCS[name]
    assert checker(f)(reference(f))
    for seed in (0, 1):
        assert f"seed {seed}" in grader(f)(reference(f), seed=seed)


@pytest.mark.parametrize("name", list(FUNCS))
def test_every_typical_mistake_is_rejected(name):
    f = FUNCS[name]
    for kind, what, spec in MISTAKES[name]:
        with pytest.raises(AssertionError) as e:
            grader(f)(load(name, spec), seed=3)
        msg = str(e.value)
        assert name.split("_")[0] in msg or "bound" in msg, (kind, what, msg)
        assert LOCATED.search(msg), (kind, what, msg)
        if kind != "library":          # only the grader can see a call of the library
            with pytest.raises(AssertionError) as e:
                checker(f)(load(name, spec))
            assert LOCATED.search(str(e.value)), (kind, what, str(e.value))


def test_report(capsys):
    """The table of the report: mistakes tried and rejected per checker."""
    rows = []
    for name, f in FUNCS.items():
        tried = len(MISTAKES[name])
        by_self = by_grader = 0
        for _, _, spec in MISTAKES[name]:
            try:
                checker(f)(load(name, spec))
            except AssertionError:
                by_self += 1
            try:
                grader(f)(load(name, spec), seed=5)
            except AssertionError:
                by_grader += 1
        rows.append((f.checker, tried, by_self, by_grader))
    with capsys.disabled():
        print("\nchecker                   tried  self-check  grader")
        for r in rows:
            print(f"{r[0]:25s} {r[1]:5d} {r[2]:11d} {r[3]:7d}")
        print(f"{'total':25s} {sum(r[1] for r in rows):5d} {sum(r[2] for r in rows):11d} "
              f"{sum(r[3] for r in rows):7d}")
    assert all(r[3] == r[1] for r in rows)


# ----------------------------------------------------------------------------- messages
def test_count_off_by_0_9_is_rejected_with_its_size():
    with pytest.raises(AssertionError, match=r"count_new is 2\.9, not an integer "
                                             r"\(expected 2; off by \+0\.9\)"):
        sgdqn.check_scheduled_step(load("scheduled_step",
                                        [("count -= 1", "count -= 0.1")]))


def test_sort_step_and_logistic_inverse_give_coordinate_and_size():
    wrong = load("step", [("s = (A - y) / (1 + C)", "s = (A + y) / (1 + C)")])
    with pytest.raises(AssertionError, match=r"step on input 'sigma = 0' \(w=.*\): "
                                             r"coordinate \d is -?[\d.e+-]+, expected "
                                             r"-?[\d.e+-]+ \(error [\d.e+-]+"):
        fiol.check_sort_step(wrong)
    with pytest.raises(AssertionError, match=r"logistic_inverse on input s=-0\.999999999999, "
                                             r"y=1\.0: the value is -27\.63093.*expected "
                                             r"-27\.631043.*\(error 0\.000111, relative "
                                             r"4\.02e-06"):
        fiol.check_logistic_inverse(load("logistic_inverse", MISTAKES["logistic_inverse"][1][2]))


def test_underflow_is_named_only_when_proven():
    # a simply wrong 0: no cause named
    with pytest.raises(AssertionError) as e:
        pegasos.check_grad_conjugate(lambda theta, p: np.zeros_like(theta))
    assert "is 0, expected" in str(e.value) and "flow" not in str(e.value)
    # |theta|^q underflows at 1e-200: right on the same input scaled up, so underflow
    naive = load("grad_conjugate", MISTAKES["grad_conjugate"][3][2])
    with pytest.raises(AssertionError, match=r"'p=1\.3, \|theta_i\| about 1e-200'.*"
                                             r"underflow: your function is right on the same "
                                             r"input scaled up by 2\^\d+"):
        pegasos.check_grad_conjugate(naive)
    # c + ratio overflows to inf and c/inf = 0: a 0 caused by overflow, said so
    with pytest.raises(AssertionError, match=r"the value is 0, expected 1\.1.*overflow: your "
                                             r"function is right on the same input scaled "
                                             r"down"):
        precond.check_numerical_rank(load("gamma", MISTAKES["gamma"][0][2]))
    # 1e300 and 1e-300 in one vector: no common moderate scale, so no cause is claimed
    mixed = load("grad_conjugate", MISTAKES["grad_conjugate"][4][2])
    with pytest.raises(AssertionError, match=r"1e300 and 1e-300 in one vector.*coordinate 1 "
                                             r"is 0, expected -8\.6\d*e-307 \(relative error "
                                             r"1\)$"):
        pegasos.check_grad_conjugate(mixed)


def test_a_students_exception_is_reported_as_such():
    def raises(theta, p):
        raise ValueError("p must be > 1")

    with pytest.raises(AssertionError, match=r"your function raised ValueError: p must be > 1"):
        pegasos.check_grad_conjugate(raises)
    with pytest.raises(AssertionError, match=r"your function raised ValueError: math domain "
                                             r"error"):
        fiol.check_logistic_inverse(load("logistic_inverse", [("t = s * y", "t = s")]))


def test_inputs_modified_in_place_are_named():
    with pytest.raises(AssertionError, match=r"modified its input w in place \(entry 0 "):
        sgdqn.check_scheduled_step(load("scheduled_step", [("w = w * (1 - skip / (t + t0))",
                                                            "w *= (1 - skip / (t + t0))")]))


def test_both_orders_of_the_corrected_updates_conditions_are_separated():
    wrong = load("corrected_update", [("r[on & (diffw == 0)] = 100 * sigma",
                                       "r[diffw == 0] = 100 * sigma")])
    with pytest.raises(AssertionError, match=r"'every branch in one vector'.*coordinate 0"):
        sgdqn.check_corrected_update(wrong)


def test_accuracy_is_checked_across_the_whole_domain():
    mid = load("logistic_inverse", MISTAKES["logistic_inverse"][5][2])   # 3e-4 off mid-domain
    with pytest.raises(AssertionError, match=r"s=-0\.5, y=1\.0: the value is -0\.000299+\d*, "
                                             r"expected 0 \(error 0\.0003;"):
        fiol.check_logistic_inverse(mid)


# ----------------------------------------------------------------- library twins
def test_calling_importing_or_copying_the_library_is_refused():
    import rlmlib
    from rlmlib.core import pnorm

    f = FUNCS["grad_conjugate"]
    g = grader(f)
    with pytest.raises(AssertionError, match="is the library's own"):
        g(pnorm.grad_conjugate, seed=1)
    gc = pnorm.grad_conjugate
    with pytest.raises(AssertionError, match="calls the library's grad_conjugate"):
        g(lambda theta, p: gc(theta, p), seed=1)
    with pytest.raises(AssertionError, match="uses rlmlib.core.pnorm.grad_conjugate"):
        g(lambda theta, p: pnorm.grad_conjugate(theta, p), seed=1)
    with pytest.raises(AssertionError, match="uses rlmlib.grad_conjugate|uses rlmlib.pnorm"):
        g(lambda theta, p: rlmlib.pnorm.grad_conjugate(theta, p), seed=1)
    with pytest.raises(AssertionError, match="imports grad_conjugate from rlmlib"):
        g(load("grad_conjugate", "LIB:rlmlib.core.pnorm.grad_conjugate"), seed=1)
    # the wrapper is short (a copy is judged on functions of >= MIN_COPY instructions); the
    # copy still calls the library's kernel
    with pytest.raises(AssertionError, match="calls the library's _grad"):
        g(load("grad_conjugate", "COPY:rlmlib.core.pnorm.grad_conjugate"), seed=1)
    # a call hidden from the static check (getattr on a string) meets the disabled twin
    sneaky = lambda theta, p: getattr(__import__("rlmlib").pnorm,  # noqa: E731
                                      "grad_" + "conjugate")(theta, p)
    with pytest.raises(AssertionError, match="your function raised RuntimeError: the "
                                             "library's rlmlib.core.pnorm.grad_conjugate is "
                                             "disabled while grading"):
        g(sneaky, seed=1)
    assert pnorm.grad_conjugate(np.ones(2), 2.0).tolist() == [1.0, 1.0]   # restored
    step = FUNCS["step"]
    with pytest.raises(AssertionError, match="fiol_step"):
        grader(step)(load("step", MISTAKES["step"][8][2]), seed=1)


def test_grading_instances_depend_on_the_seed():
    assert common.draw_seed(5) == 5 and common.draw_seed() != common.draw_seed()
    seen = {}

    def spy(theta, p):
        seen.setdefault(p, 0)
        return reference(FUNCS["grad_conjugate"])(theta, p)

    grader(FUNCS["grad_conjugate"])(spy, seed=1)
    first = set(seen)
    seen.clear()
    grader(FUNCS["grad_conjugate"])(spy, seed=2)
    assert first != set(seen)


def test_mistake_sources_are_plain_python():
    for name, items in MISTAKES.items():
        for _, _, spec in items:
            text = source(name, spec)
            assert f"def {name}(" in text


# ------------------------------------------------- correct answers never fail (issue 36)
SOFT_FORMS = {
    "textbook": "def soft(u, a):\n    return np.sign(u) * np.maximum(np.abs(u) - a, 0.0)\n",
    "three cases": "def soft(u, a):\n"
                   "    return np.where(u > a, u - a, np.where(u < -a, u + a, 0.0))\n",
    "minus the clip": "def soft(u, a):\n    return u - np.clip(u, -a, a)\n",
}


@pytest.mark.parametrize("form", list(SOFT_FORMS))
def test_independent_correct_forms_are_not_copies(form):
    """The textbook soft threshold is the library's soft_threshold word for word: a copy is
    judged only on functions of at least common.MIN_COPY instructions."""
    f = FUNCS["soft"]
    func = load("soft", SOFT_FORMS[form])
    assert checker(f)(func)
    assert "hidden tests pass" in grader(f)(func, seed=2)


def test_a_subnormal_result_correctly_rounded_passes():
    """The library's r_conjugate (not refused as a twin here) is right to the last bit
    or two near underflow: it fails no seed of the hidden grader (18 of 200 did at a
    relative 1e-9 without the absolute floor)."""
    from instructors.grading import pegasos as G
    from rlmlib.book.checkers.base import UNDERFLOW_ATOL
    from rlmlib.core.pnorm import r_conjugate

    assert UNDERFLOW_ATOL == np.finfo(np.float64).tiny
    twins = G.TWINS["r_conjugate_ball"]
    G.TWINS["r_conjugate_ball"] = ()
    try:
        for seed in range(60):
            G.grade_r_conjugate_ball(lambda t, p, B: r_conjugate(t, p, B), seed=seed)
    finally:
        G.TWINS["r_conjugate_ball"] = twins
    # a 0 for a normal value is still wrong, and so is a subnormal value off by more
    from rlmlib.book.checkers.base import _compare_vectors
    with pytest.raises(AssertionError, match="is 0, expected"):
        _compare_vectors("x", 0.0, 1e-300, 1e-9, "c", atol=UNDERFLOW_ATOL)
    _compare_vectors("x", 0.0, 5e-324, 1e-9, "c", atol=UNDERFLOW_ATOL)
    with pytest.raises(AssertionError):
        _compare_vectors("x", 1e-200, 1e-300, 1e-9, "c", atol=UNDERFLOW_ATOL)


def test_a_list_sorted_in_place_is_rejected():
    wrong = load("gamma", [("    c = np.asarray(eigenvalues, dtype=float)",
                            "    eigenvalues.sort()\n    c = np.asarray(eigenvalues, "
                            "dtype=float)")])
    f = FUNCS["gamma"]
    for judge in (checker(f), lambda g: grader(f)(g, seed=1)):
        with pytest.raises(AssertionError, match="modified its input list eigenvalues in "
                                                 "place"):
            judge(wrong)


def test_an_array_for_a_number_is_rejected():
    f = FUNCS["r_conjugate_ball"]
    ref = reference(f)
    wrapped = lambda theta, p, B: np.array([ref(theta, p, B)])  # noqa: E731
    for judge in (checker(f), lambda g: grader(f)(g, seed=1)):
        with pytest.raises(AssertionError, match=r"expected a number, got ndarray of shape "
                                                 r"\(1,\)"):
            judge(wrapped)


def test_returning_the_input_itself_is_rejected():
    """At p = 2 the mirror map is the identity: returning theta itself (not a new array)
    lets a caller's change of the result change its input."""
    f = FUNCS["grad_conjugate"]
    ref = reference(f)
    lazy = lambda theta, p: theta if p == 2 else ref(theta, p)  # noqa: E731
    for judge in (checker(f), lambda g: grader(f)(g, seed=1)):
        with pytest.raises(AssertionError, match="returned its input theta itself"):
            judge(lazy)


def test_a_function_that_never_returns_is_stopped_and_named(monkeypatch):
    """Checkers run the student's function with a time limit and name it when exceeded
    (they waited forever)."""
    import time

    import pytest

    from rlmlib.book.checkers import base

    monkeypatch.setenv("RLMLIB_CHECKER_TIME_LIMIT", "0.5")

    def forever(x):
        while True:
            pass

    t = time.perf_counter()
    with pytest.raises(AssertionError, match=r"my_step on input x=1: your function did not "
                                             r"return within 0\.5 s"):
        base._call("my_step", "x=1", forever, 1)
    assert time.perf_counter() - t < 30
    assert base._call("my_step", "x=1", lambda x: x + 1, 1) == 2


def test_every_call_through_student_is_time_limited(monkeypatch):
    import pytest

    from rlmlib.book.checkers import base

    monkeypatch.setenv("RLMLIB_CHECKER_TIME_LIMIT", "0.5")

    def forever(x):
        while True:
            pass

    f = base._student("my_step", forever)
    with pytest.raises(base.TimeLimitExceeded, match=r"^my_step: your function did not"):
        f(1)
