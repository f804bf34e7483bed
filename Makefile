# The book's two commands:   make book   (build the HTML)   make test   (test everything)
# Both create the environment first (.venv from requirements.txt) on a machine that has only
# Python 3.11 and make.  See README.md.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := book

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
JB     := $(VENV)/bin/jupyter-book
JBFLAGS := -W -n --keep-going

# numba's disk cache: `import rlmlib` sets NUMBA_CACHE_DIR to .numba_cache/<hash of rlmlib's
# sources> (rlmlib/__init__.py), so that an edit never meets a stale compiled kernel
# prefer the kernel spec installed in .venv over any user-wide one
export JUPYTER_PREFER_ENV_PATH := 1
# ipykernel's debugger warns on stderr about frozen modules (Python 3.11): not the book's
export PYDEVD_DISABLE_FILE_VALIDATION := 1
# what the executed chapters see (see rlmlib/book/explore.py and README.md):
#   RLMLIB_EXPLORE=static  explorable figures are precomputed for the static HTML
#   TQDM_DISABLE=1         no progress bars in the built book
#   MPLBACKEND=...inline   Jupyter's inline backend: with MPLBACKEND=Agg a kernel shows no
#                          plt.show() figure at all (explore() does not use pyplot)
BUILD_ENV := RLMLIB_EXPLORE=static TQDM_DISABLE=1 MPLBACKEND=module://matplotlib_inline.backend_inline

.PHONY: book book-html student-src book-student-html test unit html-test book-student pdf pdf-main pdf-student a11y bench bench-env record record-timings record-first-figure stress clean env \
        lab instructors-env assignments assignments-test

# ----------------------------------------------------------------------------- environment
# rebuilt when requirements.txt or pyproject.toml change
$(STAMP): requirements.txt pyproject.toml
	@test -x $(PY) || { echo "[env] creating $(VENV) with $(PYTHON)"; $(PYTHON) -m venv $(VENV); }
	@$(PY) -c 'import sys; assert sys.version_info[:2] == (3, 11), f"need Python 3.11, .venv has {sys.version}"'
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install -q --disable-pip-version-check --no-deps -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3" > /dev/null
	touch $@

env: $(STAMP)

# the instructors' environment (nbgrader, requirements-instructors.txt) on top of .venv: only
# the targets that write or grade assignments install it (`make test` autogrades one)
ISTAMP := $(VENV)/.installed-instructors
$(ISTAMP): $(STAMP) requirements-instructors.txt
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-instructors.txt
	$(PY) -m pip check
	touch $@

instructors-env: $(ISTAMP)

# JupyterLab on the chapters: .jupyter/labconfig makes a double-click open a chapter's .md
# as a notebook (jupytext's viewer; tests/test_lab_viewer.py); jupyterlab-myst renders the
# MyST of the Markdown cells.  As root (containers, CI) JupyterLab needs --allow-root.
# LAB_FLAGS adds options, e.g. `make lab LAB_FLAGS="--ip=0.0.0.0 --no-browser"`.
LAB_FLAGS ?=
lab: $(STAMP)
	JUPYTER_CONFIG_PATH=$(CURDIR)/.jupyter PYTHONPATH=$(CURDIR) $(VENV)/bin/jupyter lab \
	  $$(test "$$(id -u)" = 0 && echo --allow-root || true) $(LAB_FLAGS)

# ----------------------------------------------------------------------------- the book
book: $(STAMP)
	$(BUILD_ENV) $(PY) tools/execute.py .
	$(MAKE) --no-print-directory book-html

# the Sphinx pass alone, on the executed chapters in the jupyter-cache
book-html: $(STAMP)
	$(BUILD_ENV) $(JB) build . $(JBFLAGS) $$(test -f _build/.sphinx-stale && echo --all || true)
	rm -f _build/.sphinx-stale
	@echo "[book] HTML in _build/html/index.html"

book-student: $(STAMP)
	$(MAKE) --no-print-directory student-src
	$(MAKE) --no-print-directory book-student-html

# the student edition's sources (solutions cut) and their execution (most pages take the
# main edition's outputs), then its Sphinx pass
student-src: $(STAMP)
	$(PY) tools/student.py . _build/student_src
	$(BUILD_ENV) $(PY) tools/execute.py _build/student_src --cache $(CURDIR)/_build/.jupyter_cache \
	  --reuse-from $(CURDIR)

book-student-html: $(STAMP)
	$(BUILD_ENV) $(JB) build _build/student_src --path-output _build/student $(JBFLAGS)
	@echo "[book-student] HTML in _build/student/_build/html/index.html"

# ----------------------------------------------------------------------------- coursework
# nbgrader assignments, one per part, from the code exercises (tools/assignments.py): sources
# with solutions and hidden tests in _build/course/source, releases in _build/course/release;
# grade with `make grade PART=<part>` (nbgrader autograde, then the hidden grading)
COURSE := _build/course
assignments: $(ISTAMP)
	$(PY) tools/assignments.py $(COURSE)
	@cd $(COURSE) && for a in source/*/; do a=$$(basename $$a); \
	  PATH=$(CURDIR)/$(VENV)/bin:$$PATH PYTHONPATH=$(CURDIR) \
	  $(CURDIR)/$(VENV)/bin/nbgrader generate_assignment $$a --force --log-level=WARN; done
	@echo "[assignments] sources in $(COURSE)/source, student releases in $(COURSE)/release"

# grade the submissions of one part (in $(COURSE)/submitted/<student>/PART/): nbgrader runs
# each in a kernel that has no instructors/ on its path (visible self-checks only), then the
# hidden grading reruns the answers in a fresh process and audits the code, writing the
# scores and flags into the gradebook (instructors/hidden.py)
.PHONY: grade
grade: $(ISTAMP)
	@test -n "$(PART)" || { echo "make grade PART=<part>"; exit 2; }
	cd $(COURSE) && env -u PYTHONPATH PATH=$(CURDIR)/$(VENV)/bin:$$PATH \
	  $(CURDIR)/$(VENV)/bin/nbgrader autograde $(PART) --create --log-level=WARN
	PYTHONPATH=$(CURDIR) $(PY) -m instructors.hidden $(COURSE) $(PART)

# every part's assignment autograded on sample submissions (`make test` does one)
assignments-test: $(ISTAMP)
	RLMLIB_ALL_ASSIGNMENTS=1 $(PY) -m pytest -q tests/test_assignments.py

# ----------------------------------------------------------------------------- tests
# system programs (Chromium, TeX, axe-core) installed when missing: tools/system_packages.py
SYSPKG := $(PY) tools/system_packages.py
# pytest-xdist workers for the unit suite (`make test` runs it on both cores)
UNIT_JOBS ?= 1
unit: $(STAMP) $(ISTAMP)
	$(PY) -m pytest -q --ignore=tests/html --ignore=tests/pdf \
	  $(if $(filter-out 1,$(UNIT_JOBS)),-n $(UNIT_JOBS))

# after book-student: the student HTML holds no reference answer (skipped in `unit`);
# tests/html/test_explorables_browser.py drives JupyterLab and the built pages in Chromium
# (a few minutes) and prints the explorables' redraw latencies (-s)
html-test: $(STAMP)
	$(SYSPKG) chromium
	$(PY) -m pytest -q tests/html --ignore=tests/html/test_explorables_browser.py \
	  --ignore=tests/html/test_accessibility.py
	$(PY) -m pytest -q -s tests/html/test_explorables_browser.py
	$(PY) -m pytest -q tests/test_student_build.py -k student_html

# axe-core (WCAG 2.1 AA rules) on every page of both editions, after book and book-student:
# 0 critical and 0 serious violations
a11y: $(STAMP)
	$(SYSPKG) chromium axe
	$(PY) -m pytest -q tests/html/test_accessibility.py

# `make test` = what CI runs (.ci/run), scheduled for two cores: the system programs are
# installed in the background while the unit suite runs on both cores; every chapter is
# executed (the pages that time code too: their claims rest on the recorded timings); then
# the two HTML editions are built side by side; then the accessibility check, the two PDF
# editions and the HTML tests run two at a time, the longest job (axe) first so that the
# shorter ones pack beside it.  About 13 minutes cold on two cores.
test: $(STAMP) $(ISTAMP)
	@mkdir -p _build
	$(SYSPKG) chromium tex axe --background _build/system-packages.log
	$(MAKE) --no-print-directory unit UNIT_JOBS=2
	$(BUILD_ENV) $(PY) tools/execute.py . --timed-in-parallel
	$(MAKE) --no-print-directory student-src
	$(MAKE) --no-print-directory -j2 --output-sync=target book-html book-student-html
	$(MAKE) --no-print-directory -j2 --output-sync=target a11y pdf html-test

# ----------------------------------------------------------------------------- PDF
# Both editions as PDF (_build/latex/book.pdf and _build/student/_build/latex/book.pdf) from
# the executed chapters: XeLaTeX from Debian's TeX packages, installed when missing
# (tools/system_packages.py tex, about a minute), then tests/pdf opens the files and checks
# them against the HTML.  Each LaTeX build shares its edition's Sphinx environment with the
# HTML build (same build directory), so after `make book book-student` it reads no source
# again.  The two editions build side by side with `make -j2 pdf` (XeLaTeX uses one core),
# as `make test` does.
pdf-main: $(STAMP)
	$(SYSPKG) tex
	$(BUILD_ENV) $(JB) build . --builder pdflatex

pdf-student: $(STAMP)
	$(SYSPKG) tex
	$(BUILD_ENV) $(JB) build _build/student_src --builder pdflatex --path-output _build/student

pdf: pdf-main pdf-student
	$(PY) -m pytest -q tests/pdf

# ----------------------------------------------------------------------------- benchmarks
# The peers (PyTorch, dask-ml, skglm, tick) live in their own environment, .venv-bench
# (requirements-bench.txt, rlmlib installed editable), never in the book's .venv.
# BENCH_PY runs a benchmark there: `make bench-env && .venv-bench/bin/python benchmarks/x.py`
BVENV    := .venv-bench
BENCH_PY := $(BVENV)/bin/python
BSTAMP   := $(BVENV)/.installed
$(BSTAMP): requirements-bench.txt pyproject.toml
	@test -x $(BENCH_PY) || { echo "[bench-env] creating $(BVENV) with $(PYTHON)"; $(PYTHON) -m venv $(BVENV); }
	$(BENCH_PY) -m pip install -q --disable-pip-version-check -r requirements-bench.txt
	$(BENCH_PY) -m pip install -q --disable-pip-version-check --no-deps -e .
	touch $@

bench-env: $(BSTAMP)

bench: $(BSTAMP)
	@shopt -s nullglob; files=(benchmarks/*.py); \
	if [ $${#files[@]} -eq 0 ]; then echo "[bench] no benchmarks/*.py"; exit 0; fi; \
	for f in "$${files[@]}"; do echo "[bench] $$f"; $(BENCH_PY) "$$f"; done

# ----------------------------------------------------------------------------- recorded runs
# Paper-sized runs (RLMLIB_FULL=1) of the chapters that save their results to data/recorded/
# (about half an hour in all on two cores: Pegasos 20 min, SGD-QN 6, preconditioning 4-6, as
# measured on 2026-11-23 with other jobs on the machine). A copy of each chapter is executed:
# jupytext refuses to write back a source that was edited during the run. Commit the JSON
# files afterwards.
# `make record SCHEDULER=tcp://host:8786` runs their sweeps (rlmlib.book.parallel.sweep) on that Dask
# cluster instead of the embedded one (chapters/implementation/cluster.md).
RECORDED_CHAPTERS := chapters/pegasos/experiments.md chapters/sgdqn/experiments.md \
                     chapters/precond/experiments.md
SCHEDULER ?=
record: $(STAMP)
	@test -z "$$(git status --porcelain rlmlib)" || { echo "[record] commit rlmlib first: the record names the commit it ran"; exit 1; }
	@for f in $(RECORDED_CHAPTERS); do \
	  tmp=$$(mktemp -d); cp "$$f" "$$tmp/run.md"; echo "[record] $$f (RLMLIB_FULL=1)"; \
	  RLMLIB_FULL=1 $(if $(SCHEDULER),RLMLIB_SCHEDULER=$(SCHEDULER)) $(BUILD_ENV) $(VENV)/bin/jupytext --to notebook --execute "$$tmp/run.md" \
	    -o "$$tmp/run.ipynb"; \
	done
	git status --short data/recorded

# ----------------------------------------------------------------------------- timing records
# Claims about time rest on measurements recorded on a quiet machine (rlmlib.book.timings):
# the pages that time code are executed one after another with RLMLIB_RECORD_TIMINGS=1,
# each measurement writing data/recorded/timings/<name>.json (commit, CPU, cores, BLAS
# kernel, load average); a recording is refused above load RLMLIB_RECORD_MAX_LOAD (1.5).
# Then the book is built and the browser test records the explorables' redraw latencies.
# About 6 minutes on two idle cores. Commit the JSON files afterwards.
TIMED_PAGES := chapters/foundations/order.md chapters/theory/minibatch.md \
               chapters/implementation/benchmarks.md chapters/implementation/cluster.md \
               chapters/pegasos/experiments.md chapters/sgdqn/experiments.md \
               chapters/fiol/experiments.md chapters/precond/experiments.md
record-timings: $(STAMP)
	@test -z "$$(git status --porcelain rlmlib)" || { echo "[record-timings] commit rlmlib first: the record names the commit it ran"; exit 1; }
	@for f in $(TIMED_PAGES); do \
	  tmp=$$(mktemp -d); cp "$$f" "$$tmp/run.md"; echo "[record-timings] $$f"; \
	  RLMLIB_RECORD_TIMINGS=1 RLMLIB_RECORD_WAIT=600 $(BUILD_ENV) \
	    $(VENV)/bin/jupytext --to notebook --execute \
	    "$$tmp/run.md" -o "$$tmp/run.ipynb" > /dev/null; \
	done
	$(MAKE) book
	@# the browser, JupyterLab and its kernel are load of their own: allow 2.5
	RLMLIB_RECORD_TIMINGS=1 RLMLIB_RECORD_MAX_LOAD=$${RLMLIB_RECORD_MAX_LOAD:-2.5} \
	  RLMLIB_RECORD_WAIT=600 $(PY) -m pytest -q -s \
	  tests/html/test_explorables_browser.py
	git status --short data/recorded/timings

# Binder's first run: seconds from a fresh kernel to the first figure of every chapter, with
# an empty numba cache (cold) and with the cache postBuild warms (warm), written to
# data/recorded/timings/first_figure.json (shown on chapters/implementation/index.md).
# Every chapter twice (to its first figure) and once whole (the warming, as postBuild):
# about 15 minutes on two idle cores, most of it the warming.
record-first-figure: $(STAMP)
	@test -z "$$(git status --porcelain rlmlib)" || { echo "[record-first-figure] commit rlmlib first: the record names the commit it ran"; exit 1; }
	RLMLIB_RECORD_WAIT=600 $(PY) tools/measure_first_figure.py --record
	git status --short data/recorded/timings

# The suite on a busy machine, on other BLAS kernels and on one numba thread
# (tools/stress_suite.py; CI runs it on a schedule, .github/workflows/stress.yml)
stress: $(STAMP) $(ISTAMP)
	$(PY) tools/stress_suite.py

clean:
	rm -rf _build .numba_cache .pytest_cache
	find . -path ./.venv -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
