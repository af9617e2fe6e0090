"""The objects fitsasdf's calls return: reports (read-only records made from the library's JSON
documents) and the tagged values of a tree."""

import json


class Record:
    """A read-only record: attributes by name, nested records and lists of them, `to_dict()`.

    Records compare equal when their fields are equal; `repr` lists the fields.
    """

    __slots__ = ("_fields",)

    def __init__(self, fields):
        object.__setattr__(self, "_fields", {k: _wrap(v) for k, v in fields.items()})

    @classmethod
    def from_json(cls, text):
        """Make the record of the JSON object `text`."""
        return cls(json.loads(text))

    def __getattr__(self, name):
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}") from None

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __dir__(self):
        return list(self._fields)

    def __eq__(self, other):
        return isinstance(other, Record) and self.to_dict() == other.to_dict()

    def __repr__(self):
        inner = ", ".join(f"{k}={v!r}" for k, v in self._fields.items())
        return f"{type(self).__name__}({inner})"

    def to_dict(self):
        """Return the record as plain dicts and lists (as JSON has it)."""
        return {k: _unwrap(v) for k, v in self._fields.items()}


def _wrap(value):
    if isinstance(value, dict):
        return Record(value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


def _unwrap(value):
    if isinstance(value, Record):
        return value.to_dict()
    if isinstance(value, list):
        return [_unwrap(v) for v in value]
    return value


class ConversionReport(Record):
    """What a conversion did.

    Fields: `input`, `output` (paths), `direction` ("fits-to-asdf" or "asdf-to-fits"),
    `fits_tag` (the tag of the `fits` list), `bytes_in`, `bytes_out`, `hdus` (one record per
    HDU: `index` (1-based), `kind`, `name`, `notes`), `findings` (suspicious content kept as it
    is: `hdu`, `code`, `message`).
    """

    __slots__ = ()


class VerifyReport(Record):
    """What a verification found.

    Fields: `fits`, `asdf`, `other` (paths; None when not given), `round_trip` (the ASDF file
    was made on the spot), `equivalent` (every checksum right and the FITS files equivalent),
    `blocks` (the ASDF file's block checksums: `block`, `status`, `ok`, `problem`),
    `comparison` (the FITS comparison: `mode`, `hdus_a`, `hdus_b`, `missing_hdus`,
    `extra_hdus`, `hdus`, each HDU with `equivalent`, `header`, `cards`, `data`, `checksums`).
    """

    __slots__ = ()


class DiffReport(Record):
    """What a comparison of two files found.

    Fields: `a`, `b` (paths), `format` ("fits" or "asdf"), `converted` ("a" or "b" when one
    side was converted to FITS to compare, else None), `identical`, and `fits` (as
    `VerifyReport.comparison`) or `asdf` (`total`, `arrays_compared`, `differences`: `kind`,
    `path`, `a`, `b`, `array`).
    """

    __slots__ = ()


class ValidationReport(Record):
    """What a validation found (`fitsasdf.validate`, `AsdfFile.validate`).

    Fields: `file`, `status` ("sound" or "findings"), `asdf_standard`, `findings` (each with
    `kind`: layout, block, checksum, array, reference, schema or tree; `pointer`, `block`,
    `offset`, `schema`, `keyword`, `message`, `value`), `notes`, `unknown_tags` (tags with no
    schema, not checked), `missing_schemas`, `checked` (`blocks`, `arrays`, `tagged_nodes`).
    """

    __slots__ = ()

    @property
    def sound(self):
        """True when nothing was found."""
        return self.status == "sound"


class BatchReport(Record):
    """What a batch did.

    Fields: `items` (this call's report lines, in input order: `input`, `output`, `status`
    ("ok", "skipped" for an output complete already, or "failed"), `error` (the category in
    brackets, then the text), `bytes_in`, `bytes_out`, `seconds`, `findings` when any, and
    `verify`/`verify_message` with verify=True), `summary` (the report's summary line:
    `inputs`, `ok`, `failed`, `skipped`, bytes, `stopped` and `message` when the batch stopped
    early).
    """

    __slots__ = ()


class Progress(Record):
    """A progress report: `stage` ("read", "write", "compare", "check"), `hdu` (1-based; 0 when
    the step is not one HDU's), `hdu_count`, `done` and `total` (bytes of the input's data)."""

    __slots__ = ()


class Tagged:
    """A value of the tree whose tag fitsasdf has no Python type for: `tag` says which."""

    __slots__ = ()

    @property
    def tag(self):
        """The full tag URI."""
        return self._tag


class TaggedDict(Tagged, dict):
    """A mapping with a tag fitsasdf has no Python type for (python asdf's TaggedDict)."""

    __slots__ = ("_tag",)

    def __init__(self, data=(), tag=""):
        dict.__init__(self, data)
        self._tag = tag

    def __repr__(self):
        return f"TaggedDict({dict.__repr__(self)}, tag={self._tag!r})"


class TaggedList(Tagged, list):
    """A sequence with a tag fitsasdf has no Python type for (python asdf's TaggedList)."""

    __slots__ = ("_tag",)

    def __init__(self, data=(), tag=""):
        list.__init__(self, data)
        self._tag = tag

    def __repr__(self):
        return f"TaggedList({list.__repr__(self)}, tag={self._tag!r})"


class TaggedString(Tagged, str):
    """A string with a tag fitsasdf has no Python type for (python asdf's TaggedString)."""

    __slots__ = ("_tag",)

    def __new__(cls, data="", tag=""):
        self = str.__new__(cls, data)
        self._tag = tag
        return self

    def __repr__(self):
        return f"TaggedString({str.__repr__(self)}, tag={self._tag!r})"


class TaggedScalar(Tagged):
    """A tagged number, boolean, null, timestamp or binary value to write: `value` holds it.
    YAML gives a scalar with an explicit tag its text, so such a value reads back as a
    `TaggedString` (as in python asdf)."""

    __slots__ = ("value", "_tag")

    def __init__(self, value, tag):
        self.value = value
        self._tag = tag

    def __eq__(self, other):
        return (isinstance(other, TaggedScalar) and self.value == other.value
                and self._tag == other._tag)

    def __hash__(self):
        return hash((self._tag, self.value))

    def __repr__(self):
        return f"TaggedScalar({self.value!r}, tag={self._tag!r})"
