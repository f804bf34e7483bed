"""nbgrader assignments from the book's code exercises: one per part (the instructors' tool;
the student edition does not contain it).

    python tools/assignments.py COURSE_DIR [--parts sgdqn fiol ...]
        writes COURSE_DIR/nbgrader_config.py and COURSE_DIR/source/<part>/<part>.ipynb
    python tools/assignments.py COURSE_DIR --submission PART STUDENT [NAME=SPEC ...]
        writes COURSE_DIR/submitted/STUDENT/PART/PART.ipynb: the released notebook with
        every answer cell filled with the reference answer, or for NAME the mistake SPEC
        of instructors/mistakes.py (its index in MISTAKES[NAME])

`make assignments` writes the sources into _build/course and runs
`nbgrader generate_assignment` on each, which releases it into _build/course/release/:
every solution region (`### BEGIN SOLUTION` ... `### END SOLUTION`) becomes the marked stub
`# YOUR CODE HERE` / `raise NotImplementedError()`. A source notebook holds, per code
exercise: its statement (read-only), for an exercise that also asks for a proof or a
derivation a manually graded Markdown answer cell with half its points, one answer cell (the
reference answer inside a solution region, so the release has an empty, marked cell) and one
autograded test cell per function with the rest of the exercise's points (course.yml): the
visible self-check of rlmlib.book.checkers.
The hidden grading does not run in the submission's kernel (which has no `instructors` to
import: run nbgrader without the repository on PYTHONPATH): after `nbgrader autograde
PART`, `python -m instructors.hidden COURSE_DIR PART` audits every submission's code,
reruns its answers in a fresh process on instances drawn then, and writes the hidden
scores, messages and audit flags into the gradebook (instructors/hidden.py).
"""
from __future__ import annotations

import argparse
import inspect
import json
import re
import sys
import textwrap
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

import course  # noqa: E402
from instructors.exercises import EXERCISES, reference, setup_code  # noqa: E402
from instructors.marking import DEDUCTIONS, MARKING  # noqa: E402
from instructors.mistakes import MISTAKES, source as mistake_source  # noqa: E402

TITLES = {"foundations": "Foundations", "pegasos": "Pegasos and the p-norm PGS",
          "sgdqn": "SGD, SVMSGD2 and SGD-QN", "fiol": "Fully implicit online learning",
          "precond": "Data preconditioning",
          "adaptive": "Adaptive steps, non-convex objectives and mirror descent"}

NBGRADER_CONFIG = """\
# nbgrader configuration of the course written by tools/assignments.py
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = "rlm-stochastic-solvers"
c.CourseDirectory.root = {root!r}
c.ExecutePreprocessor.timeout = 300
c.Execute.timeout = 300
c.ClearSolutions.code_stub = {{"python": "# YOUR CODE HERE\\nraise NotImplementedError()"}}
"""


def _meta(grade_id, *, solution=False, grade=False, locked=True, points=None):
    m = {"grade": grade, "solution": solution, "locked": locked, "grade_id": grade_id,
         "schema_version": 3}
    if points is not None:
        m["points"] = points
    return {"nbgrader": m}


def _ref_source(f):
    return textwrap.dedent(inspect.getsource(reference(f))).rstrip() + "\n"


def parts():
    """{part: [(label, [Function])]} of every checked code exercise, in the book's order."""
    out = {}
    for label, fs in EXERCISES.items():
        out.setdefault(fs[0].part, []).append((label, fs))
    return out


def has_written_part(e) -> bool:
    """Whether exercise ``e`` asks for a proof or a derivation besides its code."""
    kind = e.kind.lower()
    return "code" in kind and ("proof" in kind or "derivation" in kind)


def proof_and_code_points(total: int, e) -> tuple[int, int]:
    """(points of the written part, points of the code): half each (the code gets the odd
    point) when the exercise has both, so that skipping the proof costs its half."""
    if not has_written_part(e):
        return 0, total
    return total // 2, total - total // 2


def _split_points(total, n):
    base = [total // n] * n
    base[0] += total - sum(base)
    return base


def source_notebook(part: str, root: Path = ROOT):
    """The nbgrader source notebook of one part."""
    by_label = {e.label: e for e in course.exercises(root)}
    plan = course.plan(root)
    cells = [nbformat.v4.new_markdown_cell(
        f"# {TITLES.get(part, part)}: the code exercises\n\nWrite each function in the "
        "cell marked `# YOUR CODE HERE` (replace the `raise NotImplementedError()`), and run "
        "the test cell below it: it runs the self-check the book names; the grading runs "
        "more tests on more inputs, in a separate process, and reads your code.",
        metadata=_meta(f"{part}-intro"))]
    setup = setup_code(part)
    cells.append(nbformat.v4.new_code_cell(setup, metadata=_meta(f"{part}-setup")))
    for label, fs in parts()[part]:
        e = by_label[label]
        points = e.points(plan)
        statement = re.sub(r"\{[\w:-]+\}`([^`<]*?)\s*(?:<[^>`]*>)?`", r"\1",
                           course._plain_body(e))      # roles as plain text: no Sphinx here
        written, code = proof_and_code_points(points, e)
        split = f": {written} for the proof or derivation, {code} for the code" if written \
            else ""
        cells.append(nbformat.v4.new_markdown_cell(
            f"## Exercise `{label}` ({points} points{split})\n\n{statement}",
            metadata=_meta(f"{label}-statement")))
        if written:                # marked by hand: nbgrader's manually graded answer cell
            scheme = "".join(f"\n- {pts} points: {step}" for pts, step in
                             MARKING.get(label, []))   # in the source only (cleared)
            scheme += "".join(f"\n- minus {pts}: {wrong}" for pts, wrong in
                              DEDUCTIONS.get(label, []))
            cells.append(nbformat.v4.new_markdown_cell(
                "Write the proof or derivation the exercise asks for here."
                + (f"\n\nMarking scheme:{scheme}" if scheme else ""),
                metadata=_meta(f"{label}-written", solution=True, grade=True,
                               locked=False, points=written)))
        answer = "".join(_ref_source(f) + "\n\n" for f in fs).rstrip() + "\n"
        cells.append(nbformat.v4.new_code_cell(
            "### BEGIN SOLUTION\n" + answer + "### END SOLUTION",
            metadata=_meta(f"{label}-answer", solution=True, locked=False)))
        for f, pts in zip(fs, _split_points(code, len(fs))):
            test = (f"from {f.checker_path.rpartition('.')[0]} import {f.checker}\n"
                    f"print({f.checker}({f.name}))\n"
                    "# the hidden tests run outside this kernel, after autograde")
            cells.append(nbformat.v4.new_code_cell(
                test, metadata=_meta(f"{label}-test-{f.name}", grade=True, points=pts)))
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def write_course(course_dir: Path, only=None):
    course_dir = course_dir.resolve()
    course_dir.mkdir(parents=True, exist_ok=True)
    (course_dir / "nbgrader_config.py").write_text(
        NBGRADER_CONFIG.format(root=str(course_dir)), encoding="utf8")
    written = []
    for part in parts():
        if only and part not in only:
            continue
        d = course_dir / "source" / part
        d.mkdir(parents=True, exist_ok=True)
        nbformat.write(source_notebook(part), d / f"{part}.ipynb")
        written.append(part)
    return written


def submission(course_dir: Path, part: str, student: str, mistakes: dict[str, int],
               cells: dict[str, str] | None = None):
    """A submitted notebook: the release of `part` with every answer cell filled, with the
    reference answer or (for the names in `mistakes`) the mistake of that index, or (for
    the exercise labels in `cells`) that source."""
    release = course_dir / "release" / part / f"{part}.ipynb"
    nb = nbformat.read(release, as_version=4)
    fs_of = dict(parts()[part])
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if gid.endswith("-answer") and cell.metadata["nbgrader"].get("solution"):
            label = gid[: -len("-answer")]
            if cells and label in cells:
                cell.source = cells[label]
                continue
            srcs = []
            for f in fs_of[label]:
                if f.name in mistakes:
                    spec = MISTAKES[f.name][mistakes[f.name]][2]
                    srcs.append(mistake_source(f.name, spec))
                else:
                    srcs.append(_ref_source(f))
            cell.source = "\n\n".join(s.rstrip() for s in srcs) + "\n"
    d = course_dir / "submitted" / student / part
    d.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, d / f"{part}.ipynb")
    return d / f"{part}.ipynb"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("course_dir", type=Path)
    ap.add_argument("--parts", nargs="*")
    ap.add_argument("--submission", nargs="+", metavar="ARG")
    args = ap.parse_args(argv)
    if args.submission:
        part, student, *specs = args.submission
        mistakes = {k: int(v) for k, v in (s.split("=") for s in specs)}
        print(submission(args.course_dir, part, student, mistakes))
        return 0
    written = write_course(args.course_dir, args.parts)
    print(json.dumps({"course": str(args.course_dir), "assignments": written}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
