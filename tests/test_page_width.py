"""Code fits in 88 columns on every page (conventions: nothing scrolls sideways at 1280 px):
every line of every code cell of the book's sources, its option header (tags, figure
captions) included, and of every literal code block.  One exception: the option header is
written by jupytext (YAML, folded by PyYAML at the first space past column 80), and the
chapters are kept in jupytext's round-trip form so that JupyterLab does not rewrite them
(tests/test_jupytext_roundtrip.py): a header line may go past 88 columns by its last word
only when the text before that word ends within column 80, where PyYAML could not break.  The printed output of the executed
pages is checked on the built HTML by tests/html (`test_code_and_printed_output_fit`)."""
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WIDTH = 88
YAML_FOLD = 80    # PyYAML's best_width: it breaks a plain scalar at a space past column 80
FENCE = re.compile(r"^(`{3,}|~{3,})\s*(\{[^}]*\})?\s*(\S*)")


def _pages():
    """The pages of the book (root included), as paths relative to the repository."""
    sys.path.insert(0, str(ROOT / "tools"))
    from execute import toc_files   # the build's own reading of _toc.yml

    return [p.relative_to(ROOT.resolve()).as_posix() for p in toc_files(ROOT)]


def long_code_lines(text):
    """(line number, length, line) of the lines longer than WIDTH inside code cells and
    literal code blocks (a fence with no directive, or ``{code-cell}`` / ``{code-block}``),
    nested fences of other directives (proofs, exercises: prose, which wraps) excluded."""
    out, stack = [], []  # open fences: (fence, is_code)
    header = None        # inside a code cell's option header: None, "start" or True
    for i, line in enumerate(text.splitlines(), 1):
        if stack and line.strip() == stack[-1][0]:
            stack.pop()
            continue
        if stack and stack[-1][1]:  # inside code: only its closing fence ends it
            if header == "start":
                header = line.strip() == "---" or None
            elif header is True and line.strip() == "---":
                header = None
            folded = header is True and len(line.rstrip().rsplit(" ", 1)[0]) <= YAML_FOLD
            if len(line) > WIDTH and not folded:
                out.append((i, len(line), line))
            continue
        m = FENCE.match(line.strip())
        if m:
            directive = (m.group(2) or "").strip("{}")
            stack.append((m.group(1), directive in ("", "code-cell", "code-block", "code")))
            header = "start" if directive == "code-cell" else None
    return out


def test_the_check_finds_a_long_line():
    long = "x = " + "1 + " * 30 + "1"
    text = (f"# t\n\n```{{code-cell}} ipython3\n---\ntags: [remove-input]\n---\n{long}\n```\n"
            f"\n:::{{prf:proof}}\n{long}\n:::\n\n````{{exercise}}\n```python\n{long}\n```\n"
            f"````\n")
    assert [n for n, _, _ in long_code_lines(text)] == [7, 16]


def test_a_yaml_folded_caption_line_may_pass_88_by_its_last_word_only():
    word = "{prf:ref}`thm-a-long-label-name`,"
    ok = "    caption: " + "a" * 60 + " " + word           # PyYAML could not break earlier
    bad = "    caption: " + "a " * 45 + word               # it would have broken at 80
    for line, n in ((ok, []), (bad, [4])):
        text = f"```{{code-cell}} ipython3\n---\nmystnb:\n{line}\n---\nx = 1\n```\n"
        assert [k for k, _, _ in long_code_lines(text)] == n, line


@pytest.mark.parametrize("page", _pages())
def test_code_fits_in_88_columns(page):
    bad = long_code_lines((ROOT / page).read_text(encoding="utf8"))
    assert not bad, f"{page}: {len(bad)} code lines over {WIDTH} columns:\n" + "\n".join(
        f"  line {n} ({k} columns): {line.strip()[:60]}..." for n, k, line in bad)
