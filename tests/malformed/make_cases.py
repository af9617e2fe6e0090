#!/usr/bin/python3
"""Write the malformed-input suite: damaged ASDF and FITS files, one folder per case, and
manifest.json saying how `fitsasdf` must treat each one.

Usage: /usr/bin/python3 make_cases.py OUTDIR [--readme]

Every file is built here byte by byte from the Python standard library (zlib, bz2, hashlib)
plus python-lz4, so the output is the same on every run. With --readme the case table of
README.md is printed instead (the README is checked against it by the suite).

A case is a folder OUTDIR/cases/NAME holding the input (and, for reference cases, its
neighbours). Each manifest entry lists the commands to run on it; in their arguments `{in}`
stands for the input file and `{out}` for a fresh, empty output folder. For each command the
manifest gives the exit status and, for a failure, the error category that stderr's single
line must carry ("fitsasdf: error [CATEGORY]: ...").
"""
import bz2
import hashlib
import json
import os
import shutil
import struct
import sys
import zlib

import lz4.block

CASES = []


def case(name, kind, files, runs, note):
    """Record one case: `files` maps a file name to its bytes (the first is the input)."""
    assert name not in {c["name"] for c in CASES}, name
    CASES.append({"name": name, "kind": kind, "files": files, "runs": runs, "note": note})


def fail(code, category, *extra):
    return {"args": ["convert", "{in}", "-o", "{out}/out"] + list(extra), "exit": code,
            "category": category}


def run(args, code, category=None):
    return {"args": args, "exit": code, "category": category}


def ok(*extra):
    return {"args": ["convert", "{in}", "-o", "{out}/out"] + list(extra), "exit": 0,
            "category": None}


def info(code, category=None, blocks=True):
    """`info --blocks` lists the blocks even when the tree cannot be read; plain `info` fails."""
    return run(["info", "{in}"] + (["--blocks"] if blocks else []), code, category)


# ---------------------------------------------------------------------------------------------
# ASDF building blocks

BLOCK_MAGIC = b"\xd3BLK"


def lz4_frame(data):
    """python asdf's lz4 framing: chunks of a big-endian length, then an lz4 block with size."""
    out = b""
    for at in range(0, max(len(data), 1), 4 << 20):
        chunk = lz4.block.compress(data[at:at + (4 << 20)], store_size=True)
        out += struct.pack(">I", len(chunk)) + chunk
    return out


def encode(codec, data):
    if codec == b"":
        return data
    if codec == b"zlib":
        return zlib.compress(data, 6)
    if codec == b"bzp2":
        return bz2.compress(data, 9)
    if codec == b"lz4\0":
        return lz4_frame(data)
    raise ValueError(codec)


def block(data, codec=b"", *, stored=None, header_size=48, flags=0, allocated=None, used=None,
          data_size=None, checksum=None, label=None, pad=0):
    """One block: header then stored bytes. Any size field can be forced to lie."""
    stored = encode(codec, data) if stored is None else stored
    used = len(stored) if used is None else used
    allocated = len(stored) + pad if allocated is None else allocated
    data_size = len(data) if data_size is None else data_size
    checksum = hashlib.md5(stored).digest() if checksum is None else checksum
    label = (codec + b"\0" * 4)[:4] if label is None else label
    body = struct.pack(">I4sQQQ16s", flags, label, allocated, used, data_size, checksum)
    body += b"\0" * (header_size - len(body)) if header_size > len(body) else b""
    return BLOCK_MAGIC + struct.pack(">H", header_size) + body[:max(header_size, 0)] + \
        stored + b"\0" * pad


HEADER = b"#ASDF 1.0.0\n#ASDF_STANDARD 1.5.0\n"
YAML_HEAD = (b"%YAML 1.1\n%TAG ! tag:stsci.edu:asdf/\n--- !core/asdf-1.1.0\n"
             b"asdf_library: !core/software-1.0.0 {name: malformed-suite, version: '1'}\n")


def asdf(body, blocks=(), index=True, header=HEADER, tail=b"...\n"):
    """A whole ASDF file: header, tree (`body` after the fixed start), blocks, block index."""
    out = header + YAML_HEAD + body + tail
    offsets = []
    for b in blocks:
        offsets.append(len(out))
        out += b
    if index and blocks:
        out += b"#ASDF BLOCK INDEX\n%YAML 1.1\n---\n"
        out += b"".join(b"- %d\n" % o for o in offsets) + b"...\n"
    return out


def nd(source, datatype, shape, extra=b""):
    return (b"!core/ndarray-1.0.0 {source: %s, datatype: %s, byteorder: big, shape: %s%s}"
            % (source, datatype, shape, extra))


# The base file: a fits list of three images (int16 10x10 raw, float32 8x8 zlib, int32 3x100
# bzp2), as fitsasdf converts back to a FITS file. Block 2 is lz4 in the lz4 variants.
IMG0 = b"".join(struct.pack(">h", i * 37 - 1000) for i in range(100))
IMG1 = b"".join(struct.pack(">f", i / 64.0) for i in range(64))
IMG2 = b"".join(struct.pack(">i", i * i - 50000) for i in range(300))


def fits_tree(data0=None, data1=None, data2=None, extra=b""):
    data0 = data0 or nd(b"0", b"int16", b"[10, 10]")
    data1 = data1 or nd(b"1", b"float32", b"[8, 8]")
    data2 = data2 or nd(b"2", b"int32", b"[3, 100]")
    return (b"fits: !<tag:astropy.org:astropy/fits/fits-1.0.0>\n"
            b"- data: " + data0 + b"\n"
            b"  header:\n"
            b"  - [SIMPLE, true, conforms to FITS standard]\n"
            b"  - [BITPIX, 16, array data type]\n"
            b"  - [NAXIS, 2, number of array dimensions]\n"
            b"  - [NAXIS1, 10]\n  - [NAXIS2, 10]\n  - [EXTEND, true]\n  - [OBJECT, test]\n"
            b"- data: " + data1 + b"\n"
            b"  header:\n"
            b"  - [XTENSION, IMAGE, Image extension]\n  - [BITPIX, -32]\n  - [NAXIS, 2]\n"
            b"  - [NAXIS1, 8]\n  - [NAXIS2, 8]\n  - [PCOUNT, 0]\n  - [GCOUNT, 1]\n"
            b"  - [EXTNAME, SCI]\n"
            b"- data: " + data2 + b"\n"
            b"  header:\n"
            b"  - [XTENSION, IMAGE, Image extension]\n  - [BITPIX, 32]\n  - [NAXIS, 2]\n"
            b"  - [NAXIS1, 100]\n  - [NAXIS2, 3]\n  - [PCOUNT, 0]\n  - [GCOUNT, 1]\n"
            b"  - [EXTNAME, ERR]\n" + extra)


def base_blocks(overrides=None):
    overrides = overrides or {}
    b0 = block(IMG0, b"", **overrides.get(0, {}))
    b1 = block(IMG1, b"zlib", **overrides.get(1, {}))
    b2 = block(IMG2, b"bzp2", **overrides.get(2, {}))
    return [b0, b1, b2]


def base(overrides=None):
    return asdf(fits_tree(), base_blocks(overrides))


def one_block_tree(datatype=b"uint8", shape=b"[16]", extra=b""):
    return b"data: " + nd(b"0", datatype, shape, extra) + b"\n"


def tree_only(body):
    """An ASDF file whose tree is `body` (after the fixed start) and that has no blocks."""
    return asdf(body)


def offsets_of(data):
    """Byte offsets of the structures of an ASDF file made by `asdf`."""
    tree = data.index(b"%YAML")
    end = data.index(b"\n...\n") + 1
    blocks = []
    at = data.find(BLOCK_MAGIC)
    while at >= 0:
        blocks.append(at)
        at = data.find(BLOCK_MAGIC, at + 1)
    index = data.find(b"#ASDF BLOCK INDEX")
    return tree, end, blocks, index


def asdf_cases():
    good = base()
    tree_at, end_at, blk, index_at = offsets_of(good)
    case("asdf_base", "valid base file (3 blocks: raw, zlib, bzp2; block index)",
         {"in.asdf": good}, [ok(), info(0)], "the undamaged file converts")
    # Truncation at every structural boundary.
    cuts = [
        ("asdf_cut_header_line", 7, 2, "not-asdf", "cut inside `#ASDF 1.0.0`"),
        ("asdf_cut_after_header", len(HEADER), 0, None,
         "cut after the header lines: a file with no tree is valid (empty tree)"),
        ("asdf_cut_in_yaml_directive", tree_at + 5, 2, "malformed", "cut inside `%YAML 1.1`"),
        ("asdf_cut_in_tree", tree_at + 300, 2, "malformed", "cut in the middle of the tree"),
        ("asdf_cut_before_doc_end", end_at, 2, "malformed", "cut just before the `...` line"),
        ("asdf_cut_in_doc_end", end_at + 2, 2, "malformed", "cut inside the `...` line"),
        ("asdf_cut_after_tree", blk[0], 2, "malformed",
         "cut after the tree: every block is missing"),
        ("asdf_cut_in_block0_magic", blk[0] + 2, 2, "malformed", "cut inside block 0's magic"),
        ("asdf_cut_in_block0_header", blk[0] + 20, 2, "malformed",
         "cut inside block 0's header"),
        ("asdf_cut_in_block0_data", blk[0] + 60, 2, "malformed",
         "cut inside block 0's data (uncompressed)"),
        ("asdf_cut_in_block1_header", blk[1] + 30, 2, "malformed",
         "cut inside block 1's header"),
        ("asdf_cut_in_block1_data", blk[1] + 80, 2, "malformed",
         "cut inside block 1's data (zlib)"),
        ("asdf_cut_in_block2_data", blk[2] + 70, 2, "malformed",
         "cut inside block 2's data (bzp2, the last block)"),
        ("asdf_cut_before_index", index_at, 0, None,
         "cut before the block index: the index is optional"),
        ("asdf_cut_in_index_header", index_at + 10, 0, None,
         "cut inside `#ASDF BLOCK INDEX`: trailing bytes, noted, ignored"),
        ("asdf_cut_in_index", len(good) - 6, 0, None,
         "cut inside the block index: a stale index is ignored (standard, python asdf)"),
    ]
    for name, at, code, category, note in cuts:
        runs = [ok()] if code == 0 else [fail(code, category)]
        case(name, "truncation", {"in.asdf": good[:at]}, runs, note)

    case("asdf_bad_magic", "bad magic", {"in.asdf": b"#ASDG" + good[5:]},
         [run(["convert", "{in}", "-o", "{out}/out.asdf"], 2, "not-fits")],
         "`#ASDG`: not ASDF, so it is read as FITS and refused as not FITS")
    case("asdf_bad_version", "bad magic", {"in.asdf": good.replace(b"#ASDF 1.0.0", b"#ASDF 9.0.0")},
         [fail(2, "unsupported-version"), info(2, "unsupported-version")],
         "a file format version from the future")
    case("asdf_bad_block_magic", "bad magic",
         {"in.asdf": good[:blk[1]] + b"\xd3BLX" + good[blk[1] + 4:]},
         [fail(2, "malformed"), info(0)],
         "block 1's magic is damaged: blocks 1 and 2 are unreachable")

    def patch(data, at, raw):
        return data[:at] + raw + data[at + len(raw):]

    case("asdf_header_size_47", "header_size below 48",
         {"in.asdf": patch(good, blk[0] + 4, struct.pack(">H", 47))},
         [fail(2, "malformed"), info(0)], "the standard requires header_size >= 48")
    case("asdf_header_size_0", "header_size below 48",
         {"in.asdf": patch(good, blk[1] + 4, struct.pack(">H", 0))},
         [fail(2, "malformed")], "header_size 0 in block 1")
    case("asdf_header_size_past_eof", "sizes past EOF",
         {"in.asdf": patch(good, blk[2] + 4, struct.pack(">H", 65535))},
         [fail(2, "malformed"), info(0)], "block 2's header_size runs past the end of the file")
    case("asdf_header_size_64", "valid variant",
         {"in.asdf": asdf(fits_tree(), [block(IMG0, header_size=64)] + base_blocks()[1:])},
         [ok()], "header_size 64 (larger headers are allowed; the rest is skipped)")
    case("asdf_used_past_eof", "sizes past EOF",
         {"in.asdf": asdf(fits_tree(), base_blocks({2: {"used": 1 << 40, "allocated": 1 << 40}}),
                          index=False)},
         [fail(2, "malformed"), info(0)], "block 2's used_size runs 1 TiB past the end")
    case("asdf_allocated_past_eof", "sizes past EOF",
         {"in.asdf": asdf(fits_tree(), base_blocks({1: {"allocated": (1 << 64) - 1}}),
                          index=False)},
         [fail(2, "malformed")], "block 1's allocated_size is 2^64-1: blocks 2 is unreachable")
    case("asdf_used_gt_allocated", "used_size > allocated_size",
         {"in.asdf": asdf(fits_tree(), base_blocks({0: {"allocated": 10}}), index=False)},
         [fail(2, "malformed"), info(0)], "block 0 declares used_size 200 > allocated_size 10")
    case("asdf_raw_data_size_lie", "data_size lies",
         {"in.asdf": base({0: {"data_size": 400}})},
         [fail(2, "malformed")], "an uncompressed block with data_size != used_size")
    case("asdf_zlib_decodes_more", "data_size lies",
         {"in.asdf": base({1: {"data_size": 100}})},
         [fail(2, "compression"), info(0)], "zlib data decodes to 256 bytes, 100 declared")
    case("asdf_zlib_decodes_fewer", "data_size lies",
         {"in.asdf": base({1: {"data_size": 1000}})},
         [fail(2, "compression")], "zlib data decodes to 256 bytes, 1000 declared")
    case("asdf_bzp2_decodes_fewer", "data_size lies",
         {"in.asdf": base({2: {"data_size": 1300}})},
         [fail(2, "compression")], "bzp2 data decodes to 1200 bytes, 1300 declared")
    case("asdf_block_smaller_than_shape", "data_size lies",
         {"in.asdf": asdf(fits_tree(), [block(IMG0[:150])] + base_blocks()[1:])},
         [fail(2, "malformed")], "block 0 holds 150 bytes; the int16 10x10 array needs 200")

    # Decompression bombs: a huge declared size over a tiny stream, a tiny declared size over
    # a stream that expands a lot, and an honest stream that really expands to 256 MiB.
    zeros = bytes(1 << 20)
    for codec, label in ((b"zlib", "zlib"), (b"bzp2", "bzp2"), (b"lz4\0", "lz4")):
        stream = encode(codec, zeros)
        tree = one_block_tree(b"uint8", b"[1048576]")
        case("asdf_bomb_%s_huge_declared" % label, "decompression bomb",
             {"in.asdf": asdf(tree, [block(zeros, codec, stored=stream, data_size=1 << 50)])},
             [fail(2, None), info(0)],
             "%d bytes of %s declaring data_size 2^50" % (len(stream), label))
        case("asdf_bomb_%s_tiny_declared" % label, "decompression bomb",
             {"in.asdf": asdf(one_block_tree(b"uint8", b"[16]"),
                              [block(zeros, codec, stored=stream, data_size=16)])},
             [fail(2, "compression")],
             "1 MiB of zeros in %s declaring data_size 16: decoding stops at 16" % label)
    big = bytes(256 << 20)
    stream = zlib.compress(big, 9)
    case("asdf_bomb_zlib_real", "decompression bomb",
         {"in.asdf": asdf(one_block_tree(b"uint8", b"[268435456]"),
                          [block(b"", b"zlib", stored=stream, data_size=len(big))])},
         [fail(2, "limit", "--max-memory", "64M"),
          run(["info", "{in}", "--max-memory", "64M"], 0)],
         "%d bytes of zlib that honestly decode to 256 MiB, over --max-memory 64M" % len(stream))
    case("asdf_zlib_garbage", "decompression bomb",
         {"in.asdf": base({1: {"stored": b"\x78\x9c" + bytes(range(200))}})},
         [fail(2, "compression")], "block 1 is not a zlib stream")
    case("asdf_lz4_chunk_past_end", "decompression bomb",
         {"in.asdf": asdf(one_block_tree(), [block(bytes(16), b"lz4\0",
                                                   stored=struct.pack(">I", 1 << 31) + bytes(12))])},
         [fail(2, "compression")], "an lz4 chunk length of 2^31 in a 16-byte block")
    case("asdf_unknown_codec", "decompression bomb",
         {"in.asdf": base({1: {"label": b"abcd"}})},
         [fail(2, "compression")], "compression label `abcd`")

    # Block indexes: garbage, stale, absurd offsets. Each is ignored; the file is read.
    no_index = asdf(fits_tree(), base_blocks(), index=False)
    case("asdf_index_garbage", "garbage block index",
         {"in.asdf": no_index + b"#ASDF BLOCK INDEX\n%YAML 1.1\n--- {a: [\n...\n"},
         [ok(), info(0)], "the index is not YAML: ignored, as the standard says")
    case("asdf_index_stale", "stale block index",
         {"in.asdf": no_index + b"#ASDF BLOCK INDEX\n%YAML 1.1\n---\n- 3\n- 900\n- 1700\n...\n"},
         [ok()], "the index lists wrong offsets: ignored, the headers are walked")
    case("asdf_index_huge", "garbage block index",
         {"in.asdf": no_index + b"#ASDF BLOCK INDEX\n%YAML 1.1\n---\n- 18446744073709551615\n"
                                b"- -5\n- 1e300\n...\n"},
         [ok()], "offsets 2^64-1, -5 and 1e300: ignored")
    case("asdf_index_only", "garbage block index",
         {"in.asdf": asdf(fits_tree(), []) + b"#ASDF BLOCK INDEX\n%YAML 1.1\n---\n- 700\n...\n"},
         [fail(2, "malformed")], "an index but no blocks: the arrays have no data")
    case("asdf_checksum_mismatch", "checksum mismatch",
         {"in.asdf": base({0: {"checksum": b"\x01" * 16}})},
         [fail(2, "checksum"), ok("--no-verify-checksums"), info(0)],
         "convert checks block checksums by default (exit 2, no output; "
         "--no-verify-checksums converts), `info --blocks` shows MISMATCH")

    # The tree.
    case("asdf_yaml_broken", "broken YAML",
         {"in.asdf": tree_only(b"a: [1, 2\nb: {c: d\n")}, [fail(2, "malformed"), info(2, "malformed", blocks=False)],
         "unclosed flow collections")
    case("asdf_yaml_bad_indent", "broken YAML",
         {"in.asdf": tree_only(b"a:\n  - 1\n - 2\n")}, [fail(2, "malformed")], "bad indentation")
    case("asdf_yaml_tab", "broken YAML",
         {"in.asdf": tree_only(b"a:\n\t- 1\n")}, [fail(2, "malformed")], "a tab as indentation")
    case("asdf_yaml_not_utf8", "broken YAML",
         {"in.asdf": tree_only(b"a: \xff\xfe\x80\n")}, [fail(2, "malformed")], "invalid UTF-8")
    case("asdf_yaml_nul", "broken YAML",
         {"in.asdf": tree_only(b"a: b\0c\n")}, [fail(2, "malformed")], "a NUL byte in the tree")
    case("asdf_yaml_two_documents", "broken YAML",
         {"in.asdf": tree_only(b"a: 1\n---\nb: 2\n")}, [fail(2, "malformed")],
         "a second YAML document in the tree")
    case("asdf_yaml_undefined_alias", "broken YAML",
         {"in.asdf": tree_only(b"a: *nothere\n")}, [fail(2, "malformed")], "an undefined alias")
    case("asdf_yaml_bad_int", "broken YAML",
         {"in.asdf": tree_only(b"a: !!int abc\n")}, [fail(2, "malformed")], "`!!int abc`")
    case("asdf_undefined_tag", "undefined tags",
         {"in.asdf": asdf(fits_tree(extra=b"extra: !<tag:example.org:nothing/thing-1.0.0> {a: 1}\n"),
                          base_blocks())},
         [ok()], "a tag no extension knows: kept as a tagged mapping (python asdf warns)")
    case("asdf_undefined_ndarray_version", "undefined tags",
         {"in.asdf": asdf(fits_tree(data1=b"!core/ndarray-9.9.9 {source: 1, datatype: float32, "
                                          b"byteorder: big, shape: [8, 8]}"), base_blocks())},
         [ok()], "core/ndarray-9.9.9: read as an ndarray all the same (python asdf warns and "
         "keeps a tagged mapping)")
    nest = 10000
    case("asdf_deep_sequences", "10,000-deep nesting",
         {"in.asdf": tree_only(b"a: " + b"[" * nest + b"]" * nest + b"\n")},
         [fail(2, "limit"), info(2, "limit", blocks=False)], "10,000 nested flow sequences")
    case("asdf_deep_mappings", "10,000-deep nesting",
         {"in.asdf": tree_only(b"a: " + b"{a: " * nest + b"1" + b"}" * nest + b"\n")},
         [fail(2, "limit")], "10,000 nested flow mappings")
    case("asdf_deep_under_limit", "10,000-deep nesting",
         {"in.asdf": tree_only(b"a: " + b"[" * 500 + b"]" * 500 + b"\n")},
         [ok()], "500 levels: within the default --max-depth 1000")
    case("asdf_deep_over_option", "10,000-deep nesting",
         {"in.asdf": tree_only(b"a: " + b"[" * 500 + b"]" * 500 + b"\n")},
         [fail(2, "limit", "--max-depth", "100")], "500 levels over --max-depth 100")
    laughs = b"l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    for i in range(1, 10):
        laughs += b"l%d: &l%d [%s]\n" % (i, i, b", ".join([b"*l%d" % (i - 1)] * 10))
    case("asdf_alias_bomb", "alias bomb", {"in.asdf": tree_only(laughs)},
         [fail(2, "limit"), info(2, "limit", blocks=False)], "billion laughs: 10^10 nodes through aliases")
    many = b"a: [" + b", ".join([b"1"] * 20000) + b"]\n"
    case("asdf_tree_nodes_over_option", "alias bomb", {"in.asdf": tree_only(many)},
         [fail(2, "limit", "--max-tree-nodes", "10000")], "20,000 nodes over --max-tree-nodes 10000")

    # Arrays.
    def array_case(name, kind, ndarray, note, category="malformed", blocks=None):
        blocks = [block(bytes(range(16)))] if blocks is None else blocks
        if blocks and b"byteorder" not in ndarray:
            ndarray = ndarray.replace(b"{source:", b"{byteorder: big, source:")
        case(name, kind, {"in.asdf": asdf(b"data: " + ndarray + b"\n", blocks)},
             [fail(2, category)], note)

    array_case("asdf_shape_1e12", "huge shapes",
               b"!core/ndarray-1.0.0 {source: 0, datatype: uint8, shape: [1000000000000, "
               b"1000000000000]}", "shape [1e12, 1e12] over a 16-byte block")
    array_case("asdf_shape_overflow", "huge shapes",
               b"!core/ndarray-1.0.0 {source: 0, datatype: float64, shape: [4294967296, "
               b"4294967296, 4294967296]}", "the shape's product overflows uint64")
    array_case("asdf_shape_bigger_than_u64", "huge shapes",
               b"!core/ndarray-1.0.0 {source: 0, datatype: uint8, shape: "
               b"[99999999999999999999999]}", "a dimension beyond uint64")
    array_case("asdf_shape_negative", "huge shapes",
               b"!core/ndarray-1.0.0 {source: 0, datatype: uint8, shape: [-4, 4]}",
               "a negative dimension")
    array_case("asdf_shape_garbage", "huge shapes",
               b"!core/ndarray-1.0.0 {source: 0, datatype: uint8, shape: [a, {b: c}]}",
               "dimensions that are not integers")
    array_case("asdf_strides_negative_past_block", "negative strides",
               b"!core/ndarray-1.0.0 {source: 0, datatype: uint8, shape: [4, 4], "
               b"strides: [-8, -1]}", "strides [-8, -1] from offset 0 reach before the block")
    array_case("asdf_strides_past_block", "negative strides",
               b"!core/ndarray-1.0.0 {source: 0, datatype: uint8, shape: [4, 4], "
               b"strides: [4611686018427387904, 1]}", "a stride of 2^62")
    overlap = (b"!core/ndarray-1.0.0 {source: 0, datatype: uint8, byteorder: big, "
               b"shape: [100000, 100000], strides: [1, 1]}")
    case("asdf_strides_overlapping", "negative strides",
         {"in.asdf": asdf(b"data: " + overlap + b"\n", [block(bytes(200002), b"zlib")])},
         [fail(2, "limit"), run(["info", "{in}", "--json"], 0)],
         "strides [1, 1] make 10^10 elements of a 200 KB block: copying them is refused; "
         "`info` reports the array's error instead of hashing 10 GB (a hang before)")
    array_case("asdf_offset_past_block", "offset past the block",
               b"!core/ndarray-1.0.0 {source: 0, datatype: uint8, shape: [4], offset: 100000}",
               "offset 100000 in a 16-byte block")
    array_case("asdf_offset_negative", "offset past the block",
               b"!core/ndarray-1.0.0 {source: 0, datatype: uint8, shape: [4], offset: -8}",
               "a negative offset")
    array_case("asdf_offset_overflow", "offset past the block",
               b"!core/ndarray-1.0.0 {source: 0, datatype: uint64, shape: [2], "
               b"offset: 18446744073709551608}", "offset + size overflows uint64")
    array_case("asdf_dtype_garbage", "dtype garbage",
               b"!core/ndarray-1.0.0 {source: 0, datatype: int77, shape: [2]}", "datatype int77")
    array_case("asdf_dtype_ucs4_huge", "dtype garbage",
               b"!core/ndarray-1.0.0 {source: 0, datatype: [ucs4, 4611686018427387904], "
               b"shape: [1]}", "a ucs4 string of 2^62 characters")
    array_case("asdf_dtype_record_garbage", "dtype garbage",
               b"!core/ndarray-1.0.0 {source: 0, shape: [1], datatype: [{name: a, datatype: "
               b"float99}, {datatype: [ascii, -3]}]}", "a record dtype with garbage fields")
    array_case("asdf_byteorder_garbage", "dtype garbage",
               b"!core/ndarray-1.0.0 {source: 0, datatype: int32, byteorder: middle, shape: [4]}",
               "byteorder `middle`")
    array_case("asdf_source_missing_block", "offset past the block",
               b"!core/ndarray-1.0.0 {source: 7, datatype: uint8, shape: [4]}",
               "source 7 in a file with one block")
    array_case("asdf_inline_ragged", "dtype garbage",
               b"!core/ndarray-1.0.0 {data: [[1, 2], [3]], datatype: int8, shape: [2, 2]}",
               "inline data whose rows differ in length", blocks=[])
    array_case("asdf_inline_shape_lie", "huge shapes",
               b"!core/ndarray-1.0.0 {data: [1, 2, 3], datatype: int8, shape: [1000000000000]}",
               "inline data of 3 values declaring shape [1e12]", blocks=[])

    # References.
    case("asdf_ref_loop", "$ref loops",
         {"in.asdf": asdf(fits_tree(extra=b"x: {$ref: '#/y'}\ny: {$ref: '#/x'}\n"), base_blocks())},
         [fail(2, "malformed")], "#/x -> #/y -> #/x")
    case("asdf_ref_self", "$ref loops",
         {"in.asdf": asdf(fits_tree(extra=b"x: {$ref: '#/x'}\n"), base_blocks())},
         [fail(2, "malformed")], "#/x refers to itself")
    case("asdf_ref_file_loop", "$ref loops",
         {"in.asdf": asdf(fits_tree(extra=b"x: {$ref: 'other.asdf#/x'}\n"), base_blocks()),
          "other.asdf": tree_only(b"x: {$ref: 'in.asdf#/x'}\n")},
         [dict(fail(2, "malformed"), names="other.asdf")],
         "in.asdf#/x -> other.asdf#/x -> in.asdf#/x (the error names other.asdf)")
    refs = b"x0: [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    for i in range(1, 10):
        refs += b"x%d: [%s]\n" % (i, b", ".join([b"{$ref: '#/x%d'}" % (i - 1)] * 10))
    case("asdf_ref_bomb", "$ref loops",
         {"in.asdf": asdf(fits_tree(extra=refs), base_blocks())},
         [fail(2, "limit")], "billion laughs through $ref: 10^10 nodes to walk (a hang before)")
    chain = b"".join(b"c%d: {$ref: '#/c%d'}\n" % (i, i + 1) for i in range(100000)) + \
        b"c100000: end\n"
    case("asdf_ref_chain", "$ref loops",
         {"in.asdf": asdf(fits_tree(extra=chain), base_blocks())},
         [fail(2, "limit")], "a chain of 100,000 references (each one a level of recursion)")
    outside = [("parent", b"../../../../../../../../../../etc/passwd#/a", "`../../etc/passwd`"),
               ("absolute", b"/etc/passwd#/a", "absolute `/etc/passwd`"),
               ("dev_zero", b"/dev/zero#/a", "`/dev/zero`"),
               ("file_url", b"file:///dev/zero#/a", "`file:///dev/zero`"),
               ("http", b"http://127.0.0.1:9/x.asdf#/a", "an http URL")]
    for name, target, note in outside:
        case("asdf_ref_" + name, "$ref outside the folder",
             {"in.asdf": asdf(fits_tree(extra=b"x: {$ref: '" + target + b"'}\n"), base_blocks())},
             [fail(2, "malformed")], "$ref to " + note + ": refused")
    for name, target, note in outside[:4]:
        source = target.split(b"#")[0]
        case("asdf_source_" + name, "source outside the folder",
             {"in.asdf": asdf(fits_tree(data1=nd(b"'" + source + b"'", b"float32", b"[8, 8]")),
                              base_blocks())},
             [fail(2, "malformed")], "ndarray source " + note + ": refused")


# ---------------------------------------------------------------------------------------------
# FITS building blocks

def card(key, value=None, comment=None):
    if value is None:
        text = key.ljust(80)
    else:
        text = "%-8s= %20s" % (key, value) if not value.startswith("'") else \
            "%-8s= %-20s" % (key, value)
        if comment:
            text += " / " + comment
    assert len(text) <= 80, text
    return text.ljust(80).encode("ascii")


def header(cards):
    raw = b"".join(cards) + card("END")
    return raw + b" " * (-len(raw) % 2880)


def pad(data):
    return data + b"\0" * (-len(data) % 2880)


def image_hdu(primary=True, bitpix="16", naxes=("10", "10"), data=IMG0, extra=()):
    cards = [card("SIMPLE", "T") if primary else card("XTENSION", "'IMAGE'"),
             card("BITPIX", bitpix), card("NAXIS", str(len(naxes)))]
    cards += [card("NAXIS%d" % (i + 1), n) for i, n in enumerate(naxes)]
    if not primary:
        cards += [card("PCOUNT", "0"), card("GCOUNT", "1")]
    return header(cards + list(extra)), pad(data)


def table_hdu(rows=3, tforms=("1J", "8A", "1PJ"), naxis1=None, heap=None, descriptors=None,
              extra=(), pcount=None, theap=None):
    """A binary table: an int, a string and a variable-length int column (heap after rows)."""
    heap = heap if heap is not None else b"".join(struct.pack(">i", v) for v in range(10))
    descriptors = descriptors or [(2, 0), (3, 8), (5, 20)]
    rows_bytes = b""
    for r in range(rows):
        count, offset = descriptors[r % len(descriptors)]
        rows_bytes += struct.pack(">i", r * 11) + b"row%-5d" % r + struct.pack(">ii", count, offset)
    naxis1 = naxis1 if naxis1 is not None else "20"
    cards = [card("XTENSION", "'BINTABLE'"), card("BITPIX", "8"), card("NAXIS", "2"),
             card("NAXIS1", naxis1), card("NAXIS2", str(rows)),
             card("PCOUNT", pcount if pcount is not None else str(len(heap))),
             card("GCOUNT", "1"), card("TFIELDS", str(len(tforms)))]
    for i, t in enumerate(tforms):
        cards += [card("TFORM%d" % (i + 1), "'%s'" % t), card("TTYPE%d" % (i + 1), "'C%d'" % i)]
    if theap is not None:
        cards.append(card("THEAP", theap))
    return header(cards + list(extra)), pad(rows_bytes + heap)


def gzip_bytes(data):
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    return z.compress(data) + z.flush()


def fits(*hdus):
    return b"".join(h + d for h, d in hdus)


def rice_image_hdu(ztile=("10", "1"), zval1="32", zval2="2", extra=(), lower=False):
    """A tile-compressed 10 x 10 int16 image, one RICE_1 tile a row. Every pixel is 5, so each
    tile is the first pixel and one 4-bit code saying all differences are zero."""
    tile = b"\x00\x05\x00"
    rows = b"".join(struct.pack(">ii", len(tile), r * len(tile)) for r in range(10))
    cards = [card("XTENSION", "'BINTABLE'"), card("BITPIX", "8"), card("NAXIS", "2"),
             card("NAXIS1", "8"), card("NAXIS2", "10"), card("PCOUNT", str(10 * len(tile))),
             card("GCOUNT", "1"), card("TFIELDS", "1"), card("TTYPE1", "'COMPRESSED_DATA'"),
             card("TFORM1", "'1PB(3)'"), card("ZIMAGE", "T"), card("ZBITPIX", "16"),
             card("ZNAXIS", "2"), card("ZNAXIS1", "10"), card("ZNAXIS2", "10"),
             card("ZTILE1", ztile[0]), card("ZTILE2", ztile[1]), card("ZCMPTYPE", "'RICE_1'"),
             card("ZNAME1", "'BLOCKSIZE'"),
             b"zval1   =                    0".ljust(80) if lower else card("ZVAL1", zval1),
             card("ZNAME2", "'BYTEPIX'"), card("ZVAL2", zval2)]
    return header(cards + list(extra)), pad(rows + tile * 10)


def tiled_image_hdu(algorithm, tiles, extra=(), element="B"):
    """A tile-compressed 10 x 10 int16 image, one tile a row, with `tiles` as the rows' bytes;
    the column holds bytes (B) or 16-bit integers (I, as PLIO_1's does)."""
    heap = b"".join(tiles)
    width = {"B": 1, "I": 2}[element]
    rows, at = b"", 0
    for t in tiles:
        rows += struct.pack(">ii", len(t) // width, at)
        at += len(t)
    cards = [card("XTENSION", "'BINTABLE'"), card("BITPIX", "8"), card("NAXIS", "2"),
             card("NAXIS1", "8"), card("NAXIS2", str(len(tiles))), card("PCOUNT", str(len(heap))),
             card("GCOUNT", "1"), card("TFIELDS", "1"), card("TTYPE1", "'COMPRESSED_DATA'"),
             card("TFORM1", "'1P%s(%d)'" % (element, max(len(t) for t in tiles) // width)),
             card("ZIMAGE", "T"),
             card("ZBITPIX", "16"), card("ZNAXIS", "2"), card("ZNAXIS1", "10"),
             card("ZNAXIS2", "10"), card("ZTILE1", "10"), card("ZTILE2", "1"),
             card("ZCMPTYPE", "'%s'" % algorithm)]
    return header(cards + list(extra)), pad(rows + heap)


def raw_tiles_hdu(count=10):
    """A tile-compressed 10 x 10 int16 image (GZIP_1, one tile a row) whose tiles CFITSIO could
    not compress, kept as they are in an UNCOMPRESSED_DATA column (as fpack wrote until 2011):
    each COMPRESSED_DATA descriptor is empty. Row 3's UNCOMPRESSED_DATA descriptor declares
    `count` values (10 is right; its heap holds that many)."""
    rows, heap = b"", b""
    for r in range(10):
        n = count if r == 2 else 10
        rows += struct.pack(">ii", 0, 0) + struct.pack(">ii", n, len(heap))
        heap += b"".join(struct.pack(">h", 100 * r + c % 10) for c in range(n))
    cards = [card("XTENSION", "'BINTABLE'"), card("BITPIX", "8"), card("NAXIS", "2"),
             card("NAXIS1", "16"), card("NAXIS2", "10"), card("PCOUNT", str(len(heap))),
             card("GCOUNT", "1"), card("TFIELDS", "2"), card("TTYPE1", "'COMPRESSED_DATA'"),
             card("TFORM1", "'1PB(0)'"), card("TTYPE2", "'UNCOMPRESSED_DATA'"),
             card("TFORM2", "'1PI(%d)'" % max(count, 10)), card("ZIMAGE", "T"),
             card("ZBITPIX", "16"), card("ZNAXIS", "2"), card("ZNAXIS1", "10"),
             card("ZNAXIS2", "10"), card("ZTILE1", "10"), card("ZTILE2", "1"),
             card("ZCMPTYPE", "'GZIP_1'")]
    return header(cards), pad(rows + heap)


def ztable_hdu(ztilelen="5", naxis2=None, extra=(), zform="'J'", znaxis1="4", zctyp="'GZIP_1'"):
    """A tile-compressed table of 10 rows of one J column (37 * row - 4000), GZIP_1, 5 rows a
    tile, as fpack -table writes it; `ztilelen`, `naxis2` (rows of tiles), `zform` and `znaxis1`
    may lie, and `zctyp` may be another algorithm or None (no ZCTYP1 card)."""
    tiles = []
    for first in (0, 5):
        z = zlib.compressobj(9, zlib.DEFLATED, 31)
        column = b"".join(struct.pack(">i", 37 * r - 4000) for r in range(first, first + 5))
        tiles.append(z.compress(column) + z.flush())
    rows, at = b"", 0
    for t in tiles:
        rows += struct.pack(">ii", len(t), at)
        at += len(t)
    heap = b"".join(tiles)
    cards = [card("XTENSION", "'BINTABLE'"), card("BITPIX", "8"), card("NAXIS", "2"),
             card("NAXIS1", "8"), card("NAXIS2", naxis2 or str(len(tiles))),
             card("PCOUNT", str(len(heap))), card("GCOUNT", "1"), card("TFIELDS", "1"),
             card("TTYPE1", "'n'"), card("TFORM1", "'1PB(%d)'" % max(len(t) for t in tiles)),
             card("ZTABLE", "T"), card("ZTILELEN", ztilelen), card("ZNAXIS1", znaxis1),
             card("ZNAXIS2", "10"), card("ZPCOUNT", "0"), card("ZFORM1", zform)]
    if zctyp is not None:
        cards.append(card("ZCTYP1", zctyp))
    return header(cards + list(extra)), pad(rows + heap)


def zvla_table_hdu(zform="'1PJ(3)'", lie=None):
    """A tile-compressed table of 4 rows of one variable-length J column (row r holds the r values
    10 * r + i), GZIP_1, one tile, laid out as fpack -table writes one: the tile inflates to the
    rows' P descriptors (elements, offset in the decompressed heap), then a pair of 64-bit
    integers a row for each compressed array (its bytes, their offset in this table's heap).
    `lie` maps some of row 3's numbers ("length", "start", "packed", "packed_at") to others."""
    arrays = [b"".join(struct.pack(">i", 10 * r + i) for i in range(r)) for r in range(4)]
    packed = [gzip_bytes(a) if a else b"" for a in arrays]
    pointers, pairs, at, packed_at = [], [], 0, 0
    for a, p in zip(arrays, packed):
        pointers.append([len(a) // 4, at])
        pairs.append([len(p), packed_at if p else 0])
        at += len(a)
        packed_at += len(p)
    for key, value in (lie or {}).items():
        i = ["length", "start", "packed", "packed_at"].index(key)
        (pointers if i < 2 else pairs)[2][i % 2] = value
    block = b"".join(struct.pack(">ii", *p) for p in pointers)
    block += b"".join(struct.pack(">qq", *p) for p in pairs)
    tile = gzip_bytes(block)
    heap = b"".join(packed) + tile
    rows = struct.pack(">ii", len(tile), packed_at)
    cards = [card("XTENSION", "'BINTABLE'"), card("BITPIX", "8"), card("NAXIS", "2"),
             card("NAXIS1", "8"), card("NAXIS2", "1"), card("PCOUNT", str(len(heap))),
             card("GCOUNT", "1"), card("TFIELDS", "1"), card("TTYPE1", "'v'"),
             card("TFORM1", "'1PB(%d)'" % len(tile)), card("ZTABLE", "T"),
             card("ZTILELEN", "4"), card("ZNAXIS1", "8"), card("ZNAXIS2", "4"),
             card("ZPCOUNT", str(at)), card("ZFORM1", zform), card("ZCTYP1", "'GZIP_1'")]
    return header(cards), pad(rows + heap)


def gzip_tile(row):
    """One row of the image above (pixels 100 * row + column, big-endian) as a GZIP_1 tile."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    return z.compress(b"".join(struct.pack(">h", 100 * row + c) for c in range(10))) + z.flush()


def ascii_hdu(tbcol="1", tform="I6", naxis1="16", extra=()):
    cards = [card("XTENSION", "'TABLE'"), card("BITPIX", "8"), card("NAXIS", "2"),
             card("NAXIS1", naxis1), card("NAXIS2", "2"), card("PCOUNT", "0"),
             card("GCOUNT", "1"), card("TFIELDS", "2"),
             card("TFORM1", "'%s'" % tform), card("TBCOL1", tbcol),
             card("TFORM2", "'F8.3'"), card("TBCOL2", "9")]
    return header(cards + list(extra)), pad(b"    12   1.500  " + b"   -34  -2.250  ")


def fits_cases():
    prim = image_hdu()
    good = fits(prim, table_hdu())
    case("fits_base", "valid base file (image + binary table with a heap)",
         {"in.fits": good}, [ok(), run(["verify", "{in}"], 0)], "the undamaged file converts")
    case("fits_zero_length", "zero-length file", {"in.fits": b""},
         [fail(2, "not-fits")], "an empty file")
    case("fits_html", "not FITS", {"in.fits": b"<!DOCTYPE html><html><body>404</body></html>\n"},
         [fail(2, "not-fits")], "an HTML page saved under a .fits name")
    no_end = good.replace(card("END"), b" " * 80, 1)
    case("fits_no_end", "bad END", {"in.fits": no_end},
         [fail(2, "malformed"), run(["verify", "{in}"], 2, "malformed")],
         "the primary header has no END card")
    case("fits_bad_end", "bad END", {"in.fits": good.replace(card("END"), card("ENDX"), 1)},
         [fail(2, "malformed")], "END misspelt ENDX")
    case("fits_end_not_padded", "bad END",
         {"in.fits": prim[0][:800] + card("END")}, [fail(2, "truncated")],
         "the header stops right after END, without its 2880-byte padding")
    case("fits_cut_in_header", "truncation", {"in.fits": good[:1000]}, [fail(2, "truncated")],
         "cut inside the primary header")
    case("fits_cut_in_data", "truncation", {"in.fits": good[:2880 + 100]},
         [fail(2, "truncated"), run(["verify", "{in}"], 2, "truncated")],
         "cut inside the primary data")
    case("fits_cut_in_ext_header", "truncation", {"in.fits": good[:2 * 2880 + 400]},
         [fail(2, "truncated")], "cut inside the table's header")
    case("fits_cut_in_heap", "truncation", {"in.fits": good[:3 * 2880 + 70]},
         [fail(2, "truncated")], "cut inside the table's heap")
    case("fits_naxis_lie", "NAXISn lies",
         {"in.fits": fits(image_hdu(naxes=("10", "500")))}, [fail(2, "truncated")],
         "NAXIS2 = 500 but the data holds 10 rows")
    case("fits_naxis_lie_middle", "NAXISn lies",
         {"in.fits": fits(image_hdu(naxes=("10", "2000")), table_hdu())},
         [fail(2, "truncated")], "the primary declares more data than the file holds before EOF")
    case("fits_naxis_negative", "negative NAXIS",
         {"in.fits": fits(image_hdu(naxes=()), ) .replace(card("NAXIS", "0"), card("NAXIS", "-1"))},
         [fail(2, "malformed")], "NAXIS = -1")
    case("fits_naxis_1000", "negative NAXIS",
         {"in.fits": fits(image_hdu(naxes=())).replace(card("NAXIS", "0"), card("NAXIS", "1000"))},
         [fail(2, "malformed")], "NAXIS = 1000 (at most 999)")
    case("fits_naxisn_negative", "negative NAXIS",
         {"in.fits": fits(image_hdu(naxes=("-10", "10")))}, [fail(2, "malformed")],
         "NAXIS1 = -10")
    case("fits_naxisn_2e40", "absurd NAXISn",
         {"in.fits": fits(image_hdu(naxes=(str(1 << 40), "1")))}, [fail(2, "truncated")],
         "NAXIS1 = 2^40 with 200 bytes of data")
    case("fits_naxisn_overflow", "absurd NAXISn",
         {"in.fits": fits(image_hdu(naxes=(str(1 << 40), str(1 << 40), str(1 << 40))))},
         [fail(2, None)], "NAXIS1 x NAXIS2 x NAXIS3 = 2^120 overflows")
    case("fits_naxisn_garbage", "absurd NAXISn",
         {"in.fits": fits(image_hdu(naxes=("'ten'", "10")))}, [fail(2, "malformed")],
         "NAXIS1 = 'ten'")
    for bitpix, note in (("17", "BITPIX = 17"), ("'16'", "BITPIX = '16' (a string)"),
                         ("0", "BITPIX = 0")):
        case("fits_bitpix_" + {"17": "17", "'16'": "string", "0": "0"}[bitpix], "BITPIX garbage",
             {"in.fits": fits(image_hdu(bitpix=bitpix))}, [fail(2, "malformed")], note)
    for name, tforms, note in (
            ("letters", ("1J", "8A", "1Z"), "TFORM3 = '1Z'"),
            ("empty", ("1J", "", "1PJ"), "TFORM2 = ''"),
            ("huge_repeat", ("2000000000J", "8A", "1PJ"), "TFORM1 = '2000000000J'"),
            ("repeat_overflow", ("99999999999999999999J", "8A", "1PJ"),
             "a repeat count beyond 64 bits"),
            ("negative", ("-1J", "8A", "1PJ"), "TFORM1 = '-1J'"),
            ("p_garbage", ("1J", "8A", "1PZ"), "TFORM3 = '1PZ'")):
        case("fits_tform_" + name, "TFORM garbage",
             {"in.fits": fits(prim, table_hdu(tforms=tforms))}, [fail(2, "malformed")], note)
    case("fits_naxis1_vs_tform", "TFORM garbage",
         {"in.fits": fits(prim, table_hdu(naxis1="24"))}, [fail(2, "malformed")],
         "NAXIS1 = 24 but the TFORMs add up to 20")
    case("fits_tfields_lie", "TFORM garbage",
         {"in.fits": fits(prim, table_hdu()).replace(card("TFIELDS", "3"), card("TFIELDS", "900"))},
         [fail(2, "malformed")], "TFIELDS = 900 with 3 TFORMs")
    case("fits_tdim_garbage", "TFORM garbage",
         {"in.fits": fits(prim, table_hdu(extra=[card("TDIM2", "'(99999,99999)'")]))},
         [ok()], "TDIM2 = (99999,99999) for an 8-byte column: ignored with a note, card kept")
    case("fits_heap_offset_past_end", "heap pointers past the end",
         {"in.fits": fits(prim, table_hdu(descriptors=[(2, 0), (3, 1 << 30), (1, 0)]))},
         [ok()], "a P descriptor at heap offset 2^30 (carried: descriptors and heap are copied as bytes, never followed)")
    case("fits_heap_count_huge", "heap pointers past the end",
         {"in.fits": fits(prim, table_hdu(descriptors=[(2, 0), (0x7fffffff, 0), (1, 0)]))},
         [ok()], "a P descriptor of 2^31-1 elements (carried: descriptors and heap are copied as bytes, never followed)")
    case("fits_heap_negative", "heap pointers past the end",
         {"in.fits": fits(prim, table_hdu(descriptors=[(-5, 0), (1, -8), (1, 0)]))},
         [ok()], "negative P descriptor count and offset (carried: descriptors and heap are copied as bytes, never followed)")
    q_rows = b""
    for r in range(2):
        q_rows += struct.pack(">i", r) + struct.pack(">qq", 3, (1 << 62) if r else 0)
    q_cards = [card("XTENSION", "'BINTABLE'"), card("BITPIX", "8"), card("NAXIS", "2"),
               card("NAXIS1", "20"), card("NAXIS2", "2"), card("PCOUNT", "40"),
               card("GCOUNT", "1"), card("TFIELDS", "2"), card("TFORM1", "'1J'"),
               card("TFORM2", "'1QJ'")]
    case("fits_q_descriptor_past_end", "heap pointers past the end",
         {"in.fits": fits(prim, (header(q_cards), pad(q_rows + bytes(40))))},
         [ok()], "a Q descriptor at heap offset 2^62 (carried: descriptors and heap are copied as bytes, never followed)")
    case("fits_theap_past_end", "THEAP out of range",
         {"in.fits": fits(prim, table_hdu(theap=str(1 << 40)))}, [fail(2, "malformed")],
         "THEAP = 2^40")
    case("fits_theap_in_rows", "THEAP out of range",
         {"in.fits": fits(prim, table_hdu(theap="4"))}, [fail(2, "malformed")],
         "THEAP = 4: the heap would overlap the rows")
    case("fits_pcount_past_end", "sizes past EOF",
         {"in.fits": fits(prim, table_hdu(pcount=str(1 << 40)))}, [fail(2, "truncated")],
         "PCOUNT = 2^40")
    case("fits_pcount_negative", "sizes past EOF",
         {"in.fits": fits(prim, table_hdu(pcount="-40"))}, [fail(2, "malformed")],
         "PCOUNT = -40")
    case("fits_ascii_tbcol_past_row", "TFORM garbage",
         {"in.fits": fits(prim, ascii_hdu(tbcol="40"))}, [fail(2, "malformed")],
         "an ASCII table column starting past the row")
    case("fits_ascii_tform_garbage", "TFORM garbage",
         {"in.fits": fits(prim, ascii_hdu(tform="Q9"))}, [fail(2, "malformed")],
         "ASCII table TFORM1 = 'Q9'")
    case("fits_xtension_unknown", "not FITS",
         {"in.fits": fits(prim, image_hdu(primary=False)).replace(b"'IMAGE'   ", b"'FOO'     ")},
         [ok()], "an unknown XTENSION: carried as raw bytes")
    zcards = [card("XTENSION", "'BINTABLE'"), card("BITPIX", "8"), card("NAXIS", "2"),
              card("NAXIS1", "8"), card("NAXIS2", "1"), card("PCOUNT", "0"), card("GCOUNT", "1"),
              card("TFIELDS", "1"), card("TFORM1", "'1PB'"), card("TTYPE1", "'COMPRESSED_DATA'"),
              card("ZIMAGE", "T"), card("ZBITPIX", "32"), card("ZNAXIS", "2"),
              card("ZNAXIS1", "1000000"), card("ZNAXIS2", "1000000"),
              card("ZTILE1", "1000000"), card("ZTILE2", "1000000"), card("ZCMPTYPE", "'GZIP_1'")]
    case("fits_zimage_huge", "absurd NAXISn",
         {"in.fits": fits(prim, (header(zcards), pad(bytes(8))))},
         [fail(2, "limit"), run(["verify", "{in}"], 2, "limit")],
         "a tile-compressed image declaring one tile of 10^12 int32 pixels: refused by "
         "--max-memory (default 8G) before decompressing")
    tcards = [card("XTENSION", "'BINTABLE'"), card("BITPIX", "8"), card("NAXIS", "2"),
              card("NAXIS1", "8"), card("NAXIS2", "1"), card("PCOUNT", "0"), card("GCOUNT", "1"),
              card("TFIELDS", "1"), card("TFORM1", "'1PB'"), card("TTYPE1", "'A'"),
              card("ZTABLE", "T"), card("ZNAXIS1", "4"), card("ZNAXIS2", str(1 << 40)),
              card("ZPCOUNT", "0"), card("ZFORM1", "'1J'"), card("ZCTYP1", "'GZIP_2'"),
              card("ZTILELEN", str(1 << 40))]
    case("fits_ztable_huge", "absurd NAXISn",
         {"in.fits": fits(prim, (header(tcards), pad(bytes(8))))}, [fail(2, "limit")],
         "a tile-compressed table declaring 2^40 rows of 4 bytes in one tile")
    # CFITSIO's fits_uncompress_table visits ZNAXIS2 / ZTILELEN tiles whatever the row count,
    # decoding a tile whose descriptor it cannot read from a buffer of a size it never set; with
    # ZTILELEN = 0 it frees its buffers twice (glibc aborts).
    case("fits_ztable_base", "valid variant", {"in.fits": fits(prim, ztable_hdu())}, [ok()],
         "a sound GZIP_1 tile-compressed table of 2 tiles converts")
    case("fits_ztable_ztilelen_zero", "CFITSIO frees twice",
         {"in.fits": fits(prim, ztable_hdu(ztilelen="0"))}, [fail(2, "malformed")],
         "ZTILELEN = 0 in a compressed table of 10 rows")
    case("fits_ztable_fewer_tile_rows", "CFITSIO reads out of bounds",
         {"in.fits": fits(prim, ztable_hdu(naxis2="1"))}, [fail(2, "malformed")],
         "NAXIS2 = 1 row of tiles where ZNAXIS2 = 10 rows in tiles of 5 need 2")
    # CFITSIO sizes the decoded table by ZNAXIS1 but lays its columns out by their ZFORMn
    # (fuzz finding 26: a wider ZFORMn made it write past its buffers).
    case("fits_ztable_zform_wider", "CFITSIO writes out of bounds",
         {"in.fits": fits(prim, ztable_hdu(zform="'1D'"))}, [fail(2, "malformed")],
         "ZFORM1 = '1D' (8 bytes a row) where ZNAXIS1 = 4")
    case("fits_ztable_znaxis1_wider", "CFITSIO misplaces rows",
         {"in.fits": fits(prim, ztable_hdu(znaxis1="6"))}, [fail(2, "malformed")],
         "ZNAXIS1 = 6 where the one column (ZFORM1 = 'J') takes 4 bytes a row")
    case("fits_ztable_zform_garbage", "TFORM garbage",
         {"in.fits": fits(prim, ztable_hdu(zform="'9Z'"))}, [fail(2, "malformed")],
         "ZFORM1 = '9Z' (fuzz finding 27: CFITSIO goes on past a ZFORMn it cannot read)")
    # A tile kept in UNCOMPRESSED_DATA: CFITSIO reads as many values as its descriptor says into
    # its buffer for the tile's pixels.
    case("fits_raw_tiles_base", "valid variant", {"in.fits": fits(prim, raw_tiles_hdu())},
         [ok()], "a compressed image whose tiles are all kept in UNCOMPRESSED_DATA converts")
    case("fits_raw_tile_too_long", "CFITSIO writes out of bounds",
         {"in.fits": fits(prim, raw_tiles_hdu(count=200))}, [fail(2, "compression")],
         "tile 3's UNCOMPRESSED_DATA holds 200 values for a tile of 10 pixels (CFITSIO 4.2: "
         "SIGSEGV)")
    case("fits_raw_tile_short", "CFITSIO leaves pixels unset",
         {"in.fits": fits(prim, raw_tiles_hdu(count=9))}, [fail(2, "compression")],
         "tile 3's UNCOMPRESSED_DATA holds 9 values for a tile of 10 pixels")
    # CFITSIO inflates every column but an I, J or B one of RICE_1, GZIP_2 when ZCTYPn is
    # missing, into its buffer for the tile; a longer stream made it reallocate that buffer (or a
    # pointer inside it: glibc aborts).
    case("fits_ztable_no_zctyp_too_long", "CFITSIO reallocates a pointer inside its buffer",
         {"in.fits": fits(prim, ztable_hdu(zform="'1I'", znaxis1="2", zctyp=None))},
         [fail(2, "compression")],
         "no ZCTYP1 (CFITSIO takes GZIP_2), and ZFORM1 = '1I' where each tile inflates to 5 J")
    # A variable-length column's tile gives, for each row, where its array goes in the decompressed
    # heap and where its compressed bytes are; CFITSIO allocates and writes what they say.
    case("fits_ztable_vla_base", "valid variant", {"in.fits": fits(prim, zvla_table_hdu())},
         [ok()], "a sound compressed table with a variable-length J column converts")
    case("fits_ztable_vla_outside_heap", "CFITSIO allocates a forged size",
         {"in.fits": fits(prim, zvla_table_hdu(lie={"length": 1 << 29}))},
         [fail(2, "malformed")],
         "row 3's array declares 2^29 elements (2 GiB) in a decompressed heap of 24 bytes")
    case("fits_ztable_vla_start_outside_heap", "CFITSIO writes where a forged offset says",
         {"in.fits": fits(prim, zvla_table_hdu(lie={"start": 1 << 30}))},
         [fail(2, "malformed")], "row 3's array starts 1 GiB into a heap of 24 bytes")
    case("fits_ztable_vla_packed_past_end", "sizes past the end of the file",
         {"in.fits": fits(prim, zvla_table_hdu(lie={"packed": 3_000_000_000}))},
         [fail(2, "truncated")], "row 3's compressed array declares 3 GB in a file of 11 KB")
    case("fits_ztable_vla_packed_short", "truncation",
         {"in.fits": fits(prim, zvla_table_hdu(lie={"packed": 9}))},
         [fail(2, "compression")],
         "row 3's compressed array cut to 9 of its bytes (CFITSIO 4.2 loops for ever, growing "
         "its buffer without end)")
    case("fits_ztable_vla_a_column", "CFITSIO writes out of bounds",
         {"in.fits": fits(prim, zvla_table_hdu(zform="'1PA(3)'"))}, [fail(2, "compression")],
         "a variable-length A column, which CFITSIO 4.2 lays out as one byte wide (fpack's own "
         "tables with one make funpack abort)")
    # A keyword the decoding depends on, twice with different values: CFITSIO looks keywords up
    # from where its last look-up ended, so the checks made before it decodes may read the other
    # card (fuzz finding 21).
    case("fits_ztable_ztilelen_duplicate", "CFITSIO and the guards read different cards",
         {"in.fits": fits(prim, ztable_hdu(extra=[card("ZTILELEN", "1")]))},
         [fail(2, "malformed")], "ZTILELEN = 5, then ZTILELEN = 1 in a compressed table")
    case("fits_rice_znaxis_duplicate", "CFITSIO and the guards read different cards",
         {"in.fits": fits(prim, rice_image_hdu(extra=[card("ZNAXIS", "32")]))},
         [fail(2, "malformed"), run(["verify", "{in}"], 2, "malformed")],
         "ZNAXIS = 2, then ZNAXIS = 32 in a RICE_1-compressed image (fuzz finding 21)")
    case("fits_rice_znaxis_same_twice", "valid variant",
         {"in.fits": fits(prim, rice_image_hdu(extra=[card("ZNAXIS", "2")]))}, [ok()],
         "ZNAXIS = 2 written twice: the same value, nothing to choose between")
    laughs = b"l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    for i in range(1, 10):
        laughs += b"l%d: &l%d [%s]\n" % (i, i, b", ".join([b"*l%d" % (i - 1)] * 10))
    embedded = asdf(laughs)
    asdf_ext = image_hdu(primary=False, bitpix="8", naxes=(str(len(embedded)),), data=embedded,
                         extra=[card("EXTNAME", "'ASDF'")])
    case("fits_asdf_extension_bomb", "alias bomb",
         {"in.fits": fits(image_hdu(naxes=(), data=b""), asdf_ext)},
         [fail(2, "limit"), ok("--fits-list")],
         "a FITS file whose ASDF extension holds a billion-laughs tree (--fits-list carries "
         "its bytes unread)")
    cut = asdf(fits_tree(), base_blocks())[:-200]
    asdf_ext = image_hdu(primary=False, bitpix="8", naxes=(str(len(cut)),), data=cut,
                         extra=[card("EXTNAME", "'ASDF'")])
    case("fits_asdf_extension_cut", "truncation",
         {"in.fits": fits(image_hdu(naxes=(), data=b""), asdf_ext)}, [fail(2, "malformed")],
         "a FITS file whose ASDF extension is cut inside its last block")
    # Tile-compressed image headers CFITSIO 4.2 divides by while it moves to or past the HDU
    # (SIGFPE before any check of ours could run, had the headers not been walked first).
    rice_empty_primary = image_hdu(naxes=(), data=b"")
    case("fits_rice_base", "valid variant", {"in.fits": fits(rice_empty_primary, rice_image_hdu())},
         [ok(), run(["verify", "{in}"], 0)], "a sound RICE_1 tile-compressed image converts")
    for name, kwargs, note in [
            ("ztile1_zero", {"ztile": ("0", "1")}, "ZTILE1 = 0"),
            ("ztile2_fraction", {"ztile": ("10", "0.5")}, "ZTILE2 = 0.5 (CFITSIO reads 0)"),
            ("block_zero", {"zval1": "0"}, "RICE_1 block size ZVAL1 = 0"),
            ("block_quoted_zero", {"zval1": "'0'"}, "ZVAL1 = '0' (CFITSIO reads the string)"),
            ("ztile1_long_text", {"ztile": ("'" + "x" * 40 + "'", "1")},
             "ZTILE1 = a 42-character string: CFITSIO 4.2's error message overflows its buffer "
             "(glibc aborts)"),
            ("zval1_35_digits", {"zval1": "1" * 35},
             "ZVAL1 = 35 digits, beyond any integer: the same overflow"),
            ("block_zero_then_text", {"zval1": "0      32"},
             "ZVAL1 = 0      32 (unquoted): CFITSIO reads the token up to the blank, 0 (fuzz "
             "finding 18)"),
            ("block_zero_lowercase", {"lower": True},
             "'zval1   = 0' in lower case, which CFITSIO's look-up finds as ZVAL1 (finding 23)"),
            ("blank_long_text", {"extra": [card("BLANK", "X" * 30)]},
             "BLANK = 30 unquoted characters, read back as the null value: CFITSIO 4.2's error "
             "message overflows its buffer (glibc aborts; finding 24)"),
            ("ztile2_duplicate_text", {"extra": [card("ZTILE2", "'BYTEPIX'")]},
             "a second ZTILE2 = 'BYTEPIX' after ZTILE2 = 1: CFITSIO is left with a tile of 0 rows "
             "(fuzz finding 15)"),
            ("block_logical_false", {"zval1": "FILENAME="},
             "ZVAL1 = FILENAME= (unquoted): CFITSIO reads any unquoted value starting with F as "
             "the logical false, a block size of 0 (fuzz finding 35)")]:
        case("fits_rice_" + name, "CFITSIO divides by 0 or aborts",
             {"in.fits": fits(rice_empty_primary, rice_image_hdu(**kwargs))},
             [fail(2, "malformed"), run(["verify", "{in}"], 2, "malformed")],
             note + ": refused before CFITSIO reads the header")
    # A value indicator out of column 9: CFITSIO finds the '=' anywhere and reads the value.
    late = rice_image_hdu()
    late = (late[0].replace(card("ZVAL1", "32"), b"ZVAL1    =0".ljust(80)), late[1])
    case("fits_rice_block_zero_late_equals", "CFITSIO divides by 0 or aborts",
         {"in.fits": fits(rice_empty_primary, late)},
         [fail(2, "malformed"), run(["verify", "{in}"], 2, "malformed")],
         "the card 'ZVAL1    =0' ('=' in column 10): CFITSIO reads a block size of 0")
    # With no ZTILE1 CFITSIO takes the first axis's length as the tile's (fuzz finding 34).
    no_tile = rice_image_hdu()
    no_tile = (no_tile[0].replace(card("ZTILE1", "10"), card("COMMENT")).replace(
        card("ZNAXIS1", "10"), card("ZNAXIS1", "0")), no_tile[1])
    case("fits_rice_no_ztile1_axis_zero", "CFITSIO divides by 0 or aborts",
         {"in.fits": fits(rice_empty_primary, no_tile)},
         [fail(2, "malformed"), run(["verify", "{in}"], 2, "malformed")],
         "ZNAXIS1 = 0 and no ZTILE1: CFITSIO takes a tile of 0 pixels and divides by it")
    # The same behind an image extension and a table (the walk skips their data), and gzipped
    # (the walk reads what CFITSIO decompressed).
    behind = fits(image_hdu(), image_hdu(primary=False), table_hdu(),
                  rice_image_hdu(ztile=("10", "0")))
    case("fits_rice_ztile_zero_fourth_hdu", "CFITSIO divides by 0 or aborts", {"in.fits": behind},
         [fail(2, "malformed")], "ZTILE2 = 0 in HDU 4, after an image, an image and a table")
    case("fits_rice_ztile_zero_gzip", "CFITSIO divides by 0 or aborts",
         {"in.fits.gz": gzip_bytes(behind)},
         [fail(2, "malformed")], "the same file gzipped")
    # Column names CFITSIO 4.2 copies with strcpy into its 70-byte field while it moves to the
    # HDU: an unquoted token of 70 characters overflows it and glibc aborts the process.
    named = table_hdu()
    named = (named[0].replace(card("TTYPE2", "'C1'"), ("TTYPE2  = " + "X" * 70).encode("ascii")),
             named[1])
    # CFITSIO reads only tile-compressed HDUs now (each alone): a plain table's overlong name
    # never reaches it, and the card is repaired as astropy's verify('fix') does.
    case("fits_ttype_unquoted_70", "CFITSIO aborts", {"in.fits": fits(prim, named)},
         [ok(), run(["verify", "{in}"], 0)],
         "a binary table's TTYPE2 is 70 unquoted characters: CFITSIO never reads a plain table; "
         "the card is repaired (finding unparsable-card)")
    # CFITSIO names a card by its text up to the first blank or '=': " END" (indented) does not
    # end the header for it, and a column name after it still reaches its copy (finding 23).
    indented = table_hdu(extra=[b" END".ljust(80), ("TTYPE2  = " + "X" * 70).encode("ascii")])
    case("fits_ttype_after_indented_end", "CFITSIO aborts", {"in.fits": fits(prim, indented)},
         [ok()],
         "' END' (column 2) and then a TTYPE2 of 70 unquoted characters: the header goes on; "
         "converts (CFITSIO never reads a plain table)")
    complex_name = ("TTYPE1  = (" + "X" * 68 + ")").encode("ascii")
    case("fits_ascii_ttype_complex_70", "CFITSIO aborts",
         {"in.fits": fits(image_hdu(), ascii_hdu(extra=[complex_name]))},
         [ok(), run(["verify", "{in}"], 0)],
         "an ASCII table's TTYPE1 is a 70-character complex-number token '(XX...X)': converts "
         "(CFITSIO never reads a plain table)")
    # Tiles CFITSIO 4.2 mishandles: a gzip stream cut short makes it grow its output buffer
    # without end (minutes, over 100 GB of address space), and HCOMPRESS takes a tile's
    # dimensions from the stream, writing outside the tile's buffer when they lie.
    tiles = [gzip_tile(r) for r in range(10)]
    case("fits_gzip_tiles_base", "valid variant",
         {"in.fits": fits(rice_empty_primary, tiled_image_hdu("GZIP_1", tiles))},
         [ok()], "a sound GZIP_1 tile-compressed image converts")
    cut = tiles[:4] + [tiles[4][:-12]] + tiles[5:]
    case("fits_gzip_tile_cut", "truncation",
         {"in.fits": fits(rice_empty_primary, tiled_image_hdu("GZIP_1", cut))},
         [fail(2, "compression")], "tile 5's gzip stream is cut 12 bytes before its end")
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    bomb = tiles[:2] + [z.compress(bytes(1 << 20)) + z.flush()] + tiles[3:]
    case("fits_gzip_tile_bomb", "decompression bomb",
         {"in.fits": fits(rice_empty_primary, tiled_image_hdu("GZIP_1", bomb))},
         [fail(2, "compression")],
         "tile 3 (a row of 20 bytes) inflates to 1 MiB from %d bytes" % len(bomb[2]))
    hparams = [card("ZNAME1", "'SCALE'"), card("ZVAL1", "0"), card("ZNAME2", "'SMOOTH'"),
               card("ZVAL2", "0")]
    for name, nx, ny, note in [("more_pixels", 1, 1000, "1 x 1000 pixels for a tile of 10"),
                               ("negative", -1, -10, "-1 x -10 pixels")]:
        stream = b"\xdd\x99" + struct.pack(">iii", nx, ny, 0) + bytes(20)
        case("fits_hcompress_tile_" + name, "CFITSIO writes out of bounds",
             {"in.fits": fits(rice_empty_primary,
                              tiled_image_hdu("HCOMPRESS_1", [stream] * 10, hparams))},
             [fail(2, "compression")],
             "every HCOMPRESS tile's stream declares " + note + ": refused before CFITSIO "
             "decodes it")
    # HCOMPRESS_1 tiles whose codes run past their bytes: CFITSIO's decoder is not told where
    # they end (finding 22). A tile of 1 x 10 pixels with no bit planes is its 25-byte header
    # and one byte of end marker; a plane count of 3 for its first quadrant makes the decoder
    # read codes that are not there.
    def hstream(planes=(0, 0, 0), tail=b"\x00"):
        return b"\xdd\x99" + struct.pack(">iiiq", 1, 10, 0, 50) + bytes(planes) + tail
    case("fits_hcompress_tiles_base", "valid variant",
         {"in.fits": fits(rice_empty_primary,
                          tiled_image_hdu("HCOMPRESS_1", [hstream()] * 10, hparams))},
         [ok()], "ten HCOMPRESS tiles of a header and an end marker each")
    past = [hstream()] * 4 + [hstream(planes=(3, 0, 0))] + [hstream()] * 5
    case("fits_hcompress_tile_codes_past_end", "CFITSIO reads out of bounds",
         {"in.fits": fits(rice_empty_primary, tiled_image_hdu("HCOMPRESS_1", past, hparams))},
         [fail(2, "compression"), run(["verify", "{in}"], 2, "compression")],
         "tile 5 declares 3 bit planes for its first quadrant but holds no codes")
    case("fits_hcompress_tile_cut", "truncation",
         {"in.fits": fits(rice_empty_primary,
                          tiled_image_hdu("HCOMPRESS_1",
                                          [hstream()] * 4 + [hstream(tail=b"")] + [hstream()] * 5,
                                          hparams))},
         [fail(2, "compression")], "tile 5 ends with its header, before its end marker")
    # PLIO_1: CFITSIO's reader takes the line list's length from its header, not the tile.
    # A row of 10 pixels of value 5: header (7 words, length 9), set value +4 (1 + 4), 10 pixels.
    plio = struct.pack(">9h", 0, 7, -100, 9, 0, 0, 0, 0x2000 + 4, 0x4000 + 10)
    case("fits_plio_tiles_base", "valid variant",
         {"in.fits": fits(rice_empty_primary, tiled_image_hdu("PLIO_1", [plio] * 10, element="I"))},
         [ok()], "a sound PLIO_1 tile-compressed image converts")
    short_run = plio[:16] + struct.pack(">h", 0x4000 + 4)  # the run covers 4 pixels of 10
    longer = plio[:6] + struct.pack(">h", 400) + short_run[8:]
    case("fits_plio_list_past_tile", "CFITSIO reads out of bounds",
         {"in.fits": fits(rice_empty_primary,
                          tiled_image_hdu("PLIO_1", [plio] * 3 + [longer] + [plio] * 6,
                                          element="I"))},
         [fail(2, "compression")],
         "tile 4's line list declares 400 words in 9 and covers 4 of its 10 pixels: CFITSIO "
         "would read on past the tile's words")
    gz = zlib.compressobj(9, zlib.DEFLATED, 31)
    big_zero = fits(image_hdu(bitpix="8", naxes=(str(256 << 20),), data=b""))[:2880]
    gz_bytes = gz.compress(big_zero)
    chunk = bytes(1 << 20)
    for _ in range(256):
        gz_bytes += gz.compress(chunk)
    gz_bytes += gz.flush()
    case("fits_gzip_bomb", "decompression bomb", {"in.fits.gz": gz_bytes},
         [fail(2, "limit", "--max-memory", "64M"),
          run(["verify", "{in}", "--max-memory", "64M"], 2, "limit")],
         "a %d-byte .gz holding a 256 MiB image, over --max-memory 64M" % len(gz_bytes))
    bz = bz2.BZ2Compressor(9)
    bz_bytes = bz.compress(fits(image_hdu(bitpix="8", naxes=(str(32 << 20),), data=b""))[:2880])
    for _ in range(32):
        bz_bytes += bz.compress(chunk)
    bz_bytes += bz.flush()
    whole = bz2.compress(fits(image_hdu(), table_hdu()))
    case("fits_bzip2_cut", "truncation", {"in.fits.bz2": whole[:len(whole) // 2]},
         [fail(2, "truncated"), run(["verify", "{in}"], 2, "truncated")],
         "a .bz2 FITS file cut in half: libbz2 asks for more input for ever (fuzz finding 16: "
         "the stream check looped)")
    damaged = bytearray(whole)
    damaged[len(damaged) // 2] ^= 0x55
    case("fits_bzip2_damaged", "corruption", {"in.fits.bz2": bytes(damaged)},
         [fail(2, "compression"), run(["verify", "{in}"], 2, "compression")],
         "a .bz2 FITS file with a byte changed in the middle of its stream: CFITSIO calls it "
         "memory it cannot allocate")
    case("fits_gzip_cut_stub", "truncation", {"in.fits.gz": gzip_bytes(fits(image_hdu()))[:20]},
         [fail(2, "truncated"), run(["verify", "{in}"], 2, "truncated")],
         "a small .gz FITS file cut after 20 bytes, before a block came out: CFITSIO calls it "
         "memory it cannot allocate")
    case("fits_bzip2_magic_only", "truncation", {"in.fits": b"BZh"},
         [fail(2, "truncated")], "the 3 bytes `BZh`: a bzip2 stream with nothing after its magic")
    case("fits_bzip2_bomb", "decompression bomb", {"in.fits.bz2": bz_bytes},
         [fail(2, "limit", "--max-memory", "8M")],
         "a %d-byte .bz2 holding a 32 MiB image, over --max-memory 8M" % len(bz_bytes))


def io_cases():
    case("io_directory", "a directory as input", {"in.fits/keep": b""},
         [fail(3, "io"), run(["info", "{in}"], 3, "io"), run(["verify", "{in}"], 3, "io")],
         "the input is a folder")
    case("io_missing", "a nonexistent input", {"keep": b""},
         [run(["convert", "{dir}/missing.fits", "-o", "{out}/out"], 3, "io"),
          run(["info", "{dir}/missing.asdf"], 3, "io"),
          run(["verify", "{dir}/missing.fits"], 3, "io")],
         "the input does not exist")
    case("io_ref_to_folder", "a directory as input",
         {"in.asdf": asdf(fits_tree(extra=b"x: {$ref: 'sub#/a'}\n"), base_blocks()),
          "sub/keep": b""},
         [dict(fail(3, "io"), names="sub")],
         "$ref to a folder next to the file: an I/O error naming it, like a folder input")


def legacy_cases():
    """The damaged pre-1.0 files of tests/data/legacy/damaged (written by make_legacy.py, each
    defect described in DAMAGED.json): a damaged layout fails the whole file; a damaged
    encoding fails only its block, so `info --blocks` still lists the file."""
    here = os.path.dirname(os.path.abspath(__file__))
    folder = os.path.join(here, "..", "data", "legacy", "damaged")
    with open(os.path.join(folder, "DAMAGED.json")) as f:
        damaged = json.load(f)
    for name in sorted(damaged):
        what = damaged[name]
        data = open(os.path.join(folder, name), "rb").read()
        stem = "asdf_legacy_" + name[:-len(".asdf")].replace("-", "_")
        if what["scope"] == "file":
            category = what["suggested_category"]
            runs = [fail(2, category), info(2, category)]
        else:
            # The block's encoding cannot be undone: the block is unreadable (malformed).
            runs = [fail(2, "malformed"), info(0)]
        case(stem, "legacy " + ("layout" if what["scope"] == "file" else "encoding"),
             {"in.asdf": data}, runs, what["defect"].replace("|", "/"))


GROUPS = [  # (group, name prefixes), the first match wins
    ("asdf-legacy", ("asdf_legacy_",)),
    ("asdf-reference", ("asdf_ref_", "asdf_source_parent", "asdf_source_absolute",
                        "asdf_source_dev_zero", "asdf_source_file_url")),
    ("asdf-layout", ("asdf_base", "asdf_cut_", "asdf_bad_")),
    ("asdf-tree", ("asdf_yaml_", "asdf_undefined_", "asdf_deep_", "asdf_alias_", "asdf_tree_")),
    ("asdf-array", ("asdf_shape_", "asdf_strides_", "asdf_offset_", "asdf_dtype_",
                    "asdf_byteorder_", "asdf_source_", "asdf_inline_")),
    ("asdf-blocks", ("asdf_",)),
    ("fits-table", ("fits_tform_", "fits_ztable_", "fits_naxis1_vs", "fits_tfields_", "fits_tdim_", "fits_heap_",
                    "fits_q_", "fits_theap_", "fits_pcount_", "fits_ascii_", "fits_zimage_", "fits_asdf_",
                    "fits_bzip2_", "fits_raw_",
                    "fits_gzip_")),
    ("fits-header", ("fits_",)),
    ("io", ("io_",)),
]


def group_of(name):
    return next(g for g, prefixes in GROUPS if name.startswith(prefixes))


def readme_table():
    lines = ["| case | kind | command | expected | what |", "|---|---|---|---|---|"]
    for c in CASES:
        for r in c["runs"]:
            args = " ".join(a for a in r["args"] if a not in ("{in}", "-o", "{out}/out"))
            result = "0" if r["exit"] == 0 else "%d %s" % (r["exit"], r["category"] or "")
            lines.append("| %s | %s | %s | %s | %s |" % (c["name"], c["kind"], args,
                                                        result.strip(), c["note"]))
    return "\n".join(lines) + "\n"


def main():
    asdf_cases()
    fits_cases()
    io_cases()
    legacy_cases()
    if "--readme" in sys.argv:
        sys.stdout.write(readme_table())
        return
    out = sys.argv[1]
    # Files are replaced atomically and only stale case folders removed, so a second ctest run
    # in the same build folder never sees a half-written case.
    def write_atomic(path, data):
        tmp = "%s.%d.tmp" % (path, os.getpid())
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)

    names = {c["name"] for c in CASES}
    cases_dir = os.path.join(out, "cases")
    if os.path.isdir(cases_dir):
        for stale in set(os.listdir(cases_dir)) - names:
            shutil.rmtree(os.path.join(cases_dir, stale), ignore_errors=True)
    manifest = []
    for c in CASES:
        folder = os.path.join(cases_dir, c["name"])
        os.makedirs(folder, exist_ok=True)
        first = None
        for name, data in c["files"].items():
            path = os.path.join(folder, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if name.endswith("/keep"):
                continue
            first = first or name
            write_atomic(path, data)
        first = first or next(iter(c["files"])).split("/")[0]
        manifest.append({"name": c["name"], "group": group_of(c["name"]), "kind": c["kind"],
                         "input": first, "runs": c["runs"], "note": c["note"]})
    write_atomic(os.path.join(out, "manifest.json"), json.dumps(manifest, indent=1).encode())
    write_atomic(os.path.join(out, "readme_table.md"), readme_table().encode())
    print("%d cases, %d runs" % (len(manifest), sum(len(c["runs"]) for c in manifest)))


if __name__ == "__main__":
    main()
