"""The course apparatus (tools/course.py, course.yml): every exercise of the book is in
exactly one weekly problem set, the instructors' counts match the exercises, and every code
exercise of the chapters has its self-check, its grader and its nbgrader cell (the
instructors' registry instructors/exercises.py lists exactly the checked exercises)."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import course  # noqa: E402
from instructors.exercises import EXERCISES, checker  # noqa: E402


def test_every_exercise_is_in_exactly_one_problem_set():
    placed = [e.label for ex in course.problem_sets().values() for e in ex]
    every = [e.label for e in course.exercises()]
    assert len(placed) == len(set(placed)) and sorted(placed) == sorted(every)
    assert 13 <= len(course.weeks()) <= 14


def test_weeks_name_pages_that_exist_or_a_part():
    toc_pages = {p for _, pages in course.toc() for p in pages}
    for n, w, pages, exists in course.weeks():
        assert set(pages) <= toc_pages, (n, pages)
        assert exists or "part" in w, n
    parts = {w["part"] for _, w, _, _ in course.weeks() if "part" in w}
    assert parts == {"Convergence of stochastic gradient methods", "Variance reduction"}


def test_counts_match_the_exercises():
    """The counts of issue 20 (SGD-QN showed 4 of 5, FIOL 2 of 3, Foundations 6 of 8)."""
    counts = course.counts()
    assert counts["Foundations"][0] == 15          # 8, and the assumptions page's 7
    assert counts["SGD, SVMSGD2 and SGD-QN"][1:] == (5, 5, 5)
    assert counts["Fully implicit online learning"][1:] == (3, 3, 3)
    for part, (n, code, code_checked, checked) in counts.items():
        assert n == len([e for e in course.exercises() if e.part == part])
        assert code == code_checked == checked, part


def test_the_registry_lists_exactly_the_checked_exercises():
    chapters = {e.label: e for e in course.exercises() if e.checkers}
    assert set(chapters) == set(EXERCISES)
    for label, fs in EXERCISES.items():
        named = {c.rpartition(".")[2] for c in chapters[label].checkers}
        assert {f.checker for f in fs} == named, label
        for f in fs:
            assert callable(checker(f))


def test_points_and_problem_set_text():
    plan = course.plan()
    text = course.problem_sets_markdown()
    for e in course.exercises():
        assert e.points(plan) in (5, 10, 15), e.label
        assert f"{{ref}}`{e.label}`" in text
    assert text.count("break-before: page") == len(course.weeks()) - 1
    assert "<experiments>" not in text             # relative {doc} links made absolute


def test_workload_estimate_counts_prose_and_exercises():
    """tools/course.py's workload: prose words without code cells and solutions, hours by
    difficulty and kind at the stated rates, and every week within 30 % of the mean."""
    import course

    page = ("---\njupytext: {}\n---\n# T\n\none two three\n\n```{code-cell} ipython3\n"
            "x = 1 + 2 + 3 + 4\n```\n\n````{solution-start} ex-a\n````\n\nhidden words here\n"
            "\n```{code-cell} ipython3\ny = 2\n```\n\n````{solution-end}\n````\n\n"
            "```{solution} ex-b\nmore hidden\n```\nfour\n")
    assert course.prose_words(page) == 6          # "#", "T", one, two, three, four
    ex = course.Exercise("ex", "t", "b", "p", "P", stars="★★", kind="proof and code")
    assert course.exercise_hours(ex) == 2.0 + 0.5
    ex = course.Exercise("ex", "t", "b", "p", "P", stars="★★★", kind="experiment")
    assert course.exercise_hours(ex) == 4.0 + 0.5
    rows = course.workload()
    mean = sum(r[6] for r in rows) / len(rows)
    assert len(rows) == 14
    assert all(abs(r[6] / mean - 1) <= 0.30 for r in rows), [(r[0], round(r[6], 1))
                                                           for r in rows]
    assert "1,500 words read an hour" in course.workload_table()
    for n, ex in course.problem_sets().items():       # proof coursework in every week
        assert sum(e.stars in ("★★", "★★★") and ("proof" in e.kind or "derivation" in e.kind)
                   for e in ex) >= 2, n


def test_marking_schemes_add_up_to_the_written_points():
    """instructors/marking.py: every exercise with a proof or derivation and code has a
    scheme, every scheme's points add up to the written part's points (half for one with
    code, all for a proof alone), every proof or derivation exercise has one, and every
    deduction for a wrong step costs at most the exercise's written points."""
    import assignments
    from instructors.marking import DEDUCTIONS, MARKING

    plan = course.plan()
    by_label = {e.label: e for e in course.exercises()}
    for label, steps in MARKING.items():
        e = by_label[label]
        written, _ = assignments.proof_and_code_points(e.points(plan), e)
        want = written if assignments.has_written_part(e) else e.points(plan)
        assert sum(p for p, _ in steps) == want and all(p > 0 for p, _ in steps), label
    mixed = [e.label for e in by_label.values() if assignments.has_written_part(e)
             and e.checkers]
    assert not set(mixed) - set(MARKING), set(mixed) - set(MARKING)
    missing = [e.label for e in by_label.values() if e.label not in MARKING
               and ("proof" in e.kind or "derivation" in e.kind)]
    assert not missing, f"proof or derivation exercises without a marking scheme: {missing}"
    assert not set(MARKING) - set(by_label), set(MARKING) - set(by_label)
    assert set(DEDUCTIONS) == set(MARKING)       # common wrong steps for every scheme
    for label, wrong in DEDUCTIONS.items():     # what a wrong step costs, within the points
        total = sum(p for p, _ in MARKING[label])
        assert wrong and all(0 < p <= total and len(w) > 20 for p, w in wrong), label
