"""Shared fixtures of the Python module's tests. ctest runs them with the build's package on
PYTHONPATH and FITSASDF_CORPUS_DIR set (tests/CMakeLists.txt)."""

import hashlib
import json
import os
import pathlib

import numpy as np
import pytest

CORPUS = pathlib.Path(os.environ.get("FITSASDF_CORPUS_DIR",
                                     pathlib.Path(__file__).parents[3] / "shared" / "corpus"))
DATA = pathlib.Path(__file__).parents[1] / "data"


@pytest.fixture(scope="session")
def oracle():
    """The corpus oracle: {relative path: record}."""
    with open(CORPUS / "oracle.json") as f:
        return json.load(f)["files"]


def oracle_md5(array, dtype):
    """The corpus convention's MD5 of an array: cast to the oracle's dtype, every number
    little-endian, C order."""
    a = np.asarray(array).astype(np.dtype(dtype), copy=False)
    a = a.astype(a.dtype.newbyteorder("<"))
    return hashlib.md5(np.ascontiguousarray(a).tobytes()).hexdigest()
