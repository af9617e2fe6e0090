"""fitsasdf.write and python asdf, both ways: every dtype and byte order, compression, masks,
views sharing a block, and the Python scalars of a tree."""

import datetime
import warnings

import asdf
import numpy as np
import pytest

import fitsasdf

DTYPES = ["i1", "u1", "?", "<i2", ">i2", "<u2", ">u2", "<i4", ">i4", "<u4", ">u4", "<i8",
          ">i8", "<u8", ">u8", "<f4", ">f4", "<f8", ">f8", "<c8", ">c8", "<c16", ">c16",
          "S5", "<U3", ">U3",
          [("a", "<i4"), ("b", ">f8", (2,)), ("c", "S2"), ("d", "<U1")]]


def sample(dtype, shape=(3, 4)):
    """Values of `dtype` that differ from element to element (and are not all zero)."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype.names:
        a = np.zeros(n, dtype=dtype)
        for name in dtype.names:
            sub = dtype.fields[name][0]
            a[name] = sample(sub.base, (n,) + sub.shape).reshape(a[name].shape)
        return a.reshape(shape)
    if dtype.kind in "SU":
        return np.array([f"v{i}"[: dtype.itemsize // (4 if dtype.kind == "U" else 1)]
                         for i in range(n)], dtype=dtype).reshape(shape)
    if dtype.kind == "b":
        return (np.arange(n) % 3 == 0).reshape(shape)
    values = np.arange(n) * 3 + 1
    if dtype.kind == "c":
        values = values + 1j * (values - 2)
    return values.astype(dtype).reshape(shape)


def read_with_python_asdf(path):
    """Open `path` with python asdf, schema validation on and every warning an error; return
    the tree with every array loaded."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with asdf.open(path, validate_checksums=True, copy_arrays=True,
                       lazy_load=False) as af:
            return {k: (np.array(v) if hasattr(v, "dtype") and not np.isscalar(v) else v)
                    for k, v in af.tree.items()}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("compress", [None, "zlib", "bzp2", "lz4"])
def test_our_arrays_read_the_same_in_python_asdf(tmp_path, dtype, compress):
    a = sample(dtype)
    path = tmp_path / "ours.asdf"
    # python asdf 2.14 checks the MD5 of the decoded data (see convert's `checksum`).
    fitsasdf.write(path, {"x": a, "part": a[1:, ::2]}, compress=compress, checksum="decoded")
    tree = read_with_python_asdf(path)
    assert tree["x"].dtype == a.dtype
    assert np.array_equal(tree["x"], a)
    assert np.array_equal(tree["part"], a[1:, ::2])


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("compress", [None, "zlib", "bzp2", "lz4"])
def test_python_asdf_arrays_read_the_same_here(tmp_path, dtype, compress):
    a = sample(dtype)
    path = tmp_path / "theirs.asdf"
    af = asdf.AsdfFile({"x": a, "part": a[1:, ::2]})
    if compress and a.dtype.kind in "cSUV":
        # python asdf 2.14 cannot compress complex, string or record arrays (compression.py
        # hands numpy the buffer's format, "Zf", "s", "w", "T{...}"); our own compressed
        # blocks of these types are read back above.
        with pytest.raises(TypeError, match="not understood"):
            af.write_to(path, all_array_compression=compress)
        return
    af.write_to(path, all_array_compression=compress or "input")
    with fitsasdf.open(path, verify_checksums=True) as f:
        x = f.tree["x"]
        assert x.dtype == a.dtype
        assert np.array_equal(x, a)
        assert np.array_equal(f.tree["part"], a[1:, ::2])
        assert not x.flags.writeable


def test_float16_needs_standard_1_6(tmp_path):
    a = np.arange(6, dtype="<f2")
    with pytest.raises(fitsasdf.InvalidArgumentError, match="1.6.0"):
        fitsasdf.write(tmp_path / "f16.asdf", {"x": a})
    fitsasdf.write(tmp_path / "f16.asdf", {"x": a}, standard="1.6.0")
    with fitsasdf.open(tmp_path / "f16.asdf") as f:
        assert f.asdf_standard == "1.6.0"
        assert f.tree["x"].dtype == a.dtype and np.array_equal(f.tree["x"], a)


def test_masked_arrays_both_ways(tmp_path):
    m = np.ma.masked_array([1.0, 2.0, 3.0, 4.0], mask=[0, 1, 0, 1])
    fitsasdf.write(tmp_path / "m.asdf", {"m": m})
    theirs = asdf.open(tmp_path / "m.asdf")["m"]
    assert list(np.ma.getmaskarray(theirs)) == [False, True, False, True]
    asdf.AsdfFile({"m": m}).write_to(tmp_path / "m2.asdf")
    with fitsasdf.open(tmp_path / "m2.asdf") as f:
        ours = f.tree["m"]
        assert isinstance(ours, np.ma.MaskedArray)
        assert list(np.ma.getmaskarray(ours)) == [False, True, False, True]
        assert ours.compressed().tolist() == [1.0, 3.0]


def test_views_share_one_block(tmp_path):
    base = np.arange(100, dtype="<f8").reshape(10, 10)
    fitsasdf.write(tmp_path / "v.asdf", {"a": base, "b": base[2:5, ::3], "c": base[::-1]})
    with fitsasdf.open(tmp_path / "v.asdf") as f:
        assert np.shares_memory(f.tree["a"], f.tree["b"])
        assert np.array_equal(f.tree["c"], base[::-1])
    with asdf.open(tmp_path / "v.asdf") as af:
        assert len(af._blocks._internal_blocks) == 1
        assert np.array_equal(af["b"], base[2:5, ::3])


def test_padded_records_are_written_packed(tmp_path):
    aligned = np.dtype([("a", "u1"), ("b", "<f8")], align=True)
    a = np.zeros(3, dtype=aligned)
    a["a"] = [1, 2, 3]
    a["b"] = [0.5, 1.5, 2.5]
    fitsasdf.write(tmp_path / "r.asdf", {"r": a})
    theirs = read_with_python_asdf(tmp_path / "r.asdf")["r"]
    assert theirs.dtype.itemsize == 9
    assert theirs["a"].tolist() == [1, 2, 3] and theirs["b"].tolist() == [0.5, 1.5, 2.5]


SCALARS = {
    "int": 42, "negative": -7, "big": 2 ** 80 + 5, "float": 2.5, "nan_free": 1e300,
    "string": "héllo: world", "looks_like_number": "1.5", "empty": "", "true": True,
    "none": None, "binary": b"\x00\x01\xffabc", "complex": 1.5 - 2j,
    "when": datetime.datetime(2024, 3, 1, 12, 30, 0, 500000, tzinfo=datetime.timezone.utc),
    "local": datetime.datetime(2001, 12, 14, 21, 59, 43, 100000),
    "day": datetime.date(2002, 12, 14), "list": [1, "two", [3.0, None]],
    "nested": {"a": {"b": {"c": [True, False]}}}, 7: "an integer key",
}


def test_scalars_reach_python_asdf(tmp_path):
    fitsasdf.write(tmp_path / "s.asdf", dict(SCALARS))
    tree = read_with_python_asdf(tmp_path / "s.asdf")
    for key, value in SCALARS.items():
        assert tree[key] == value, key


def test_python_asdf_scalars_read_the_same_here(tmp_path):
    # python asdf refuses integers beyond 64 bits as plain values; it writes them as
    # core/integer when given its IntegerType.
    theirs = dict(SCALARS, big=asdf.tags.core.IntegerType(SCALARS["big"]))
    asdf.AsdfFile(theirs).write_to(tmp_path / "s.asdf")
    with fitsasdf.open(tmp_path / "s.asdf") as f:
        tree = f.tree
        for key, value in SCALARS.items():
            assert tree[key] == value, key
            assert type(tree[key]) is type(value), key


def test_one_object_twice_is_one_node(tmp_path):
    shared = {"k": [1, 2]}
    fitsasdf.write(tmp_path / "alias.asdf", {"x": shared, "y": shared})
    with asdf.open(tmp_path / "alias.asdf") as af:
        assert af["x"] is af["y"]
    with fitsasdf.open(tmp_path / "alias.asdf") as f:
        assert f.tree["x"] is f.tree["y"]


def test_tagged_values_keep_their_tags(tmp_path):
    tag = "tag:example.org:pipeline/step-1.0.0"
    tree = {"d": fitsasdf.TaggedDict({"q": 1}, tag=tag),
            "l": fitsasdf.TaggedList([1, 2], tag=tag),
            "s": fitsasdf.TaggedString("text", tag=tag),
            "n": fitsasdf.TaggedScalar(3, tag=tag)}
    fitsasdf.write(tmp_path / "t.asdf", tree)
    with fitsasdf.open(tmp_path / "t.asdf") as f:
        for key in tree:
            assert f.tags["/" + key] == tag
            assert f.tree[key].tag == tag
        assert f.tree["d"] == {"q": 1} and f.tree["l"] == [1, 2] and f.tree["s"] == "text"
        # YAML gives a scalar with an explicit tag its text (PyYAML and python asdf too).
        assert isinstance(f.tree["n"], fitsasdf.TaggedString) and f.tree["n"] == "3"
    with asdf.open(tmp_path / "t.asdf", _force_raw_types=True) as af:
        assert af.tree["d"]._tag == tag and af.tree["s"]._tag == tag


def test_values_that_cannot_be_written_are_named(tmp_path):
    with pytest.raises(fitsasdf.WrongTypeError, match="/a/0"):
        fitsasdf.write(tmp_path / "bad.asdf", {"a": [object()]})
    with pytest.raises(fitsasdf.InvalidArgumentError, match="/o"):
        fitsasdf.write(tmp_path / "bad.asdf", {"o": np.array([1, "x"], dtype=object)})
    loop = {}
    loop["self"] = loop
    with pytest.raises(fitsasdf.InvalidArgumentError, match="contains itself"):
        fitsasdf.write(tmp_path / "bad.asdf", loop)
    assert not (tmp_path / "bad.asdf").exists()
