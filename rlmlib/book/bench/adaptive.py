"""AdaGrad, Adam and AMSGrad: the whole default call of ``rlmlib.adagrad`` / ``rlmlib.adam``
against PyTorch's ``torch.optim.Adagrad`` / ``torch.optim.Adam`` on the same linear model,
in one process (issue 33, item 4).

    .venv-bench/bin/python benchmarks/bench_adaptive.py                 # a quick run
    nice -n 19 .venv-bench/bin/python benchmarks/bench_adaptive.py --record

The problem: F(w) = (σ/2)‖w‖² + (1/m) Σ log(1 + exp(−y_i⟨w, x_i⟩)), an RCV1-like sparse
set (and a small dense one), float64 throughout. Each method runs its default epochs (10)
with its default step (AdaGrad η = 0.1, δ = 1e-8; Adam η = 1e-3, β = (0.9, 0.999),
ε = 1e-8), in three forms:

* ``rlmlib``: the whole default call (validation, lazy O(nnz) steps, the regularizer in the
  composite step, the final objective), rows one at a time in rlmlib's own reshuffled order;
* ``torch, one row``: the same rows in the same order (``ExampleStream(m, "reshuffle", 0)``,
  the permutations rlmlib draws), one at a time: the row's column indices and values are
  sliced from the arrays of a ``torch.sparse_csr_tensor``, the margin is
  ``dot(w.index_select(0, cols), vals)``, the regularizer is the optimizer's
  ``weight_decay=σ`` (the gradient σw of (σ/2)‖w‖², added to every coordinate, as torch
  users regularize), so every step updates all n coordinates (PyTorch's Adagrad and Adam
  refuse weight decay on sparse gradients);
* ``torch, mini-batch k``: what a torch user writes: the same permutation each epoch, cut
  into mini-batches of k rows, each a CSR tensor; loss = mean over the batch (``softplus``),
  ``torch.sparse.mm`` for the margins; m/k steps an epoch, so a different algorithm from the
  other two (its objective is reported beside its time).

Both libraries run with one thread (``torch.set_num_threads(1)``, BLAS limited to one thread
by threadpoolctl); CPU seconds of the process, the fastest of ``reps`` alternated
repetitions (:func:`rlmlib.book.bench.timing.fastest`). The objective reached, F(w), is
computed by ``rlmlib.objective`` for every form, against F* from ``rlmlib.lbfgs``. With
``--record`` the result is written to ``data/recorded/bench_adaptive.json``
(:mod:`rlmlib.book.records`, with the commit, the machine and the load average); the
adaptive page shows :func:`table` of it. torch is imported only by :func:`run` (it is in
``.venv-bench``, never in the book's environment).
"""
import argparse
import os

import numpy as np

SIGMA = 1e-4
EPOCHS = 10
BATCH = 64
#: the methods: rlmlib solver, its keyword arguments, torch optimizer and its keyword
#: arguments (the same settings: rlmlib's defaults)
METHODS = {
    "AdaGrad": ("adagrad", {}, "Adagrad", dict(lr=0.1, eps=1e-8)),
    "Adam": ("adam", {}, "Adam", dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8)),
    "AMSGrad": ("adam", dict(amsgrad=True), "Adam",
                dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, amsgrad=True)),
}


def _torch_rows(torch, X, y, order, opt_name, opt_kw, sigma):
    """The one-row torch loop: rows in ``order``, one optimizer step each."""
    n = X.shape[1]
    Xt = torch.sparse_csr_tensor(torch.from_numpy(X.indptr.astype(np.int64)),
                                 torch.from_numpy(X.indices.astype(np.int64)),
                                 torch.from_numpy(X.data), size=X.shape,
                                 dtype=torch.float64, check_invariants=False)
    crow, cols, vals = Xt.crow_indices(), Xt.col_indices(), Xt.values()
    ptr = crow.tolist()
    yt = torch.from_numpy(np.asarray(y, dtype=np.float64))
    w = torch.zeros(n, dtype=torch.float64, requires_grad=True)
    opt = getattr(torch.optim, opt_name)([w], weight_decay=sigma, **opt_kw)
    softplus = torch.nn.functional.softplus
    for i in order.tolist():
        a, b = ptr[i], ptr[i + 1]
        opt.zero_grad(set_to_none=True)
        z = torch.dot(w.index_select(0, cols[a:b]), vals[a:b])
        softplus(-yt[i] * z).backward()
        opt.step()
    return w.detach().numpy().copy()


def _torch_batches(torch, X, y, perms, opt_name, opt_kw, sigma, k):
    """The mini-batch torch loop: each epoch's permutation cut into batches of k rows."""
    n = X.shape[1]
    yt = torch.from_numpy(np.asarray(y, dtype=np.float64))
    w = torch.zeros(n, 1, dtype=torch.float64, requires_grad=True)
    opt = getattr(torch.optim, opt_name)([w], weight_decay=sigma, **opt_kw)
    softplus = torch.nn.functional.softplus
    for perm in perms:
        for s in range(0, perm.shape[0], k):
            rows = perm[s:s + k]
            B = X[rows]                                   # the batch's rows (CSR)
            Bt = torch.sparse_csr_tensor(torch.from_numpy(B.indptr.astype(np.int64)),
                                         torch.from_numpy(B.indices.astype(np.int64)),
                                         torch.from_numpy(B.data), size=B.shape,
                                         dtype=torch.float64,
                                         check_invariants=False)
            opt.zero_grad(set_to_none=True)
            z = torch.sparse.mm(Bt, w).squeeze(1)
            softplus(-yt[torch.from_numpy(rows)] * z).mean().backward()
            opt.step()
    return w.detach().numpy().ravel().copy()


def run(rows=10_000, n=20_000, nnz=76, dense_rows=2_000, dense_n=100, reps=3,
        batch=BATCH, methods=tuple(METHODS), one_row=True):
    """Time every form of every method on the sparse set and the dense set.

    Returns
    -------
    dict
        ``{"settings": {...}, "sets": {set: {"F_star", "shape", "results": {method:
        {form: {"seconds", "objective"}}}, "load": [before, after]}}}``.
    """
    import scipy.sparse as sp
    import torch
    from threadpoolctl import threadpool_limits

    import rlmlib
    from rlmlib.book.bench.timing import cpu_seconds, fastest
    from rlmlib.core.order import ExampleStream
    from rlmlib.datasets import synthetic

    import warnings

    torch.set_num_threads(1)
    warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
    d = synthetic.rcv1_like(m=rows, n=n, nnz_per_row=nnz, seed=0)
    rng = np.random.default_rng(1)
    Xd = rng.standard_normal((dense_rows, dense_n))
    yd = np.where(Xd @ rng.standard_normal(dense_n) + rng.standard_normal(dense_rows) > 0,
                  1.0, -1.0)
    sets = {"sparse": (d.X.tocsr().astype(np.float64), d.y.astype(np.float64)),
            "dense": (Xd, yd)}
    out = {"settings": dict(sigma=SIGMA, epochs=EPOCHS, batch=batch, reps=reps,
                            torch=torch.__version__, rows=rows, n=n, nnz_per_row=nnz,
                            dense=[dense_rows, dense_n]),
           "sets": {}}
    with threadpool_limits(1):
        for name, (X, y) in sets.items():
            load0 = os.getloadavg()[0]
            m = X.shape[0]
            Xs = sp.csr_matrix(X)
            stream = ExampleStream(m, "reshuffle", 0)
            order = stream.take(m * EPOCHS).astype(np.int64)   # rlmlib's own order
            perms = order.reshape(EPOCHS, m)
            F_star = rlmlib.lbfgs(X, y, sigma=SIGMA, loss="logistic", tol=1e-12).objective
            res = {}
            for meth in methods:
                solver, kw, opt_name, opt_kw = METHODS[meth]
                f = rlmlib.SOLVERS[solver]
                ws = {}

                def timed(form, call):
                    def once():
                        sec, w = cpu_seconds(call)
                        ws[form] = w
                        return sec
                    return once

                forms = {"rlmlib": timed("rlmlib",
                                         lambda: f(X, y, sigma=SIGMA, **kw).w)}
                if one_row:
                    forms["torch, one row"] = timed("torch, one row", lambda: _torch_rows(
                        torch, Xs, y, order, opt_name, opt_kw, SIGMA))
                forms[f"torch, mini-batch {batch}"] = timed(
                    f"torch, mini-batch {batch}", lambda: _torch_batches(
                        torch, Xs, y, perms, opt_name, opt_kw, SIGMA, batch))
                secs = fastest(forms, reps=reps)
                res[meth] = {form: dict(seconds=secs[form], objective=rlmlib.objective(
                    X, y, ws[form], sigma=SIGMA, loss="logistic")) for form in forms}
                line = "  ".join(f"{form} {r['seconds']:.3f} s F-F* "
                                 f"{r['objective'] - F_star:.2e}"
                                 for form, r in res[meth].items())
                print(f"{name:6s} {meth:8s} {line} | load {os.getloadavg()[0]:.1f}",
                      flush=True)
            out["sets"][name] = dict(shape=list(X.shape), F_star=F_star, results=res,
                                     load=[load0, os.getloadavg()[0]])
    return out


def table(rec):
    """The recorded run as a Markdown table (for :func:`rlmlib.book.captions.table`): one
    row per set and method, rlmlib's CPU seconds and PyTorch's ("row": one row per step,
    "batch": mini-batches), rlmlib's time over each PyTorch loop's, and each one's F − F*.

    Parameters
    ----------
    rec : dict
        ``data/recorded/bench_adaptive.json`` (:func:`rlmlib.book.records.load`) or
        :func:`run`'s result.

    Returns
    -------
    str

    Examples
    --------
    >>> r = {"rlmlib": {"seconds": 0.02, "objective": 0.31},
    ...      "torch, one row": {"seconds": 4.0, "objective": 0.32},
    ...      "torch, mini-batch 64": {"seconds": 0.5, "objective": 0.40}}
    >>> rec = {"sets": {"sparse": {"F_star": 0.3, "results": {"Adam": r}}}}
    >>> print(table(rec).splitlines()[2])
    | sparse | Adam | 0.02 | 4.00 | 0.50 | 0.005 | 0.040 | 1.0e-02 | 2.0e-02 | 1.0e-01 |
    """
    from rlmlib.book.captions import markdown_table

    header = ["set", "method", "s rlmlib", "s row", "s batch", "rlmlib / row",
              "rlmlib / batch", "F - F* rlmlib", "F - F* row", "F - F* batch"]
    rows = []
    for name, s in rec["sets"].items():
        for meth, r in s["results"].items():
            lib = r["rlmlib"]
            row = r.get("torch, one row")
            bat = next(v for k, v in r.items() if k.startswith("torch, mini-batch"))
            rows.append([name, meth]
                        + [f"{x['seconds']:.2f}" if x else "-" for x in (lib, row, bat)]
                        + [f"{lib['seconds'] / x['seconds']:.3f}" if x else "-"
                           for x in (row, bat)]
                        + [f"{x['objective'] - s['F_star']:.1e}" if x else "-"
                           for x in (lib, row, bat)])
    return markdown_table(header, rows, align="ll" + "r" * 8)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--batch", type=int, default=BATCH)
    ap.add_argument("--no-one-row", action="store_true",
                    help="skip the (slow) one-row torch loop")
    ap.add_argument("--record", action="store_true",
                    help="save to data/recorded/bench_adaptive.json")
    a = ap.parse_args(argv)
    from rlmlib.book import records

    rec = records.start()
    rec["full"] = a.record
    rec.update(run(rows=a.rows, reps=a.reps, batch=a.batch, one_row=not a.no_one_row))
    print(table(rec))
    return records.save(rec, "bench_adaptive", what="issue 33 item 4: rlmlib.adagrad/adam "
                        "against torch.optim.Adagrad/Adam in one process",
                        load_average=os.getloadavg(),
                        nice=os.nice(0))


if __name__ == "__main__":
    main()
