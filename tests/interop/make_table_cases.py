#!/usr/bin/python3
"""Write the generated table cases of the FITS-to-ASDF table tests into a folder.

Usage: make_table_cases.py FOLDER [--scan DIR ...]

Writes binary tables (every TFORM: L X B I J K A E D C M P Q; repeat counts including 0; TDIM,
also on A and X; TSCAL/TZERO; unsigned columns through TZERO; TNULL; TUNIT, also one astropy
cannot parse; TCOMM; missing and duplicate TTYPE; variable-length arrays with empty rows, a heap
gap and heap bytes shared between descriptors, PX and PL; zero rows; 10^6 rows), ASCII tables
(A, I, F, E, D, TNULL, gaps between columns, columns out of row order), random groups
(PSCAL/PZERO, a repeated PTYPE) and a tile-compressed table (fpack -table, with funpack's
output as the reference). The HDUs are written byte by byte from numpy arrays and astropy's card
images, because astropy 5.2.1 cannot write several of them (scaled columns through
from_columns, heap gaps, shared heaps, missing TTYPE, PX). Deterministic: the same bytes on every run, but for the dates fpack and funpack
write into the CHECKSUM/DATASUM comments.

With --scan, also lists every FITS file in those folders that holds a binary table, an ASCII
table, random groups or a tile-compressed table, as astropy reads them.

Prints one JSON list of cases: {"name", "fits", "args" (extra `fitsasdf convert` options),
"reference" (optional: the FITS file the output is to be compared with, when not "fits")}.
"""

import glob
import json
import os
import subprocess
import sys
import warnings

import numpy as np
from astropy.io import fits

BLOCK = 2880


# ---------------------------------------------------------------------------------------------
# Writing FITS by hand


def padded(data, fill):
    return data + fill * ((-len(data)) % BLOCK)


def header_bytes(cards):
    header = fits.Header()
    for card in cards:
        header.append(fits.Card(*card), end=True)
    return padded(header.tostring().encode("ascii"), b" ")


def empty_primary():
    return header_bytes([("SIMPLE", True), ("BITPIX", 8), ("NAXIS", 0), ("EXTEND", True)])


def image_primary(data):
    data = np.ascontiguousarray(data.astype(data.dtype.newbyteorder(">")))
    bitpix = {"u1": 8, "i2": 16, "i4": 32, "i8": 64, "f4": -32, "f8": -64}[data.dtype.str[1:]]
    cards = [("SIMPLE", True), ("BITPIX", bitpix), ("NAXIS", data.ndim)]
    cards += [(f"NAXIS{k + 1}", n) for k, n in enumerate(reversed(data.shape))]
    cards += [("EXTEND", True)]
    return header_bytes(cards) + padded(data.tobytes(), b"\0")


def image_extension(data, extname):
    data = np.ascontiguousarray(data.astype(data.dtype.newbyteorder(">")))
    bitpix = {"u1": 8, "i2": 16, "i4": 32, "i8": 64, "f4": -32, "f8": -64}[data.dtype.str[1:]]
    cards = [("XTENSION", "IMAGE"), ("BITPIX", bitpix), ("NAXIS", data.ndim)]
    cards += [(f"NAXIS{k + 1}", n) for k, n in enumerate(reversed(data.shape))]
    cards += [("PCOUNT", 0), ("GCOUNT", 1), ("EXTNAME", extname)]
    return header_bytes(cards) + padded(data.tobytes(), b"\0")


class Col:
    """One binary-table column: its TFORM and the raw big-endian field values, one per row."""

    def __init__(self, form, values=None, **cards):
        self.form = form
        self.values = values  # (nrows, ...) array of the stored field, or None (zero width)
        self.cards = cards  # ttype, tunit, tscal, tzero, tnull, tdim, tcomm, tdisp


def bintable(columns, nrows, heap=b"", gap=b"", extra=(), theap=None):
    """A BINTABLE HDU (header and data, padded) with the rows, an optional gap, then the heap."""
    fields, offsets, offset = [], [], 0
    for k, col in enumerate(columns):
        if col.values is None:
            continue
        v = np.asarray(col.values)
        v = v.astype(v.dtype.newbyteorder(">"))  # numpy arithmetic may have made it native
        if v.shape[0] != nrows:
            raise ValueError(f"column {k + 1}: {v.shape[0]} rows, not {nrows}")
        fields.append((f"f{k}", v.dtype, v.shape[1:]))
        offsets.append(offset)
        offset += v.dtype.itemsize * int(np.prod(v.shape[1:], dtype=np.int64))
    naxis1 = offset
    if fields:
        dt = np.dtype({"names": [f[0] for f in fields],
                       "formats": [(f[1], f[2]) if f[2] else f[1] for f in fields],
                       "offsets": offsets, "itemsize": naxis1})
        rows = np.zeros(nrows, dtype=dt)
        for k, col in enumerate(columns):
            if col.values is not None:
                rows[f"f{k}"] = col.values
        row_bytes = rows.tobytes()
    else:
        row_bytes = b""
    cards = [("XTENSION", "BINTABLE", "binary table extension"), ("BITPIX", 8), ("NAXIS", 2),
             ("NAXIS1", naxis1), ("NAXIS2", nrows), ("PCOUNT", len(gap) + len(heap)),
             ("GCOUNT", 1), ("TFIELDS", len(columns))]
    for n, col in enumerate(columns, 1):
        if "ttype" in col.cards:
            cards.append((f"TTYPE{n}", col.cards["ttype"]))
        cards.append((f"TFORM{n}", col.form))
        for key in ("tunit", "tscal", "tzero", "tnull", "tdim", "tdisp", "tcomm"):
            if key in col.cards:
                cards.append((f"{key.upper()}{n}", col.cards[key]))
    if gap or theap is not None:
        cards.append(("THEAP", theap if theap is not None else naxis1 * nrows + len(gap)))
    cards += list(extra)
    return header_bytes(cards) + padded(row_bytes + gap + heap, b"\0")


class Heap:
    """Builds a heap; `add` returns the (count, offset) descriptors of one VLA column."""

    def __init__(self):
        self.data = bytearray()

    def add(self, arrays, q=False, bits=False):
        out = np.zeros((len(arrays), 2), dtype=">i8" if q else ">i4")
        for k, a in enumerate(arrays):
            if isinstance(a, bytes):
                payload, count = a, len(a)
            else:
                a = np.asarray(a)
                if bits:  # a bool array: packed most significant bit first
                    payload, count = np.packbits(a.astype(bool)).tobytes(), a.size
                else:
                    payload, count = a.astype(a.dtype.newbyteorder(">")).tobytes(), a.size
            out[k] = (count, len(self.data))
            self.data += payload
        return out

    def bytes(self):
        return bytes(self.data)


def ascii_table(columns, rows, extra=()):
    """An ASCII TABLE HDU. columns: (ttype, tform, tbcol (1-based), width, more cards);
    rows: the text of each row, padded with blanks to NAXIS1."""
    naxis1 = max(c[2] - 1 + c[3] for c in columns)
    cards = [("XTENSION", "TABLE", "ASCII table extension"), ("BITPIX", 8), ("NAXIS", 2),
             ("NAXIS1", naxis1), ("NAXIS2", len(rows)), ("PCOUNT", 0), ("GCOUNT", 1),
             ("TFIELDS", len(columns))]
    for n, (ttype, tform, tbcol, _width, more) in enumerate(columns, 1):
        cards += [(f"TTYPE{n}", ttype), (f"TBCOL{n}", tbcol), (f"TFORM{n}", tform)]
        cards += [(f"{key.upper()}{n}", value) for key, value in more.items()]
    cards += list(extra)
    text = b"".join(r.ljust(naxis1).encode("ascii") for r in rows)
    if any(len(r) > naxis1 for r in rows):
        raise ValueError("row wider than NAXIS1")
    return header_bytes(cards) + padded(text, b" ")


def random_groups(bitpix, params, data, ptypes, pscal=None, pzero=None, extra=()):
    """A primary random-groups HDU: params (gcount, pcount) and data (gcount, ...) stored values."""
    dt = {8: "u1", 16: ">i2", 32: ">i4", 64: ">i8", -32: ">f4", -64: ">f8"}[bitpix]
    gcount, pcount = params.shape
    cards = [("SIMPLE", True), ("BITPIX", bitpix), ("NAXIS", data.ndim), ("NAXIS1", 0)]
    cards += [(f"NAXIS{k + 2}", n) for k, n in enumerate(reversed(data.shape[1:]))]
    cards += [("EXTEND", True), ("GROUPS", True), ("PCOUNT", pcount), ("GCOUNT", gcount)]
    for n in range(pcount):
        cards.append((f"PTYPE{n + 1}", ptypes[n]))
        if pscal is not None and pscal[n] is not None:
            cards.append((f"PSCAL{n + 1}", pscal[n]))
        if pzero is not None and pzero[n] is not None:
            cards.append((f"PZERO{n + 1}", pzero[n]))
    cards += list(extra)
    body = np.concatenate([params, data.reshape(gcount, -1)], axis=1).astype(dt)
    return header_bytes(cards) + padded(body.tobytes(), b"\0")


# ---------------------------------------------------------------------------------------------
# The cases


def ints(rng, dtype, shape):
    info = np.iinfo(np.dtype(dtype))
    return rng.integers(info.min, info.max, size=shape, endpoint=True,
                        dtype=np.dtype(dtype).newbyteorder("=")).astype(dtype)


def floats(rng, dtype, shape):
    a = (rng.standard_normal(size=shape) * 1e3).astype(dtype)
    flat = a.reshape(-1)
    if flat.size > 3:
        flat[1] = np.nan
        flat[2] = np.inf
        flat[3] = -0.0
    return a


def logical(rng, shape, undefined=False):
    choices = np.frombuffer(b"TF\0?" if undefined else b"TF", dtype="u1")
    return choices[rng.integers(0, len(choices), size=shape)]


def strings(rng, width, shape):
    alphabet = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz ABC0123456789", dtype="S1")
    n = int(np.prod(shape, dtype=np.int64))
    lengths = rng.integers(0, width + 1, size=n)
    out = []
    for k in range(n):
        chars = alphabet[rng.integers(0, len(alphabet), size=lengths[k])]
        text = b"".join(chars).rstrip(b" ")
        out.append(text.ljust(width, b" ") if k % 3 else text.ljust(width, b"\0"))
    return np.array(out, dtype=f"S{width}").reshape(shape)


def case_tforms(rng):
    n = 7
    cols = [
        Col("L", logical(rng, n), ttype="flag"),
        Col("1X", np.packbits(rng.integers(0, 2, size=(n, 1)), axis=1), ttype="bit"),
        Col("13X", np.packbits(rng.integers(0, 2, size=(n, 13)), axis=1), ttype="bits13"),
        Col("B", ints(rng, "u1", n), ttype="byte"),
        Col("I", ints(rng, ">i2", n), ttype="short"),
        Col("J", ints(rng, ">i4", n), ttype="int"),
        Col("K", ints(rng, ">i8", n), ttype="long"),
        Col("10A", strings(rng, 10, n), ttype="text"),
        Col("1A", strings(rng, 1, n), ttype="char"),
        Col("E", floats(rng, ">f4", n), ttype="float"),
        Col("D", floats(rng, ">f8", n), ttype="double"),
        Col("C", (floats(rng, ">f4", (n, 2))).view(">c8").reshape(n), ttype="cplx"),
        Col("M", (floats(rng, ">f8", (n, 2))).view(">c16").reshape(n), ttype="dcplx"),
        Col("3I", ints(rng, ">i2", (n, 3)), ttype="short3"),
        Col("2K", ints(rng, ">i8", (n, 2)), ttype="long2"),
        Col("4E", floats(rng, ">f4", (n, 4)), ttype="float4"),
        Col("2M", floats(rng, ">f8", (n, 2, 2)).view(">c16").reshape(n, 2), ttype="dcplx2"),
        Col("0J", None, ttype="nothing"),
        Col("3L", logical(rng, (n, 3)), ttype="flag3"),
        Col("2B", ints(rng, "u1", (n, 2)), ttype="byte2"),
        Col("0A", None, ttype="notext"),
        Col("1J", ints(rng, ">i4", n), ttype="int1"),
    ]
    return empty_primary() + bintable(cols, n, extra=[("EXTNAME", "TFORMS")])


def case_tdim(rng):
    n = 5
    cols = [
        Col("6D", floats(rng, ">f8", (n, 3, 2)), ttype="matrix", tdim="(2,3)"),
        Col("24J", ints(rng, ">i4", (n, 4, 3, 2)), ttype="cube", tdim="(2,3,4)"),
        Col("12A", strings(rng, 4, (n, 3)), ttype="words", tdim="(4,3)"),
        Col("24A", strings(rng, 3, (n, 2, 4)), ttype="words3", tdim="(3,4,2)"),
        Col("4I", ints(rng, ">i2", (n, 2, 2)), ttype="sq", tdim="(2,2)", tzero=32768),
        Col("2E", floats(rng, ">f4", (n, 2)), ttype="vec", tdim="(2)"),
    ]
    return empty_primary() + bintable(cols, n)


def case_tdim_x(rng):
    n = 4
    cols = [
        Col("16X", np.packbits(rng.integers(0, 2, size=(n, 16)), axis=1), ttype="mask2d",
            tdim="(8,2)"),
        Col("J", np.arange(n, dtype=">i4"), ttype="index"),
    ]
    return empty_primary() + bintable(cols, n)


def case_logical_undefined(rng):
    n = 6
    first = np.frombuffer(b"TF\0TF?", dtype="u1")
    cols = [
        Col("L", first, ttype="maybe", tcomm="T, F, or undefined (0)"),
        Col("3L", logical(rng, (n, 3), undefined=True), ttype="maybe3"),
        Col("L", np.frombuffer(b"TFTTFF", dtype="u1"), ttype="sure"),
    ]
    return empty_primary() + bintable(cols, n)


def case_unsigned(rng):
    n = 6
    u16 = ints(rng, ">i2", n)
    u16[0] = 5 - 32768  # the null below, as stored
    cols = [
        Col("I", u16, ttype="u16", tzero=32768, tnull=5 - 32768),
        Col("J", ints(rng, ">i4", n), ttype="u32", tzero=2147483648),
        Col("K", ints(rng, ">i8", n), ttype="u64", tzero=9223372036854775808),
        Col("B", ints(rng, "u1", n), ttype="s8", tzero=-128),
        Col("2I", ints(rng, ">i2", (n, 2)), ttype="u16x2", tzero=32768),
        Col("I", np.array([-32768, -1, 0, 1, 32767, 5], dtype=">i2"), ttype="u16edge",
            tzero=32768, tscal=1.0),
        Col("I", np.arange(n, dtype=">i2"), ttype="scaled16", tzero=32768, tscal=2.0),
        Col("J", ints(rng, ">i4", n), ttype="u32float", tzero=2147483648.0),
    ]
    return empty_primary() + bintable(cols, n, extra=[("EXTNAME", "UNSIGNED")])


def case_scaled(rng):
    n = 6
    i16 = np.arange(n, dtype=">i2") * 3
    i16[2] = 7
    cols = [
        Col("I", i16, ttype="half", tscal=0.5, tzero=100.0, tnull=7),
        Col("J", ints(rng, ">i4", n), ttype="big", tscal=2.5),
        Col("K", np.arange(n, dtype=">i8") - 3, ttype="offset", tzero=10),
        Col("E", floats(rng, ">f4", n), ttype="fscaled", tscal=2.0, tzero=1.0),
        Col("D", floats(rng, ">f8", n), ttype="dzero", tzero=0.5),
        Col("B", ints(rng, "u1", n), ttype="bscaled", tscal=0.1, tzero=5.0),
        Col("2J", ints(rng, ">i4", (n, 2)), ttype="pair", tscal=1e-3, tzero=-7.0),
        Col("J", np.arange(n, dtype=">i4"), ttype="plain"),
    ]
    return empty_primary() + bintable(cols, n)


def case_tnull(rng):
    n = 8
    b = ints(rng, "u1", n)
    b[[1, 5]] = 255
    i = ints(rng, ">i2", n)
    i[0] = -1
    j = ints(rng, ">i4", n)
    j[[2, 3]] = 99
    k = ints(rng, ">i8", n)
    k[7] = -9
    j2 = ints(rng, ">i4", (n, 2))
    j2[4, 1] = -2147483648
    cols = [
        Col("B", b, ttype="bnull", tnull=255),
        Col("I", i, ttype="inull", tnull=-1),
        Col("J", j, ttype="jnull", tnull=99),
        Col("K", k, ttype="knull", tnull=-9),
        Col("2J", j2, ttype="j2null", tnull=-2147483648),
        Col("J", np.arange(n, dtype=">i4"), ttype="nonull", tnull=1000),
    ]
    return empty_primary() + bintable(cols, n)


def case_units(rng):
    n = 4
    cols = [
        Col("J", ints(rng, ">i4", n), ttype="speed", tunit="km/s", tcomm="radial velocity"),
        Col("E", floats(rng, ">f4", n), ttype="flux", tunit="erg/s/cm2/Angstrom",
            tcomm="flux density"),
        Col("D", floats(rng, ">f8", n), ttype="wave", tunit="Angstrom"),
        Col("I", ints(rng, ">i2", n), ttype="counts", tunit="count"),
        Col("E", floats(rng, ">f4", n), ttype="odd", tunit="furlong per fortnight!!",
            tcomm="a unit no parser knows"),
        Col("D", floats(rng, ">f8", n), ttype="ra", tunit="deg", tdisp="F10.5"),
        Col("8A", strings(rng, 8, n), ttype="label", tcomm="plain text, no unit"),
        Col("E", floats(rng, ">f4", n), ttype="sb", tunit="mag/arcsec**2"),
        Col("J", ints(rng, ">i4", n), ttype="blank_unit", tunit="   "),
    ]
    return empty_primary() + bintable(cols, n, extra=[("EXTNAME", "UNITS")])


def case_names(rng):
    n = 3
    cols = [
        Col("J", np.arange(n, dtype=">i4")),  # no TTYPE1
        Col("J", np.arange(n, dtype=">i4") + 10, ttype=""),  # empty
        Col("E", floats(rng, ">f4", n), ttype="flux"),
        Col("E", floats(rng, ">f4", n), ttype="FLUX"),  # duplicate, case aside
        Col("D", floats(rng, ">f8", n), ttype="Flux  "),  # duplicate after trailing blanks
        Col("I", ints(rng, ">i2", n), ttype="  lead"),  # leading blanks are significant
        Col("I", ints(rng, ">i2", n), ttype="with space"),
    ]
    return empty_primary() + bintable(cols, n)


def vla_arrays(rng, n, make, empty_every=3):
    return [make(0 if k % empty_every == 0 else int(rng.integers(1, 6))) for k in range(n)]


def case_vla(rng):
    n = 7
    heap = Heap()
    cols = [
        Col("PJ(5)", heap.add(vla_arrays(rng, n, lambda m: ints(rng, ">i4", m))), ttype="pj"),
        Col("PE", heap.add(vla_arrays(rng, n, lambda m: floats(rng, ">f4", m))), ttype="pe"),
        Col("PD", heap.add(vla_arrays(rng, n, lambda m: floats(rng, ">f8", m))), ttype="pd"),
        Col("PB", heap.add(vla_arrays(rng, n, lambda m: ints(rng, "u1", m))), ttype="pb"),
        Col("PI", heap.add(vla_arrays(rng, n, lambda m: ints(rng, ">i2", m))), ttype="pi"),
        Col("PK", heap.add(vla_arrays(rng, n, lambda m: ints(rng, ">i8", m))), ttype="pk"),
        Col("PA", heap.add([strings(rng, 6, 1)[0].rstrip(b"\0") for _ in range(n)]),
            ttype="pa"),
        Col("PL", heap.add(vla_arrays(rng, n, lambda m: logical(rng, m).tobytes())), ttype="pl"),
        Col("PC", heap.add(vla_arrays(rng, n, lambda m: floats(rng, ">f4", (m, 2))
                                      .view(">c8").reshape(m))), ttype="pc"),
        Col("PM", heap.add(vla_arrays(rng, n, lambda m: floats(rng, ">f8", (m, 2))
                                      .view(">c16").reshape(m))), ttype="pm"),
        Col("QJ", heap.add(vla_arrays(rng, n, lambda m: ints(rng, ">i4", m)), q=True), ttype="qj"),
        Col("QD(9)", heap.add(vla_arrays(rng, n, lambda m: floats(rng, ">f8", m)), q=True),
            ttype="qd"),
        Col("J", np.arange(n, dtype=">i4"), ttype="index"),
    ]
    return empty_primary() + bintable(cols, n, heap=heap.bytes(), extra=[("EXTNAME", "VLA")])


def case_vla_bits(rng):
    """PX (astropy 5.2.1 refuses the format) and PL beside plain columns."""
    n = 5
    heap = Heap()
    bits = [rng.integers(0, 2, size=int(m)).astype(bool) for m in (0, 3, 9, 16, 1)]
    cols = [
        Col("PX", heap.add(bits, bits=True), ttype="bits"),
        Col("PL", heap.add(vla_arrays(rng, n, lambda m: logical(rng, m).tobytes())), ttype="flags"),
        Col("J", np.arange(n, dtype=">i4") * 11, ttype="j"),
    ]
    return empty_primary() + bintable(cols, n, heap=heap.bytes())


def case_heap_gap(rng):
    n = 5
    heap = Heap()
    cols = [
        Col("PJ", heap.add(vla_arrays(rng, n, lambda m: ints(rng, ">i4", m))), ttype="pj"),
        Col("QE", heap.add(vla_arrays(rng, n, lambda m: floats(rng, ">f4", m)), q=True),
            ttype="qe"),
        Col("E", floats(rng, ">f4", n), ttype="plain"),
    ]
    gap = bytes(range(7, 7 + 101))  # not a multiple of anything, and not zeros
    return empty_primary() + bintable(cols, n, heap=heap.bytes(), gap=gap)


def case_heap_shared(rng):
    n = 4
    heap = (np.arange(10) * 7).astype(">i4").tobytes()
    # rows 0 and 2 share the same array; row 1 points into the middle of it; row 3 is empty;
    # the second column points at the same bytes as the first; the third reads them as int16.
    a = np.array([[10, 0], [3, 8], [10, 0], [0, 0]], dtype=">i4")
    b = np.array([[10, 0], [10, 0], [1, 36], [1, 4]], dtype=">i4")
    c = np.array([[20, 0], [0, 0], [2, 2], [4, 0]], dtype=">i4")
    cols = [Col("PJ", a, ttype="first"), Col("PJ", b, ttype="second"),
            Col("PI", c, ttype="halves")]
    return empty_primary() + bintable(cols, n, heap=heap)


def case_zero_rows(rng):
    cols = [
        Col("J", np.zeros(0, ">i4"), ttype="j"),
        Col("E", np.zeros(0, ">f4"), ttype="e", tunit="s"),
        Col("8A", np.zeros(0, "S8"), ttype="a"),
        Col("L", np.zeros(0, "u1"), ttype="l"),
        Col("3X", np.zeros((0, 1), "u1"), ttype="x"),
        Col("PJ", np.zeros((0, 2), ">i4"), ttype="vla"),
        Col("I", np.zeros(0, ">i2"), ttype="u", tzero=32768),
    ]
    return empty_primary() + bintable(cols, 0)


def case_zero_width(rng):
    n = 3
    only = [Col("0J", None, ttype="a"), Col("0E", None, ttype="b")]
    mixed = [Col("0D", None, ttype="first"), Col("J", np.arange(n, dtype=">i4"), ttype="j"),
             Col("0A", None, ttype="middle"), Col("2E", floats(rng, ">f4", (n, 2)), ttype="e"),
             Col("0L", None, ttype="last")]
    return (empty_primary() + bintable(only, n, extra=[("EXTNAME", "EMPTYROWS")])
            + bintable(mixed, n, extra=[("EXTNAME", "MIXED")]))


def case_million(rng):
    n = 10**6
    cols = [
        Col("J", np.arange(n, dtype=">i4"), ttype="id"),
        Col("D", rng.standard_normal(n).astype(">f8"), ttype="ra", tunit="deg"),
        Col("I", ints(rng, ">i2", n), ttype="adu", tzero=32768),
        Col("L", logical(rng, n), ttype="good"),
        Col("5X", np.packbits(rng.integers(0, 2, size=(n, 5), dtype=np.uint8), axis=1),
            ttype="flags"),
        Col("4A", np.repeat(np.array([b"abcd", b"x", b"", b"zz  "], dtype="S4"), n // 4),
            ttype="tag"),
    ]
    return empty_primary() + bintable(cols, n, extra=[("EXTNAME", "MILLION")])


def ascii_rows(columns, values, fill=" "):
    """The rows of an ASCII table: each value right-justified in its field, `fill` between."""
    width = max(tbcol - 1 + w for _, _, tbcol, w, _ in columns)
    rows = []
    for row in values:
        text = [fill] * width
        for (_, _, tbcol, w, _), value in zip(columns, row):
            if len(value) > w:
                raise ValueError(f"{value!r} wider than {w}")
            text[tbcol - 1:tbcol - 1 + w] = list(value.rjust(w))
        rows.append("".join(text))
    return rows


def case_ascii(rng):
    columns = [
        ("name", "A7", 3, 7, {}),
        ("count", "I5", 11, 5, {"TNULL": "***", "TUNIT": "count"}),
        ("ratio", "F8.3", 17, 8, {"TNULL": "NULL"}),
        ("big", "E11.4", 26, 11, {"TUNIT": "erg/s"}),
        ("dbl", "D17.9", 38, 17, {}),
    ]
    values = [
        ["alpha", "12", "3.250", "1.2500E+03", "-1.234567890D+02"],
        ["beta", "***", "-0.500", "-4.0000E-02", "9.876543210D-11"],
        ["gamma", "0", "NULL", "0.0000E+00", "0.000000000D+00"],
        ["delta", "-9999", "100.125", "6.0221E+23", "1.000000000D+300"],
        ["", "42", "7", "1.0E0", "3.000000000E+00"],
    ]
    hdu = ascii_table(columns, ascii_rows(columns, values), extra=[("EXTNAME", "ASCII")])
    # A second ASCII table: columns out of order in the row, text in the gaps between them.
    columns2 = [("v", "F6.2", 5, 6, {}), ("k", "I1", 3, 1, {}), ("s", "A1", 1, 1, {})]
    values2 = [["2.5", "1", "x"], ["-3.25", "2", "y"], ["", "3", ""]]
    hdu2 = ascii_table(columns2, ascii_rows(columns2, values2, fill="|"),
                       extra=[("EXTNAME", "ASCII"), ("EXTVER", 2)])
    return empty_primary() + hdu + hdu2


def case_groups(rng):
    gcount = 5
    params = ints(rng, ">i2", (gcount, 3)).astype(">i2")
    data = ints(rng, ">i2", (gcount, 2, 3)).astype(">i2")
    return random_groups(16, params, data, ["UU", "VV", "UU"], pscal=[0.5, 1e-3, 2.0],
                         pzero=[10.0, None, -1.0], extra=[("BSCALE", 1.0), ("BZERO", 0.0)])


def case_groups_float(rng):
    gcount = 4
    params = floats(rng, ">f4", (gcount, 2))
    data = floats(rng, ">f4", (gcount, 1, 2, 2))
    return random_groups(-32, params, data, ["DATE", "BASELINE"], pscal=[1.0, None],
                         pzero=[2451544.5, None])


def case_mixed(rng):
    n = 3
    table1 = bintable([Col("J", np.arange(n, dtype=">i4"), ttype="j"),
                       Col("E", floats(rng, ">f4", n), ttype="e", tunit="m")], n,
                      extra=[("EXTNAME", "EVENTS")])
    table2 = bintable([Col("2D", floats(rng, ">f8", (n, 2)), ttype="d")], n,
                      extra=[("EXTNAME", "EVENTS"), ("EXTVER", 2)])
    ascii_hdu = ascii_table([("i", "I3", 1, 3, {})], ["  1", " 22", "333"])
    return (image_primary(floats(rng, ">f4", (3, 4))) + table1 + image_extension(
        ints(rng, ">i2", (2, 2)), "SCI") + table2 + ascii_hdu)


def case_ztable_source(rng):
    n = 50
    heap = Heap()
    cols = [
        Col("J", np.arange(n, dtype=">i4") * 3, ttype="j"),
        Col("E", floats(rng, ">f4", n), ttype="e", tunit="s"),
        Col("D", floats(rng, ">f8", n), ttype="d"),
        Col("8A", strings(rng, 8, n), ttype="a"),
        Col("L", logical(rng, n), ttype="l"),
        Col("I", ints(rng, ">i2", n), ttype="u", tzero=32768),
        Col("2K", ints(rng, ">i8", (n, 2)), ttype="k2"),
        Col("PJ", heap.add(vla_arrays(rng, n, lambda m: ints(rng, ">i4", m))), ttype="vla"),
    ]
    return empty_primary() + bintable(cols, n, heap=heap.bytes(), extra=[("EXTNAME", "ZT")])


CASES = [
    ("tforms", case_tforms, [[]]),
    ("tdim", case_tdim, [[]]),
    ("tdim_x", case_tdim_x, [[]]),
    ("logical_undefined", case_logical_undefined, [[]]),
    ("unsigned", case_unsigned, [[], ["--scaling", "physical"]]),
    ("scaled", case_scaled, [[], ["--scaling", "physical"]]),
    ("tnull", case_tnull, [[]]),
    ("units", case_units, [[]]),
    ("names", case_names, [[]]),
    ("vla", case_vla, [[]]),
    ("vla_bits", case_vla_bits, [[]]),
    ("heap_gap", case_heap_gap, [[]]),
    ("heap_shared", case_heap_shared, [[]]),
    ("zero_rows", case_zero_rows, [[]]),
    ("zero_width", case_zero_width, [[]]),
    ("rows_1e6", case_million, [[]]),
    ("ascii", case_ascii, [[]]),
    ("groups", case_groups, [[], ["--scaling", "physical"]]),
    ("groups_float", case_groups_float, [[]]),
    ("mixed", case_mixed, [[]]),
]


def write_cases(folder):
    rng = np.random.default_rng(20240505)
    cases = []
    for name, make, variants in CASES:
        path = os.path.join(folder, name + ".fits")
        with open(path, "wb") as f:
            f.write(make(rng))
        for args in variants:
            suffix = "" if not args else "_" + "_".join(a.lstrip("-") for a in args[1:])
            cases.append({"name": name + suffix, "fits": path, "args": args})
    # The tile-compressed table: fpack -table, then funpack's reading of it is the reference.
    source = os.path.join(folder, "ztable_source.fits")
    with open(source, "wb") as f:
        f.write(case_ztable_source(rng))
    packed = os.path.join(folder, "ztable.fits.fz")
    reference = os.path.join(folder, "ztable_funpacked.fits")
    for stale in (packed, reference):
        if os.path.exists(stale):
            os.remove(stale)
    # fpack and funpack talk on standard output, which is this script's answer: keep it clean.
    subprocess.run(["fpack", "-table", "-O", packed, source], check=True, stdout=sys.stderr)
    subprocess.run(["funpack", "-O", reference, packed], check=True, stdout=sys.stderr)
    with fits.open(packed, disable_image_compression=True) as hdul:
        if not hdul[1].header.get("ZTABLE"):
            raise RuntimeError("fpack -table wrote no ZTABLE extension")
    cases.append({"name": "ztable", "fits": packed, "args": [], "reference": reference})
    return cases


def is_table_file(path):
    """Whether astropy sees a binary table, ASCII table, random groups or ZTABLE in the file."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with fits.open(path, disable_image_compression=True) as hdul:
                for hdu in hdul:
                    if isinstance(hdu, fits.GroupsHDU) or hdu.header.get("ZTABLE"):
                        return True
                    if hdu.header.get("XTENSION", "").rstrip() in ("BINTABLE", "TABLE") and \
                            not hdu.header.get("ZIMAGE"):
                        return True
        except Exception:  # noqa: BLE001 -- a file astropy cannot open is not listed
            return False
    return False


def main(argv):
    folder = argv[0]
    scan = argv[argv.index("--scan") + 1:] if "--scan" in argv else []
    os.makedirs(folder, exist_ok=True)
    cases = write_cases(folder)
    for directory in scan:
        for path in sorted(glob.glob(os.path.join(directory, "*.fits"))):
            if is_table_file(path):
                name = os.path.basename(os.path.dirname(path)) + "/" + os.path.basename(path)
                cases.append({"name": name, "fits": path, "args": []})
    json.dump(cases, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
