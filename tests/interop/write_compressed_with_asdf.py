#!/usr/bin/python3
"""Write ASDF files with python asdf's own compression, for the C++ tests to decode.

Usage: write_compressed_with_asdf.py OUT.asdf CODEC SIZE [SIZE...]

Writes one uint8 array per SIZE (deterministic float-like bytes) under tree["arrays"], each
block compressed with CODEC (zlib, bzp2 or lz4) by python asdf 2.14, and prints a JSON list of
the MD5 hex of each array's bytes. Runs with Debian's /usr/bin/python3.
"""

import hashlib
import json
import sys

import asdf
import numpy as np


def sample(n, seed):
    rng = np.random.default_rng(seed)
    count = (n + 3) // 4
    values = rng.standard_normal(count).astype(">f4") * np.float32(5.0) + np.float32(1000.0)
    return np.frombuffer(values.tobytes()[:n], dtype=np.uint8).copy()


def main():
    out, codec = sys.argv[1], sys.argv[2]
    arrays = [sample(int(size), seed) for seed, size in enumerate(sys.argv[3:])]
    af = asdf.AsdfFile({"arrays": arrays})
    for a in arrays:
        af.set_array_compression(a, codec)
    af.write_to(out)
    print(json.dumps([hashlib.md5(a.tobytes()).hexdigest() for a in arrays]))  # nosec


if __name__ == "__main__":
    main()
