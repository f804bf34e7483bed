"""The assumptions page and the theorems that name its labels (issue 31 items 1 and 4).

``chapters/foundations/assumptions.md`` states the book's nine assumptions as
``{prf:assumption}`` blocks with fixed labels.  Every ``{prf:theorem}`` of the book, and
every theorem, proposition, lemma and corollary of the parts the framework owns
(Foundations, Implementation, the introduction), names the assumptions it holds under by
``{prf:ref}`as-...``` or says in a comment line ``% assumptions: none (why)`` that it needs
none.  The theorems of other parts that do not yet are allow-listed below with the helper
whose branch adds the labels; a stale entry fails, so the lead deletes entries as those
branches land.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "chapters" / "foundations" / "assumptions.md"
LABELS = ["as-convex", "as-smooth", "as-lmax", "as-strong", "as-es", "as-noise",
          "as-interp", "as-pl", "as-bounded-grad"]
OWN = ("chapters/foundations/", "chapters/implementation/", "intro.md")
KINDS_EVERYWHERE = ("theorem",)
KINDS_OWN = ("theorem", "proposition", "lemma", "corollary")
BLOCK = re.compile(r"^(`{3,})\{prf:(\w+)\}[^\n]*\n(.*?)^\1\s*$", re.S | re.M)
NAMED = re.compile(r"\{prf:ref\}`(?:[^`<]*<)?(as-[a-z-]+)>?`")
NONE = re.compile(r"^% assumptions: none \(.+\)$", re.M)


def _pages() -> list[Path]:
    return sorted((ROOT / "chapters").rglob("*.md")) + [ROOT / "intro.md"]


def results(text: str, own: bool) -> list[tuple[str, str, bool]]:
    """(kind, label, names its assumptions) for each result of a page's text."""
    out = []
    for m in BLOCK.finditer(text):
        kind, body = m.group(2), m.group(3)
        if kind not in (KINDS_OWN if own else KINDS_EVERYWHERE):
            continue
        label = re.search(r"^:label:\s*(\S+)", body, re.M)
        out.append((kind, label.group(1) if label else "(no label)",
                    bool(NAMED.search(body) or NONE.search(body))))
    return out


def test_the_page_states_the_nine_assumptions():
    text = PAGE.read_text(encoding="utf-8")
    stated = re.findall(r"^```\{prf:assumption\}[^\n]*\n:label: (\S+)", text, re.M)
    assert stated == LABELS


def test_every_reference_is_to_a_stated_assumption():
    bad = [f"{p.relative_to(ROOT)}: {label}" for p in _pages()
           for label in NAMED.findall(p.read_text(encoding="utf-8"))
           if label not in LABELS]
    assert not bad, f"references to no assumption of the page: {bad}"


def test_the_check_finds_a_result_without_assumptions():
    text = ("```{prf:theorem} A\n:label: thm-a\n\nUnder {prf:ref}`as-es`, ...\n```\n\n"
            "````{prf:theorem} B\n:label: thm-b\n\nFor every w, ...\n````\n\n"
            "```{prf:lemma} C\n:label: lem-c\n\n% assumptions: none (an identity)\n\n"
            "x = x\n```\n\n```{prf:lemma} D\n:label: lem-d\n\nF is smooth.\n```\n")
    assert results(text, own=True) == [("theorem", "thm-a", True),
                                       ("theorem", "thm-b", False),
                                       ("lemma", "lem-c", True), ("lemma", "lem-d", False)]
    assert results(text, own=False) == [("theorem", "thm-a", True),
                                        ("theorem", "thm-b", False)]


# Theorems of other parts that name no assumption at c58a98f, by the helper whose branch
# adds the labels (issue 31 item 1).  Delete an entry when its branch lands.
UNNAMED: dict[str, str] = {
}


def test_every_result_names_its_assumptions():
    found = {}
    for path in _pages():
        rel = str(path.relative_to(ROOT))
        own = rel.startswith(OWN)
        for kind, label, named in results(path.read_text(encoding="utf-8"), own):
            found[label] = (rel, kind, named)
    unnamed = {label for label, (_, _, named) in found.items() if not named}
    new = sorted(f"{found[label][0]}: {found[label][1]} {label}"
                 for label in unnamed - set(UNNAMED))
    assert not new, f"results that name no assumption ({{prf:ref}}`as-...`): {new}"
    stale = sorted(set(UNNAMED) - unnamed)
    assert not stale, f"allow-listed theorems that now name their assumptions: {stale}"
    for label, (rel, _, _) in found.items():
        assert label not in UNNAMED or not rel.startswith(OWN), label


@pytest.fixture(scope="module")
def constants():
    """Stated and sampled constants of the page's table for four losses."""
    import rlmlib
    from rlmlib.book.assumptions import sampled_constants, stated_constants

    data = {"binary": rlmlib.load_dataset("breast_cancer", standardize=True),
            "regression": rlmlib.load_dataset("diabetes", standardize=True)}
    out = {}
    for loss in ("logistic", "squared_hinge", "squared", "hinge"):
        d = data[rlmlib.LOSSES[loss]["task"]]
        c = stated_constants(loss, d.X, d.y, 1e-2)
        out[loss] = (c, sampled_constants(loss, d.X, d.y, 1e-2, c, seed=0))
    return out


@pytest.mark.parametrize("loss", ["logistic", "squared_hinge", "squared", "hinge"])
def test_the_constant_checks_fail_off_by_two(constants, loss):
    """The page's comparison passes the stated constants and fails each one doubled or
    halved (mu halved only where it is attained; script L is a one-sided bound)."""
    from rlmlib.book.assumptions import MU_ATTAINED, check_constants

    stated, sampled = constants[loss]
    assert check_constants(loss, stated, sampled) == []
    tried = 0
    for key in ("G_l", "L_l", "L_max", "L", "mu"):
        if key not in sampled or not np.isfinite(stated[key]):
            continue
        for factor in (2.0, 0.5):
            if key == "mu" and factor == 0.5 and loss not in MU_ATTAINED:
                continue
            wrong = dict(stated, **{key: factor * stated[key]})
            failed = check_constants(loss, wrong, sampled)
            assert failed and failed[0].startswith(key), (loss, key, factor, failed)
            tried += 1
    assert tried >= 2
    if "es" in sampled:            # script L stated at half the sampled ratio fails too
        wrong = dict(stated, es=0.5 * sampled["es"])
        assert check_constants(loss, wrong, sampled)[0].startswith("es")
