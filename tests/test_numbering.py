"""One caption and numbering system for every figure and table of the book: Sphinx's.

A figure drawn by a code cell carries its caption and label in the cell's metadata
(``mystnb: figure: {caption, name: fig-...}``); a table typed in Markdown sits in MyST's
``{table}`` directive (``:name: tbl-...``); a table computed by a code cell is displayed by
``rlmlib.book.captions.table(..., name="tbl-...", caption=...)``, which writes the same
directive.  Sphinx numbers them all ("Figure C.k", "Table C.k", C the chapter number the
table of contents gives the page), and the text cites them with ``{numref}``.

So a number typed by hand is a defect wherever it is: a caption line "**Figure 3.2.**" or
"Table 14.1:", a reference "see Table 22.2" in the text, a number printed by code.  A
paper's numbers appear only as "the paper's Fig. 3".  The numbers are derived from the
sources (:func:`numbered`) and must be the same in the student edition (tools/student.py
removes solutions: a figure inside one would shift every later number of its page);
tests/html/test_book_html.py compares them with the built book's."""
import ast
import re
import sys

import jupytext
import pytest
import yaml

from test_page_width import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import student  # noqa: E402

# a number of the book's typed by hand: "Figure 3.2", "Fig. 3.2", "Table 14.1", "Tables 2.1"
TYPED = re.compile(r"(?<!paper's )\b(?:Figures?|Figs?\.|Tables?)\s+\d+\.\d+\b")
# a caption numbered by hand or like a paper's: "**Figure 3.**", "*Fig. 9.*", "Table II:",
# "Table 14:" at the start of a line (Markdown) or of a printed string
CAPTION = re.compile(r"""(?:^|["'])[ \t]*\**[ \t]*(?:Figure|Fig\.|Figs\.|Table)[ \t]+"""
                     r"(?:[0-9]+(?:\.[0-9]+)?|[IVX]+)(?:[–-][0-9]+)?[ \t]*\**[.:]", re.M)
# a section named after a paper's figure or table, without saying whose it is
HEADING = re.compile(r"^#+ (?:Fig\.|Figs\.|Figure|Table) [0-9IVX]+", re.M)
DIRECTIVE = re.compile(r"^[ \t]*(?P<fence>:{3,}|`{3,})\{(?P<kind>figure|table|list-table|"
                       r"glue:figure)\}(?P<arg>[^\n]*)\n(?P<opts>(?:[ \t]*:[\w-]+:[^\n]*\n)*)",
                       re.M)
NUMREF = re.compile(r"\{numref\}`(?:[^`<]*<)?(?P<name>[\w-]+)>?`")
LABEL = re.compile(r"^(fig|tbl)-[a-z0-9]+(?:-[a-z0-9]+)*$")
KIND = {"fig": "Figure", "tbl": "Table"}


def chapter_numbers(toc=None):
    """{page: chapter number} for the numbered parts of _toc.yml, counted through the book
    as Jupyter Book does with `use_multitoc_numbering`."""
    toc = toc or yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf8"))
    out, k = {}, 0
    for part in toc.get("parts", []):
        if not part.get("numbered"):
            continue
        for chapter in part.get("chapters", []):
            k += 1
            out[chapter["file"] + ".md"] = k
    return out


CHAPTERS = chapter_numbers()
PAGES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "chapters").rglob("*.md"))


def computed_tables(source):
    """[("Table", label, caption)] of the ``captions.table(...)`` calls of a cell's code,
    in source order (a literal ``name=``; the caption's text is not needed)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    calls = sorted((n.lineno, n.col_offset, n) for n in ast.walk(tree)
                   if isinstance(n, ast.Call) and ast.unparse(n.func).endswith("captions.table"))
    out = []
    for *_, call in calls:
        kw = {k.arg: k.value for k in call.keywords}
        name = kw.get("name")
        name = name.value if isinstance(name, ast.Constant) else None
        out.append(("Table", name, "caption" if "caption" in kw else ""))
    return out


def captioned(text):
    """The figures and tables of a page in document order: [(kind, label, caption)], kind
    "Figure" or "Table" (what Sphinx numbers), and the problems of their markup."""
    items, bad = [], []
    for cell in jupytext.reads(text, fmt="md:myst").cells:
        if cell.cell_type == "code":
            fig = (cell.metadata.get("mystnb") or {}).get("figure")
            items += computed_tables(cell.source)
            if fig is not None:
                items.append(("Figure", fig.get("name"), str(fig.get("caption") or "")))
                gone = {"remove-cell", "remove-output"} & set(cell.metadata.get("tags", []))
                if gone:
                    bad.append(f"figure {fig.get('name')} on a cell tagged {sorted(gone)}: "
                               "its output is not in the book, Sphinx numbers nothing")
        elif cell.cell_type == "markdown":
            for m in DIRECTIVE.finditer(cell.source):
                opts = dict(re.findall(r":([\w-]+):[ \t]*([^\n]*)", m.group("opts")))
                kind = "Table" if "table" in m.group("kind") else "Figure"
                caption = m.group("arg").strip()
                if kind == "Figure":      # a figure's caption is its content's paragraph
                    caption = caption or "?"
                items.append((kind, opts.get("name"), caption))
    for kind, name, caption in items:
        if not name:
            bad.append(f"a {kind.lower()} without a label (name)")
        elif not LABEL.match(name) or KIND[name[:3]] != kind:
            bad.append(f"{kind} labelled {name!r}: a {kind.lower()}'s label is "
                       f"'{'fig' if kind == 'Figure' else 'tbl'}-' and lower-case words")
        if not caption.strip():
            bad.append(f"{kind} {name} has no caption")
    return items, bad


def numbered(text, chapter):
    """{label: "Figure C.k" / "Table C.k"}: the numbers Sphinx gives the page's figures
    and tables (numfig, one counter per kind and chapter, in document order)."""
    seen, out = {"Figure": 0, "Table": 0}, {}
    for kind, name, _ in captioned(text)[0]:
        seen[kind] += 1
        out[name] = f"{kind} {chapter}.{seen[kind]}"
    return out


def problems(text, chapter=None, student_text=None):
    """What breaks the one system on a page (empty when none)."""
    bad = [f"number typed by hand: {m.group(0)!r} (cite with {{numref}})"
           for m in TYPED.finditer(text)]
    bad += [f"caption typed by hand: {m.group(0).strip()!r}"
            for m in CAPTION.finditer(text)]
    bad += [f"section named like a paper's figure: {m.group(0)!r}"
            for m in HEADING.finditer(text)]
    bad += captioned(text)[1]
    if chapter is not None and student_text is not None:
        main, stud = numbered(text, chapter), numbered(student_text, chapter)
        if main != stud:
            diff = sorted(k for k in main.keys() | stud.keys()
                          if main.get(k) != stud.get(k))
            bad.append("the student edition numbers differently: "
                       + ", ".join(f"{k} {main.get(k)} -> {stud.get(k)}" for k in diff))
    return bad


def labels_of_book():
    out = {}
    for page in PAGES:
        for kind, name, _ in captioned((ROOT / page).read_text(encoding="utf8"))[0]:
            out.setdefault(name, []).append(page)
    return out


PLANTED_FIGURE = """\
```{code-cell} ipython3
---
mystnb:
  figure:
    caption: A.
    name: fig-a
---
plt.plot([1])
```

Text citing {numref}`fig-a`.
"""


def test_planted_defects_are_found():
    """Each kind of defect, planted in a page, is reported; a clean page passes."""
    assert problems(PLANTED_FIGURE, 7, PLANTED_FIGURE) == []
    cases = {
        "hand caption": "**Figure 7.1.** A plot.\n",
        "caption like a paper's": "*Fig. 9.* A plot.\n",
        "colon caption": "Table 14.1: the data.\n",
        "printed caption": '```{code-cell} ipython3\nprint("Table 3.1. data")\n```\n',
        "typed reference": "As Figure 7.1 shows.\n",
        "plural reference": "Figures 25.2 and 25.3 hold.\n",
        "heading": "## Table 4 of the paper\n",
        "unlabelled table": ":::{table} Data.\n| a |\n|---|\n| 1 |\n:::\n",
        "table labelled fig": ":::{table} Data.\n:name: fig-data\n| a |\n|---|\n:::\n",
        "uncaptioned table": ":::{table}\n:name: tbl-data\n| a |\n|---|\n:::\n",
        "figure on a removed cell": PLANTED_FIGURE.replace(
            "---\nplt", "tags: [remove-cell]\n---\nplt"),
        "computed table without label": ('```{code-cell} ipython3\ndisplay(captions.table('
                                         'md, caption="x"))\n```\n'),
    }
    for what, text in cases.items():
        assert problems(text), what
    # numbering drift between the editions: a figure inside a solution
    drift = ("```{exercise}\n:label: ex-a\nDo.\n```\n\n```{solution-start} ex-a\n```\n\n"
             + PLANTED_FIGURE + "\n```{solution-end}\n```\n\n```{code-cell} ipython3\n"
             "---\nmystnb:\n  figure:\n    caption: B.\n    name: fig-b\n---\nplt.plot()\n"
             "```\n")
    stud = student.strip_solutions(drift)
    assert numbered(drift, 7) == {"fig-a": "Figure 7.1", "fig-b": "Figure 7.2"}
    assert numbered(stud, 7) == {"fig-b": "Figure 7.1"}
    assert any("student edition" in p for p in problems(drift, 7, stud))
    # the paper's numbers are not the book's
    assert problems("the paper's Fig. 3 and the paper's Table 2.\n") == []


def test_numbers_follow_document_order_per_kind():
    text = (":::{table} T.\n:name: tbl-x\n| a |\n|---|\n:::\n\n" + PLANTED_FIGURE
            + '\n```{code-cell} ipython3\ndisplay(captions.table(md, name="tbl-y", '
              'caption="C"))\n```\n')
    assert numbered(text, 12) == {"tbl-x": "Table 12.1", "fig-a": "Figure 12.1",
                                  "tbl-y": "Table 12.2"}


def test_chapter_numbers_follow_the_toc():
    toc = {"parts": [{"numbered": True, "chapters": [{"file": "a"}, {"file": "b"}]},
                     {"chapters": [{"file": "api"}]},
                     {"numbered": True, "chapters": [{"file": "c"}]}]}
    assert chapter_numbers(toc) == {"a.md": 1, "b.md": 2, "c.md": 3}


@pytest.mark.parametrize("page", PAGES)
def test_page_uses_the_one_system(page):
    text = (ROOT / page).read_text(encoding="utf8")
    chapter = CHAPTERS.get(page)
    stud = student.student_page(text, page) if chapter is not None else None
    bad = problems(text, chapter, stud)
    assert not bad, f"{page}: " + "; ".join(bad)


def test_labels_are_unique_and_every_numref_resolves():
    labels = labels_of_book()
    twice = {k: v for k, v in labels.items() if len(v) > 1}
    assert not twice, twice
    sources = [ROOT / p for p in PAGES] + sorted(ROOT.glob("*.md"))
    dangling = sorted({f"{p.relative_to(ROOT)}: {m.group('name')}" for p in sources
                       for m in NUMREF.finditer(p.read_text(encoding="utf8"))
                       if m.group("name")[:4] in ("fig-", "tbl-")
                       and m.group("name") not in labels})
    assert not dangling, dangling


def test_every_figure_and_table_is_numbered():
    """A sanity floor: the book has its figures and tables under the system (51 were typed
    by hand before it; 20 were already Sphinx's)."""
    labels = labels_of_book()
    assert sum(k.startswith("fig-") for k in labels) >= 40
    assert sum(k.startswith("tbl-") for k in labels) >= 24
