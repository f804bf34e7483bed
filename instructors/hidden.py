"""The hidden grading of nbgrader submissions, outside the kernel that ran them (DESIGN.md,
"Grading outside the submission's kernel").

    python -m instructors.hidden COURSE_DIR PART [--seed N]

run after ``nbgrader autograde PART`` (which runs, in the submission's kernel, only the
visible self-checks: that kernel has no ``instructors`` to import). For every submission of
PART in the gradebook it

* audits the code of each answer cell (instructors/audit.py, the source is parsed, never
  run here);
* runs the answer cells in a fresh process (instructors/worker.py, started with ``python
  -I`` in an empty directory: no course tree on its path, the library's twins disabled, no
  rlmlib name the statement does not offer) and the hidden graders of instructors/grading
  in this process, on instances drawn from a seed drawn now (after the kernel has ended:
  it never saw them);
* writes into the gradebook: each test cell's score (``manual_score``: the points when the
  hidden grader passes, 0 otherwise; nbgrader's score is the manual score when there is
  one), the grader's message and the audit's findings as the answer cell's comment, and
  ``needs_manual_grade`` on every test cell whose answer the audit flagged.

The instructor then sees, in formgrader or ``nbgrader export``, the scores of the hidden
grading and the flagged submissions to read.
"""
from __future__ import annotations

import argparse
import secrets
import sys
from dataclasses import dataclass, field
from pathlib import Path

from instructors.audit import audit
from instructors.exercises import allowed_library, grader, part_exercises, setup_code
from instructors.grading.common import check_no_twin
from instructors.isolation import Submission


@dataclass
class Result:
    label: str
    name: str
    passed: bool
    message: str
    findings: list = field(default_factory=list)


def grade_answers(part: str, answers: dict, seed=None) -> list[Result]:
    """Grade the answer cells ``answers`` ({exercise label: source}) of ``part``: a Result
    per function, in the book's order. ``seed`` (drawn now when None) seeds every hidden
    grader."""
    seed = secrets.randbits(32) if seed is None else int(seed)
    exercises = part_exercises(part)
    cells = [answers.get(label, "") for label, _ in exercises]
    allowed = allowed_library(part)
    twins = sorted({t for _, fs in exercises for f in fs for t in f.twins})
    results = []
    try:
        sub = Submission(setup_code(part), cells, allowed, twins)
    except AssertionError as e:          # the answer cells never finished (a loop, a crash)
        return [Result(label, f.name, False, f"your answer cells: {e}",
                       audit(cells[i], allowed, setup_code(part)))
                for i, (label, fs) in enumerate(exercises) for f in fs]
    with sub:
        for i, (label, fs) in enumerate(exercises):
            findings = audit(cells[i], allowed, setup_code(part))
            for f in fs:
                try:
                    remote = sub.function(f.name, i)
                    check_no_twin(f.name, remote, f.twins)     # before any test runs
                    msg = grader(f)(remote, seed=seed)
                    ok = True
                except AssertionError as e:
                    msg, ok = str(e), False
                except Exception as e:  # noqa: BLE001 - e.g. the submission's RuntimeError
                    msg, ok = f"{type(e).__name__}: {e}", False
                results.append(Result(label, f.name, ok, msg, findings))
    return results


def _answers(nb_path: Path) -> dict:
    import nbformat

    nb = nbformat.read(nb_path, as_version=4)
    out = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        gid = meta.get("grade_id", "")
        if meta.get("solution") and gid.endswith("-answer"):
            out[gid[: -len("-answer")]] = cell.source
    return out


def comment_text(results: list[Result]) -> str:
    lines = []
    flags = results[0].findings if results else []
    if flags:
        lines.append("AUDIT (needs an instructor's look): " + "; ".join(flags))
    for r in results:
        lines.append(f"{r.name}: {'pass' if r.passed else 'FAIL'} - {r.message}")
    return "\n".join(lines)


def grade_course(course_dir: Path, part: str, seed=None) -> dict:
    """Grade every submission of ``part`` in the gradebook of ``course_dir``; write the
    scores, comments and flags; return {student: [Result]}."""
    from nbgrader.api import Gradebook

    course_dir = Path(course_dir).resolve()
    report = {}
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        for sub in gb.assignment_submissions(part):
            student = sub.student.id
            nb = course_dir / "autograded" / student / part / f"{part}.ipynb"
            if not nb.exists():
                nb = course_dir / "submitted" / student / part / f"{part}.ipynb"
            results = grade_answers(part, _answers(nb), seed)
            report[student] = results
            for label in dict.fromkeys(r.label for r in results):
                mine = [r for r in results if r.label == label]
                for r in mine:
                    g = gb.find_grade(f"{label}-test-{r.name}", part, part, student)
                    g.manual_score = g.max_score if r.passed else 0.0
                    g.needs_manual_grade = bool(r.findings)
                c = gb.find_comment(f"{label}-answer", part, part, student)
                c.manual_comment = comment_text(mine)
            gb.db.commit()
    return report


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("course_dir", type=Path)
    ap.add_argument("part")
    ap.add_argument("--seed", type=int)
    args = ap.parse_args(argv)
    report = grade_course(args.course_dir, args.part, args.seed)
    for student, results in report.items():
        passed = sum(r.passed for r in results)
        flagged = sorted({r.label for r in results if r.findings})
        print(f"{student}: {passed}/{len(results)} hidden tests pass"
              + (f"; FLAGGED {', '.join(flagged)}" if flagged else ""))
        for r in results:
            for finding in (r.findings if r is next(x for x in results
                                                   if x.label == r.label) else []):
                print(f"    {r.label}: {finding}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
