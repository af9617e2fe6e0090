"""fitsasdf.open on every ASDF file of the corpus: the tags python asdf sees, and arrays equal
(by the oracle's md5) to the ones python asdf gave."""

import json

import pytest

import fitsasdf
from conftest import CORPUS, oracle_md5

with open(CORPUS / "oracle.json") as _f:
    _FILES = json.load(_f)["files"]
ASDF_FILES = sorted(p for p, r in _FILES.items()
                    if r["format"] == "asdf" and r.get("raw", {}).get("ok"))


def test_the_corpus_has_asdf_files():
    assert len(ASDF_FILES) > 100


@pytest.mark.parametrize("relative", ASDF_FILES)
def test_tags_and_arrays_match_python_asdf(relative):
    raw = _FILES[relative]["raw"]
    # The oracle replaced each ndarray node by its summary, so it has no tags inside one.
    inside_arrays = tuple(a["path"] + "/" for a in raw["arrays"])
    with fitsasdf.open(CORPUS / relative) as f:
        tags = {p: t for p, t in f.tags.items() if not p.startswith(inside_arrays)}
        assert tags == raw["tags"]
        tree = f.tree  # every array built (compressed blocks decoded)
        assert isinstance(tree, dict)
        for summary in raw["arrays"]:
            if summary.get("error") or summary.get("md5") is None:
                continue
            array = f.array(summary["path"])
            assert list(array.shape) == summary["shape"], summary["path"]
            dtype = summary["dtype"]
            if summary.get("dtype_descr"):
                dtype = [tuple(field) for field in summary["dtype_descr"]]
            assert oracle_md5(array, dtype) == summary["md5"], summary["path"]


def _render(node, tags, path=""):
    """Our tree in the oracle's JSON rendering (make_oracle.py's `render` and `jscalar`): ndarrays
    as a marker, core/complex and core/integer (which python asdf's raw tree leaves as tagged
    text and mappings, while fitsasdf gives complex and int) as theirs."""
    import base64
    import datetime
    import math

    import numpy as np

    tag = tags.get(path, "")
    if isinstance(node, np.ndarray):
        return "$ndarray"
    if "/core/complex-" in tag or "/core/integer-" in tag:
        return "$converted"
    if isinstance(node, dict):
        return {str(k): _render(v, tags, path + "/" + str(k).replace("~", "~0").replace("/", "~1"))
                for k, v in node.items()}
    if isinstance(node, list):
        return [_render(v, tags, f"{path}/{i}") for i, v in enumerate(node)]
    if isinstance(node, fitsasdf.TaggedScalar):
        node = node.value
    if isinstance(node, bool) or node is None or isinstance(node, int):
        return node
    if isinstance(node, float):
        if math.isnan(node):
            return {"$float": "nan"}
        if math.isinf(node):
            return {"$float": "inf" if node > 0 else "-inf"}
        return node
    if isinstance(node, bytes):
        return {"$bytes_b64": base64.b64encode(node).decode("ascii")}
    if isinstance(node, str):
        return str(node)
    if isinstance(node, (datetime.datetime, datetime.date)):
        return {"$datetime": node.isoformat()}
    return {"$repr": repr(node)}


# Entries python asdf 2.14 added to the tree read from the file: defaults from the schema of
# the tag (wcs/icrs_coord-1.1.0 gives angles the unit "deg"); the file does not hold them and
# python asdf stopped filling defaults in 3.0. {file: [JSON Pointer, ...]}
SCHEMA_DEFAULTS = {
    "asdf-pyasdf/frames0.asdf": ["/frames/5/reference_frame/galcen_coord/dec/unit",
                                 "/frames/5/reference_frame/galcen_coord/ra/unit"],
}


def _expected(node, ours, path="", added=()):
    """The oracle's tree with the places `_render` marks replaced by the same marks, and the
    schema defaults python asdf added taken out."""
    if ours == "$ndarray" or ours == "$converted":
        return ours
    if isinstance(node, dict) and isinstance(ours, dict):
        return {k: _expected(v, ours.get(k), f"{path}/{k}", added) for k, v in node.items()
                if f"{path}/{k}" not in added}
    if isinstance(node, list) and isinstance(ours, list) and len(node) == len(ours):
        return [_expected(v, o, f"{path}/{i}", added) for i, (v, o) in enumerate(zip(node, ours))]
    return node


@pytest.mark.parametrize("relative", ASDF_FILES)
def test_tree_values_match_python_asdf(relative):
    raw = _FILES[relative]["raw"]
    with fitsasdf.open(CORPUS / relative) as f:
        ours = _render(f.tree, f.tags)
    assert ours == _expected(raw["tree"], ours, "", SCHEMA_DEFAULTS.get(relative, ()))
