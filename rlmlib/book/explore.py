"""Explorable figures: one helper, live in Jupyter, static (but still explorable) in the book.

    explore(compute, controls, draw, readout=None, *, initial=None, axes=(1, 1), ...)

* ``controls`` maps a keyword of ``compute`` to the values its slider takes: a list of grid
  values, or a :class:`Slider` spec ``Slider(start, stop, num, log=False)``.
* ``compute(**values)`` returns any data; it is timed (wall clock).
* ``draw(ax, data)`` draws ``data`` on ``ax`` (one ``Axes``, or the array of axes when
  ``axes=(rows, cols)`` asks for more than one).  The figure and its axes are created once and
  reused: each redraw clears the axes and calls ``draw`` again.
* ``readout(data, seconds)`` returns a short text shown under the figure (wall time,
  condition number, ...).

Two modes:

``live``    (a Jupyter kernel): ipywidgets sliders; every change recomputes, redraws the one
            figure into one ``ipywidgets.Image`` (no new figure, no new widget) and updates
            the readout.  A ``Slider`` spec becomes a continuous slider here.
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

__all__ = ["explore", "Slider", "Explorer", "mode", "MAX_FRAMES"]

#: largest number of precomputed frames of one static figure (the page embeds them all)
MAX_FRAMES = 64

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
        if self.log:
            g = np.geomspace(self.start, self.stop, self.num)
        else:
            g = np.linspace(self.start, self.stop, self.num)
        if self.integer:
            g = np.unique(np.round(g).astype(int))
            return [int(v) for v in g]
        return [float(v) for v in g]


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
        # does not display it by itself) and reused by every redraw
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        self.fig = Figure(figsize=figsize, dpi=dpi, layout="constrained")
        self._canvas = FigureCanvasAgg(self.fig)
        rows, cols = axes
        ax = self.fig.subplots(rows, cols, squeeze=False)
        self.ax = ax[0, 0] if rows * cols == 1 else ax
        self._widget = None
        self._html = None

    # ------------------------------------------------------------------ one frame
    def render(self, **values) -> tuple[bytes, str, float]:
        """Compute and draw one frame: (PNG bytes, readout text, compute seconds)."""
        from PIL import Image

        t0 = time.perf_counter()
        data = self.compute(**values)
        seconds = time.perf_counter() - t0
        for a in np.atleast_1d(self.ax).ravel():
            a.cla()
        self.draw(self.ax, data)
        self._canvas.draw()
        if self.fig.get_layout_engine() is not None:
            # the constrained layout of the first frame is kept for all others: the axes do
            # not jump between frames, and a redraw skips the (slow) layout pass
            self.fig.set_layout_engine("none")
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
        text = "" if self.readout is None else str(self.readout(data, seconds))
        return buf.getvalue(), text, seconds

    # ------------------------------------------------------------------ static mode
    def frames(self):
        """All frames over the cartesian product of the grids (last control varies fastest)."""
        names = list(self.grids)
        out = []
        for combo in itertools.product(*(self.grids[n] for n in names)):
            png, text, _ = self.render(**dict(zip(names, combo)))
            out.append((png, text))
        return out

    def static_html(self) -> str:
        if self._html is not None:
            return self._html
        names = list(self.grids)
        frames = self.frames()
        uris = ["data:image/png;base64," + base64.b64encode(p).decode("ascii") for p, _ in frames]
        texts = [t for _, t in frames]
        sizes = [len(self.grids[n]) for n in names]
        start = [self.grids[n].index(self.initial[n]) for n in names]
        flat = 0
        for i, s in zip(start, sizes):
            flat = flat * s + i
        uid = (f"rlmx-{hashlib.sha1(''.join(uris).encode()).hexdigest()[:12]}"
               f"-{next(_figure_counter)}")
        rows = []
        for k, n in enumerate(names):
            labels = [_fmt(v) for v in self.grids[n]]
            rows.append(
                f'<label style="display:block;font-family:monospace">{html.escape(n)} = '
                f'<span class="rlm-explore-value">{html.escape(labels[start[k]])}</span><br>'
                f'<input type="range" class="rlm-explore-slider" data-control="{html.escape(n)}" '
                f'min="0" max="{sizes[k] - 1}" step="1" value="{start[k]}" '
                f'data-labels="{html.escape(json.dumps(labels))}" style="width:60%"></label>'
            )
        script = (
            "(function(){var root=document.getElementById(%s);"
            "var frames=%s;var texts=%s;var sizes=%s;"
            "var sliders=root.querySelectorAll('input.rlm-explore-slider');"
            "var img=root.querySelector('img.rlm-explore-image');"
            "var out=root.querySelector('.rlm-explore-readout');"
            "function show(){var k=0;for(var i=0;i<sliders.length;i++){"
            "var s=sliders[i];var v=parseInt(s.value,10);k=k*sizes[i]+v;"
            "s.parentNode.querySelector('.rlm-explore-value').textContent="
            "JSON.parse(s.getAttribute('data-labels'))[v];}"
            "img.src=frames[k];out.textContent=texts[k];root.setAttribute('data-frame',k);}"
            "for(var i=0;i<sliders.length;i++){sliders[i].addEventListener('input',show);}"
            "})();"
        ) % (_js(uid), _js(uris), _js(texts), _js(sizes))
        self._html = (
            f'<div class="rlm-explore" id="{uid}" data-frame="{flat}" '
            f'data-frames="{len(frames)}">'
            + "".join(rows)
            + f'<img class="rlm-explore-image" src="{uris[flat]}" alt="explorable figure" '
            f'style="max-width:100%">'
            f'<pre class="rlm-explore-readout">{html.escape(texts[flat])}</pre>'
            f"<script>{script}</script></div>"
        )
        return self._html

    # ------------------------------------------------------------------ live mode
    def widget(self):
        import ipywidgets as W

        sliders = {}
        for name, grid in self.grids.items():
            spec = self.specs[name]
            style = {"description_width": "initial"}
            if spec is None:
                sliders[name] = W.SelectionSlider(
                    options=[(_fmt(v), v) for v in grid], value=self.initial[name],
                    description=name, continuous_update=True, style=style)
            elif spec.log:
                sliders[name] = W.FloatLogSlider(
                    value=self.initial[name], base=10, min=math.log10(spec.start),
                    max=math.log10(spec.stop), step=(math.log10(spec.stop)
                                                     - math.log10(spec.start)) / 100,
                    description=name, style=style)
            elif spec.integer:
                sliders[name] = W.IntSlider(value=self.initial[name], min=int(spec.start),
                                            max=int(spec.stop), description=name, style=style)
            else:
                sliders[name] = W.FloatSlider(value=self.initial[name], min=spec.start,
                                              max=spec.stop, step=(spec.stop - spec.start) / 100,
                                              description=name, style=style)
        png, text, _ = self.render(**self.initial)
        image = W.Image(value=png, format="png")
        out = W.HTML(value=f"<pre>{html.escape(text)}</pre>")

        def update(_change=None):
            t0 = time.perf_counter()
            p, t, _ = self.render(**{n: s.value for n, s in sliders.items()})
            image.value = p
            out.value = f"<pre>{html.escape(t)}</pre>"
            box.last_redraw_seconds = time.perf_counter() - t0

        for s in sliders.values():
            s.observe(update, names="value")
        box = W.VBox([*sliders.values(), image, out])
        box.sliders, box.image, box.readout, box.update = sliders, image, out, update
        box.last_redraw_seconds = None
        self._widget = box
        return box

    # ------------------------------------------------------------------ display
    def _repr_html_(self):
        if self.mode == "static":
            return self.static_html()
        return None

    def _ipython_display_(self):
        from IPython.display import HTML, display

        if self.mode == "live":
            display(self.widget())
        else:
            display(HTML(self.static_html()))


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
        ``readout(data, seconds)`` returns a short text shown under the figure.
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
