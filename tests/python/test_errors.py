"""Each category of the library's errors raises its exception class, with the message and the
place; nothing is left behind."""

import os

import numpy as np
import pytest

import fitsasdf
from conftest import CORPUS


def test_every_class_derives_from_error():
    for name in fitsasdf.__all__:
        obj = getattr(fitsasdf, name)
        if isinstance(obj, type) and name.endswith("Error") and name != "Error":
            assert issubclass(obj, fitsasdf.Error), name


def test_missing_file_is_an_io_error(tmp_path):
    with pytest.raises(fitsasdf.IoError) as info:
        fitsasdf.open(tmp_path / "nope.asdf")
    assert info.value.code == "io"
    assert info.value.file == str(tmp_path / "nope.asdf")
    assert isinstance(info.value, OSError)


def test_a_fits_file_is_not_asdf():
    with pytest.raises(fitsasdf.NotAsdfError) as info:
        fitsasdf.open(CORPUS / "fits-astropy" / "arange.fits")
    assert "arange.fits" in str(info.value)


def test_a_text_file_is_not_fits(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello\n" * 100)
    with pytest.raises(fitsasdf.NotFitsError):
        fitsasdf.convert(text, tmp_path / "out.asdf")
    assert not (tmp_path / "out.asdf").exists()


def test_pre_1_0_files_read_as_asdf_1_0_0():
    draft = CORPUS / "legacy-draft" / "compressed.asdf"
    with fitsasdf.open(draft) as f:
        assert f.asdf_standard == "1.0.0"
        assert f.tags[""] == "tag:stsci.edu:asdf/core/asdf-1.0.0"
        assert f.tree["data"].shape == (128,)


def test_an_unknown_format_version_is_unsupported(tmp_path):
    path = tmp_path / "future.asdf"
    path.write_bytes(b"#ASDF 2.0.0\n%YAML 1.1\n--- {}\n...\n")
    with pytest.raises(fitsasdf.UnsupportedVersionError):
        fitsasdf.open(path)


def small_file(tmp_path, **kw):
    path = tmp_path / "small.asdf"
    fitsasdf.write(path, {"a": np.arange(1000, dtype="<i4")}, **kw)
    return path, path.read_bytes()


def test_truncated_file(tmp_path):
    cut = tmp_path / "cut.fits"
    cut.write_bytes((CORPUS / "fits-astropy" / "arange.fits").read_bytes()[:4000])
    with pytest.raises(fitsasdf.TruncatedError) as info:
        fitsasdf.convert(cut, tmp_path / "cut.asdf")
    assert info.value.hdu == 1 and info.value.file == str(cut)
    assert not (tmp_path / "cut.asdf").exists()


def test_malformed_tree(tmp_path):
    path = tmp_path / "bad.asdf"
    path.write_bytes(b"#ASDF 1.0.0\n#ASDF_STANDARD 1.5.0\n%YAML 1.1\n%TAG ! tag:stsci.edu:asdf/\n"
                     b"--- !core/asdf-1.1.0\n"
                     b"a: !core/ndarray-1.0.0 {source: 0, datatype: int99, shape: [2]}\n...\n")
    with pytest.raises(fitsasdf.MalformedError) as info:
        fitsasdf.open(path).array("/a")
    assert info.value.tree_path == "/a"


def test_checksum_mismatch(tmp_path):
    path, data = small_file(tmp_path)
    data = bytearray(data)
    data[data.index(b"\xd3BLK") + 6 + 48 + 10] ^= 0xFF  # a byte of the block's data
    path.write_bytes(bytes(data))
    with pytest.raises(fitsasdf.ChecksumError) as info:
        fitsasdf.open(path, verify_checksums=True)
    assert info.value.block == 0


def test_corrupt_compressed_block(tmp_path):
    path, data = small_file(tmp_path, compress="zlib", checksum="none")
    data = bytearray(data)
    start = data.index(b"\xd3BLK") + 6 + 48
    data[start + 2: start + 12] = b"\xff" * 10
    path.write_bytes(bytes(data))
    with pytest.raises(fitsasdf.CompressionError):
        fitsasdf.open(path).array("/a")


def test_limit(tmp_path):
    path, _ = small_file(tmp_path, compress="zlib")
    with pytest.raises(fitsasdf.LimitError):
        fitsasdf.open(path, max_memory=100).array("/a")


def test_not_found_and_wrong_type(tmp_path):
    path, _ = small_file(tmp_path)
    with fitsasdf.open(path) as f:
        with pytest.raises(fitsasdf.NotFoundError) as info:
            f.array("/missing")
        assert isinstance(info.value, KeyError)
        with pytest.raises(fitsasdf.WrongTypeError):
            f.array("/asdf_library")


def test_invalid_arguments(tmp_path):
    with pytest.raises(fitsasdf.InvalidArgumentError, match="compress"):
        fitsasdf.write(tmp_path / "x.asdf", {"a": np.zeros(3)}, compress="zip")
    with pytest.raises(fitsasdf.InvalidArgumentError, match="compression_level"):
        fitsasdf.write(tmp_path / "x.asdf", {"a": np.zeros(3)}, compress="zlib",
                       compression_level=42)
    with pytest.raises(fitsasdf.InvalidArgumentError, match="scaling"):
        fitsasdf.convert(CORPUS / "fits-astropy" / "arange.fits", tmp_path / "x.asdf",
                         scaling="cooked")
    with pytest.raises(TypeError, match="unexpected keyword"):
        fitsasdf._fitsasdf.write(tmp_path / "x.asdf", {}, colour="red")
    assert os.listdir(tmp_path) == []


def test_closed_file(tmp_path):
    path, _ = small_file(tmp_path)
    f = fitsasdf.open(path)
    f.close()
    with pytest.raises(ValueError, match="closed"):
        f.tree


def test_write_into_a_missing_folder_is_an_io_error(tmp_path):
    with pytest.raises(fitsasdf.IoError):
        fitsasdf.write(tmp_path / "no" / "such" / "x.asdf", {"a": 1})

