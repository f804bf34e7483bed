"""The instructors' material of the book (not in the student edition: tools/student.py leaves
this folder out of the `student` branch and of the student HTML).

* ``instructors.exercises``: every checked code exercise: its label, the function(s) it asks
  for, the student's self-check in ``rlmlib.book.checkers``, the hidden grader here, and the
  library functions that compute the same answer ("twins": a submission must not call or
  copy them).
* ``instructors.reference``: the reference answers (the chapters' solutions), per part.
* ``instructors.grading``: the hidden grading tests, per part: reference comparisons on
  instances drawn at grading time, extreme and mixed-magnitude inputs, every order of branch
  conditions, the whole domain at the stated tolerance, inputs left unmodified, no call or
  copy of a library twin. ``grade_<function>(func, seed=None)`` raises AssertionError.
* ``instructors.mistakes``: typical wrong answers per exercise, written as a student would;
  the tests (tests/test_grading.py) and the nbgrader sample submissions use them.
* ``instructors.expected``: writes ``rlmlib/book/checkers/expected.json``, the expected
  values of the self-checks' fixed cases (numbers, no formula), from the references.

``make assignments`` (tools/assignments.py) turns the exercises into nbgrader assignments.
"""
