"""The python contestant of the batch job: every FITS file of a folder converted to ASDF in a
loop, in one python process (no start-up per file), as a user's script would do it.

Usage: python3 python_batch.py INDIR OUTDIR
"""

import os
import sys

from python_convert import convert


def main(argv):
    source, target = argv[1], argv[2]
    os.makedirs(target, exist_ok=True)
    for name in sorted(os.listdir(source)):
        if name.endswith(".fits"):
            convert(os.path.join(source, name),
                    os.path.join(target, name[: -len(".fits")] + ".asdf"), {})


if __name__ == "__main__":
    main(sys.argv)
