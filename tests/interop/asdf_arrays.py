#!/usr/bin/python3
"""Report every ndarray python asdf reads from ASDF files, as JSON (the reference reading).

Usage: asdf_arrays.py [--raw] FILE...

Prints one JSON object {FILE: record}. A record has
  arrays    {json_pointer: {"md5", "shape", "dtype"}} for every ndarray in the tree, md5 of the
            elements in C order with every numeric field little-endian (the corpus convention)
  values    {json_pointer: value} for tagged complex/integer scalars python converted: complex
            as [real, imag], integers (python ints of 2**63 and more, core/integer) as decimal text
  masks     {json_pointer: {"md5", "count"}} for every masked array: md5 of the mask as one
            byte (0 or 1) per element in C order, and the number of masked elements
  ints      {json_pointer: decimal text} for every plain python int of the tree
  tags      {json_pointer: tag} for every node python kept tagged, without a converter (with
            --raw: every tagged node)
  shared    lists of json pointers that reach the same python dict, list or array (YAML
            aliases)
  version   the ASDF Standard version python read the file as
  warnings  the distinct warning messages raised while opening and reading
  error     only when the file could not be read: "Type: message"

Default: opened as a user would (schema validation on, converters on). With --raw the tree is
read with _force_raw_types=True and validation off, and each ndarray node is turned into an
array by asdf's NDArrayType, as the corpus oracle does; use it for files whose custom tags have
no converter here. Runs with Debian's /usr/bin/python3 (python3-asdf 2.14).
"""

import hashlib
import json
import sys
import warnings

import asdf
import numpy as np
from asdf.tags.core import IntegerType
from asdf.tags.core.ndarray import NDArrayType
from asdf.tagged import Tagged


def summary(a):
    a = np.asarray(a)
    le = np.ascontiguousarray(a.astype(a.dtype.newbyteorder("<")))
    return {"md5": hashlib.md5(le.tobytes()).hexdigest(), "shape": list(a.shape),
            "dtype": a.dtype.str}


def escape(key):
    return str(key).replace("~", "~0").replace("/", "~1")


def mask_summary(a):
    if not isinstance(a, np.ma.MaskedArray):
        return None
    m = np.ascontiguousarray(np.ma.getmaskarray(a)).astype(np.uint8)
    return {"md5": hashlib.md5(m.tobytes()).hexdigest(), "count": int(m.sum())}


def walk(node, path, out, raw, af, seen):
    tag = getattr(node, "_tag", None) or ""
    if raw and tag.startswith("tag:stsci.edu:asdf/core/ndarray-"):
        a = NDArrayType.from_tree(node, af)._make_array()
        out["arrays"][path] = summary(a)
        if mask_summary(a) is not None:
            out["masks"][path] = mask_summary(a)
        return
    if isinstance(node, (np.ndarray, NDArrayType)) or type(node).__name__ == "NDArrayType":
        out["arrays"][path] = summary(node)
        out["_ids"].setdefault(id(node), []).append(path)
        # ndarray-1.1.0 nodes are a versioned sibling class of NDArrayType, not a subclass.
        a = node._make_array() if hasattr(node, "_make_array") else node
        if mask_summary(a) is not None:
            out["masks"][path] = mask_summary(a)
        return
    if isinstance(node, complex):
        out["values"][path] = [node.real, node.imag]
    elif isinstance(node, IntegerType):
        out["values"][path] = str(int(node))
    elif isinstance(node, int) and not isinstance(node, bool):
        if abs(node) >= 2**63:
            out["values"][path] = str(node)
        out["ints"][path] = str(node)
    if isinstance(node, Tagged) and tag:
        out["tags"][path] = tag
    if isinstance(node, (dict, list)):
        out["_ids"].setdefault(id(node), []).append(path)
    if id(node) in seen:
        return
    if isinstance(node, dict):
        seen = seen | {id(node)}
        for k, v in node.items():
            walk(v, path + "/" + escape(k), out, raw, af, seen)
    elif isinstance(node, (list, tuple)):
        seen = seen | {id(node)}
        for i, v in enumerate(node):
            walk(v, f"{path}/{i}", out, raw, af, seen)


def read(path, raw):
    rec = {"arrays": {}, "values": {}, "masks": {}, "ints": {}, "tags": {}, "_ids": {}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            kwargs = {"_force_raw_types": True} if raw else {}
            with asdf.open(path, lazy_load=False, copy_arrays=True, **kwargs) as af:
                rec["version"] = af.version_string
                walk(af.tree, "", rec, raw, af, frozenset())
        except Exception as e:  # the caller compares; report instead of failing
            rec["error"] = f"{type(e).__name__}: {e}"
    msgs = []
    for w in caught:
        m = f"{w.category.__name__}: {w.message}"
        if m not in msgs and w.category is not ResourceWarning:
            msgs.append(m)
    rec["warnings"] = msgs
    rec["shared"] = [paths for paths in rec.pop("_ids").values() if len(paths) > 1]
    return rec


def main(argv):
    raw = "--raw" in argv
    files = [a for a in argv if a != "--raw"]
    # One configuration for every file: a fresh one per file would list and load the installed
    # extensions again for each file, which costs most of the time on small files.
    with asdf.config_context() as cfg:
        cfg.validate_on_read = not raw
        cfg.extensions  # load them once, outside any file's warning record
        json.dump({f: read(f, raw) for f in files}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
