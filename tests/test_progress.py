"""rlmlib.book.progress: one bar per long cell; TQDM_DISABLE=1 (the build) hides it."""
import pytest

from rlmlib.book.progress import progress


def test_bar_counts_the_loop_and_is_hidden_by_tqdm_disable(monkeypatch, capsys):
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    assert list(progress(range(3), desc="steps")) == [0, 1, 2]
    err = capsys.readouterr().err
    assert "steps" in err and "3/3" in err
    monkeypatch.setenv("TQDM_DISABLE", "1")
    assert list(progress(range(3), desc="steps")) == [0, 1, 2]
    assert capsys.readouterr().err == ""


def test_manual_bar(monkeypatch, capsys):
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    bar = progress(total=2, desc="settings")
    bar.update()
    bar.update()
    bar.close()
    assert "2/2" in capsys.readouterr().err


@pytest.mark.parametrize("kw, match", [(dict(desc=1), "desc must be a string"),
                                       (dict(desc="x", total=-1), "total must be an integer")])
def test_bad_input(kw, match):
    with pytest.raises(TypeError, match=match):
        progress(range(2), **kw)
