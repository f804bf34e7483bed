"""nbgrader assignments from the code exercises (tools/assignments.py): the source notebook
holds solution regions, autograded test cells with hidden tests and points; `nbgrader
generate_assignment` releases it with an empty, marked answer cell per code exercise; and
nbgrader's own `autograde` grades sample submissions (the reference answers, typical
mistakes, calls of the library's own function) as expected.

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
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
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
        answers = [c for c in nb.cells if c.metadata["nbgrader"]["solution"]]
        tests = [c for c in nb.cells if c.metadata["nbgrader"]["grade"]]
        labels = [lab for lab, fs in EXERCISES.items() if fs[0].part == part]
        assert len(answers) == len(labels)
        n_code += len(labels)
        for c in answers:
            assert c.source.startswith("### BEGIN SOLUTION\n")
            assert c.source.endswith("### END SOLUTION")
        for c in tests:
            assert "### BEGIN HIDDEN TESTS" in c.source and c.metadata["nbgrader"]["points"] > 0
        assert all(m["schema_version"] == 3 and m["grade_id"] for m in meta)
        assert len({m["grade_id"] for m in meta}) == len(meta)
    assert n_code == 15          # every checked code exercise of the book (16 functions)


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
    answers = [c for c in nb.cells if c.metadata["nbgrader"]["solution"]]
    assert len(answers) == len(assignments.parts()[part])
    for c in answers:
        assert c.source == "# YOUR CODE HERE\nraise NotImplementedError()"
    text = "".join(c.source for c in nb.cells)
    assert "HIDDEN TESTS" not in text and "instructors" not in text and "SOLUTION" not in text


def test_autograde_grades_sample_submissions(released):
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
    _nbgrader(course, "autograde", part, "--create")
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for student, mistakes in subs.items():
            sub = gb.find_submission(part, student)
            grades = {g.name: (g.score, g.max_score) for nb in sub.notebooks
                      for g in nb.grades}
            for f in fs:
                gid = next(k for k in grades if k.endswith(f"-test-{f.name}"))
                score, max_score = grades[gid]
                want = 0.0 if f.name in mistakes else max_score
                assert score == want, (student, f.name, score, want)
            if student == "good":
                assert sub.score == sub.max_score > 0
    shutil.rmtree(course / "autograded", ignore_errors=True)
