#!/usr/bin/python3
"""Read ASDF files written through the asdfcore public API (tests/asdfcore/api) as a user would.

Usage: api_check.py [--allow TEXT]... FILE...

Each FILE is opened with `asdf.open(FILE, validate_checksums=True, lazy_load=False)` with schema
validation on, under `warnings.simplefilter("error")`: any warning is an error, except those
whose message starts with one of the --allow texts, which are recorded. Prints one JSON object
{FILE: record}; a record has
  version   the ASDF Standard version python read
  blocks    the number of internal blocks
  tree      the tree as JSON: every array as {"$array": {"md5", "shape", "dtype", "source",
            "mask_md5", "n_masked"}} (md5 of the elements in C order, every numeric field
            little-endian: the corpus convention; source = the block index or "inline"),
            datetimes as {"$datetime": isoformat}, complex as {"$complex": [re, im]}, ints
            outside int64 and core/integer values as {"$int": text}, non-finite floats as
            {"$float": "nan"|...},
            bytes as {"$bytes_hex": ...}; a node python kept tagged (no converter) as
            {"$tagged": tag, "value": ...}
  warnings  the allowed warnings that were raised ("Category: message")
  error     only when the file could not be read: "Type: message"
Runs with Debian's /usr/bin/python3 (python3-asdf 2.14, numpy 1.24).
"""

import datetime
import hashlib
import json
import math
import sys
import warnings

import asdf
import numpy as np
from asdf.tagged import Tagged
from asdf.tags.core import IntegerType


def le_md5(a):
    a = np.asarray(a)
    le = np.ascontiguousarray(a.astype(a.dtype.newbyteorder("<")))
    return hashlib.md5(le.tobytes()).hexdigest()


def array_record(node):
    source = getattr(node, "_source", None)
    a = node._make_array() if hasattr(node, "_make_array") else node
    rec = {"md5": le_md5(a), "shape": list(a.shape), "dtype": np.asarray(a).dtype.str,
           "source": source if isinstance(source, (int, str)) else "inline"}
    if isinstance(a, np.ma.MaskedArray):
        m = np.ascontiguousarray(np.ma.getmaskarray(a)).astype(np.uint8)
        rec["mask_md5"] = hashlib.md5(m.tobytes()).hexdigest()
        rec["n_masked"] = int(m.sum())
        rec["md5"] = le_md5(np.ma.getdata(a))
    return {"$array": rec}


def to_json(node):
    if isinstance(node, np.ndarray) or type(node).__name__.startswith("NDArrayType"):
        return array_record(node)
    tag = getattr(node, "_tag", None) if isinstance(node, Tagged) else None
    if isinstance(node, dict):
        value = {str(k): to_json(v) for k, v in node.items()}
    elif isinstance(node, (list, tuple)):
        value = [to_json(v) for v in node]
    elif isinstance(node, bool) or node is None or isinstance(node, str):
        value = node
    elif isinstance(node, IntegerType):
        value = {"$int": str(int(node))}
    elif isinstance(node, int):
        value = node if -(2**63) <= node < 2**63 else {"$int": str(node)}
    elif isinstance(node, float):
        value = node if math.isfinite(node) else {"$float": str(node)}
    elif isinstance(node, complex):
        value = {"$complex": [node.real, node.imag]}
    elif isinstance(node, datetime.datetime) or isinstance(node, datetime.date):
        value = {"$datetime": node.isoformat()}
    elif isinstance(node, bytes):
        value = {"$bytes_hex": node.hex()}
    elif isinstance(node, np.generic):
        value = node.item()
    else:
        value = {"$repr": repr(node)}
    return {"$tagged": tag, "value": value} if tag else value


def read(path, allowed):
    rec = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("error")
        for text in allowed:
            warnings.filterwarnings("always", message=__import__("re").escape(text))
        warnings.filterwarnings("ignore", category=ResourceWarning)
        try:
            with asdf.open(path, validate_checksums=True, lazy_load=False) as af:
                rec["version"] = af.version_string
                rec["blocks"] = len(list(af._blocks.internal_blocks))
                rec["tree"] = to_json({k: v for k, v in af.tree.items()
                                       if k not in ("asdf_library", "history")})
        except Exception as e:  # the caller compares; report instead of failing
            rec["error"] = f"{type(e).__name__}: {e}"
    rec["warnings"] = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
    return rec


def main(argv):
    allowed, files = [], []
    it = iter(argv)
    for a in it:
        if a == "--allow":
            allowed.append(next(it))
        else:
            files.append(a)
    with asdf.config_context() as cfg:
        cfg.extensions  # load them once, outside any file's warning filter
        json.dump({f: read(f, allowed) for f in files}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
