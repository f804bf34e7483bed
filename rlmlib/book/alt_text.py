"""Alt text for a figure, read from the drawn matplotlib figure: the title of every axes,
its axis labels and scales, and the labels of its series (lines, markers, bars), so a
screen reader says what the figure shows without the picture."""
from __future__ import annotations


def _axes_text(ax) -> str:
    parts = []
    title = ax.get_title() or ax.get_title(loc="left")
    if title:
        parts.append(title)
    x, y = ax.get_xlabel(), ax.get_ylabel()
    if x or y:
        xs = f" ({ax.get_xscale()} scale)" if ax.get_xscale() != "linear" else ""
        ys = f" ({ax.get_yscale()} scale)" if ax.get_yscale() != "linear" else ""
        parts.append(f"{y or 'value'}{ys} against {x or 'index'}{xs}")
    series = [h.get_label() for h in ax.get_lines() + list(ax.collections)
              if h.get_label() and not h.get_label().startswith("_")]
    if series:
        parts.append("series: " + ", ".join(dict.fromkeys(series)))
    return "; ".join(parts)


def figure_alt(fig, readout: str = "") -> str:
    """One sentence describing ``fig`` (a matplotlib Figure) and ``readout`` (text shown
    with it), e.g. ``'Plot. Panel 1: suboptimality (log scale) against passes;
    series: SGD, SAG. Readout: eta = 0.1'``.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The drawn figure: its panels' titles, axis labels, log scales and named series
        are described.
    readout : str, optional
        Text shown with the figure (an explorable's readout), appended.

    Returns
    -------
    str
        The alt text.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure()
    >>> ax = fig.subplots()
    >>> _ = ax.plot([1, 2], [3, 1], label="SGD")
    >>> _ = ax.set(xlabel="passes", ylabel="gap", yscale="log")
    >>> figure_alt(fig, "eta = 0.1")
    'Plot. gap (log scale) against passes; series: SGD. Readout: eta = 0.1'
    """
    panels = [t for t in (_axes_text(ax) for ax in fig.axes) if t]
    head = (fig._suptitle.get_text() + ". ") if getattr(fig, "_suptitle", None) else ""
    if len(panels) == 1:
        body = panels[0]
    else:
        body = " ".join(f"Panel {i}: {t}." for i, t in enumerate(panels, 1))
    text = f"Plot. {head}{body}".strip()
    readout = " ".join(readout.split())
    if readout:
        text = text.rstrip(".") + f". Readout: {readout}"
    return text
