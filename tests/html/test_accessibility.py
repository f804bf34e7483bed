"""Accessibility of every page of both editions, checked in the browser with axe-core
(WCAG 2.0/2.1 A and AA rules): no critical and no serious violation.

`make html-test` fetches axe-core (tests/html/ensure_axe.py) and runs this after the two
builds; `pytest -s tests/html/test_accessibility.py -k report` prints the count of
violations per rule and impact over all pages.

Colour contrast, the slowest rule (it measures every text node), is not run twice on the
same thing: a student page is checked without it when the two editions share their
stylesheets and every element of the page, with its three nearest ancestors (tag, class,
inline style), occurs somewhere in the main edition, where the rule ran on it. Any other
student page, and every page of the main edition, runs every rule.
"""
from __future__ import annotations

import filecmp
import json
import os
from collections import Counter
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path

import pytest

from system_packages import AXE_SCRIPT as SCRIPT

ROOT = Path(__file__).resolve().parents[2]
EDITIONS = {"main": Path(os.environ.get("BOOK_HTML", ROOT / "_build" / "html")),
            "student": ROOT / "_build" / "student" / "_build" / "html"}
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BLOCKING = ("critical", "serious")
FOUND: dict[tuple[str, str], list] = {}


def _pages():
    out = []
    for edition, root in EDITIONS.items():
        if (root / "index.html").is_file():
            out += [(edition, p.relative_to(root).as_posix())
                    for p in sorted(root.rglob("*.html"))
                    if "_static" not in p.parts and p.name not in ("search.html",
                                                                   "genindex.html")]
    return out


PAGES = _pages()
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr"}


class _Kinds(HTMLParser):
    """Every element as (its three nearest ancestors, itself), each as (tag, class,
    style): what decides the colours axe's contrast rule reads."""

    def __init__(self):
        super().__init__()
        self.kinds, self.stack = set(), []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        key = (tag, a.get("class") or "", a.get("style") or "")
        self.kinds.add((*self.stack[-3:], key))
        if tag not in VOID:
            self.stack.append(key)

    def handle_startendtag(self, tag, attrs):
        a = dict(attrs)
        self.kinds.add((*self.stack[-3:], (tag, a.get("class") or "",
                                           a.get("style") or "")))

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop()[0] != tag:
            pass


def _kinds(path: Path) -> set:
    p = _Kinds()
    p.feed(path.read_text(encoding="utf8"))
    return p.kinds


@lru_cache(maxsize=1)
def _main_kinds() -> frozenset:
    return frozenset().union(*(_kinds(EDITIONS["main"] / page)
                               for edition, page in PAGES if edition == "main"))


def _same_stylesheets() -> bool:
    a, b = EDITIONS["main"] / "_static", EDITIONS["student"] / "_static"
    css = sorted(p.relative_to(a) for p in a.rglob("*.css"))
    return bool(css) and all((b / c).is_file() and filecmp.cmp(a / c, b / c, shallow=False)
                             for c in css)


def contrast_checked_in_main(edition: str, page: str) -> bool:
    """True when axe's colour-contrast verdict on this page is the main edition's: a
    student page whose element kinds (see :class:`_Kinds`) all occur in the main edition
    under the same stylesheets."""
    if edition == "main" or "main" not in {e for e, _ in PAGES}:
        return False
    return _same_stylesheets() and _kinds(EDITIONS[edition] / page) <= _main_kinds()


@pytest.fixture(scope="module")
def axe_js():
    if not SCRIPT.is_file():
        pytest.fail(f"{SCRIPT} missing: run `python tools/system_packages.py axe`")
    return SCRIPT.read_text(encoding="utf8")


@pytest.fixture(scope="module")
def servers():
    import functools
    import http.server
    import threading

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    out, stops = {}, []
    for edition, root in EDITIONS.items():
        if not (root / "index.html").is_file():
            continue
        h = functools.partial(Quiet, directory=str(root))
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), h)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        out[edition] = f"http://127.0.0.1:{httpd.server_address[1]}"
        stops.append(httpd)
    yield out
    for httpd in stops:
        httpd.shutdown()
        httpd.server_close()


RUN_AXE = """
  const done = arguments[arguments.length - 1];
  const ready = (window.MathJax && MathJax.startup) ? MathJax.startup.promise
                                                     : Promise.resolve();
  const rules = arguments[1] ? {'color-contrast': {enabled: false}} : {};
  ready.then(() => axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}, rules}))
       .then(r => done(JSON.stringify(r.violations.map(v => ({
             id: v.id, impact: v.impact, help: v.help,
             nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ')),
             count: v.nodes.length})))),
             e => done(JSON.stringify({error: String(e)})));
"""


def test_both_editions_are_checked():
    editions = {e for e, _ in PAGES}
    assert "main" in editions, "build the book first (make book)"
    if not os.environ.get("BOOK_HTML"):   # `make test` builds both editions
        assert "student" in editions, "build the student edition first (make book-student)"
    assert len(PAGES) >= 20


@pytest.mark.parametrize("edition,page", PAGES)
def test_no_serious_violation(browser, servers, axe_js, edition, page):
    browser.get(f"{servers[edition]}/{page}")
    browser.execute_script(axe_js)
    browser.set_script_timeout(120)
    skip_contrast = contrast_checked_in_main(edition, page)
    out = json.loads(browser.execute_async_script(RUN_AXE, TAGS, skip_contrast))
    assert not (isinstance(out, dict) and "error" in out), out
    FOUND[edition, page] = out
    bad = [v for v in out if v["impact"] in BLOCKING]
    assert not bad, f"{edition} {page}:\n" + "\n".join(
        f"  {v['impact']} {v['id']} ({v['count']} nodes): {v['help']}; e.g. {v['nodes']}"
        for v in bad)


def test_report():
    """Violations per rule and impact over every page checked (`-s` prints them)."""
    count = Counter()
    for violations in FOUND.values():
        for v in violations:
            count[v["impact"], v["id"]] += v["count"]
    for (impact, rule), n in sorted(count.items()):
        print(f"[axe] {impact:9s} {rule:32s} {n:5d} nodes")
    print(f"[axe] {len(FOUND)} pages checked; colour contrast taken from the main edition "
          f"on {sum(contrast_checked_in_main(e, p) for e, p in FOUND)}")


def test_contrast_is_taken_from_main_only_for_pages_made_of_its_elements(tmp_path):
    """A student page with an element kind the main edition lacks runs the contrast rule."""
    page = tmp_path / "p.html"
    page.write_text('<html><body><div class="x"><span style="color:#aaa">t</span>'
                    '<br/></div></body></html>', encoding="utf8")
    kinds = _kinds(page)
    assert (("html", "", ""), ("body", "", ""), ("div", "x", ""),
            ("span", "", "color:#aaa")) in kinds
    assert (("html", "", ""), ("body", "", ""), ("div", "x", ""), ("br", "", "")) in kinds
    page.write_text('<html><body><div class="x"><span style="color:#aab">t</span>'
                    '</div></body></html>', encoding="utf8")
    assert not _kinds(page) <= kinds
