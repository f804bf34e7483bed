"""Hidden grading tests, one module per part: ``grade_<function>(func, seed=None)`` runs the
student's self-check, then the hidden instances (drawn with ``seed``, or a fresh seed at
grading time), and raises AssertionError naming the input, the coordinate and the error;
it returns a one-line message otherwise (instructors/__init__.py)."""
