"""rlmlib.book.explore: the static (book) and live (Jupyter) modes of explorable figures."""
import itertools
import json
import re

import numpy as np
import pytest

from rlmlib.book import explore as ex


def _compute(a, b):
    return {"a": a, "b": b, "x": np.linspace(0, 1, 20)}


def _draw(ax, d):
    ax.plot(d["x"], d["a"] * d["x"] + d["b"])
    ax.set_ylim(-3, 3)


def _readout(d, timing):
    assert timing >= 0 and isinstance(timing, ex.Timing)
    return f"a={d['a']} b={d['b']}" + (" reused" if timing.reused else "")


CONTROLS = {"a": [-1.0, 0.0, 2.0], "b": [0.0, 1.0]}


def _static(**kw):
    return ex.explore(_compute, CONTROLS, _draw, _readout, display_mode="static", **kw)


def _json_array(html, name):
    m = re.search(r"var %s=(\[.*?\]);" % name, html)
    assert m, name
    return json.loads(m.group(1))


def test_static_embeds_every_combination_in_product_order():
    h = _static().static_html()
    texts = _json_array(h, "texts")
    combos = list(itertools.product(*CONTROLS.values()))
    assert texts == [f"a={a} b={b}" for a, b in combos]
    frames = _json_array(h, "frames")
    assert len(frames) == len(combos) == 6
    assert all(f.startswith("data:image/png;base64,") for f in frames)
    # a different parameter gives a different picture
    assert len(set(frames)) == len(frames)
    assert 'data-frames="6"' in h
    assert h.count('type="range"') == len(CONTROLS)


def test_static_initial_frame_and_slider_positions():
    h = _static(initial={"a": 2.0, "b": 1.0}).static_html()
    texts = _json_array(h, "texts")
    k = texts.index("a=2.0 b=1.0")
    assert f'data-frame="{k}"' in h
    frames = _json_array(h, "frames")
    assert f'src="{frames[k]}"' in h           # shown without JavaScript too
    assert 'max="2" step="1" value="2"' in h   # slider a at its 3rd value
    assert 'max="1" step="1" value="1"' in h   # slider b at its 2nd value
    assert "a=2.0 b=1.0</pre>" in h


def test_static_needs_no_network():
    e = _static()
    h = e.static_html()
    assert "http://" not in h and "https://" not in h and "//cdn" not in h
    assert "<script>" in h and "<script src" not in h
    assert e._repr_html_() == h


def test_live_widget_redraws_same_figure_on_change():
    pytest.importorskip("ipywidgets")
    calls = []

    def compute(a, b):
        calls.append((a, b))
        return _compute(a, b)

    e = ex.explore(compute, CONTROLS, _draw, _readout, display_mode="live")
    assert e._repr_html_() is None
    box = e.widget()
    fig, n_axes = e.fig, len(e.fig.axes)
    png0, text0 = box.image.value, box.readout.value
    assert set(calls) == {(-1.0, 0.0)} and "a=-1.0 b=0.0" in text0   # repeats: median
    box.sliders["a"].value = 2.0
    assert calls[-1] == (2.0, 0.0)
    assert box.image.value != png0 and box.image.value[:8] == b"\x89PNG\r\n\x1a\n"
    assert "a=2.0 b=0.0" in box.readout.value
    box.sliders["b"].value = 1.0
    assert calls[-1] == (2.0, 1.0) and "a=2.0 b=1.0" in box.readout.value
    assert e.fig is fig and len(fig.axes) == n_axes       # no new figure, no new axes
    assert len(fig.axes[0].lines) == 1                    # old curve cleared
    assert box.last_redraw_seconds is not None and box.last_redraw_seconds > 0
    # back to a setting computed before: not recomputed, and the timing says so
    n = len(calls)
    box.sliders["a"].value = -1.0
    box.sliders["b"].value = 0.0
    assert set(calls[n:]) == {(-1.0, 1.0)}        # (-1, 0) not computed again
    assert "a=-1.0 b=0.0 reused" in box.readout.value


def test_live_slider_spec_gives_continuous_slider():
    W = pytest.importorskip("ipywidgets")
    e = ex.explore(lambda s, k: (s, k), {"s": ex.Slider(1e-3, 1.0, 4, log=True),
                                         "k": ex.Slider(1, 16, 4, integer=True)},
                   lambda ax, d: ax.plot([0, 1], [d[0], d[1]]), display_mode="live")
    box = e.widget()
    assert isinstance(box.sliders["s"], W.SelectionSlider)
    assert isinstance(box.sliders["k"], W.IntSlider)
    assert isinstance(box.sliders["s"], W.SelectionSlider)
    # the live slider starts on the grid value exactly (a FloatLogSlider snapped 0.01 to
    # 0.0102) and passes through every static grid value
    assert box.sliders["s"].value == 1e-3
    live_values = [v for _, v in box.sliders["s"].options]
    assert set(ex.Slider(1e-3, 1.0, 4, log=True).grid()) <= set(live_values)
    box.sliders["s"].value = box.sliders["s"].options[3][1]   # between grid points, live
    assert "</pre>" in box.readout.value and "computing" not in box.readout.value


def test_slider_grid():
    assert ex.Slider(0.0, 1.0, 5).grid() == [0.0, 0.25, 0.5, 0.75, 1.0]
    g = ex.Slider(1e-4, 1.0, 5, log=True).grid()
    np.testing.assert_allclose(g, [1e-4, 1e-3, 1e-2, 1e-1, 1.0])
    assert ex.Slider(1, 16, 4, integer=True).grid() == [1, 6, 11, 16]
    # exact decimal grid values (the text's values), and the live grid contains them
    s = ex.Slider(1e-4, 1e-1, num=4, log=True)
    assert s.grid() == [1e-4, 1e-3, 1e-2, 1e-1]
    live = s.live_grid()
    assert set(s.grid()) <= set(live) and live == sorted(live) and len(live) == 25
    assert ex.Slider(1.0, 1e5, num=6, log=True).grid()[4] == 1e4


def test_mode_from_environment(monkeypatch):
    monkeypatch.setenv("RLMLIB_EXPLORE", "static")
    assert ex.mode() == "static"
    monkeypatch.setenv("RLMLIB_EXPLORE", "live")
    assert ex.mode() == "live"
    monkeypatch.delenv("RLMLIB_EXPLORE")
    assert ex.mode() == "static"            # no IPython kernel in pytest
    monkeypatch.setenv("RLMLIB_EXPLORE", "html")
    with pytest.raises(ValueError, match="RLMLIB_EXPLORE must be 'static' or 'live'.*'html'"):
        ex.mode()


@pytest.mark.parametrize("kwargs, match", [
    (dict(controls={}), "controls must be a non-empty dict"),
    (dict(controls={"a": []}), r"controls\['a'\] must be a non-empty list"),
    (dict(controls={"not a name": [1]}), "control names must be Python identifiers"),
    (dict(controls={"a": list(range(9)), "b": list(range(8))}), "72 combinations.*MAX_FRAMES=64"),
    (dict(initial={"a": 5.0}), r"initial\['a'\]=5.0 is not one of the grid values"),
    (dict(initial={"c": 1}), r"initial names unknown controls \['c'\]"),
    (dict(display_mode="pdf"), "mode must be 'static' or 'live', got 'pdf'"),
    (dict(palette=1), r"palette must be None or an integer in \[2, 256\], got 1"),
])
def test_bad_input(kwargs, match):
    args = dict(controls=CONTROLS, display_mode="static")
    args.update(kwargs)
    controls = args.pop("controls")
    with pytest.raises(ValueError, match=match):
        ex.explore(_compute, controls, _draw, _readout, **args)


@pytest.mark.parametrize("spec, match", [
    (dict(start=1.0, stop=0.0), "start must be < stop, got start=1.0, stop=0.0"),
    (dict(start=0.0, stop=1.0, num=1), "num must be an integer >= 2, got 1"),
    (dict(start=0.0, stop=1.0, log=True), "start must be > 0 when log=True, got 0.0"),
    (dict(start=float("nan"), stop=1.0), "start must be a finite number, got nan"),
])
def test_bad_slider(spec, match):
    with pytest.raises(ValueError, match=match):
        ex.Slider(**spec)


def test_not_callable():
    with pytest.raises(TypeError, match="compute must be callable"):
        ex.explore(None, CONTROLS, _draw)
    with pytest.raises(TypeError, match="draw must be callable"):
        ex.explore(_compute, CONTROLS, "plot")


def test_same_figure_twice_on_a_page_gets_distinct_ids():
    ids = [re.search(r'<div class="rlm-explore" id="([^"]+)"', _static().static_html()).group(1)
           for _ in range(2)]
    assert ids[0] != ids[1]


# ------------------------------------------------------------------ timing in readouts
def test_timing_median_and_reuse_labels():
    t = ex.Timing(0.0123, runs=5)
    assert t == 0.0123 and t.label == "12.3 ms (median of 5 runs)"
    assert t.as_reused().label == "reused, originally 12.3 ms"
    assert ex.Timing(2.0).label == "2.00 s"
    with pytest.raises(ValueError, match="seconds must be a finite number >= 0, got -1"):
        ex.Timing(-1)
    with pytest.raises(ValueError, match="runs must be an integer >= 1, got 0"):
        ex.Timing(1.0, runs=0)


def test_measure_repeats_short_runs_and_reports_the_median(monkeypatch):
    durations = iter([0.010, 0.030, 0.020, 0.040, 0.001])
    clock = [0.0]

    def fake_clock():
        return clock[0]

    def fn():
        clock[0] += next(durations)
        return "value"

    monkeypatch.setattr(ex.time, "perf_counter", fake_clock)
    value, t = ex.measure(fn)
    assert value == "value" and t.runs == 5 and t == pytest.approx(0.020)
    slow = iter([0.2])
    value, t = ex.measure(lambda: clock.__setitem__(0, clock[0] + next(slow)))
    assert t.runs == 1 and t == pytest.approx(0.2)


def test_timed_cache_labels_reused_results():
    calls = []
    f = ex.TimedCache(lambda a, b: calls.append((a, b)) or a + b)
    assert f(1, 2) == 3 and not f.timing(1, 2).reused
    n = len(calls)
    assert f(1, 2) == 3 and f.timing(1, 2).reused and len(calls) == n
    assert f.timing(1, 2).label.startswith("reused, originally ")


def test_static_readout_is_next_to_the_sliders_and_image_not_stretched():
    e = _static()
    h = e.static_html()
    w, hgt = e.pixel_size
    assert h.index('class="rlm-explore-readout"') < h.index("<img")
    assert h.index('type="range"') < h.index('class="rlm-explore-readout"')
    assert f'width="{w}" height="{hgt}" style="width:{w}px;max-width:100%;height:auto"' in h


# ------------------------------------------------------------------ frames keep their axes
def _label_extents(fig, ax):
    """Pixel boxes of the y label and the y tick labels of ax, as drawn."""
    r = fig.canvas.get_renderer()
    boxes = [ax.yaxis.label.get_window_extent(r)]
    boxes += [t.get_window_extent(r) for t in ax.get_yticklabels() if t.get_text()]
    return boxes


def test_frames_share_one_layout_that_fits_the_widest_labels():
    # the first frame has short tick labels, the last very wide ones: with the first
    # frame's layout the last one lost its y label
    def compute(scale):
        return scale

    def draw(ax, scale):
        ax.plot([0, 1], [scale, 2 * scale])
        ax.set(ylabel="a y label", xlabel="x")
        ax.ticklabel_format(axis="y", style="plain", useOffset=False)

    e = ex.explore(compute, {"scale": [1.0, 123456789.0]}, draw, display_mode="static",
                   palette=None)
    frames = e.frames()
    positions = [a.get_position().bounds for a in e.fig.axes]
    # redraw the last frame with the stored layout and check nothing is cut on the left
    e._draw_data(123456789.0)
    e._apply_layout()
    e._canvas.draw()
    assert [a.get_position().bounds for a in e.fig.axes] == positions
    for box in _label_extents(e.fig, e.fig.axes[0]):
        assert box.x0 >= 0, box
    # and the first frame uses the same (wider) margin: same axes box in both PNGs
    from PIL import Image
    import io
    sizes = {Image.open(io.BytesIO(p)).size for p, _ in frames}
    assert len(sizes) == 1


def test_live_layout_widens_when_a_frame_needs_more_room():
    pytest.importorskip("ipywidgets")

    def draw(ax, scale):
        ax.plot([0, 1], [scale, 2 * scale])
        ax.set(ylabel="a y label")
        ax.ticklabel_format(axis="y", style="plain", useOffset=False)

    e = ex.explore(lambda scale: scale, {"scale": [1.0, 123456789.0]}, draw,
                   display_mode="live")
    box = e.widget()
    x0 = e.fig.axes[0].get_position().x0
    box.sliders["scale"].value = 123456789.0
    assert e.fig.axes[0].get_position().x0 > x0
    e._canvas.draw()
    for b in _label_extents(e.fig, e.fig.axes[0]):
        assert b.x0 >= 0, b


# ------------------------------------------------------------------ readout numbers
def _data(m=60, n=8, seed=0, sparse=False):
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n)) * np.geomspace(1, 10, n)
    if sparse:
        X[rng.random((m, n)) < 0.5] = 0.0
        X = sp.csr_matrix(X)
    y = np.where(rng.random(m) < 0.5, 3, 7)           # two arbitrary labels
    return X, y, rng.standard_normal(n) * 0.1


@pytest.mark.parametrize("sparse", [False, True])
def test_kappa_is_smoothness_over_sigma(sparse):
    X, _, _ = _data(sparse=sparse)
    Xd = X.toarray() if sparse else X
    R2 = max(float(np.dot(r, r)) for r in Xd)
    for loss, c in [("logistic", 0.25), ("squared", 1.0), ("squared_hinge", 1.0)]:
        k = ex.kappa(X, sigma=1e-3, loss=loss)
        assert k["kappa"] == pytest.approx(c * R2 / 1e-3, rel=1e-12)
    with pytest.raises(ValueError, match="loss must be a smooth loss.*'hinge'"):
        ex.kappa(X, sigma=1.0, loss="hinge")
    with pytest.raises(ValueError, match="sigma must be a finite number > 0, got 0"):
        ex.kappa(X, sigma=0, loss="logistic")


@pytest.mark.parametrize("sparse", [False, True])
def test_gram_condition_matches_numpy_cond(sparse, monkeypatch):
    X, _, _ = _data(sparse=sparse)
    Xd = X.toarray() if sparse else X
    for sigma in [0.0, 1e-2, 1.0]:
        H = Xd.T @ Xd / Xd.shape[0] + sigma * np.eye(Xd.shape[1])
        assert ex.gram_condition(X, sigma=sigma)["kappa"] == pytest.approx(
            np.linalg.cond(H), rel=1e-9)
    # the Lanczos path (many features) agrees with the dense one
    monkeypatch.setattr(ex, "DENSE_MAX_FEATURES", 2)
    H = Xd.T @ Xd / Xd.shape[0] + 0.1 * np.eye(Xd.shape[1])
    assert ex.gram_condition(X, sigma=0.1)["kappa"] == pytest.approx(np.linalg.cond(H),
                                                                    rel=1e-6)


@pytest.mark.parametrize("loss", ["squared_hinge", "logistic"])
@pytest.mark.parametrize("lanczos", [False, True])
def test_rescaled_condition_matches_eigvals_of_HB(loss, lanczos, monkeypatch):
    if lanczos:
        monkeypatch.setattr(ex, "DENSE_MAX_FEATURES", 2)
    X, y, w = _data()
    sigma = 0.05
    s = np.where(y == 7, 1.0, -1.0)
    z = s * (X @ w)
    if loss == "squared_hinge":
        d = (z < 1).astype(float)
    else:
        pr = 1 / (1 + np.exp(-z))
        d = pr * (1 - pr)
    H = X.T @ np.diag(d) @ X / len(y) + sigma * np.eye(X.shape[1])
    B = 1 / np.diag(H) * np.linspace(0.5, 2, X.shape[1])
    lam = np.linalg.eigvals(H @ np.diag(B)).real        # not symmetric: general eigvals
    k = ex.rescaled_condition(X, y, w, sigma=sigma, B=B, loss=loss)
    rel = 1e-6 if lanczos else 1e-9
    assert k["kappa_H"] == pytest.approx(np.linalg.cond(H), rel=rel)
    assert k["kappa_HB"] == pytest.approx(lam.max() / lam.min(), rel=rel)
    with pytest.raises(ValueError, match="B must be finite and > 0"):
        ex.rescaled_condition(X, y, w, sigma=sigma, B=-B, loss=loss)


@pytest.mark.parametrize("p", [1.5, 1.8, 2.0])
def test_pgs_constants_against_enumeration(p):
    X, y, w = _data(m=6, n=3)
    q = p / (p - 1)
    c = ex.pgs_constants(X, y, w, p=p, sigma=0.01, k=2)
    assert c["G"] == pytest.approx(max(np.sum(np.abs(X) ** q, axis=1) ** (1 / q)), rel=1e-12)
    assert c["modulus"] == pytest.approx(0.01)   # r is 1-strongly convex: sigma r is sigma
    assert ex.check_regularizer_modulus(c["modulus"], p=p, sigma=0.01) == pytest.approx(
        0.01, rel=1e-5)
    # variance of the mean of k=2 examples drawn with replacement: every ordered pair
    s = np.where(y == 7, 1.0, -1.0)
    g = np.array([-s[i] * X[i] / (1 + np.exp(s[i] * X[i] @ w)) for i in range(6)])
    full = g.mean(axis=0)
    pairs = [np.sum(((g[i] + g[j]) / 2 - full) ** 2)
             for i in range(6) for j in range(6)]
    assert c["variance"] == pytest.approx(np.mean(pairs), rel=1e-10)
    with pytest.raises(ValueError, match=r"p must be a number in \(1, 2\], got 2.5"):
        ex.pgs_constants(X, y, w, p=2.5, sigma=0.01, k=2)
    with pytest.raises(ValueError, match="k must be an integer >= 1, got 0"):
        ex.pgs_constants(X, y, w, p=p, sigma=0.01, k=0)


@pytest.mark.parametrize("p", [1.2, 1.8, 2.0])
def test_regularizer_modulus_check_fails_on_wrong_constants(p):
    """The check the Pegasos explorable runs on its readout rejects a modulus off by 2
    either way, and the old readout sigma (p - 1) wherever p < 2."""
    sigma = 3e-6
    ex.check_regularizer_modulus(sigma, p=p, sigma=sigma)
    wrong = [2 * sigma, sigma / 2] + ([sigma * (p - 1)] if p < 2 else [])
    for bad in wrong:
        with pytest.raises(AssertionError, match="claimed strong convexity modulus"):
            ex.check_regularizer_modulus(bad, p=p, sigma=sigma)
    with pytest.raises(ValueError, match=r"p must be a number in \(1, 2\], got 3"):
        ex.check_regularizer_modulus(sigma, p=3, sigma=sigma)


@pytest.mark.parametrize("s", [None, 25])
def test_precond_readout_numbers_against_numpy(s):
    """The preconditioning explorable prints rlmlib.condition_numbers' kappa and kappa_hat
    at the chosen sample size s: recomputed here from H = Chat + (sigma/beta) I by solves."""
    import rlmlib

    rng = np.random.default_rng(1)
    X = rng.standard_normal((120, 7)) * np.geomspace(1, 30, 7)
    sigma, beta = 1e-3, 0.5
    P = rlmlib.precondition(X, sigma=sigma, beta=beta, m=s)
    k = rlmlib.condition_numbers(X, sigma=sigma, beta=beta, loss="squared", precondition=P)
    rows = X if s is None else X[P.sample]
    H = rows.T @ rows / rows.shape[0] + sigma / beta * np.eye(7)
    R2h = max(x @ np.linalg.solve(H, x) for x in X)
    R2 = max(x @ x for x in X)
    assert k["kappa"] == pytest.approx((R2 + sigma) / sigma, rel=1e-12)
    assert k["kappa_hat"] == pytest.approx(((1 - beta) * R2h + beta) / beta, rel=1e-8)


def test_live_redraw_shows_computing_and_image_at_pixel_size():
    pytest.importorskip("ipywidgets")
    seen = []

    def compute(a, b):
        if box_ref:
            seen.append((box_ref[0].readout.value,
                         "rlm-busy" in box_ref[0].image._dom_classes))
        return _compute(a, b)

    box_ref = []
    e = ex.explore(compute, CONTROLS, _draw, _readout, display_mode="live")
    box = e.widget()
    box_ref.append(box)
    w, h = e.pixel_size
    assert box.image.layout.width == f"{w}px" and box.image.width == str(w)
    box.sliders["a"].value = 2.0
    assert seen and "computing… a = 2, b = 0" in seen[0][0] and seen[0][1]
    assert "computing" not in box.readout.value
    assert "rlm-busy" not in box.image._dom_classes


def test_rescaled_condition_with_constant_B_is_that_of_H():
    X, y, w = _data()
    k = ex.rescaled_condition(X, y, w, sigma=0.05, B=np.full(X.shape[1], 7.0))
    s = np.where(y == 7, 1.0, -1.0)
    d = (s * (X @ w) < 1).astype(float)
    H = X.T @ np.diag(d) @ X / len(y) + 0.05 * np.eye(X.shape[1])
    lam = np.linalg.eigvalsh(7.0 * H)
    assert k["kappa_HB"] == pytest.approx(lam[-1] / lam[0], rel=1e-9)
    assert k["HB"] == pytest.approx((lam[0], lam[-1]), rel=1e-9)


def test_static_sliders_are_labelled_and_announce_their_value():
    h = _static(initial={"a": 2.0, "b": 1.0}).static_html()
    assert 'aria-label="a"' in h and 'aria-label="b"' in h
    assert 'aria-valuetext="a = 2"' in h and 'aria-valuetext="b = 1"' in h
    # the script keeps aria-valuetext and the image's alt text in step with the frame
    assert "setAttribute('aria-valuetext'" in h and "img.alt=alts[k]" in h
    alts = _json_array(h, "alts")
    texts = _json_array(h, "texts")
    assert len(alts) == len(texts) == 6
    assert all(a.startswith("Plot.") and a.endswith(f"Readout: {t}")
               for a, t in zip(alts, texts))
    assert 'alt="Plot.' in h and "explorable figure" not in h


def test_figure_alt_names_title_axes_scales_and_series():
    import matplotlib.pyplot as plt

    from rlmlib.book.alt_text import figure_alt

    fig, (a1, a2) = plt.subplots(1, 2)
    a1.semilogy([1, 2], [1, 0.1], label="SGD")
    a1.semilogy([1, 2], [1, 0.5], label="SAG")
    a1.set(title="suboptimality", xlabel="passes", ylabel="F - F*")
    a2.plot([0, 1], [0, 1], label="_hidden")
    a2.set(xlabel="t", ylabel="step")
    alt = figure_alt(fig, "eta = 0.1\n  done")
    plt.close(fig)
    assert alt == ("Plot. Panel 1: suboptimality; F - F* (log scale) against passes; "
                   "series: SGD, SAG. Panel 2: step against t. Readout: eta = 0.1 done")
