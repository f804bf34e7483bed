"""svrg's safeguard on option I (snapshot='last', the default): the default run keeps the
bits of the unguarded kernel when no stage falls back, a fallback is the literal gradient
step w~ - grad F(w~) / L_max, F at the snapshots never increases (even at a step that makes
the unguarded run diverge), and thm-vr-svrg-guard's inequality holds at every stage."""
import importlib.util
import math
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import rlmlib
from rlmlib.solvers.svrg import SAFEGUARD_ULPS

ROOT = Path(__file__).resolve().parents[1]
BEFORE = "845435e"  # the last commit before the safeguard (its svrg is unguarded option I)
U = 2.0 ** -53


def problem(loss, m=200, n=12, sparse=False, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n)) / np.sqrt(np.arange(1, n + 1))
    if sparse:
        X = sp.csr_matrix(X * (rng.random((m, n)) < 0.35))
    z = X @ rng.standard_normal(n)
    y = z + 0.1 * rng.standard_normal(m) if loss == "squared" else np.where(z > 0, 1.0, -1.0)
    return X, y


@pytest.fixture(scope="module")
def unguarded(tmp_path_factory):
    """rlmlib.solvers.svrg as it was at BEFORE, imported beside the current package."""
    try:
        src = subprocess.run(["git", "show", f"{BEFORE}:rlmlib/solvers/svrg.py"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip(f"git history with {BEFORE} is not available")
    path = tmp_path_factory.mktemp("before") / "svrg_before.py"
    path.write_text(src.replace("cache=True", "cache=False"))  # no stale cache files
    spec = importlib.util.spec_from_file_location("rlmlib.solvers._svrg_before", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.svrg


def objective(X, y, w, sigma, loss):
    z = X @ w
    vals = np.logaddexp(0.0, -y * z) if loss == "logistic" else 0.5 * (z - y) ** 2
    return float(vals.mean() + 0.5 * sigma * w @ w)


def gradient(X, y, w, sigma, loss):
    z = X @ w
    d = -y / (1.0 + np.exp(y * z)) if loss == "logistic" else z - y
    return np.asarray(X.T @ d).ravel() / len(y) + sigma * w


@pytest.mark.parametrize("loss", ["logistic", "squared"])
@pytest.mark.parametrize("sparse", [False, True])
def test_default_keeps_the_unguarded_bits(unguarded, loss, sparse):
    # several problems, seeds, sigmas (both default rules) and budgets up to the rounding
    # floor: no stage falls back, and then w is the unguarded kernel's to the bit
    for seed, sigma, epochs in [(0, 1e-1, 12), (1, 1e-3, 30), (2, 1e-5, 60), (3, 5.0, 9)]:
        X, y = problem(loss, sparse=sparse, seed=seed)
        res = rlmlib.svrg(X, y, sigma=sigma, epochs=epochs, loss=loss, seed=seed)
        old = unguarded(X, y, sigma=sigma, epochs=epochs, loss=loss, seed=seed)
        assert res.info["safeguard_steps"] == []
        assert np.array_equal(res.w, old.w), (seed, sigma)
        assert res.info["passes"] == res.trace.epoch[-1] == old.trace.epoch[-1]


@pytest.mark.parametrize("loss,beta", [("squared", 0.7), ("logistic", 0.2)])
def test_preconditioned_default_keeps_the_unguarded_bits(unguarded, loss, beta):
    X, y = problem(loss, m=300, seed=4)
    P = rlmlib.precondition(X, sigma=1e-2, beta=beta)
    res = rlmlib.svrg(X, y, sigma=1e-2, epochs=20, loss=loss, precondition=P)
    old = unguarded(X, y, sigma=1e-2, epochs=20, loss=loss, precondition=P)
    assert res.info["safeguard_steps"] == []
    assert np.array_equal(res.w, old.w)


@pytest.mark.parametrize("loss", ["logistic", "squared"])
def test_fallback_is_the_literal_gradient_step(loss):
    # at step 20/L_max with 3 inner steps every proposal is worse than the gradient step:
    # every stage after the first falls back, so the snapshots are gradient descent at
    # 1/L_max from w = 0, and F at them is F at the literal iterates
    X, y = problem(loss, m=60, n=5, seed=5)
    sigma = 0.05
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlmlib.svrg(X, y, sigma=sigma, epochs=6, loss=loss, inner=3, step=None)
        L = res.params["L_max"]
        res = rlmlib.svrg(X, y, sigma=sigma, epochs=6, loss=loss, inner=3, step=20.0 / L)
    stages, fell = res.params["stages"], res.info["safeguard_steps"]
    assert fell[:stages - 1] == list(range(1, stages))   # (stage `stages`: the end point)
    assert set(fell) <= set(range(1, stages + 1))
    w = np.zeros(X.shape[1])
    for s, F in enumerate(res.info["snapshot_objective"]):
        ref = objective(X, y, w, sigma, loss)
        assert abs(F - ref) <= 1e-13 * ref, (s, F, ref)
        w = w - gradient(X, y, w, sigma, loss) / L
    # a fallback is one more pass unless the O(n) certificate caught the proposal at
    # its stage's end; the info and the trace count the same passes
    more = res.info["passes"] - stages * (1 + 3 / 60)
    assert abs(more - round(more)) < 1e-12 and 0 <= round(more) <= stages - 1
    assert math.isclose(res.trace.epoch[-1], res.info["passes"], rel_tol=1e-15)


@pytest.mark.parametrize("loss,c,inner", [("logistic", 10.0, 3), ("squared", 4.0, 20)])
def test_forced_fallbacks_equal_the_box(loss, c, inner):
    # the box's safeguard (rlmlib.book.vr.svrg_literal) and the library agree along runs
    # in which some stages fall back and others keep their proposal
    from rlmlib.book.vr import draws, svrg_literal

    X, y = problem(loss, m=60, n=5, seed=8)
    L = rlmlib.svrg(X, y, sigma=0.05, epochs=1, loss=loss).params["L_max"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlmlib.svrg(sp.csr_matrix(X), y, sigma=0.05, epochs=6, loss=loss,
                          inner=inner, step=c / L, seed=3)
    stages, fell = res.params["stages"], res.info["safeguard_steps"]
    assert 2 <= len(fell) <= stages - 2, fell          # both kinds of stages
    ref = svrg_literal(X, y, 0.05, c / L, inner, stages,
                       draws(60, inner * stages, seed=3), loss)
    np.testing.assert_allclose(res.w, ref, rtol=1e-9, atol=1e-9 * np.abs(ref).max())


def test_huge_step_decreases_F_at_the_snapshots(unguarded):
    X, y = problem("squared", m=100, n=8, seed=6)
    L = rlmlib.svrg(X, y, sigma=1e-2, epochs=1, loss="squared").params["L_max"]
    kw = dict(sigma=1e-2, epochs=40, loss="squared", step=20.0 / L, inner=8, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlmlib.svrg(X, y, **kw)
        try:  # unguarded, the same run ends far above F(0) or overflows
            before = unguarded(X, y, **kw).objective
        except FloatingPointError:
            before = np.inf
    F = np.array(res.info["snapshot_objective"])
    assert before > 1e3 * F[0]
    assert res.info["safeguard_steps"]  # it fell back
    assert np.all(np.diff(F) <= SAFEGUARD_ULPS * U * F[:-1])
    assert F[-1] < 0.5 * F[0]


@pytest.mark.parametrize("sparse", [False, True])
def test_step_20_over_L_max_with_default_inner_converges(unguarded, sparse):
    # at step=20/L_max the 2m inner steps overflow: the unguarded run raises; the guarded
    # one replaces each blown-up stage by the gradient step at its end (the O(n)
    # certificate sigma r(u) > F(w~): no pass wasted) and returns a finite w below the
    # last snapshot, F non-increasing at the snapshots
    loss = "squared"
    X, y = problem(loss, m=100, n=8, seed=9, sparse=sparse)
    L = rlmlib.svrg(X, y, sigma=1e-2, epochs=1, loss=loss).params["L_max"]
    kw = dict(sigma=1e-2, epochs=30, loss=loss, step=20.0 / L)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:  # unguarded: overflow, or an end far above F(0)
            before = unguarded(X, y, **kw).objective
        except FloatingPointError:
            before = math.inf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rlmlib.StepLimitWarning)  # nothing else
        res = rlmlib.svrg(X, y, **kw)
    assert before > 1e3 * res.info["snapshot_objective"][0]
    F = np.array(res.info["snapshot_objective"])
    stages = res.params["stages"]
    assert res.info["safeguard_steps"] == list(range(1, stages + 1))  # every stage
    assert res.info["safeguard_passes"] == []
    assert res.info["passes"] == res.trace.epoch[-1] == stages * 3   # none wasted
    assert np.all(np.diff(F) <= 0)
    assert np.isfinite(res.w).all() and res.objective < F[-1] < F[0]


CASES = [("logistic", False, None), ("logistic", True, None), ("squared", False, None),
         ("squared", True, None), ("squared", False, "exact"), ("squared", False, "sampled"),
         ("logistic", False, "exact"), ("logistic", True, "sampled")]


def snapshots(monkeypatch, run):
    """The snapshots w~_s of ``run()`` (a guarded svrg call): every pass's point is logged
    through the kernel; a rejected proposal's pass is followed by the fallback's."""
    import rlmlib.solvers.svrg as module

    kernel, points = module.svrg_snapshot, []

    def spy(*args):
        out = kernel(*args)
        points.append((args[7].copy(), args[8].copy()))  # va, vb after the catch-up
        return out

    monkeypatch.setattr(module, "svrg_snapshot", spy)
    res = run()
    keep = list(points)
    wasted = res.info["safeguard_passes"]  # the rejected proposals that cost a pass
    for s in reversed(wasted):
        del keep[s + sum(1 for t in wasted if t < s)]
    return res, keep


@pytest.mark.parametrize("loss,sparse,pre", CASES)
def test_theorem_inequality_at_every_stage(monkeypatch, loss, sparse, pre):
    # thm-vr-svrg-guard: F(w~_{s+1}) <= F(w~_s) - ||g^_s||^2 / (2 L_max) + 32 u F(w~_s),
    # g^ the gradient of the problem the run solves (H^-1-norm when preconditioned), with
    # F and g computed here from the snapshots, at the default and at other steps and
    # inner lengths; and (plain problems, mu = sigma) the rate form with F* from lbfgs
    X, y = problem(loss, m=300, sparse=sparse, seed=7)
    sigma = 1e-3
    beta = 0.7 if loss == "squared" else 0.2
    P = None if pre is None else rlmlib.precondition(
        X, sigma=sigma, beta=beta, **({} if pre == "exact" else dict(m=40, seed=1)))
    Hinv = (lambda g: g) if P is None else P.H_inv_apply
    Fstar = rlmlib.lbfgs(X, y, sigma=sigma, loss=loss).objective
    for step, inner in [(None, None), (0.5, 100), (1.5, 600)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            L = rlmlib.svrg(X, y, sigma=sigma, epochs=1, loss=loss,
                            precondition=P).params["L_max"]
            res, pts = snapshots(monkeypatch, lambda: rlmlib.svrg(
                X, y, sigma=sigma, epochs=25, loss=loss, precondition=P, inner=inner,
                step=None if step is None else step / L))
            monkeypatch.undo()
        assert len(pts) == res.params["stages"]
        ws = [va + (0.0 if P is None else P.U_apply(vb)) for va, vb in pts]
        F = np.array([objective(X, y, w, sigma, loss) for w in ws])
        np.testing.assert_allclose(res.info["snapshot_objective"], F, rtol=1e-12)
        g2 = np.array([g @ Hinv(g) for g in (gradient(X, y, w, sigma, loss) for w in ws)])
        slack = 2 * SAFEGUARD_ULPS * U * F[:-1] + 1e-14 * F[:-1]  # + this evaluation's
        assert np.all(F[1:] <= F[:-1] - g2[:-1] / (2 * L) + slack), (step, inner)
        if P is None:
            gap = F - min(Fstar, F.min())
            assert np.all(gap[1:] <= (1 - sigma / L) * gap[:-1] + slack), (step, inner)
