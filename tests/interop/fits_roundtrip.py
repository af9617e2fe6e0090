#!/usr/bin/python3
"""FITS files written back from ASDF, judged by astropy.

Usage:
  fits_roundtrip.py compare ORIGINAL WRITTEN [ORIGINAL WRITTEN ...]
  fits_roundtrip.py make-astropy DIR
  fits_roundtrip.py make-images DIR

compare: for each pair, print one JSON object {WRITTEN: record} with
  identical                 astropy.io.fits.FITSDiff(ORIGINAL, WRITTEN).identical
  identical_but_checksums   the same with CHECKSUM and DATASUM ignored
  report                    FITSDiff's report when not identical (cut to 3000 characters)
  byte_identical            the two files have the same bytes
  differing                 where the bytes differ: "HDU n card KEYWORD" for a header card,
                            "HDU n data" for the data unit, "length" when the sizes differ
  error                     what went wrong opening either file
make-astropy: write DIR/source.fits (a primary image with a HIERARCH card, a float image, a
  uint16 image, a binary table of int, text, float, logical and bit columns) and DIR/hdul.asdf,
  that HDUList written by python asdf with asdf-astropy (its `astropy/fits` tag, the table as an
  `astropy/table`); print the two paths.
make-images: write DIR/int16.fits, int32.fits, uint8.fits, uint16.fits (BZERO 32768) and
  float32.fits (one 60 x 70 noise image in an extension each, for fpack), and DIR/table.fits
  (a binary table of 1500 rows, for fpack -table), and DIR/edge_table.fits (see
  make_edge_table); print their paths.
Runs with Debian's /usr/bin/python3 (astropy 5.2.1, asdf 2.14, asdf-astropy).
"""

import json
import sys
import warnings

import numpy as np
from astropy.io import fits


def differing(a, b):
    """Where the bytes of two FITS files differ."""
    out = []
    with open(a, "rb") as f:
        x = f.read()
    with open(b, "rb") as f:
        y = f.read()
    if len(x) != len(y):
        out.append("length")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with fits.open(a) as hdul:
            spans = [(i + 1, h.fileinfo()) for i, h in enumerate(hdul)]
    n = min(len(x), len(y))
    for index, info in spans:
        head, data, span = info["hdrLoc"], info["datLoc"], info["datSpan"]
        for at in range(head, min(data, n), 80):
            if x[at:at + 80] != y[at:at + 80]:
                keyword = x[at:at + 8].decode("ascii", "replace").strip()
                out.append(f"HDU {index} card {keyword}")
        if x[data:min(data + span, n)] != y[data:min(data + span, n)]:
            out.append(f"HDU {index} data")
    return out


def compare(pairs):
    result = {}
    for original, written in pairs:
        rec = {}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                diff = fits.FITSDiff(original, written)
                rec["identical"] = diff.identical
                if not diff.identical:
                    rec["report"] = diff.report()[-3000:]
                rec["identical_but_checksums"] = fits.FITSDiff(
                    original, written, ignore_keywords=["CHECKSUM", "DATASUM"]).identical
            with open(original, "rb") as f:
                a = f.read()
            with open(written, "rb") as f:
                b = f.read()
            rec["byte_identical"] = a == b
            rec["differing"] = [] if a == b else differing(original, written)
        except Exception as e:  # noqa: BLE001 - reported to the test
            rec["error"] = f"{type(e).__name__}: {e}"
        result[written] = rec
    print(json.dumps(result))


def make_astropy(folder):
    import asdf

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        primary = fits.PrimaryHDU(np.arange(12, dtype=">i2").reshape(3, 4))
        primary.header["OBSERVER"] = ("Edwin Hubble", "who")
        primary.header["EXPTIME"] = 30.5
        primary.header["HIERARCH ESO DET CHIP NAME"] = "CCD-44"
        primary.header["COMMENT"] = "a comment"
        sci = fits.ImageHDU(np.linspace(0, 1, 6, dtype=">f4").reshape(2, 3), name="SCI")
        uns = fits.ImageHDU(np.array([0, 1, 65535], dtype="u2"), name="UNS")
        cols = [
            fits.Column(name="id", format="J", array=np.array([1, 2, 3])),
            fits.Column(name="name", format="10A", array=np.array(["x", "yy", "zzz"])),
            fits.Column(name="flux", format="E", unit="m", array=np.array([1.5, 2.5, 3.5])),
            fits.Column(name="ok", format="L", array=np.array([True, False, True])),
            fits.Column(name="bits", format="3X",
                        array=np.array([[1, 0, 1], [0, 0, 1], [1, 1, 1]], dtype=bool)),
        ]
        table = fits.BinTableHDU.from_columns(cols, name="TAB")
        source = f"{folder}/source.fits"
        fits.HDUList([primary, sci, uns, table]).writeto(source, overwrite=True)
        with fits.open(source) as hdul:
            target = f"{folder}/hdul.asdf"
            asdf.AsdfFile({"hdul": hdul}).write_to(target)
    print(source)
    print(target)


def make_edge_table(path):
    """A binary table with every in-place change FITS -> ASDF makes: unsigned columns of each
    size (TZERO), a signed byte column (B with TZERO = -128), logicals with undefined bytes (NUL
    and '?'), a variable-length column with its heap, and text."""
    r = np.arange(7)
    cols = [
        fits.Column(name="u16", format="I", bzero=32768, array=(r * 9000).astype(np.uint16)),
        fits.Column(name="u32", format="2J", bzero=2**31,
                    array=np.stack([r, r * 600000000], 1).astype(np.uint32)),
        fits.Column(name="u64", format="K", bzero=2**63,
                    array=r.astype(np.uint64) * np.uint64(2**61)),
        fits.Column(name="l", format="3L",
                    array=np.stack([r % 2 == 0, r % 3 == 0, r % 5 == 0], 1)),
        fits.Column(name="v", format="PJ()",
                    array=np.array([np.arange(i, dtype=np.int32) for i in r], dtype=object)),
        fits.Column(name="t", format="6A",
                    array=np.array([b"a", b"bb", b"", b"dddd", b"e", b"ffffff", b"g"])),
        fits.Column(name="b", format="B", array=(r * 30).astype(np.uint8)),
    ]
    table = fits.BinTableHDU.from_columns(cols, name="EDGE")
    fits.HDUList([fits.PrimaryHDU(), table]).writeto(path)
    data = bytearray(open(path, "rb").read())
    header = 2880  # the table's header starts after the primary header block
    end = data.index(b"END" + b" " * 77, header)
    # TZERO7 = -128 makes the byte column signed; END moves one card down (same block).
    data[end:end + 160] = b"TZERO7  =                 -128".ljust(80) + b"END".ljust(80)
    rows = 2880 * 2
    width = 2 + 8 + 8 + 3 + 8 + 6 + 1
    data[rows + 1 * width + 18] = 0       # an undefined logical
    data[rows + 3 * width + 20] = ord("?")  # an invalid one
    open(path, "wb").write(bytes(data))


def make_images(folder):
    rng = np.random.default_rng(1)
    noise = rng.normal(1000, 30, (60, 70))
    images = {
        "int16": noise.astype(">i2"),
        "int32": noise.astype(">i4"),
        "uint8": rng.integers(0, 200, (60, 70)).astype("u1"),
        "uint16": rng.integers(0, 65535, (60, 70)).astype("u2"),
        "float32": noise.astype(">f4"),
    }
    for name, data in images.items():
        path = f"{folder}/{name}.fits"
        fits.HDUList([fits.PrimaryHDU(), fits.ImageHDU(data, name="SCI")]).writeto(path)
        print(path)
    r = np.arange(1500)
    cols = [
        fits.Column(name="j", format="J", array=(r * 7 - 5000).astype(np.int32)),
        fits.Column(name="s", format="8A", array=np.array([b"r%d" % i for i in r])),
        fits.Column(name="d", format="2D", array=np.stack([r / 3.0, -r / 7.0], 1)),
        fits.Column(name="l", format="L", array=r % 3 == 0),
        fits.Column(name="ui", format="I", bzero=32768, array=(r + 60000).astype(np.uint16)),
    ]
    path = f"{folder}/table.fits"
    fits.BinTableHDU.from_columns(cols, name="CAT").writeto(path)
    print(path)
    path = f"{folder}/edge_table.fits"
    make_edge_table(path)
    print(path)


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "compare" and len(sys.argv) % 2 == 0:
        args = sys.argv[2:]
        compare(list(zip(args[0::2], args[1::2])))
    elif len(sys.argv) == 3 and sys.argv[1] == "make-astropy":
        make_astropy(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "make-images":
        make_images(sys.argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
