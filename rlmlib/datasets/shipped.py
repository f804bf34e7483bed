"""Data sets the book runs on, all usable offline.

``load_dataset(name)`` returns a :class:`Dataset`; ``load_svmlight(path)`` reads the
svmlight/LIBSVM files (RCV1, covtype, ...) that readers with internet fetch with
``data/fetch_libsvm.py``. The synthetic generators are in :mod:`rlmlib.datasets`.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..core.checks import check_bool

#: Data directory of the repository; ``RLMLIB_DATA_DIR`` or ``data_dir=`` override it.
DATA_DIR = Path(__file__).resolve().parents[2] / "data"


@dataclass(eq=False)
class Dataset:
    """A data set with its provenance.

    ``X`` is a dense ``ndarray`` or a ``scipy.sparse`` CSR matrix of shape (m, n). ``y`` is
    float64: labels -1/+1 for ``task='binary'`` (``classes`` holds the original labels that
    -1 and +1 stand for, ``label_names`` their meaning), real targets for
    ``task='regression'``, the original integer labels for ``task='multiclass'`` (only from
    :func:`rlmlib.load_svmlight`). ``truth`` holds what a generator
    knows about the distribution (hidden weights, eigenvalues, ...); its entries can also be
    read as attributes, e.g. ``ds.w_star``. ``X_test``/``y_test`` are an independent sample from
    the same distribution when the generator was asked for one (``m_test > 0``).

    Attributes
    ----------
    X : numpy.ndarray or scipy.sparse.csr_matrix, shape (m, n)
        The rows.
    y : numpy.ndarray of float64, shape (m,)
        Labels -1/+1, real targets, or the original integer labels ('multiclass').
    name, description, source, license : str
        What the data are, where they come from and under which terms.
    task : {'binary', 'regression', 'multiclass'}
        What ``y`` holds.
    classes : numpy.ndarray or None
        The original labels that -1 and +1 stand for ('binary').
    label_names : tuple or None
        Their meaning, e.g. ``('ham', 'spam')``.
    feature_names : list or None
        One name per column, when known.
    X_test, y_test : optional
        An independent test sample from a generator (``m_test > 0``), else None.
    truth : dict
        What a generator knows about the distribution; entries are also attributes.

    Examples
    --------
    >>> import rlmlib
    >>> ds = rlmlib.load_dataset("diabetes")
    >>> ds.shape, ds.task, ds.nnz_per_row
    ((442, 10), 'regression', 10.0)
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


# ----------------------------------------------------------------------------- loaders
def _standardize(X):
    """Columns to mean 0 and (population) standard deviation 1; constant columns stay 0."""
    mean = X.mean(axis=0)
    sd = X.std(axis=0)
    sd[sd == 0] = 1.0
    return (X - mean) / sd


def _breast_cancer():
    from sklearn.datasets import load_breast_cancer
    d = load_breast_cancer()
    # scikit-learn's target: 0 = malignant, 1 = benign. Here malignant is the positive class.
    y = np.where(d.target == 0, 1.0, -1.0)
    return dict(
        X=np.asarray(d.data, np.float64), y=y, task="binary", classes=np.array([1, 0]),
        label_names=("benign", "malignant"), feature_names=list(d.feature_names),
        description=("Breast Cancer Wisconsin (Diagnostic): 569 fine-needle aspirates, 30 real "
                     "features of the cell nuclei (radius, texture, ... in very different "
                     "units), 212 malignant (+1) vs 357 benign (-1). Dense and ill-conditioned "
                     "in raw units."),
        source=("W. N. Street, W. H. Wolberg, O. L. Mangasarian, UCI Machine Learning "
                "Repository (1995), doi:10.24432/C5DW2B; the copy bundled with scikit-learn "
                "(sklearn.datasets.load_breast_cancer)"),
        license="CC BY 4.0 (UCI); the scikit-learn copy is distributed under BSD-3-Clause",
    )


def _digits():
    from sklearn.datasets import load_digits
    d = load_digits()
    # The binary task: odd digits (+1) against even digits (-1); roughly balanced.
    y = np.where(d.target % 2 == 1, 1.0, -1.0)
    return dict(
        X=np.asarray(d.data, np.float64), y=y, task="binary", classes=np.array([-1.0, 1.0]),
        label_names=("even digit", "odd digit"), feature_names=list(d.feature_names),
        description=("Optical recognition of handwritten digits: 1,797 8x8 images, 64 pixel "
                     "intensities 0..16 (some pixels are always 0). Binary task defined here: "
                     "odd digit (+1) vs even digit (-1); the digit itself is truth['digit']."),
        source=("E. Alpaydin, C. Kaynak, UCI Machine Learning Repository (1998), "
                "doi:10.24432/C50P49 (test part); the copy bundled with scikit-learn "
                "(sklearn.datasets.load_digits)"),
        license="CC BY 4.0 (UCI); the scikit-learn copy is distributed under BSD-3-Clause",
        truth=dict(digit=np.asarray(d.target)),
    )


def _diabetes():
    from sklearn.datasets import load_diabetes
    d = load_diabetes(scaled=False)
    return dict(
        X=np.asarray(d.data, np.float64), y=np.asarray(d.target, np.float64),
        task="regression", feature_names=list(d.feature_names),
        description=("Diabetes: 442 patients, 10 baseline variables in their original units "
                     "(age, sex, BMI, blood pressure, six blood serum measurements); target: "
                     "a measure of disease progression one year later (25..346)."),
        source=("B. Efron, T. Hastie, I. Johnstone, R. Tibshirani, 'Least Angle Regression', "
                "Annals of Statistics 32 (2004); the copy bundled with scikit-learn "
                "(sklearn.datasets.load_diabetes(scaled=False))"),
        license=("no license stated by the authors; distributed with scikit-learn "
                 "(BSD-3-Clause)"),
    )


def sha256_file(path):
    """The SHA-256 of a file, as lowercase hex (read in 1 MiB blocks).

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    str
        64 hexadecimal digits.

    Raises
    ------
    OSError
        When the file cannot be read (FileNotFoundError when it does not exist).

    Examples
    --------
    >>> import tempfile, os
    >>> from rlmlib.datasets.shipped import sha256_file
    >>> with tempfile.NamedTemporaryFile(delete=False) as f:
    ...     _ = f.write(b"abc")
    >>> sha256_file(f.name)[:16]
    'ba7816bf8f01cfea'
    >>> os.remove(f.name)
    """
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _verified(path):
    """Return path after checking its SHA-256 against the SHA256SUMS file next to it."""
    sums = path.parent / "SHA256SUMS"
    if not path.is_file():
        raise FileNotFoundError(f"data file {path} is missing (build it with "
                                f"{path.parent / 'build.py'} or restore it from git)")
    if not sums.is_file():
        raise FileNotFoundError(f"checksum file {sums} is missing; cannot verify {path}")
    expected = None
    for line in sums.read_text().splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("*") == path.name:
            expected = parts[0].lower()
    if expected is None:
        raise ValueError(f"{sums} has no entry for {path.name}")
    actual = sha256_file(path)
    if actual != expected:
        raise ValueError(f"checksum mismatch for {path}: expected SHA-256 {expected}, got "
                         f"{actual}; the file is corrupt or was modified (restore it from git "
                         f"or rebuild it with {path.parent / 'build.py'})")
    return path


def _spam(data_dir):
    import json
    path = _verified(Path(data_dir) / "spam" / "spam_tfidf.npz")
    with np.load(path, allow_pickle=False) as z:
        X = sp.csr_matrix((z["data"].astype(np.float64), z["indices"], z["indptr"]),
                          shape=tuple(int(v) for v in z["shape"]))
        y = z["y"].astype(np.float64)
        vocab = bytes(z["vocabulary_utf8"]).decode("utf-8").split("\n")
        meta = json.loads(str(z["meta_json"]))
        group, groups, message_id = z["group"], [str(g) for g in z["groups"]], z["message_id"]
    return dict(
        X=X, y=y, task="binary", classes=np.array([-1.0, 1.0]), label_names=("ham", "spam"),
        feature_names=vocab,
        description=(f"SpamAssassin public mail corpus: {X.shape[0]} e-mails ({int((y > 0).sum())}"
                     f" spam = +1, the rest ham = -1), TF-IDF of the whole message (headers "
                     f"included) over {X.shape[1]} terms that occur in at least 2 messages, "
                     f"unit-norm rows, {X.nnz / X.shape[0]:.0f} non-zeros per row on average."),
        source=(f"npm package {meta['package']}@{meta['version']} (tarball SHA-256 "
                f"{meta['tarball_sha256']}), built by data/spam/build.py with scikit-learn "
                f"{meta['scikit_learn']} TfidfVectorizer(min_df=2)"),
        license=("database: Open Data Commons PDDL 1.0; contents: CC0 1.0 (the package's "
                 "LICENSE, copied to data/spam/LICENSE)"),
        truth=dict(group=group, groups=groups, message_id=message_id, meta=meta),
    )


_LOADERS = {"breast_cancer": _breast_cancer, "digits": _digits, "diabetes": _diabetes,
            "spam": _spam}
#: Names accepted by :func:`load_dataset`.
DATASETS = tuple(_LOADERS)


def load_dataset(name, *, standardize=False, data_dir=None):
    """Load one of the data sets shipped with the book (no network needed).

    Parameters
    ----------
    name : {'breast_cancer', 'digits', 'diabetes', 'spam'}
        ``breast_cancer``: 569 x 30 dense, binary (malignant +1), ill-conditioned in raw
        units. ``digits``: 1,797 x 64 dense, binary: odd digit (+1) vs even digit (-1).
        ``diabetes``: 442 x 10 dense, regression, raw units. ``spam``: 6,046 x 48,407
        sparse TF-IDF (CSR), binary (spam +1); its file is checked against
        ``data/spam/SHA256SUMS`` at every load.
    standardize : bool
        Scale each column of a dense set to mean 0 and standard deviation 1 (constant
        columns stay 0). Refused for ``spam``, whose rows are unit-norm TF-IDF vectors and
        whose sparsity centering would destroy.
    data_dir : str or os.PathLike, optional
        Replaces the repository's ``data/`` directory (as does the environment variable
        ``RLMLIB_DATA_DIR``).

    Returns
    -------
    Dataset
        The rows, labels and provenance.

    Raises
    ------
    ValueError
        For an unknown name, ``standardize=True`` with ``spam``, or a data file whose
        checksum does not match.
    TypeError
        For a ``standardize`` that is not a bool.
    FileNotFoundError
        When the data file or its checksum file is missing.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> ds = rlmlib.load_dataset("breast_cancer", standardize=True)
    >>> ds.shape, ds.task, ds.label_names
    ((569, 30), 'binary', ('benign', 'malignant'))
    >>> bool(np.allclose(ds.X.mean(axis=0), 0) and np.allclose(ds.X.std(axis=0), 1))
    True
    >>> rlmlib.load_dataset("spam", standardize=True)
    Traceback (most recent call last):
    ...
    ValueError: standardize=True is for the dense data sets; 'spam' is sparse ...
    """
    if not isinstance(name, str) or name not in _LOADERS:
        raise ValueError(f"name must be one of {', '.join(repr(k) for k in DATASETS)}, "
                         f"got {name!r}")
    check_bool("standardize", standardize)
    if name == "spam":
        if standardize:
            raise ValueError("standardize=True is for the dense data sets; 'spam' is sparse "
                             "TF-IDF with unit-norm rows (centering would make it dense)")
        data_dir = data_dir or os.environ.get("RLMLIB_DATA_DIR") or DATA_DIR
        fields = _spam(data_dir)
    else:
        fields = _LOADERS[name]()
        if standardize:
            fields["X"] = _standardize(fields["X"])
            fields["description"] += " Columns standardized to mean 0, sd 1."
    return Dataset(name=name, **fields)


def load_svmlight(path, n_features=None, *, zero_based=False, classes=None, name=None):
    """Read an svmlight / LIBSVM file (RCV1, covtype, ...) into a :class:`Dataset`.

    Uses ``sklearn.datasets.load_svmlight_file`` (``.gz``/``.bz2`` are read directly). The
    feature numbering is never guessed from the file: LIBSVM numbers features from 1, so by
    default feature ``j`` becomes column ``j - 1`` and a file holding index 0 is refused
    with a message; ``zero_based=True`` reads files that number from 0 (feature ``j`` is
    column ``j``). A guess per file would read a training file that uses index 0 and a test
    file that does not with their columns shifted by one against each other. ``X`` is CSR
    float64. With two distinct labels ``y`` becomes -1/+1 (``classes`` holds the original
    labels, sorted: the first is -1) and ``task='binary'``; more than two integer labels
    give ``task='multiclass'`` with the original labels; non-integer targets give
    ``task='regression'``. To read a test file exactly as its training file was read, pass
    the training set's numbering, ``n_features=train.X.shape[1]`` and
    ``classes=train.classes`` (or read both with :func:`load_svmlight_files`).
    Files are fetched with ``data/fetch_libsvm.py``; nothing here touches the network.

    Parameters
    ----------
    path : str or os.PathLike
        The file (``.gz`` and ``.bz2`` are read directly).
    n_features : int >= 1, optional
        Number of columns; default: the largest feature index in the file (plus one when
        ``zero_based``).
    zero_based : bool, default False
        Whether the file numbers its features from 0 (True) or, as LIBSVM does, from 1.
    classes : array of two labels, optional
        The original labels that become -1 and +1 (a training set's ``classes``): a test
        file holding only one of them, or both in any proportion, is then read with the
        same signs. Every label of the file must be one of them.
    name : str, optional
        The Dataset's name (default: the file's name).

    Returns
    -------
    Dataset
        CSR rows, labels as described above.

    Raises
    ------
    FileNotFoundError
        When the file does not exist.
    ValueError
        When the file is not in svmlight format, holds no examples, a non-finite label or
        feature value, feature index 0 with ``zero_based=False``, a feature index beyond
        ``n_features``, or a label that is not one of ``classes``.
    TypeError
        For a path that is not a str or os.PathLike.

    Examples
    --------
    >>> import os, tempfile, rlmlib
    >>> with tempfile.NamedTemporaryFile("w", suffix=".svm", delete=False) as f:
    ...     _ = f.write("2 1:0.5 3:1.0\\n4 2:-1.0\\n2 3:2.0\\n")
    >>> ds = rlmlib.load_svmlight(f.name, n_features=3)
    >>> ds.task, ds.classes.tolist(), ds.y.tolist(), ds.X.toarray()[0].tolist()
    ('binary', [2.0, 4.0], [-1.0, 1.0, -1.0], [0.5, 0.0, 1.0])
    >>> os.remove(f.name)
    """
    zero_based, n_features, classes = _svmlight_args(zero_based, n_features, classes)
    p = _svmlight_path(path)
    X, y = _read_svmlight(p, n_features, zero_based)
    return _svmlight_dataset(p, X, y, classes, name)


def load_svmlight_files(*paths, n_features=None, zero_based=False):
    """Read a training file and its test (or validation) files so that the same feature
    index and the same label mean the same column and the same sign in every one.

    Every file is read with the same numbering (``zero_based``, see
    :func:`load_svmlight`) and as many columns as the widest file has (or
    ``n_features``); with two distinct labels over all the files, every file maps them to
    -1/+1 the same way (a test file holding one class keeps its sign).

    Parameters
    ----------
    *paths : str or os.PathLike
        One or more svmlight files, e.g. training then test.
    n_features : int >= 1, optional
        Number of columns of every file; default: the largest over the files.
    zero_based : bool, default False
        Whether the files number their features from 0 (True) or from 1 (LIBSVM).

    Returns
    -------
    list of Dataset
        One per path, in order, all with the same number of columns.

    Raises
    ------
    ValueError
        As :func:`load_svmlight`; also when no path is given.

    Examples
    --------
    >>> import tempfile, pathlib, rlmlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.svm").write_text("1 1:1.0 5:2.0\\n-1 2:1.0\\n")
    >>> _ = (d / "b.svm").write_text("1 1:3.0\\n")
    >>> train, test = rlmlib.load_svmlight_files(d / "a.svm", d / "b.svm")
    >>> test.X.shape, test.y.tolist(), float(test.X[0, 0])
    ((1, 5), [1.0], 3.0)
    """
    if not paths:
        raise ValueError("paths must name at least one svmlight file, got none")
    zero_based, n_features, _ = _svmlight_args(zero_based, n_features, None)
    ps = [_svmlight_path(p) for p in paths]
    read = [_read_svmlight(p, n_features, zero_based) for p in ps]
    width = max(X.shape[1] for X, _ in read)
    labels = np.unique(np.concatenate([y for _, y in read]))
    classes = labels if labels.size == 2 else None
    out = []
    for p, (X, y) in zip(ps, read):
        if X.shape[1] < width:
            X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], width))
        out.append(_svmlight_dataset(p, X, y, classes, None))
    return out


def _svmlight_args(zero_based, n_features, classes):
    if not isinstance(zero_based, (bool, np.bool_)):
        raise TypeError(f"zero_based must be True (features numbered from 0) or False "
                        f"(from 1, LIBSVM's numbering), got {zero_based!r}")
    if n_features is not None:
        if (isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer))
                or n_features < 1):
            raise ValueError(f"n_features must be a positive integer or None, got {n_features!r}")
        n_features = int(n_features)
    if classes is not None:
        c = np.asarray(classes, dtype=np.float64).ravel()
        if c.size != 2 or not np.all(np.isfinite(c)) or c[0] == c[1]:
            raise ValueError(f"classes must hold two distinct finite labels (a training "
                             f"set's Dataset.classes), got {classes!r}")
        classes = np.sort(c)
    return bool(zero_based), n_features, classes


def _svmlight_path(path):
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"path must be a file path (str or os.PathLike), got {path!r} of type "
                        f"{type(path).__name__}")
    p = Path(os.fsdecode(path))
    if not p.exists():
        raise FileNotFoundError(f"svmlight file {p} does not exist (readers with internet can "
                                "fetch RCV1, covtype, ... with data/fetch_libsvm.py)")
    if p.is_dir():
        raise IsADirectoryError(f"path must be an svmlight file, got the directory {p}")
    return p


def _read_svmlight(p, n_features, zero_based):
    """(CSR X with sorted indices, y) of file ``p``, numbered as ``zero_based`` says."""
    import zlib

    from sklearn.datasets import load_svmlight_file

    try:
        X, y = load_svmlight_file(str(p), n_features=n_features, dtype=np.float64,
                                  zero_based=zero_based)
    except ValueError as e:
        if "Invalid index 0" in str(e):
            raise ValueError(f"svmlight file {p} holds feature index 0, but zero_based=False "
                             f"reads LIBSVM's numbering, from 1; pass zero_based=True if the "
                             f"file numbers its features from 0 (and read its training or "
                             f"test partner with zero_based=True too)") from e
        if "n_features was set to" in str(e):
            raise ValueError(f"svmlight file {p} holds a feature index beyond "
                             f"n_features={n_features} ({e}); pass the training file's "
                             f"n_features, or read the files together with "
                             f"load_svmlight_files") from e
        raise ValueError(f"cannot read {p} as an svmlight/LIBSVM file"
                         f"{'' if n_features is None else f' with n_features={n_features}'}"
                         f": {e}") from e
    except (EOFError, OSError, zlib.error) as e:  # a truncated or corrupt .gz / .bz2
        raise ValueError(f"cannot read {p}: the compressed file is truncated or corrupt "
                         f"({type(e).__name__}: {e}); fetch it again") from e
    if X.shape[0] == 0:
        raise ValueError(f"path={str(p)!r} holds no examples (an empty file or device); "
                         f"expected an svmlight file with at least one line 'label "
                         f"index:value ...'")
    X = X.tocsr()
    X.sort_indices()
    if not np.isfinite(y).all():
        i = int(np.flatnonzero(~np.isfinite(y))[0])
        raise ValueError(f"svmlight file {p}: the label of example {i} (counting "
                         f"from 0) is {y[i]}, not a finite number")
    if not np.isfinite(X.data).all():
        raise ValueError(f"svmlight file {p} holds a feature value that is NaN or inf "
                         f"({X.data[~np.isfinite(X.data)][0]})")
    return X, y


def _svmlight_dataset(p, X, y, classes, name):
    labels = np.unique(y)
    if classes is not None:
        stray = np.setdiff1d(labels, classes)
        if stray.size:
            raise ValueError(f"svmlight file {p} holds the label {stray[0]:g}, not one of "
                             f"classes={classes.tolist()}")
        task = "binary"
        y = np.where(y == classes[1], 1.0, -1.0)
    elif labels.size == 2:
        task, classes = "binary", labels
        y = np.where(y == labels[1], 1.0, -1.0)
    elif np.all(labels == np.round(labels)) and labels.size <= 1000:
        task = "multiclass"
    else:
        task = "regression"
    return Dataset(
        X=X, y=np.asarray(y, np.float64), name=name or p.name, task=task, classes=classes,
        description=(f"{p.name}: {X.shape[0]} x {X.shape[1]}, {X.nnz / X.shape[0]:.1f} "
                     f"non-zeros per row, {labels.size} distinct labels"),
        source=f"svmlight file {p}", license="see the data set's own terms (not shipped)",
    )
