"""The hidden grading runs outside the submission's process (instructors/hidden.py,
instructors/isolation.py, instructors/worker.py) and audits its code (instructors/audit.py):
every way of gaming the grading that a tester found (issue 36) scores 0 and is flagged, and
the reference answers pass with no flag. Each submission costs one worker process (about
a second); the nbgrader round trip is tests/test_assignments.py.
(Not in the student edition: it imports the instructors' material.)"""
import inspect
import textwrap
from pathlib import Path

import numpy as np
import pytest

from instructors.audit import audit
from instructors.exercises import EXERCISES, allowed_library, part_exercises, reference
from instructors.hidden import grade_answers
from instructors.isolation import Submission
from instructors.mistakes import MISTAKES, source

ROOT = Path(__file__).resolve().parents[1]


def _ref(label):
    return "\n\n".join(textwrap.dedent(inspect.getsource(reference(f)))
                       for f in EXERCISES[label])


def _grade(part, answers, seed=11):
    return {r.name: r for r in grade_answers(part, answers, seed)}


@pytest.mark.parametrize("part", sorted({fs[0].part for fs in EXERCISES.values()}))
def test_reference_answers_pass_outside_the_kernel_with_no_flag(part):
    answers = {label: _ref(label) for label, _ in part_exercises(part)}
    for r in grade_answers(part, answers, seed=5):
        assert r.passed, (r.name, r.message)
        assert r.findings == [], (r.name, r.findings)


GOOD_MIRROR = _ref("ex-pgs-mirror")


def test_importing_the_reference_answer_fails_and_is_flagged():
    for code in ("from instructors.reference.pegasos import grad_conjugate\n",
                 f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
                 "from instructors.reference.pegasos import grad_conjugate\n",
                 "grad_conjugate = __import__('instructors.reference.pegasos', "
                 "fromlist=['x']).grad_conjugate\n"):
        r = _grade("pegasos", {"ex-pgs-mirror": code})["grad_conjugate"]
        assert not r.passed and "not importable while grading" in r.message, r.message
        assert any("instructors" in f or "__import__" in f for f in r.findings), r.findings


def test_replacing_checkers_or_graders_changes_nothing_here():
    wrong = "def grad_conjugate(theta, p):\n    return theta.copy()\n"
    patches = [
        "import rlmlib.book.checkers.pegasos as c\nc.check_grad_conjugate = lambda f: 'ok'\n",
        "from rlmlib.book.checkers import base\nbase._compare_vectors = lambda *a, **k: None\n"
        "base._run_cases = lambda *a, **k: 1\n",
        "import instructors.grading.common as g\ng.grade_cases = lambda *a, **k: 1\n",
        "import numpy as np\nnp.allclose = lambda *a, **k: True\n",
    ]
    for patch in patches:
        r = _grade("pegasos", {"ex-pgs-mirror": patch + wrong})["grad_conjugate"]
        assert not r.passed and "grad_conjugate on input" in r.message, (patch, r.message)
        assert any("reassigns" in f or "imports" in f for f in r.findings), r.findings


def test_an_unregistered_library_function_is_unavailable_and_flagged():
    code = ("from rlmlib.core.pnorm import _scaled_norm\n\n"
            "def r_conjugate_ball(theta, p, B):\n"
            "    nq = _scaled_norm(theta, p / (p - 1))\n"
            "    if (p - 1) * nq <= B:\n        return (p - 1) * nq ** 2 / 2\n"
            "    return B * nq - B ** 2 / (2 * (p - 1))\n")
    r = _grade("pegasos", {"ex-pgs-ball": code})["r_conjugate_ball"]
    assert not r.passed and "is not available while grading" in r.message, r.message
    assert any("_scaled_norm" in f for f in r.findings)
    # inside the function, reached through the package: refused too
    code = ("def r_conjugate_ball(theta, p, B):\n    import rlmlib\n"
            "    return rlmlib.core.pnorm.r_conjugate(theta, p, B)\n")
    r = _grade("pegasos", {"ex-pgs-ball": code})["r_conjugate_ball"]
    assert not r.passed and r.findings


def test_a_private_copy_of_a_twin_fails():
    # the library's source pasted (renamed): identical bytecode of a long function
    copy = source("step", "COPY:rlmlib.solvers.fiol.fiol_step")
    r = _grade("fiol", {"ex-fiol-sort-step": copy})["step"]
    assert not r.passed and "copy of the library's rlmlib.solvers.fiol.fiol_step" in r.message
    # the source read and executed at run time: the library module cannot be imported
    code = ("import inspect\nfrom rlmlib.solvers import fiol as F\n"
            "exec(inspect.getsource(F.fiol_step.py_func).replace('def fiol_step', "
            "'def step'))\n")
    r = _grade("fiol", {"ex-fiol-sort-step": code})["step"]
    assert not r.passed
    assert {"exec", "getsource", "inspect"} <= {w for f in r.findings for w in
                                                ("exec", "getsource", "inspect") if w in f}


def test_results_that_are_not_numbers_fail_every_comparison():
    code = ("class Any(float):\n    def __eq__(self, other):\n        return True\n"
            "    __ne__ = lambda s, o: False\n    __lt__ = __gt__ = __ne__\n\n"
            "def grad_conjugate(theta, p):\n    return [Any(0.0)] * len(theta)\n")
    r = _grade("pegasos", {"ex-pgs-mirror": code})["grad_conjugate"]
    assert not r.passed and "expected real numbers" in r.message, r.message


def test_the_worker_reports_in_place_changes_of_arrays_and_lists():
    with Submission("", "def f(a, l):\n    a[0] = 7.0\n    l.sort()\n    return 1\n") as s:
        a, lst = np.zeros(2), [3.0, 1.0]
        assert s.function("f")(a, lst) == 1
        assert a.tolist() == [7.0, 0.0] and lst == [1.0, 3.0]


def test_a_function_that_never_returns_fails_and_the_next_call_gets_a_fresh_process(
        monkeypatch):
    from instructors import isolation

    monkeypatch.setattr(isolation, "CALL_TIMEOUT", 2.0)
    with Submission("", "def f(x):\n    while x:\n        pass\n    return 0\n") as s:
        with pytest.raises(AssertionError, match="did not return within 2 s"):
            s.function("f")(1)
        assert s.function("f")(0) == 0


def test_answer_cells_that_never_finish_score_zero(monkeypatch):
    from instructors import isolation

    monkeypatch.setattr(isolation, "START_TIMEOUT", 3.0)
    res = _grade("theory", {"ex-lb-kl": "while True:\n    pass\n"})
    assert not any(r.passed for r in res.values())
    assert "your answer cells did not return within 3 s" in res["two_point_kl"].message


def test_the_audit_names_each_construct_and_its_line():
    code = textwrap.dedent("""\
        import rlmlib.book.checkers.pegasos as c
        c.check_grad_conjugate = None
        x = open("/etc/hostname").read()
        y = eval("1")
        f = (lambda: 0).__code__
        import os
        from rlmlib.solvers.fiol import fiol_step
        def g(a):
            a.sort()
            return a
        """)
    found = audit(code, allowed_library("pegasos"))
    want = ["line 2: reassigns the attribute c.check_grad_conjugate", "line 3: calls open()",
            "line 4: calls eval()", "line 5: uses the attribute .__code__",
            "line 6: imports os", "line 7: imports rlmlib.solvers.fiol.fiol_step"]
    for w in want:
        assert any(f.startswith(w) for f in found), (w, found)
    assert not any(f.startswith("line 9") for f in found)   # a local's method: not flagged
    # the library names a statement offers are not flagged
    assert audit("from rlmlib import loss_code, loss_deriv\n",
                 allowed_library("foundations")) == []


def test_typical_mistakes_still_fail_outside_the_kernel():
    """The wrong answers are judged the same in the worker as in process (two per
    function of one part: the rest is tests/test_checkers_mistakes.py)."""
    for k in (0, 1):
        answers = {label: "\n\n".join(source(f.name, MISTAKES[f.name][k][2]) for f in fs)
                   for label, fs in part_exercises("sgdqn")}
        res = _grade("sgdqn", answers)
        assert not any(r.passed for r in res.values()), k


def test_wrong_answers_of_issue_36_fail_outside_the_kernel_too():
    """In-place sorting of a list, an array for a number and the input returned itself
    reach the grader through the worker as they would in process."""
    sort = _ref("ex-pre-gamma").replace("    c = np.asarray", "    eigenvalues.sort()\n"
                                        "    c = np.asarray")
    assert "modified its input list" in _grade("precond", {"ex-pre-gamma": sort})[
        "gamma"].message
    lazy = ("def grad_conjugate(theta, p):\n    if p == 2:\n        return theta\n"
            + _ref("ex-pgs-mirror").split("\n", 1)[1])
    array = _ref("ex-pgs-ball").replace("return (p - 1) * nq ** 2 / 2",
                                        "return np.array([(p - 1) * nq ** 2 / 2])")
    res = _grade("pegasos", {"ex-pgs-mirror": lazy, "ex-pgs-ball": array})
    assert "returned its input theta itself" in res["grad_conjugate"].message
    assert "expected a number" in res["r_conjugate_ball"].message
