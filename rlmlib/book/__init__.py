"""What the book's pages use and the library does not: exercise checkers, explorable
figures, Dask sweeps, saved runs and their provenance. Nothing in ``rlmlib.core``,
``rlmlib.solvers``, ``rlmlib.precond`` or ``rlmlib.datasets`` imports this package."""

from rlmlib.book import figure_style as _figure_style

_figure_style.apply()


def __getattr__(name):
    """``rlmlib.book.checkers`` etc. without an explicit import (loaded on first use)."""
    import importlib

    if not name.startswith("_"):
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
