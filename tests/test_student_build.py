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


def test_student_config_points_launch_buttons_at_the_student_branch():
    cfg = (Path(__file__).resolve().parents[1] / "_config.yml").read_text()
    out = student.student_config(cfg)
    assert "(student edition)" in out
    assert "branch: student" in out and "branch: main" not in out


def test_student_tree_has_every_tracked_file_and_no_solution(tmp_path):
    import subprocess

    root = Path(__file__).resolve().parents[1]
    student.make_student_tree(root, tmp_path / "s")
    tracked = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True,
                             text=True, check=True).stdout.split()
    for rel in ["requirements.txt", "postBuild", "rlmlib/__init__.py",
                ".jupyter/labconfig/default_setting_overrides.json"]:
        if rel in tracked:
            assert (tmp_path / "s" / rel).is_file(), rel
    pages = list((tmp_path / "s" / "chapters").rglob("*.md"))
    assert pages
    import re

    fence = re.compile(r"^\s*(`{3,}|:{3,})\{solution", re.M)
    for page in pages:
        assert not fence.search(page.read_text()), page
    assert "branch: student" in (tmp_path / "s" / "_config.yml").read_text()
    # the exercises stay
    assert "{exercise}" in (tmp_path / "s" / "chapters/pegasos/index.md").read_text()
