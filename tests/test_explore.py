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


def _readout(d, seconds):
    assert seconds >= 0
    return f"a={d['a']} b={d['b']}"


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
    assert calls == [(-1.0, 0.0)] and "a=-1.0 b=0.0" in text0
    box.sliders["a"].value = 2.0
    assert calls[-1] == (2.0, 0.0)
    assert box.image.value != png0 and box.image.value[:8] == b"\x89PNG\r\n\x1a\n"
    assert "a=2.0 b=0.0" in box.readout.value
    box.sliders["b"].value = 1.0
    assert calls[-1] == (2.0, 1.0) and "a=2.0 b=1.0" in box.readout.value
    assert e.fig is fig and len(fig.axes) == n_axes       # no new figure, no new axes
    assert len(fig.axes[0].lines) == 1                    # old curve cleared
    assert box.last_redraw_seconds is not None and box.last_redraw_seconds > 0


def test_live_slider_spec_gives_continuous_slider():
    W = pytest.importorskip("ipywidgets")
    e = ex.explore(lambda s, k: (s, k), {"s": ex.Slider(1e-3, 1.0, 4, log=True),
                                         "k": ex.Slider(1, 16, 4, integer=True)},
                   lambda ax, d: ax.plot([0, 1], [d[0], d[1]]), display_mode="live")
    box = e.widget()
    assert isinstance(box.sliders["s"], W.FloatLogSlider)
    assert isinstance(box.sliders["k"], W.IntSlider)
    box.sliders["s"].value = 0.05          # a value between grid points is allowed live
    assert "<pre>" in box.readout.value


def test_slider_grid():
    assert ex.Slider(0.0, 1.0, 5).grid() == [0.0, 0.25, 0.5, 0.75, 1.0]
    g = ex.Slider(1e-4, 1.0, 5, log=True).grid()
    np.testing.assert_allclose(g, [1e-4, 1e-3, 1e-2, 1e-1, 1.0])
    assert ex.Slider(1, 16, 4, integer=True).grid() == [1, 6, 11, 16]


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
