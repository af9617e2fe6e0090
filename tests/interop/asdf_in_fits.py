"""ASDF-in-FITS cases for tests/interop/asdf_in_fits_test.cc, with python asdf 2.14 as reference.

  asdf_in_fits.py make DIR     write the cases (python asdf's AsdfInFits, both HDU forms) into DIR
                               and print their names as JSON
  asdf_in_fits.py make-plain DIR
                               write ASDF files without a fits list (arrays of many dtypes,
                               quantities, a table, scalar metadata) into DIR; print their names
  asdf_in_fits.py check-plain ORIGINAL.asdf OURS.fits
                               python asdf's AsdfInFits.open of OURS gives ORIGINAL's tree and
                               array values (every warning an error); astropy sees the images
                               with their EXTNAME, BUNIT and values; print {ok, arrays, hdus, error}
  asdf_in_fits.py compare-asdf A.asdf B.asdf
                               python asdf reads the same tree and array values from both
  asdf_in_fits.py check FITS ASDF [--no-checksums] [--warnings-allowed]
                               compare the tree and arrays python asdf reads from FITS (through
                               AsdfInFits.open) with those it reads from our ASDF (asdf.open,
                               validation on, checksums checked unless told not to: python asdf
                               2.14 checks compressed blocks against the MD5 of the decoded data,
                               the standard's is of the stored bytes; every warning an error);
                               (--warnings-allowed: for files python itself warns about);
                               print a JSON record {ok, arrays, error}
"""
import json
import sys
import warnings

import numpy as np


def make(folder):
    from astropy.io import fits
    from asdf import fits_embed

    names = []
    rng = np.random.default_rng(7)
    sci = rng.normal(size=(5, 6)).astype(np.float32)
    err = np.abs(rng.normal(size=(5, 6))).astype(np.float32)
    dq = rng.integers(0, 2**32, size=(5, 6), dtype=np.uint64).astype(np.uint32)  # JWST's DQ
    u16 = np.array([0, 1, 32767, 32768, 65535], dtype=np.uint16)
    scaled = fits.ImageHDU(np.array([1, 2, 3, -4], dtype=np.int16), name="SCALED")
    scaled.header["BSCALE"] = 0.5
    scaled.header["BZERO"] = 10.0
    for form in ("table", "image"):
        hdus = fits.HDUList([fits.PrimaryHDU(),
                             fits.ImageHDU(sci, name="SCI"),
                             fits.ImageHDU(err, name="ERR"),
                             fits.ImageHDU(dq, name="DQ"),
                             fits.ImageHDU(u16, name="U16", ver=2),
                             scaled])
        tree = {
            "meta": {"telescope": "JWST", "exposure": {"ngroups": 5, "time": 10.5},
                     "flags": [True, False], "note": None},
            "data": hdus["SCI"].data,
            "err": hdus["ERR"].data,
            "dq": hdus["DQ"].data,
            "u16": hdus[("U16", 2)].data,
            "scaled": hdus["SCALED"].data,
            "own": np.arange(7, dtype="<i8"),                 # a block of the embedded file
            "own_big": np.arange(4, dtype=">f8"),
        }
        name = f"embedded_{form}.fits"
        with fits_embed.AsdfInFits(hdus, tree) as aif:
            aif.write_to(f"{folder}/{name}", overwrite=True, use_image_hdu=(form == "image"))
        names.append(name)
    # A source that names no HDU of the file: the ASDF extension is edited by hand.
    hdus = fits.HDUList([fits.PrimaryHDU(), fits.ImageHDU(sci, name="SCI")])
    with fits_embed.AsdfInFits(hdus, {"data": hdus["SCI"].data}) as aif:
        aif.write_to(f"{folder}/dangling.fits", overwrite=True, use_image_hdu=True)
    with fits.open(f"{folder}/dangling.fits", mode="update") as f:
        raw = f["ASDF"].data.tobytes().replace(b"fits:SCI,1", b"fits:XYZ,1")
        f["ASDF"].data[:] = np.frombuffer(raw, dtype=np.uint8)
    names.append("dangling.fits")
    print(json.dumps(names))


def make_plain(folder):
    import asdf
    import astropy.units as u
    from astropy.table import Table

    rng = np.random.default_rng(11)
    table = Table({"id": np.arange(4, dtype=np.int32), "flux": rng.normal(size=4),
                   "name": np.array([b"a", b"bb", b"ccc", b"d"])})
    table["flux"].unit = u.Jy
    tree = {
        "meta": {"telescope": "JWST", "instrument": {"name": "NIRCAM", "detector": "NRCA1"},
                 "exptime": 12.5, "ngroups": 7, "calibrated": True,
                 "a_long_description": "not a FITS keyword name", "nothing": None},
        "science": rng.normal(size=(6, 5)).astype("<f4"),
        "error": np.abs(rng.normal(size=(6, 5))).astype(">f8"),
        "dq": rng.integers(0, 2**32, size=(6, 5), dtype=np.uint64).astype(np.uint32),
        "counts": np.arange(10, dtype=np.uint16).reshape(2, 5),
        "small": np.array([-128, 0, 127], dtype=np.int8),
        "big": np.array([0, 2**63, 2**64 - 1], dtype=np.uint64),
        "flux": u.Quantity(np.arange(3, dtype=np.float64), u.erg / u.s),
        "mask": np.array([True, False, True]),                    # bool: kept in ASDF
        "phase": np.array([1 + 2j, 3 - 1j], dtype=np.complex128),  # complex: kept in ASDF
        "labels": np.array(["x", "yz"]),                           # strings: kept in ASDF
        "empty": np.zeros((0, 3), dtype=np.float32),               # zero-size: kept in ASDF
        "view": None,
        "catalog": table,
        "nested": {"deeper": {"image": np.arange(8, dtype=np.int64).reshape(2, 2, 2)}},
    }
    base = np.arange(20, dtype=np.float64)
    tree["view"] = base[2:12:2]  # a strided view into another array's block
    tree["base"] = base
    af = asdf.AsdfFile(tree)
    af.write_to(f"{folder}/plain.asdf")
    print(json.dumps(["plain.asdf"]))


def same_value(path, w, g):
    """Compare one leaf of two trees; return 1 for an array or table, else 0."""
    if hasattr(w, "colnames"):  # an astropy Table
        if list(w.colnames) != list(g.colnames):
            raise AssertionError(f"{path}: columns {g.colnames} != {w.colnames}")
        for name in w.colnames:
            same_value(f"{path}/{name}", np.asarray(w[name]), np.asarray(g[name]))
            if w[name].unit != g[name].unit:
                raise AssertionError(f"{path}/{name}: unit {g[name].unit} != {w[name].unit}")
        return 1
    if hasattr(w, "unit") and hasattr(w, "value"):  # a quantity
        if w.unit != getattr(g, "unit", None):
            raise AssertionError(f"{path}: unit {getattr(g, 'unit', None)} != {w.unit}")
        return same_value(path, np.asarray(w.value), np.asarray(g.value))
    if hasattr(w, "dtype") and hasattr(w, "shape"):
        g = np.asarray(g)
        w = np.asarray(w)
        # Byte order may differ (astropy hands out native order for scaled data, we keep
        # FITS's big-endian where nothing is computed).
        if g.dtype.newbyteorder("<") != w.dtype.newbyteorder("<"):
            raise AssertionError(f"{path}: dtype {g.dtype} != {w.dtype}")
        if g.shape != w.shape or g.tobytes() != w.astype(g.dtype).tobytes():
            raise AssertionError(f"{path}: values differ")
        return 1
    if w != g:
        raise AssertionError(f"{path}: {g!r} != {w!r}")
    return 0


def same_tree(want_tree, got_tree):
    """Compare two python asdf trees leaf by leaf; return the arrays and tables compared."""
    want = dict(walk(want_tree))
    got = dict(walk(got_tree))
    if sorted(want) != sorted(got):
        raise AssertionError(f"tree paths differ: {sorted(want)} vs {sorted(got)}")
    return sum(same_value(p, w, got[p]) for p, w in want.items())


def print_outcome(run, warnings_allowed=False):
    """Run `run(out)` (warnings as errors unless allowed) and print `out` as JSON: "ok", the
    "arrays" compared, and the "error" that stopped it, if any (reported to the test)."""
    out = {"ok": False, "arrays": 0}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore" if warnings_allowed else "error")
            run(out)
        out["ok"] = True
    except Exception as e:  # reported to the test
        out["error"] = f"{type(e).__name__}: {e}"
    print(json.dumps(out))


def check_plain(asdf_path, fits_path):
    import asdf
    from asdf import fits_embed
    from astropy.io import fits

    def run(out):
        with asdf.open(asdf_path, lazy_load=False, copy_arrays=True) as ref, \
                fits_embed.AsdfInFits.open(fits_path) as ours:
            out["arrays"] = same_tree(ref.tree, ours.tree)
        with fits.open(fits_path) as f:
            out["hdus"] = [[h.name, h.header.get("BUNIT")] for h in f]
            if not np.array_equal(f["SCIENCE"].data, ref_science(asdf_path)):
                raise AssertionError("astropy's SCIENCE differs from the tree's science")

    print_outcome(run)


def compare_asdf(a_path, b_path):
    import asdf

    def run(out):
        with asdf.open(a_path, lazy_load=False, copy_arrays=True) as a, \
                asdf.open(b_path, lazy_load=False, copy_arrays=True) as b:
            out["arrays"] = same_tree(a.tree, b.tree)

    print_outcome(run)


def ref_science(asdf_path):
    import asdf
    with asdf.open(asdf_path, copy_arrays=True) as af:
        return np.array(af.tree["science"])


def walk(node, path=""):
    """Yield (path, leaf) for every leaf of a python asdf tree, arrays included."""
    if isinstance(node, dict):
        for k in sorted(node, key=str):
            if k in ("asdf_library", "history"):
                continue
            yield from walk(node[k], f"{path}/{k}")
    elif isinstance(node, (list, tuple)) and not hasattr(node, "dtype"):
        for i, v in enumerate(node):
            yield from walk(v, f"{path}/{i}")
    else:
        yield path, node


def check(fits_path, asdf_path, validate_checksums, warnings_allowed=False):
    import asdf
    from asdf import fits_embed

    def run(out):
        with fits_embed.AsdfInFits.open(fits_path) as ref, \
                asdf.open(asdf_path, lazy_load=False, copy_arrays=True,
                          validate_checksums=validate_checksums) as ours:
            out["arrays"] = same_tree(ref.tree, ours.tree)

    print_outcome(run, warnings_allowed)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    elif sys.argv[1] == "make-plain":
        make_plain(sys.argv[2])
    elif sys.argv[1] == "compare-asdf":
        compare_asdf(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "check-plain":
        check_plain(sys.argv[2], sys.argv[3])
    else:
        check(sys.argv[2], sys.argv[3], "--no-checksums" not in sys.argv[4:],
              "--warnings-allowed" in sys.argv[4:])
