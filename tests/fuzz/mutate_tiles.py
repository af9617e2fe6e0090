#!/usr/bin/python3
"""Damage the tiles of fpack's compressed images and tables (by hand, not part of CI).

Usage: /usr/bin/python3 tests/fuzz/mutate_tiles.py [--seed N] [--count N] [path/to/fitsasdf]

Writes small images (uint8, int16, int32, float32, a 4-level mask) and three tables in a scratch
folder, compresses them with fpack (RICE_1, GZIP_1, GZIP_2, HCOMPRESS_1 lossless and lossy,
PLIO_1, edge tiles, and -table), then for each file makes COUNT copies with random damage in
its descriptors and heap (changed bytes, flipped bits, runs of 0x00 or 0xFF, copied runs) and
runs `fitsasdf convert` on each copy. The table with variable-length columns, and the one with
a complex column (which fpack names GZIP_2 but stores unshuffled), get COUNT more copies damaged
a level deeper: one of their gzip column tiles is inflated, damaged (bytes, bits, chosen sizes
such as 2^31 or 2^64-1 in place of descriptors, copied runs, a cut), and deflated again after
the heap. Prints every run that ends by a signal
or exit status 5, or takes more than 20 s, and keeps those inputs in the scratch folder.
CFITSIO is not instrumented, so its faults show only as signals, glibc's heap checks or hangs:
findings 11 to 13 of README.md were found this way. Give the ASan build's CLI
(build-asan/cli/fitsasdf) to see over-reads as well.
"""
import gzip
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def card(key, value):
    return ("%-8s= %20s" % (key, value)).ljust(80).encode()


def block(cards, data):
    head = b"".join(cards) + b"END".ljust(80)
    head += b" " * (-len(head) % 2880)
    return head + data + b"\0" * (-len(data) % 2880)


def image(bitpix, values, nx=64, ny=48):
    fmt = {8: "B", 16: ">h", 32: ">i", -32: ">f"}[bitpix]
    cards = [card("SIMPLE", "T"), card("BITPIX", str(bitpix)), card("NAXIS", "2"),
             card("NAXIS1", str(nx)), card("NAXIS2", str(ny))]
    return block(cards, b"".join(struct.pack(fmt, v) for v in values))


def table(rows=500):
    data = b""
    for r in range(rows):
        data += struct.pack(">i", r * 7 - 5000) + (b"r%d" % r).ljust(8) + \
            struct.pack(">dd", r / 3.0, -r / 7.0) + struct.pack(">h", r % 300)
    primary = block([card("SIMPLE", "T"), card("BITPIX", "8"), card("NAXIS", "0"),
                     card("EXTEND", "T")], b"")
    cards = [card("XTENSION", "'BINTABLE'"), card("BITPIX", "8"), card("NAXIS", "2"),
             card("NAXIS1", "30"), card("NAXIS2", str(rows)), card("PCOUNT", "0"),
             card("GCOUNT", "1"), card("TFIELDS", "4")]
    for n, (name, form) in enumerate([("j", "J"), ("s", "8A"), ("d", "2D"), ("i", "I")], 1):
        cards += [card("TTYPE%d" % n, "'%s'" % name), card("TFORM%d" % n, "'%s'" % form)]
    return primary + block(cards, data)


def complex_table(rows=400):
    """A table with a 2C column beside J and L ones: fpack -table names the C column GZIP_2 but
    stores it unshuffled (read as GZIP_1, tile_guard.h's gzip2_columns_stored_plain)."""
    data = b""
    for r in range(rows):
        data += struct.pack(">i", r * 3 - 700) + \
            struct.pack(">ffff", r / 2.0, -r / 5.0, r * 1.5, 0.25) + (b"T" if r % 3 else b"F")
    primary = block([card("SIMPLE", "T"), card("BITPIX", "8"), card("NAXIS", "0"),
                     card("EXTEND", "T")], b"")
    cards = [card("XTENSION", "'BINTABLE'"), card("BITPIX", "8"), card("NAXIS", "2"),
             card("NAXIS1", "21"), card("NAXIS2", str(rows)), card("PCOUNT", "0"),
             card("GCOUNT", "1"), card("TFIELDS", "3")]
    for n, (name, form) in enumerate([("j", "J"), ("c", "2C"), ("l", "L")], 1):
        cards += [card("TTYPE%d" % n, "'%s'" % name), card("TFORM%d" % n, "'%s'" % form)]
    return primary + block(cards, data)


def vla_table(rows=200):
    """A table with variable-length columns (PJ, QD, PI) beside fixed J, 3X and 2L ones, whose
    compressed tiles hold descriptors and compressed arrays (fpack -table)."""
    pj, qd, pi = b"", b"", b""
    data = b""
    for r in range(rows):
        j = b"".join(struct.pack(">i", r * 1000 + i) for i in range(r % 5))
        d = b"".join(struct.pack(">d", r + i / 4.0) for i in range(r % 3))
        h = b"".join(struct.pack(">h", (r * 3 + i) % 500) for i in range(r % 4))
        data += struct.pack(">ii", r % 5, len(pj)) + struct.pack(">qq", r % 3, len(qd)) + \
            struct.pack(">ii", r % 4, len(pi)) + struct.pack(">i", -r) + \
            bytes([(r * 37) & 0xe0]) + bytes([r % 2, (r + 1) % 2]).replace(b"\0", b"F").replace(
                b"\1", b"T")
        pj, qd, pi = pj + j, qd + d, pi + h
    # One heap: the PJ arrays, then the QD ones, then the PI ones.
    fixed, at = b"", 0
    for r in range(rows):
        row = bytearray(data[r * 39:(r + 1) * 39])
        row[16:24] = struct.pack(">q", struct.unpack(">q", row[16:24])[0] + len(pj))
        row[28:32] = struct.pack(">i", struct.unpack(">i", row[28:32])[0] + len(pj) + len(qd))
        fixed += bytes(row)
    heap = pj + qd + pi
    primary = block([card("SIMPLE", "T"), card("BITPIX", "8"), card("NAXIS", "0"),
                     card("EXTEND", "T")], b"")
    cards = [card("XTENSION", "'BINTABLE'"), card("BITPIX", "8"), card("NAXIS", "2"),
             card("NAXIS1", "39"), card("NAXIS2", str(rows)), card("PCOUNT", str(len(heap))),
             card("GCOUNT", "1"), card("TFIELDS", "6")]
    forms = [("pj", "1PJ(4)"), ("qd", "1QD(2)"), ("pi", "1PI(3)"), ("n", "J"), ("b", "3X"),
             ("l", "2L")]
    for n, (name, form) in enumerate(forms, 1):
        cards += [card("TTYPE%d" % n, "'%s'" % name), card("TFORM%d" % n, "'%s'" % form)]
    return primary + block(cards, fixed + heap)


def inputs(folder):
    w, h = 64, 48
    smooth = [int(1000 + 300 * math.sin(x / 7.0) * math.cos(y / 5.0) + (x * y) % 17)
              for y in range(h) for x in range(w)]
    plain = {"i16": image(16, smooth), "i32": image(32, [p * 1000 for p in smooth]),
             "u8": image(8, [p % 256 for p in smooth]), "f32": image(-32, [p / 7.0 for p in smooth]),
             "mask": image(16, [(p // 100) % 4 for p in smooth]), "table": table(),
             "vtable": vla_table(), "ctable": complex_table()}
    for name, data in plain.items():
        with open(os.path.join(folder, name + ".fits"), "wb") as f:
            f.write(data)
    jobs = [(f, o) for f in ("i16", "i32", "u8", "f32") for o in (["-r"], ["-g"], ["-g2"], ["-h"])]
    jobs += [("mask", ["-p"]), ("i16", ["-h", "-s", "4"]), ("i16", ["-h", "-t", "30,20"]),
             ("i32", ["-g2", "-t", "30,20"]), ("u8", ["-r", "-t", "30,20"]), ("table", ["-table"]),
             ("vtable", ["-table"]), ("ctable", ["-table"])]
    # fpack stamps its CHECKSUM cards with the time; under faketime (Debian's package) they get a
    # fixed one, so that the same files come out every time and a fuzz run seeded with them can be
    # repeated input for input (scripts/fuzz.sh --smoke relies on that).
    clock = ["faketime", "2026-01-01 00:00:00"] if shutil.which("faketime") else []
    out = []
    for n, (name, options) in enumerate(jobs):
        packed = os.path.join(folder, "%s_%d.fits.fz" % (name, n))
        subprocess.run(clock + ["fpack"] + options + ["-O", packed,
                                                      os.path.join(folder, name + ".fits")],
                       check=True, capture_output=True)
        out.append(packed)
    return out


def damage(data, start, rng):
    m = bytearray(data)
    for _ in range(rng.choice([1, 1, 2, 4, 16])):
        at = rng.randrange(start, len(m))
        kind = rng.random()
        n = rng.randrange(1, 64)
        if kind < 0.5:
            m[at] = rng.randrange(256)
        elif kind < 0.7:
            m[at] ^= 1 << rng.randrange(8)
        elif kind < 0.85:
            m[at:at + n] = bytes([rng.choice([0, 255])]) * len(m[at:at + n])
        else:
            src = rng.randrange(start, len(m))
            piece = m[src:src + n]
            m[at:at + len(piece)] = piece[:len(m[at:at + len(piece)])]
    return bytes(m)


def damage_descriptors(data, rng):
    """`data` (fpack's compressed table, the file's last HDU) with one column's tile inflated,
    damaged and deflated again after the heap (PCOUNT and its descriptor follow): a
    variable-length column's (descriptors and compressed-array pairs) when there is one, else a
    gzip-compressed fixed column's."""
    cards, at = {}, 2880
    while data[at:at + 8] != b"END     ":
        cards[data[at:at + 8].decode().strip()] = (at, data[at + 10:at + 30].decode().strip())
        at += 80
    start = (at // 2880 + 1) * 2880
    number = lambda key: int(cards[key][1])
    columns, naxis1, pcount = number("TFIELDS"), number("NAXIS1"), number("PCOUNT")
    heap = start + naxis1 * number("NAXIS2")
    width = naxis1 // columns  # 1PB: 8, 1QB: 16
    vla = [n for n in range(1, columns + 1)
           if cards["ZFORM%d" % n][1].strip("' ").lstrip("0123456789")[:1] in ("P", "Q")]
    gzipped = [n for n in range(1, columns + 1)
               if cards.get("ZCTYP%d" % n, (0, "'GZIP_2'"))[1].strip("' ").startswith("GZIP")]
    where = start + (rng.choice(vla or gzipped) - 1) * width
    pack = ">qq" if width == 16 else ">ii"
    length, offset = struct.unpack(pack, data[where:where + width])
    tile = bytearray(gzip.decompress(data[heap + offset:heap + offset + length]))
    for _ in range(rng.choice([1, 1, 2, 3, 8])):
        kind, at = rng.random(), rng.randrange(len(tile))
        if kind < 0.4:
            tile[at] = rng.randrange(256)
        elif kind < 0.6:
            tile[at] ^= 1 << rng.randrange(8)
        elif kind < 0.8:
            size = rng.choice([4, 8])
            at -= at % size
            value = rng.choice([0, 1, 2, 3, 7, 8, 9, 16, 255, 4095, 65535, 2**31 - 1, 2**31,
                                2**32 - 1, 2**40, 2**63 - 1, 2**64 - 1])
            field = (value % (1 << (8 * size))).to_bytes(size, "big")
            tile[at:at + size] = field[:len(tile[at:at + size])]
        else:
            src, n = rng.randrange(len(tile)), rng.randrange(1, 32)
            piece = tile[src:src + n]
            tile[at:at + len(piece)] = piece
    if rng.random() < 0.1:
        del tile[rng.randrange(len(tile)):]
    packed = gzip.compress(bytes(tile), mtime=0)
    out = bytearray(data[:heap + pcount]) + packed
    out[where:where + width] = struct.pack(pack, len(packed), pcount)
    at = cards["PCOUNT"][0]
    out[at:at + 80] = card("PCOUNT", str(pcount + len(packed)))
    return bytes(out) + b"\0" * (-len(out) % 2880)


def main():
    args = sys.argv[1:]
    seed, count, cli = 1, 200, os.path.join(ROOT, "build", "cli", "fitsasdf")
    while args:
        a = args.pop(0)
        if a == "--seed":
            seed = int(args.pop(0))
        elif a == "--count":
            count = int(args.pop(0))
        else:
            cli = a
    rng = random.Random(seed)
    folder = tempfile.mkdtemp(prefix="fitsasdf-tiles-")
    found = 0
    for path in inputs(folder):
        data = open(path, "rb").read()
        ends = [i for i in range(0, len(data), 80) if data[i:i + 8] == b"END     "]
        start = (ends[1] // 2880 + 1) * 2880  # the compressed HDU's data
        deeper = os.path.basename(path).startswith(("vtable", "ctable"))
        for n in range(2 * count if deeper else count):
            bad = os.path.join(folder, "damaged.fits")
            out = os.path.join(folder, "out.asdf")
            with open(bad, "wb") as f:
                f.write(damage_descriptors(data, rng) if deeper and n >= count else
                        damage(data, start, rng))
            try:
                r = subprocess.run([cli, "convert", bad, "-o", out, "-q", "--no-fsync"],
                                   capture_output=True, timeout=20)
                what = None
                if r.returncode < 0 or r.returncode >= 128 or r.returncode == 5:
                    what = "status %d: %s" % (r.returncode, r.stderr.decode(errors="replace")[:120])
            except subprocess.TimeoutExpired:
                what = "more than 20 s"
            if what:
                found += 1
                keep = os.path.join(folder, "found-%s-%d" % (os.path.basename(path), n))
                os.rename(bad, keep)
                print("%s: %s" % (keep, what.strip()), flush=True)
            if os.path.exists(out):
                os.remove(out)
    print("%d findings (inputs in %s)" % (found, folder))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
