#!/usr/bin/python3
"""Open ASDF files with the reference library (python asdf) and report what it read, as JSON.

Usage: read_with_asdf.py [--validate-checksums] FILE...

Prints one JSON list on stdout, one object per FILE in order:
  arrays      MD5 hex of each ndarray's bytes in tree["arrays"], in order
  shapes      the shape python asdf gave each of those arrays
  blocks      MD5 hex of each block's decoded data, in file order
  checksums   per block: true/false from Block.validate_checksum() (decoded-data MD5, as python
              asdf 2.14 checks it), null when the block stores no checksum; only with
              --validate-checksums
  index_used  true when python asdf accepted the block index (mapped every block from it),
              false when it did not; null when that cannot be told
  version     the ASDF Standard version python asdf read the file as
  warnings    the message of every warning raised while opening and reading
  error       present only when the file could not be read: "Type: message"

Runs with Debian's /usr/bin/python3 (python3-asdf 2.14, python3-lz4). Exits 0 when every
file was read, 1 otherwise (tracebacks go to stderr).
"""

import hashlib
import json
import sys
import traceback
import warnings

import asdf
import asdf.block
import numpy as np

# Record whether python asdf took the block index: BlockManager.read_block_index marks the
# blocks as mapped only when it accepted the index (this reaches into a private attribute).
_index_used = {}
_original_read_block_index = asdf.block.BlockManager.read_block_index


def _recording_read_block_index(self, fd, ctx):
    result = _original_read_block_index(self, fd, ctx)
    _index_used["value"] = getattr(self, "_internal_blocks_mapped", None)
    return result


asdf.block.BlockManager.read_block_index = _recording_read_block_index


def md5_hex(array):
    return hashlib.md5(np.ascontiguousarray(array).tobytes()).hexdigest()  # nosec


def read_one(path, validate_checksums):
    report = {"arrays": [], "shapes": [], "blocks": [], "checksums": [], "index_used": None}
    _index_used.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with asdf.open(
                path, lazy_load=False, copy_arrays=True, validate_checksums=validate_checksums
            ) as af:
                for array in af.tree.get("arrays", []) or []:
                    data = np.asarray(array)
                    report["arrays"].append(md5_hex(data))
                    report["shapes"].append(list(data.shape))
                manager = af._blocks
                # Read blocks no array refers to as well. After a streamed block python asdf
                # 2.14 would try to read the streamed block a second time, and it has already
                # read every block to reach the streamed one.
                if not manager._streamed_blocks:
                    manager.finish_reading_internal_blocks()
                for block in manager.internal_blocks:
                    report["blocks"].append(md5_hex(block.data))
                    if validate_checksums:
                        report["checksums"].append(
                            None if block.checksum is None else bool(block.validate_checksum())
                        )
                report["version"] = af.version_string
        except Exception as e:  # report any failure to read as data for the C++ test
            traceback.print_exc(file=sys.stderr)
            report["error"] = f"{type(e).__name__}: {e}"
        report["warnings"] = [f"{w.category.__name__}: {w.message}" for w in caught]
    report["index_used"] = _index_used.get("value")
    return report


def main(argv):
    validate = "--validate-checksums" in argv
    paths = [a for a in argv if a != "--validate-checksums"]
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    reports = [read_one(p, validate) for p in paths]
    json.dump(reports, sys.stdout)
    sys.stdout.write("\n")
    return 0 if all("error" not in r for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
