"""The course apparatus, computed from the chapters: exercises, syllabus, problem sets,
counts, nbgrader material (course.yml says the plan).

    python tools/course.py             # print the syllabus and the problem sets' points

The pages syllabus.md, problem-sets.md and instructors.md call these functions in hidden
cells, so what they show is computed from the sources when the book builds.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
OPEN = re.compile(r"^(?P<fence>`{3,}|:{3,})\{exercise\}\s*(?P<title>.*)$")
CHECKER = re.compile(r"rlmlib\.book\.checkers\.(?:(\w+)\.)?(check_\w+)")
KINDS = ("proof", "derivation", "code", "experiment")


@dataclass
class Exercise:
    label: str
    title: str
    body: str
    page: str                 # docname, e.g. chapters/sgdqn/index
    part: str                 # the part's caption in _toc.yml
    stars: str = ""
    kind: str = "–"
    checkers: list = field(default_factory=list)   # "sgdqn.check_scheduled_step" ...

    @property
    def is_code(self):
        return "code" in self.kind

    def points(self, plan):
        return plan.get("points", {}).get(self.label) or \
            plan["points_by_stars"].get(self.stars, 0)


def toc(root: Path = ROOT):
    """[(part caption, [docnames])] in the order of _toc.yml."""
    data = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf8"))
    return [(p["caption"], [c["file"] for c in p.get("chapters", [])])
            for p in data["parts"]]


def difficulty_and_kind(title: str, body: str):
    """Stars and kind, from the title ("★★ · proof (regret): ...") or, when the title is
    empty, from the body's first line ("★ (code) ..." or "**★ · proof.** ...")."""
    head = title or next((b for b in body.splitlines()
                          if b.strip() and not b.startswith(":")), "")
    m = re.match(r"\**(★+)\s*(?:·\s*([^:*]+?)\s*(?::|\.\*\*|$)|\(([^)]*)\))", head)
    if not m:
        return "", "–"
    return m.group(1), (m.group(2) or m.group(3)).strip()


def page_exercises(path: Path, page: str, part: str):
    lines = path.read_text(encoding="utf8").splitlines()
    i = 0
    while i < len(lines):
        m = OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while lines[j].strip() != m["fence"]:
            j += 1
        body = "\n".join(lines[i + 1:j])
        label = next((b.split(":", 2)[2].strip() for b in lines[i + 1:j]
                      if b.startswith(":label:")), "")
        stars, kind = difficulty_and_kind(m["title"].strip(), body)
        checkers = sorted({f"{mod}.{name}" if mod else name
                           for mod, name in CHECKER.findall(body)})
        yield Exercise(label, m["title"].strip(), body, page, part, stars, kind, checkers)
        i = j + 1


def exercises(root: Path = ROOT):
    """Every exercise of the book, in the order of the table of contents."""
    out = []
    for part, pages in toc(root):
        for page in pages:
            path = root / f"{page}.md"
            if path.exists():
                out.extend(page_exercises(path, page, part))
    return out


def plan(root: Path = ROOT):
    return yaml.safe_load((root / "course.yml").read_text(encoding="utf8"))


def weeks(root: Path = ROOT):
    """The weeks of course.yml with their pages resolved: [(number, week, pages, exists)];
    a week on a part that is not in the book has no pages and exists = False."""
    parts = dict(toc(root))
    out = []
    for n, w in enumerate(plan(root)["weeks"], 1):
        if "part" in w:
            pages = parts.get(w["part"], [])
            half = (len(pages) + 1) // 2
            pages = pages[:half] if w.get("half", 1) == 1 else pages[half:]
            out.append((n, w, pages, w["part"] in parts))
        else:
            out.append((n, w, list(w["pages"]), True))
    return out


def problem_sets(root: Path = ROOT):
    """{week number: [Exercise]}: the exercises a week lists (`exercises:`), then every
    exercise of its pages that no week lists (so an exercise added to a page joins its
    week by itself)."""
    every = exercises(root)
    by_label = {e.label: e for e in every}
    listed = {lab for _, w, _, _ in weeks(root) for lab in w.get("exercises", [])}
    by_page = {}
    for e in every:
        if e.label not in listed:
            by_page.setdefault(e.page, []).append(e)
    return {n: [by_label[lab] for lab in w.get("exercises", []) if lab in by_label]
            + [e for p in pages for e in by_page.get(p, [])]
            for n, w, pages, _ in weeks(root)}


def title_of(page: str, root: Path = ROOT) -> str:
    for line in (root / f"{page}.md").read_text(encoding="utf8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return page


def _ex_ref(e: Exercise) -> str:
    return f"{{ref}}`{e.label}`"


def syllabus_table(root: Path = ROOT) -> str:
    p = plan(root)
    sets = problem_sets(root)
    rows = ["| week | topic | read | problem set | prerequisites |", "|---|---|---|---|---|"]
    for n, w, pages, exists in weeks(root):
        if exists and pages:
            read = ", ".join(f"{{doc}}`/{pg}`" for pg in pages)
        elif exists:
            read = f"the part “{w['part']}”"
        else:
            read = f"the part “{w['part']}” (being written)"
        ex = sets[n]
        pts = sum(e.points(p) for e in ex)
        ps = (f"set {n}: {len(ex)} exercises, {pts} points" if ex
              else "the part's exercises, when they exist")
        rows.append(f"| {n} | {w['title']} | {read} | {ps} | {w['prerequisites']} |")
    return "\n".join(rows)


def _plain_body(e: Exercise) -> str:
    """The exercise's text for another page: options dropped, relative {doc} links made
    absolute (every other role the exercises use refers to a global label)."""
    body = "\n".join(b for b in e.body.splitlines() if not b.startswith(":"))
    base = e.page.rsplit("/", 1)[0]

    def absolute(m):
        text, target = m.group(1), m.group(2)
        target = target if target.startswith("/") else f"/{base}/{target}"
        return f"{{doc}}`{text} <{target}>`"
    body = re.sub(r"\{doc\}`([^<`]*?)\s*<([^>`]+)>`", absolute, body)
    body = re.sub(r"\{doc\}`([^</`][^<`]*)`",    # a bare {doc}`target`, relative
                  lambda m: f"{{doc}}`/{base}/{m.group(1)}`", body)
    return body.strip()


def problem_sets_markdown(root: Path = ROOT) -> str:
    """Every week's problem set: a table (exercise, difficulty, kind, points, checker) and
    the statements, each set starting on a new printed page."""
    p = plan(root)
    sets = problem_sets(root)
    out = []
    for n, w, pages, exists in weeks(root):
        ex = sets[n]
        if n > 1:
            out.append('<div style="break-before: page; page-break-before: always"></div>\n')
        out.append(f"**Problem set {n} (week {n}): {w['title']}**\n")
        if not ex:
            what = "is being written" if not exists else "has no exercises yet"
            out.append(f"The part “{w.get('part', '')}” {what}: this set is made of its "
                       "exercises when they exist (course.yml, `half` "
                       f"{w.get('half', 1)} of its pages).\n")
            continue
        out.append(f"Read: {', '.join(f'{{doc}}`/{pg}`' for pg in pages)}.  "
                   f"Total: {sum(e.points(p) for e in ex)} points.\n")
        out.append("| exercise | difficulty | kind | points | self-check |\n|---|---|---|---|---|")
        for e in ex:
            chk = ", ".join(f"`{c}`" for c in e.checkers) or "–"
            out.append(f"| {_ex_ref(e)} | {e.stars or '–'} | {e.kind} | {e.points(p)} | {chk} |")
        out.append("")
        for e in ex:
            head = e.title or "(untitled)"
            out.append(f"**{_ex_ref(e)}** ({e.points(p)} points). {head}\n")
            out.append(_plain_body(e) + "\n")
    return "\n".join(out)


def counts(root: Path = ROOT):
    """{part: (exercises, code exercises, code exercises with a checker, with a checker)}."""
    out = {}
    for e in exercises(root):
        n, code, code_chk, chk = out.get(e.part, (0, 0, 0, 0))
        out[e.part] = (n + 1, code + e.is_code, code_chk + (e.is_code and bool(e.checkers)),
                       chk + bool(e.checkers))
    return out


if __name__ == "__main__":
    ps = problem_sets()
    p = plan()
    for n, w, pages, exists in weeks():
        ex = ps[n]
        print(f"week {n:2d}: {w['title'][:50]:50s} {len(ex):2d} exercises "
              f"{sum(e.points(p) for e in ex):3d} points{'' if exists else ' (part not in the book yet)'}")
    sys.exit(0)


# ----------------------------------------------------------------------------- workload
#: the rates of the workload estimate: reading speed, and hours per exercise by difficulty
#: (plus extra hours by kind: running an experiment, and the second half of an exercise
#: that asks for both a proof or derivation and code)
WORDS_PER_HOUR = 1500
HOURS_BY_STARS = {"★": 0.75, "★★": 2.0, "★★★": 4.0}
EXTRA_HOURS = {"experiment": 0.5, "proof and code": 0.5}

_FENCED = re.compile(r"^(`{3,}|:{3,})\{(code-cell|solution|solution-start|solution-end)\}"
                     r".*?^\1\s*$", re.M | re.S)
_GATED = re.compile(r"^(`{3,}|:{3,})\{solution-start\}.*?\{solution-end\}.*?^\1\s*$",
                    re.M | re.S)


def prose_words(text: str) -> int:
    """Words a student reads on a page: without front matter, code cells and solutions."""
    if text.startswith("---\n"):
        text = text[text.index("\n---", 4) + 4:]
    text = _GATED.sub("", text)
    text = _FENCED.sub("", text)
    return len(re.findall(r"\S+", text))


def exercise_hours(e: Exercise) -> float:
    h = HOURS_BY_STARS.get(e.stars, HOURS_BY_STARS["★★"])
    kind = e.kind.lower()
    if "experiment" in kind:
        h += EXTRA_HOURS["experiment"]
    if ("proof" in kind or "derivation" in kind) and "code" in kind:
        h += EXTRA_HOURS["proof and code"]
    return h


def workload(root: Path = ROOT):
    """[(week number, title, words, reading hours, exercises, exercise hours, total)]: the
    estimated hours of each week of course.yml (every exercise of its problem set)."""
    sets = problem_sets(root)
    out = []
    for n, w, pages, exists in weeks(root):
        words = sum(prose_words((root / f"{p}.md").read_text(encoding="utf8"))
                    for p in pages if (root / f"{p}.md").exists())
        read = words / WORDS_PER_HOUR
        ex = sets.get(n, [])
        work = sum(exercise_hours(e) for e in ex)
        out.append((n, w["title"], words, read, len(ex), work, read + work))
    return out


def workload_table(root: Path = ROOT) -> str:
    rows = workload(root)
    mean = sum(r[6] for r in rows) / len(rows)
    lines = ["| week | title | words | reading (h) | exercises | exercises (h) | total (h) "
             "| vs mean |", "|---|---|---|---|---|---|---|---|"]
    for n, title, words, read, k, work, total in rows:
        lines.append(f"| {n} | {title} | {words:,} | {read:.1f} | {k} | {work:.1f} | "
                     f"{total:.1f} | {100 * (total / mean - 1):+.0f} % |")
    lines.append(f"\nMean {mean:.1f} h a week. Rates: {WORDS_PER_HOUR:,} words read an "
                 "hour (prose, without code cells and solutions); "
                 + ", ".join(f"{s} {h:g} h" for s, h in HOURS_BY_STARS.items())
                 + " per exercise; plus "
                 + ", ".join(f"{h:g} h for {k}" for k, h in EXTRA_HOURS.items()) + ".")
    return "\n".join(lines)
