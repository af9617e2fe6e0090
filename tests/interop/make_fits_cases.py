#!/usr/bin/python3
"""Write the generated FITS image cases of the FITS-to-ASDF tests into a folder, with astropy.

Usage: make_fits_cases.py FOLDER

Cases: every BITPIX (8, 16, 32, 64, -32, -64) x 0 to 4 axes; unsigned integers through BZERO
(uint16, uint32, uint64, int8); BSCALE/BZERO scaling; BLANK; NaN payloads; empty extensions;
long strings (CONTINUE), HIERARCH keywords, commentary cards, duplicated keywords; BUNIT units
(FITS-valid and not). Prints the list of file names written, one per line. Deterministic.
"""

import sys
import warnings

import numpy as np
from astropy.io import fits
from astropy.io.fits.verify import VerifyWarning

warnings.simplefilter("ignore", VerifyWarning)


def data_for(bitpix, shape, rng):
    kind = {8: "u1", 16: ">i2", 32: ">i4", 64: ">i8", -32: ">f4", -64: ">f8"}[bitpix]
    if bitpix > 0:
        info = np.iinfo(np.dtype(kind))
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=np.dtype(kind).newbyteorder("="))\
            .astype(kind)
    return rng.standard_normal(size=shape).astype(kind)


def main(folder):
    rng = np.random.default_rng(12345)
    written = []

    def save(name, hdul):
        hdul.writeto(f"{folder}/{name}", overwrite=True, output_verify="silentfix")
        written.append(name)

    shapes = {0: None, 1: (7,), 2: (3, 5), 3: (2, 3, 4), 4: (2, 1, 3, 2)}
    for bitpix in (8, 16, 32, 64, -32, -64):
        for naxis, shape in shapes.items():
            data = None if shape is None else data_for(bitpix, shape, rng)
            hdu = fits.PrimaryHDU(data)
            if data is None:
                hdu.header["BITPIX"] = bitpix
            save(f"bitpix{bitpix}_naxis{naxis}.fits", fits.HDUList([hdu]))

    # Unsigned integers the FITS way (astropy writes BZERO offsets for unsigned arrays).
    for dt in ("u2", "u4", "u8"):
        a = np.arange(12, dtype=dt).reshape(3, 4) + np.iinfo(dt).max - 20
        save(f"unsigned_{dt}.fits", fits.HDUList([fits.PrimaryHDU(a)]))
    h = fits.PrimaryHDU(np.arange(-5, 5, dtype="i1"))
    save("signed_int8.fits", fits.HDUList([h]))

    # Scaled integers (raw ints + cards), with BLANK.
    h = fits.PrimaryHDU(np.arange(20, dtype=">i2").reshape(4, 5))
    h.header["BSCALE"] = 0.5
    h.header["BZERO"] = 100.0
    h.header["BLANK"] = 7
    h.header["BUNIT"] = "Jy"
    save("scaled_blank_i2.fits", fits.HDUList([h]))
    h = fits.PrimaryHDU(np.arange(10, dtype=">i4"))
    h.header["BLANK"] = -1
    save("blank_i4.fits", fits.HDUList([h]))

    # NaN payloads survive bit for bit.
    raw = np.array([0x7FC00001, 0xFFC00000, 0x7F800001, 0x3F800000], dtype=">u4").view(">f4")
    save("nan_payloads.fits", fits.HDUList([fits.PrimaryHDU(raw)]))

    # Multi-extension files with names, versions, units and an empty extension.
    sci = fits.ImageHDU(np.ones((3, 4), dtype=">f4"), name="SCI")
    sci.header["EXTVER"] = 1
    sci.header["BUNIT"] = "erg/s/cm2/Angstrom"
    err = fits.ImageHDU(np.ones((3, 4), dtype=">f4") * 0.1, name="ERR")
    err.header["BUNIT"] = "DN/s"
    dq = fits.ImageHDU(np.zeros((3, 4), dtype=">i2"), name="DQ")
    save("mef_units.fits", fits.HDUList([fits.PrimaryHDU(), sci, err, dq]))
    save("mef_empty_ext.fits", fits.HDUList([fits.PrimaryHDU(np.zeros(3, ">f8")), fits.ImageHDU(name="EMPTY")]))

    # Header oddities.
    h = fits.PrimaryHDU(np.arange(4, dtype=">i2"))
    hdr = h.header
    hdr["LONGSTR"] = "x" * 150 + " end of a long string"
    hdr["HIERARCH ESO DET CHIP NAME"] = "CCD-44"
    hdr["HIERARCH ESO TEL ALT"] = 45.5
    hdr["COMMENT"] = "first comment"
    hdr["HISTORY"] = "step one"
    hdr.append(("HISTORY", "step two"))
    hdr.append(("DUPKEY", 1, "first"))
    hdr.append(("DUPKEY", 2, "second"), useblanks=False, bottom=True)
    hdr["EMPTYSTR"] = ""
    hdr["ZEROVAL"] = (0, "a falsy value with a comment")
    hdr["FALSEVAL"] = False
    hdr["FLOATD"] = 1.5e-300
    hdr["BIGINT"] = 123456789012345
    hdr["QUOTE"] = "it's"
    hdr.append(("", "a blank-keyword commentary card"), bottom=True)
    save("header_oddities.fits", fits.HDUList([h]))

    print("\n".join(written))


if __name__ == "__main__":
    main(sys.argv[1])
