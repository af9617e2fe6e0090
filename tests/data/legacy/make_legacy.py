#!/usr/bin/python3
"""Write the legacy-dialect fixtures (issue 23): small pre-1.0 ASDF files, byte by byte.

Usage: /usr/bin/python3 tests/data/legacy/make_legacy.py [--check]

Deletes and rewrites every *.asdf and *.expected.json next to this script and the damaged/ folder.
The output is the same on every run (no clock, no random numbers; zlib at level 9 and bz2 from the
Python standard library). Needs numpy; --check also needs PyYAML.

Sources of the byte layouts:
  - issue 23's dialect table (header_size decides the layout, never the header line);
  - ../shared/spec/asdf-draft-0.1.0-file-layout-with-encodings.rst (36-byte header, ENCODED flag,
    the YAML encoding chain, `tile`, `quantize`, `zlib`), imitating byte for byte the real files of
    ../shared/corpus/legacy-draft/ (`--- [zlib]\\n...\\n` chain, no padding after the tree);
  - ../shared/spec/asdf-standard-0.1.0dev.txt (`%ASDF 0.1.0`, `\\211BLK`, trees of that era).

Every good fixture X.asdf has X.expected.json:
  {"dialect": {"header_line", "asdf_standard", "magic", "header_size": [per block],
               "layouts": [per block], "encodings": [per block: list of names], "streamed": [...]},
   "arrays": {"/json/pointer": {"dtype", "shape", "md5"}}, "unreadable_blocks": [...],
   "unreadable_arrays": [...], "notes": "..."}
md5 = hashlib.md5(np.ascontiguousarray(a.astype(a.dtype.newbyteorder('<'))).tobytes()).hexdigest()
of the array's values (the dtype str is the little-endian numpy one, e.g. "<f4", "|i1").

damaged/ holds files that must give a clear error (no crash, no huge allocation); each is
described in damaged/DAMAGED.json.

With --check, afterwards reads every fixture back with an independent decoder written below
(different code from the writers: header parsed by header_size, chain YAML parsed with PyYAML,
quantized bits unpacked with numpy, tiles undone by reshape/transpose, ndarrays resolved from the
tree) and compares every md5 with the expected ones; checks that every damaged file fails in that
decoder; and reads the real files of ../shared/corpus/legacy-draft/ against their .yaml twins.
Exits 1 on any mismatch.
"""

import bz2
import codecs
import hashlib
import json
import math
import os
import re
import struct
import sys
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DAMAGED_DIR = os.path.join(HERE, "damaged")
CORPUS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "..", "shared", "corpus", "legacy-draft"))

D3 = b"\xd3BLK"  # "\323BLK", the draft seed and later
X89 = b"\x89BLK"  # "\211BLK", the 0.1.0dev text

STREAMED = 1
ENCODED = 2

LAYOUT_NAMES = {
    "A40": "40: allocated u64, used u64, checksum u64, encoding 16s",
    "B40": "40: flags u32, compression 4s, allocated u64, used u64, data_size u64, checksum u64",
    "H44": "44: flags u32, allocated u64, used u64, checksum u64, encoding 16s",
    "D36": "36: flags u32, allocated u64, used u64, memory_size u64, checksum u64",
    "M48": "48: flags u32, compression 4s, allocated u64, used u64, data_size u64, checksum 16s",
}


def md5_of(a):
    a = np.asarray(a)
    return hashlib.md5(np.ascontiguousarray(a.astype(a.dtype.newbyteorder("<"))).tobytes()).hexdigest()


def le_dtype_str(a):
    return np.asarray(a).dtype.newbyteorder("<").str


def zc(raw):
    return zlib.compress(raw, 9)


def raw_bytes(a, byteorder):
    """The array's values as bytes, C order, in the given byte order ('big' or 'little')."""
    a = np.asarray(a)
    dt = a.dtype.newbyteorder(">" if byteorder == "big" else "<")
    return np.ascontiguousarray(a.astype(dt)).tobytes()


# ---------------------------------------------------------------------------------------------
# Block headers: magic, u16 header_size (big-endian), then the fields of the layout (big-endian).

def hdr_a40(allocated, used, checksum=0, encoding=b"", magic=D3):
    return magic + struct.pack(">HQQQ16s", 40, allocated, used, checksum, encoding)


def hdr_h44(flags, allocated, used, checksum=0, encoding=b"", magic=D3):
    return magic + struct.pack(">HIQQQ16s", 44, flags, allocated, used, checksum, encoding)


def hdr_d36(flags, allocated, used, memory_size, checksum=0, magic=D3, header_size=36):
    return magic + struct.pack(">HIQQQQ", header_size, flags, allocated, used, memory_size, checksum)


def hdr_b40(flags, compression, allocated, used, data_size, checksum=0, magic=D3):
    return magic + struct.pack(">HI4sQQQQ", 40, flags, compression, allocated, used, data_size, checksum)


def hdr_m48(flags, compression, allocated, used, data_size, checksum=b"\0" * 16, magic=D3):
    return magic + struct.pack(">HI4sQQQ16s", 48, flags, compression, allocated, used, data_size, checksum)


class Blk:
    """One written block: its bytes and what the expected.json says about it."""

    def __init__(self, data, header_size, layout, encodings, streamed=False):
        self.data = data
        self.header_size = header_size
        self.layout = layout
        self.encodings = encodings
        self.streamed = streamed


def blk_a40(raw, encoding="", magic=D3, gap=0, checksum=0):
    payload = zc(raw) if encoding == "zlib" else raw
    assert encoding in ("", "zlib")
    used = len(payload)
    return Blk(hdr_a40(used + gap, used, checksum, encoding.encode(), magic) + payload + b"\0" * gap,
               40, "A40", [encoding] if encoding else [])


def blk_h44(raw, encoding="", magic=D3, streamed=False, checksum=0):
    payload = zc(raw) if encoding == "zlib" else raw
    if streamed:
        assert not encoding
        return Blk(hdr_h44(STREAMED, 0, 0, 0, b"", magic) + payload, 44, "H44", [], True)
    used = len(payload)
    return Blk(hdr_h44(0, used, used, checksum, encoding.encode(), magic) + payload, 44, "H44",
               [encoding] if encoding else [])


def blk_b40(raw, compression=b"\0\0\0\0", streamed=False):
    if streamed:
        return Blk(hdr_b40(STREAMED, b"\0\0\0\0", 0, 0, 0) + raw, 40, "B40", [], True)
    payload = {b"zlib": zc, b"bzp2": lambda r: bz2.compress(r, 9), b"\0\0\0\0": lambda r: r}[compression](raw)
    used = len(payload)
    names = [] if compression == b"\0\0\0\0" else [compression.decode()]
    return Blk(hdr_b40(0, compression, used, used, len(raw)) + payload, 40, "B40", names)


def blk_m48(raw, compression=b"\0\0\0\0", with_md5=False):
    payload = {b"zlib": zc, b"bzp2": lambda r: bz2.compress(r, 9), b"\0\0\0\0": lambda r: r}[compression](raw)
    used = len(payload)
    checksum = hashlib.md5(raw).digest() if with_md5 else b"\0" * 16
    names = [] if compression == b"\0\0\0\0" else [compression.decode()]
    return Blk(hdr_m48(0, compression, used, used, len(raw), checksum) + payload, 48, "M48", names)


def chain_doc(chain_text, nl="\n"):
    """The YAML chain document that starts the data of an ENCODED 36-byte block."""
    return ("--- " + chain_text + nl + "..." + nl).encode()


def blk_d36(raw=None, chain_text=None, encoded=None, names=(), memory_size=None, gap=0,
            checksum=0, streamed=False, nl="\n", magic=D3):
    """A 36-byte block. Not encoded: data = raw. Encoded: data = chain doc + `encoded` bytes,
    memory_size = the decoded size (len(raw) unless given)."""
    if streamed:
        return Blk(hdr_d36(STREAMED, 0, 0, 0, 0, magic) + raw, 36, "D36", [], True)
    if chain_text is None:
        used = len(raw)
        return Blk(hdr_d36(0, used + gap, used, used, checksum, magic) + raw + b"\0" * gap, 36, "D36", [])
    payload = chain_doc(chain_text, nl) + encoded
    used = len(payload)
    mem = len(raw) if memory_size is None else memory_size
    return Blk(hdr_d36(ENCODED, used + gap, used, mem, checksum, magic) + payload + b"\0" * gap, 36, "D36",
               list(names))


# ---------------------------------------------------------------------------------------------
# The draft seed's encodings (writers; the --check decoder below is separate code).

def tile_encode(a, tile_shape):
    """Tiles in C order of the tile grid, each tile's elements in C order, edge tiles padded with
    zeros to the full tile shape. Returns a 1-D array (same dtype) of the tiled elements."""
    a = np.asarray(a)
    grid = [-(-n // t) for n, t in zip(a.shape, tile_shape)]
    out = []
    for gidx in np.ndindex(*grid):
        tile = np.zeros(tile_shape, dtype=a.dtype)
        src = tuple(slice(g * t, min((g + 1) * t, n)) for g, t, n in zip(gidx, tile_shape, a.shape))
        piece = a[src]
        tile[tuple(slice(0, s) for s in piece.shape)] = piece
        out.extend(tile.ravel().tolist())
    return np.array(out, dtype=a.dtype), grid


def quantize_encode(values, chunks):
    """values: 1-D float64 (the array being quantized, in order). chunks: list of (nvalues, bits).
    Per chunk: offset = middle of the chunk's range plus an inexact 1/10, scale so that the range
    fits in bits - 1 levels each side. Returns (stream bytes, decoded float64 values)."""
    values = np.asarray(values, dtype=np.float64)
    assert sum(n for n, _ in chunks) == values.size
    stream = b""
    decoded = []
    pos = 0
    for n, bits in chunks:
        v = values[pos:pos + n]
        pos += n
        lo, hi = float(v.min()), float(v.max())
        offset = (lo + hi) / 2 + 0.1
        half = max(hi - offset, offset - lo)
        levels = (1 << (bits - 1)) - 1
        scale = half / (levels - 1) if half > 0 else 1.0
        enc = [int(round((x - offset) / scale)) for x in v.tolist()]
        assert all(-(1 << (bits - 1)) <= e <= levels for e in enc), (bits, min(enc), max(enc))
        assert any(e < 0 for e in enc)
        acc = 0
        for e in enc:
            acc = (acc << bits) | (e & ((1 << bits) - 1))
        total = n * bits
        pad = (-total) % 8
        acc <<= pad
        stream += struct.pack(">BddQ", bits, offset, scale, n) + acc.to_bytes((total + pad) // 8, "big")
        decoded.extend(float(e) * scale + offset for e in enc)
    return stream, np.array(decoded, dtype=np.float64)


# ---------------------------------------------------------------------------------------------
# Trees

FORM_U = ("%TAG ! tag:stsci.edu:asdf/0.1.0/\n--- !core/asdf\n", "!core/ndarray", "!core/complex")
FORM_V = ("%TAG ! tag:stsci.edu:asdf/\n--- !core/asdf-0.1.0\n", "!core/ndarray-0.1.0", "!core/complex-0.1.0")


def shape_text(shape):
    return "[" + ", ".join("'*'" if s == "*" else str(s) for s in shape) + "]"


def nd(key, form, source, dtype, byteorder, shape, dkey="datatype", offset=None):
    text = f"{key}: {form[1]}\n  source: {source}\n  {dkey}: {dtype}\n  byteorder: {byteorder}\n"
    text += f"  shape: {shape_text(shape)}\n"
    if offset is not None:
        text += f"  offset: {offset}\n"
    return text


def tree(header_lines, form, body, padding=0, nl="\n"):
    text = "".join(h + "\n" for h in header_lines) + "%YAML 1.1\n" + form[0] + body + "...\n"
    if nl != "\n":
        text = text.replace("\n", nl)
    return text.encode() + b" " * padding


# ---------------------------------------------------------------------------------------------
# Fixture registry

GOOD = []      # (name, bytes, expected dict)
DAMAGED = []   # (name, bytes, description dict)


def good(name, header_lines, blocks, arrays, notes, tree_bytes, magic=D3, unreadable_blocks=(),
         unreadable_arrays=(), external=None, block_index=False):
    data = tree_bytes
    offsets = []
    for b in blocks:
        offsets.append(len(data))
        data += b.data
    if block_index:
        assert not any(b.streamed for b in blocks)
        data += ("#ASDF BLOCK INDEX\n%YAML 1.1\n--- [" + ", ".join(map(str, offsets)) + "]\n...\n").encode()
    exp = {
        "dialect": {
            "header_line": header_lines[0],
            "asdf_standard": next((h.split()[1] for h in header_lines if h.startswith("#ASDF_STANDARD")), None),
            "magic": magic.hex(),
            "header_size": [b.header_size for b in blocks],
            "layouts": [b.layout for b in blocks],
            "encodings": [b.encodings for b in blocks],
            "streamed": [b.streamed for b in blocks],
            "block_offsets": offsets,
        },
        "arrays": {p: {"dtype": le_dtype_str(a), "shape": list(np.asarray(a).shape), "md5": md5_of(a)}
                   for p, a in arrays.items()},
        "unreadable_blocks": list(unreadable_blocks),
        "unreadable_arrays": list(unreadable_arrays),
        "notes": notes,
    }
    if external:
        exp["dialect"]["external"] = external
    assert len(data) < 20000, (name, len(data))
    GOOD.append((name, data, exp))


def ramp(n, scale=1.0, shift=0.0):
    """Deterministic values without libm: (i * 37 mod 101) * scale + shift, exact in float64."""
    return np.array([((i * 37) % 101) * scale + shift for i in range(n)], dtype=np.float64)


def build_good():
    # --- 40-byte layout A under "%ASDF 0.1.0" with "\211BLK" (the 0.1.0dev text) -------------
    hl = ["%ASDF 0.1.0"]
    data = (np.arange(12, dtype=np.float64).reshape(3, 4) * 1.25 - 3.5)
    counts = np.array([7, -3, 100000, -2147483648, 2147483647], dtype=np.int32)
    body = (nd("data", FORM_U, 0, "float64", "little", [3, 4], "dtype")
            + nd("counts", FORM_U, 1, "int32", "big", [5], "dtype")
            + "identity: !core/ndarray [[1, 0, 0], [0, 1, 0], [0, 0, 1]]\n"
            + "gain: !core/complex 1-1j\n")
    good("a40-percent-89blk", hl,
         [blk_a40(raw_bytes(data, "little"), "", X89), blk_a40(raw_bytes(counts, "big"), "zlib", X89)],
         {"/data": data, "/counts": counts, "/identity": np.eye(3, dtype=np.int64)},
         "%ASDF header line, \\211BLK magic, 40-byte header with no flags (layout A); block 1 zlib "
         "(encoding field 'zlib' NUL-padded to 16). dtype: key (0.1.0dev). /identity is inline data with "
         "no dtype: inferred int64 (0.1.0dev inline-data rules). /gain is a !core/complex scalar. "
         "32 spaces between the tree and the first block.",
         tree(hl, FORM_U, body, padding=32), magic=X89)

    # --- 40-byte layout A under "#ASDF 0.1.0" with "\323BLK" ---------------------------------
    hl = ["#ASDF 0.1.0"]
    u16 = np.array([[0, 1, 65535], [256, 4660, 32768]], dtype=np.uint16)
    f32 = np.array([0.5, -1.25, 3.0e38, -7.0], dtype=np.float32)
    body = ("hdus:\n- data: !core/ndarray-0.1.0\n    source: 0\n    datatype: uint16\n    byteorder: little\n"
            "    shape: [2, 3]\n- data: !core/ndarray-0.1.0\n    source: 1\n    datatype: float32\n"
            "    byteorder: big\n    shape: [4]\nz: !core/complex-0.1.0 2.5+0.5j\n")
    good("a40-hash-d3blk", hl,
         [blk_a40(raw_bytes(u16, "little"), "", D3, gap=8), blk_a40(raw_bytes(f32, "big"), "zlib", D3)],
         {"/hdus/0/data": u16, "/hdus/1/data": f32},
         "#ASDF header line, \\323BLK, 40-byte layout A; block 0 has allocated = used + 8 (8 NUL bytes "
         "follow its data), block 1 zlib. Tags in the tag:stsci.edu:asdf/ + -0.1.0 form, datatype: key, "
         "arrays inside a list.",
         tree(hl, FORM_V, body))

    # --- 44-byte layout under "%ASDF 0.1.0" / "\211BLK", streamed last block --------------------
    hl = ["%ASDF 0.1.0"]
    i64 = np.array([1, -1, 2 ** 40, -(2 ** 62), 0, 9], dtype=np.int64)
    stream = np.arange(12, dtype=np.float64).reshape(4, 3) / 4.0
    body = (nd("data", FORM_U, 0, "int64", "little", [6], "dtype")
            + nd("stream", FORM_U, -1, "float64", "little", ["*", 3], "dtype"))
    good("h44-percent-streamed", hl,
         [blk_h44(raw_bytes(i64, "little"), "", X89), blk_h44(raw_bytes(stream, "little"), "", X89, streamed=True)],
         {"/data": i64, "/stream": stream},
         "%ASDF, \\211BLK, 44-byte header (flags u32 first). Block 1 is streamed: flags=1, allocated, "
         "used and checksum 0, data to the end of the file (96 bytes); its ndarray has source: -1 and "
         "shape ['*', 3] (4 rows from the block length).",
         tree(hl, FORM_U, body), magic=X89)

    # --- 44-byte layout under "#ASDF 0.1.0" / "\323BLK" with zlib ------------------------------
    hl = ["#ASDF 0.1.0"]
    i16 = (np.arange(16, dtype=np.int16).reshape(4, 4) * 997 - 8000).astype(np.int16)
    u8 = np.arange(250, 260, dtype=np.int64).astype(np.uint8)
    body = (nd("image", FORM_V, 0, "int16", "big", [4, 4]) + nd("bytes", FORM_V, 1, "uint8", "big", [10]))
    good("h44-hash-zlib", hl, [blk_h44(raw_bytes(i16, "big"), "zlib", D3), blk_h44(raw_bytes(u8, "big"), "", D3)],
         {"/image": i16, "/bytes": u8},
         "#ASDF, \\323BLK, 44-byte header; block 0 zlib (encoding field), block 1 plain. -0.1.0 tags.",
         tree(hl, FORM_V, body))

    # --- 40-byte layout B (flags, compression 4s, ..., data_size, checksum u64) -----------------
    hl = ["#ASDF 0.1.0"]
    f64 = np.arange(9, dtype=np.float64).reshape(3, 3) * -0.5
    i16b = np.array([-32768, -1, 0, 1, 2, 300, 32767], dtype=np.int16)
    i32s = np.arange(10, dtype=np.int32).reshape(5, 2) * 1000 - 4000
    body = (nd("matrix", FORM_U, 0, "float64", "little", [3, 3])
            + nd("small", FORM_U, 1, "int16", "big", [7])
            + nd("rows", FORM_U, 2, "int32", "little", ["*", 2]))
    good("b40-hash-zlib", hl,
         [blk_b40(raw_bytes(f64, "little"), b"zlib"), blk_b40(raw_bytes(i16b, "big")),
          blk_b40(raw_bytes(i32s, "little"), streamed=True)],
         {"/matrix": f64, "/small": i16b, "/rows": i32s},
         "#ASDF, \\323BLK, 40-byte layout B: flags u32, compression 4 bytes, allocated, used, data_size, "
         "checksum u64. Block 0 compression 'zlib' (data_size 72), block 1 compression NUL, block 2 "
         "streamed (flags=1, sizes 0, shape ['*', 2] -> 5 rows). Tell layout B from layout A (also 40) by "
         "the bytes after header_size: B has flags 0/1 then 'zlib'/'bzp2'/NUL NUL NUL NUL.",
         tree(hl, FORM_U, body))

    hl = ["#ASDF 0.1.0"]
    f32b = np.array([1.0, 2.5, -3.75, 1e-3, 6.0e10, -0.0], dtype=np.float32)
    good("b40-bzp2", hl, [blk_b40(raw_bytes(f32b, "little"), b"bzp2")], {"/data": f32b},
         "40-byte layout B with compression 'bzp2' (the issue: zlib/bzp2 where the dialect has "
         "compression).",
         tree(hl, FORM_U, nd("data", FORM_U, 0, "float32", "little", [6])))

    # --- 48-byte (today's layout) under "#ASDF 0.1.0" ------------------------------------------
    hl = ["#ASDF 0.1.0"]
    f32c = (np.arange(20, dtype=np.float32).reshape(4, 5) - 10) / 8
    c128 = np.array([1 - 1j, 2.5 + 0j, -0.5 + 3j], dtype=np.complex128)
    body = nd("sci", FORM_V, 0, "float32", "little", [4, 5]) + nd("phase", FORM_V, 1, "complex128", "little", [3])
    good("m48-hash", hl,
         [blk_m48(raw_bytes(f32c, "little"), b"zlib"), blk_m48(raw_bytes(c128, "little"), with_md5=True)],
         {"/sci": f32c, "/phase": c128},
         "#ASDF 0.1.0 with today's 48-byte header. Block 0 zlib with zero checksum, block 1 with the "
         "MD5 of its data (correct). -0.1.0 tags, datatype: key.",
         tree(hl, FORM_V, body, padding=16))

    hl = ["#ASDF 0.1.0", "#ASDF_STANDARD 0.1.0"]
    i32c = (np.arange(12, dtype=np.int32).reshape(2, 2, 3) - 6) * 123456
    f64d = np.array([0.1, 0.2, 0.30000000000000004, 1e300, -1e-300], dtype=np.float64)
    body = nd("cube", FORM_U, 0, "int32", "big", [2, 2, 3]) + nd("values", FORM_U, 1, "float64", "little", [5])
    good("m48-standard", hl,
         [blk_m48(raw_bytes(i32c, "big"), b"bzp2"), blk_m48(raw_bytes(f64d, "little"), with_md5=True)],
         {"/cube": i32c, "/values": f64d},
         "#ASDF 0.1.0 then the comment #ASDF_STANDARD 0.1.0, 48-byte headers, block 0 bzp2 (zero "
         "checksum), block 1 plain with a correct MD5; a correct block index at the end. Unversioned "
         "tags.",
         tree(hl, FORM_U, body), block_index=True)

    # --- 36-byte draft seed ---------------------------------------------------------------------
    hl = ["#ASDF 0.1.0"]
    f64e = np.arange(12, dtype=np.float64) * 0.75 - 2
    i8 = np.array([-128, -1, 0, 1, 127], dtype=np.int8)
    body = (nd("data", FORM_U, 0, "float64", "big", [3, 4], "dtype")
            + nd("view", FORM_U, 0, "float64", "big", [2, 4], "dtype", offset=32)
            + nd("flags", FORM_U, 1, "int8", "little", [5], "dtype")
            + "inline: !core/ndarray\n  dtype: float64\n  data: [[1.5, 2.0], [3.25, -4.0]]\n"
            + "zc: !core/ndarray\n  dtype: complex128\n  data: [!core/complex 1-1j, !core/complex 2.5+0j]\n")
    good("d36-plain", hl, [blk_d36(raw_bytes(f64e, "big")), blk_d36(raw_bytes(i8, "little"))],
         {"/data": f64e.reshape(3, 4), "/view": f64e[4:12].reshape(2, 4), "/flags": i8,
          "/inline": np.array([[1.5, 2.0], [3.25, -4.0]]), "/zc": np.array([1 - 1j, 2.5 + 0j])},
         "36-byte draft header, not ENCODED (memory_size = used_size). Big-endian float64 block shared "
         "by /data and /view (offset: 32, shape [2, 4] = elements 4..11). dtype: key. /inline and /zc "
         "are inline (data: with an explicit dtype; /zc of !core/complex values).",
         tree(hl, FORM_U, body))

    hl = ["#ASDF 0.1.0"]
    i32z = np.arange(100, dtype=np.int32).reshape(10, 10) * 3 - 50
    raw = raw_bytes(i32z, "little")
    good("d36-zlib", hl, [blk_d36(raw, "[zlib]", zc(raw), ["zlib"])], {"/data": i32z},
         "36-byte header, flags=ENCODED, data = '--- [zlib]\\n...\\n' + zlib stream, as in the corpus's "
         "compressed.asdf; used_size includes the chain document, memory_size = 400.",
         tree(hl, FORM_U, nd("data", FORM_U, 0, "int32", "little", [10, 10])))

    hl = ["#ASDF 0.1.0"]
    i16t = ((np.arange(70, dtype=np.int64).reshape(10, 7) * 911) % 65536 - 32768).astype(np.int16)
    tiled, grid = tile_encode(i16t, (4, 3))
    assert grid == [3, 3] and tiled.size == 108
    raw = raw_bytes(i16t, "big")
    chain = "[[tile, {shape: [4, 3], original_shape: [10, 7], item_size: 2}], zlib]"
    good("d36-tile-zlib", hl, [blk_d36(raw, chain, zc(raw_bytes(tiled, "big")), ["tile", "zlib"])],
         {"/image": i16t},
         "36-byte ENCODED, chain tile then zlib on a [10, 7] big-endian int16 array with tiles [4, 3]: "
         "3 x 3 tiles, the right and bottom ones padded with zeros, so zlib inflates to 108 items = 216 "
         "bytes while memory_size (the decoded array) is 140.",
         tree(hl, FORM_U, nd("image", FORM_U, 0, "int16", "big", [10, 7])))

    hl = ["#ASDF 0.1.0"]
    f32q = (ramp(90, 0.37, -18.0).reshape(9, 10)).astype(np.float32)
    tiled, grid = tile_encode(f32q, (4, 4))
    assert grid == [3, 3] and tiled.size == 144
    qstream, qdec = quantize_encode(tiled.astype(np.float64), [(75, 12), (69, 7)])
    # decoded = encoded * scale + offset in float64, cast to float32; then the tiles are undone.
    untile = np.zeros((12, 12), dtype=np.float32)
    q32 = qdec.astype(np.float32).reshape(3, 3, 4, 4)
    for gy in range(3):
        for gx in range(3):
            untile[gy * 4:(gy + 1) * 4, gx * 4:(gx + 1) * 4] = q32[gy, gx]
    expected_q = untile[:9, :10].copy()
    raw = raw_bytes(f32q, "little")
    chain = ("[[tile, {shape: [4, 4], original_shape: [9, 10], item_size: 4}], "
             "[quantize, {dtype: 32, original_shape: [3, 3, 4, 4]}], zlib]")
    good("d36-tile-quantize-zlib", hl,
         [blk_d36(raw, chain, zc(qstream), ["tile", "quantize", "zlib"])], {"/sci": expected_q},
         "36-byte ENCODED, chain tile [4, 4] -> quantize (dtype 32) -> zlib on a [9, 10] float32 array. "
         "The tiled array (3 x 3 tiles of 4 x 4, zero padding, 144 values) is quantized in 2 chunks: 75 "
         "values of 12 bits then 69 values of 7 bits (chunk data 113 and 61 bytes, zero-padded to a "
         "byte), offset and scale f64 BE, nvalues u64 BE. quantize's original_shape [3, 3, 4, 4] is the "
         "tiled array (grid then tile dims; only its element count, 144, matters). Expected values: "
         "encoded * scale + offset in float64, cast to float32, then untiled. memory_size = 360.",
         tree(hl, FORM_U, nd("sci", FORM_U, 0, "float32", "little", [9, 10])))

    hl = ["#ASDF 0.1.0"]
    f64q = ramp(30, -1.0e5 / 101, 12345.678).reshape(5, 6)
    qstream, qdec = quantize_encode(f64q.ravel(), [(7, 3), (11, 21), (12, 45)])
    raw = raw_bytes(f64q, "big")
    good("d36-quantize64", hl,
         [blk_d36(raw, "[[quantize, {dtype: 64, original_shape: [5, 6]}]]", qstream, ["quantize"])],
         {"/data": qdec.reshape(5, 6)},
         "36-byte ENCODED, chain [quantize] alone (dtype 64, no zlib) on a [5, 6] big-endian float64 "
         "array: 3 chunks of 7 x 3 bits, 11 x 21 bits, 12 x 45 bits (negative values included). "
         "Expected = encoded * scale + offset in float64.",
         tree(hl, FORM_U, nd("data", FORM_U, 0, "float64", "big", [5, 6])))

    hl = ["#ASDF 0.1.0"]
    f64u = np.array([1.0, -2.0, 3.5, 1e-10])
    text = b"Hello, World!"
    raw0 = raw_bytes(f64u, "little")
    body = nd("ok", FORM_U, 0, "float64", "little", [4]) + nd("secret", FORM_U, 1, "uint8", "little", [13])
    good("d36-unknown-encoding", hl,
         [blk_d36(raw0, "[zlib]", zc(raw0), ["zlib"]),
          blk_d36(text, "[rot13]", codecs.encode(text.decode(), "rot13").encode(), ["rot13"])],
         {"/ok": f64u}, "Block 1's chain is [rot13], an unknown encoding: block 1 (and /secret) must give "
         "a clear error for that block only; block 0 ([zlib]) and /ok must still read.",
         tree(hl, FORM_U, body), unreadable_blocks=[1], unreadable_arrays=["/secret"])

    hl = ["#ASDF 0.1.0"]
    i32g = np.array([10, 20, 30, -40, 50, 60], dtype=np.int32)
    u16g = (np.arange(15, dtype=np.uint16).reshape(3, 5) * 4099).astype(np.uint16)
    raw1 = raw_bytes(u16g, "big")
    body = nd("first", FORM_U, 0, "int32", "little", [6]) + nd("second", FORM_U, 1, "uint16", "big", [3, 5])
    good("d36-allocated-gap", hl,
         [blk_d36(raw_bytes(i32g, "little"), gap=40), blk_d36(raw1, "[zlib]", zc(raw1), ["zlib"], gap=11)],
         {"/first": i32g, "/second": u16g},
         "allocated_size > used_size: block 0 (plain) is followed by 40 NUL bytes before block 1's magic; "
         "block 1 ([zlib]) by 11 NUL bytes at the end of the file. The next block starts after "
         "allocated_size, not used_size.",
         tree(hl, FORM_U, body))

    hl = ["#ASDF 0.1.0"]
    f32k = np.array([3.0, 1.0, 4.0, 1.5], dtype=np.float32)
    good("d36-bad-checksum", hl, [blk_d36(raw_bytes(f32k, "little"), checksum=0x0123456789ABCDEF)],
         {"/data": f32k},
         "The block's checksum field is 0x0123456789abcdef, wrong (the draft calls it an MD5 but gives "
         "it 64 bits). Checksums of that era are advisory: report, do not fail; the array must read.",
         tree(hl, FORM_U, nd("data", FORM_U, 0, "float32", "little", [4])))

    hl = ["#ASDF 0.1.0"]
    i64s = np.array([5, 4, 3, 2, 1], dtype=np.int64)
    f32s = np.array([[1, 2], [3, 4], [5, 6]], dtype=np.float32) / 3
    raw0 = raw_bytes(i64s, "little")
    body = nd("head", FORM_V, 0, "int64", "little", [5]) + nd("tail", FORM_V, -1, "float32", "big", ["*", 2])
    good("d36-streamed", hl,
         [blk_d36(raw0, "[zlib]", zc(raw0), ["zlib"]), blk_d36(raw_bytes(f32s, "big"), streamed=True)],
         {"/head": i64s, "/tail": f32s},
         "36-byte: block 0 [zlib], block 1 streamed (flags=1, sizes 0, to the end of the file: 24 bytes, "
         "shape ['*', 2] -> 3 rows of big-endian float32). -0.1.0 tags.",
         tree(hl, FORM_V, body))

    hl = ["#ASDF 0.1.0"]
    i16c = np.array([1, -2, 3, -4, 5, -6, 7, -8], dtype=np.int16)
    raw = raw_bytes(i16c, "little")
    good("d36-crlf", hl, [blk_d36(raw, "[zlib]", zc(raw), ["zlib"], nl="\r\n")], {"/data": i16c},
         "DOS newlines everywhere (header line, tree, and the chain document '--- [zlib]\\r\\n...\\r\\n'), "
         "which both drafts allow (\\r?\\n...\\r?\\n).",
         tree(hl, FORM_U, nd("data", FORM_U, 0, "int16", "little", [8]), nl="\r\n"))

    # --- exploded: tree file + one-block file (44-byte, %ASDF, \211BLK) ------------------------
    hl = ["%ASDF 0.1.0"]
    f32x = np.arange(10, dtype=np.float32).reshape(2, 5) * 0.5 + 100
    ext = blk_h44(raw_bytes(f32x, "little"), "zlib", X89)
    good("x44-exploded0000", hl, [ext], {},
         "The block file of x44-exploded.asdf: header line then one 44-byte zlib block, no tree, no "
         "padding.", b"%ASDF 0.1.0\n", magic=X89)
    good("x44-exploded", hl, [], {"/data": f32x},
         "Exploded form: no block here; /data has source: x44-exploded0000.asdf (a relative file name), "
         "whose first block holds the data.",
         tree(hl, FORM_U, "data: !core/ndarray\n  source: x44-exploded0000.asdf\n  dtype: float32\n"
              "  byteorder: little\n  shape: [2, 5]\n"), magic=X89,
         external={"x44-exploded0000.asdf": {"header_size": [44], "encodings": [["zlib"]]}})


# ---------------------------------------------------------------------------------------------
# Damaged files

def damaged(name, data, defect, scope, category, header_size):
    assert len(data) < 20000, (name, len(data))
    DAMAGED.append((name, data, {"defect": defect, "scope": scope, "suggested_category": category,
                                 "header_size": header_size}))


def build_damaged():
    hl = ["#ASDF 0.1.0"]
    i32 = np.arange(20, dtype=np.int32)
    raw = raw_bytes(i32, "little")
    t = tree(hl, FORM_U, nd("data", FORM_U, 0, "int32", "little", [20]))

    full = t + blk_d36(raw).data
    damaged("truncated-block", full[:len(full) - 30],
            "36-byte plain block: used_size 80 but the file ends 50 bytes into its data", "file",
            "truncated", 36)

    damaged("used-beyond-eof", t + hdr_d36(0, 1 << 40, 1 << 40, 1 << 40) + raw,
            "36-byte plain block: allocated/used/memory_size 2^40 (1 TiB) with 80 bytes of data left; "
            "must not allocate", "file", "truncated", 36)

    damaged("header-truncated", t + D3 + struct.pack(">H", 36) + b"\0\0\0\0\0\0\0\0\0",
            "the file ends 9 bytes into a 36-byte block header", "file", "truncated", 36)

    damaged("header-size-12", t + D3 + struct.pack(">HIQ", 12, 0, 80) + raw,
            "block header_size 12: no known layout (36/40/44/48), too small for any", "file", "malformed", 12)

    t128 = tree(hl, FORM_U, nd("data", FORM_U, 0, "float64", "little", [128]))
    bomb = zlib.compress(b"\0" * (8 << 20), 9)
    damaged("zlib-bomb", t128 + blk_d36(b"\0" * 1024, "[zlib]", bomb, ["zlib"]).data,
            "[zlib] with memory_size 1024 (the tree says 128 float64) whose stream inflates to 8 MiB of "
            "zeros (one deflate stream cannot exceed ~1032:1, so 64 MiB would not fit in a small file; "
            "see zlib-bomb-chained)", "block 0", "compression", 36)

    inner = zlib.compress(b"\0" * (64 << 20), 9)
    outer = zlib.compress(inner, 9)
    damaged("zlib-bomb-chained", t128 + blk_d36(b"\0" * 1024, "[zlib, zlib]", outer, ["zlib", "zlib"]).data,
            "[zlib, zlib] with memory_size 1024: the outer stream inflates to a %d-byte zlib stream that "
            "inflates to 64 MiB of zeros. Decoding must stop at the size limit, not after 64 MiB"
            % len(inner), "block 0", "compression", 36)

    t4 = tree(hl, FORM_U, nd("data", FORM_U, 0, "float64", "little", [4]))
    chunk = struct.pack(">BddQ", 12, 0.0, 1.0, 4) + b"\x12\x34\x56"
    damaged("quantize-nvalues-exceeds", t4 + blk_d36(b"\0" * 32, "[[quantize, {dtype: 64, original_shape: [4]}]]",
                                                     chunk, ["quantize"]).data,
            "quantize chunk: 12 bits x nvalues 4 (= original_shape) needs 6 bytes of data, 3 are "
            "present", "block 0", "compression", 36)

    chunk = struct.pack(">BddQ", 8, 0.0, 1.0, (1 << 61) + 1) + b"\x01\x02\x03\x04"
    damaged("quantize-nvalues-overflow", t4 + blk_d36(b"\0" * 32, "[[quantize, {dtype: 64, original_shape: [4]}]]",
                                                      chunk, ["quantize"]).data,
            "quantize chunk: 8 bits x nvalues 2^61+1: the bit count 2^64+8 wraps to 8 in 64-bit "
            "arithmetic (1 byte, present); must be refused, not read as 1 value", "block 0", "compression", 36)

    chunk = struct.pack(">BddQ", 99, 0.0, 1.0, 4) + b"\0" * 50
    damaged("quantize-bits-99", t4 + blk_d36(b"\0" * 32, "[[quantize, {dtype: 64, original_shape: [4]}]]",
                                             chunk, ["quantize"]).data,
            "quantize chunk with encoded_bits 99 (more than 64)", "block 0", "compression", 36)

    ti = tree(hl, FORM_U, nd("data", FORM_U, 0, "int16", "little", [4, 4]))
    damaged("tile-zero-shape", ti + blk_d36(b"\0" * 32, "[[tile, {shape: [0, 4], original_shape: [4, 4], "
                                            "item_size: 2}], zlib]", zc(b"\0" * 32), ["tile", "zlib"]).data,
            "tile shape [0, 4] (a zero dimension; division by zero in the grid size)", "block 0",
            "compression", 36)

    th = tree(hl, FORM_U, nd("data", FORM_U, 0, "float64", "little", [2, 2]))
    damaged("tile-huge", th + blk_d36(b"\0" * 32, "[[tile, {shape: [1000000, 1000000], original_shape: [2, 2], "
                                      "item_size: 8}], zlib]", zc(b"\0" * 32), ["tile", "zlib"]).data,
            "tile shape [1000000, 1000000] on a [2, 2] array: the padded tile is 8e12 bytes while the "
            "data holds 32; must be refused before allocating", "block 0", "compression", 36)

    damaged("chain-not-list", t + blk_d36(raw, "{zlib: null}", zc(raw), ["?"]).data,
            "ENCODED chain document '--- {zlib: null}' is a mapping, not a list", "block 0", "compression", 36)

    payload = b"--- [zlib]\n" + zc(raw)
    damaged("chain-unterminated", t + hdr_d36(ENCODED, len(payload), len(payload), 80) + payload,
            "ENCODED block whose chain document has no '...' end marker within used_size", "block 0",
            "compression", 36)


# ---------------------------------------------------------------------------------------------
# Writing

def clean():
    for d in (HERE, DAMAGED_DIR):
        if not os.path.isdir(d):
            continue
        for f in os.listdir(d):
            if f.endswith(".asdf") or f.endswith(".expected.json") or f == "DAMAGED.json":
                os.remove(os.path.join(d, f))


def write_all():
    build_good()
    build_damaged()
    clean()
    os.makedirs(DAMAGED_DIR, exist_ok=True)
    for name, data, exp in GOOD:
        with open(os.path.join(HERE, name + ".asdf"), "wb") as f:
            f.write(data)
        with open(os.path.join(HERE, name + ".expected.json"), "w") as f:
            json.dump(exp, f, indent=1)
            f.write("\n")
    desc = {}
    for name, data, d in DAMAGED:
        with open(os.path.join(DAMAGED_DIR, name + ".asdf"), "wb") as f:
            f.write(data)
        desc[name + ".asdf"] = d
    with open(os.path.join(DAMAGED_DIR, "DAMAGED.json"), "w") as f:
        json.dump(desc, f, indent=1)
        f.write("\n")
    print(f"wrote {len(GOOD)} fixtures and {len(DAMAGED)} damaged files")


# ---------------------------------------------------------------------------------------------
# Independent reader for --check

class Bad(Exception):
    pass


def read_header_line(data):
    nl = data.index(b"\n")
    line = data[:nl].rstrip(b"\r").decode()
    if not re.fullmatch(r"[%#]ASDF \d+\.\d+\.\d+", line):
        raise Bad("header line " + line)
    return line, nl + 1


def find_tree_end(data, start):
    m = re.compile(rb"\r?\n\.\.\.\r?\n").search(data, start)
    return m.end() if m else None


def parse_yaml(text):
    import yaml

    class L(yaml.SafeLoader):
        pass

    def tagged(loader, suffix, node):
        if isinstance(node, yaml.MappingNode):
            v = loader.construct_mapping(node, deep=True)
        elif isinstance(node, yaml.SequenceNode):
            v = loader.construct_sequence(node, deep=True)
        else:
            v = loader.construct_scalar(node)
        return {"__tag__": node.tag, "__value__": v}

    L.add_multi_constructor("tag:stsci.edu:asdf/", tagged)
    return yaml.load(text, Loader=L)


def parse_block_header(data, pos):
    magic = data[pos:pos + 4]
    if magic not in (D3, X89):
        raise Bad(f"no block magic at {pos}")
    if pos + 6 > len(data):
        raise Bad("truncated header")
    hs = struct.unpack(">H", data[pos + 4:pos + 6])[0]
    h = data[pos + 6:pos + 6 + hs]
    if len(h) < hs:
        raise Bad("truncated header")
    b = {"header_size": hs, "flags": 0, "names": [], "memory_size": None}
    if hs == 36:
        b["layout"] = "D36"
        b["flags"], b["allocated"], b["used"], b["memory_size"], b["checksum"] = struct.unpack(">IQQQQ", h)
    elif hs == 44:
        b["layout"] = "H44"
        b["flags"], b["allocated"], b["used"], b["checksum"], enc = struct.unpack(">IQQQ16s", h)
        b["names"] = [enc.rstrip(b"\0").decode()] if enc.strip(b"\0") else []
    elif hs == 48:
        b["layout"] = "M48"
        b["flags"], comp, b["allocated"], b["used"], b["memory_size"], b["checksum"] = struct.unpack(">I4sQQQ16s", h)
        b["names"] = [comp.decode()] if comp.strip(b"\0") else []
    elif hs == 40:
        # Layout B iff flags in {0, 1} and a compression label; else layout A.
        if struct.unpack(">I", h[:4])[0] in (0, 1) and h[4:8] in (b"zlib", b"bzp2", b"\0\0\0\0"):
            b["layout"] = "B40"
            b["flags"], comp, b["allocated"], b["used"], b["memory_size"], b["checksum"] = \
                struct.unpack(">I4sQQQQ", h)
            b["names"] = [comp.decode()] if comp.strip(b"\0") else []
        else:
            b["layout"] = "A40"
            b["allocated"], b["used"], b["checksum"], enc = struct.unpack(">QQQ16s", h)
            b["names"] = [enc.rstrip(b"\0").decode()] if enc.strip(b"\0") else []
    else:
        raise Bad(f"header_size {hs}")
    b["data_start"] = pos + 6 + hs
    if b["flags"] & STREAMED:
        b["body"] = data[b["data_start"]:]
        b["next"] = len(data)
    else:
        end = b["data_start"] + b["used"]
        if end > len(data) or b["data_start"] + b["allocated"] > len(data):
            raise Bad("block past end of file")
        b["body"] = data[b["data_start"]:end]
        b["next"] = b["data_start"] + b["allocated"]
    return b


LIMIT = 1 << 20


def inflate(buf, limit):
    d = zlib.decompressobj()
    out = d.decompress(buf, limit + 1)
    if len(out) > limit or d.unconsumed_tail:
        raise Bad("zlib output over limit")
    if not d.eof:
        raise Bad("zlib stream incomplete")
    return out


def dequantize(buf, dtype, count):
    vals = []
    p = 0
    while p < len(buf):
        if p + 25 > len(buf):
            raise Bad("quantize chunk header truncated")
        bits, offset, scale, n = struct.unpack(">BddQ", buf[p:p + 25])
        p += 25
        if not 1 <= bits <= 64:
            raise Bad("quantize bits")
        if n > count - len(vals):
            raise Bad("quantize nvalues beyond original_shape")
        nbytes = -(-(n * bits) // 8)
        if p + nbytes > len(buf):
            raise Bad("quantize data truncated")
        allbits = np.unpackbits(np.frombuffer(buf[p:p + nbytes], dtype=np.uint8))[:n * bits].reshape(n, bits)
        p += nbytes
        for row in allbits:
            u = int("".join("01"[x] for x in row), 2) if bits else 0
            if u >> (bits - 1):
                u -= 1 << bits
            vals.append(u * scale + offset)
    if len(vals) != count:
        raise Bad("quantize count")
    return np.array(vals, dtype=np.float64).astype({32: np.float32, 64: np.float64}[dtype])


def untile(items, shape, original, item_size):
    """items: 1-D array (any dtype) or bytes of item_size each."""
    if any(int(s) <= 0 for s in shape) or len(shape) != len(original):
        raise Bad("tile shape")
    grid = [-(-o // s) for o, s in zip(original, shape)]
    padded = math.prod(grid) * math.prod(shape)
    if isinstance(items, bytes):
        if len(items) != padded * item_size:
            raise Bad("tile data size")
        items = np.frombuffer(items, dtype=np.dtype(("V", item_size)))
    if items.size != padded:
        raise Bad("tile count")
    n = len(shape)
    a = items.reshape(grid + list(shape))
    a = a.transpose([k for i in range(n) for k in (i, n + i)])
    a = a.reshape([g * s for g, s in zip(grid, shape)])
    a = a[tuple(slice(0, o) for o in original)]
    a = np.ascontiguousarray(a)
    return a if a.dtype.kind != "V" else a.tobytes()


def decode_block(b):
    """Returns bytes, or a numpy array of values (after quantize)."""
    if b["flags"] & ENCODED:
        m = re.compile(rb"\r?\n\.\.\.\r?\n").search(b["body"])
        if not m:
            raise Bad("chain document unterminated")
        chain = parse_yaml(b["body"][:m.end()].decode())
        if not isinstance(chain, list):
            raise Bad("chain not a list")
        cur = b["body"][m.end():]
        limit = b["memory_size"]
        for i, enc in enumerate(reversed(chain)):
            name, args = (enc, {}) if isinstance(enc, str) else (enc[0], enc[1] if len(enc) > 1 else {})
            if name == "zlib":
                cur = inflate(cur, 64 * limit + 4096)
            elif name == "quantize":
                cur = dequantize(cur, args["dtype"], math.prod(args["original_shape"]))
            elif name == "tile":
                if math.prod(args["shape"]) > 64 * limit + 4096:
                    raise Bad("tile too big")
                cur = untile(cur, args["shape"], args["original_shape"], args["item_size"])
            else:
                raise Bad("unknown encoding " + str(name))
        if isinstance(cur, bytes) and len(cur) != b["memory_size"]:
            raise Bad("memory_size mismatch")
        return cur
    names = b["names"]
    if not names:
        return b["body"]
    if names == ["zlib"]:
        return inflate(b["body"], b["memory_size"] if b["memory_size"] is not None else LIMIT)
    if names == ["bzp2"]:
        return bz2.decompress(b["body"])
    raise Bad("unknown compression " + str(names))


def read_file(path):
    """Returns (header_line, blocks, tree, decoded_blocks: list of value or Bad)."""
    data = open(path, "rb").read()
    line, pos = read_header_line(data)
    tree_obj = None
    while data[pos:pos + 1] == b"#" and not data[pos:].startswith(b"#ASDF BLOCK INDEX"):
        pos = data.index(b"\n", pos) + 1   # comment lines such as #ASDF_STANDARD
    if data[pos:pos + 1] in (b"%", b"-"):
        end = find_tree_end(data, pos)
        if end is None:
            raise Bad("tree end")
        tree_obj = parse_yaml(data[pos:end].decode())
        pos = end
    blocks = []
    if pos < len(data) and not data[pos:].startswith(b"#ASDF BLOCK INDEX"):
        i3, i8 = data.find(D3, pos), data.find(X89, pos)
        pos = min(x for x in (i3, i8) if x >= 0) if max(i3, i8) >= 0 else len(data)
        while pos < len(data) and data[pos:pos + 4] in (D3, X89):
            b = parse_block_header(data, pos)
            blocks.append(b)
            pos = b["next"]
        rest = data[pos:]
        if rest and not rest.startswith(b"#ASDF BLOCK INDEX"):
            raise Bad("junk after blocks")
    decoded = []
    for b in blocks:
        try:
            decoded.append(decode_block(b))
        except Bad as e:
            decoded.append(e)
    return line, blocks, tree_obj, decoded


SCALAR = {"int8": "i1", "uint8": "u1", "int16": "i2", "uint16": "u2", "int32": "i4", "uint32": "u4",
          "int64": "i8", "uint64": "u8", "float32": "f4", "float64": "f8", "complex64": "c8",
          "complex128": "c16", "bool8": "b1"}


def np_dtype(dt):
    if isinstance(dt, list):
        return np.dtype({"ascii": "S", "ucs4": "U"}[dt[0]] + str(dt[1]))
    return np.dtype(SCALAR[dt])


def inline_value(v):
    if isinstance(v, list):
        return [inline_value(x) for x in v]
    if isinstance(v, dict) and "__tag__" in v:
        return complex(re.sub(r"[iIJ](\)?)$", r"j\1", v["__value__"]))
    return v


def resolve_arrays(tree_obj, blocks, decoded, folder):
    out, bad = {}, []

    def walk(node, ptr):
        if isinstance(node, dict) and "__tag__" in node:
            if re.search(r"core/ndarray(-0\.1\.0)?$", node["__tag__"]):
                try:
                    out[ptr] = make_array(node["__value__"])
                except Bad:
                    bad.append(ptr)
                return
            walk(node["__value__"], ptr)
        elif isinstance(node, dict):
            for k, v in node.items():
                walk(v, ptr + "/" + str(k).replace("~", "~0").replace("/", "~1"))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{ptr}/{i}")

    def make_array(v):
        if isinstance(v, list):
            a = np.array(inline_value(v))
            return a.astype(np.int64) if a.dtype.kind == "i" else a
        dt = v.get("datatype", v.get("dtype"))
        if "data" in v:
            return np.array(inline_value(v["data"]), dtype=np_dtype(dt))
        dt = np_dtype(dt).newbyteorder(">" if v.get("byteorder", "big") == "big" else "<")
        src = v["source"]
        if isinstance(src, str):
            _, _, _, dec = read_file(os.path.join(folder, src))
            payload = dec[0]
        else:
            payload = decoded[src]
        if isinstance(payload, Exception):
            raise Bad(str(payload))
        if isinstance(payload, np.ndarray):   # values (quantize): cast to the tree's dtype
            payload = payload.astype(dt).tobytes()
        shape = list(v["shape"])
        off = v.get("offset", 0)
        if shape[0] == "*":
            shape[0] = (len(payload) - off) // (dt.itemsize * math.prod(shape[1:]))
        strides = v.get("strides")
        return np.ndarray(shape, dt, payload, off, strides).copy()

    walk(tree_obj, "")
    return out, bad


def check():
    problems = []
    for name, _, exp in GOOD:
        path = os.path.join(HERE, name + ".asdf")
        line, blocks, tree_obj, decoded = read_file(path)
        d = exp["dialect"]
        got = {"header_line": line, "header_size": [b["header_size"] for b in blocks],
               "layouts": [b["layout"] for b in blocks]}
        for k, v in got.items():
            if d[k] != v:
                problems.append(f"{name}: {k} {v} != {d[k]}")
        arrays, bad = resolve_arrays(tree_obj, blocks, decoded, HERE) if tree_obj else ({}, [])
        for p, e in exp["arrays"].items():
            a = arrays.get(p)
            if a is None or md5_of(a) != e["md5"] or list(a.shape) != e["shape"] or le_dtype_str(a) != e["dtype"]:
                problems.append(f"{name}: array {p} differs")
        if sorted(set(arrays) - set(exp["arrays"])):
            problems.append(f"{name}: extra arrays {sorted(set(arrays) - set(exp['arrays']))}")
        if sorted(bad) != sorted(exp["unreadable_arrays"]):
            problems.append(f"{name}: unreadable arrays {bad}")
        ub = [i for i, x in enumerate(decoded) if isinstance(x, Exception)]
        if ub != exp["unreadable_blocks"]:
            problems.append(f"{name}: unreadable blocks {ub}")
    for name, _, _ in DAMAGED:
        path = os.path.join(DAMAGED_DIR, name + ".asdf")
        try:
            _, blocks, tree_obj, decoded = read_file(path)
            arrays, bad = resolve_arrays(tree_obj, blocks, decoded, DAMAGED_DIR)
            if not bad:
                problems.append(f"damaged/{name}: read without error")
        except Bad:
            pass
    # The real draft files: every array equals its .yaml twin.
    ncorpus = 0
    if os.path.isdir(CORPUS):
        for f in sorted(os.listdir(CORPUS)):
            if not f.endswith(".yaml"):
                continue
            _, blocks, tree_obj, decoded = read_file(os.path.join(CORPUS, f[:-5] + ".asdf"))
            arrays, bad = resolve_arrays(tree_obj, blocks, decoded, CORPUS)
            _, _, twin_tree, _ = read_file(os.path.join(CORPUS, f))
            twin, _ = resolve_arrays(twin_tree, [], [], CORPUS)
            for p, a in arrays.items():
                t = twin[p].astype(a.dtype)
                if t.shape != a.shape:
                    problems.append(f"corpus {f}: {p} shape differs from twin")
                elif a.dtype.kind in "fc":   # the twins print 12 significant digits
                    if not np.allclose(a, t, rtol=1e-11, atol=0, equal_nan=True):
                        problems.append(f"corpus {f}: {p} differs from twin")
                elif md5_of(a) != md5_of(t):
                    problems.append(f"corpus {f}: {p} differs from twin")
                ncorpus += 1
    for p in problems:
        print("PROBLEM:", p)
    print(f"check: {len(GOOD)} fixtures, {len(DAMAGED)} damaged, {ncorpus} corpus arrays compared, "
          f"{len(problems)} problems")
    return not problems


if __name__ == "__main__":
    write_all()
    if "--check" in sys.argv[1:]:
        sys.exit(0 if check() else 1)
