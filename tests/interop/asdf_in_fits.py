"""ASDF-in-FITS cases for tests/interop/asdf_in_fits_test.cc, with python asdf 2.14 as reference.

  asdf_in_fits.py make DIR     write the cases (python asdf's AsdfInFits, both HDU forms) into DIR
                               and print their names as JSON
  asdf_in_fits.py check FITS ASDF [--no-checksums]
                               compare the tree and arrays python asdf reads from FITS (through
                               AsdfInFits.open) with those it reads from our ASDF (asdf.open,
                               validation on, checksums checked unless told not to: python asdf
                               2.14 checks compressed blocks against the MD5 of the decoded data,
                               the standard's is of the stored bytes; every warning an error);
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


def walk(node, path=""):
    """Yield (path, leaf) for every leaf of a python asdf tree, arrays included."""
    if isinstance(node, dict):
        for k in sorted(node, key=str):
            if k in ("asdf_library", "history"):
                continue
            yield from walk(node[k], f"{path}/{k}")
    elif isinstance(node, (list, tuple)):
        for i, v in enumerate(node):
            yield from walk(v, f"{path}/{i}")
    else:
        yield path, node


def check(fits_path, asdf_path, validate_checksums):
    import asdf
    from asdf import fits_embed

    out = {"ok": False, "arrays": 0}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with fits_embed.AsdfInFits.open(fits_path) as ref, \
                    asdf.open(asdf_path, lazy_load=False, copy_arrays=True,
                              validate_checksums=validate_checksums) as ours:
                want = dict(walk(ref.tree))
                got = dict(walk(ours.tree))
                if sorted(want) != sorted(got):
                    raise AssertionError(f"tree paths differ: {sorted(want)} vs {sorted(got)}")
                for p, w in want.items():
                    g = got[p]
                    if hasattr(w, "dtype") and hasattr(w, "shape"):
                        g = np.asarray(g)
                        w = np.asarray(w)
                        # Byte order may differ (astropy hands out native order for scaled
                        # data, we keep FITS's big-endian where nothing is computed).
                        if g.dtype.newbyteorder("<") != w.dtype.newbyteorder("<"):
                            raise AssertionError(f"{p}: dtype {g.dtype} != {w.dtype}")
                        if g.shape != w.shape or g.tobytes() != w.astype(g.dtype).tobytes():
                            raise AssertionError(f"{p}: values differ")
                        out["arrays"] += 1
                    elif w != g:
                        raise AssertionError(f"{p}: {g!r} != {w!r}")
        out["ok"] = True
    except Exception as e:  # reported to the test
        out["error"] = f"{type(e).__name__}: {e}"
    print(json.dumps(out))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3], "--no-checksums" not in sys.argv[4:])
