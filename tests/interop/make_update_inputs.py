#!/usr/bin/python3
"""Write the python-asdf files the update tests change (python asdf 2.14, Debian's).

Usage: make_update_inputs.py OUTDIR

Writes into OUTDIR:
  py_none.asdf     a tree without arrays
  py_one.asdf      one array
  py_many.asdf     five arrays: plain, zlib, bzp2, lz4, and a view sharing a block; a block index
  py_noindex.asdf  two arrays, no block index
  py_padded.asdf   two arrays written with pad_blocks=True (python's room for updates)
  py_stream.asdf   a streamed block (asdf.Stream) after an ordinary one
Every file has meta: {calver: '1.0', flag: 3}. Prints nothing; exits non-zero on failure.
"""

import os
import sys

import asdf
import numpy as np
from asdf.stream import Stream


def meta():
    return {"calver": "1.0", "flag": 3}


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(7)
    image = rng.integers(-1000, 1000, size=(64, 48)).astype(np.int16)
    floats = rng.normal(size=5000)
    asdf.AsdfFile({"meta": meta()}).write_to(os.path.join(out, "py_none.asdf"))
    asdf.AsdfFile({"meta": meta(), "sci": image}).write_to(os.path.join(out, "py_one.asdf"))

    af = asdf.AsdfFile({"meta": meta(), "sci": image, "err": floats,
                        "dq": np.arange(3000, dtype=np.uint8),
                        "wht": floats.astype(np.float32), "row": image[3]})
    af.set_array_compression(af.tree["err"], "zlib")
    af.set_array_compression(af.tree["dq"], "bzp2")
    af.set_array_compression(af.tree["wht"], "lz4")
    af.write_to(os.path.join(out, "py_many.asdf"))

    asdf.AsdfFile({"meta": meta(), "sci": image, "err": floats}).write_to(
        os.path.join(out, "py_noindex.asdf"), include_block_index=False)
    asdf.AsdfFile({"meta": meta(), "sci": image, "err": floats}).write_to(
        os.path.join(out, "py_padded.asdf"), pad_blocks=True)

    af = asdf.AsdfFile({"meta": meta(), "sci": image, "frames": Stream([8], np.float64)})
    with open(os.path.join(out, "py_stream.asdf"), "wb") as f:
        af.write_to(f)
        for i in range(5):
            f.write(np.full(8, i, dtype=np.float64).tobytes())
    return 0


if __name__ == "__main__":
    sys.exit(main())
