"""The python contestant of the read job: open an ASDF file and touch every array (sum of its
values), as a user would with asdf.

Usage: python3 python_read.py FILE.asdf
"""

import sys

import asdf
import numpy as np


def arrays(node):
    if isinstance(node, dict):
        for value in node.values():
            yield from arrays(value)
    elif isinstance(node, (list, tuple)):
        for value in node:
            yield from arrays(value)
    elif isinstance(node, (np.ndarray, asdf.tags.core.ndarray.NDArrayType)):
        yield node


def main(argv):
    count, total = 0, 0.0
    with asdf.open(argv[1]) as af:
        for array in arrays(af.tree):
            total += float(np.asarray(array).sum())
            count += 1
    print(f"{count} arrays, sum {total}")


if __name__ == "__main__":
    main(sys.argv)
