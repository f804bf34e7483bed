"""Sphinx extension local to the book (loaded through `sphinx.local_extensions` in _config.yml).

It makes the HTML work with no network: MathJax 3 is copied from the installed PyPI package
`django-static-mathjax` (pinned in requirements.txt; it ships MathJax's own `es5` build and
has no Django dependency) into `_build/html/_static/mathjax/`, where `mathjax_path` in
_config.yml points.  Only the parts the CommonHTML output needs are copied (the combined
`tex-mml-chtml.js`, the TeX extensions it autoloads, its fonts, the menu and accessibility
components it may load on demand).
"""
from __future__ import annotations

import shutil
from importlib.util import find_spec
from pathlib import Path

import re

from sphinx.errors import ExtensionError

#: parts of MathJax's es5 build copied into the HTML
MATHJAX_PARTS = ["tex-mml-chtml.js", "input", "output/chtml", "ui", "a11y", "adaptors", "sre"]


def mathjax_source() -> Path:
    spec = find_spec("mathjax")
    if spec is None or spec.submodule_search_locations is None:
        raise ExtensionError(
            "MathJax files not found: the package django-static-mathjax (import name "
            "'mathjax') must be installed, see requirements.txt"
        )
    src = Path(list(spec.submodule_search_locations)[0]) / "static" / "mathjax" / "es5"
    if not (src / "tex-mml-chtml.js").is_file():
        raise ExtensionError(f"MathJax es5 build not found in {src}")
    return src


def copy_mathjax(app, exc) -> None:
    if exc is not None or app.builder.format != "html":
        return
    src = mathjax_source()
    dest = Path(app.outdir) / "_static" / "mathjax"
    for part in MATHJAX_PARTS:
        s, d = src / part, dest / part
        if s.is_dir():
            shutil.copytree(s, d, dirs_exist_ok=True)
        else:
            d.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(s, d)


def check_config(app, config) -> None:
    if str(config.mathjax_path).startswith(("http:", "https:", "//")):
        raise ExtensionError(
            f"mathjax_path must point into the build (offline HTML), got {config.mathjax_path!r}"
        )
    mathjax_source()


def citation_list_items(app, pagename, templatename, context, doctree) -> None:
    """Docutils writes the bibliography as ``<div role="list">`` of entries with the role
    ``doc-biblioentry``, which is not a list item: screen readers announce an empty list and
    axe-core reports a critical violation (aria-required-children).  Make them list items."""
    body = context.get("body")
    if body and 'role="doc-biblioentry"' in body:
        context["body"] = body.replace('role="doc-biblioentry"', 'role="listitem"')


def dedupe_scripts(app, pagename, templatename, context, doctree) -> None:
    """Drop sphinx-thebe's scripts (they name a CDN) and repeated <script> entries.  sphinx-thebe 0.3.1 registers its inline configuration
    (`const THEBE_JS_URL = ...`) twice (once with filename None, once with ""), and the second
    `const` declaration is a JavaScript SyntaxError on every page."""
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for js in scripts:
        # sphinx-thebe's configuration names unpkg's CDN (THEBE_JS_URL) on every page, and
        # sphinx-thebe.js only serves it; the thebe button is off (launch_buttons.thebe:
        # false), so neither is needed, and no built page may name a CDN
        body = str(getattr(js, "attributes", {}).get("body", ""))
        if "unpkg.com" in body or str(getattr(js, "filename", js) or "").endswith(
                "sphinx-thebe.js"):
            continue
        # same file (or same inline body) and attributes, whatever the priority
        key = (str(getattr(js, "filename", js) or ""),
               tuple(sorted((k, str(v)) for k, v in getattr(js, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(js)
    context["script_files"] = unique


NUMPYDOC_SECTION = re.compile(r"^\s*(Parameters|Returns|Raises|Examples|Attributes)\n\s*-{3,}",
                              re.M)


def docstrings_for_autodoc(app, what, name, obj, options, lines) -> None:
    """Make rlmlib's docstrings safe for the API page (runs before napoleon).

    A numpydoc docstring keeps its sections (napoleon renders them); in its prose, the
    ``|x|`` of absolute values and norms, which reStructuredText reads as substitutions, is
    escaped (not in doctest blocks).  A docstring without numpydoc sections is plain text
    written for ``help()``: it is shown verbatim, as a literal block.
    """
    if not lines:
        return
    if not NUMPYDOC_SECTION.search("\n".join(lines)):
        lines[:] = ["::", ""] + ["    " + line for line in lines] + [""]
        return
    in_doctest = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith(">>>"):
            in_doctest = True
        elif not line.strip():
            in_doctest = False
        if not in_doctest:
            lines[i] = line.replace("|", "\\|")


def latex_exercise_visit(self, node) -> None:
    """LaTeX writer of a numbered exercise: sphinx-exercise labels it `exercise:<label>` only,
    while Sphinx writes a {numref}/{ref} to it as `\\ref{<docname>:<label>}`, which printed
    "Exercise ??" in the PDF.  Here the exercise also gets that label, with its number
    (from the same table that numbers it in the HTML) as the text `\\ref` prints."""
    from sphinx_exercise.nodes import visit_exercise_enumerable_node

    docname = self.curfilestack[-1]
    numbers = self.builder.env.toc_fignumbers.get(docname, {}).get("exercise", {})
    for label in node.get("ids", []):
        if label in numbers:
            number = ".".join(map(str, numbers[label]))
            target = self.idescape(f"{docname}:{label}")
            self.body.append(r"\makeatletter\def\@currentlabel{%s}\makeatother"
                             r"\phantomsection\label{\detokenize{%s}}" % (number, target)
                             + "\n")
    visit_exercise_enumerable_node(self, node)


def override_latex_writers(app) -> None:
    from sphinx_exercise.nodes import (depart_exercise_enumerable_node,
                                       exercise_enumerable_node)

    app.add_node(exercise_enumerable_node, override=True,
                 latex=(latex_exercise_visit, depart_exercise_enumerable_node))


def latex_parts_and_chapter_numbers(app, doctree, docname) -> None:
    """The PDF's structure follows the table of contents: each part of _toc.yml opens with
    a \\part page carrying its caption (Sphinx's own LaTeX writes chapters only), and the
    chapter counter restarts at the first numbered page (LaTeX numbers every chapter, the
    introduction's sections too, so the PDF's chapters ran four ahead of the HTML's and of
    the figure and theorem numbers Sphinx writes)."""
    if app.builder.format != "latex":
        return
    import yaml
    from docutils import nodes
    from sphinx import addnodes

    toc = yaml.safe_load((Path(app.srcdir) / "_toc.yml").read_text(encoding="utf8"))
    parts = {p["chapters"][0]["file"]: p["caption"] for p in toc.get("parts", [])
             if p.get("caption") and p.get("chapters")}
    first = [d for d, n in app.env.toc_secnumbers.items() if n.get("") == (1,)]
    for start in doctree.findall(addnodes.start_of_file):
        doc = start.get("docname")
        latex = ""
        if doc in parts:
            latex += "\\part{%s}\n" % parts[doc].replace("&", "\\&")
        if doc in first:
            latex += "\\setcounter{chapter}{0}\n"
        if latex:
            start.insert(0, nodes.raw("", latex, format="latex"))


def setup(app):
    app.connect("autodoc-process-docstring", docstrings_for_autodoc, priority=100)
    app.connect("html-page-context", dedupe_scripts, priority=10_000)  # after all others
    app.connect("html-page-context", citation_list_items)
    app.connect("config-inited", check_config)
    app.connect("build-finished", copy_mathjax)
    app.connect("doctree-resolved", latex_parts_and_chapter_numbers)
    app.setup_extension("sphinx_exercise")
    override_latex_writers(app)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1.0"}
