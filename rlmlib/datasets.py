"""Data sets the book runs on, all usable offline.

``load_dataset(name)`` returns a :class:`Dataset`; ``load_svmlight(path)`` reads the
svmlight/LIBSVM files (RCV1, covtype, ...) that readers with internet fetch with
``data/fetch_libsvm.py``. The synthetic generators are in :mod:`rlmlib.synthetic`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp


@dataclass(eq=False)
class Dataset:
    """A data set with its provenance.

    ``X`` is a dense ``ndarray`` or a ``scipy.sparse`` CSR matrix of shape (m, n); ``y`` holds
    the labels (``task='binary'``: two distinct values, ``classes`` gives them in the order that
    maps to -1/+1) or real targets (``task='regression'``). ``truth`` holds what a generator
    knows about the distribution (hidden weights, eigenvalues, ...); its entries can also be
    read as attributes, e.g. ``ds.w_star``. ``X_test``/``y_test`` are an independent sample from
    the same distribution when the generator was asked for one (``m_test > 0``).
    """

    X: object
    y: np.ndarray
    name: str
    description: str
    source: str
    license: str
    task: str
    classes: np.ndarray | None = None
    label_names: tuple | None = None
    feature_names: list | None = None
    X_test: object = None
    y_test: np.ndarray | None = None
    truth: dict = field(default_factory=dict)

    def __getattr__(self, key):
        # Only called when normal lookup fails: expose the entries of ``truth``.
        truth = self.__dict__.get("truth")
        if truth is not None and key in truth:
            return truth[key]
        raise AttributeError(f"Dataset {self.__dict__.get('name')!r} has no attribute {key!r}")

    @property
    def shape(self):
        return self.X.shape

    @property
    def nnz_per_row(self):
        """Average number of stored non-zeros per row (n for dense data)."""
        if sp.issparse(self.X):
            return self.X.nnz / self.X.shape[0]
        return float(np.count_nonzero(self.X)) / self.X.shape[0]

    def __repr__(self):
        kind = "sparse CSR" if sp.issparse(self.X) else "dense"
        extra = f", test {self.X_test.shape[0]}" if self.X_test is not None else ""
        return (f"Dataset({self.name!r}: {self.X.shape[0]} x {self.X.shape[1]} {kind}, "
                f"task={self.task!r}{extra})")
