"""The python contestant: FITS to ASDF as a user would write it with astropy and asdf-astropy.

Usage: python3 python_convert.py IN OUT [COMPRESSION]    (COMPRESSION: e.g. zlib; default none)
"""

import sys

import asdf
from astropy.io import fits


def main(argv):
    source, target = argv[1], argv[2]
    options = {"all_array_compression": argv[3]} if len(argv) > 3 else {}
    hdul = fits.open(source)
    asdf.AsdfFile({"fits": hdul}).write_to(target, **options)


if __name__ == "__main__":
    main(sys.argv)
