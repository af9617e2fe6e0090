#!/usr/bin/python3
"""What astropy says about FITS files, for the `fitsasdf info` interop test.

Usage: fits_info.py make FOLDER     write the extra cases (printed one per line)
       fits_info.py describe FILE...  print {"FILE": {"info": [...], "header": "..."}} as JSON

`info` is `fits.open(FILE).info(output=False)`: one list per HDU (No., name, ver, type, cards,
dimensions, format, extra), dimensions a list for a tuple. `header` is what `fitsheader FILE`
prints (astropy.io.fits.scripts.fitsheader). The extra cases are the HDU kinds and headers the
corpus lacks: tile-compressed images with checksums, blank cards, quantized floats, the default
name, a compressed primary (fpack); unsigned and scaled images of every width; zero-size images;
an ASDF extension.
"""

import contextlib
import io
import json
import os
import subprocess
import sys
import warnings

import numpy as np
from astropy.io import fits
from astropy.io.fits.scripts import fitsheader

warnings.simplefilter("ignore")


def make(folder):
    os.makedirs(folder, exist_ok=True)
    names = []

    def save(name, hdus, **kwargs):
        path = os.path.join(folder, name)
        fits.HDUList(hdus).writeto(path, overwrite=True, **kwargs)
        names.append(path)

    i16 = np.arange(300, dtype=">i2").reshape(15, 20)
    f32 = (np.arange(400, dtype=">f4") / 7).reshape(20, 20)

    h = fits.Header()
    h["OBSERVER"] = ("someone", "who")
    h["COMMENT"] = "a comment card"
    h.append()
    h.append()
    save("comp_checksum.fits",
         [fits.PrimaryHDU(), fits.CompImageHDU(i16, header=h, name="SCI", ver=2)], checksum=True)
    save("comp_default_name.fits", [fits.PrimaryHDU(), fits.CompImageHDU(i16)])
    save("comp_float_quantized.fits",
         [fits.PrimaryHDU(), fits.CompImageHDU(f32, name="FLT", quantize_level=16,
                                               quantize_method=2, compression_type="GZIP_1")])
    save("comp_hcompress.fits",
         [fits.PrimaryHDU(), fits.CompImageHDU(i16, compression_type="HCOMPRESS_1")])

    # fpack of a primary image: ZSIMPLE, ZEXTEND, the primary's own cards in the table.
    plain = os.path.join(folder, "fpack_primary.fits")
    ph = fits.PrimaryHDU(i16)
    ph.header["OBJECT"] = "M31"
    ph.header["HISTORY"] = "made for the info test"
    fits.HDUList([ph]).writeto(plain, overwrite=True, checksum=True)
    subprocess.run(["fpack", "-F", plain], check=True)
    names.append(plain)

    scaled = []
    for bitpix, bzero in ((8, -128), (16, 32768), (32, 2**31), (64, 2**63)):
        a = fits.ImageHDU(np.zeros((2, 3), dtype={8: "u1", 16: ">i2", 32: ">i4", 64: ">i8"}[bitpix]),
                          name=f"U{bitpix}")
        a.header["BZERO"] = bzero
        a.header["BSCALE"] = 1
        scaled.append(a)
    f = fits.ImageHDU(np.zeros((4,), dtype=">i4"), name="SCALED32")
    f.header["BSCALE"] = 0.5
    scaled.append(f)
    f = fits.ImageHDU(np.zeros((4,), dtype=">f4"), name="FLOATZERO")
    f.header["BZERO"] = 3.0
    scaled.append(f)
    z = fits.ImageHDU(name="ZEROSIZE")
    z.header["NAXIS"] = 2
    z.header["NAXIS1"] = 0
    z.header["NAXIS2"] = 5
    scaled.append(z)
    save("scaled_images.fits", [fits.PrimaryHDU()] + scaled)

    # An ASDF extension as JWST writes it: a one-row table with the ASDF file's bytes.
    blob = np.frombuffer(b"#ASDF 1.0.0\n#ASDF_STANDARD 1.5.0\n%YAML 1.1\n--- {}\n...\n",
                         dtype=np.uint8)
    col = fits.Column(name="ASDF_METADATA", format=f"{blob.size}B", array=blob[None, :])
    asdf = fits.BinTableHDU.from_columns([col], name="ASDF")
    save("asdf_in_fits.fits", [fits.PrimaryHDU(), fits.ImageHDU(i16, name="SCI"), asdf])

    long_text = "a long string " * 12
    t = fits.BinTableHDU.from_columns(
        [fits.Column(name="x", format="J", array=np.arange(3)),
         fits.Column(name="s", format="5A", array=["a", "b", "c"])], name="LONG")
    t.header["LONGSTR"] = long_text
    t.header["HIERARCH ESO DET CHIP NAME"] = "chip"
    save("long_cards.fits", [fits.PrimaryHDU(), t])

    for name in names:
        print(name)


def describe(paths):
    out = {}
    for path in paths:
        with fits.open(path) as hdul:
            rows = []
            for row in hdul.info(output=False):
                row = list(row)
                if isinstance(row[5], tuple):
                    row[5] = list(row[5])
                rows.append(row)
        text = io.StringIO()
        with contextlib.redirect_stdout(text):
            fitsheader.main([path])
        out[path] = {"info": rows, "header": text.getvalue()}
    json.dump(out, sys.stdout, default=str)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        describe(sys.argv[2:])
