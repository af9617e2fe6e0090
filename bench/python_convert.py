"""The python contestant: FITS <-> ASDF as a user would write it with astropy and asdf-astropy.

Usage: python3 python_convert.py IN OUT [COMPRESSION]    (COMPRESSION: e.g. zlib; default none)
       FITS IN: `asdf.AsdfFile({'fits': fits.open(IN)}).write_to(OUT)`
       ASDF IN (one with a `fits` item): `asdf.open(IN)['fits'].writeto(OUT)`
"""

import sys

import asdf
from astropy.io import fits


def convert(source, target, options):
    if source.endswith(".asdf"):
        with asdf.open(source) as af:
            af.tree["fits"].writeto(target)
        return
    with fits.open(source) as hdul:
        asdf.AsdfFile({"fits": hdul}).write_to(target, **options)


def main(argv):
    source, target = argv[1], argv[2]
    options = {"all_array_compression": argv[3]} if len(argv) > 3 else {}
    convert(source, target, options)


if __name__ == "__main__":
    main(sys.argv)
