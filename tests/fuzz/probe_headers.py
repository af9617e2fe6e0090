#!/usr/bin/python3
"""Probe CFITSIO's header reading for cards that end the process (by hand, not part of CI).

Usage: /usr/bin/python3 tests/fuzz/probe_headers.py [path/to/fitsasdf]

Builds small FITS files (a binary table, an ASCII table, an image extension, a primary image),
each with one card replaced or added: long unquoted tokens, long quoted strings, long numbers,
a value indicator before column 9, a NUL inside the value. Runs `fitsasdf convert` and
`fitsasdf verify` on each and prints every run that ended by a signal: a clear error is fine,
a signal is a finding (CFITSIO is not instrumented, so its overflows show only as glibc's
fortify aborts or faults). Finding 9 (README.md) was mapped with it; it prints nothing today.
"""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "cli", "fitsasdf")


def fixed(text):
    return text[:80].ljust(80, b" ")


def card(key, value):
    value = value.encode()
    return fixed(key.encode().ljust(8) + b"= " + (value if value.startswith(b"'") else value.rjust(20)))


def header(cards):
    raw = b"".join(cards) + fixed(b"END")
    return raw + b" " * (-len(raw) % 2880)


def padded(data):
    return data + b"\0" * (-len(data) % 2880)


def primary(extra=()):
    return header([card("SIMPLE", "T"), card("BITPIX", "16"), card("NAXIS", "1"),
                   card("NAXIS1", "2"), card("EXTEND", "T"), *extra]) + padded(b"\0" * 4)


def extension(base, data, replace, extra):
    out = []
    for key, value in base:
        out.append(replace.get(key, card(key, value)))
    return header(out + list(extra)) + padded(data)


def bintable(replace={}, extra=()):
    base = [("XTENSION", "'BINTABLE'"), ("BITPIX", "8"), ("NAXIS", "2"), ("NAXIS1", "12"),
            ("NAXIS2", "2"), ("PCOUNT", "0"), ("GCOUNT", "1"), ("TFIELDS", "2"),
            ("TTYPE1", "'A'"), ("TFORM1", "'1J'"), ("TTYPE2", "'B'"), ("TFORM2", "'8A'")]
    return extension(base, b"\0" * 24, replace, extra)


def ascii_table(replace={}, extra=()):
    base = [("XTENSION", "'TABLE'"), ("BITPIX", "8"), ("NAXIS", "2"), ("NAXIS1", "10"),
            ("NAXIS2", "2"), ("PCOUNT", "0"), ("GCOUNT", "1"), ("TFIELDS", "2"),
            ("TTYPE1", "'A'"), ("TFORM1", "'I5'"), ("TBCOL1", "1"), ("TTYPE2", "'B'"),
            ("TFORM2", "'A5'"), ("TBCOL2", "6")]
    return extension(base, b"    1abcde" * 2, replace, extra)


def image(replace={}, extra=()):
    base = [("XTENSION", "'IMAGE'"), ("BITPIX", "16"), ("NAXIS", "2"), ("NAXIS1", "2"),
            ("NAXIS2", "2"), ("PCOUNT", "0"), ("GCOUNT", "1")]
    return extension(base, b"\0" * 8, replace, extra)


KEYS = {
    "bintable": ["TTYPE1", "TFORM1", "TUNIT1", "TDIM1", "TNULL1", "TSCAL1", "TZERO1", "TDISP1",
                 "THEAP", "TFIELDS", "NAXIS1", "PCOUNT", "EXTNAME", "EXTVER", "ZIMAGE",
                 "ZTABLE", "BSCALE", "BLANK", "FOO"],
    "ascii": ["TTYPE1", "TFORM1", "TBCOL1", "TNULL1", "TSCAL1", "TUNIT1", "TFIELDS", "EXTNAME"],
    "image": ["BSCALE", "BZERO", "BLANK", "NAXIS1", "EXTNAME", "BUNIT", "TTYPE1", "ZIMAGE"],
    "primary": ["BSCALE", "BZERO", "BLANK", "EXTEND", "GROUPS", "EXTNAME", "FOO"],
}
KINDS = {"bintable": bintable, "ascii": ascii_table, "image": image}


def variants(key):
    """Cards for `key` with values CFITSIO might copy past a buffer."""
    k = key.encode()
    for fill in (b"X", b"1", b"\xb0"):
        yield fixed(k.ljust(8) + b"= " + fill * 70)        # a token filling the value field
        yield fixed(k.ljust(8) + b"= " + fill * 69)
        yield fixed(k.ljust(8) + b"=" + fill * 71)         # '=' in column 9, no blank
        yield fixed(k.ljust(7) + b"=" + fill * 72)         # '=' before column 9
        yield fixed(k + b"=" + fill * 79)
    yield fixed(k.ljust(8) + b"= '" + b"X" * 68 + b"'")   # the longest quoted string
    yield fixed(k.ljust(8) + b"= '" + b"X" * 69)          # no closing quote
    yield fixed(k.ljust(8) + b"= (" + b"X" * 68 + b")")   # a complex value filling the field
    yield fixed(k.ljust(8) + b"= 1." + b"9" * 60 + b"E99999")
    yield fixed(k.ljust(8) + b"= " + b"X" * 30 + b"\0" + b"X" * 39)


def main():
    found = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "in.fits")
        out = os.path.join(tmp, "out.asdf")
        for kind, keys in KEYS.items():
            for key in keys:
                for n, c in enumerate(variants(key)):
                    if kind == "primary":
                        data = primary([c]) + image()
                    else:
                        build = KINDS[kind]
                        data = primary() + build(replace={key: c})
                        if c not in data:
                            data = primary() + build(extra=[c])
                    with open(path, "wb") as f:
                        f.write(data)
                    for args in (["convert", path, "-o", out, "-q"], ["verify", path]):
                        r = subprocess.run([CLI] + args, capture_output=True, timeout=60)
                        if r.returncode < 0 or r.returncode >= 128:
                            found += 1
                            print("SIGNAL %s %s variant %d: %s %d %s" % (
                                kind, key, n, args[0], r.returncode,
                                r.stderr.decode(errors="replace").strip()[:100]), flush=True)
                    if os.path.exists(out):
                        os.remove(out)
    print("%d runs ended by a signal" % found)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
