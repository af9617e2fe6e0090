"""Edge cases for tests/interop/asdf_corpus_roundtrip_test.cc (ASDF -> FITS -> ASDF), written
by python asdf 2.14 or, where python asdf cannot write the form, byte by byte as the ASDF
Standard lays it out.

  asdf_roundtrip_cases.py make DIR
                     write the cases into DIR and print {name: what it holds} as JSON
  asdf_roundtrip_cases.py check ORIGINAL.asdf OURS.fits [ORIGINAL.asdf OURS.fits ...]
                     for each pair: python asdf's AsdfInFits.open of OURS gives ORIGINAL's tree
                     and array values (masks included; every warning an error but python's own
                     "no schema for core/ndarray-1.1.0", which it gives for ORIGINAL too); print
                     {ORIGINAL: {ok, arrays, error}} as JSON
"""
import hashlib
import json
import os
import struct
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def block(data, compression=b"\0\0\0\0"):
    """One ASDF block: magic, header size 48, flags, compression, sizes, checksum, data."""
    header = struct.pack(">HI4sQQQ16s", 48, 0, compression, len(data), len(data), len(data),
                         hashlib.md5(data).digest())
    return b"\xd3BLK" + header + data


def raw_asdf(path, yaml_body, blocks=(), standard="1.5.0"):
    """Write an ASDF file whose tree is `yaml_body` (after the document start) and `blocks`."""
    text = (f"#ASDF 1.0.0\n#ASDF_STANDARD {standard}\n%YAML 1.1\n"
            "%TAG ! tag:stsci.edu:asdf/\n--- !core/asdf-1.1.0\n" + yaml_body + "...\n")
    with open(path, "wb") as f:
        f.write(text.encode())
        for b in blocks:
            f.write(block(b))


def make(folder):
    import asdf
    import astropy.units as u
    from astropy.table import Table

    cases = {}

    def write(name, tree, what, **kwargs):
        asdf.AsdfFile(tree).write_to(os.path.join(folder, name), **kwargs)
        cases[name] = what

    rng = np.random.default_rng(5)
    shared = np.arange(12, dtype=np.float32).reshape(3, 4)
    write("anchored.asdf", {"a": shared, "b": shared, "deeper": {"c": shared}},
          "one array reached at three paths (YAML anchor and aliases)")
    base = np.arange(24, dtype=">i4")
    write("views.asdf", {"base": base, "every_other": base[1:20:2],
                         "reversed": base[::-1], "grid": base.reshape(4, 6)[:, 1:4]},
          "views sharing one block: offset, strides, negative strides")
    write("masked.asdf", {"masked": np.ma.array([1.0, 2.0, 3.0, 4.0], mask=[0, 1, 0, 1]),
                          "masked_int": np.ma.array(np.arange(6, dtype=np.int16).reshape(2, 3),
                                                    mask=[[1, 0, 0], [0, 0, 1]])},
          "masked arrays with mask arrays")
    write("dtypes.asdf", {
        "big": np.arange(5, dtype=">f8"), "little": np.arange(5, dtype="<u2"),
        "int8": np.array([-128, 0, 127], dtype=np.int8),
        "uint64": np.array([0, 2**63, 2**64 - 1], dtype=np.uint64),
        "bool": np.array([True, False]), "complex": np.array([1 + 2j], dtype=">c8"),
        "ucs4": np.array(["ab", "\u00e9t\u00e9"]), "ascii": np.array([b"x", b"yz"]),
        "records": np.array([(1, 2.5, b"a")], dtype=[("i", ">i2"), ("f", "<f8"), ("s", "S3")]),
        "zero_size": np.zeros((0, 4), dtype=np.float32), "zero_d": np.array(3.5),
        "zero_d_int": np.array(7, dtype=np.int32)},
          "big- and little-endian, unsigned, bool, complex, strings, records, zero-size, 0-d")
    for codec in ("zlib", "bzp2", "lz4"):
        write(f"compressed_{codec}.asdf",
              {"data": np.arange(100, dtype=np.int64), "other": np.ones((3, 3))},
              f"{codec} blocks", all_array_compression=codec)
    write("inline.asdf", {"ints": np.arange(4, dtype=np.int32), "floats": np.array([1.5, 2.5]),
                          "strings": np.array(["a", "bc"])},
          "every array inline", all_array_storage="inline")
    stream = asdf.AsdfFile({"head": np.arange(3, dtype=np.uint8),
                            "stream": asdf.Stream([4], np.float64)})
    with open(os.path.join(folder, "streamed.asdf"), "wb") as f:
        stream.write_to(f)
        for i in range(3):
            f.write(np.full(4, i, dtype=np.float64).tobytes())
    cases["streamed.asdf"] = "a streamed block with rows appended"
    os.makedirs(os.path.join(folder, "exploded"), exist_ok=True)
    asdf.AsdfFile({"data": np.arange(6, dtype=np.int16),
                   "more": np.arange(3, dtype=np.float64)}).write_to(
        os.path.join(folder, "exploded", "exploded.asdf"), all_array_storage="external")
    cases["exploded/exploded.asdf"] = "every array in its own external file"
    write("odd_keys.asdf", {
        "a": {"b": np.arange(2, dtype=np.int16)}, "a.b": np.arange(3, dtype=np.int16),
        "A": {"B": np.arange(4, dtype=np.int16)}, "asdf": np.arange(5, dtype=np.int16),
        "primary": np.arange(6, dtype=np.int16), "with/slash": np.arange(7, dtype=np.int16),
        "tilde~key": np.arange(8, dtype=np.int16), "x,y": np.arange(9, dtype=np.int16),
        "quote'd and spaced": np.arange(10, dtype=np.int16),
        "w\u00e9ird": np.arange(11, dtype=np.int16), "list": [np.arange(2, dtype=np.uint8), 5],
        "n" * 90: {"m" * 40: np.arange(12, dtype=np.int16)},
        "meta": {"exptime": 1.5, "object": "M31 'the' galaxy", "ngroups": 3, "flag": True,
                 "bitpix": 99, "naxis": 4, "note": None, "nan": float("nan")}},
          "EXTNAME clashes and keys with odd characters; scalars named like FITS keywords")
    table = Table({"id": np.arange(3, dtype=np.int32), "flux": np.array([1.0, 2.0, 3.0]),
                   "name": np.array(["x", "y", "z"])})
    table["flux"].unit = u.Jy
    write("table.asdf", {"table": table, "quantity": u.Quantity(np.arange(3.0), u.m),
                         "id_column": table["id"].data}, "an astropy table and a quantity")

    # Forms python asdf 2.14 does not write, byte by byte.
    data = np.arange(6, dtype="<i4").tobytes()
    raw_asdf(os.path.join(folder, "mask_value.asdf"),
             "valued: !core/ndarray-1.0.0\n  source: 0\n  datatype: int32\n"
             "  byteorder: little\n  shape: [6]\n  mask: 3\n"
             "inline_valued: !core/ndarray-1.0.0 {data: [1.0, 2.0, 9.0], mask: 9.0}\n"
             "inline_nulls: !core/ndarray-1.0.0 {data: [1, null, 3], datatype: int64}\n"
             "short_form: !core/ndarray-1.0.0 [[1, 2], [3, 4]]\n", [data])
    cases["mask_value.asdf"] = "mask values (block and inline), inline nulls, the list form"
    raw_asdf(os.path.join(folder, "refs.asdf"),
             "data: !core/ndarray-1.0.0\n  source: 0\n  datatype: int32\n"
             "  byteorder: little\n  shape: [6]\n"
             "again: {$ref: '#/data'}\n"
             "meta: {name: one}\nmeta_ref: {$ref: '#/meta'}\n", [data])
    cases["refs.asdf"] = "JSON references to an array and to a mapping"
    raw_asdf(os.path.join(folder, "ndarray_1_1.asdf"),
             "data: !core/ndarray-1.1.0\n  source: 0\n  datatype: int32\n"
             "  byteorder: little\n  shape: [2, 3]\n"
             "text: !core/ndarray-1.1.0\n  data: [abc, de]\n  datatype: [ucs4, 3]\n",
             [data], standard="1.6.0")
    cases["ndarray_1_1.asdf"] = "core/ndarray-1.1.0 tags (ASDF Standard 1.6.0)"
    raw_asdf(os.path.join(folder, "masked_alias.asdf"),
             "mask: &m !core/ndarray-1.0.0\n  source: 1\n  datatype: bool8\n"
             "  byteorder: big\n  shape: [6]\n"
             "data: !core/ndarray-1.0.0\n  source: 0\n  datatype: int32\n"
             "  byteorder: little\n  shape: [6]\n  mask: *m\n",
             [data, bytes([0, 1, 0, 0, 1, 0])])
    cases["masked_alias.asdf"] = "a mask array that is also an array of the tree (anchor)"
    raw_asdf(os.path.join(folder, "table_alias.asdf"),
             "first: &c0 !core/ndarray-1.0.0\n  {source: 0, datatype: int32, byteorder: little,"
             " shape: [6]}\n"
             "table: !core/table-1.0.0\n  columns:\n"
             "  - !core/column-1.0.0\n    data: *c0\n    name: a\n"
             "  - !core/column-1.0.0\n    data: &c1 !core/ndarray-1.0.0\n"
             "      {source: 1, datatype: float64, byteorder: big, shape: [6]}\n    name: b\n"
             "last: *c1\n", [data, np.arange(6, dtype=">f8").tobytes()])
    cases["table_alias.asdf"] = "table columns that are also arrays of the tree (anchors)"
    raw_asdf(os.path.join(folder, "truncated.asdf"),
             "data: !core/ndarray-1.0.0\n  source: 0\n  datatype: int32\n"
             "  byteorder: little\n  shape: [6]\n", [data])
    with open(os.path.join(folder, "truncated.asdf"), "r+b") as f:
        f.truncate(os.path.getsize(os.path.join(folder, "truncated.asdf")) - 10)
    cases["truncated.asdf"] = "a block cut short: python asdf and we refuse it"

    from astropy.io import fits
    hdul = fits.HDUList([
        fits.PrimaryHDU(np.arange(6, dtype=np.int16).reshape(2, 3)),
        fits.ImageHDU(np.arange(4.0), name="SCI"),
        fits.BinTableHDU.from_columns([fits.Column(name="a", format="J", array=np.arange(3))],
                                      name="TAB")])
    hdul[0].header["OBSERVER"] = "me"
    write("fits_list.asdf", {"hdul": hdul, "meta": {"x": 1}},
          "asdf-astropy's HDUList (a fits list) beside other content")
    print(json.dumps(cases))


def check(pairs):
    out = {}
    for asdf_path, fits_path in zip(pairs[::2], pairs[1::2]):
        out[asdf_path] = check_one(asdf_path, fits_path)
    print(json.dumps(out))


def check_one(asdf_path, fits_path):
    import asdf
    from asdf import fits_embed
    from asdf_in_fits import same_value, walk

    out = {"ok": False, "arrays": 0}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            warnings.filterwarnings(
                "ignore", message="Unable to locate schema file for "
                "'tag:stsci.edu:asdf/core/ndarray-1.1.0'")
            with asdf.open(asdf_path, lazy_load=False, copy_arrays=True) as ref, \
                    fits_embed.AsdfInFits.open(fits_path) as ours:
                ref.resolve_references()  # JSON references compared by what they point at
                ours.resolve_references()
                want = dict(walk(ref.tree))
                got = dict(walk(ours.tree))
                if sorted(want) != sorted(got):
                    raise AssertionError(f"tree paths differ: {sorted(want)} vs {sorted(got)}")
                for p, w in want.items():
                    g = got[p]
                    if isinstance(w, np.ma.MaskedArray):
                        if not isinstance(g, np.ma.MaskedArray) or \
                                not np.array_equal(np.ma.getmaskarray(w), np.ma.getmaskarray(g)):
                            raise AssertionError(f"{p}: masks differ")
                    if isinstance(w, float) and w != w:
                        if not (isinstance(g, float) and g != g):
                            raise AssertionError(f"{p}: {g!r} != nan")
                        continue
                    out["arrays"] += same_value(p, w, g)
        out["ok"] = True
    except Exception as e:  # reported to the test
        out["error"] = f"{type(e).__name__}: {e}"
    return out


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    elif sys.argv[1] == "check":
        check(sys.argv[2:])
    else:
        sys.exit(f"unknown command {sys.argv[1]}")
