"""Arrays of uncompressed blocks are views of the file's memory mapping: no copy, and no memory
until touched."""

import os

import numpy as np

import fitsasdf


def mapping_of(address):
    """Return the file mapped at `address` in this process (from /proc/self/maps), or None."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            start, end = (int(x, 16) for x in fields[0].split("-"))
            if start <= address < end:
                return fields[5] if len(fields) > 5 else None
    return None


def resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_uncompressed_arrays_lie_in_the_file_mapping(tmp_path):
    path = tmp_path / "plain.asdf"
    fitsasdf.write(path, {"a": np.arange(4096, dtype="<f8"), "z": np.ones(64, dtype=">i4")},
                   compress=None)
    with fitsasdf.open(path) as f:
        for key in ("a", "z"):
            array = f.tree[key]
            assert mapping_of(array.ctypes.data) == str(path), key
            assert not array.flags.writeable and not array.flags.owndata


def test_compressed_arrays_are_decoded_into_memory(tmp_path):
    path = tmp_path / "zlib.asdf"
    fitsasdf.write(path, {"a": np.arange(4096, dtype="<f8")}, compress="zlib")
    with fitsasdf.open(path) as f:
        array = f.tree["a"]
        assert mapping_of(array.ctypes.data) != str(path)
        assert np.array_equal(array, np.arange(4096))
        assert f.tree["a"] is array  # the tree is built once: the array is not decoded again


def test_arrays_outlive_the_file_object(tmp_path):
    path = tmp_path / "keep.asdf"
    fitsasdf.write(path, {"a": np.arange(10, dtype="<i8")})
    f = fitsasdf.open(path)
    array = f.tree["a"]
    f.close()
    del f
    assert array.sum() == 45


def test_a_1_gib_array_costs_no_memory_until_touched(tmp_path):
    path = tmp_path / "big.asdf"
    gib = 1 << 30
    zeros = np.zeros(gib // 8, dtype="<f8")  # calloc'ed: the pages exist only when written
    fitsasdf.write(path, {"big": zeros}, checksum="none", durable=False)
    del zeros
    before = resident_bytes()
    with fitsasdf.open(path) as f:
        big = f.tree["big"]
        assert big.nbytes == gib
        assert resident_bytes() - before < 64 << 20
        step = 16 << 20  # touch one page in each 16 MiB: only those pages come in
        assert float(big.reshape(-1)[:: step // 8].sum()) == 0.0
        assert resident_bytes() - before < 128 << 20
        assert float(big.sum()) == 0.0  # touched: now it is resident
        assert resident_bytes() - before > gib // 2
