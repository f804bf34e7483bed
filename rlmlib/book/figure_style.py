"""The book's matplotlib style: a colour-blind-safe palette (Okabe and Ito's) in which
every series also differs by line style, so colour never carries meaning alone
(WCAG 1.4.1).  Applied when ``rlmlib.book`` is imported (every page that draws does)."""
from __future__ import annotations

#: Okabe–Ito colours, in the order series take them (yellow left out: too pale on white)
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]
LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (1, 3))]


def rc() -> dict:
    """The rcParams of the style.

    Returns
    -------
    dict
        matplotlib rcParams: the property cycle pairs each Okabe-Ito colour with its own
        line style, so that two series differ without colour.

    Examples
    --------
    >>> cyc = rc()["axes.prop_cycle"].by_key()
    >>> cyc["color"][:2], cyc["linestyle"][:2]
    (['#0072B2', '#D55E00'], ['-', '--'])
    """
    from cycler import cycler

    out = {
        # no markers in the cycle: matplotlib has no rcParam for markevery, and a marker
        # on each of a curve's thousand points would hide the curve
        "axes.prop_cycle": cycler(color=PALETTE) + cycler(linestyle=LINESTYLES),
    }
    return out


def apply() -> None:
    """Set the style in matplotlib's global rcParams (no-op without matplotlib).

    Returns
    -------
    None

    Examples
    --------
    >>> import matplotlib
    >>> apply()
    >>> matplotlib.rcParams["axes.prop_cycle"].by_key()["color"][0]
    '#0072B2'
    """
    try:
        import matplotlib
    except ModuleNotFoundError:
        return
    matplotlib.rcParams.update(rc())
