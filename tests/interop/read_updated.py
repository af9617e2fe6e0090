#!/usr/bin/python3
"""Open ASDF files that fitsasdf updated with the reference library and report what it read.

Usage: read_updated.py FILE...

Prints one JSON list on stdout, one object per FILE:
  tree       the tree with every ndarray replaced by "md5:<hex of its bytes>:<shape>" and other
             values as JSON (tagged scalars as text, times as ISO text)
  warnings   the message of every warning raised while opening, validating and reading
  error      present only when the file could not be read: "Type: message"

Opened with schema validation (python asdf's default), checksums verified
(validate_checksums=True) and every array read. Runs with Debian's /usr/bin/python3.
"""

import datetime
import hashlib
import json
import sys
import traceback
import warnings

import asdf
import numpy as np


def plain(value):
    if isinstance(value, np.ndarray) or (hasattr(value, "shape") and hasattr(value, "dtype")):
        value = np.asarray(value)  # python asdf's NDArrayType proxies the array
        digest = hashlib.md5(np.ascontiguousarray(value).tobytes()).hexdigest()  # nosec
        return "md5:%s:%s" % (digest, list(value.shape))
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def read_one(path):
    report = {"file": path}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with asdf.open(path, lazy_load=False, copy_arrays=True,
                           validate_checksums=True) as af:
                af.validate()
                report["tree"] = plain({k: v for k, v in af.tree.items()
                                        if k not in ("asdf_library",)})
        except Exception as e:  # noqa: BLE001 - reported to the test
            report["error"] = "%s: %s" % (type(e).__name__, e)
            traceback.print_exc()
    report["warnings"] = [str(w.message) for w in caught]
    return report


def main():
    reports = [read_one(p) for p in sys.argv[1:]]
    print(json.dumps(reports))
    return 0 if all("error" not in r for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
