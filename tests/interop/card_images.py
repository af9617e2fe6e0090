#!/usr/bin/python3
"""Card images astropy writes for new cards, for the card-format interop test.

Usage: card_images.py OUT.asdf

Writes an ASDF file whose tree holds `cards`: a list of [keyword, value, comment,
images], where images is what astropy 5.2.1 writes for `fits.Card(keyword, value, comment)`
(`Card.image`; several 80-byte images for a long string or long commentary text). The cases are
generated from a fixed seed: standard, lower-case, HIERARCH and record-valued keywords; logical,
integer (also beyond 64 bits), real, complex, string and undefined values; commentary cards;
comments of every length, so that the fixed format, the compact one, CONTINUE cards and cut
comments all occur.

Where fitsasdf means to differ from astropy (fits::format_card says so), the expected images
are still astropy's, from the rule fitsasdf follows instead:
- a logical, number or complex whose card is too long with its comment: astropy keeps the
  padding to column 30 and cuts the comment; fitsasdf first drops the padding, so the expected
  image is astropy's keyword and value text, unpadded, then " / " and the comment, cut at 80;
- a string whose card is too long with its comment: astropy cuts the comment; fitsasdf writes
  CONTINUE cards, which are what astropy writes for a longer string (`Card._format_long_image`).
Reals are generated so that their %.16G text reads back as the same double and fits the 20
columns of a fixed-format value: astropy cuts a longer one's digits, fitsasdf keeps them all.
"""

import random
import sys
import warnings

import yaml
from astropy.io import fits

warnings.simplefilter("ignore")

WORDS = ["flux", "exposure", "time", "of", "the", "detector", "readout", "mode", "A", "B",
         "it's", "'quoted'", "x" * 30, "calibration", "version", "-", "=", "/", "&"]


def text(rng, longest):
    """Words up to `longest` characters (printable ASCII, quotes and slashes included)."""
    out = ""
    while True:
        word = rng.choice(WORDS)
        if len(out) + len(word) + 1 > longest:
            return out
        out = (out + " " + word) if out else word


def keyword(rng):
    kind = rng.random()
    if kind < 0.55:
        name = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
                       for _ in range(rng.randint(1, 8)))
        return name.lower() if rng.random() < 0.1 else name
    if kind < 0.7:
        return rng.choice(["NAXIS1", "BITPIX", "OBJECT", "DATE-OBS", "EXPTIME", "CRVAL1", "A"])
    if kind < 0.9:
        return rng.choice(["ESO DET CHIP ID", "LONGKEYWORD", "HIERARCH ESO TEL AIRM START",
                           "very long keyword name", "ESO INS FILT1 NAME"])
    return rng.choice(["DP1.AXIS.1", "DP1.NAXIS", "DQ2.EXTVER"])


def real(rng):
    """A double whose %.16G text reads back as itself and is at most 20 characters."""
    while True:
        choice = rng.random()
        if choice < 0.4:
            value = rng.randint(-10**9, 10**9) / rng.choice([1, 10, 1000, 10**6])
        elif choice < 0.7:
            value = float(rng.randint(-99999, 99999)) * 10.0 ** rng.randint(-30, 30)
        else:
            value = round(rng.uniform(-1e4, 1e4), rng.randint(0, 12))
        shown = f"{value:.16G}"
        if float(shown) == value and len(shown) + (0 if "." in shown or "E" in shown else 2) <= 20:
            return value


def value(rng, name):
    if "." in name and not name.upper().startswith(("HIERARCH", "ESO", "VERY", "LONG")):
        return rng.choice([rng.randint(-5, 5000), real(rng)])  # record-valued: numbers only
    kind = rng.random()
    if kind < 0.1:
        return rng.random() < 0.5
    if kind < 0.3:
        return rng.choice([rng.randint(-1000, 1000), rng.randint(-2**63, 2**63 - 1),
                           rng.randint(2**64, 2**80) * rng.choice([1, -1])])
    if kind < 0.5:
        return real(rng)
    if kind < 0.55:
        return complex(real(rng), real(rng))
    if kind < 0.6:
        return None
    return rng.choice(["", "a", "x" * 8, text(rng, 18), text(rng, 60), text(rng, 140)])


def cases(rng):
    for _ in range(3000):
        name = keyword(rng)
        v = value(rng, name)
        comment = rng.choice(["", "", text(rng, 20), text(rng, 45), text(rng, 90)])
        yield name, v, comment
    for name in ["COMMENT", "HISTORY", ""]:
        for longest in [0, 10, 72, 73, 150, 300]:
            yield name, text(rng, longest), ""


def main(out):
    rng = random.Random(20261202)
    cards = []
    for name, v, comment in cases(rng):
        try:
            card = fits.Card(name, v, comment)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                image = card.image
        except (ValueError, KeyError, TypeError):
            continue  # astropy refuses it: not a case for this table
        cut = any("comment will be truncated" in str(w.message) for w in caught)
        head = image[:10]
        if cut and isinstance(v, str) and head[8:] == "= ":
            image = card._format_long_image()
        elif cut and head[8:] == "= " and image[10:].lstrip()[:1] != "'":
            value_text = fits.Card(name, v).image[10:].strip()
            image = f"{(head + value_text + ' / ' + comment)[:80]:80}"
        cards.append([name, v, comment, image])
    # PyYAML writes the tree: python asdf refuses integers beyond 64 bits, which YAML and FITS
    # cards hold. A complex value is a core/complex scalar, as python asdf writes one.
    class Dumper(yaml.SafeDumper):
        pass

    Dumper.add_representer(complex, lambda d, c: d.represent_scalar(
        "tag:stsci.edu:asdf/core/complex-1.0.0", repr(c)))
    with open(out, "w", encoding="ascii") as f:
        f.write("#ASDF 1.0.0\n#ASDF_STANDARD 1.5.0\n%YAML 1.1\n"
                "%TAG ! tag:stsci.edu:asdf/\n--- !core/asdf-1.1.0\n")
        f.write(yaml.dump({"cards": cards}, Dumper=Dumper, width=1000))
        f.write("...\n")
    print(f"{len(cards)} cards")


if __name__ == "__main__":
    main(sys.argv[1])
