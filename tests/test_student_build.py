"""tools/student.py removes every solution, both kinds, and nothing else."""
import re
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


# ------------------------------------------------------------------ nothing leaks (issue 20)
ROOT = Path(__file__).resolve().parents[1]
STUDENT_HTML = ROOT / "_build" / "student" / "_build" / "html"
#: answers as they were once shown (checker docstrings, reference functions): never in the
#: student edition, whatever the reference answers' code looks like today
KNOWN_LEAKS = ["ceil(c * n / d)", "ceil(c*n/d)", "min(1.0, 2.0 * c)", "min(1, 2c)",
               "1.0 / (2.0 + math.exp(R)", "1.0 / (1.0 + ratio / c",
               "import corrected_update", "import scheduled_step", "import secant_ratio",
               "check_grad_conjugate(pnorm.grad_conjugate)",
               "check_sort_step(lambda w, x, y, eta, sigma: fiol_step"]
#: the library's own functions that compute an answer (instructors/exercises.py "twins"):
#: the library needs them; the grading refuses a submission that calls or copies them
TWIN_FILES = {"rlmlib/core/pnorm.py", "rlmlib/solvers/fiol.py",
              "rlmlib/precond/preconditioner.py", "rlmlib/solvers/saga.py",
              "rlmlib/solvers/sdca.py", "rlmlib/solvers/asgd.py"}


#: lines of a reference that the exercise's statement or the algorithm box gives
GIVEN = {"eta = 1.0 / (sigma * (t + t0))"}
#: what else once answered an exercise in a visible place (issue 36): helper cells that
#: compute the answer before the exercise, algorithm boxes run in NumPy that hold the step
#: an exercise asks for, and tables that state it
ANSWER_HELPERS = {
    "ex-lb-kl": ["def two_point_kl(", "T * delta * (np.log1p(delta) - np.log1p(-delta))"],
    "ex-qn-schedule": ["def svmsgd2_box("],
    "ex-qn-corrected": ["def corrected_box("],
    "ex-vr-sqhinge": [r"\beta + (1 - y_iz - \beta)/(1 + q_i)", r"$\beta_i - \beta_i^2/2$ on"],
}


def _norm(line):
    return " ".join(line.split())


def distinctive_lines():
    """{reference function: its code lines that would identify a copy} of every reference
    answer (instructors/reference), plus KNOWN_LEAKS."""
    import inspect
    import textwrap

    from instructors.exercises import functions, reference

    out = {}
    for _, f in functions():
        src = textwrap.dedent(inspect.getsource(reference(f)))
        lines = [_norm(ln.split("#")[0]) for ln in src.splitlines()[1:]]
        out[f.name] = [ln for ln in lines if len(ln) >= 22 and ln not in GIVEN]
        assert out[f.name] or f.name == "rate_exponent", f.name
    out["known leaks"] = [_norm(s) for s in KNOWN_LEAKS]
    for label, lines in ANSWER_HELPERS.items():
        out[f"helper answering {label}"] = [_norm(s) for s in lines]
    return out


@pytest.fixture(scope="module")
def student_tree(tmp_path_factory):
    dest = tmp_path_factory.mktemp("student") / "tree"
    student.make_student_tree(ROOT, dest)
    return dest


def test_student_tree_leaves_out_the_instructors_material(student_tree):
    assert (ROOT / "instructors" / "grading").is_dir()
    assert not (student_tree / "instructors").exists()
    assert not (student_tree / "requirements-instructors.txt").exists()
    for py in student_tree.rglob("*.py"):
        assert not student.IMPORTS_INSTRUCTORS.search(py.read_text(errors="replace")), py
    assert not (student_tree / "tests").exists()
    assert (student_tree / "rlmlib" / "book" / "checkers" / "expected.json").is_file()


def test_no_reference_answer_in_the_student_sources(student_tree):
    found = []
    leaks = distinctive_lines()
    for path in student_tree.rglob("*"):
        rel = path.relative_to(student_tree).as_posix()
        if not path.is_file() or rel in TWIN_FILES or path.suffix not in (
                ".py", ".md", ".txt", ".yml", ".json", ".cfg", ".toml", ".ipynb", ""):
            continue
        text = _norm(path.read_text(encoding="utf8", errors="replace"))
        found += [(rel, name, ln) for name, lines in leaks.items() for ln in lines
                  if ln in text]
    assert not found, found[:10]


def test_the_leak_search_finds_a_leak(student_tree, tmp_path):
    """The search above fails on a tree that holds an answer (a test that cannot fail is a
    defect): the main sources hold every solution."""
    text = _norm((ROOT / "chapters" / "sgdqn" / "index.md").read_text(encoding="utf8"))
    hits = [ln for lines in distinctive_lines().values() for ln in lines if ln in text]
    assert len(hits) >= 5


def test_no_reference_answer_in_the_student_html():
    if not (STUDENT_HTML / "index.html").exists():
        pytest.skip(f"the student HTML is not built ({STUDENT_HTML} is absent): run "
                    "`make book-student` (`make test` builds it before the HTML tests)")
    import html as html_mod

    leaks = distinctive_lines()
    found = []
    for page in STUDENT_HTML.rglob("*.html"):
        raw = page.read_text(encoding="utf8", errors="replace")
        text = _norm(html_mod.unescape(re.sub(r"<[^>]+>", "", raw)))
        found += [(page.name, name, ln) for name, lines in leaks.items() for ln in lines
                  if ln in text]
    assert not found, found[:10]
    api = (STUDENT_HTML / "api.html").read_text(encoding="utf8")
    assert "check_grad_conjugate" in api and "rlmlib.core.pnorm.grad_conjugate" not in api


def _marking_texts():
    """The text of every marking-scheme step and deduction (instructors/marking.py)."""
    from instructors.marking import DEDUCTIONS, MARKING

    return {(label, _norm(text)) for table in (MARKING, DEDUCTIONS)
            for label, steps in table.items() for _, text in steps}


def _marking_hits(tree, texts):
    found = []
    for path in tree.rglob("*"):
        if path.is_file() and path.suffix in (".py", ".md", ".txt", ".yml", ".json",
                                              ".ipynb", ".html", ""):
            text = path.read_text(encoding="utf8", errors="replace")
            if path.suffix == ".html":
                import html as html_mod

                text = html_mod.unescape(re.sub(r"<[^>]+>", "", text))
            text = _norm(text)
            found += [(path.name, label) for label, t in texts if t in text]
    return found


def test_no_marking_scheme_in_the_student_edition(student_tree, tmp_path):
    """No step or deduction of a marking scheme (instructors/marking.py) in any file of the
    student tree, nor in the student HTML when it is built; the search finds one planted."""
    texts = _marking_texts()
    assert len(texts) > 200
    assert not _marking_hits(student_tree, texts)
    if (STUDENT_HTML / "index.html").exists():
        assert not _marking_hits(STUDENT_HTML, texts)
    label, text = sorted(texts)[0]
    (tmp_path / "page.md").write_text(f"# A page\n\nIt says {text}.\n", encoding="utf8")
    assert _marking_hits(tmp_path, texts) == [("page.md", label)]


def test_every_code_exercise_has_an_empty_marked_answer_cell(student_tree):
    for page in ("chapters/sgdqn/index.md", "chapters/pegasos/index.md",
                 "chapters/fiol/index.md", "chapters/precond/index.md",
                 "chapters/foundations/sgd.md"):
        src = (ROOT / page).read_text(encoding="utf8")
        out = (student_tree / page).read_text(encoding="utf8")
        n_code = len({m for m in re.findall(r":label: (ex-[\w-]+)", src)
                      if student._answer_cell(m, _exercise_body(src, m))})
        assert n_code >= 1
        assert out.count("# YOUR ANSWER to exercise") == n_code, page
    out = (student_tree / "chapters/sgdqn/index.md").read_text(encoding="utf8")
    cell = out.split("# YOUR ANSWER to exercise ex-qn-schedule")[1].split("```")[0]
    assert "check_scheduled_step" in cell and "def " not in cell


def _exercise_body(src, label):
    i = src.index(f":label: {label}")
    return src[i:src.index("\n```", i)]


def test_the_student_edition_describes_itself(student_tree):
    intro = (student_tree / "intro.md").read_text(encoding="utf8")
    assert "each solution follows its exercise, folded" not in intro
    assert "This is the *student edition*" in intro and "edition:" not in intro
    assert "opens the `main` branch" not in intro
    main_intro = (ROOT / "intro.md").read_text(encoding="utf8")
    assert "each solution follows its exercise, folded" in main_intro
    instr = (student_tree / "instructors.md").read_text(encoding="utf8")
    assert "Solutions follow their exercises" not in instr and "student edition" in instr
    api = (student_tree / "api.md").read_text(encoding="utf8")
    assert "rlmlib.core.pnorm.grad_conjugate" not in api
    assert "rlmlib.core.pnorm.grad_conjugate" in (ROOT / "api.md").read_text(encoding="utf8")
    assert "rlmlib.book.checkers.check_scaled_step" in api


def test_student_sources_for_the_html_get_the_same_treatment(tmp_path):
    student.make_student_sources(ROOT, tmp_path / "s")
    intro = (tmp_path / "s" / "intro.md").read_text(encoding="utf8")
    assert "This is the *student edition*" in intro
    assert "# YOUR ANSWER" in (tmp_path / "s" / "chapters/sgdqn/index.md").read_text()
    assert not (tmp_path / "s" / "instructors").exists()


def _nb(*cells):
    """A notebook of ("code" | "md", source[, outputs]) cells."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    for kind, src, *out in cells:
        if kind == "md":
            nb.cells.append(nbformat.v4.new_markdown_cell(src))
        else:
            c = nbformat.v4.new_code_cell(src)
            c.outputs = [nbformat.v4.new_output("stream", name="stdout", text=out[0])] \
                if out else []
            nb.cells.append(c)
    return nb


def test_student_pages_take_the_main_outputs_only_when_they_execute_alike():
    """tools/execute.py reuses the main edition's outputs for a student page whose cut
    cells all follow every kept cell that runs code (answer cells, comments only, may sit
    anywhere); otherwise the page must be executed (None)."""
    import execute

    main = _nb(("code", "x = 1", "a\n"), ("md", "Exercise"), ("code", "print(x)", "1\n"),
               ("code", "y = 2  # solution", "s\n"), ("code", "print(y)", "2\n"))
    answer = "# YOUR ANSWER to exercise ex-1: write your function here"
    student = _nb(("code", "x = 1"), ("md", "Exercise"), ("code", "print(x)"),
                  ("code", answer))
    got = execute.student_outputs(student, main)
    code = [c for c in got.cells if c.cell_type == "code"]
    assert [c.outputs[0].text if c.outputs else None for c in code] == ["a\n", "1\n", None]
    assert [c.cell_type for c in got.cells] == ["code", "markdown", "code", "code"]
    assert not student.cells[0].outputs  # the student notebook itself is left as it was
    # the lexer the main page was highlighted with (its kernel's language_info)
    main.metadata["language_info"] = {"name": "python", "pygments_lexer": "ipython3"}
    got = execute.student_outputs(student, main)
    assert got.metadata["language_info"]["pygments_lexer"] == "ipython3"
    # a kept cell after a cut one may depend on it: executed, not copied
    late = _nb(("code", "x = 1"), ("code", "print(x)"), ("code", "print(y)"))
    assert execute.student_outputs(late, main) is None
    # code that the main edition does not have: executed
    other = _nb(("code", "x = 1"), ("code", "print(x + 1)"))
    assert execute.student_outputs(other, main) is None
    # nothing cut, cells the same: copied whole
    same = _nb(*[(("md", c.source) if c.cell_type == "markdown" else ("code", c.source))
                 for c in main.cells])
    assert [c.outputs for c in execute.student_outputs(same, main).cells
            if c.cell_type == "code"] == [c.outputs for c in main.cells
                                          if c.cell_type == "code"]
    assert execute.inert("# a\n\n  # b") and not execute.inert("# a\nx = 1")


def _student_code_cells(tree):
    """{page: [source of each code cell]} of the student tree's chapters."""
    out = {}
    for page in sorted((tree / "chapters").rglob("*.md")):
        text = page.read_text(encoding="utf8")
        out[page.relative_to(tree).as_posix()] = re.findall(
            r"^```\{code-cell\}[^\n]*\n(.*?)^```", text, re.M | re.S)
    return out


def test_no_visible_cell_defines_an_exercise_function(student_tree):
    """A function the exercise asks for is defined only in its (empty) answer cell: no
    visible helper cell defines it before or after (two_point_kl before ex-lb-kl)."""
    from instructors.exercises import functions

    names = {f.name for _, f in functions()}
    found = []
    for page, cells in _student_code_cells(student_tree).items():
        for src in cells:
            found += [(page, m) for m in re.findall(r"^\s*def (\w+)\(", src, re.M)
                      if m in names]
    assert not found, found


def test_no_visible_helper_passes_an_exercise_checker(student_tree):
    """Every function a visible code cell of the student edition defines (whatever its
    name), run on the self-check of every code exercise whose function takes as many
    arguments: none passes, so no helper computes an exercise's answer."""
    import ast
    import inspect
    import math
    import signal
    import textwrap

    import numpy as np

    from instructors.exercises import checker, functions, reference

    by_arity = {}
    for _, f in functions():
        n = len(inspect.signature(reference(f)).parameters)
        by_arity.setdefault(n, []).append(f)
    passed, tried = [], 0

    def alarm(*_):
        raise TimeoutError

    old = signal.signal(signal.SIGALRM, alarm)
    try:
        for page, cells in _student_code_cells(student_tree).items():
            for src in cells:
                try:
                    tree = ast.parse(textwrap.dedent(src))
                except SyntaxError:
                    continue
                for node in tree.body:
                    if not isinstance(node, ast.FunctionDef) or node.args.vararg or \
                            node.args.kwonlyargs:
                        continue
                    ns = {"np": np, "math": math}
                    try:
                        exec(compile(ast.Module([node], []), page, "exec"), ns)  # noqa: S102
                    except Exception:  # noqa: BLE001 - decorators of the page's own
                        continue
                    for f in by_arity.get(len(node.args.args), []):
                        tried += 1
                        signal.alarm(2)
                        try:
                            checker(f)(ns[node.name])
                            passed.append((page, node.name, f.checker))
                        except (AssertionError, TimeoutError, TypeError, Exception):  # noqa
                            pass
                        finally:
                            signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, old)
    assert tried > 20
    assert not passed, passed


def test_the_helper_search_finds_the_helpers_of_the_main_edition():
    """The checks above fail on the main sources (a test that cannot fail is a defect):
    the visible helper and the table are there, in the edition that has the solutions."""
    lb = (ROOT / "chapters" / "sgdqn" / "index.md").read_text(encoding="utf8")
    vr = _norm((ROOT / "chapters" / "vr" / "index.md").read_text(encoding="utf8"))
    assert "def svmsgd2_box(" in lb and "def corrected_box(" in lb
    assert _norm(ANSWER_HELPERS["ex-vr-sqhinge"][0]) in vr
    ns = {"np": __import__("numpy"), "math": __import__("math")}
    exec("def kl_helper(delta, T):\n"  # noqa: S102 - the once-visible helper, renamed
         "    return T * delta * (np.log1p(delta) - np.log1p(-delta))\n", ns)
    from rlmlib.book.checkers import check_two_point_kl
    assert check_two_point_kl(ns["kl_helper"])


def test_the_student_tree_carries_no_grading_design(student_tree):
    """DESIGN.md's hidden-grading design is main-edition text, and the list of library
    functions that compute answers (API_HIDDEN) lives in the instructors' material: the
    tool that reads it (tools/student.py) is left out like tools/assignments.py."""
    design = (student_tree / "DESIGN.md").read_text(encoding="utf8")
    main_design = (ROOT / "DESIGN.md").read_text(encoding="utf8")
    for secret in ("MIN_COPY", "audit.audit", "normalized bytecode", "disables the twins",
                   "Unencodable", "`grading/common.py` refuses"):
        assert secret in main_design and secret not in design, secret
    assert "<!-- edition:main -->\n" not in design and "Hidden grading**: instructors'" in design
    assert not (student_tree / "tools" / "student.py").exists()
    assert not (student_tree / "tools" / "assignments.py").exists()
    for path in student_tree.rglob("*"):
        if path.is_file() and path.suffix in (".py", ".md", ".yml", ".txt"):
            text = path.read_text(encoding="utf8", errors="replace")
            assert "API_HIDDEN = (" not in text and "r_conjugate\",\n" not in text, path


def test_the_published_site_is_the_student_edition():
    import yaml

    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text())
    steps = wf["jobs"]["test"]["steps"]
    pages = [s for s in steps if "upload-pages-artifact" in s.get("uses", "")]
    assert [s["with"]["path"] for s in pages] == ["_build/student/_build/html"]
    kept = [s for s in steps if "actions/upload-artifact" in s.get("uses", "")]
    assert [(s["with"]["name"], s["with"]["path"]) for s in kept] == [
        ("main-edition-html", "_build/html")]
