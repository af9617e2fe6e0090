#!/usr/bin/python3
"""Ask the reference library (python asdf) whether ASDF files pass schema validation.

Usage: /usr/bin/python3 tests/interop/asdf_verdicts.py FILE...

Opens each FILE with asdf.open() (validation on, default options), walks the whole tree (and
the targets of any $ref, which python asdf resolves lazily) and prints one JSON object per
line, in argument order:

  file         the path as given
  verdict      "invalid": opening raised a jsonschema ValidationError (python asdf 2.14
               re-exports jsonschema.exceptions.ValidationError as asdf.ValidationError);
               "error": some other exception (a converter failing after validation, a
               YAML or block error, ...); "valid": no exception
  error_type   the exception's class name (null when valid)
  message      the exception's message: ValidationError.message for "invalid", str(e)
               for "error" (null when valid)
  path         "invalid" only: ValidationError.path, as a list of keys and indices: the
               path to the failing node from the tagged node whose schema failed (else null)
  schema_path  "invalid" only: ValidationError.schema_path, the path through the schema
               to the failing keyword (else null)
  tree_path    "invalid" only: the path of the failing node from the root of the tree. python
               asdf validates each tagged node against its tag's schema on its own, so "path"
               is relative to the tagged node whose schema failed; tree_path puts that node's
               own path in front (found by identity in the tagged tree being validated).
               null when the node cannot be found
  context      "invalid" only: the leaf errors under an anyOf/oneOf that failed (jsonschema's
               ValidationError.context, flattened), each {"message", "tree_path",
               "schema_path"}; [] for an error with no sub-errors
  warnings     every warning raised while opening and walking: "Category: message"

Runs with Debian's /usr/bin/python3 (python3-asdf 2.14, asdf-astropy, astropy 5.2). All
files are checked in one process. Exits 0 (the verdicts are the output).
"""

import io
import json
import sys
import warnings

import asdf
import jsonschema
from asdf import reference


def _jsonable(value):
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def _touch(node, seen):
    """Walk the converted tree so that anything lazy is read (and may fail)."""
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, reference.Reference):
        _touch(node(), seen)
    elif isinstance(node, dict):
        for key, value in node.items():
            _touch(key, seen)
            _touch(value, seen)
    elif isinstance(node, (list, tuple)):
        for value in node:
            _touch(value, seen)
    elif type(node).__module__.startswith("numpy") and hasattr(node, "tolist"):
        node.tolist()
    elif hasattr(node, "__array__") and not isinstance(node, (str, bytes)):
        try:
            node.__array__()
        except TypeError:
            pass


def _validated_root(error):
    """The tagged tree asdf.schema.validate() was checking when error was raised."""
    tb = error.__traceback__
    root = None
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "validate" and frame.f_code.co_filename.endswith("asdf/schema.py"):
            root = frame.f_locals.get("instance", root)
        tb = tb.tb_next
    return root


def _follow(node, path):
    for key in path:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return None
    return node


def _anchor_path(root, error):
    """The tree path of the node that error.path is relative to: the first node (depth first)
    from which error.path leads to the very object error.instance. None when there is no
    such node (asdf's datatype validator raises errors that carry no instance)."""
    relative = list(error.path)
    stack = [(root, [])]
    seen = set()
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        target = _follow(node, relative)
        if target is error.instance or (
            # asdf's ndim/max_ndim validators give repr(instance) as the error's instance
            isinstance(error.instance, str)
            and isinstance(target, (dict, list))
            and repr(target) == error.instance
        ):
            return path
        if isinstance(node, dict):
            children = list(node.items())
        elif isinstance(node, list):
            children = list(enumerate(node))
        else:
            children = []
        for key, child in reversed(children):
            stack.append((child, path + [key]))
    return None


def _tree_path(anchor, relative):
    return None if anchor is None else [_jsonable(p) for p in anchor + list(relative)]


def _leaves(error):
    if not error.context:
        yield error
        return
    for sub in error.context:
        yield from _leaves(sub)


def verdict(path):
    result = {
        "file": path,
        "verdict": "valid",
        "error_type": None,
        "message": None,
        "path": None,
        "schema_path": None,
        "tree_path": None,
        "context": None,
        "warnings": [],
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with asdf.open(path) as af:
                _touch(af.tree, set())
        except jsonschema.ValidationError as e:
            result["verdict"] = "invalid"
            result["error_type"] = type(e).__name__
            result["message"] = e.message
            result["path"] = [_jsonable(p) for p in e.path]
            result["schema_path"] = [_jsonable(p) for p in e.schema_path]
            anchor = _anchor_path(_validated_root(e), e)
            result["tree_path"] = _tree_path(anchor, e.path)
            result["context"] = [
                {
                    "message": leaf.message,
                    "tree_path": _tree_path(anchor, leaf.absolute_path),
                    "schema_path": [_jsonable(p) for p in leaf.absolute_schema_path],
                }
                for leaf in (_leaves(e) if e.context else [])
            ]
        except Exception as e:  # noqa: BLE001 - any other failure is the "error" verdict
            result["verdict"] = "error"
            result["error_type"] = type(e).__name__
            result["message"] = str(e)
    result["warnings"] = [f"{w.category.__name__}: {w.message}" for w in caught]
    return result


def _load_plugins():
    """Load the installed extensions once, up front, so that any warning plugin loading
    gives is not blamed on the first file."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        buffer = io.BytesIO()
        asdf.AsdfFile({"x": 1}, version="1.0.0").write_to(buffer)
        buffer.seek(0)
        with asdf.open(buffer) as af:
            af.tree


def main(argv):
    _load_plugins()
    for path in argv[1:]:
        print(json.dumps(verdict(path)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
