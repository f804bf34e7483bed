"""Explorable figures: one helper, live in Jupyter, static (but still explorable) in the book.

    explore(compute, controls, draw, readout=None, *, initial=None, axes=(1, 1), ...)

* ``controls`` maps a keyword of ``compute`` to the values its slider takes: a list of grid
  values, or a :class:`Slider` spec ``Slider(start, stop, num, log=False)``.
* ``compute(**values)`` returns any data; it is timed (wall clock).
* ``draw(ax, data)`` draws ``data`` on ``ax`` (one ``Axes``, or the array of axes when
  ``axes=(rows, cols)`` asks for more than one).  The figure and its axes are created once and
  reused: each redraw clears the axes and calls ``draw`` again.
* ``readout(data, timing)`` returns a short text shown above the figure, next to the
  sliders (wall time, condition number, ...).  ``timing`` is a :class:`Timing`: a float
  (seconds) whose ``label`` says how it was measured: the median of a few runs when one run
  is shorter than ``REPEAT_BELOW`` seconds, "reused, originally X ms" when a live slider
  returns to a setting already computed.
* The layout (axes positions) is computed over all frames: every frame keeps the margins
  its widest tick labels need, so no frame cuts a label and the axes do not jump.

Two modes:

``live``    (a Jupyter kernel): ipywidgets sliders; every change shows "computing…",
            recomputes, redraws the one figure into one ``ipywidgets.Image`` (no new
            figure, no new widget, shown at its pixel size) and updates the readout.  A
            ``Slider`` spec becomes a finer slider here whose values include the static
            grid's exactly (``Slider.live_grid``).
``static``  (the HTML book): the figure is precomputed over the cartesian product of the
            controls' grids and embedded as PNG images with an inline JavaScript slider per
            control.  No kernel, no network, no CDN.

The mode comes from the environment variable ``RLMLIB_EXPLORE`` (``static`` or ``live``).
``make book`` sets ``RLMLIB_EXPLORE=static`` while chapters execute; when it is unset (a
reader's Jupyter, Binder) the mode is ``live`` inside an IPython kernel and ``static``
anywhere else.
"""
from __future__ import annotations

import base64
import hashlib
import html
import io
import itertools
import json
import math
import os
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from rlmlib.book.alt_text import figure_alt

__all__ = ["explore", "Slider", "Explorer", "Timing", "TimedCache", "measure",
           "format_seconds", "mode", "MAX_FRAMES", "REPEAT_BELOW", "kappa",
           "gram_condition", "rescaled_condition", "pgs_constants"]

#: largest number of precomputed frames of one static figure (the page embeds them all)
MAX_FRAMES = 64
#: a compute shorter than this (seconds) is repeated and its median reported
REPEAT_BELOW = 0.05
#: at most this many runs for the median, and at most REPEAT_BUDGET seconds in all
REPEATS = 5
REPEAT_BUDGET = 0.15
#: live mode remembers this many computed settings (a return to one is "reused")
LIVE_CACHE = 32

ENV_VAR = "RLMLIB_EXPLORE"
_figure_counter = itertools.count()  # distinct element ids when a page shows a figure twice


@dataclass(frozen=True)
class Slider:
    """A slider from ``start`` to ``stop``, for the ``controls`` of :func:`explore`.

    ``num`` grid points in the static book (geometrically spaced when ``log``), continuous
    in a live kernel.

    Parameters
    ----------
    start, stop : float
        The ends, finite, start < stop (start > 0 when ``log``).
    num : int >= 2
        Grid points of the static figure.
    log : bool
        Geometric spacing (and a logarithmic live slider).
    integer : bool
        Round the grid to distinct integers.

    Raises
    ------
    ValueError
        For ends that are not finite or not increasing, ``num`` < 2, or start <= 0 with
        ``log``.

    Examples
    --------
    >>> from rlmlib.book.explore import Slider
    >>> Slider(1e-3, 1e-1, num=3, log=True).grid()
    [0.001, 0.01, 0.1]
    >>> Slider(1, 10, num=4, integer=True).grid()
    [1, 4, 7, 10]
    """

    start: float
    stop: float
    num: int = 5
    log: bool = False
    integer: bool = False

    def __post_init__(self):
        for name in ("start", "stop"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and math.isfinite(v)):
                raise ValueError(f"Slider {name} must be a finite number, got {v!r}")
        if not self.start < self.stop:
            raise ValueError(
                f"Slider start must be < stop, got start={self.start!r}, stop={self.stop!r}"
            )
        if not (isinstance(self.num, int) and self.num >= 2):
            raise ValueError(f"Slider num must be an integer >= 2, got {self.num!r}")
        if self.num > MAX_FRAMES:   # refused before grid() allocates num values
            raise ValueError(f"Slider num must be at most MAX_FRAMES={MAX_FRAMES} (the static "
                             f"figure embeds one frame per value), got {self.num!r}")
        if self.log and self.start <= 0:
            raise ValueError(f"Slider start must be > 0 when log=True, got {self.start!r}")

    def grid(self) -> list:
        """The static grid: ``num`` values, rounded to 12 significant digits so that
        decimal values are exact (``Slider(1e-4, 1e-1, 4, log=True)`` gives 0.01, not
        0.009999999999999998)."""
        if self.log:
            g = np.geomspace(self.start, self.stop, self.num)
        else:
            g = np.linspace(self.start, self.stop, self.num)
        if self.integer:
            g = np.unique(np.round(g).astype(int))
            return [int(v) for v in g]
        return [_exact(v) for v in g]

    def live_grid(self, per_step: int = 8) -> list:
        """The live slider's values: the static grid plus ``per_step - 1`` values between
        neighbours (3 significant digits), so the live slider starts on, and passes
        through, exactly the values of the static figure and of the text."""
        g = self.grid()
        if self.integer:
            return list(range(int(g[0]), int(g[-1]) + 1))
        out = []
        for a, b in zip(g[:-1], g[1:]):
            inner = (np.geomspace(a, b, per_step + 1) if self.log
                     else np.linspace(a, b, per_step + 1))[1:-1]
            out.append(a)
            out.extend(float(f"{v:.3g}") for v in inner)
        out.append(g[-1])
        return sorted(set(out))


def _exact(v) -> float:
    return float(f"{float(v):.12g}")


def mode() -> str:
    """The display mode of explorable figures: ``'static'`` or ``'live'``.

    From the environment variable ``RLMLIB_EXPLORE`` when it is set; otherwise ``'live'``
    inside an IPython kernel and ``'static'`` anywhere else.

    Returns
    -------
    str
        ``'static'`` or ``'live'``.

    Raises
    ------
    ValueError
        When ``RLMLIB_EXPLORE`` holds anything else.

    Examples
    --------
    >>> import os
    >>> from unittest import mock
    >>> from rlmlib.book.explore import mode
    >>> with mock.patch.dict(os.environ, {"RLMLIB_EXPLORE": "static"}):
    ...     mode()
    'static'
    """
    env = os.environ.get(ENV_VAR, "").strip().lower()
    if env in ("static", "live"):
        return env
    if env:
        raise ValueError(f"{ENV_VAR} must be 'static' or 'live' (or unset), got {env!r}")
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is a dependency of the book
        return "static"
    ip = get_ipython()
    return "live" if ip is not None and getattr(ip, "kernel", None) is not None else "static"


def _js(value) -> str:
    """JSON for inside an inline <script>: '<', '>' and '&' escaped as \\u003c etc., so a
    readout holding '</script>' or '<!--' cannot end or alter the script element."""
    return (json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("&", "\\u0026"))


def _fmt(v) -> str:
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.4g}"
    return str(v)


def format_seconds(seconds: float) -> str:
    """A duration for a readout: ``'12.3 ms'`` below one second, ``'1.23 s'`` above.

    Parameters
    ----------
    seconds : float >= 0

    Returns
    -------
    str

    Raises
    ------
    ValueError
        For a negative or non-finite duration.

    Examples
    --------
    >>> from rlmlib.book.explore import format_seconds
    >>> format_seconds(0.01234), format_seconds(2.5), format_seconds(0.0000412)
    ('12.3 ms', '2.50 s', '0.0412 ms')
    """
    s = float(seconds)
    if not (math.isfinite(s) and s >= 0):
        raise ValueError(f"seconds must be a finite number >= 0, got {seconds!r}")
    return f"{s:.2f} s" if s >= 1 else f"{1e3 * s:.3g} ms"


class Timing(float):
    """A measured duration in seconds (a float) that knows how it was measured.

    Parameters
    ----------
    seconds : float >= 0
        The duration (the median when ``runs`` > 1, the original one when ``reused``).
    runs : int >= 1
        How many runs the median is taken over.
    reused : bool
        The result was not computed now but reused from an earlier computation.

    Raises
    ------
    ValueError
        For a negative or non-finite duration or ``runs`` < 1.

    Examples
    --------
    >>> from rlmlib.book.explore import Timing
    >>> Timing(0.0123, runs=5).label
    '12.3 ms (median of 5 runs)'
    >>> Timing(1.5, reused=True).label
    'reused, originally 1.50 s'
    >>> f"{Timing(0.25):.2f} s"
    '0.25 s'
    """

    def __new__(cls, seconds, runs=1, reused=False):
        s = float(seconds)
        if not (math.isfinite(s) and s >= 0):
            raise ValueError(f"seconds must be a finite number >= 0, got {seconds!r}")
        if not (isinstance(runs, (int, np.integer)) and runs >= 1):
            raise ValueError(f"runs must be an integer >= 1, got {runs!r}")
        obj = super().__new__(cls, s)
        obj.runs, obj.reused = int(runs), bool(reused)
        return obj

    @property
    def label(self) -> str:
        """How long it took, and how that was measured, for a readout."""
        t = format_seconds(float(self))
        if self.reused:
            return f"reused, originally {t}"
        return f"{t} (median of {self.runs} runs)" if self.runs > 1 else t

    def as_reused(self) -> "Timing":
        """The same duration, labelled as a reused result."""
        return Timing(float(self), self.runs, reused=True)

    def __repr__(self):
        return f"Timing({float(self)!r}, runs={self.runs}, reused={self.reused})"


def measure(fn, *args, **kwargs):
    """Run ``fn(*args, **kwargs)`` and time it; repeat it (up to ``REPEATS`` runs and
    ``REPEAT_BUDGET`` seconds) when one run is shorter than ``REPEAT_BELOW``.

    Parameters
    ----------
    fn : callable
    *args, **kwargs
        Its arguments.

    Returns
    -------
    (object, Timing)
        The result of the first run and the median duration.

    Raises
    ------
    TypeError
        When ``fn`` is not callable.

    Examples
    --------
    >>> from rlmlib.book.explore import measure
    >>> value, t = measure(sum, range(1000))
    >>> value, t.runs > 1, t.reused
    (499500, True, False)
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {fn!r}")
    t0 = time.perf_counter()
    value = fn(*args, **kwargs)
    times = [time.perf_counter() - t0]
    while (times[0] < REPEAT_BELOW and len(times) < REPEATS
           and sum(times) < REPEAT_BUDGET):
        t0 = time.perf_counter()
        fn(*args, **kwargs)
        times.append(time.perf_counter() - t0)
    return value, Timing(float(np.median(times)), runs=len(times))


class TimedCache:
    """Memoize a function and remember how long each result took to compute.

    For a compute function that reuses earlier results (a run shared by several frames):
    ``cache(*args)`` returns the stored result when there is one, and ``cache.timing(*args)``
    the :class:`Timing` of that result, labelled "reused" when the latest call did not
    compute it.

    Parameters
    ----------
    fn : callable
        Called with hashable positional arguments.

    Raises
    ------
    TypeError
        When ``fn`` is not callable.

    Examples
    --------
    >>> from rlmlib.book.explore import TimedCache
    >>> square = TimedCache(lambda x: x * x)
    >>> square(3), square.timing(3).reused
    (9, False)
    >>> square(3), square.timing(3).reused
    (9, True)
    """

    def __init__(self, fn):
        if not callable(fn):
            raise TypeError(f"fn must be callable, got {fn!r}")
        self.fn = fn
        self._store: dict = {}

    def __call__(self, *args):
        if args in self._store:
            value, t = self._store[args]
            self._store[args] = (value, t.as_reused())
            return value
        value, t = measure(self.fn, *args)
        self._store[args] = (value, t)
        return value

    def timing(self, *args) -> Timing:
        """The timing of the stored result for ``args`` (KeyError when none)."""
        return self._store[args][1]


class Explorer:
    """The object :func:`explore` returns; displaying it shows the figure in the current mode.

    Parameters
    ----------
    compute, controls, draw, readout
        As in :func:`explore`.
    initial : dict, optional
        Starting value of each control (a value of its grid; default the first).
    axes : (int, int)
        Rows and columns of axes.
    figsize : (float, float)
        Figure size in inches.
    dpi : int
        Resolution of the frames.
    palette : int in [2, 256] or None
        Colours of the static frames' PNG palette; None keeps full colour.
    display_mode : {'static', 'live'}, optional
        Overrides :func:`mode`.

    Raises
    ------
    TypeError
        When ``compute``, ``draw`` or ``readout`` is not callable.
    ValueError
        For empty or badly named controls, more than ``MAX_FRAMES`` combinations, an
        ``initial`` value off its grid, or a bad ``palette``.

    Examples
    --------
    See :func:`explore`.
    """

    def __init__(self, compute, controls, draw, readout=None, *, initial=None, axes=(1, 1),
                 figsize=(6.4, 4.0), dpi=80, palette=128, display_mode=None):
        if not callable(compute):
            raise TypeError(f"compute must be callable, got {compute!r}")
        if not callable(draw):
            raise TypeError(f"draw must be callable, got {draw!r}")
        if readout is not None and not callable(readout):
            raise TypeError(f"readout must be callable or None, got {readout!r}")
        if not isinstance(controls, Mapping) or len(controls) == 0:
            raise ValueError(f"controls must be a non-empty dict name -> values, got {controls!r}")
        self.specs: dict[str, Slider | None] = {}
        self.grids: dict[str, list] = {}
        for name, values in controls.items():
            if not (isinstance(name, str) and name.isidentifier()):
                raise ValueError(f"control names must be Python identifiers, got {name!r}")
            if isinstance(values, Slider):
                self.specs[name], self.grids[name] = values, values.grid()
            else:
                vals = list(values) if not isinstance(values, (str, bytes)) else None
                if not vals:
                    raise ValueError(
                        f"controls[{name!r}] must be a non-empty list of values or a Slider, "
                        f"got {values!r}"
                    )
                self.specs[name], self.grids[name] = None, vals
        n_frames = math.prod(len(g) for g in self.grids.values())
        if n_frames > MAX_FRAMES:
            raise ValueError(
                f"controls give {n_frames} combinations, more than MAX_FRAMES={MAX_FRAMES}: "
                "use fewer grid values (the static page embeds one image per combination)"
            )
        self.initial = {}
        initial = dict(initial or {})
        unknown = set(initial) - set(self.grids)
        if unknown:
            raise ValueError(f"initial names unknown controls {sorted(unknown)}; "
                             f"controls are {list(self.grids)}")
        for name, grid in self.grids.items():
            if name in initial:
                if initial[name] not in grid:
                    raise ValueError(f"initial[{name!r}]={initial[name]!r} is not one of the "
                                     f"grid values {grid}")
                self.initial[name] = initial[name]
            else:
                self.initial[name] = grid[0]
        self.compute, self.draw, self.readout = compute, draw, readout
        self.mode = display_mode if display_mode is not None else mode()
        if self.mode not in ("static", "live"):
            raise ValueError(f"mode must be 'static' or 'live', got {self.mode!r}")
        self.dpi = dpi
        if palette is not None and not (isinstance(palette, int) and 2 <= palette <= 256):
            raise ValueError(f"palette must be None or an integer in [2, 256], got {palette!r}")
        self.palette = palette
        # one figure, created once, never managed by pyplot (so Jupyter's inline backend
        # does not display it by itself) and reused by every redraw; no layout engine on
        # it: the positions come from _fit_layout, computed over all frames drawn so far
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.layout_engine import ConstrainedLayoutEngine

        self.fig = Figure(figsize=figsize, dpi=dpi)
        self._canvas = FigureCanvasAgg(self.fig)
        self._layout = ConstrainedLayoutEngine()
        self._positions = None          # per axes [x0, y0, x1, y1], the inset-most so far
        rows, cols = axes
        ax = self.fig.subplots(rows, cols, squeeze=False)
        self.ax = ax[0, 0] if rows * cols == 1 else ax
        self._widget = None
        self._html = None
        self._cache: dict = {}          # live: values -> (data, Timing)

    # ------------------------------------------------------------------ one frame
    def _axes(self):
        return list(np.atleast_1d(self.ax).ravel())

    def _draw_data(self, data):
        for a in self._axes():
            a.cla()
        self.draw(self.ax, data)

    def _fit_layout(self):
        """Constrained layout of the frame just drawn, merged into the positions of the
        earlier frames: each side of each axes keeps the largest margin any frame needed,
        so labels fit in every frame and the axes do not move once all frames are seen."""
        self._layout.execute(self.fig)
        changed = False
        for i, a in enumerate(self._axes()):
            p = a.get_position(original=True)
            new = [p.x0, p.y0, p.x1, p.y1]
            if self._positions is None or len(self._positions) <= i:
                self._positions = (self._positions or []) + [new]
                changed = True
                continue
            old = self._positions[i]
            merged = [max(old[0], new[0]), max(old[1], new[1]),
                      min(old[2], new[2]), min(old[3], new[3])]
            changed |= merged != old
            self._positions[i] = merged
        return changed

    def _apply_layout(self):
        from matplotlib.transforms import Bbox

        for a, (x0, y0, x1, y1) in zip(self._axes(), self._positions):
            a.set_position(Bbox.from_extents(x0, y0, x1, y1))
            a.set_in_layout(True)        # set_position takes it out of the layout

    def _png(self, drawn=False) -> bytes:
        from PIL import Image

        if not drawn:
            self._canvas.draw()
        w, h = self._canvas.get_width_height()
        buf = io.BytesIO()
        image = Image.frombuffer("RGBA", (w, h), self._canvas.buffer_rgba())
        if self.mode == "live":          # live redraws favour speed
            image.save(buf, format="png", compress_level=1)
        elif self.palette:               # the static page embeds every frame: favour size
            image.convert("RGB").quantize(colors=self.palette, method=Image.Quantize.MEDIANCUT
                                          ).save(buf, format="png", optimize=True)
        else:
            image.save(buf, format="png", compress_level=9)
        return buf.getvalue()

    def _text(self, data, timing) -> str:
        return "" if self.readout is None else str(self.readout(data, timing))

    def compute_timed(self, **values):
        """``compute(**values)`` and its :class:`Timing` (see :func:`measure`); in live mode
        a setting computed before is reused and labelled so."""
        key = tuple(values.items())
        if self.mode == "live":
            try:
                hit = self._cache.get(key)
            except TypeError:            # unhashable values: no reuse
                hit = None
            if hit is not None:
                return hit[0], hit[1].as_reused()
        data, timing = measure(self.compute, **values)
        if self.mode == "live":
            try:
                self._cache[key] = (data, timing)
                while len(self._cache) > LIVE_CACHE:
                    self._cache.pop(next(iter(self._cache)))
            except TypeError:
                pass
        return data, timing

    def _fits(self) -> bool:
        """Whether the frame just drawn fits its layout: every axes' labels inside the
        figure and clear of the other axes (checked on the drawn frame, much cheaper than
        a layout pass)."""
        r = self._canvas.get_renderer()
        fb = self.fig.bbox
        axes = self._axes()
        boxes = [a.get_tightbbox(r) for a in axes]
        for i, tb in enumerate(boxes):
            if tb is None:
                continue
            if (tb.x0 < fb.x0 - 0.5 or tb.y0 < fb.y0 - 0.5 or tb.x1 > fb.x1 + 0.5
                    or tb.y1 > fb.y1 + 0.5):
                return False
            for j, other in enumerate(axes):
                if j != i and other.get_visible() and tb.overlaps(other.bbox):
                    return False
        return True

    def render(self, **values) -> tuple[bytes, str, float]:
        """Compute and draw one frame: (PNG bytes, readout text, :class:`Timing`).

        The layout is widened when this frame's labels do not fit the layout of the frames
        before (live mode); the static figure fits its layout over all frames first."""
        data, timing = self.compute_timed(**values)
        self._draw_data(data)
        if self._positions is None:
            self._fit_layout()
        self._apply_layout()
        self._canvas.draw()
        if not self._fits():
            self._fit_layout()
            self._apply_layout()
            self._canvas.draw()
        return self._png(drawn=True), self._text(data, timing), timing

    # ------------------------------------------------------------------ static mode
    def frames(self):
        """All frames over the cartesian product of the grids (last control varies fastest),
        drawn with one layout that fits every frame."""
        names = list(self.grids)
        computed = []
        for combo in itertools.product(*(self.grids[n] for n in names)):
            data, timing = self.compute_timed(**dict(zip(names, combo)))
            self._draw_data(data)
            self._fit_layout()
            computed.append((data, timing))
        out = []
        for data, timing in computed:
            self._draw_data(data)
            self._apply_layout()
            out.append((self._png(), self._text(data, timing)))
        return out

    @property
    def pixel_size(self) -> tuple[int, int]:
        """(width, height) of a frame in pixels: how large it is shown."""
        return self._canvas.get_width_height()

    def _alt(self, text: str) -> str:
        """Alt text of a frame: what the figure shows (its axes' titles, labels and
        series, read from the drawn figure) and the frame's readout."""
        return figure_alt(self.fig, text)

    def static_html(self) -> str:
        if self._html is not None:
            return self._html
        names = list(self.grids)
        frames = self.frames()
        uris = ["data:image/png;base64," + base64.b64encode(p).decode("ascii") for p, _ in frames]
        texts = [t for _, t in frames]
        alts = [self._alt(t) for t in texts]
        sizes = [len(self.grids[n]) for n in names]
        start = [self.grids[n].index(self.initial[n]) for n in names]
        flat = 0
        for i, s in zip(start, sizes):
            flat = flat * s + i
        self._initial_frame = frames[flat]     # the PDF's picture (_ipython_display_)
        uid = (f"rlmx-{hashlib.sha1(''.join(uris).encode()).hexdigest()[:12]}"
               f"-{next(_figure_counter)}")
        w, h = self.pixel_size
        rows = []
        for k, n in enumerate(names):
            labels = [_fmt(v) for v in self.grids[n]]
            rows.append(
                f'<label style="display:flex;align-items:center;gap:0.6em;margin:0;'
                f'font-family:monospace">'
                f'<span style="min-width:11em">{html.escape(n)} = '
                f'<span class="rlm-explore-value">{html.escape(labels[start[k]])}</span></span>'
                f'<input type="range" class="rlm-explore-slider" data-control="{html.escape(n)}" '
                f'aria-label="{html.escape(n)}" '
                f'aria-valuetext="{html.escape(n)} = {html.escape(labels[start[k]])}" '
                f'min="0" max="{sizes[k] - 1}" step="1" value="{start[k]}" '
                f'data-labels="{html.escape(json.dumps(labels))}" style="width:22em"></label>'
            )
        script = (
            "(function(){var root=document.getElementById(%s);"
            "var frames=%s;var texts=%s;var alts=%s;var sizes=%s;"
            "var sliders=root.querySelectorAll('input.rlm-explore-slider');"
            "var img=root.querySelector('img.rlm-explore-image');"
            "var out=root.querySelector('.rlm-explore-readout');"
            "function show(){var t0=performance.now();var k=0;"
            "for(var i=0;i<sliders.length;i++){"
            "var s=sliders[i];var v=parseInt(s.value,10);k=k*sizes[i]+v;"
            "var lab=JSON.parse(s.getAttribute('data-labels'))[v];"
            "s.parentNode.querySelector('.rlm-explore-value').textContent=lab;"
            "s.setAttribute('aria-valuetext',s.getAttribute('data-control')+' = '+lab);}"
            "img.src=frames[k];img.alt=alts[k];out.textContent=texts[k];"
            "root.setAttribute('data-frame',k);"
            "root.setAttribute('data-redraw-ms',(performance.now()-t0).toFixed(2));}"
            "for(var i=0;i<sliders.length;i++){sliders[i].addEventListener('input',show);}"
            "})();"
        ) % (_js(uid), _js(uris), _js(texts), _js(alts), _js(sizes))
        # sliders, then the readout, then the figure: the readout stays next to the
        # sliders on a small screen; the image is shown at its pixel size (never stretched)
        self._html = (
            f'<div class="rlm-explore" id="{uid}" data-frame="{flat}" '
            f'data-frames="{len(frames)}">'
            + "".join(rows)
            + f'<pre class="rlm-explore-readout" aria-live="polite" '
            f'style="margin:0.3em 0;white-space:pre-wrap">'
            f'{html.escape(texts[flat])}</pre>'
            f'<img class="rlm-explore-image" src="{uris[flat]}" '
            f'alt="{html.escape(alts[flat])}" '
            f'width="{w}" height="{h}" style="width:{w}px;max-width:100%;height:auto">'
            f"<script>{script}</script></div>"
        )
        return self._html

    # ------------------------------------------------------------------ live mode
    def widget(self):
        import ipywidgets as W

        sliders = {}
        style = {"description_width": "initial"}
        layout = W.Layout(width="32em")
        for name, grid in self.grids.items():
            spec = self.specs[name]
            if spec is not None and spec.integer:
                sliders[name] = W.IntSlider(value=self.initial[name], min=int(spec.start),
                                            max=int(spec.stop), description=name,
                                            continuous_update=False, style=style,
                                            layout=layout)
                continue
            values = grid if spec is None else spec.live_grid()
            # a selection slider over exact values: it starts on the text's value (a
            # FloatLogSlider would snap 0.01 to 0.0102)
            sliders[name] = W.SelectionSlider(
                options=[(_fmt(v), v) for v in values], value=self.initial[name],
                description=name, continuous_update=False, style=style, layout=layout)
        png, text, _ = self.render(**self.initial)
        w, h = self.pixel_size
        image = W.Image(value=png, format="png", width=w, height=h,
                        layout=W.Layout(width=f"{w}px", height="auto", max_width="100%"))
        out = W.HTML(value=self._readout_html(text))
        busy_css = W.HTML("<style>.rlm-busy{opacity:0.45;transition:opacity 0.1s}</style>")

        def update(_change=None):
            t0 = time.perf_counter()
            values = {n: s.value for n, s in sliders.items()}
            out.value = self._readout_html(
                "computing… " + ", ".join(f"{n} = {_fmt(v)}" for n, v in values.items()),
                busy=True)
            image.add_class("rlm-busy")
            try:
                p, t, _ = self.render(**values)
            except Exception as e:       # shown, not swallowed: the readout says what failed
                image.remove_class("rlm-busy")
                out.value = self._readout_html(f"error: {type(e).__name__}: {e}")
                raise
            image.value = p
            image.remove_class("rlm-busy")
            out.value = self._readout_html(t)
            box.last_redraw_seconds = time.perf_counter() - t0

        for s in sliders.values():
            s.observe(update, names="value")
        box = W.VBox([busy_css, *sliders.values(), out, image])
        box.add_class("rlm-explore-live")
        box.sliders, box.image, box.readout, box.update = sliders, image, out, update
        box.last_redraw_seconds = None
        self._widget = box
        return box

    @staticmethod
    def _readout_html(text, busy=False):
        cls = "rlm-explore-readout" + (" rlm-explore-busy" if busy else "")
        return (f'<pre class="{cls}" style="margin:0.2em 0;white-space:pre-wrap">'
                f"{html.escape(text)}</pre>")

    # ------------------------------------------------------------------ display
    def _repr_html_(self):
        if self.mode == "static":
            return self.static_html()
        return None

    def _ipython_display_(self):
        from IPython.display import display

        if self.mode == "live":
            display(self.widget())
        else:
            # the HTML page shows the sliders; a format without HTML (the PDF) shows the
            # initial frame and its readout
            page = self.static_html()
            png, text = self._initial_frame
            display({"text/html": page, "text/plain": text,
                     "image/png": base64.b64encode(png).decode("ascii")}, raw=True)


def explore(compute: Callable[..., Any], controls: Mapping[str, Any], draw: Callable,
            readout: Callable[[Any, float], str] | None = None, **options) -> Explorer:
    """Make an explorable figure: live sliders in Jupyter, precomputed frames in the book.

    Parameters
    ----------
    compute : callable
        ``compute(**values)`` returns any data; it is timed (wall clock).
    controls : dict
        Maps a keyword of ``compute`` to the values its slider takes: a list of grid
        values, or a :class:`Slider`. At most ``MAX_FRAMES`` combinations.
    draw : callable
        ``draw(ax, data)`` draws on ``ax`` (one Axes, or the array of axes when
        ``axes=(rows, cols)`` asks for more than one); the axes are cleared before each
        call.
    readout : callable, optional
        ``readout(data, timing)`` returns a short text shown between the sliders and the
        figure; ``timing`` is a :class:`Timing` (a float in seconds with a ``label``).
    **options
        ``initial`` (dict of starting grid values), ``axes=(rows, cols)``, ``figsize``,
        ``dpi``, ``palette`` (colours of the static frames' PNG palette, 128 by default;
        None keeps full colour), ``display_mode``: see :class:`Explorer`.

    Returns
    -------
    Explorer
        Displaying it shows the figure (static HTML, or ipywidgets in a live kernel).

    Raises
    ------
    TypeError, ValueError
        As :class:`Explorer`.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.explore import explore, Slider
    >>> fig = explore(lambda a: a * np.linspace(0, 1, 5), {"a": Slider(1, 3, num=3)},
    ...               lambda ax, line: ax.plot(line),
    ...               lambda line, s: f"max {line.max():g}", display_mode="static")
    >>> frames = fig.frames()
    >>> len(frames), [text for _, text in frames]
    (3, ['max 1', 'max 2', 'max 3'])
    """
    return Explorer(compute, controls, draw, readout, **options)


# ---------------------------------------------------------------------------------------
# The numbers the readouts print: condition numbers and the constants of the bounds.
# Each is checked against an independent computation in tests/test_explore.py.

def _csr(X, name="X"):
    """X after the one validation pass (``rlmlib.as_rows``: structure, finiteness, shape),
    as a CSR matrix when sparse and an (m, n) array otherwise."""
    import scipy.sparse as sp

    from ..core.rows import as_rows, n_rows

    rows = as_rows(X, name)
    shape = (n_rows(rows), rows.n_features)
    if rows.sparse:
        return sp.csr_matrix((rows.data, rows.indices, rows.indptr), shape=shape)
    return rows.data.reshape(shape)


def _positive(name, v, allow_zero=False):
    ok = isinstance(v, (int, float, np.integer, np.floating)) and math.isfinite(v) and (
        v >= 0 if allow_zero else v > 0)
    if not ok:
        raise ValueError(f"{name} must be a finite number {'>=' if allow_zero else '>'} 0, "
                         f"got {v!r}")
    return float(v)


def _row_norms(A, q=2.0):
    import scipy.sparse as sp

    if sp.issparse(A):
        return np.asarray(abs(A).power(q).sum(axis=1)).ravel() ** (1.0 / q)
    return np.sum(np.abs(A) ** q, axis=1) ** (1.0 / q)


def _signs(y, m):
    y = np.asarray(y).ravel()
    if y.shape[0] != m:
        raise ValueError(f"y must have one label per row of X ({m}), got {y.shape[0]}")
    classes = np.unique(y)
    if len(classes) != 2:
        raise ValueError(f"y must hold exactly two classes, got {len(classes)}: "
                         f"{classes[:5]!r}")
    return np.where(y == classes[1], 1.0, -1.0)


def kappa(X, *, sigma, loss):
    """The condition number kappa = L / sigma of a regularized loss minimization problem.

    L = (smoothness of the loss) * max_i ||x_i||^2 is the smoothness of every example's
    loss term in w (1 for the squared losses, 1/4 for the logistic loss, times the largest
    squared row norm); sigma is the strong convexity of (sigma/2) ||w||^2.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
    sigma : float > 0
    loss : {'squared', 'squared_hinge', 'logistic'}

    Returns
    -------
    dict
        ``L``, ``R2`` (max_i ||x_i||^2) and ``kappa`` = L / sigma.

    Raises
    ------
    ValueError
        For sigma <= 0, a loss that is not smooth or unknown, or bad X.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.explore import kappa
    >>> kappa(np.array([[3.0, 4.0], [1.0, 0.0]]), sigma=0.5, loss="logistic")["kappa"]
    12.5
    """
    from ..core.losses import LOSSES

    sigma = _positive("sigma", sigma)
    if loss not in LOSSES or not math.isfinite(LOSSES[loss]["smoothness"]):
        smooth = [k for k, v in LOSSES.items() if math.isfinite(v["smoothness"])]
        raise ValueError(f"loss must be a smooth loss {smooth}, got {loss!r}")
    A = _csr(X)
    R2 = float(np.max(_row_norms(A)) ** 2)
    L = LOSSES[loss]["smoothness"] * R2
    return {"L": L, "R2": R2, "kappa": L / sigma}


_WARM: dict = {}   # (order, block) -> the last LOBPCG eigenvector block (a warm start)


def _extreme_eigs(op, n, dense, diag=None, lower=None):
    """Smallest and largest eigenvalue of a symmetric positive definite matrix of order n:
    dense (eigvalsh) or as an operator: Lanczos (scipy's eigsh) for the largest, LOBPCG with
    a Jacobi preconditioner (``diag``, a block of 8 vectors: the bottom of the spectrum is
    often a cluster, where Lanczos stalls) for the smallest, its residual checked."""
    if dense is not None:
        lam = np.linalg.eigvalsh(dense)
        return float(lam[0]), float(lam[-1])
    import warnings

    from scipy.sparse.linalg import eigsh, lobpcg

    rng = np.random.default_rng(0)
    hi = float(eigsh(op, k=1, which="LA", v0=rng.standard_normal(n), tol=1e-10,
                     return_eigenvectors=False)[0])
    block = max(1, min(8, n // 5))
    X0 = rng.standard_normal((n, block))
    warm = _WARM.get((n, block))
    if warm is not None:
        # the previous call's eigenvectors: consecutive frames of an explorable have close
        # matrices, and LOBPCG then converges in a few iterations (the residual is checked)
        X0 = warm + 1e-3 * X0
    M = None
    if diag is not None:
        from scipy.sparse import diags
        M = diags(1.0 / diag)
    for maxiter in (25, 2000):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")      # convergence is checked below
            lam, vec = lobpcg(op, X0, M=M, largest=False, tol=1e-6 * hi, maxiter=maxiter)
        j = int(np.argmin(lam))
        lo, v = float(lam[j]), vec[:, j]
        _WARM[(n, block)] = vec
        if lower is not None and lo <= lower * (1 + 1e-5):
            # a Rayleigh quotient is >= the smallest eigenvalue, and ``lower`` is a bound
            # from below: lambda_min is known to 5 digits (a cluster at the bottom of the
            # spectrum, where LOBPCG would converge slowly)
            return max(lo, lower), hi
        X0 = vec
    residual = np.linalg.norm(op @ v - lo * v) / np.linalg.norm(v)
    if not residual <= 2e-6 * hi:   # an eigenvalue within 2e-6 hi of lo
        raise RuntimeError(f"the smallest eigenvalue did not converge (LOBPCG residual "
                           f"{residual:.3g}, largest eigenvalue {hi:.3g})")
    return lo, hi


#: above this many features the condition numbers use Lanczos (scipy's eigsh) for the two
#: extreme eigenvalues instead of a dense eigendecomposition
DENSE_MAX_FEATURES = 1000


def gram_condition(X, *, sigma=0.0):
    """Condition number of H = X^T X / m + sigma I (the Hessian of ridge regression, or the
    design's own conditioning with sigma = 0).

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
    sigma : float >= 0

    Returns
    -------
    dict
        ``lambda_min``, ``lambda_max`` and ``kappa`` = lambda_max / lambda_min (inf when
        lambda_min is 0 or below rounding).

    Raises
    ------
    ValueError
        For sigma < 0 or bad X.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.explore import gram_condition
    >>> X = np.array([[2.0, 0.0], [0.0, 1.0]])
    >>> gram_condition(X, sigma=0.5)["kappa"]      # (4/2 + 0.5) / (1/2 + 0.5)
    2.5
    """
    sigma = _positive("sigma", sigma, allow_zero=True)
    return _hessian_condition(_csr(X), np.ones(_csr(X).shape[0]), sigma, None)


def _hessian_condition(A, d, sigma, b):
    """Extreme eigenvalues of B^(1/2) (A^T diag(d) A / m + sigma I) B^(1/2), b = diag(B)."""
    import scipy.sparse as sp
    from scipy.sparse.linalg import LinearOperator

    m, n = A.shape
    s = np.ones(n) if b is None else np.sqrt(b)
    if n <= DENSE_MAX_FEATURES:
        Ad = A.toarray() if sp.issparse(A) else A
        H = (Ad.T * d) @ Ad / m + sigma * np.eye(n)
        lo, hi = _extreme_eigs(None, n, s[:, None] * H * s[None, :])
    else:
        def mv(v):
            v = np.ravel(v) * s
            return s * (A.T @ (d * (A @ v)) / m + sigma * v)

        def mm(V):
            V = V * s[:, None]
            return s[:, None] * (A.T @ (d[:, None] * (A @ V)) / m + sigma * V)

        A2 = A.multiply(A) if sp.issparse(A) else A * A
        col = np.asarray(A2.T @ d).ravel() / m
        op = LinearOperator((n, n), matvec=mv, matmat=mm, dtype=np.float64)
        if b is None and np.any(col == 0):
            # a feature no weighted row touches: e_j is an eigenvector with eigenvalue
            # sigma, the smallest possible since H - sigma I is positive semidefinite
            from scipy.sparse.linalg import eigsh

            hi = float(eigsh(op, k=1, which="LA", v0=np.random.default_rng(0)
                             .standard_normal(n), tol=1e-10, return_eigenvectors=False)[0])
            lo = sigma
        else:
            lo, hi = _extreme_eigs(op, n, None, s * s * (col + sigma),
                                   lower=sigma * float(np.min(s * s)))
    k = hi / lo if lo > 1e-12 * hi else math.inf
    return {"lambda_min": lo, "lambda_max": hi, "kappa": k}


def rescaled_condition(X, y, w, *, sigma, B, loss="squared_hinge"):
    """Condition numbers of the Hessian H at w and of the rescaled H B (SGD-QN's diagonal).

    H = X^T D X / m + sigma I with D = diag(l''(y_i w.x_i)) (squared hinge: 1 where the
    margin is below 1, else 0; logistic: s(1 - s)); HB is similar to B^(1/2) H B^(1/2), so
    its eigenvalues are real and positive.  Dense eigenvalues up to ``DENSE_MAX_FEATURES``
    features, Lanczos (the two extreme eigenvalues) above.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
    y : array-like, shape (m,)
        Two classes (the larger one is +1).
    w : array-like, shape (n,)
    sigma : float > 0
    B : array-like, shape (n,), > 0
        The diagonal of B.
    loss : {'squared_hinge', 'logistic'}

    Returns
    -------
    dict
        ``kappa_H``, ``kappa_HB`` and the extreme eigenvalues ``H`` = (min, max) and
        ``HB`` = (min, max).

    Raises
    ------
    ValueError
        For bad shapes, sigma <= 0, a B that is not positive, or another loss.
    RuntimeError
        When the smallest eigenvalue does not converge (many features).

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.explore import rescaled_condition
    >>> X = np.array([[2.0, 0.0], [0.0, 1.0]]); y = np.array([1, -1]); w = np.zeros(2)
    >>> k = rescaled_condition(X, y, w, sigma=1.0, B=1 / np.array([3.0, 1.5]))
    >>> round(k["kappa_H"], 12), round(k["kappa_HB"], 12)   # H = diag(3, 1.5); B = H^-1
    (2.0, 1.0)
    """
    sigma = _positive("sigma", sigma)
    if loss not in ("squared_hinge", "logistic"):
        raise ValueError(f"loss must be 'squared_hinge' or 'logistic', got {loss!r}")
    A = _csr(X)
    m, n = A.shape
    ys = _signs(y, m)
    w = np.asarray(w, dtype=np.float64).ravel()
    b = np.asarray(B, dtype=np.float64).ravel()
    for name, v in (("w", w), ("B", b)):
        if v.shape[0] != n:
            raise ValueError(f"{name} must have one entry per feature ({n}), got {v.shape[0]}")
    if not (np.all(np.isfinite(b)) and np.all(b > 0)):
        raise ValueError("B must be finite and > 0")
    z = ys * np.asarray(A @ w).ravel()
    if loss == "squared_hinge":
        d = (z < 1).astype(np.float64)
    else:
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -700, 700)))
        d = p * (1 - p)
    h = _hessian_condition(A, d, sigma, None)
    if np.ptp(b) == 0:                   # B = c I: H B = c H, the same condition number
        hb = {"lambda_min": b[0] * h["lambda_min"], "lambda_max": b[0] * h["lambda_max"],
              "kappa": h["kappa"]}
    else:
        hb = _hessian_condition(A, d, sigma, b)
    return {"kappa_H": h["kappa"], "kappa_HB": hb["kappa"],
            "H": (h["lambda_min"], h["lambda_max"]),
            "HB": (hb["lambda_min"], hb["lambda_max"])}


def pgs_constants(X, y, w, *, p, sigma, k, loss="logistic"):
    """The constants of the PGS bound at exponent p, and the mini-batch variance at k.

    * ``G`` = max_i ||x_i||_q with q = p / (p - 1): the bound on the dual norm of a loss
      subgradient (|l'| <= 1 for the hinge and logistic losses);
    * ``modulus`` = sigma: the book's regularizer r(w) = ||w||_p^2 / (2 (p - 1)) is
      1-strongly convex with respect to ||.||_p for 1 < p <= 2 (and no more: its
      curvature at (1, 1) along (1, -1) is exactly 1), so sigma r is sigma-strongly
      convex; :func:`check_regularizer_modulus` measures it;
    * ``variance`` = E ||g_A - grad||_2^2 of the loss part of the gradient at w for a batch
      A of k examples drawn uniformly with replacement (as rlmlib.pgs draws them):
      (mean_i ||g_i||^2 - ||mean_i g_i||^2) / k with g_i = l'(y_i w.x_i) y_i x_i.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
    y : array-like, shape (m,)
        Two classes (the larger one is +1).
    w : array-like, shape (n,)
    p : float in (1, 2]
    sigma : float > 0
    k : int >= 1
    loss : {'logistic', 'hinge'}

    Returns
    -------
    dict
        ``q``, ``G``, ``modulus``, ``variance``.

    Raises
    ------
    ValueError
        For p outside (1, 2], sigma <= 0, k < 1, another loss or bad shapes.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.explore import pgs_constants
    >>> X = np.array([[3.0, 4.0], [0.0, 1.0]]); y = np.array([1, -1])
    >>> c = pgs_constants(X, y, np.zeros(2), p=2.0, sigma=0.1, k=1)
    >>> c["G"], c["modulus"], c["variance"]   # g = (-1.5, -2), (0, 0.5): (6.5 - 2.25) / 2
    (5.0, 0.1, 2.125)
    """
    if not (isinstance(p, (int, float, np.floating)) and 1 < p <= 2):
        raise ValueError(f"p must be a number in (1, 2], got {p!r}")
    sigma = _positive("sigma", sigma)
    if not (isinstance(k, (int, np.integer)) and k >= 1):
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    if loss not in ("logistic", "hinge"):
        raise ValueError(f"loss must be 'logistic' or 'hinge', got {loss!r}")
    A = _csr(X)
    m, n = A.shape
    ys = _signs(y, m)
    w = np.asarray(w, dtype=np.float64).ravel()
    if w.shape[0] != n:
        raise ValueError(f"w must have one entry per feature ({n}), got {w.shape[0]}")
    q = p / (p - 1)
    G = float(np.max(_row_norms(A, q))) if math.isfinite(q) else float(abs(A).max())
    z = ys * np.asarray(A @ w).ravel()
    if loss == "logistic":
        c = -1.0 / (1.0 + np.exp(np.clip(z, -700, 700)))      # l'(z) = -1 / (1 + e^z)
    else:
        c = np.where(z < 1, -1.0, 0.0)
    coef = c * ys                                              # g_i = coef_i x_i
    mean_g = np.asarray(A.T @ coef).ravel() / m
    mean_sq = float(np.mean(coef ** 2 * _row_norms(A) ** 2))
    variance = max(mean_sq - float(mean_g @ mean_g), 0.0) / k
    return {"q": q, "G": G, "modulus": sigma, "variance": variance}


def check_regularizer_modulus(modulus, *, p, sigma, rtol=1e-3):
    """Check that ``modulus`` is the strong convexity modulus of sigma r w.r.t. ||.||_p.

    r(w) = ||w||_p^2 / (2 (p - 1)) is the book's p-norm regularizer (:func:`rlmlib.pnorm.r`).
    The modulus is measured where it is attained: the midpoint inequality at
    u, v = (1, 1) +- t (1, -1) with t = 1e-3 gives
    8 (sigma r(u) / 2 + sigma r(v) / 2 - sigma r((u + v) / 2)) / ||u - v||_p^2, which is
    sigma up to O(t^2). A value off by any factor outside [1 - rtol, 1 + rtol] (twice the
    modulus, half of it, or sigma (p - 1) for p < 2) fails.

    Parameters
    ----------
    modulus : float
        The claimed modulus.
    p : float in (1, 2]
    sigma : float > 0
    rtol : float, optional
        Relative tolerance (the measurement's error is below 1e-5).

    Returns
    -------
    float
        The measured modulus.

    Raises
    ------
    AssertionError
        If ``modulus`` differs from the measured modulus by more than ``rtol``.
    ValueError
        If ``p`` is not in (1, 2] or ``sigma`` is not positive.

    Examples
    --------
    >>> from rlmlib.book.explore import check_regularizer_modulus
    >>> round(check_regularizer_modulus(0.1, p=1.5, sigma=0.1), 6)
    0.1
    """
    from rlmlib import pnorm
    if not (isinstance(p, (int, float, np.floating)) and 1 < p <= 2):
        raise ValueError(f"p must be a number in (1, 2], got {p!r}")
    sigma = _positive("sigma", sigma)
    w, h, t = np.array([1.0, 1.0]), np.array([1.0, -1.0]), 1e-3
    u, v = w + t * h, w - t * h
    gap = 0.5 * (pnorm.r(u, p) + pnorm.r(v, p)) - pnorm.r(w, p)
    measured = sigma * 8 * gap / (2 * t * np.sum(np.abs(h) ** p) ** (1 / p)) ** 2
    if not abs(modulus / measured - 1) <= rtol:
        raise AssertionError(f"claimed strong convexity modulus {modulus:.6g} of sigma r "
                             f"(p = {p}, sigma = {sigma:g}); measured {measured:.6g}")
    return float(measured)
