"""fitsasdf for Python: FITS <-> ASDF conversion, verification and comparison in process, and a
fast ASDF reader and writer whose arrays are numpy views of the file's memory mapping.

    import fitsasdf
    report = fitsasdf.convert("image.fits")            # -> image.asdf
    with fitsasdf.open("image.asdf") as f:
        sci = f.tree["sci"]                              # numpy array over the mapping
    fitsasdf.write("out.asdf", {"sci": sci[:10], "exptime": 12.5})

Every failure raises a subclass of `fitsasdf.Error`, which carries the library's category
(`code`), the file and the place (byte offset, block, tree path, HDU). The calls release the GIL
while they work; Ctrl-C cancels a conversion, verification, comparison or batch, which then
leaves no partial output.
"""

import os as _os
import tempfile as _tempfile

from . import _fitsasdf
from ._errors import (Error, IoError, NotAsdfError, NotFitsError, UnsupportedVersionError,
                      MalformedError, TruncatedError, CompressionError, ChecksumError,
                      LimitError, InvalidArgumentError, NotFoundError, WrongTypeError,
                      CancelledError, SchemaError, ConflictError, UnsupportedError,
                      ExistsError)
from ._records import (Record, ConversionReport, VerifyReport, DiffReport, ValidationReport,
                       BatchReport,
                       Progress, Tagged, TaggedDict, TaggedList, TaggedString, TaggedScalar)

__version__ = _fitsasdf.__version__

__all__ = [
    "convert", "verify", "diff", "validate", "batch", "open", "write", "update", "AsdfFile",
    "Error", "IoError", "NotAsdfError", "NotFitsError", "UnsupportedVersionError",
    "MalformedError", "TruncatedError", "CompressionError", "ChecksumError", "LimitError",
    "InvalidArgumentError", "NotFoundError", "WrongTypeError", "CancelledError", "SchemaError",
    "ConflictError", "UnsupportedError", "ExistsError",
    "Record", "ConversionReport", "VerifyReport", "DiffReport", "ValidationReport",
    "BatchReport", "Progress",
    "Tagged", "TaggedDict", "TaggedList", "TaggedString", "TaggedScalar",
]

_DEFAULT_MAX_MEMORY = 8 << 30


def convert(input, output=None, *, compress=None, compression_level=-1, scaling="raw",
            checksum="stored", fits_tag="auto", native_byte_order=False, asdf_standard="1.5.0",
            native_view=True, fits_list=False, threads=0, durable=True, overwrite=True,
            add_checksums=False, verify_checksums=True, max_memory=_DEFAULT_MAX_MEMORY,
            progress=None):
    """Convert `input` (a FITS file, plain or .gz/.bz2/.Z, or an ASDF file: told by content) to
    `output`, which appears only when complete, and return a `ConversionReport`.

    Without `output`, the output is beside the input: `x.fits` -> `x.asdf`, `x.asdf` ->
    `x.fits` (which must not exist: the FITS file an ASDF file was made from is never
    overwritten unasked).

    FITS -> ASDF settings:
        compress: None, "zlib", "bzp2" or "lz4"; compression_level: the codec's level (-1: its
            default).
        scaling: "raw" (stored integers and their BSCALE/BZERO cards, lossless) or "physical"
            (scaled floats, as astropy reads them).
        checksum: what each block's MD5 covers: "stored" (the stored bytes, the standard),
            "decoded" (the decoded data, what python asdf 2.14 checks) or "none".
        fits_tag: "auto", "standard" (tag:stsci.edu:asdf/fits/fits-1.0.0) or "astropy".
        native_byte_order: write image data in this machine's byte order (a swap).
        asdf_standard: the ASDF Standard version to declare ("1.5.0"; python asdf 2.14 warns
            about "1.6.0").
        native_view: also write arrays by EXTNAME, quantities with units, root `data`.
        fits_list: for a FITS file carrying an ASDF extension (JWST products), write the FITS
            list instead of the embedded tree.
        threads: threads compressing a large block (0: every core).
    ASDF -> FITS settings:
        add_checksums: give every HDU fresh CHECKSUM and DATASUM cards.
        verify_checksums: check each block's MD5 while reading it.
    Both:
        durable: fsync the output before it is renamed into place.
        overwrite: replace an existing `output`; False raises `ExistsError` instead (checked
            before converting and again, atomically, when the output is renamed into place).
        max_memory: the largest buffer the input may make this allocate (bytes).
        progress: a callable taking a `Progress`, called at each HDU and about every 4 MiB
            (from a worker thread, with the GIL held); an exception it raises stops the call
            and is raised here, with nothing written.
    Raises `Error` (its subclass says the category) naming the file and the HDU or tree path.
    """
    text, direction = _fitsasdf.convert(
        input, output, compress=compress, compression_level=compression_level,
        scaling=scaling, checksum=checksum, fits_tag=fits_tag,
        native_byte_order=native_byte_order, asdf_standard=asdf_standard,
        native_view=native_view, fits_list=fits_list, threads=threads, durable=durable,
        overwrite=overwrite, add_checksums=add_checksums, verify_checksums=verify_checksums,
        max_memory=max_memory, progress=progress)
    report = ConversionReport.from_json(text).to_dict()
    report["direction"] = direction
    return ConversionReport(report)


def verify(fits, other=None, *, max_listed=10, compress=None, compression_level=-1,
           scaling="raw", checksum="stored", fits_tag="auto", native_byte_order=False,
           asdf_standard="1.5.0", native_view=True, fits_list=False, threads=0,
           max_memory=_DEFAULT_MAX_MEMORY, progress=None):
    """Check that a FITS file survives the trip through ASDF, and return a `VerifyReport`.

    With `other` None, `fits` is converted to ASDF (with the conversion settings of `convert`)
    and back in a temporary folder, and compared with itself. With `other` an ASDF file, that
    file is converted back to FITS and compared with `fits`, and its block checksums are
    checked; with `other` a FITS file, the two are compared directly. The comparison is the
    round trip's promise: every card in place with its text, data byte for byte.
    `report.equivalent` is the verdict; `max_listed` bounds the differences listed per HDU.
    Raises `Error` when a file cannot be read or a conversion fails (a difference is never an
    exception).
    """
    text = _fitsasdf.verify(
        fits, other, max_listed=max_listed, compress=compress,
        compression_level=compression_level, scaling=scaling, checksum=checksum,
        fits_tag=fits_tag, native_byte_order=native_byte_order, asdf_standard=asdf_standard,
        native_view=native_view, fits_list=fits_list, threads=threads, max_memory=max_memory,
        progress=progress)
    return VerifyReport.from_json(text)


def diff(a, b, *, mode="diff", ignore_keywords=(), ignore_paths=(), max_listed=10,
         progress=None):
    """Compare two files, each FITS or ASDF (told by content), and return a `DiffReport`.

    Two FITS files: in `mode` "diff" (astropy's fitsdiff rules: cards by keyword, data by
    value) or "verify" (every card in place, data byte for byte); `ignore_keywords` (with `*`
    and `?` wildcards) are not compared. Two ASDF files: node by node as `asdftool diff`,
    arrays by value; `ignore_paths` (JSON Pointers) are not compared. A FITS file and an ASDF
    file: the ASDF one is converted to FITS in a temporary folder first. `report.identical` is
    the verdict; `max_listed` bounds the differences listed.
    """
    text = _fitsasdf.diff(a, b, mode=mode, ignore_keywords=list(ignore_keywords),
                          ignore_paths=list(ignore_paths), max_listed=max_listed,
                          progress=progress)
    return DiffReport.from_json(text)


def batch(inputs, output_dir, *, jobs=0, report=None, verify=False, compress=None,
          compression_level=-1, scaling="raw", checksum="stored", fits_tag="auto",
          native_byte_order=False, asdf_standard="1.5.0", native_view=True, fits_list=False,
          threads=0, durable=True, add_checksums=False, verify_checksums=True,
          max_memory=_DEFAULT_MAX_MEMORY, progress=None):
    """Convert many files side by side, as `fitsasdf batch` does, and return a `BatchReport`.

    `inputs` is a path or a list of paths: files (each converted by its content's direction)
    and folders (walked in sorted order). Each output goes under `output_dir`, mirroring the
    input's path below the folder it was found in. An output that is complete already (opens,
    every block reads and matches its checksum) is skipped, so calling again after a failure or
    an interrupt resumes. `jobs` conversions run at once (0: one per core). `report` names a
    JSON-lines file (the command's format: one line per input, then a summary) kept across
    calls. `verify` checks each output by a round trip. The conversion settings are those of
    `convert`. `progress` is called after each input with a `Progress` whose `stage` is
    "batch", `done` the inputs finished and `total` the inputs listed.

    A failed input is recorded (status "failed", the error's text) and the batch goes on; a
    condition that stops every input (the disk full, the folder not writable) raises
    `IoError` after the report is written. Ctrl-C cancels the conversions in progress (they
    leave nothing behind), writes the report of what was done and raises KeyboardInterrupt.

    The returned report holds a line per input, so this call's memory grows with the number of
    inputs (the listing and the report file do not: they are sorted on disk, as the command's
    are). For archives of millions of files run `fitsasdf batch`, whose memory stays flat.
    """
    if isinstance(inputs, (str, bytes, _os.PathLike)):
        inputs = [inputs]
    text = _fitsasdf.batch(
        list(inputs), output_dir, jobs=jobs, report=report, verify=verify, compress=compress,
        compression_level=compression_level, scaling=scaling, checksum=checksum,
        fits_tag=fits_tag, native_byte_order=native_byte_order, asdf_standard=asdf_standard,
        native_view=native_view, fits_list=fits_list, threads=threads, durable=durable,
        add_checksums=add_checksums, verify_checksums=verify_checksums, max_memory=max_memory,
        progress=progress)
    return BatchReport.from_json(text)


class AsdfFile:
    """An ASDF file opened for reading (see `open`). A context manager; `close()` lets the
    file go (arrays already handed out keep their part of it alive)."""

    def __init__(self, native):
        self._native = native

    @property
    def tree(self):
        """The tree as Python objects, built on first use: dicts, lists, str, int (any size),
        float, bool, None, bytes (binary), datetime/date (timestamps), complex (core/complex);
        every ndarray a read-only numpy array (numpy.ma.MaskedArray with a mask) viewing the
        file's mapping when its block is uncompressed, decoded once otherwise; values with a
        tag fitsasdf has no type for are `TaggedDict`, `TaggedList` or `TaggedString` (a
        tagged scalar is its text, as YAML reads it). A node reached twice (a YAML alias) is the same object twice."""
        return self._native.tree()

    def __getitem__(self, key):
        """Return `tree[key]`."""
        return self.tree[key]

    def __contains__(self, key):
        return key in self.tree

    def array(self, pointer):
        """Return the ndarray at the JSON Pointer `pointer` ("/sci") as a numpy array, without
        building the rest of the tree."""
        return self._native.array(pointer)

    @property
    def tags(self):
        """Every tagged node: {JSON Pointer: full tag URI} ("" is the root)."""
        return self._native.tags()

    @property
    def asdf_standard(self):
        """The ASDF Standard version the file declares ("1.5.0")."""
        return self._native.asdf_standard

    @property
    def path(self):
        """The path the file was opened with."""
        return self._native.path

    @property
    def warnings(self):
        """What was odd but not fatal (layout problems, unknown tag versions)."""
        return list(self._native.warnings)

    @property
    def closed(self):
        """True once `close()` was called."""
        return self._native.closed

    def verify_checksums(self):
        """Check every block's MD5 (either convention python asdf wrote). Raises
        `ChecksumError` naming the first block that matches neither."""
        self._native.verify_checksums()

    def validate(self):
        """Check the whole file and return a `ValidationReport`: the layout, every block decoded
        with its checksum, every array's bytes, every `$ref`, and every tagged node against its
        schema (as python asdf does on open). Findings are reported, never raised:
        `report.status` is "sound" or "findings", and `report.findings` lists each with its
        `kind`, JSON `pointer`, `schema`, `keyword`, `message` and `value`."""
        return ValidationReport.from_json(self._native.validate())

    def close(self):
        """Let the file go."""
        self._native.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        state = "closed" if self.closed else f"ASDF Standard {self.asdf_standard}"
        return f"<fitsasdf.AsdfFile {self._native.path if not self.closed else ''!r} {state}>"


def open(path, *, verify_checksums=False, max_memory=_DEFAULT_MAX_MEMORY, validate=False):
    """Open the ASDF file `path` for reading and return an `AsdfFile`.

    The file is memory-mapped and its tree parsed; nothing is read from a block until its array
    is asked for. `verify_checksums` checks every block's MD5 now. `max_memory` bounds the
    buffer a compressed block may decode into (bytes). `validate` checks every tagged node
    against its schema, as python asdf's `asdf.open` does, and raises `SchemaError` naming the
    first node that breaks one. Raises `Error` naming the file and the byte offset
    (`NotAsdfError`, `MalformedError`, `TruncatedError`, ...).
    """
    return AsdfFile(_fitsasdf.File.open(path, verify_checksums=verify_checksums,
                                        max_memory=max_memory, validate=validate))


def validate(path, *, schema_path=(), schemas=True, blocks=True, max_findings=1000,
             max_memory=_DEFAULT_MAX_MEMORY):
    """Check the ASDF file `path` (or the ASDF extension of a FITS file) and return a
    `ValidationReport`, as `fitsasdf validate` does: layout, blocks decoded and their checksums
    (unless `blocks` is False), array bounds, references, the rules no schema states, and every
    tagged node against its schema (unless `schemas` is False). `schema_path` names folders of
    extra schemas and manifests, searched before the installed ones. Raises `Error` only when
    the file cannot be checked at all (not ASDF, unparsable tree, I/O).
    """
    text = _fitsasdf.validate(path, schema_path=[str(p) for p in schema_path], schemas=schemas,
                              blocks=blocks, max_findings=max_findings, max_memory=max_memory)
    return ValidationReport.from_json(text)


def update(path, *, set=None, delete=(), history=None, arrays=None, replace=None, mode="auto",
           validate=False, durable=True, checksum="stored", dry_run=False):
    """Change the ASDF file `path` where it is, as `fitsasdf edit` does, and return what was
    done: a dict with `kind` ("nothing", "in-place" or "rewritten"), `reason`, `old_size`,
    `new_size`, `tree_room`, `old_tree_size`, `new_tree_size`, `bytes_written`,
    `blocks_added`, `blocks_moved`, `blocks_unreferenced` and `dry_run`.

        delete: JSON Pointers of keys or items to remove (first).
        set: {pointer: value}: values as `write` takes them, numpy arrays aside; a missing last
            key is added, "-" appends to a list.
        arrays: {pointer: numpy array}: new arrays, each in a new block.
        replace: {pointer: numpy array}: new values for existing arrays, of the same dtype
            (byte order aside) and shape, in a new block compressed as the old one was.
        history: a description appended to history.entries, with the time and fitsasdf.
        mode: "auto" (in place when the tree fits, else an atomic rewrite), "in-place"
            (raise UnsupportedError instead of rewriting) or "rewrite".
        validate: check the new tree against its schemas first (SchemaError, nothing written).
        durable: fsync at each step; checksum: what new blocks' MD5 covers (see `convert`).
        dry_run: report what would be done, change nothing.
    An in-place update keeps an undo journal beside the file until it is complete, so an
    interrupted one is rolled back by the next open. Raises `ConflictError` when the file
    changed on disk meanwhile, `UnsupportedError` for a file that cannot be updated safely
    (pre-1.0 dialects, damaged layouts, FITS files), `NotFoundError` for a missing pointer; the
    file is left as it was.
    """
    return _fitsasdf.update(path, set=set, delete=list(delete), history=history, arrays=arrays,
                            replace=replace, mode=mode, validate=validate, durable=durable,
                            checksum=checksum, dry_run=dry_run)


def write(path, tree, *, standard="1.5.0", compress=None, compression_level=-1,
          byte_order="keep", checksum="stored", inline_threshold=0, threads=0, durable=True,
          comments=()):
    """Write `tree` (a dict) to the ASDF file `path`, which appears only when complete.

    The tree holds dicts (keys: str, int, float, bool), lists and tuples, str, int (any size),
    float, bool, None, bytes (written as !!binary), datetime/date (timestamps), complex
    (core/complex), numpy scalars, numpy arrays of any dtype ASDF and numpy share (numbers,
    bool, float16 with standard "1.6.0", S and U strings, packed records with sub-arrays; a
    numpy.ma.MaskedArray gets its mask), and `Tagged*` values (written with their tag). The
    same object twice is written once (a YAML alias); a view of another array shares that
    array's block, as python asdf writes it. Arrays are read where they are: they must not
    change during the call.

        standard: "1.5.0" (python asdf 2.14 reads it without a warning) or "1.6.0".
        compress: None, "zlib", "bzp2" or "lz4"; compression_level: -1 for the default.
        byte_order: "keep" each array's, or "little"/"big" for every array.
        checksum: "stored", "decoded" or "none" (see `convert`).
        inline_threshold: arrays with fewer elements are written inline in the tree.
        threads: threads compressing a large block (0: every core).
        durable: fsync before the rename.
        comments: extra `#` lines after the header.
    Raises `InvalidArgumentError` or `WrongTypeError` naming the tree path of a value that
    cannot be written, `IoError` when the file cannot be written.
    """
    _fitsasdf.write(path, tree, standard=standard, compress=compress,
                    compression_level=compression_level, byte_order=byte_order,
                    checksum=checksum, inline_threshold=inline_threshold, threads=threads,
                    durable=durable, comments=list(comments))
