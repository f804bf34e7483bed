"""nbgrader assignments from the code exercises (tools/assignments.py): the source notebook
holds solution regions and autograded test cells (the visible self-checks) with points, and
nothing of the instructors' material outside the solutions; `nbgrader generate_assignment`
releases it with an empty, marked answer cell per code exercise; nbgrader's own
`autograde` runs the submissions in a kernel that cannot import `instructors`, and the
hidden grading (instructors/hidden.py, outside that kernel) scores sample submissions (the
reference answers, typical mistakes, calls of the library's own function, and submissions
that game the kernel) as expected, flagging the gaming ones in the gradebook.

`make test` autogrades one assignment (pegasos, about 40 s); `make assignments-test`
(RLMLIB_ALL_ASSIGNMENTS=1) autogrades every part. Skipped with a message when nbgrader (the
instructors' environment, requirements-instructors.txt) is not installed."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

nbgrader = pytest.importorskip("nbgrader", reason="nbgrader is the instructors' environment: "
                               "pip install -r requirements-instructors.txt")
import nbformat  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import assignments  # noqa: E402
from instructors.mistakes import MISTAKES  # noqa: E402

PARTS = list(assignments.parts())
DEFAULT = ["pegasos"]
SELECTED = PARTS if os.environ.get("RLMLIB_ALL_ASSIGNMENTS") else DEFAULT


def _env():
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)       # the kernel that runs submissions has no instructors/
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env["PATH"]
    return env


def _nbgrader(course, *args):
    exe = Path(sys.executable).parent / "nbgrader"
    r = subprocess.run([str(exe), *args], cwd=course, env=_env(), capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return r


def test_source_notebooks_have_solutions_hidden_tests_and_points():
    from instructors.exercises import EXERCISES

    n_code = 0
    for part in PARTS:
        nb = assignments.source_notebook(part)
        meta = [c.metadata["nbgrader"] for c in nb.cells]
        answers = [c for c in nb.cells if c.metadata["nbgrader"]["solution"]
                   and c.cell_type == "code"]
        tests = [c for c in nb.cells if c.metadata["nbgrader"]["grade"]]
        labels = [lab for lab, fs in EXERCISES.items() if fs[0].part == part]
        assert len(answers) == len(labels)
        n_code += len(labels)
        for c in answers:
            assert c.source.startswith("### BEGIN SOLUTION\n")
            assert c.source.endswith("### END SOLUTION")
        for c in tests:
            assert c.metadata["nbgrader"]["points"] > 0
            assert "print(check_" in c.source or c.cell_type == "markdown"
        # an exercise with a proof and code: the proof is a manually graded cell with half
        # the points, the code cells have the rest (skipping the proof costs its half)
        import course

        by_label = {e.label: e for e in course.exercises()}
        plan = course.plan()
        for label in labels:
            e = by_label[label]
            pts = {c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"]["points"]
                   for c in tests if c.metadata["nbgrader"]["grade_id"].startswith(label)}
            written = pts.pop(f"{label}-written", 0)
            assert written + sum(pts.values()) == e.points(plan), label
            assert (written > 0) == assignments.has_written_part(e), label
            if written:
                assert written == e.points(plan) // 2
                cell = next(c for c in tests
                            if c.metadata["nbgrader"]["grade_id"] == f"{label}-written")
                assert "Marking scheme:" in cell.source and " points: " in cell.source
        for c in nb.cells:
            if not c.metadata["nbgrader"]["solution"]:
                assert "instructors" not in c.source and "HIDDEN" not in c.source
        assert all(m["schema_version"] == 3 and m["grade_id"] for m in meta)
        assert len({m["grade_id"] for m in meta}) == len(meta)
    assert n_code == 24          # every checked code exercise of the book


@pytest.fixture(scope="module", params=SELECTED)
def released(request, tmp_path_factory):
    part = request.param
    course = tmp_path_factory.mktemp(f"course-{part}")
    assignments.write_course(course, [part])
    _nbgrader(course, "generate_assignment", part, "--force")
    return course, part


def test_release_has_an_empty_marked_answer_cell_per_code_exercise(released):
    course, part = released
    nb = nbformat.read(course / "release" / part / f"{part}.ipynb", as_version=4)
    answers = [c for c in nb.cells if c.metadata["nbgrader"]["solution"]
               and c.cell_type == "code"]
    assert len(answers) == len(assignments.parts()[part])
    for c in answers:
        assert c.source == "# YOUR CODE HERE\nraise NotImplementedError()"
    text = "".join(c.source for c in nb.cells)
    assert "HIDDEN TESTS" not in text and "instructors" not in text and "SOLUTION" not in text
    assert "Marking scheme" not in text          # the written cells' schemes stay in the source


#: submissions that game the grading in the kernel (issue 36), per part: {label: source};
#: each must score 0 for the functions of that exercise and be flagged
GAMING = {"pegasos": {
    # the reference answer imported (the kernel has no instructors/ on its path; a path
    # added by hand does not help: the hidden grading's process refuses the import)
    "reference": {"ex-pgs-mirror": "import sys\nsys.path.insert(0, %r)\n"
                  "from instructors.reference.pegasos import grad_conjugate\n" % str(ROOT)},
    # the self-check replaced in the kernel: the visible test passes there, the hidden
    # grading runs in this process
    "patcher": {"ex-pgs-mirror": "import rlmlib.book.checkers.pegasos as c\n"
                "c.check_grad_conjugate = lambda f: 'ok'\n\n"
                "def grad_conjugate(theta, p):\n    return theta\n"},
    # a library function that computes the hard part, not registered as a twin
    "unregistered": {"ex-pgs-ball": "from rlmlib.core.pnorm import _scaled_norm\n\n"
                     "def r_conjugate_ball(theta, p, B):\n"
                     "    nq = _scaled_norm(theta, p / (p - 1))\n"
                     "    if (p - 1) * nq <= B:\n        return (p - 1) * nq ** 2 / 2\n"
                     "    return B * nq - B ** 2 / (2 * (p - 1))\n"},
}}


def test_autograde_grades_sample_submissions(released):
    from instructors.hidden import grade_course

    course, part = released
    fs = [f for _, group in assignments.parts()[part] for f in group]
    subs = {"good": {}}
    for k in range(3 if SELECTED is PARTS else 2):   # a different typical mistake in each
        subs[f"mistakes{k}"] = {f.name: k % len(MISTAKES[f.name]) for f in fs}
    library = {f.name: next(i for i, m in enumerate(MISTAKES[f.name]) if m[0] == "library")
               for f in fs if any(m[0] == "library" for m in MISTAKES[f.name])}
    if library:
        subs["library"] = library
    for student, mistakes in subs.items():
        assignments.submission(course, part, student, mistakes)
    gaming = GAMING.get(part, {})
    for student, cells in gaming.items():
        assignments.submission(course, part, student, {}, cells)
    _nbgrader(course, "autograde", part, "--create")
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        if "patcher" in gaming:            # the kernel's visible test was gamed ...
            g = gb.find_grade("ex-pgs-mirror-test-grad_conjugate", part, part, "patcher")
            assert g.auto_score == g.max_score > 0
    grade_course(course, part)             # ... the hidden grading, outside the kernel
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for student, cells in gaming.items():
            fs_of = dict(assignments.parts()[part])
            for label in cells:
                for f in fs_of[label]:
                    g = gb.find_grade(f"{label}-test-{f.name}", part, part, student)
                    assert g.score == 0 and g.needs_manual_grade, (student, f.name)
                c = gb.find_comment(f"{label}-answer", part, part, student)
                assert c.manual_comment.startswith("AUDIT"), (student, c.manual_comment)
        for student, mistakes in subs.items():
            sub = gb.find_submission(part, student)
            grades = {g.name: (g.score, g.max_score) for nb in sub.notebooks
                      for g in nb.grades}
            for f in fs:
                gid = next(k for k in grades if k.endswith(f"-test-{f.name}"))
                score, max_score = grades[gid]
                want = 0.0 if f.name in mistakes else max_score
                assert score == want, (student, f.name, score, want)
            if student == "good":         # full marks but for the proofs it left out:
                written = [g for nb in sub.notebooks for g in nb.grades   # unanswered, 0
                           if g.name.endswith("-written")]
                assert written and all(g.score == 0 < g.max_score for g in written)
                assert sub.score == sub.max_score - sum(g.max_score for g in written) > 0
    shutil.rmtree(course / "autograded", ignore_errors=True)
