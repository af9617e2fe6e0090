"""The python contestants of the validate jobs: ASDF files opened with python asdf, which
validates every tree against the ASDF schemas when it reads it (asdf 2.14: `validate_on_read`,
on by default), one process for all the files.

Usage: python3 python_validate.py open FILE...      `asdf.open(f).close()` for every file: the
                                                  YAML parsed, the tagged tree validated, then
                                                  converted to custom types (astropy Quantity,
                                                  NDArrayType...), as a user's open
       python3 python_validate.py validate FILE...  the same without the conversion, and the
                                                  validation timed apart: opened with
                                                  validate_on_read off and `_force_raw_types=True`
                                                  (the tree left tagged), then the call
                                                  `asdf.open` makes to validate,
                                                  `asdf.schema.validate(tree, af, reading=True)`

Prints "N files" and, for `validate`, "validation S s in-process" (the sum over the files of
the validation call alone); exits 1 when a file fails to open or validate, as
`fitsasdf validate` exits 1 on findings.
"""

import sys
import time

import asdf
import asdf.schema


def main(argv):
    mode, files = argv[1], argv[2:]
    if mode not in ("open", "validate") or not files:
        sys.exit(__doc__)
    failed, validating = 0, 0.0
    for path in files:
        try:
            if mode == "open":
                asdf.open(path).close()
                continue
            with asdf.config_context() as config:
                config.validate_on_read = False
                af = asdf.open(path, _force_raw_types=True)
            with af:
                start = time.perf_counter()
                try:
                    asdf.schema.validate(af.tree, af, reading=True)
                finally:
                    validating += time.perf_counter() - start
        except Exception as error:  # noqa: BLE001 - a file that does not open is a finding
            failed += 1
            print(f"{path}: {type(error).__name__}: {str(error).splitlines()[0][:300]}")
    print(f"{len(files)} files, {failed} failed")
    if mode == "validate":
        print(f"validation {validating:.4f} s in-process")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
