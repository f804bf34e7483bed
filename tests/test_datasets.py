"""Shipped data sets load offline, match their descriptions, and a corrupt file is caught."""
import gzip
import shutil

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file

import rlmlib
from rlmlib.datasets import shipped as D
from rlmlib import load_dataset, load_svmlight


def test_unknown_name_lists_the_valid_ones():
    with pytest.raises(ValueError, match="name must be one of 'breast_cancer', 'digits', "
                                         "'diabetes', 'spam', got 'mnist'"):
        load_dataset("mnist")
    with pytest.raises(TypeError, match="standardize must be True or False"):
        load_dataset("digits", standardize="yes")


@pytest.mark.parametrize("name", D.DATASETS)
def test_every_dataset_has_provenance_and_clean_values(name):
    ds = load_dataset(name)
    assert ds.name == name
    for text in (ds.description, ds.source, ds.license):
        assert isinstance(text, str) and len(text) > 20
    X = ds.X.data if sp.issparse(ds.X) else ds.X
    assert np.all(np.isfinite(X)) and np.all(np.isfinite(ds.y))
    assert ds.X.shape[0] == ds.y.shape[0] and ds.y.dtype == np.float64
    if ds.task == "binary":
        assert set(np.unique(ds.y)) == {-1.0, 1.0} and len(ds.label_names) == 2
    assert ds.feature_names is None or len(ds.feature_names) == ds.X.shape[1]


def test_breast_cancer():
    ds = load_dataset("breast_cancer")
    assert ds.X.shape == (569, 30) and ds.task == "binary"
    assert (ds.y == 1).sum() == 212                     # malignant is +1
    assert ds.label_names == ("benign", "malignant")
    C = ds.X.T @ ds.X / 569
    ev = np.linalg.eigvalsh(C)
    assert ev[-1] / ev[0] > 1e10                        # ill-conditioned in raw units


def test_digits_odd_vs_even():
    ds = load_dataset("digits")
    assert ds.X.shape == (1797, 64)
    np.testing.assert_array_equal(ds.y == 1, ds.digit % 2 == 1)
    assert 0.45 < np.mean(ds.y == 1) < 0.55


def test_diabetes_regression_in_raw_units():
    ds = load_dataset("diabetes")
    assert ds.X.shape == (442, 10) and ds.task == "regression" and ds.classes is None
    assert ds.y.min() == 25 and ds.y.max() == 346
    assert set(np.unique(ds.X[:, 1])) == {1.0, 2.0}    # sex, as coded in the raw data


@pytest.mark.parametrize("name", ["breast_cancer", "digits", "diabetes"])
def test_standardize(name):
    raw, ds = load_dataset(name), load_dataset(name, standardize=True)
    np.testing.assert_array_equal(raw.y, ds.y)
    sd = raw.X.std(axis=0)
    np.testing.assert_allclose(ds.X.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(ds.X.std(axis=0)[sd > 0], 1, rtol=1e-12)
    assert np.all(ds.X[:, sd == 0] == 0)                # constant pixels of digits stay 0
    np.testing.assert_allclose(ds.X * np.where(sd > 0, sd, 1) + raw.X.mean(axis=0), raw.X,
                               rtol=1e-10, atol=1e-10)


def test_spam_matrix():
    ds = load_dataset("spam")
    X = ds.X
    assert sp.isspmatrix_csr(X) and X.dtype == np.float64
    assert X.shape == (6046, 48407)
    assert (ds.y == 1).sum() == 1896                    # spam-1 (500) + spam-2 (1396)
    np.testing.assert_array_equal(ds.y == 1, np.isin(ds.group, [3, 4]))
    assert ds.groups == ["easy-ham-1", "easy-ham-2", "hard-ham-1", "spam-1", "spam-2"]
    assert X.has_canonical_format and np.all(X.data > 0)
    np.testing.assert_allclose(sp.linalg.norm(X, axis=1), 1.0, rtol=1e-6)   # float32 stored
    assert np.bincount(X.indices, minlength=X.shape[1]).min() >= 2           # min_df = 2
    assert ds.meta["tfidf_params"]["min_df"] == 2
    assert ds.feature_names == sorted(ds.feature_names) and len(set(ds.feature_names)) == 48407


def test_spam_standardize_refused():
    with pytest.raises(ValueError, match="standardize=True is for the dense data sets"):
        load_dataset("spam", standardize=True)


@pytest.fixture
def spam_copy(tmp_path):
    shutil.copytree(D.DATA_DIR / "spam", tmp_path / "spam",
                    ignore=shutil.ignore_patterns("build.py", "*.md", "LICENSE"))
    return tmp_path


def test_spam_copy_loads_from_data_dir(spam_copy, monkeypatch):
    a = load_dataset("spam", data_dir=spam_copy)
    monkeypatch.setenv("RLMLIB_DATA_DIR", str(spam_copy))
    b = load_dataset("spam")
    assert (a.X != b.X).nnz == 0


def test_spam_corrupt_file_is_caught(spam_copy, monkeypatch):
    path = spam_copy / "spam" / "spam_tfidf.npz"
    expected = (spam_copy / "spam" / "SHA256SUMS").read_text().split()[0]
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    actual = D.sha256_file(path)
    msg = f"checksum mismatch for {path}: expected SHA-256 {expected}, got {actual}"
    with pytest.raises(ValueError, match=msg.replace(".", r"\.")):
        load_dataset("spam", data_dir=spam_copy)
    monkeypatch.setenv("RLMLIB_DATA_DIR", str(spam_copy))
    with pytest.raises(ValueError, match="checksum mismatch"):
        load_dataset("spam")


def test_spam_missing_files(spam_copy):
    (spam_copy / "spam" / "SHA256SUMS").unlink()
    with pytest.raises(FileNotFoundError, match="checksum file .*SHA256SUMS is missing"):
        load_dataset("spam", data_dir=spam_copy)
    (spam_copy / "spam" / "spam_tfidf.npz").unlink()
    with pytest.raises(FileNotFoundError, match="spam_tfidf.npz is missing"):
        load_dataset("spam", data_dir=spam_copy)


def test_spam_checksum_file_without_entry(spam_copy):
    (spam_copy / "spam" / "SHA256SUMS").write_text("0" * 64 + "  other.npz\n")
    with pytest.raises(ValueError, match="has no entry for spam_tfidf.npz"):
        load_dataset("spam", data_dir=spam_copy)


# ----------------------------------------------------------------------------- svmlight
@pytest.fixture
def svm_file(tmp_path):
    rng = np.random.default_rng(0)
    X = sp.random(50, 30, density=0.2, format="csr", random_state=1)
    y = rng.choice([1, 2], 50)
    path = tmp_path / "toy.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return path, X, y


def test_svmlight_binary_round_trip(svm_file):
    path, X, y = svm_file
    ds = load_svmlight(path, n_features=30)
    assert ds.task == "binary" and ds.name == "toy.svm"
    np.testing.assert_array_equal(ds.classes, [1, 2])
    np.testing.assert_array_equal(ds.y, np.where(y == 2, 1.0, -1.0))
    assert ds.X.shape == (50, 30) and abs(ds.X - X).max() < 1e-12
    wide = load_svmlight(path, n_features=100)
    assert wide.X.shape == (50, 100)


def test_svmlight_gzip_multiclass_and_regression(tmp_path):
    X = sp.random(20, 5, density=0.5, format="csr", random_state=0)
    gz = tmp_path / "multi.svm.gz"
    with gzip.open(gz, "wb") as f:
        dump_svmlight_file(X, np.arange(20) % 3, f)  # scikit-learn numbers from 0
    ds = load_svmlight(gz, zero_based=True)
    assert ds.task == "multiclass" and ds.classes is None
    np.testing.assert_array_equal(ds.y, np.arange(20) % 3)
    reg = tmp_path / "reg.svm"
    dump_svmlight_file(X, np.linspace(0, 1, 20), str(reg), zero_based=False)
    assert load_svmlight(reg).task == "regression"


def test_svmlight_errors(svm_file, tmp_path):
    path, X, y = svm_file
    with pytest.raises(FileNotFoundError, match="nothere.svm does not exist .*fetch_libsvm.py"):
        load_svmlight(tmp_path / "nothere.svm")
    with pytest.raises(ValueError, match="n_features must be a positive integer or None, got 0"):
        load_svmlight(path, n_features=0)
    with pytest.raises(ValueError, match=r"toy.svm holds a feature index beyond "
                                         r"n_features=3 .*but input file contains 30"):
        load_svmlight(path, n_features=3)
    bad = tmp_path / "bad.svm"
    bad.write_text("1 3:x 5:1.0\n")
    with pytest.raises(ValueError, match="cannot read .*bad.svm"):
        load_svmlight(bad)


def test_svmlight_numbering_is_the_same_for_train_and_test(tmp_path):
    """A training file using feature 0 and a test file that does not: a guess per file
    (scikit-learn's zero_based='auto') shifted the test file's columns by one. The
    numbering is now stated, never guessed: LIBSVM's (from 1) refuses index 0 by name,
    zero_based=True reads both files alike, and load_svmlight_files gives both the same
    columns and label signs."""
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    train.write_text("2 0:1.0 3:2.0\n4 1:5.0\n")
    test.write_text("4 1:7.0 2:1.0\n")   # max index 2 < train's 3, no index 0, one class
    with pytest.raises(ValueError, match=r"train\.svm holds feature index 0, but "
                                         r"zero_based=False .*pass zero_based=True"):
        load_svmlight(train)
    tr = load_svmlight(train, zero_based=True)
    te = load_svmlight(test, zero_based=True, n_features=tr.X.shape[1],
                       classes=tr.classes)
    assert tr.X.shape == (2, 4) and te.X.shape == (1, 4)
    # feature 1 is column 1 in both files (a per-file guess put the test's in column 0)
    assert tr.X[1, 1] == 5.0 and te.X[0, 1] == 7.0 and te.X[0, 0] == 0.0
    assert te.y.tolist() == [1.0] and te.task == "binary"   # label 4 is +1 in both
    a, b = rlmlib.load_svmlight_files(train, test, zero_based=True)
    assert (a.X != tr.X).nnz == 0 and (b.X != te.X).nnz == 0
    assert b.y.tolist() == [1.0] and a.classes.tolist() == b.classes.tolist() == [2, 4]
    # LIBSVM numbering (from 1): the same text with index 0 removed
    train.write_text("2 1:1.0 4:2.0\n4 2:5.0\n")
    test.write_text("4 2:7.0 3:1.0\n")
    a1, b1 = rlmlib.load_svmlight_files(train, test)
    assert (a1.X != tr.X).nnz == 0 and (b1.X != te.X).nnz == 0
    # the test file read alone with the training file's width and labels
    with pytest.raises(ValueError, match=r"test\.svm holds a feature index beyond "
                                         r"n_features=2 .*load_svmlight_files"):
        load_svmlight(test, n_features=2)
    with pytest.raises(ValueError, match=r"test\.svm holds the label 4, not one of "
                                         r"classes=\[1\.0, 2\.0\]"):
        load_svmlight(test, classes=[1, 2])
    with pytest.raises(ValueError, match="classes must hold two distinct finite labels"):
        load_svmlight(test, classes=[4, 4])
    with pytest.raises(TypeError, match="zero_based must be True .* got 'auto'"):
        load_svmlight(test, zero_based="auto")
    with pytest.raises(ValueError, match="paths must name at least one svmlight file"):
        rlmlib.load_svmlight_files()


# ----------------------------------------------------------------------------- fetch script
def _fetch_module():
    import importlib.util
    spec = importlib.util.spec_from_file_location("fetch_libsvm", D.DATA_DIR / "fetch_libsvm.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_fetch_script_lists_and_rejects_offline(capsys):
    mod = _fetch_module()
    mod.main(["--list"])
    out = capsys.readouterr().out
    assert "rcv1_ccat" in out and "covtype.libsvm.binary.bz2" in out
    with pytest.raises(SystemExit):
        mod.main(["mnist"])
    assert "unknown data set(s) mnist" in capsys.readouterr().err


def test_fetch_script_ccat_conversion_without_network(tmp_path, monkeypatch):
    # fake multi-label files: label 7 is the most frequent topic, so it plays CCAT
    from sklearn.datasets import dump_svmlight_file
    mod = _fetch_module()
    rng = np.random.default_rng(0)
    fakes = {}
    for k, rel in enumerate(mod.FILES["rcv1_topics"]):
        X = sp.random(10 + k, 40, density=0.3, format="csr", random_state=k)
        r = rng.random(X.shape[0])
        labels = [(7,) if u < 0.6 else (3,) if u < 0.8 else (1, 3) for u in r]
        path = tmp_path / f"fake{k}.svm"
        Y = np.zeros((X.shape[0], 10), int)
        for i, doc in enumerate(labels):
            Y[i, list(doc)] = 1
        dump_svmlight_file(X, Y, str(path), multilabel=True, zero_based=False)
        fakes[rel] = (path, X, labels)
    monkeypatch.setattr(mod, "download", lambda rel, dest: fakes[rel][0])
    mod.rcv1_ccat(tmp_path)
    test = load_svmlight(tmp_path / "rcv1_ccat_test.svm", n_features=47_236)
    _, X0, lab0 = fakes[mod.FILES["rcv1_topics"][0]]
    np.testing.assert_array_equal(test.y, [1.0 if 7 in d else -1.0 for d in lab0])
    assert abs(test.X[:, :40] - X0).max() < 1e-12
    train = load_svmlight(tmp_path / "rcv1_ccat_train.svm", n_features=47_236)
    assert train.X.shape[0] == sum(10 + k for k in range(1, 5))


def test_truncated_gz_is_named(tmp_path):
    """A truncated .gz raised a raw EOFError naming no file."""
    import gzip

    import pytest

    import rlmlib

    full = gzip.compress(b"".join(b"1 1:0.5 3:1.0\n-1 2:-1.0\n" for _ in range(500)))
    path = tmp_path / "cut.svm.gz"
    path.write_bytes(full[: len(full) // 2])
    with pytest.raises(ValueError, match=r"cannot read .*cut\.svm\.gz: the compressed file "
                                         r"is truncated or corrupt"):
        rlmlib.load_svmlight(path)
