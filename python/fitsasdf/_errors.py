"""The exceptions of fitsasdf: one root, `Error`, and one class per category of the library."""


class Error(Exception):
    """Every failure of fitsasdf.

    Attributes:
        code: the library's category, a stable lower-case name ("malformed", "checksum", ...).
        message: what was wrong, without the place.
        file: the file being read or written ("" when none).
        offset: the byte offset in `file` (0-based), or None.
        block: the block number in file order (0-based), or None.
        tree_path: the JSON Pointer of the tree node ("" when none).
        hdu: the FITS HDU number (1-based), or None.
    str() gives the whole text: "FILE: at byte N (block K): MESSAGE".
    """

    code = "error"

    def __init__(self, text, *, message=None, file="", offset=None, block=None, tree_path="",
                 hdu=None):
        super().__init__(text)
        self.text = text
        self.message = text if message is None else message
        self.file = file
        self.offset = offset
        self.block = block
        self.tree_path = tree_path
        self.hdu = hdu

    def __str__(self):
        return self.text


class IoError(Error, OSError):
    """The operating system refused a read, write, rename or mapping."""
    code = "io"


class NotAsdfError(Error, ValueError):
    """The input is not an ASDF file."""
    code = "not-asdf"


class NotFitsError(Error, ValueError):
    """The input is not a FITS file."""
    code = "not-fits"


class UnsupportedVersionError(Error, ValueError):
    """The file declares a format version fitsasdf cannot read."""
    code = "unsupported-version"


class MalformedError(Error, ValueError):
    """The file's structure breaks the layout rules (header, tree, blocks)."""
    code = "malformed"


class TruncatedError(Error, ValueError):
    """The file ends before a structure it declares."""
    code = "truncated"


class CompressionError(Error, ValueError):
    """A block cannot be decoded (unknown codec, corrupt stream, size lie)."""
    code = "compression"


class ChecksumError(Error, ValueError):
    """A block's stored MD5 does not match its data."""
    code = "checksum"


class LimitError(Error):
    """A configured resource limit would be exceeded."""
    code = "limit"


class InvalidArgumentError(Error, ValueError):
    """An argument fitsasdf does not accept (an unknown codec, a tree it cannot write)."""
    code = "invalid-argument"


class NotFoundError(Error, KeyError):
    """A tree path names nothing (a missing key, an index past the end)."""
    code = "not-found"


class WrongTypeError(Error, TypeError):
    """A value is not of the type asked for (or does not fit in it)."""
    code = "wrong-type"


class SchemaError(Error, ValueError):
    """The tree breaks a schema (a file opened with ``validate=True``)."""
    code = "schema"


class CancelledError(Error):
    """The call was cancelled (by a progress callback); nothing was written."""
    code = "cancelled"


class ConflictError(Error, ValueError):
    """The file changed on disk since it was opened for update."""
    code = "conflict"


class UnsupportedError(Error, ValueError):
    """The file is sound, but the operation cannot be done on it safely."""
    code = "unsupported"


class ExistsError(Error, FileExistsError):
    """The output exists and the call asked not to replace it (``overwrite=False``)."""
    code = "exists"


ERROR_CLASSES = {cls.code: cls for cls in (
    IoError, NotAsdfError, NotFitsError, UnsupportedVersionError, MalformedError,
    TruncatedError, CompressionError, ChecksumError, LimitError, InvalidArgumentError,
    NotFoundError, WrongTypeError, CancelledError, SchemaError, ConflictError,
    UnsupportedError, ExistsError)}
