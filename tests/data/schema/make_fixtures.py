#!/usr/bin/python3
"""Write the schema-validation fixtures: small ASDF files, by hand, as raw text.

Usage: /usr/bin/python3 tests/data/schema/make_fixtures.py [--check]

Rewrites the folders next to this script (deterministic output, no python asdf needed):

  invalid/           each file breaks exactly one schema keyword; python asdf 2.14's asdf.open()
           raises a jsonschema ValidationError for it
  valid/             controls that python asdf opens without error
  not-errors/        files that look wrong but that python asdf does not reject as invalid
           (unknown tags, a tag version with no schema, $ref, unanchored patterns,
           formats that are not checked, ...)
  python-disagrees/  files that the ASDF Standard says are wrong but python asdf 2.14 only
           warns about (see README.md)

The tree text is written by hand because python asdf refuses to write an invalid tree. The
files carry no binary block except ndarray-source-without-byteorder.asdf, whose one block is
written by block() below.

With --check, afterwards runs tests/interop/asdf_verdicts.py (the python asdf oracle) on every
file and checks each verdict and, for invalid files, that the first error's message contains
the text this script expects (so the error python reports is the one the file was made for).
Exits 1 on any mismatch.
"""

import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.path.join(HERE, "..", "..", "interop", "asdf_verdicts.py")

LIBRARY = (
    "asdf_library: !core/software-1.0.0 {author: The ASDF Developers, "
    "homepage: 'http://github.com/asdf-format/asdf', name: asdf, version: 2.14.3}\n"
)
HISTORY = (
    "history:\n"
    "  extensions:\n"
    "  - !core/extension_metadata-1.0.0 {extension_class: asdf.extension.BuiltinExtension, "
    "software: !core/software-1.0.0 {name: asdf, version: 2.14.3}}\n"
)


def header(standard, library=True, history=True):
    """The file header and the top of the tree, as python asdf 2.14 writes them."""
    root = "core/asdf-1.0.0" if standard == "1.0.0" else "core/asdf-1.1.0"
    text = f"#ASDF 1.0.0\n#ASDF_STANDARD {standard}\n%YAML 1.1\n%TAG ! tag:stsci.edu:asdf/\n--- !{root}\n"
    if library:
        text += LIBRARY
    if history and standard != "1.0.0":
        text += HISTORY
    return text


def block(data):
    """One ASDF block, uncompressed, with its MD5 checksum."""
    header_size = 48
    head = (
        struct.pack(">I", 0)  # flags
        + b"\0\0\0\0"  # compression: none
        + struct.pack(">QQQ", len(data), len(data), len(data))  # allocated, used, data size
        + hashlib.md5(data).digest()
    )
    assert len(head) == header_size
    return b"\xd3BLK" + struct.pack(">H", header_size) + head + data


class Case:
    def __init__(self, folder, name, standard, body, expect=None, library=True, history=True, blocks=()):
        self.folder = folder  # invalid, valid, not-errors, python-disagrees
        self.name = name
        self.standard = standard
        self.body = textwrap.dedent(body).lstrip("\n")
        # invalid: a piece of the first error's message; others: (verdict, piece of a warning or None)
        self.expect = expect
        self.library = library
        self.history = history
        self.blocks = blocks

    def content(self):
        text = header(self.standard, self.library, self.history) + self.body
        if not text.endswith("\n"):
            text += "\n"
        text += "...\n"
        data = text.encode("utf-8")
        for payload in self.blocks:
            data += block(payload)
        return data


CASES = []


def invalid(name, standard, body, expect, **kw):
    CASES.append(Case("invalid", name, standard, body, expect, **kw))


def valid(name, standard, body, warning=None, **kw):
    CASES.append(Case("valid", name, standard, body, ("valid", warning), **kw))


def not_error(name, standard, body, verdict="valid", warning=None, **kw):
    CASES.append(Case("not-errors", name, standard, body, (verdict, warning), **kw))


def disagrees(name, standard, body, verdict="valid", warning=None, **kw):
    CASES.append(Case("python-disagrees", name, standard, body, (verdict, warning), **kw))


NDARRAY = "!core/ndarray-1.0.0 {data: [1, 2, 3], datatype: int64, shape: [3]}"
FLOATS = "!core/ndarray-1.0.0 {data: [1.0, 2.0, 3.0, 4.0], datatype: float64, shape: [4]}"
KNOTS = "!core/ndarray-1.0.0 {data: [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0], datatype: float64, shape: [8]}"
METER = "!unit/unit-1.0.0 m"

# ---------------------------------------------------------------- core/software-1.0.0
invalid("software-missing-name.asdf", "1.5.0",
        "asdf_library: !core/software-1.0.0 {author: The ASDF Developers, version: 2.14.3}\n",
        "'name' is a required property", library=False)
invalid("software-missing-version.asdf", "1.0.0",
        "asdf_library: !core/software-1.0.0 {name: asdf}\n",
        "'version' is a required property", library=False)
invalid("software-name-not-string.asdf", "1.3.0",
        "asdf_library: !core/software-1.0.0 {name: 42, version: 2.14.3}\n",
        "42 is not of type 'string'", library=False)
invalid("software-version-float.asdf", "1.6.0",
        "asdf_library: !core/software-1.0.0 {name: asdf, version: 2.14}\n",
        "2.14 is not of type 'string'", library=False)
invalid("software-author-list.asdf", "1.5.0",
        "asdf_library: !core/software-1.0.0 {author: [a, b], name: asdf, version: 2.14.3}\n",
        "['a', 'b'] is not of type 'string'", library=False)
invalid("software-not-a-mapping.asdf", "1.5.0",
        "asdf_library: !core/software-1.0.0 [asdf, 2.14.3]\n",
        "is not of type 'object'", library=False)

# ---------------------------------------------------------------- core/extension_metadata-1.0.0
def history_with(extension):
    return f"history:\n  extensions:\n  - {extension}\n"


invalid("extension-metadata-missing-class.asdf", "1.5.0",
        history_with("!core/extension_metadata-1.0.0 {software: !core/software-1.0.0 "
                     "{name: asdf, version: 2.14.3}}"),
        "'extension_class' is a required property", history=False)
invalid("extension-metadata-class-not-string.asdf", "1.3.0",
        history_with("!core/extension_metadata-1.0.0 {extension_class: 12}"),
        "12 is not of type 'string'", history=False)
invalid("extension-metadata-package-missing-version.asdf", "1.5.0",
        history_with("!core/extension_metadata-1.0.0 {extension_class: asdf.extension.BuiltinExtension, "
                     "package: {name: asdf}}"),
        "'version' is a required property", history=False)

# ---------------------------------------------------------------- core/history_entry-1.0.0 and history
invalid("history-entry-missing-description.asdf", "1.5.0", """
    history:
      entries:
      - !core/history_entry-1.0.0 {time: '2020-01-01T00:00:00'}
    """, "'description' is a required property", history=False)
invalid("history-entry-description-not-string.asdf", "1.6.0", """
    history:
      entries:
      - !core/history_entry-1.0.0 {description: 5}
    """, "5 is not of type 'string'", history=False)
invalid("history-entry-software-string.asdf", "1.5.0", """
    history:
      entries:
      - !core/history_entry-1.0.0 {description: calibrated, software: asdf}
    """, "'asdf' is not of type 'object'", history=False)
invalid("history-entry-software-list-item-missing-name.asdf", "1.3.0", """
    history:
      entries:
      - !core/history_entry-1.0.0
        description: calibrated
        software:
        - {version: 1.0.0}
    """, "'name' is a required property", history=False)
invalid("history-not-array-or-mapping.asdf", "1.5.0", """
    history: none
    """, "'none' is not valid under any of the given schemas", history=False)
invalid("history-extensions-not-a-list.asdf", "1.5.0", """
    history:
      extensions: !core/extension_metadata-1.0.0 {extension_class: asdf.extension.BuiltinExtension}
    """, "{'extension_class': 'asdf.extension.BuiltinExtension'} is not of type 'array'", history=False)

# ---------------------------------------------------------------- core/asdf-1.0.0 (ASDF Standard 1.0.0 only)
invalid("asdf-1.0.0-history-is-mapping.asdf", "1.0.0", """
    history:
      entries:
      - !core/history_entry-1.0.0 {description: calibrated}
    """, "is not of type 'array'")
invalid("asdf-1.0.0-history-entry-missing-description.asdf", "1.0.0", """
    history:
    - !core/history_entry-1.0.0 {time: '2020-01-01T00:00:00'}
    """, "'description' is a required property")
invalid("asdf-1.0.0-data-not-ndarray.asdf", "1.0.0", """
    data: hello
    """, "'hello' is not valid under any of the given schemas")
invalid("asdf-1.0.0-fits-untagged.asdf", "1.0.0", """
    fits:
    - header:
      - [SIMPLE, true]
    """, "mismatched tags, wanted 'tag:stsci.edu:asdf/fits/fits-1.0.0', got 'tag:yaml.org,2002:seq'")

# ---------------------------------------------------------------- core/ndarray-1.0.0
invalid("ndarray-byteorder-bad-enum.asdf", "1.5.0", """
    data: !core/ndarray-1.0.0 {data: [1, 2, 3], datatype: int64, byteorder: middle, shape: [3]}
    """, "'middle' is not one of ['big', 'little']")
invalid("ndarray-datatype-unknown-name.asdf", "1.0.0", """
    data: !core/ndarray-1.0.0 {data: [1, 2, 3], datatype: int128, shape: [3]}
    """, "'int128' is not one of ['int8', 'uint8'")
invalid("ndarray-datatype-not-string-or-list.asdf", "1.6.0", """
    data: !core/ndarray-1.0.0 {data: [1, 2, 3], datatype: 64, shape: [3]}
    """, "64 is not of type 'string'")
invalid("ndarray-datatype-ascii-negative-length.asdf", "1.5.0", """
    data: !core/ndarray-1.0.0 {data: [abc, def], datatype: [ascii, -1], shape: [2]}
    """, "-1 is less than the minimum of 0")
invalid("ndarray-datatype-bad-string-kind.asdf", "1.3.0", """
    data: !core/ndarray-1.0.0 {data: [abc, def], datatype: [utf8, 3], shape: [2]}
    """, "'utf8' is not one of ['ascii', 'ucs4']")
invalid("ndarray-datatype-field-missing-datatype.asdf", "1.5.0", """
    data: !core/ndarray-1.0.0
      data: [[1, 2], [3, 4]]
      datatype: [{name: a}, {name: b, datatype: int8}]
      shape: [2]
    """, "'datatype' is a required property")
invalid("ndarray-datatype-field-bad-byteorder.asdf", "1.5.0", """
    data: !core/ndarray-1.0.0
      data: [[1, 2], [3, 4]]
      datatype: [{name: a, datatype: int8, byteorder: middle}, {name: b, datatype: int8}]
      shape: [2]
    """, "'middle' is not one of ['big', 'little']")
invalid("ndarray-datatype-field-name-pattern.asdf", "1.6.0", """
    data: !core/ndarray-1.0.0
      data: [[1, 2], [3, 4]]
      datatype: [{name: '1', datatype: int8}, {name: b, datatype: int8}]
      shape: [2]
    """, "'1' does not match '[A-Za-z_][A-Za-z0-9_]*'")
invalid("ndarray-shape-negative.asdf", "1.5.0", """
    data: !core/ndarray-1.0.0 {data: [1, 2, 3], datatype: int64, shape: [-3]}
    """, "-3 is less than the minimum of 0")
invalid("ndarray-shape-not-a-list.asdf", "1.0.0", """
    data: !core/ndarray-1.0.0 {data: [1, 2, 3], datatype: int64, shape: 3}
    """, "3 is not of type 'array'")
invalid("ndarray-shape-bad-string.asdf", "1.5.0", """
    data: !core/ndarray-1.0.0 {data: [1, 2, 3], datatype: int64, shape: [three]}
    """, "'three' is not of type 'integer'")
invalid("ndarray-offset-negative.asdf", "1.5.0", """
    data: !core/ndarray-1.0.0 {data: [1, 2, 3], datatype: int64, offset: -8, shape: [3]}
    """, "-8 is less than the minimum of 0")
invalid("ndarray-offset-integral-float.asdf", "1.6.0", """
    data: !core/ndarray-1.0.0 {data: [1, 2, 3], datatype: int64, offset: 8.0, shape: [3]}
    """, "8.0 is not of type 'integer'")
invalid("ndarray-strides-zero.asdf", "1.5.0", """
    data: !core/ndarray-1.0.0 {data: [1, 2, 3], datatype: int64, shape: [3], strides: [0]}
    """, "0 is less than the minimum of 1")
invalid("ndarray-source-float.asdf", "1.3.0", """
    data: !core/ndarray-1.0.0 {source: 0.5, datatype: int64, byteorder: little, shape: [3]}
    """, "0.5 is not of type 'integer'")
invalid("ndarray-source-without-byteorder.asdf", "1.5.0", """
    data: !core/ndarray-1.0.0 {source: 0, datatype: int32, shape: [3]}
    """, "'byteorder' is a dependency of 'source'", blocks=[struct.pack("<3i", 0, 1, 2)])
invalid("ndarray-inline-data-contains-mapping.asdf", "1.5.0", """
    data: !core/ndarray-1.0.0 {data: [1, {a: 1}, 3], datatype: int64, shape: [3]}
    """, "{'a': 1} is not of type 'number'")
invalid("ndarray-not-list-or-mapping.asdf", "1.6.0", """
    data: !core/ndarray-1.0.0 '1 2 3'
    """, "'1 2 3' is not valid under any of the given schemas")
invalid("ndarray-mask-not-bool8.asdf", "1.5.0", """
    data: !core/ndarray-1.0.0
      data: [1, 2, 3]
      datatype: int64
      mask: !core/ndarray-1.0.0 {data: [0, 1, 0], datatype: int64, shape: [3]}
      shape: [3]
    """, "Can not safely cast from 'int64' to 'bool8'")
invalid("ndarray-mask-string.asdf", "1.3.0", """
    data: !core/ndarray-1.0.0 {data: [1, 2, 3], datatype: int64, mask: none, shape: [3]}
    """, "Not an array")

# ---------------------------------------------------------------- core/complex-1.0.0
invalid("complex-not-a-number.asdf", "1.5.0", """
    c: !core/complex-1.0.0 one plus i
    """, "'one plus i' does not match")
invalid("complex-double-suffix.asdf", "1.0.0", """
    c: !core/complex-1.0.0 1+2jj
    """, "'1+2jj' does not match")
invalid("complex-mapping.asdf", "1.6.0", """
    c: !core/complex-1.0.0 {real: 1, imag: 2}
    """, "is not of type 'string'")

# ---------------------------------------------------------------- core/integer-1.0.0
invalid("integer-missing-sign.asdf", "1.5.0", """
    n: !core/integer-1.0.0
      string: '5'
      words: !core/ndarray-1.0.0 {data: [5], datatype: uint32, shape: [1]}
    """, "'sign' is a required property")
invalid("integer-sign-bad-pattern.asdf", "1.3.0", """
    n: !core/integer-1.0.0
      sign: plus
      words: !core/ndarray-1.0.0 {data: [5], datatype: uint32, shape: [1]}
    """, "'plus' does not match '^[+-]$'")
invalid("integer-words-string.asdf", "1.6.0", """
    n: !core/integer-1.0.0 {sign: +, words: '5'}
    """, "'5' is not of type 'object'")

# ---------------------------------------------------------------- core/externalarray-1.0.0
invalid("externalarray-missing-fileuri.asdf", "1.5.0", """
    x: !core/externalarray-1.0.0 {datatype: int16, shape: [4, 4], target: 1}
    """, "'fileuri' is a required property")
invalid("externalarray-target-float.asdf", "1.3.0", """
    x: !core/externalarray-1.0.0 {datatype: int16, fileuri: data.fits, shape: [4, 4], target: 1.5}
    """, "1.5 is not of type 'integer'")
invalid("externalarray-shape-negative.asdf", "1.5.0", """
    x: !core/externalarray-1.0.0 {datatype: int16, fileuri: data.fits, shape: [4, -4], target: 1}
    """, "-4 is less than the minimum of 0")

# ---------------------------------------------------------------- core/column-1.0.0 and core/table-1.0.0
invalid("column-missing-data.asdf", "1.5.0", """
    col: !core/column-1.0.0 {name: a}
    """, "'data' is a required property")
invalid("column-name-no-identifier.asdf", "1.0.0", f"""
    col: !core/column-1.0.0
      data: {NDARRAY}
      name: '123'
    """, "'123' does not match")
invalid("column-additional-property.asdf", "1.5.0", f"""
    col: !core/column-1.0.0
      data: {NDARRAY}
      format: '%5d'
      name: a
    """, "Additional properties are not allowed ('format' was unexpected)")
invalid("column-unit-not-string.asdf", "1.3.0", f"""
    col: !core/column-1.0.0
      data: {NDARRAY}
      name: a
      unit: 5
    """, "5 is not of type 'string'")
invalid("column-meta-not-mapping.asdf", "1.5.0", f"""
    col: !core/column-1.0.0
      data: {NDARRAY}
      meta: [1, 2]
      name: a
    """, "[1, 2] is not of type 'object'")
invalid("column-data-string.asdf", "1.6.0", """
    col: !core/column-1.0.0 {data: '1 2 3', name: a}
    """, "'1 2 3' is not of type 'object'")
invalid("table-columns-not-a-list.asdf", "1.5.0", f"""
    tab: !core/table-1.0.0
      columns: !core/column-1.0.0
        data: {NDARRAY}
        name: a
    """, "is not of type 'array'")
invalid("table-missing-columns.asdf", "1.0.0", """
    tab: !core/table-1.0.0 {meta: {origin: hand}}
    """, "'columns' is a required property")
invalid("table-colnames-not-allowed.asdf", "1.3.0", f"""
    tab: !core/table-1.0.0
      colnames: [a]
      columns:
      - !core/column-1.0.0
        data: {NDARRAY}
        name: a
    """, "Additional properties are not allowed ('colnames' was unexpected)")
invalid("table-column-missing-name.asdf", "1.5.0", f"""
    tab: !core/table-1.0.0
      columns:
      - !core/column-1.0.0
        data: {NDARRAY}
    """, "'name' is a required property")

# ---------------------------------------------------------------- fits/fits-1.0.0
invalid("fits-header-card-too-long.asdf", "1.5.0", """
    fits: !fits/fits-1.0.0
    - header:
      - [SIMPLE, true, conforms to FITS standard, extra]
    """, "is too long")
invalid("fits-keyword-too-long.asdf", "1.0.0", """
    fits: !fits/fits-1.0.0
    - header:
      - [SIMPLE, true]
      - [LONGKEYWORD, 1]
    """, "'LONGKEYWORD' is too long")
invalid("fits-keyword-not-string.asdf", "1.5.0", """
    fits: !fits/fits-1.0.0
    - header:
      - [SIMPLE, true]
      - [12, 1]
    """, "12 is not of type 'string'")
invalid("fits-value-string-too-long.asdf", "1.3.0", f"""
    fits: !fits/fits-1.0.0
    - header:
      - [SIMPLE, true]
      - [HISTORY, {'x' * 61}]
    """, "is too long")
invalid("fits-value-list.asdf", "1.5.0", """
    fits: !fits/fits-1.0.0
    - header:
      - [SIMPLE, true]
      - [NAXES, [1, 2]]
    """, "[1, 2] is not of type 'boolean'")
invalid("fits-comment-too-long.asdf", "1.6.0", f"""
    fits: !fits/fits-1.0.0
    - header:
      - [SIMPLE, true, {'c' * 61}]
    """, "is too long")
invalid("fits-comment-not-string.asdf", "1.5.0", """
    fits: !fits/fits-1.0.0
    - header:
      - [SIMPLE, true, 5]
    """, "5 is not of type 'string'")
invalid("fits-hdu-missing-header.asdf", "1.5.0", f"""
    fits: !fits/fits-1.0.0
    - data: {NDARRAY}
    """, "'header' is a required property")
invalid("fits-hdu-additional-property.asdf", "1.3.0", """
    fits: !fits/fits-1.0.0
    - header:
      - [SIMPLE, true]
      name: PRIMARY
    """, "Additional properties are not allowed ('name' was unexpected)")
invalid("fits-header-not-a-list.asdf", "1.5.0", """
    fits: !fits/fits-1.0.0
    - header: {SIMPLE: true}
    """, "is not of type 'array'")
invalid("fits-not-a-list.asdf", "1.6.0", """
    fits: !fits/fits-1.0.0
      header:
      - [SIMPLE, true]
    """, "is not of type 'array'")
invalid("fits-data-string.asdf", "1.5.0", """
    fits: !fits/fits-1.0.0
    - data: none
      header:
      - [SIMPLE, true]
    """, "'none' is not of type 'null'")

# -------------------------------------------- unit/unit-1.0.0, unit/quantity-1.1.0, unit/defunit-1.0.0
invalid("unit-integer-instead-of-string.asdf", "1.5.0", """
    q: !unit/quantity-1.1.0 {unit: 5, value: 3.0}
    """, "5 is not of type 'string'")
invalid("unit-mapping-instead-of-string.asdf", "1.0.0", """
    u: !unit/unit-1.0.0 {name: m}
    """, "is not of type 'string'")
invalid("unit-list-instead-of-string.asdf", "1.6.0", """
    u: !unit/unit-1.0.0 [m, s]
    """, "is not of type 'string'")
invalid("quantity-value-string.asdf", "1.5.0", f"""
    q: !unit/quantity-1.1.0 {{unit: {METER}, value: three}}
    """, "'three' is not of type 'number'")
invalid("quantity-missing-unit.asdf", "1.3.0", """
    q: !unit/quantity-1.1.0 {value: 3.0}
    """, "'unit' is a required property")
invalid("quantity-missing-value.asdf", "1.0.0", f"""
    q: !unit/quantity-1.1.0 {{unit: {METER}}}
    """, "'value' is a required property")
invalid("quantity-not-a-mapping.asdf", "1.5.0", """
    q: !unit/quantity-1.1.0 [3.0, m]
    """, "is not of type 'object'")
invalid("defunit-missing-name.asdf", "1.5.0", f"""
    u: !unit/defunit-1.0.0 {{unit: {METER}}}
    """, "'name' is a required property")
invalid("defunit-name-too-short.asdf", "1.3.0", f"""
    u: !unit/defunit-1.0.0 {{name: x, unit: {METER}}}
    """, "'x' does not match")
invalid("defunit-unit-number.asdf", "1.5.0", """
    u: !unit/defunit-1.0.0 {name: furlong, unit: 201}
    """, "201 is not of type 'string'")

# ---------------------------------------------------------------- time/time-1.x
invalid("time-1.0.0-string-no-format.asdf", "1.0.0", """
    t: !time/time-1.0.0 yesterday
    """, "'yesterday' does not match 'B[0-9]+(.[0-9]+)?'")
invalid("time-1.1.0-string-no-format.asdf", "1.5.0", """
    t: !time/time-1.1.0 noon
    """, "'noon' does not match 'J[0-9]+(.[0-9]+)?'")
invalid("time-1.2.0-string-no-format.asdf", "1.6.0", """
    t: !time/time-1.2.0 tomorrow
    """, "'tomorrow' does not match '[0-9]{4}:(00[1-9])")
invalid("time-array-contains-number.asdf", "1.5.0", """
    t: !time/time-1.1.0 ['2000-01-01T00:00:00', 5]
    """, "5 is not of type 'string'")

# ---------------------------------------------------------------- astropy: time/timedelta-1.0.0
TD = "!<tag:astropy.org:astropy/time/timedelta-1.0.0>"
invalid("timedelta-missing-format.asdf", "1.5.0", f"""
    td: {TD} {{jd1: 2.0, jd2: -0.5}}
    """, "'format' is a required property")
invalid("timedelta-scale-bad-enum.asdf", "1.5.0", f"""
    td: {TD} {{format: jd, jd1: 2.0, jd2: -0.5, scale: utc}}
    """, "'utc' is not one of")
invalid("timedelta-additional-property.asdf", "1.6.0", f"""
    td: {TD} {{format: jd, jd1: 2.0, jd2: -0.5, precision: 3}}
    """, "Additional properties are not allowed ('precision' was unexpected)")
invalid("timedelta-jd1-string.asdf", "1.3.0", f"""
    td: {TD} {{format: jd, jd1: two, jd2: -0.5}}
    """, "'two' is not of type 'number'")

# ----------------------------- astropy: table/table-1.0.0, fits/fits-1.0.0, units/equivalency-1.0.0
AT = "!<tag:astropy.org:astropy/table/table-1.0.0>"
invalid("astropy-table-missing-colnames.asdf", "1.5.0", f"""
    tab: {AT}
      columns:
      - !core/column-1.0.0
        data: {NDARRAY}
        name: a
    """, "'colnames' is a required property")
invalid("astropy-table-qtable-not-boolean.asdf", "1.5.0", f"""
    tab: {AT}
      colnames: [a]
      columns:
      - !core/column-1.0.0
        data: {NDARRAY}
        name: a
      qtable: 'no'
    """, "'no' is not of type 'boolean'")
invalid("astropy-table-additional-property.asdf", "1.6.0", f"""
    tab: {AT}
      colnames: [a]
      columns:
      - !core/column-1.0.0
        data: {NDARRAY}
        name: a
      units: [m]
    """, "Additional properties are not allowed ('units' was unexpected)")
invalid("astropy-table-colnames-not-strings.asdf", "1.5.0", f"""
    tab: {AT}
      colnames: [1]
      columns:
      - !core/column-1.0.0
        data: {NDARRAY}
        name: a
    """, "1 is not of type 'string'")
AF = "!<tag:astropy.org:astropy/fits/fits-1.0.0>"
invalid("astropy-fits-not-a-list.asdf", "1.5.0", f"""
    fits: {AF}
      header:
      - [SIMPLE, true]
    """, "is not of type 'array'")
invalid("astropy-fits-hdu-not-a-mapping.asdf", "1.6.0", f"""
    fits: {AF}
    - [SIMPLE, true]
    """, "is not of type 'object'")
invalid("astropy-equivalency-name-not-string.asdf", "1.5.0", """
    eq: !<tag:astropy.org:astropy/units/equivalency-1.0.0>
    - {kwargs_names: [], kwargs_values: [], name: 5}
    """, "5 is not of type 'string'")

# ---------------------------------------------------------------- transform (asdf-transform-schemas)
invalid("transform-shift-offset-string.asdf", "1.5.0", """
    m: !transform/shift-1.2.0 {inputs: [x], offset: one, outputs: [y]}
    """, "'one' is not of type 'number'")
invalid("transform-shift-offset-boolean.asdf", "1.6.0", """
    m: !transform/shift-1.2.0 {inputs: [x], offset: true, outputs: [y]}
    """, "True is not of type 'number'")
invalid("transform-shift-missing-offset.asdf", "1.5.0", """
    m: !transform/shift-1.2.0 {inputs: [x], outputs: [y]}
    """, "'offset' is a required property")
invalid("transform-shift-1.0.0-offset-quantity.asdf", "1.0.0", f"""
    m: !transform/shift-1.0.0
      offset: !unit/quantity-1.1.0 {{unit: {METER}, value: 1.0}}
    """, "is not of type 'number'")
invalid("transform-scale-factor-list.asdf", "1.3.0", """
    m: !transform/scale-1.2.0 {factor: [2.0], inputs: [x], outputs: [y]}
    """, "[2.0] is not of type 'number'")
invalid("transform-name-not-string.asdf", "1.5.0", """
    m: !transform/shift-1.2.0 {inputs: [x], name: 7, offset: 1.0, outputs: [y]}
    """, "7 is not of type 'string'")
invalid("transform-inputs-not-strings.asdf", "1.5.0", """
    m: !transform/shift-1.2.0 {inputs: [0], offset: 1.0, outputs: [y]}
    """, "0 is not of type 'string'")
invalid("transform-fixed-not-boolean.asdf", "1.5.0", """
    m: !transform/shift-1.2.0 {fixed: {offset: maybe}, inputs: [x], offset: 1.0, outputs: [y]}
    """, "'maybe' is not of type 'boolean'")
invalid("transform-bounds-three-items.asdf", "1.6.0", """
    m: !transform/shift-1.2.0 {bounds: {offset: [0, 1, 2]}, inputs: [x], offset: 1.0, outputs: [y]}
    """, "[0, 1, 2] is too long")
invalid("transform-compose-missing-forward.asdf", "1.5.0", """
    m: !transform/compose-1.2.0 {inputs: [x], outputs: [y]}
    """, "'forward' is a required property")
invalid("transform-compose-forward-item-string.asdf", "1.5.0", """
    m: !transform/compose-1.2.0
      forward:
      - shift
      - !transform/scale-1.2.0 {factor: 2.0, inputs: [x], outputs: [y]}
      inputs: [x]
      outputs: [y]
    """, "'shift' is not of type 'object'")
invalid("transform-remap-axes-mapping-float.asdf", "1.5.0", """
    m: !transform/remap_axes-1.3.0 {inputs: [x0, x1], mapping: [0, 1.5], outputs: [x0, x1]}
    """, "1.5 is not of type 'integer'")
invalid("transform-remap-axes-mapping-boolean.asdf", "1.5.0", """
    m: !transform/remap_axes-1.3.0 {inputs: [x0, x1], mapping: [0, true], outputs: [x0, x1]}
    """, "True is not of type 'integer'")
invalid("transform-remap-axes-missing-mapping.asdf", "1.5.0", """
    m: !transform/remap_axes-1.3.0 {inputs: [x0, x1], outputs: [x0, x1]}
    """, "'mapping' is a required property")
invalid("transform-fix-inputs-forward-one-item.asdf", "1.5.0", """
    m: !transform/fix_inputs-1.2.0
      forward:
      - !transform/shift-1.2.0 {inputs: [x], offset: 1.0, outputs: [y]}
    """, "is too short")
invalid("transform-rotate2d-angle-string.asdf", "1.5.0", """
    m: !transform/rotate2d-1.3.0 {angle: thirty, inputs: [x, y], outputs: [x, y]}
    """, "'thirty' is not of type 'number'")
invalid("transform-gaussian1d-missing-stddev.asdf", "1.6.0", """
    m: !transform/gaussian1d-1.0.0 {amplitude: 1.0, inputs: [x], mean: 0.0, outputs: [y]}
    """, "'stddev' is a required property")
invalid("transform-polynomial-coefficients-string.asdf", "1.5.0", """
    m: !transform/polynomial-1.2.0 {coefficients: '1 2 3', inputs: [x], outputs: [y]}
    """, "'1 2 3' is not of type 'array'")
invalid("transform-affine-missing-matrix.asdf", "1.5.0", """
    m: !transform/affine-1.3.0 {inputs: [x, y], outputs: [x, y], translation: [0.0, 0.0]}
    """, "'matrix' is a required property")
invalid("transform-tabular-method-bad-enum.asdf", "1.5.0", """
    m: !transform/tabular-1.2.0
      bounds_error: true
      inputs: [x]
      lookup_table: [1.0, 2.0, 3.0]
      method: cubic
      outputs: [y]
      points: [[0.0, 1.0, 2.0]]
    """, "'cubic' is not one of ['linear', 'nearest', 'splinef2d']")
invalid("transform-tabular-missing-lookup-table.asdf", "1.6.0", """
    m: !transform/tabular-1.2.0 {inputs: [x], method: linear, outputs: [y], points: [[0.0, 1.0]]}
    """, "'lookup_table' is a required property")
SPLINE = "m: !transform/spline1d-1.0.0\n  inputs: [x]\n  outputs: [y]\n"
invalid("transform-spline1d-degree-too-high.asdf", "1.5.0",
        SPLINE + f"  coefficients: {FLOATS}\n  degree: 6\n  knots: {KNOTS}\n",
        "6 is greater than the maximum of 5")
invalid("transform-spline1d-degree-zero.asdf", "1.6.0",
        SPLINE + f"  coefficients: {FLOATS}\n  degree: 0\n  knots: {KNOTS}\n",
        "0 is less than the minimum of 1")
invalid("transform-spline1d-knots-untagged.asdf", "1.5.0",
        SPLINE + f"  coefficients: {FLOATS}\n  degree: 3\n  knots: [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]\n",
        "mismatched tags, wanted 'tag:stsci.edu:asdf/core/ndarray-1.0.0'")
invalid("transform-spline1d-knots-wrong-tag.asdf", "1.5.0",
        SPLINE + f"  coefficients: {FLOATS}\n  degree: 3\n  knots: !core/complex-1.0.0 1+2j\n",
        "mismatched tags, wanted 'tag:stsci.edu:asdf/core/ndarray-1.0.0', got 'tag:stsci.edu:asdf/core/complex-1.0.0'")
invalid("transform-spline1d-knots-2d.asdf", "1.5.0",
        SPLINE + f"  coefficients: {FLOATS}\n  degree: 3\n"
        "  knots: !core/ndarray-1.0.0 {data: [[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]], datatype: float64, shape: [2, 4]}\n",
        "Wrong number of dimensions: Expected 1, got 2")
invalid("transform-spline1d-coefficients-complex.asdf", "1.6.0",
        SPLINE + "  coefficients: !core/ndarray-1.0.0 {data: [1.0, 2.0, 3.0, 4.0], datatype: complex128, shape: [4]}\n"
        f"  degree: 3\n  knots: {KNOTS}\n",
        "Can not safely cast from 'complex128' to 'float64'")
BB = "!transform/property/bounding_box-1.0.0"
invalid("transform-bounding-box-interval-one-item.asdf", "1.5.0", f"""
    m: !transform/shift-1.2.0
      bounding_box: {BB} {{ignore: [], intervals: {{x: [0]}}, order: C}}
      inputs: [x]
      offset: 1.0
      outputs: [y]
    """, "[0] is too short")
invalid("transform-bounding-box-order-bad-enum.asdf", "1.5.0", f"""
    m: !transform/shift-1.2.0
      bounding_box: {BB} {{ignore: [], intervals: {{x: [0, 5]}}, order: X}}
      inputs: [x]
      offset: 1.0
      outputs: [y]
    """, "'X' is not one of ['C', 'F']")
invalid("transform-bounding-box-intervals-empty.asdf", "1.6.0", f"""
    m: !transform/shift-1.2.0
      bounding_box: {BB} {{ignore: [], intervals: {{}}, order: C}}
      inputs: [x]
      offset: 1.0
      outputs: [y]
    """, "{} does not have enough properties")
invalid("transform-bounding-box-bound-wrong-tag.asdf", "1.5.0", f"""
    m: !transform/shift-1.2.0
      bounding_box: {BB} {{ignore: [], intervals: {{x: [{METER}, 5]}}, order: C}}
      inputs: [x]
      offset: 1.0
      outputs: [y]
    """, "mismatched tags, wanted 'tag:stsci.edu:asdf/unit/quantity-1.1.0', got 'tag:stsci.edu:asdf/unit/unit-1.0.0'")
invalid("transform-bounding-box-no-oneof-branch.asdf", "1.5.0", """
    m: !transform/shift-1.2.0 {bounding_box: all, inputs: [x], offset: 1.0, outputs: [y]}
    """, "'all' is not valid under any of the given schemas")
invalid("transform-input-units-equivalencies-untagged.asdf", "1.5.0", """
    m: !transform/shift-1.2.0
      input_units_equivalencies:
        x: [{kwargs_names: [], kwargs_values: [], name: spectral}]
      inputs: [x]
      offset: 1.0
      outputs: [y]
    """, "mismatched tags, wanted 'tag:astropy.org:astropy/units/equivalency-1.0.0'")
UM = "!<tag:astropy.org:astropy/transform/units_mapping-1.0.0>"
invalid("astropy-units-mapping-missing-outputs.asdf", "1.5.0", f"""
    m: {UM}
      inputs: [x]
      outputs: [x]
      unit_inputs:
      - {{name: x, unit: {METER}}}
    """, "'unit_outputs' is a required property")
invalid("astropy-units-mapping-input-missing-name.asdf", "1.6.0", f"""
    m: {UM}
      inputs: [x]
      outputs: [x]
      unit_inputs:
      - {{unit: {METER}}}
      unit_outputs:
      - {{name: x, unit: {METER}}}
    """, "'name' is a required property")

# ---------------------------------------------------------------- valid controls
valid("minimal-1.0.0.asdf", "1.0.0", f"""
    data: {NDARRAY}
    """)
valid("minimal-1.6.0.asdf", "1.6.0", f"""
    data: {NDARRAY}
    """)
valid("history-1.1.0-mapping.asdf", "1.5.0", """
    history:
      entries:
      - !core/history_entry-1.0.0
        description: calibrated
        software: !core/software-1.0.0 {name: pipeline, version: 1.0.0}
        time: '2020-01-01T00:00:00'
    """, history=False)
valid("ndarray-block-and-mask.asdf", "1.5.0", """
    data: !core/ndarray-1.0.0 {source: 0, datatype: int32, byteorder: little, shape: [3]}
    masked: !core/ndarray-1.0.0
      data: [1, 2, 3]
      datatype: int64
      mask: !core/ndarray-1.0.0 {data: [false, true, false], datatype: bool8, shape: [3]}
      shape: [3]
    strings: !core/ndarray-1.0.0 {data: [abc, de], datatype: [ucs4, 3], shape: [2]}
    """, blocks=[struct.pack("<3i", 0, 1, 2)])
valid("complex-integer.asdf", "1.3.0", """
    c: !core/complex-1.0.0 1-2.5e3i
    n: !core/integer-1.0.0
      sign: '-'
      string: '-5'
      words: !core/ndarray-1.0.0 {data: [5], datatype: uint32, shape: [1]}
    """)
valid("table-units-time.asdf", "1.5.0", f"""
    q: !unit/quantity-1.1.0 {{datatype: float64, unit: {METER}, value: 3.0}}
    t: !time/time-1.1.0 2020-01-01T00:00:00.000
    tab: !core/table-1.0.0
      columns:
      - !core/column-1.0.0
        data: {NDARRAY}
        name: a
        unit: !unit/unit-1.0.0 deg
    """)
valid("fits-1.0.0.asdf", "1.0.0", f"""
    fits: !fits/fits-1.0.0
    - data: {NDARRAY}
      header:
      - [SIMPLE, true, conforms to FITS standard]
      - [BITPIX, 8]
      - [NAXIS, 0]
      - [EXTEND, true]
      - []
      - ['', Top Level Metadata]
    m: !transform/shift-1.0.0 {{offset: 1.0}}
    t: !time/time-1.0.0 2020-01-01T00:00:00.000
    """)
valid("astropy-table-timedelta.asdf", "1.5.0", f"""
    tab: {AT}
      colnames: [a]
      columns:
      - !core/column-1.0.0
        data: {NDARRAY}
        name: a
      qtable: false
    td: {TD} {{format: jd, jd1: 2.0, jd2: -0.5}}
    """)
valid("transforms.asdf", "1.5.0", f"""
    bb: !transform/shift-1.2.0
      bounding_box: {BB} {{ignore: [], intervals: {{x: [0, 5]}}, order: C}}
      inputs: [x]
      offset: 1.0
      outputs: [y]
    sh: !transform/compose-1.2.0
      forward:
      - !transform/shift-1.2.0 {{inputs: [x], offset: 1.5, outputs: [y]}}
      - !transform/scale-1.2.0 {{factor: 2.0, inputs: [x], outputs: [y]}}
      inputs: [x]
      outputs: [y]
    sp: !transform/spline1d-1.0.0
      coefficients: {FLOATS}
      degree: 3
      inputs: [x]
      knots: !core/ndarray-1.0.0 {{data: [0, 0, 0, 0, 1, 1, 1, 1], datatype: int64, shape: [8]}}
      outputs: [y]
    """)
valid("time-1.2.0.asdf", "1.6.0", """
    t: !time/time-1.2.0 {value: 51544.0, format: mjd, scale: tai}
    """)

# ---------------------------------------------------------------- not errors for python asdf
not_error("custom-tag-no-schema.asdf", "1.5.0", """
    thing: !<tag:example.org:custom/thing-1.0.0> {colour: blue, size: -1}
    """, warning="tag:example.org:custom/thing-1.0.0 is not recognized")
not_error("ndarray-unknown-version.asdf", "1.5.0", """
    data: !core/ndarray-9.9.9 {data: [1, 2, 3], datatype: int64, shape: [3]}
    """, warning="Unable to locate schema file for 'tag:stsci.edu:asdf/core/ndarray-9.9.9'")
not_error("ref-target.asdf", "1.5.0", f"""
    thing: {{colour: blue, data: {NDARRAY}}}
    """)
not_error("ref-to-other-file.asdf", "1.5.0", """
    thing: {$ref: 'ref-target.asdf#/thing'}
    """)
not_error("ref-in-tagged-mapping.asdf", "1.5.0", """
    sw: !core/software-1.0.0 {$ref: 'ref-target.asdf#/thing'}
    """)
not_error("extension-metadata-not-installed.asdf", "1.5.0",
          history_with("!core/extension_metadata-1.0.0 {extension_class: example.NotInstalledExtension, "
             "software: !core/software-1.0.0 {name: example, version: 1.0.0}}") + "x: 1\n",
          warning="which is not currently installed", history=False)
not_error("history-second-entry-untagged-missing-description.asdf", "1.5.0", """
    history:
      entries:
      - !core/history_entry-1.0.0 {description: calibrated}
      - {time: '2020-01-01T00:00:00'}
    """, history=False)
not_error("software-homepage-not-uri.asdf", "1.5.0", """
    asdf_library: !core/software-1.0.0 {homepage: 'not a uri at all', name: asdf, version: 2.14.3}
    """, library=False)
not_error("history-entry-time-not-date-time.asdf", "1.5.0", """
    history:
      entries:
      - !core/history_entry-1.0.0 {description: calibrated, time: the day before yesterday}
    """, history=False)
not_error("fits-keyword-lowercase.asdf", "1.5.0", """
    fits: !fits/fits-1.0.0
    - header:
      - [SIMPLE, true]
      - [naxis, 0]
    """)
not_error("column-name-starts-with-digit.asdf", "1.5.0", f"""
    col: !core/column-1.0.0
      data: {NDARRAY}
      name: 1a
    """)
not_error("unit-non-ascii.asdf", "1.5.0", """
    u: !unit/unit-1.0.0 "\\u00b5m"
    """)
not_error("remap-axes-1.1.0-mapping-anything.asdf", "1.3.0", """
    m: !transform/remap_axes-1.1.0 {mapping: [0, true]}
    """)
not_error("tag-newer-than-standard.asdf", "1.0.0", """
    t: !time/time-1.2.0 2020-01-01T00:00:00.000
    """)
not_error("time-bad-format-enum.asdf", "1.5.0", """
    t: !time/time-1.1.0 {format: fortnight, value: 2000.0}
    """, verdict="error")

# ------------------------------------------ python asdf only warns where the standard says invalid
disagrees("mapping-key-float-1.6.0.asdf", "1.6.0", """
    meta: {1.5: one and a half}
    """, warning="Invalid mapping key 1.5")
disagrees("duplicate-mapping-key.asdf", "1.5.0", """
    meta: {origin: first, origin: second}
    """)
disagrees("integer-literal-too-large.asdf", "1.5.0", """
    n: 18446744073709551616
    """, warning="Invalid integer literal value 18446744073709551616")


def write_all():
    for folder in ("invalid", "valid", "not-errors", "python-disagrees"):
        path = os.path.join(HERE, folder)
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
    names = set()
    for case in CASES:
        key = (case.folder, case.name)
        assert key not in names, key
        names.add(key)
        with open(os.path.join(HERE, case.folder, case.name), "wb") as f:
            f.write(case.content())


def check():
    cases = {os.path.join(HERE, c.folder, c.name): c for c in CASES}
    out = subprocess.run(
        ["/usr/bin/python3", ORACLE, *cases], check=True, capture_output=True, text=True, cwd=HERE
    ).stdout
    failures = 0
    for line in out.splitlines():
        result = json.loads(line)
        case = cases[result["file"]]
        if case.folder == "invalid":
            messages = [result["message"] or ""] + [leaf["message"] for leaf in result["context"] or []]
            ok = result["verdict"] == "invalid" and any(case.expect in m for m in messages)
        else:
            verdict, warning = case.expect
            ok = result["verdict"] == verdict
            if warning is not None:
                ok = ok and any(warning in w for w in result["warnings"])
        if not ok:
            failures += 1
            print(f"MISMATCH {case.folder}/{case.name}: expected {case.expect!r}, got {json.dumps(result)}")
    counts = {}
    for case in CASES:
        counts[case.folder] = counts.get(case.folder, 0) + 1
    print(f"{len(cases)} files {counts}, {failures} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    write_all()
    sys.exit(check() if "--check" in sys.argv[1:] else 0)
