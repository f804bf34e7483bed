"""The built HTML works offline: equations typeset, figures loaded, no script errors,
internal links resolve, explorable figures respond to their slider.  Needs `make book`."""
from __future__ import annotations

import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

import pytest

from conftest import HTML, SHOTS

PAGES = sorted(p.relative_to(HTML).as_posix() for p in HTML.rglob("*.html")
               if "_static" not in p.parts and "_sources" not in p.parts) \
    if HTML.is_dir() else []
# pages Sphinx generates and that hold no book content or math
GENERATED = {"genindex.html", "search.html"}


class _Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.refs = set(), []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"])
        for key in ("href", "src"):
            if a.get(key) is not None and not (tag == "a" and key == "src"):
                self.refs.append((tag, key, a[key]))


def _parse(path: Path, cache: dict) -> _Refs:
    """The page's ids and references, parsed once per resolved path."""
    key = path.resolve()
    if key not in cache:
        cache[key] = _Refs()
        cache[key].feed(path.read_text(encoding="utf8"))
    return cache[key]


def test_pages_found():
    assert "intro.html" in PAGES and len(PAGES) >= 5, PAGES


def test_internal_links_resolve():
    """Every relative href/src of every page points to an existing file, and every
    fragment to an existing id; no script, stylesheet or image comes from the network."""
    parsed = {}
    problems = []
    for page in PAGES:
        src = HTML / page
        refs = _parse(src, parsed).refs
        for tag, key, url in refs:
            u = urlparse(url)
            if u.scheme in ("http", "https") or url.startswith("//"):
                if tag in ("script", "img", "link") and not (tag == "link" and "canonical" in url):
                    problems.append(f"{page}: <{tag} {key}> loads from the network: {url}")
                continue
            if u.scheme in ("mailto", "data", "javascript"):
                continue
            path, frag = urldefrag(url)
            target = src if path == "" else (src.parent / unquote(urlparse(path).path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                problems.append(f"{page}: <{tag} {key}={url!r}> -> missing {target}")
                continue
            if frag and target.suffix == ".html":
                ids = _parse(target, parsed).ids
                if unquote(frag) not in ids:
                    problems.append(f"{page}: <{tag} {key}={url!r}> -> no id {frag!r} in "
                                    f"{target.relative_to(HTML)}")
    assert not problems, "\n".join(problems[:50])


def _wait_for_mathjax(browser, timeout=30):
    script = """
      const done = arguments[arguments.length - 1];
      if (!window.MathJax || !MathJax.startup) { done('no MathJax'); return; }
      MathJax.startup.promise.then(() => done('ok'), e => done('error: ' + e));
    """
    browser.set_script_timeout(timeout)
    return browser.execute_async_script(script)


# MathJax reports a TeX error in two ways: an <mjx-merror> (a syntax error such as a missing
# brace), and, through its `noundefined` extension, an unknown macro such as `\langleg`
# typeset as red text with no merror at all.  Both count.  A display equation (div.math)
# is too wide when its typeset formula plus its equation number need more than the width of
# the block that holds it (the text column, or a proof box inside it): at the test's window
# of 1280 px it would be cut off or scroll sideways.
MATH_PROBLEMS_JS = """
  for (const d of document.querySelectorAll('details')) d.open = true;   // folded solutions
  const errors = [], wide = [];
  const tex = e => {                                 // the TeX source, for the message
    const m = e.closest('div.math, span.math') || e;
    const items = MathJax.startup.document.getMathItemsWithin(m);
    return (items.length ? items[0].math : m.textContent).trim().slice(0, 80);
  };
  for (const c of document.querySelectorAll('mjx-container')) {
    for (const e of c.querySelectorAll('mjx-merror, [data-mjx-error]'))
      errors.push('error ' + (e.getAttribute('data-mjx-error') || '') + ': ' + tex(c));
    for (const e of c.querySelectorAll('[style*="color"]'))
      if (getComputedStyle(e).color === 'rgb(255, 0, 0)') {
        errors.push('undefined macro ' + e.textContent + ': ' + tex(c));
        break;
      }
  }
  for (const d of document.querySelectorAll('div.math')) {
    const m = d.querySelector('mjx-container mjx-math');
    if (!m || d.offsetParent === null) continue;        // not typeset, or hidden (folded)
    const eqno = d.querySelector('.eqno');
    const need = m.getBoundingClientRect().width
                 + (eqno ? eqno.getBoundingClientRect().width : 0);
    const have = d.clientWidth;
    if (need > have + 1) wide.push([Math.round(need), have, tex(d)]);
  }
  // an inline formula does not wrap: it must end within its block's content box
  const inline = [];
  for (const s of document.querySelectorAll('span.math')) {
    const c = s.querySelector('mjx-container');
    if (!c || s.offsetParent === null) continue;
    let b = s.parentElement;
    while (b && getComputedStyle(b).display.startsWith('inline')) b = b.parentElement;
    const right = b.getBoundingClientRect().right - parseFloat(getComputedStyle(b).paddingRight);
    const over = c.getBoundingClientRect().right - right;
    if (over > 1) inline.push([Math.round(over), tex(s)]);
  }
  return [errors, wide, inline];
"""


def _console_errors(browser):
    return [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


@pytest.mark.parametrize("page", PAGES)
def test_page(browser, server, page):
    browser.get(f"{server}/{page}")
    browser.execute_script("return document.readyState")
    n_math = browser.execute_script(
        "return document.querySelectorAll('div.math, span.math').length")
    if n_math:
        assert _wait_for_mathjax(browser) == "ok", f"{page}: MathJax did not load"
        untypeset = browser.execute_script("""
            return Array.from(document.querySelectorAll('div.math, span.math'))
              .filter(e => !e.querySelector('mjx-container')).map(e => e.textContent.slice(0, 80));
        """)
        assert not untypeset, f"{page}: equations not typeset: {untypeset[:5]}"
        errors, wide, inline = browser.execute_script(MATH_PROBLEMS_JS)
        assert not errors, f"{page}: MathJax errors: {errors[:5]}"
        assert not wide, (f"{page}: {len(wide)} display equations wider than the text "
                          f"column at 1280 px (needed / available px, TeX): {wide[:5]}")
        assert not inline, (f"{page}: {len(inline)} inline formulas run past the text "
                            f"column at 1280 px (px over, TeX; split the formula or make it "
                            f"a display): {inline[:5]}")
    # raw TeX delimiters left in the prose (code blocks excluded) mean a formula was missed
    raw = browser.execute_script("""
        const w = document.createTreeWalker(document.querySelector('main') || document.body,
                                            NodeFilter.SHOW_TEXT);
        const bad = [];
        while (w.nextNode()) {
          const n = w.currentNode;
          if (n.parentElement.closest('pre, code, script, style, .highlight, mjx-container')) continue;
          if (/\\$\\$|\\\\\\(|\\\\\\[|\\\\begin\\{/.test(n.textContent)) bad.push(n.textContent.slice(0, 80));
        }
        return bad;
    """)
    assert not raw, f"{page}: untypeset TeX in the text: {raw[:5]}"
    # code and printed output: 88 columns must fit the column (nothing scrolls sideways)
    scrolls = browser.execute_script("""
        for (const d of document.querySelectorAll('details')) d.open = true;
        return Array.from(document.querySelectorAll('main pre'))
          .filter(p => p.offsetParent !== null && p.scrollWidth > p.clientWidth + 1)
          .map(p => [p.scrollWidth, p.clientWidth, p.textContent.split('\\n')
                     .reduce((a, l) => l.length > a.length ? l : a, '').slice(0, 60)]);
    """)
    assert not scrolls, (f"{page}: {len(scrolls)} code or output blocks scroll sideways at "
                         f"1280 px (needed / available px, longest line): {scrolls[:3]}")
    # images present and loaded (wait for lazy ones briefly)
    deadline = time.time() + 10
    while True:
        broken = browser.execute_script("""
            return Array.from(document.images)
              .filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src.slice(0, 100));
        """)
        if not broken or time.time() > deadline:
            break
        time.sleep(0.2)
    assert not broken, f"{page}: images not loaded: {broken}"
    errors = _console_errors(browser)
    assert not errors, f"{page}: console errors: {errors}"
    if page in ("intro.html", "chapters/implementation/explorable.html"):
        browser.save_screenshot(str(SHOTS / (page.replace("/", "_") + ".png")))


def _explorable_pages():
    return [p for p in PAGES if 'class="rlm-explore"' in (HTML / p).read_text(encoding="utf8")]


def test_there_is_an_explorable_figure():
    assert "chapters/implementation/explorable.html" in _explorable_pages()


@pytest.mark.parametrize("page", _explorable_pages())
def test_explorable_slider_changes_figure(browser, server, page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(f"{server}/{page}")
    figures = browser.find_elements(By.CSS_SELECTOR, "div.rlm-explore")
    assert figures
    for k, fig in enumerate(figures):
        img = fig.find_element(By.CSS_SELECTOR, "img.rlm-explore-image")
        readout = fig.find_element(By.CSS_SELECTOR, ".rlm-explore-readout")
        for slider in fig.find_elements(By.CSS_SELECTOR, "input.rlm-explore-slider"):
            before = (img.get_attribute("src"), fig.get_attribute("data-frame"))
            lo, hi = int(slider.get_attribute("min")), int(slider.get_attribute("max"))
            value = int(slider.get_attribute("value"))
            browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", slider)
            slider.click()  # focus; a click may itself move the thumb
            slider.send_keys(Keys.HOME if value == hi else Keys.END)
            after = (img.get_attribute("src"), fig.get_attribute("data-frame"))
            assert after[1] != before[1], f"{page}: slider {slider.get_attribute('data-control')} did not change the frame"
            assert after[0] != before[0], f"{page}: slider did not change the image"
            ok = browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", img)
            assert ok, f"{page}: new frame did not load"
            assert readout.text, f"{page}: empty readout"
        browser.save_screenshot(str(SHOTS / f"{page.replace('/', '_')}-moved-{k}.png"))
    assert not _console_errors(browser)


STUDENT = HTML.parent / "student" / "_build" / "html"


def _classes_count(root: Path, cls: str) -> dict:
    out = {}
    for p in root.rglob("*.html"):
        if "_static" in p.parts:
            continue
        n = p.read_text(encoding="utf8").count(f'class="{cls} ')
        if n:
            out[p.relative_to(root).as_posix()] = n
    return out


def test_student_edition_has_exercises_but_no_solutions():
    """`make book-student` (run by `make test` before this test) kept every exercise and
    dropped every solution, both the plain and the gated kind."""
    assert (STUDENT / "index.html").is_file(), f"no student edition at {STUDENT}"
    normal_ex, normal_sol = _classes_count(HTML, "exercise"), _classes_count(HTML, "solution")
    student_ex, student_sol = _classes_count(STUDENT, "exercise"), _classes_count(STUDENT, "solution")
    assert normal_sol, "the normal build shows no solution at all"
    assert student_sol == {}, f"solutions left in the student edition: {student_sol}"
    assert student_ex == normal_ex, (normal_ex, student_ex)


CDN_HOSTS = ("unpkg.com", "cdn.jsdelivr.net", "cdnjs.cloudflare.com", "code.jquery.com",
             "cdn.plot.ly", "requirejs.org")


@pytest.mark.parametrize("root", [HTML, STUDENT], ids=["book", "student"])
def test_no_page_names_a_cdn(root):
    """No built page names a CDN, not even in a configuration that is never fetched (the
    book works offline; sphinx-thebe's unpkg address is dropped by tools/book_ext.py)."""
    if not (root / "index.html").is_file():
        pytest.skip(f"no build at {root}")
    named = {p.relative_to(root).as_posix(): host
             for p in root.rglob("*.html") if "_static" not in p.parts
             for host in CDN_HOSTS if host in p.read_text(encoding="utf8")}
    assert not named, named


def test_student_launch_buttons_open_the_student_branch():
    """The student edition's Binder buttons open the branch without solutions; the normal
    edition's open main."""
    page = "chapters/pegasos/index.html"
    student = (STUDENT / page).read_text(encoding="utf8")
    normal = (HTML / page).read_text(encoding="utf8")
    assert "mybinder.org/v2/gh/" in student and "mybinder.org/v2/gh/" in normal
    assert "/student?" in student and "/main?" not in student
    assert "/main?" in normal


class _Pre(HTMLParser):
    """The text of every <pre> block, with whether it is a cell's printed output."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.blocks, self._text = [], [], None

    def handle_starttag(self, tag, attrs):
        if tag in ("br", "img", "meta", "link", "input", "hr", "source"):
            return
        self.stack.append((tag, dict(attrs).get("class") or ""))
        if tag == "pre":
            self._text = []

    def handle_endtag(self, tag):
        while self.stack:
            t, cls = self.stack.pop()
            if t == tag:
                break
        if tag == "pre" and self._text is not None:
            output = any("cell_output" in c for _, c in self.stack)
            self.blocks.append((output, "".join(self._text)))
            self._text = None

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)


def long_pre_lines(html_text, width=88):
    """(is output, line) of the lines of <pre> blocks longer than `width` columns."""
    p = _Pre()
    p.feed(html_text)
    return [(out, line) for out, text in p.blocks for line in text.splitlines()
            if len(line) > width]


def test_long_pre_lines_finds_output():
    page = ('<div class="cell_output docutils container"><div class="output stream">'
            f'<pre>short\n{"x" * 89}</pre></div></div><pre>{"y" * 88}</pre>')
    assert long_pre_lines(page) == [(True, "x" * 89)]


@pytest.mark.parametrize("page", [p for p in PAGES if p not in GENERATED])
def test_code_and_printed_output_fit(page):
    """Code and printed output fit in 88 columns (nothing scrolls sideways at 1280 px): every
    line of every <pre> block of the page, executed outputs included."""
    bad = long_pre_lines((HTML / page).read_text(encoding="utf8"))
    assert not bad, f"{page}: {len(bad)} lines over 88 columns, e.g. " + "; ".join(
        f"{'output' if out else 'code'}: {line[:70]}..." for out, line in bad[:5])


class _OutputTables(_Pre):
    """The tables of a page's cell outputs: every <pre> block of printed output and, for
    every HTML <table> inside a cell's output, whether Sphinx numbered it (a caption with
    its caption-number: a ``captions.table``) or not (a DataFrame's HTML repr)."""

    def __init__(self):
        super().__init__()
        self.tables = []          # [numbered?] of the <table>s in cell outputs

    def handle_starttag(self, tag, attrs):
        super().handle_starttag(tag, attrs)
        a = dict(attrs)
        if tag == "table" and any("cell_output" in c for _, c in self.stack[:-1]):
            self.tables.append(False)
        elif (tag == "span" and "caption-number" in (a.get("class") or "") and self.tables
              and any(t == "table" for t, _ in self.stack[:-1])):
            self.tables[-1] = True


def output_tables(html_text):
    """[(what, first line)] of the tables a page's cell outputs show without a number: tables
    printed as text (tests/test_numbering.py's printed_tables) and unnumbered HTML tables."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from test_numbering import printed_tables

    p = _OutputTables()
    p.feed(html_text)
    return ([("printed table", t[0]) for out, text in p.blocks if out
             for t in printed_tables(text)]
            + [("HTML table without a number", "") for numbered in p.tables if not numbered])


# tables that pages still print as text, counted by output_tables on the built book (the
# number may only fall: show a new table as a numbered table, captions.table)
PRINTED_TABLES_LEFT = {
}


def test_output_tables_are_found():
    """A printed table and a DataFrame's HTML table are found; a numbered table is not."""
    rows = "  sigma   passes     gap\n   0.01       12   0.003\n  0.001       40   0.010\n"
    page = ('<div class="cell_output docutils container"><div class="output stream">'
            f'<pre><span></span>{rows}</pre></div>'
            '<div class="output text_html"><table class="dataframe"><tr><td>1</td></tr>'
            '</table></div>'
            '<table class="table" id="tbl-a"><caption><span class="caption-number">Table 1.1'
            ' </span><span class="caption-text">A.</span></caption><tr><td>1</td></tr>'
            '</table></div>'
            f'<pre>{rows}</pre>')  # a code block, not an output
    assert output_tables(page) == [("printed table", "  sigma   passes     gap"),
                                   ("HTML table without a number", "")]


@pytest.mark.parametrize("page", [p for p in PAGES if p.startswith("chapters/")])
def test_tables_in_outputs_are_numbered(page):
    """Every table a page's code shows is a numbered, captioned table of the one system
    (tests/test_numbering.py): none printed as text, none an unnumbered HTML table, beyond
    the ones PRINTED_TABLES_LEFT still counts."""
    found = output_tables((HTML / page).read_text(encoding="utf8"))
    left = PRINTED_TABLES_LEFT.get(page, 0)
    assert len(found) <= left, (
        f"{page}: {len(found)} tables in the outputs without a number (allowed {left}); "
        "show them with rlmlib.book.captions.table: " + "; ".join(
            f"{what}: {first!r}" for what, first in found))
    assert len(found) == left, (f"{page}: {len(found)} unnumbered output tables left, "
                                f"PRINTED_TABLES_LEFT says {left}: lower it")


@pytest.mark.parametrize("page", PAGES)
def test_markdown_tables_in_outputs_are_tables(page):
    """A table a cell displays (display(Markdown(...))) is rendered as a table, not as a
    paragraph of pipes (MyST-NB reads such output as CommonMark, which has no tables, unless
    nb_render_markdown_format says otherwise: _config.yml)."""
    text = (HTML / page).read_text(encoding="utf8")
    assert "|—|" not in text and "<p>| " not in text, (
        f"{page}: a Markdown table printed as text (a paragraph starting with '| ')")


def test_figure_and_table_numbers_are_the_sources():
    """Every figure and table of every numbered page is in the built HTML under the number
    tests/test_numbering.py derives from the sources (numbering drift: a caption that did
    not render as a numbered figure or table, a computed {table} that did not parse, a
    chapter numbered otherwise than _toc.yml says), and nothing else is numbered."""
    import re
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from test_numbering import CHAPTERS, ROOT, numbered

    wrong = []
    for page, chapter in CHAPTERS.items():
        html = HTML / page.replace(".md", ".html")
        if not html.is_file():
            continue
        text = html.read_text(encoding="utf8")
        built = dict(re.findall(r'id="((?:fig|tbl)-[\w-]+)".*?class="caption-number">'
                                r"((?:Figure|Table) \d+\.\d+)", text, re.S))
        count = len(re.findall(r'class="caption-number">(?:Figure|Table) ', text))
        want = numbered((ROOT / page).read_text(encoding="utf8"), chapter)
        if built != want or count != len(want):
            wrong.append(f"{page}: built {built} ({count} numbered), sources {want}")
    assert not wrong, wrong
