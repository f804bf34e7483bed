"""tools/student.py removes every solution, both kinds, and nothing else."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import student  # noqa: E402

SAMPLE = """\
# Chapter

Text before.

```{exercise}
:label: ex-a

Do A.
```

```{solution} ex-a
:class: dropdown

SECRET-1 plain solution.
```

::::{exercise}
:label: ex-b
Do B.
::::

:::{solution} ex-b
SECRET-2 colon-fenced solution
:::

````{solution} ex-a
```python
SECRET-3 = "nested fence inside a solution"
```
````

```{exercise}
:label: ex-c

Write code.
```

````{solution-start} ex-c
:class: dropdown
````

SECRET-4 explanation of the gated solution.

```{code-cell} ipython3
SECRET_5 = 1 + 1
assert SECRET_5 == 2
```

````{solution-end}
````

```{code-cell} ipython3
kept = "a normal cell after the solution"
```

Text after.
"""


def test_strips_both_kinds_and_keeps_the_rest():
    out = student.strip_solutions(SAMPLE)
    assert "SECRET" not in out
    assert "{solution" not in out
    for kept in ["# Chapter", "Text before.", ":label: ex-a", "Do A.", ":label: ex-b", "Do B.",
                 ":label: ex-c", "Write code.", 'kept = "a normal cell after the solution"',
                 "Text after."]:
        assert kept in out, kept
    # every exercise directive keeps its closing fence
    assert out.count("```{exercise}") == 2 and out.count("::::{exercise}") == 1
    assert out.count("```{code-cell}") == 1


def test_no_solution_is_identity():
    text = "# T\n\n```{exercise}\n:label: e\nx\n```\n"
    assert student.strip_solutions(text) == text


@pytest.mark.parametrize("text, match", [
    ("````{solution-start} e\n````\nno end\n", "has no {solution-end}"),
    ("```{solution-end}\n```\n", "solution-end without solution-start"),
    ("```{solution} e\nnever closed\n", "unclosed directive opened on line 1"),
    ("```{solution-start} a\n```\n```{solution-start} b\n```\n", "solution-start inside an open"),
])
def test_malformed_solutions_are_errors(text, match):
    with pytest.raises(ValueError, match=match):
        student.strip_solutions(text, "x.md")


def test_student_sources_of_this_book(tmp_path):
    root = Path(__file__).resolve().parents[1]
    files = student.make_student_sources(root, tmp_path / "student")
    assert files
    src_has = sum("{solution-start}" in p.read_text() for p in (root / "chapters").rglob("*.md"))
    assert src_has >= 1      # the book has at least one gated solution to remove
    for f in files:
        for line in f.read_text(encoding="utf8").splitlines():
            m = student.FENCE.match(line)
            assert not (m and m["name"].startswith("solution")), (f, line)
    cfg = (tmp_path / "student" / "_config.yml").read_text()
    assert "(student edition)" in cfg
    assert str(root / "_build" / ".jupyter_cache") in cfg
