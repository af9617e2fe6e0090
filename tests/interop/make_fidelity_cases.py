#!/usr/bin/python3
"""Write FITS files of the kinds astropy reads and CFITSIO or a naive converter does not, for
tests/interop/fits_fidelity_test.cc (issue 21): headers whose mandatory keywords are out of the
standard's order, extensions of kinds the standard does not define, SIMPLE = F primaries,
zero-size images, and bytes after the last HDU. Each kind varies the keyword, the order, the
HDU's position and the container (gzip).

Usage: make_fidelity_cases.py OUTDIR
Prints one line per file: NAME, a tab, the finding codes `fitsasdf convert --json` must report
(comma-separated, in report order; "-" for none). Built byte by byte from the standard library
and numpy, so every run writes the same files. Runs with Debian's /usr/bin/python3.
"""

import gzip
import os
import sys

import numpy as np


def card(key, value=None, comment=""):
    """An 80-byte card: value None for a commentary card, a str given as it stands."""
    if value is None:
        text = key.ljust(8) + comment
    else:
        if isinstance(value, bool):
            v = ("T" if value else "F").rjust(20)
        elif isinstance(value, int):
            v = str(value).rjust(20)
        elif isinstance(value, float):
            v = repr(value).upper().rjust(20)
        elif value.startswith("'"):
            v = value.ljust(20)
        else:
            v = ("'" + value.ljust(8) + "'").ljust(20)
        text = key.ljust(8) + "= " + v + (" / " + comment if comment else "")
    assert len(text) <= 80, text
    return text.ljust(80).encode("ascii")


def header(cards):
    h = b"".join(cards) + b"END".ljust(80)
    return h + b" " * (-len(h) % 2880)


def padded(data, fill=b"\0"):
    return data + fill * (-len(data) % 2880)


def hdu(cards, data=b""):
    return header(cards) + padded(data)


def primary_empty():
    return hdu([card("SIMPLE", True), card("BITPIX", 8), card("NAXIS", 0), card("EXTEND", True)])


def image_ext(cards_after, data, name):
    return hdu(cards_after + [card("EXTNAME", name)], data)


CASES = []


def case(name, data, findings):
    CASES.append((name, data, findings))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    i16 = np.arange(12, dtype=">i2").reshape(3, 4)
    f32 = (np.arange(24, dtype=">f4") / 7).reshape(2, 3, 4)
    f64 = np.linspace(-2, 2, 6, dtype=">f8")

    # 1. Mandatory keywords where the standard does not put them (CFITSIO refuses these).
    case("order_bitpix_after_naxis.fits",
         hdu([card("SIMPLE", True), card("NAXIS", 2), card("BITPIX", 16), card("NAXIS1", 4),
              card("NAXIS2", 3), card("OBJECT", "sun")], i16.tobytes()),
         ["nonstandard-header"])
    case("order_naxisn_after_date.fits",
         hdu([card("SIMPLE", True), card("BITPIX", -32), card("NAXIS", 3),
              card("DATE", "1998-01-01"), card("NAXIS1", 4), card("TELESCOP", "SOHO"),
              card("NAXIS3", 2), card("NAXIS2", 3)], f32.tobytes()),
         ["nonstandard-header"])
    mef_order = (primary_empty()
                 + image_ext([card("XTENSION", "IMAGE"), card("NAXIS", 1), card("BITPIX", -64),
                              card("GCOUNT", 1), card("PCOUNT", 0), card("NAXIS1", 6)],
                             f64.tobytes(), "SCI"))
    case("order_extension.fits", mef_order, ["nonstandard-header"])
    rows = np.array([(1, 2.5), (2, -1.0), (3, 7.25)], dtype=[("n", ">i4"), ("x", ">f8")])
    table_order = hdu([card("XTENSION", "BINTABLE"), card("BITPIX", 8), card("NAXIS", 2),
                       card("PCOUNT", 0), card("NAXIS1", 12), card("GCOUNT", 1),
                       card("NAXIS2", 3), card("TFIELDS", 2), card("TTYPE1", "n"),
                       card("TFORM1", "J"), card("TTYPE2", "x"), card("TFORM2", "D")],
                      rows.tobytes())
    case("order_table_third.fits",
         primary_empty() + image_ext([card("XTENSION", "IMAGE"), card("BITPIX", 16),
                                      card("NAXIS", 2), card("NAXIS1", 4), card("NAXIS2", 3),
                                      card("PCOUNT", 0), card("GCOUNT", 1)], i16.tobytes(), "A")
         + table_order, ["nonstandard-header"])
    case("order_bitpix_after_naxis.fits.gz",
         gzip.compress(CASES[0][1], mtime=0), ["nonstandard-header"])

    # 3. Extensions of kinds the standard does not define: astropy reads their data as uint8.
    payload = bytes((i * 11 + 1) % 256 for i in range(100))
    foreign = hdu([card("XTENSION", "FOREIGN"), card("BITPIX", 8), card("NAXIS", 1),
                   card("NAXIS1", 100), card("PCOUNT", 0), card("GCOUNT", 1)], payload)
    case("foreign_second.fits", primary_empty() + foreign, ["foreign-extension"])
    dump = hdu([card("XTENSION", "DUMP"), card("BITPIX", 16), card("NAXIS", 2),
                card("NAXIS1", 5), card("NAXIS2", 3), card("PCOUNT", 4), card("GCOUNT", 1)],
               bytes(range(34)))
    case("foreign_dump_third.fits",
         primary_empty() + image_ext([card("XTENSION", "IMAGE"), card("BITPIX", -64),
                                      card("NAXIS", 1), card("NAXIS1", 6), card("PCOUNT", 0),
                                      card("GCOUNT", 1)], f64.tobytes(), "SCI") + dump,
         ["foreign-extension"])
    case("foreign_second.fits.gz", gzip.compress(primary_empty() + foreign, mtime=0),
         ["foreign-extension"])

    # 4. SIMPLE = F: every byte after the header is the data (astropy's _NonstandardHDU).
    simple_f = header([card("SIMPLE", False), card("BITPIX", 16), card("NAXIS", 1),
                       card("NAXIS1", 10), card("ORIGIN", "VAX")])
    case("simple_false_short.fits", simple_f + bytes(range(37)), ["simple-false"])
    case("simple_false_blocks.fits", simple_f + bytes(range(200)) * 29, ["simple-false"])
    case("simple_false_no_data.fits", simple_f, ["simple-false"])

    # 5. Zero-size images: a zero-size array of the header's shape and type.
    case("zero_primary.fits",
         hdu([card("SIMPLE", True), card("BITPIX", -32), card("NAXIS", 2),
              card("NAXIS1", 100000), card("NAXIS2", 0)]), [])
    case("zero_extension.fits",
         primary_empty()
         + image_ext([card("XTENSION", "IMAGE"), card("BITPIX", 16), card("NAXIS", 1),
                      card("NAXIS1", 0), card("PCOUNT", 0), card("GCOUNT", 1),
                      card("BZERO", 32768.0)], b"", "EMPTY")
         + image_ext([card("XTENSION", "IMAGE"), card("BITPIX", 16), card("NAXIS", 2),
                      card("NAXIS1", 4), card("NAXIS2", 3), card("PCOUNT", 0),
                      card("GCOUNT", 1)], i16.tobytes(), "SCI"), [])

    # 6. Bytes after the last HDU: kept and written back.
    image = hdu([card("SIMPLE", True), card("BITPIX", 16), card("NAXIS", 2), card("NAXIS1", 4),
                 card("NAXIS2", 3)], i16.tobytes())
    case("trailing_newline.fits", image + b"\n", ["bytes-after-last-hdu"])
    case("trailing_zeros.fits", image + bytes(1000), ["bytes-after-last-hdu"])
    case("trailing_text.fits", mef_order + b"appended by a tape archive, 1998\n",
         ["nonstandard-header", "bytes-after-last-hdu"])
    unpadded = image[:2880 + i16.nbytes]
    case("padding_missing.fits", unpadded, ["padding-cut-short"])
    case("padding_partial.fits", image[:2880 + i16.nbytes + 500], ["padding-cut-short"])
    case("trailing_zeros.fits.gz", gzip.compress(image + bytes(1000), mtime=0),
         ["bytes-after-last-hdu"])

    for name, data, findings in CASES:
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        # File-level findings come first in the report, then each HDU's.
        order = sorted(findings, key=lambda c: 0 if c in ("bytes-after-last-hdu",
                                                           "padding-cut-short") else 1)
        print(name + "\t" + (",".join(order) if order else "-"))


if __name__ == "__main__":
    main()
