"""One progress bar per long cell: a page's cell that runs longer than about five seconds
wraps its outer loop in :func:`progress` (and passes ``progress=False`` to the sweeps and
solvers inside it, so that the reader sees exactly one bar).  ``TQDM_DISABLE=1`` (set by
``make book``) hides every bar in the built book."""
from __future__ import annotations

__all__ = ["progress"]


def progress(iterable=None, *, desc, total=None):
    """A tqdm progress bar (the notebook widget in Jupyter, text elsewhere).

    Parameters
    ----------
    iterable : iterable, optional
        Iterate over it with the bar advancing at each item; without it, call ``update()``
        on the bar and ``close()`` it at the end.
    desc : str
        What the bar counts, shown in front of it.
    total : int, optional
        Number of steps (default ``len(iterable)`` when it has one).

    Returns
    -------
    tqdm.tqdm
        The bar (iterable, with ``update`` and ``close``).

    Raises
    ------
    TypeError
        When ``desc`` is not a string or ``total`` not a non-negative integer.

    Examples
    --------
    >>> import os
    >>> from unittest import mock
    >>> from rlmlib.book.progress import progress
    >>> with mock.patch.dict(os.environ, {"TQDM_DISABLE": "1"}):
    ...     [x * x for x in progress(range(4), desc="squares")]
    [0, 1, 4, 9]
    """
    if not isinstance(desc, str):
        raise TypeError(f"desc must be a string, got {desc!r}")
    if total is not None and not (isinstance(total, int) and total >= 0):
        raise TypeError(f"total must be an integer >= 0 or None, got {total!r}")
    import os

    from tqdm.auto import tqdm

    # tqdm reads TQDM_DISABLE once, when it is imported: read it at every call
    off = os.environ.get("TQDM_DISABLE", "").strip().lower() not in ("", "0", "false")
    if total is None and iterable is not None and hasattr(iterable, "__len__"):
        total = len(iterable)
    return tqdm(iterable, desc=desc, total=total, disable=off)
