"""fitsasdf.update: a file changed where it is from Python (values, deletions, history, new and
replaced arrays), read back by fitsasdf and by python asdf, and the refusals."""

import hashlib
import shutil
import warnings

import asdf
import numpy as np
import pytest

import fitsasdf
from conftest import DATA


def md5(array):
    return hashlib.md5(np.ascontiguousarray(array).tobytes()).hexdigest()  # nosec


@pytest.fixture
def written(tmp_path):
    path = tmp_path / "a.asdf"
    sci = np.arange(1200, dtype=np.float32).reshape(30, 40)
    fitsasdf.write(path, {"meta": {"calver": "1.0", "flag": 3}, "sci": sci}, compress="zlib",
                   checksum="decoded")
    return path, sci


def test_values_history_and_arrays_in_place(written):
    path, sci = written
    dq = np.arange(50, dtype=np.uint16)
    result = fitsasdf.update(path, set={"/meta/calver": "2.0", "/meta/list": [1, 2.5, None]},
                             delete=["/meta/flag"], history="recalibrated", arrays={"/dq": dq},
                             replace={"/sci": sci * 2}, checksum="decoded")
    assert result["kind"] == "in-place"
    assert result["blocks_added"] == 2
    assert result["blocks_unreferenced"] == 1
    with fitsasdf.open(path, verify_checksums=True) as f:
        assert f.tree["meta"] == {"calver": "2.0", "list": [1, 2.5, None]}
        assert np.array_equal(f.tree["sci"], sci * 2)
        assert np.array_equal(f.tree["dq"], dq)
        assert f.tree["history"]["entries"][-1]["description"] == "recalibrated"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with asdf.open(path, validate_checksums=True, copy_arrays=True) as af:
            af.validate()
            assert md5(af.tree["sci"]) == md5(sci * 2)
            assert md5(af.tree["dq"]) == md5(dq)
            assert af.tree["meta"]["calver"] == "2.0"


def test_dry_run_and_nothing_to_do_change_nothing(written):
    path, _ = written
    before = path.read_bytes()
    plan = fitsasdf.update(path, set={"/meta/big": "x" * 50000}, dry_run=True)
    assert plan["kind"] == "rewritten" and plan["dry_run"]
    assert fitsasdf.update(path)["kind"] == "nothing"
    assert path.read_bytes() == before


def test_refusals_leave_the_file_untouched(written, tmp_path):
    path, sci = written
    before = path.read_bytes()
    with pytest.raises(fitsasdf.InvalidArgumentError, match="numpy array"):
        fitsasdf.update(path, set={"/x": np.zeros(3)})
    with pytest.raises(fitsasdf.InvalidArgumentError, match="shape"):
        fitsasdf.update(path, replace={"/sci": sci[:10]})
    with pytest.raises(fitsasdf.NotFoundError):
        fitsasdf.update(path, delete=["/meta/none"])
    with pytest.raises(fitsasdf.UnsupportedError, match="cannot update in place"):
        fitsasdf.update(path, set={"/big": "x" * 50000}, mode="in-place")
    with pytest.raises(fitsasdf.InvalidArgumentError, match="mode="):
        fitsasdf.update(path, set={"/a": 1}, mode="sometimes")
    assert path.read_bytes() == before
    legacy = tmp_path / "old.asdf"
    shutil.copy(DATA / "legacy" / "b40-bzp2.asdf", legacy)
    with pytest.raises(fitsasdf.UnsupportedError, match="pre-1.0"):
        fitsasdf.update(legacy, set={"/a": 1})
