"""Default calls on the input forms users pass, against scikit-learn in the same run
(issue 38, item 2).

    .venv/bin/python benchmarks/bench_inputs.py                 # 50,000 RCV1-like rows
    .venv/bin/python benchmarks/bench_inputs.py --rows 20000 --reps 3 --record
    .venv/bin/python benchmarks/bench_inputs.py --record --update --forms "CSR float32"

For each input form (canonical CSR; unsorted CSR, as ``diags(1/norms) @ X`` leaves it; CSR
with duplicates, every entry stored as two halves; CSC; COO; float32; int64 indices; int and
string labels; CSR memory-mapped from ``.npy`` files; C- and Fortran-ordered dense) it
times, alternately in one process with BLAS on one thread, the whole call of each rlmlib
solver that has a scikit-learn peer and the peer's fit on the same problem (same σ, no
intercept, the same number of passes where both count passes), and reports the median of
the per-repetition ratios, with the validation pass ``check_X_y`` alone and
scikit-learn's own validation (``check_X_y`` with the arguments its linear models pass:
CSR, C order) in multiples of one SpMV ``X @ w`` of the same matrix
(:func:`measure_checks`), so that a conversion both make (CSC and COO to CSR, Fortran to
C order) shows as the peer's cost too. The sparse forms hold the same matrix (the
row-normalized RCV1-like set); the dense forms an ALPHA-like dense set. With
``--record`` the result is written to ``data/recorded/bench_inputs_full.json``
(:mod:`rlmlib.book.records`) with the commit, the machine and its load average; the
benchmarks page reads its tables from there. ``--record --update --forms A B`` re-runs
only those forms, with the saved record's setup, in place of their old entries, keeps the
others, and lists the re-run (forms, commit, date, loads) in the record's ``updates``
(shown by :func:`rlmlib.book.records.describe`).

The machine is shared: only ratios within one run mean anything, and the load average is
recorded beside them.
"""
import argparse
import os
import tempfile
import time
import warnings

import numpy as np

SIGMA = 1e-4
EPOCHS = 5
#: rlmlib solver -> (its call, the peer's name, the peer's fit), each a function (X, y)
PEERS = ("sgd", "asgd", "svmsgd2", "sag", "saga", "sdca", "lbfgs")


def _calls(m):
    """{solver: (rlmlib call, peer label, peer fit)} on m rows (C = 1 / (σ m))."""
    import rlmlib
    from sklearn.linear_model import LogisticRegression, SGDClassifier
    from sklearn.svm import LinearSVC

    C = 1.0 / (SIGMA * m)

    def sgdc(loss, **kw):
        return lambda X, y: SGDClassifier(loss=loss, alpha=SIGMA, max_iter=EPOCHS, tol=None,
                                          fit_intercept=False, random_state=0,
                                          **kw).fit(X, y)

    def logreg(solver, **kw):
        return lambda X, y: LogisticRegression(C=C, solver=solver, fit_intercept=False,
                                               **kw).fit(X, y)

    return {
        "sgd": (lambda X, y: rlmlib.sgd(X, y, sigma=SIGMA, epochs=EPOCHS),
                "SGDClassifier(hinge)", sgdc("hinge")),
        "asgd": (lambda X, y: rlmlib.asgd(X, y, sigma=SIGMA, epochs=EPOCHS),
                 "SGDClassifier(hinge, average)", sgdc("hinge", average=True)),
        "svmsgd2": (lambda X, y: rlmlib.svmsgd2(X, y, sigma=SIGMA, epochs=EPOCHS),
                    "SGDClassifier(squared_hinge)", sgdc("squared_hinge")),
        "sag": (lambda X, y: rlmlib.sag(X, y, sigma=SIGMA, epochs=EPOCHS, loss="logistic"),
                "LogisticRegression(sag)", logreg("sag", max_iter=EPOCHS, tol=1e-12)),
        "saga": (lambda X, y: rlmlib.saga(X, y, sigma=SIGMA),
                 "LogisticRegression(saga)", logreg("saga", max_iter=10, tol=1e-12)),
        "sdca": (lambda X, y: rlmlib.sdca(X, y, sigma=SIGMA),
                 "LinearSVC(hinge, dual)", lambda X, y: LinearSVC(
                     C=C, loss="hinge", dual=True, fit_intercept=False, max_iter=10,
                     tol=1e-12).fit(X, y)),
        "lbfgs": (lambda X, y: rlmlib.RLMClassifier(solver="lbfgs", sigma=SIGMA).fit(X, y),
                  "LogisticRegression(lbfgs)", logreg("lbfgs")),
    }


def row_normalized(X0):
    """Rows scaled to unit norm as users do it, ``diags(1 / norms) @ X``: scipy leaves each
    row's column indices unsorted (reversed), a form the canonical generators never build.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> U = row_normalized(sp.csr_matrix(np.array([[3.0, 4.0], [0.0, 2.0]])))
    >>> np.round(U.toarray(), 12).tolist()
    [[0.6, 0.8], [0.0, 1.0]]
    """
    import scipy.sparse as sp

    norms = np.sqrt(np.asarray(X0.multiply(X0).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    return sp.diags(1.0 / norms) @ X0  # what scipy leaves: each row's columns reversed


def sparse_forms(m, seed=0, tmp=None):
    """{form: (X, y)}: the row-normalized RCV1-like set in the sparse forms (same matrix)."""
    import scipy.sparse as sp

    from rlmlib.datasets import synthetic

    d = synthetic.rcv1_like(m=m, n=47_236, seed=seed)
    y = d.y
    U = row_normalized(d.X)
    X = U.copy()
    X.sort_indices()
    dup = sp.csr_matrix((np.repeat(X.data / 2, 2), np.repeat(X.indices, 2),
                         X.indptr * 2), shape=X.shape)
    i64 = sp.csr_matrix((X.data, X.indices.astype(np.int64), X.indptr.astype(np.int64)),
                        shape=X.shape)
    labels = np.where(y > 0, 1, 0)
    forms = {
        "CSR canonical": (X, y),
        "CSR unsorted (diags @ X)": (U, y),
        "CSR with duplicates": (dup, y),
        "CSC": (X.tocsc(), y),
        "COO": (X.tocoo(), y),
        "CSR float32": (X.astype(np.float32), y),
        "CSR int64 indices": (i64, y),
        "int labels 0/1": (X, labels),
        "string labels": (X, np.where(y > 0, "spam", "ham")),
    }
    if tmp is not None:  # arrays memory-mapped from .npy files (np.load(mmap_mode="r"))
        arrs = {}
        for k in ("data", "indices", "indptr"):
            path = os.path.join(tmp, f"X_{k}.npy")
            np.save(path, getattr(X, k))
            arrs[k] = np.load(path, mmap_mode="r")
        forms["CSR memory-mapped"] = (sp.csr_matrix(
            (arrs["data"], arrs["indices"], arrs["indptr"]), shape=X.shape), y)
    return forms


def dense_forms(m, seed=0):
    """{form: (X, y)}: an ALPHA-like dense set, C- and Fortran-ordered."""
    from rlmlib.datasets import synthetic

    d = synthetic.alpha_like(m=m, n=300, seed=seed)
    X = np.ascontiguousarray(d.X)
    return {"dense C-ordered": (X, d.y), "dense Fortran-ordered": (np.asfortranarray(X), d.y)}


def _seconds(f, *a):
    t = time.perf_counter()
    f(*a)
    return time.perf_counter() - t


def peer_check(X, y):
    """scikit-learn's validation of (X, y) as ``SGDClassifier.fit`` and
    ``LogisticRegression.fit`` call it (CSR, float64 or float32, C order, 32-bit indices):
    the conversions of CSC, COO and Fortran-ordered input it shares with rlmlib's pass."""
    from sklearn.utils.validation import check_X_y as sk_check_X_y

    return sk_check_X_y(X, y, accept_sparse="csr", dtype=[np.float64, np.float32],
                        order="C", accept_large_sparse=False)


def measure_checks(X, y, reps):
    """Median ratios to one product ``X @ w`` (timed before and after each, alternately):
    {'check_spmv': rlmlib's validation pass ``check_X_y(X, y, compact_dense=True)`` (as
    ``rlmlib.sgd``, lbfgs, sdca and the l1 methods run it), 'peer_check_spmv':
    :func:`peer_check`, and for dense X 'tiled_spmv': ``check_X_y(X, y)``, the pass plus
    the m copies of the column indices that sag, saga, svrg, pegasos, pgs and the adaptive
    and momentum methods index dense rows through}."""
    import scipy.sparse as sp

    from rlmlib.core.rows import check_X_y

    w = np.random.default_rng(0).standard_normal(X.shape[1])
    calls = {"check_spmv": lambda: check_X_y(X, y, compact_dense=True),
             "peer_check_spmv": lambda: peer_check(X, y)}
    if not sp.issparse(X):
        calls["tiled_spmv"] = lambda: check_X_y(X, y)
    for f in calls.values():
        f()
    X @ w
    r = {k: [] for k in calls}
    for _ in range(max(reps, 5)):
        for k, f in calls.items():
            s1 = _seconds(lambda: X @ w)
            c = _seconds(f)
            s2 = _seconds(lambda: X @ w)
            r[k].append(2 * c / (s1 + s2))
    return {k: float(np.median(v)) for k, v in r.items()}


def measure_form(X, y, reps, solvers=PEERS):
    """{'check_spmv', 'peer_check_spmv', ('tiled_spmv'): :func:`measure_checks`, 'solvers':
    {name: {'peer', 'ratio', 'spread', 'rlmlib_s', 'peer_s'}}} for one input form, every
    call timed alternately with its peer."""
    calls = _calls(X.shape[0])
    out = {"solvers": {}}
    out.update(measure_checks(X, y, reps))
    for name in solvers:
        ours, peer, theirs = calls[name]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours(X, y)
            theirs(X, y)
            a, b = [], []
            for _ in range(reps):
                a.append(_seconds(ours, X, y))
                b.append(_seconds(theirs, X, y))
        ratio = np.array(a) / np.array(b)
        out["solvers"][name] = {"peer": peer, "ratio": float(np.median(ratio)),
                                "spread": [float(ratio.min()), float(ratio.max())],
                                "rlmlib_s": float(np.median(a)), "peer_s": float(np.median(b))}
    return out


def run(rows=50_000, dense_rows=20_000, reps=3, forms=None, solvers=PEERS):
    """The whole benchmark: {'forms': {form: measure_form(...)}, 'setup': {...}}."""
    from threadpoolctl import threadpool_limits

    res = {"setup": {"rows": rows, "dense_rows": dense_rows, "n_sparse": 47_236,
                     "n_dense": 300, "sigma": SIGMA, "epochs": EPOCHS, "reps": reps,
                     "blas_threads": 1}, "forms": {}, "load": []}
    with threadpool_limits(1), tempfile.TemporaryDirectory() as tmp:
        allf = {**sparse_forms(rows, tmp=tmp), **dense_forms(dense_rows)}
        for form, (X, y) in allf.items():
            if forms and form not in forms:
                continue
            load = os.getloadavg()[0]
            res["forms"][form] = measure_form(X, y, reps, solvers)
            res["forms"][form]["load"] = [load, os.getloadavg()[0]]
            report_form(form, res["forms"][form])
    return res


def report_form(form, r):
    line = "  ".join(f"{k} {v['ratio']:.2f}" for k, v in r["solvers"].items())
    print(f"{form:26s} check {r['check_spmv']:.2f} (scikit-learn's "
          f"{r['peer_check_spmv']:.2f}) SpMV | {line} | load "
          f"{r['load'][0]:.1f}-{r['load'][1]:.1f}", flush=True)


def rows(rec):
    """The recorded run as (header, rows): one row per input form, ``check`` = check_X_y
    in SpMV units, then each solver's median ratio rlmlib / peer (``-``: not run), then the
    highest load average seen while the form ran; for :func:`table` or
    :func:`rlmlib.book.captions.markdown_table`.

    Examples
    --------
    >>> rec = {"forms": {"CSR": {"check_spmv": 0.5, "load": [1.0, 2.0], "solvers": {
    ...     "sgd": {"ratio": 0.25, "peer": "SGDClassifier(hinge)"}}}}}
    >>> rows(rec)
    (['form', 'check', 'sgd', 'load'], [['CSR', '0.50', '0.25', '2.0']])
    """
    forms = rec["forms"]
    names = list(next(iter(forms.values()))["solvers"]) if forms else []
    out = [[form, f"{r['check_spmv']:.2f}",
            *(f"{r['solvers'][n]['ratio']:.2f}" if n in r["solvers"] else "-"
              for n in names), f"{max(r['load']):.1f}"] for form, r in forms.items()]
    return ["form", "check", *names, "load"], out


def table(rec):
    """The recorded run as text, one line per input form (:func:`rows`; lines of at most
    88 characters).

    Parameters
    ----------
    rec : dict
        ``data/recorded/bench_inputs_full.json`` (:func:`rlmlib.book.records.load`) or
        :func:`run`'s result.

    Returns
    -------
    str

    Examples
    --------
    >>> rec = {"forms": {"CSR": {"check_spmv": 0.5, "load": [1.0, 2.0], "solvers": {
    ...     "sgd": {"ratio": 0.25, "peer": "SGDClassifier(hinge)"}}}}}
    >>> print(table(rec))
    form                      check   sgd  load
    CSR                        0.50  0.25   2.0
    """
    head, body = rows(rec)
    widths = [24, 6] + [max(5, len(n)) for n in head[2:-1]] + [5]
    return "\n".join(" ".join(f"{c[:24]:24s}" if i == 0 else f"{c:>{w}s}"
                               for i, (c, w) in enumerate(zip(line, widths)))
                      for line in [head] + body)


def check_rows(rec):
    """The validation passes of the recorded run as (header, rows), in multiples of one
    product ``X @ w`` of the same form: rlmlib's ``check_X_y`` (the pass), with the m
    copies of the column indices that some solvers index dense rows through (dense forms
    only), and scikit-learn's own check (:func:`peer_check`); '-' where the record has no
    such column (runs before it was measured). For :func:`checks` or
    :func:`rlmlib.book.captions.markdown_table`.

    Examples
    --------
    >>> rec = {"forms": {"CSC": {"check_spmv": 3.0, "peer_check_spmv": 2.5}}}
    >>> check_rows(rec)
    (['form', 'rlmlib', '+ indices', 'scikit-learn'], [['CSC', '3.00', '-', '2.50']])
    """
    def cell(r, k):
        return f"{r[k]:.2f}" if k in r else "-"

    return (["form", "rlmlib", "+ indices", "scikit-learn"],
            [[form, cell(r, "check_spmv"), cell(r, "tiled_spmv"),
              cell(r, "peer_check_spmv")] for form, r in rec["forms"].items()])


def checks(rec):
    """:func:`check_rows` as text.

    Examples
    --------
    >>> rec = {"forms": {"CSC": {"check_spmv": 3.0, "peer_check_spmv": 2.5},
    ...                  "dense": {"check_spmv": 0.5, "tiled_spmv": 1.2}}}
    >>> print(checks(rec))
    form                      rlmlib  + indices  scikit-learn
    CSC                         3.00          -          2.50
    dense                       0.50       1.20             -
    """
    head, body = check_rows(rec)
    w = (7, 10, 13)
    return "\n".join(f"{r[0][:24]:24s} " + " ".join(f"{c:>{k}s}" for c, k in zip(r[1:], w))
                     for r in [head] + body)


#: the input forms, in the order :func:`run` measures them
FORMS = ("CSR canonical", "CSR unsorted (diags @ X)", "CSR with duplicates", "CSC", "COO",
         "CSR float32", "CSR int64 indices", "int labels 0/1", "string labels",
         "CSR memory-mapped", "dense C-ordered", "dense Fortran-ordered")


def merge(rec, new, started, load_start, load_end):
    """The saved record ``rec`` with the forms of the re-run ``new`` (:func:`run`'s result)
    in place of their old entries (the others kept, in their order), and the re-run listed
    in ``rec['updates']``: its forms, commit, date, whether rlmlib had local changes, and
    the load averages at its start and end. The record's own provenance stays that of its
    first run. ``rec`` is not modified.

    Examples
    --------
    >>> rec = {"forms": {"A": {"check_spmv": 1.0}, "B": {"check_spmv": 2.0}}}
    >>> new = {"forms": {"B": {"check_spmv": 0.5}}}
    >>> st = {"date": "d", "commit": "c" * 40, "rlmlib_modified": False}
    >>> out = merge(rec, new, st, [1.0], [2.0])
    >>> {k: v["check_spmv"] for k, v in out["forms"].items()}, out["updates"][0]["forms"]
    ({'A': 1.0, 'B': 0.5}, ['B'])
    """
    import copy

    out = copy.deepcopy(rec)
    out["forms"].update(copy.deepcopy(new["forms"]))
    out.setdefault("updates", []).append(dict(
        forms=list(new["forms"]), **started, load_start=list(load_start),
        load_end=list(load_end)))
    return out


def update(forms):
    """Re-run ``forms`` with the saved record's setup and write the merged record
    (:func:`merge`) back to ``data/recorded/bench_inputs_full.json``."""
    import json

    from rlmlib.book import records

    rec = records.load("bench_inputs_full")
    st = rec["setup"]
    started = records.start()["started"]
    load0 = os.getloadavg()
    new = run(st["rows"], st["dense_rows"], st["reps"], forms)
    rec = records.plain(merge(rec, new, started, load0, os.getloadavg()))
    path = records.path_of("bench_inputs_full")
    path.write_text(json.dumps(rec, indent=1) + "\n")
    print(table(rec))
    print(f"updated {path.name}: {', '.join(forms)} re-run at {started['commit'][:10]}")
    return rec


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=50_000)
    ap.add_argument("--dense-rows", type=int, default=20_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--record", action="store_true",
                    help="save to data/recorded/bench_inputs_full.json")
    ap.add_argument("--forms", nargs="+", help="only these input forms (names as printed)")
    ap.add_argument("--update", action="store_true",
                    help="with --record and --forms: re-run only those forms (the saved "
                    "record's setup) into the saved record, keep the others, and list the "
                    "re-run (its commit, date and load) in the record's 'updates'")
    ap.add_argument("--solvers", nargs="*", default=list(PEERS),
                    help="only these solvers (none: the validation passes alone)")
    a = ap.parse_args(argv)
    unknown = sorted(set(a.forms or ()) - set(FORMS))
    if unknown:
        ap.error(f"unknown forms {unknown}; the forms are {', '.join(map(repr, FORMS))}")
    if a.update:
        if not (a.record and a.forms) or set(a.forms) == set(FORMS) \
                or tuple(a.solvers) != PEERS:
            ap.error("--update needs --record, a subset of --forms and every solver")
        return update(a.forms)
    if a.record and (a.forms or tuple(a.solvers) != PEERS):
        ap.error("--record takes every form and every solver (or --update --forms)")
    from rlmlib.book import records

    rec = records.start()
    rec["full"] = a.record
    print(f"ratios rlmlib / scikit-learn peer (whole calls, median of {a.reps} alternating "
          f"reps, BLAS on one thread); check_X_y in SpMV units, scikit-learn's own check "
          f"beside it")
    rec.update(run(a.rows, a.dense_rows, a.reps, a.forms, tuple(a.solvers)))
    return records.save(rec, "bench_inputs_full", what="issue 38 item 2: default calls on "
                        "input forms against scikit-learn", load_average=os.getloadavg())


if __name__ == "__main__":
    main()
