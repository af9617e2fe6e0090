"""The contestant `fitsasdf (python module)`: the same jobs done from Python through the module
fitsasdf, as a pipeline would call it (bench.py puts the build's package on PYTHONPATH).

Usage: python3 module_contestant.py convert IN OUT [COMPRESSION]   fitsasdf.convert (durable=False,
                                                                 as the command's --no-fsync)
       python3 module_contestant.py batch INDIR OUTDIR JOBS       fitsasdf.batch
       python3 module_contestant.py read FILE                     fitsasdf.open, every array
                                                                 touched (summed), as python_read.py
"""

import sys

import numpy as np

import fitsasdf


def arrays(node):
    if isinstance(node, dict):
        for value in node.values():
            yield from arrays(value)
    elif isinstance(node, list):
        for value in node:
            yield from arrays(value)
    elif isinstance(node, np.ndarray):
        yield node


def main(argv):
    job = argv[1]
    if job == "convert":
        fitsasdf.convert(argv[2], argv[3], compress=argv[4] if len(argv) > 4 else None,
                         durable=False)
    elif job == "batch":
        report = fitsasdf.batch(argv[2], argv[3], jobs=int(argv[4]), durable=False)
        failed = [item.input for item in report.items if item.status == "failed"]
        if failed:
            sys.exit(f"failed: {failed}")
    elif job == "read":
        count, total = 0, 0.0
        with fitsasdf.open(argv[2]) as f:
            for array in arrays(f.tree):
                total += float(array.sum())
                count += 1
        print(f"{count} arrays, sum {total}")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
