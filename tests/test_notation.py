"""The book's one notation (issue 31 item 4; issue 23 item 4).

The symbol table ``chapters/foundations/symbols.yml`` is the one source: the notation page's
tables are generated from it when the book is built (``rlmlib.book.notation.table``), and
these tests check it

* against the pages: every row's "introduced in" targets exist, and each symbol of the row
  is written in the mathematics of its target (the labelled block, the equation with its
  paragraph, or the named section);
* against the rules: within a part a letter has one meaning; a book-wide letter means the
  same thing everywhere (a part row that uses it must say so with ``same_as``); a book-wide
  object is written with its book-wide letter; a bare letter of a book-wide symbol (the
  nu of nu_star) is not reused.  Each rule is shown to catch a clash on a fixture;
* heuristically against the chapters: the uses of book-wide letters the book has renamed
  must not come back, every standalone ``s`` in mathematics sits next to the scaled vector
  it scales, and the sigmoid is always written sgm.

The clashes the table still has in other parts' pages are allow-listed below, each with the
part that owns it; a stale entry fails, so the lead deletes entries as those parts land.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from rlmlib.book import notation

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "chapters" / "foundations" / "notation.md"
CODE_CELL = re.compile(r"^```\{code-cell\}.*?^```\s*$", re.S | re.M)
MATH = re.compile(r"\$\$.+?\$\$|\$[^$]+?\$", re.S)


def _prose(text: str) -> str:
    """The Markdown of a page without its code cells (prose, captions, exercises)."""
    return CODE_CELL.sub("", text)


def _chapters() -> list[Path]:
    return sorted(p for p in (ROOT / "chapters").rglob("*.md") if p != PAGE)


ROWS = notation.load(ROOT / notation.TABLE)
FOUNDATIONS = ROOT / "chapters" / "foundations"
TARGET = re.compile(r"\{(doc|prf:ref|eq|ref)\}`(?:[^`<]*<)?([^`>]+)>?`(?:\s*\(([^)]*)\))?")
LABEL = re.compile(r"^:(?:label|name):\s*(\S+)|^\s+name:\s*(\S+)|^\$\$\s*\((\S+)\)|^\((\S+)\)=",
                   re.M)


def _pages() -> list[Path]:
    return [*_chapters(), ROOT / "intro.md"]


def _closing(lines: list[str], k: int, fence: str) -> int:
    """The line of the fence that closes the directive opened before line ``k``."""
    return next((i for i in range(k + 1, len(lines)) if lines[i].strip() == fence),
                len(lines) - 1)


def _para(lines: list[str], k: int) -> int:
    """The first line of the paragraph that holds line ``k`` (so no $...$ is cut)."""
    k = max(0, k)
    while k > 0 and lines[k - 1].strip():
        k -= 1
    return k


def _label_index() -> dict[str, tuple[Path, str]]:
    """label -> (page, the text that defines it): a directive's block, an equation with
    the paragraphs around it, or the section after an anchor."""
    out = {}
    for path in _pages():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for m in LABEL.finditer(text):
            label = next(g for g in m.groups() if g)
            k = text[:m.start()].count("\n")
            if m.group(1):                      # inside a directive: fence to fence
                top = max(i for i in range(k + 1)
                          if lines[i].lstrip().startswith(("```", ":::")))
                fence = re.match(r"\s*(`+|:+)", lines[top]).group(1)
                end = _closing(lines, k, fence)
                nxt = next((i for i in range(end + 1, len(lines)) if lines[i].strip()),
                           None)
                if nxt is not None and "{prf:proof}" in lines[nxt]:     # and its proof
                    end = _closing(lines, nxt, re.match(r"\s*(`+)", lines[nxt]).group(1))
                block = "\n".join(lines[_para(lines, top - 8):end + 1])  # and its lead-in
            else:                               # equation, figure, anchor: the vicinity
                block = "\n".join(lines[_para(lines, k - 15):k + 25])
            out[label] = (path, block)
    return out


LABELS = _label_index()


def _section(path: Path, title: str) -> str | None:
    """The prose of the section of ``path`` whose heading contains ``title`` (or, failing
    that, the paragraph that contains it and the two after it)."""
    prose = _prose(path.read_text(encoding="utf-8"))
    parts = re.split(r"^(#+ .*)$", prose, flags=re.M)
    for i in range(1, len(parts), 2):
        if title.lower() in parts[i].lower():
            return parts[i] + parts[i + 1]
    paragraphs = re.split(r"\n\s*\n", prose)
    for i, para in enumerate(paragraphs):
        if title.lower() in " ".join(para.split()).lower():
            return "\n\n".join(paragraphs[i:i + 3])
    return None


def _target_texts(row: dict) -> list[tuple[str, str | None]]:
    """(target as written, its text or None when it does not resolve) for a row."""
    out = []
    for kind, target, section in TARGET.findall(row["where"]):
        if kind == "doc":
            path = (FOUNDATIONS / (target + ".md")).resolve()
            text = None
            if path.is_file():
                text = (_section(path, section) if section
                        else path.read_text(encoding="utf-8"))
        else:
            text = LABELS.get(target, (None, None))[1]
        out.append((f"{kind}:{target}" + (f" ({section})" if section else ""), text))
    return out


def _written(key: str, text: str) -> bool:
    """Whether the symbol ``key`` (normalized, argument dropped) is written in the
    mathematics of ``text``."""
    key = re.sub(r"(?<=[A-Za-z'])\(.*\)$", "", key)
    head = r"(?<![A-Za-z\\])" if key[0].isalpha() else ""   # not the end of a command
    tail = (r"(?![A-Za-z_])" if key[-1].isalpha()            # nor a longer symbol
            and not re.search(r"[_^][A-Za-z0-9]$", key) else "")
    pattern = re.compile(head + re.escape(key) + tail)
    return any(pattern.search(notation._norm(m.group(0).strip("$")))
               for m in MATH.finditer(text))


def test_every_row_has_its_fields_and_every_part_its_section():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    numbered = [p["caption"] for p in toc["parts"] if p.get("numbered")]
    assert notation.parts(ROWS) == [notation.BOOK, *numbered]
    text = PAGE.read_text(encoding="utf-8")
    for part in notation.parts(ROWS):
        assert f"## {part}\n" in text, f"no section for {part!r} on the notation page"
        assert f'table("{part}"' in text, f"the section {part!r} is not generated"
    assert not re.search(r"^\| \$", text, re.M), "a table typed into the notation page"
    assert "$\\lambda$ is our\n$\\sigma$" in text or "$\\lambda$ is our $\\sigma$" in text
    for must in ("m", "n", "d", "k", "T", "t", "\\sigma", "s_t", "R", "L", "L_\\max",
                 "\\mu", "\\mathcal L", "\\nu_\\star^2", "G", "\\kappa", "G_\\ell",
                 "L_\\ell", "\\eta", "\\varepsilon", "f_i(w)"):
        assert must in _book_keys(ROWS), f"{must} is not listed as book-wide"


def test_the_table_renders_and_rejects_bad_rows(tmp_path):
    md = notation.table("Foundations", ROWS)
    assert md.splitlines()[0] == "| symbol | meaning | introduced in |"
    assert len(md.splitlines()) == 2 + sum(r["part"] == "Foundations" for r in ROWS)
    with pytest.raises(ValueError, match="part must be one of"):
        notation.table("Nowhere", ROWS)
    bad = tmp_path / "symbols.yml"
    bad.write_text("- {part: Foundations, symbol: 'x', meaning: m, where: w}\n")
    with pytest.raises(ValueError, match=r"symbol must hold \$"):
        notation.load(bad)
    bad.write_text("- {part: Foundations, symbol: '$x$', meaning: m}\n")
    with pytest.raises(ValueError, match="fields must be"):
        notation.load(bad)


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['part'][:12]}: {r['symbol'][:30]}"
                                           for r in ROWS])
def test_each_row_is_defined_where_it_says(row):
    texts = _target_texts(row)
    assert texts, f"no target in {row['where']!r}"
    missing = [t for t, text in texts if text is None]
    assert not missing, f"{row['symbol']}: targets that do not resolve: {missing}"
    for key in notation.keys(row["symbol"]):
        assert any(_written(key, text) for _, text in texts), (
            f"{row['symbol']}: ${key}$ is not written at {[t for t, _ in texts]}")


def _book_keys(rows):
    return {notation._norm(k) for r in rows if r["part"] == notation.BOOK
            for k in notation.keys(r["symbol"])}


def _strip(key: str) -> str:
    return re.sub(r"(?<=[A-Za-z'])\(.*\)$", "", key)


def clashes(rows: list[dict]) -> dict[tuple[str, str], str]:
    """(part, symbol) -> what is wrong, for every breach of the one-notation rules."""
    book = _book_keys(rows)
    book_stripped = {_strip(k) for k in book}
    reserved = {notation._base(k) for k in book}
    out: dict[tuple[str, str], str] = {}
    seen: dict[tuple[str, str], str] = {}
    for row in rows:
        same = row.get("same_as", "").split(", ") if "same_as" in row else None
        for j, key in enumerate(notation.keys(row["symbol"])):
            where = (row["part"], key)
            if where in seen:
                out[where] = f"defined twice: {seen[where]!r} and {row['meaning']!r}"
            seen[where] = row["meaning"]
            if row["part"] == notation.BOOK:
                continue
            if same:
                target = notation._norm(same[j])
                if target not in book and target not in book_stripped:
                    out[where] = f"same_as {same[j]!r} is not a book-wide symbol"
                elif _strip(key) != _strip(target):
                    out[where] = f"the book-wide object {same[j]} written {key}"
            elif _strip(key) in book_stripped:
                out[where] = f"book-wide {key} used for {row['meaning']!r}"
            elif not notation._decorated(key) and notation._base(key) in reserved:
                out[where] = (f"the letter of a book-wide symbol, "
                              f"{notation._base(key)}, used for {row['meaning']!r}")
    return out


def test_the_rules_catch_a_known_clash():
    """The fixture breaks each rule once (and keeps one legitimate reuse of each kind)."""
    book = [{"part": notation.BOOK, "symbol": s, "meaning": m, "where": ""} for s, m in [
        ("$\\mu$", "strong convexity"), ("$G$", "gradient bound"),
        ("$G_\\ell$", "Lipschitz constant of the loss"), ("$\\nu_\\star^2$", "noise")]]
    part = [{"part": "Toy", "symbol": s, "meaning": m, "where": "", **extra}
            for s, m, extra in [
                ("$\\mu$", "incoherence", {}),                          # book-wide letter
                ("$G$", "covariance at the optimum", {}),               # book-wide letter
                ("$G_\\phi$", "Lipschitz constant of phi", {"same_as": "G_\\ell"}),
                ("$\\nu$", "damping", {}),                              # nu of nu_star
                ("$\\gamma$", "numerical rank", {}),
                ("$\\gamma$", "an exponent", {}),                       # twice in a part
                ("$\\mu_0$", "coherence", {}),                          # fine: decorated
                ("$G$", "bound on the gradients", {"same_as": "G"}),    # fine: same object
            ]]
    found = clashes(book + part)
    assert set(found) == {("Toy", "\\mu"), ("Toy", "G"), ("Toy", "G_\\phi"),
                          ("Toy", "\\nu"), ("Toy", "\\gamma")}, found
    assert "defined twice" in found[("Toy", "\\gamma")]
    assert _written("G_\\ell", "with $G_{\\ell} \\le 1$")             # and the page check
    assert not _written("G_\\ell", "with $G \\le 1$ and $L_\\ell$")
    assert "written G_\\phi" in found[("Toy", "G_\\phi")]


# The clashes of other parts' pages as the notation page has them at c58a98f (issue 31 item
# 4): each entry is (part, symbol) -> the helper whose branch renames it.  The symbol
# table's `rename` field says which rename the rule implies.  Delete an entry (and update
# symbols.yml) when its part's rename lands: a stale entry fails the test.
KNOWN_CLASHES: dict[tuple[str, str], str] = {
}


def test_one_letter_one_meaning():
    found = clashes(ROWS)
    new = {k: v for k, v in found.items() if k not in KNOWN_CLASHES}
    assert not new, f"notation clashes: {new}"
    stale = sorted(set(KNOWN_CLASHES) - set(found))
    assert not stale, f"allow-listed clashes that are gone (delete the entries): {stale}"
    for row in ROWS:               # a pending rename is said exactly where a clash is left
        pending = any((row["part"], k) in KNOWN_CLASHES
                      for k in notation.keys(row["symbol"]))
        assert pending == ("rename" in row), (row["part"], row["symbol"])


# Uses of book-wide letters that the book has renamed (issue 23 item 4): each pattern with
# an example of the old text it must catch, so that the check itself is tested.
FORBIDDEN = [
    (r"\$s_t \\in \\partial|\$s \\in \\partial|s\^\\star", "$s \\in \\partial\\ell(g(s))$",
     "FIOL's scalar is xi (s is the scale)"),
    (r"\(s_k, y_k\)|\$s_k = w_", "pairs $(s_k, y_k)$", "oLBFGS's pair is (Delta w, Delta g)"),
    (r"sample size (?:is )?\$s\$|\(m/s\)|\\frac ms", "the sample size is $s$",
     "the preconditioner's sample size is m-hat"),
    (r"\$s\$ the sigmoid|\\sigma\(u\)|\$s\(u\)", "($s$ the sigmoid)", "the sigmoid is sgm"),
    (r"k = \\mathrm\{nnz\}|coordinate \$k\$|stored pairs \$k\$|Phase \$k\$",
     "with $k = \\mathrm{nnz}(x)$", "k is the mini-batch size"),
    (r"\$r\(w\) = \\sigma", "$r(w) = \\sigma\\|w\\|_1$", "r is the regularizer without weight"),
    (r"\\tfrac2r", "B_{ii} + \\tfrac2r(", "SGD-QN's counter is N (r is the regularizer)"),
    (r"\[-R, R\]|bound \$R\$ on the margins|(?<!mathcal )R_T\(u\)", "$Z = [-R, R]$",
     "R is the largest row norm"),
    (r"\$t = sy\$|steps\s+\$t_0, \\dots", "steps\n$t_0, \\dots, t - 1$",
     "t is the step counter, t_0 the schedule's offset"),
    (r"\$s_1 \\ge s_2", "Let $s_1 \\ge s_2 \\ge 0$ be", "eigenvalues are c_j"),
    (r"\$[GL] = \\sup_z", "$G = \\sup_z |\\ell'(z)|$", "the loss constants are G_ell, L_ell"),
]


@pytest.mark.parametrize("pattern,bad,why", FORBIDDEN, ids=[f[2] for f in FORBIDDEN])
def test_renamed_uses_do_not_come_back(pattern, bad, why):
    assert re.search(pattern, bad), "the pattern misses the text it is meant to catch"
    hits = []
    for path in _chapters():
        for m in re.finditer(pattern, _prose(path.read_text(encoding="utf-8"))):
            hits.append(f"{path.relative_to(ROOT)}: {m.group(0)!r}")
    assert not hits, f"{why}: {hits}"


def _standalone_s_without_scale(text: str) -> list[str]:
    """Math containing a standalone s whose paragraph (or the one before) has no v/scale."""
    bad = []
    paragraphs = re.split(r"\n\s*\n", _prose(text))
    for i, para in enumerate(paragraphs):
        context = (paragraphs[i - 1] if i else "") + para
        for m in MATH.finditer(para):
            if re.search(r"(?<![A-Za-z\\])s(?![A-Za-z])", m.group(0)) and not re.search(
                    r"(?<![A-Za-z\\])v(?![A-Za-z])|v_|scale", context):
                bad.append(m.group(0)[:60])
    return bad


def test_s_is_the_scale_everywhere():
    assert _standalone_s_without_scale("The sample size is $s$.")       # the check works
    assert not _standalone_s_without_scale("Store $w = s\\,v$ and shrink $s$.")
    bad = {str(p.relative_to(ROOT)): b for p in _chapters()
           if (b := _standalone_s_without_scale(p.read_text(encoding="utf-8")))}
    assert not bad, f"s used for something other than the scale of w = s v: {bad}"


def test_sigmoid_is_written_sgm():
    for path in _chapters():
        for para in re.split(r"\n\s*\n", _prose(path.read_text(encoding="utf-8"))):
            if "sigmoid" in para:
                assert "sgm" in para, f"{path.relative_to(ROOT)}: sigmoid without sgm"
