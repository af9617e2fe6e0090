"""Run the side-by-side benchmark: cp, fitscopy, fitsasdf and python on the same FITS inputs.

Called by bench/run.sh, which installs the dependencies and builds fitsasdf first. For every job
each contestant runs N times, the contestants alternating (the order rotates each round); before
every run the output is deleted and, when the kernel lets us, the page cache is dropped, so each
run reads its input from disk. Wall time is measured here around `/usr/bin/time`, which reports
the peak RSS (ru_maxrss) and the page faults; the CPU times come from wait4.

Prints the table and writes bench/RESULTS.md (machine, command, table, date, and the previous
fitsasdf figures parsed from the RESULTS.md being replaced), plus bench/out/results.json.
"""

import argparse
import datetime
import hashlib
import itertools
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TIME = "/usr/bin/time"
PYTHON = "/usr/bin/python3"
COLUMNS = ["job", "contestant", "wall s", "x cp", "python/this", "MB/s", "items/s",
           "peak RSS MiB", "out MiB", "out/in", "CPU s"]
PREVIOUS = "previous "
# A fitsasdf figure worse than the previous one by both this fraction and this amount is flagged
# in the change list (the amounts keep millisecond jitter on the small jobs from being flagged).
REGRESSION_THRESHOLD = 0.10
REGRESSION_MIN_WALL_S = 0.05
REGRESSION_MIN_RSS_MIB = 4.0
# A cost curve whose time per item at its largest size is more than this many times that at its
# smallest is flagged (linear cost keeps it near 1).
CURVE_FLAT = 1.5

sys.path.insert(0, HERE)
from make_inputs import CURVES  # noqa: E402  (the axes, their sizes and their inputs)
from astropy.io import fits  # noqa: E402  (make_inputs has loaded it already)


# ---------------------------------------------------------------------------------------------
# Jobs and contestants


class Job:
    """One line of work: `kind` is to_asdf (a FITS input converted), to_fits (the ASDF file
    fitsasdf made from a FITS input, converted back), batch (a folder of files), read (open an
    ASDF file and touch every array), validate (check ASDF files against the schemas) or edit
    (change one small value of the tree of fitsasdf's ASDF file of `source`, in a work copy) or
    curve (one size of a cost-curve axis: every operation timed on it, see curve_operations)."""

    def __init__(self, name, source, kind="to_asdf", compression=None, fsync=False,
                 no_checksum=False, no_verify=False, of_asdf=False, file_list=False,
                 max_runs=None, skip=(), axis=None, items=0, groups=(), md5sum=False,
                 header_floor=False):
        self.name = name
        self.source = source          # an input name of make_inputs.py
        self.kind = kind
        self.compression = compression
        self.fsync = fsync            # also time fitsasdf with its default fsync
        self.no_checksum = no_checksum  # also time fitsasdf --no-checksum
        self.md5sum = md5sum            # also time md5sum of the input (the checksums' floor)
        self.header_floor = header_floor  # also time CFITSIO + libyaml alone (header_floor.cc)
        self.no_verify = no_verify      # to_fits: also time fitsasdf --no-verify-checksums
        self.of_asdf = of_asdf          # read: read fitsasdf's ASDF file of `source`
        self.file_list = file_list      # validate: the input lists the files, one a line
        self.max_runs = max_runs        # at most this many runs (jobs of many minutes)
        self.skip = skip                # contestants left out (too slow for the size)
        self.axis = axis                # curve: the axis name (hdus, cards, arrays, rows)
        self.items = items              # curve: how many of the axis's items the input holds
        self.groups = set(groups)       # further names that select the job with --jobs

    @property
    def fpack_option(self):
        """fpack's option for a tile-compressed input (tiled_rice*, tiled_float: -r; tiled_gzip:
        -g), or None."""
        if self.source.startswith("tiled_rice") or self.source == "tiled_float":
            return "-r"
        return "-g" if self.source.startswith("tiled_gzip") else None

    @property
    def asdf_input(self):
        """True when the job's input is the ASDF file fitsasdf makes of `source`."""
        return self.kind in ("to_fits", "edit") or self.of_asdf

    @property
    def slug(self):
        return job_slug(self.name)

    @property
    def derived(self):
        """The name of the ASDF input a to_fits job converts back."""
        return self.source + "_asdf" + ("_" + self.compression if self.compression else "")

    @property
    def companion(self):
        """curve: the name of the input's counterpart in the other format, written by this
        fitsasdf's `convert` (the ASDF file of a FITS input; the FITS file of an ASDF one)."""
        return self.source + ("_fits" if self.axis == "arrays" else "_asdf")


NO_VERIFY = "fitsasdf (no verify)"
NO_VERIFY_1_THREAD = "fitsasdf (no verify, 1 thread)"
MODULE = "fitsasdf (python module)"
NO_BLOCKS = "fitsasdf (no blocks)"
HEADER_FLOOR = "CFITSIO + libyaml alone"
HEADER_FLOOR_MD5 = "CFITSIO + libyaml + MD5 (2 threads)"
ONE_THREAD_NO_CHECKSUM = "fitsasdf (1 thread, no checksum)"
WRITE_ALONE = "dd: the image's bytes to a new file"
PYTHON_VALIDATE = "python (parse + validate)"
CORPUS = "asdf_corpus"
CORPUS_FOLDERS = ("asdf-reference", "asdf-pyasdf")
EDIT = "fitsasdf edit"
EDIT_NO_SYNC = "fitsasdf edit (no fsync)"
EDIT_REWRITE = "fitsasdf edit --rewrite"


def edit_files(args, job):
    """The edit job's files in OUT/work: the copy the fitsasdf contestants (and cp) share, made
    once per job, and python's own, made afresh before each of its runs (python's update adds a
    block to the file each time, see python_update.py)."""
    stem = os.path.join(args.out, "work", job.slug)
    return stem + ".asdf", stem + ".python.asdf"


def edit_outcome(log_path):
    """What an edit run says it did: the object `fitsasdf edit --json` prints (kind, bytes
    written...), or python_update.py's sizes before and after; {} when the log has neither."""
    with open(log_path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    match = re.search(r"^size (\d+) -> (\d+) bytes$", text, re.M)
    if match:
        return {"size_before": int(match.group(1)), "size_after": int(match.group(2))}
    start, end = text.find("{"), text.rfind("}")
    try:
        return json.loads(text[start:end + 1]) if start >= 0 else {}
    except ValueError:
        return {}


def edit_notes(results):
    """One line per contestant of an edit job: what its runs did (from their own report), or why
    its row failed."""
    lines = []
    for r in results:
        edits = r.get("edits")
        if not edits:
            continue
        if "error" in r:
            lines.append(f"- {r['job']}, {r['contestant']}: FAILED: {r['error']}")
        elif "kind" in edits[0]:
            kinds = [e["kind"] for e in edits]
            said = ", ".join(f"{kind} {kinds.count(kind)} of {len(kinds)} runs"
                             for kind in dict.fromkeys(kinds))
            written = statistics.median(e.get("bytes_written", 0) for e in edits)
            lines.append(f"- {r['job']}, {r['contestant']}: {said}; {written:,.0f} bytes written "
                         f"(median), tree {edits[-1].get('new_tree_size', 0):,} bytes in "
                         f"{edits[-1].get('tree_room', 0):,} of room")
        elif "size_after" in edits[0]:
            grown = statistics.median(e["size_after"] - e["size_before"] for e in edits)
            lines.append(f"- {r['job']}, {r['contestant']}: the file grew by "
                         f"{grown / 2**20:.1f} MiB a run ({edits[-1]['size_before']:,} -> "
                         f"{edits[-1]['size_after']:,} bytes)")
    return lines


def scale_notes(results):
    """Lines comparing the batch-at-scale jobs: peak RSS and files/s by number of inputs."""
    rows = [r for r in results if r["job"].startswith("batch --from") and "error" not in r]
    lines = []
    for name in sorted({r["contestant"] for r in rows}):
        mine = sorted((r for r in rows if r["contestant"] == name), key=lambda r: r["items"])
        if len(mine) < 2:
            continue
        small, large = mine[0], mine[-1]
        lines.append(
            f"- {name}: {small['items']:,} inputs {small['rss_mib']:.1f} MiB peak, "
            f"{small['items'] / small['wall']:,.0f} files/s; {large['items']:,} inputs "
            f"{large['rss_mib']:.1f} MiB peak, {large['items'] / large['wall']:,.0f} files/s "
            f"(RSS x{large['rss_mib'] / small['rss_mib']:.2f} for x{large['items'] / small['items']:.0f} "
            f"the inputs)")
    return lines


def verify_costs(results):
    """One line per to_fits job timed with and without --no-verify-checksums: the two wall times
    side by side and their ratio (the cost of verifying the input's block checksums)."""
    walls = {(r["job"], r["contestant"]): r.get("wall") for r in results}
    lines = []
    for r in results:
        if r["contestant"] != NO_VERIFY:
            continue
        verified, unverified = walls.get((r["job"], "fitsasdf")), r.get("wall")
        if verified and unverified:
            lines.append(f"- {r['job']}: verified {verified:.3f} s, --no-verify-checksums "
                         f"{unverified:.3f} s, ratio {verified / unverified:.2f}x")
        one_thread = walls.get((r["job"], NO_VERIFY_1_THREAD))
        if one_thread and unverified:
            lines.append(f"- {r['job']}: --no-verify-checksums on 1 decoding thread "
                         f"{one_thread:.3f} s, on all cores {unverified:.3f} s: "
                         f"{one_thread / unverified:.2f}x faster")
    return lines


def issue28_targets(results, quick):
    """One line per target of issue 28 that this run measured: the figure, the goal and whether
    it is met. A target not met points at bench/README.md, where its floor and the profile
    behind it are written up. Jobs left out of the run leave their targets out."""
    big = "f32 128 MiB" if quick else "f32 1 GiB"
    tiled_big = "tiled 128 MiB RICE_1" if quick else "tiled 1 GiB RICE_1"
    mef = "4 x 32 MiB MEF" if quick else "4 x 256 MiB MEF"
    row = {(r["job"], r["contestant"]): r for r in results if "error" not in r}

    def wall(job, contestant):
        r = row.get((job, contestant))
        return r["wall"] if r else None

    lines = []

    def report(target, what, value, goal, met, unit="x", floor=None):
        verdict = "met" if met else "NOT MET" + (f" (floor: bench/README.md, {floor})"
                                                 if floor else "")
        lines.append(f"- target {target}, {what}: {value:.2f}{unit} (goal {goal}): {verdict}")

    def ratio(target, what, job, top, bottom, goal, at_most, floor=None):
        a, b = wall(job, top), wall(job, bottom)
        if a and b:
            report(target, what, a / b, f"{'<=' if at_most else '>='} {goal}x",
                   a / b <= goal if at_most else a / b >= goal, floor=floor)

    tiles = "\"Tile-compressed images in bounded memory and on every core\""
    for job, tool in [("tiled 64 MiB RICE_1", "funpack"), ("tiled 64 MiB GZIP_1", "funpack"),
                      ("tiled 64 MiB float32 RICE_1 (quantized)", "funpack"),
                      (tiled_big, "funpack"), ("tiled 64 MiB RICE_1 to FITS", "fpack"),
                      (tiled_big + " to FITS", "fpack")]:
        r = row.get((job, "fitsasdf"))
        if r:
            report(1, f"{job}, peak RSS", r["rss_mib"], "<= 64 MiB", r["rss_mib"] <= 64,
                   unit=" MiB")
        ratio(1, f"{job}, 1 thread / {tool}", job, "fitsasdf (1 thread)", tool, 1.1, True, tiles)
        # The decoding alone against the tool's: the rest of the row above is the output's MD5.
        ratio(1, f"{job}, 1 thread without the MD5 / {tool}", job, ONE_THREAD_NO_CHECKSUM, tool,
              1.1, True, tiles)
        ratio(1, f"{job}, 1 thread / 2 threads", job, "fitsasdf (1 thread)", "fitsasdf", 1.7,
              False, tiles)
        # No number of threads writes the output faster than writing it alone: 1 thread over
        # that is the most 2 threads can gain (NOT MET: the target is under this floor).
        ratio(1, f"{job}, 1 thread / writing the output alone, the ceiling of 2 threads over 1",
              job, "fitsasdf (1 thread)", WRITE_ALONE, 1.7, False, tiles)
    ratio(2, f"{big}, fitsasdf / md5sum", big, "fitsasdf", "md5sum", 1.05, True,
          "\"Checksums\"")
    ratio(2, f"{mef}, md5sum / fitsasdf", mef, "md5sum", "fitsasdf", 1.7, False,
          "\"Many blocks, small files and short jobs\"")
    ratio(3, "table 5M rows, no checksum / cp", "table 5M rows x 10 cols",
          "fitsasdf (no checksum)", "cp", 1.5, True, "\"Floors of issue 28's other targets\"")
    batch = row.get(("batch 1000 files", "fitsasdf"))
    if batch and batch.get("items"):
        per_second = batch["items"] / batch["wall"]
        report(4, "batch 1000 files, files/s", per_second, ">= 2200", per_second >= 2200,
               unit=" files/s", floor="\"Floors of issue 28's other targets\"")
    ratio(4, "batch 1000 files, python / fitsasdf", "batch 1000 files", "python", "fitsasdf",
          50, False, "\"Floors of issue 28's other targets\"")
    for job in ("200 extensions", "5000-card header"):
        ratio(4, f"{job}, fitsasdf / fitscopy", job, "fitsasdf", "fitscopy", 1.0, True,
              "\"Many blocks, small files and short jobs\"")
        # The same goal for CFITSIO + libyaml alone: when even they miss it, the goal is under
        # the floor of the libraries the converter is built on.
        ratio(4, f"{job}, {HEADER_FLOOR} / fitscopy", job, HEADER_FLOOR, "fitscopy", 1.0, True,
              "\"Many blocks, small files and short jobs\"")
        # With the data's MD5 as well (checksums are on by default), where the job has its row.
        ratio(4, f"{job}, {HEADER_FLOOR_MD5} / fitscopy", job, HEADER_FLOOR_MD5, "fitscopy", 1.0,
              True, "\"Many blocks, small files and short jobs\"")
    zlib = big + " zlib to FITS"
    ratio(5, f"{zlib}, 1 thread / 2 threads (no verify)", zlib, NO_VERIFY_1_THREAD, NO_VERIFY,
          1.8, False, "\"zlib decoded on every core\"")
    # Cold, fitsasdf's run is about half reading its libraries, its own code and the file back
    # from disk; the section measures each part and the warm ratio.
    ratio(6, "read 5000 arrays, python / fitsasdf", "read 5000 arrays", "python", "fitsasdf", 50,
          False, "\"Floors of issue 28's other targets\"")
    ratio(6, "read 5000 arrays, fitsasdf / cat", "read 5000 arrays", "fitsasdf", "cat", 2.0,
          True, "\"Floors of issue 28's other targets\"")
    curves = curve_rows(results)
    if curves:
        steep = [f"{c[0]} {c[1]}" for c in curves if c[-1] != "flat"]
        lines.append(f"- target 7, cost curves flat within {CURVE_FLAT}x: "
                     f"{len(curves) - len(steep)} of {len(curves)} flat"
                     + (": met" if not steep else f"; NOT FLAT: {', '.join(steep)}"))
    return lines


def validation_costs(results):
    """One line per validate job: python's schema validation alone (`asdf.schema.validate`,
    timed inside the process by python_validate.py) beside fitsasdf validate --no-blocks as a
    whole process, start-up and parsing included, and their ratio."""
    walls = {(r["job"], r["contestant"]): r.get("wall") for r in results}
    lines = []
    for r in results:
        if r["contestant"] != PYTHON_VALIDATE or not r.get("in_process"):
            continue
        python, ours = r["in_process"], walls.get((r["job"], NO_BLOCKS))
        if ours:
            lines.append(f"- {r['job']}: python's validation alone (`asdf.schema.validate`, "
                         f"in-process) {python:.3f} s; fitsasdf validate --no-blocks, the whole "
                         f"process, {ours:.3f} s: {python / ours:.1f}x")
    return lines


CURVE_COLUMNS = ["axis", "operation", "fixed cost s", "items", "wall s", "us/item",
                 "us/item net of fixed cost", "ratio", "CPU ratio", "flat?"]
# The smallest size's time net of the fixed cost is a difference of two short runs: under this
# many seconds it is mostly noise, and the ratio is taken from the middle size instead.
CURVE_NOISE_FLOOR_S = 0.02
# The sizes of a cost-curve axis are timed in alternation, round by round, so that a slow minute
# of a shared machine lands on all of them alike; a run shorter than CURVE_SHORT_S is repeated
# until it has CURVE_SHORT_RUNS runs (at least --runs), its median then steadier than the
# differences of a few milliseconds the smaller sizes are judged by.
CURVE_SHORT_S = 0.5
CURVE_SHORT_RUNS = 11


def curve_rows(results):
    """The cost-curve table: per axis and operation, the wall time (median of the runs) at each
    of the three sizes, the time per item as measured (wall / items) and net of the fixed cost
    ((wall - wall of the axis's fixed-cost input) / (items - its items)), and the ratio of the
    largest size's net time per item over the smallest's (over the middle size's, marked "mid",
    when the smallest's net time is under CURVE_NOISE_FLOOR_S); the same ratio of CPU time
    (user + system) beside it, steadier on a shared machine. Flagged NOT FLAT when the wall
    ratio is over CURVE_FLAT."""
    got, failed = {}, set()
    for r in results:
        curve = r.get("curve")
        if not curve:
            continue
        key = (curve["axis"], r["contestant"])
        if "error" in r:
            failed.add(key)
        else:
            got.setdefault(key, {})[curve["items"]] = (r["wall"], r["cpu"])
    rows = []
    for axis, (_, _, base, sizes, _, item) in CURVES.items():
        operations = [op for (a, op) in list(got) + sorted(failed) if a == axis]
        for op in dict.fromkeys(operations):
            times = got.get((axis, op), {})
            if (axis, op) in failed or any(n not in times for n in (base,) + sizes):
                rows.append([axis, op, "FAILED" if (axis, op) in failed else "missing"]
                            + [""] * (len(CURVE_COLUMNS) - 3))
                continue
            fixed, fixed_cpu = times[base]
            raw = [times[n][0] / n * 1e6 for n in sizes]
            net = [(times[n][0] - fixed) / (n - base) * 1e6 for n in sizes]
            net_cpu = [(times[n][1] - fixed_cpu) / (n - base) * 1e6 for n in sizes]
            def ratio(values, spent):
                """Largest over smallest (over middle, "mid", when the smallest size's net
                seconds `spent[0]` are under the noise floor); None when there is no per-item
                cost to compare (it does not grow with the size)."""
                ref = 1 if spent[0] < CURVE_NOISE_FLOOR_S else 0
                if values[ref] <= 0:
                    return None, ""
                return values[-1] / values[ref], " mid" if ref else ""
            def shown(value_mark):
                value, mark = value_mark
                return "n/a" if value is None else f"{value:.2f}{mark}"
            wall_ratio = ratio(net, [times[n][0] - fixed for n in sizes])
            cpu_ratio = ratio(net_cpu, [times[n][1] - fixed_cpu for n in sizes])
            rows.append([
                axis, op, f"{fixed:.3f} ({base:,} {item})",
                " / ".join(f"{n:,}" for n in sizes),
                " / ".join(f"{times[n][0]:.3f}" for n in sizes),
                " / ".join(f"{x:.3g}" for x in raw),
                " / ".join(f"{x:.3g}" for x in net),
                shown(wall_ratio), shown(cpu_ratio),
                "NOT FLAT" if (wall_ratio[0] or 0) > CURVE_FLAT else "flat",
            ])
    return rows


CURVE_NOTE = (
    "Cost curves (issue 28): each operation timed on three sizes of one axis, all else small. "
    "wall s: median wall time at each size; us/item: that over the number of items, in "
    "microseconds; net of fixed cost: the wall time of the same command on the axis's "
    "fixed-cost input (1 HDU, 10 cards, 1 array, 1 row: process start-up, schema loading, the "
    "file's own headers) subtracted first, from the time and from the count, so start-up does "
    "not inflate the small size. The four inputs of an axis are timed in alternation, round by "
    f"round, and a command that runs under {CURVE_SHORT_S} s is run {CURVE_SHORT_RUNS} times. "
    "ratio: the largest size's net us/item over the smallest's "
    f"(\"mid\": over the middle size's, when the smallest's net time is under "
    f"{CURVE_NOISE_FLOOR_S} s, too little to tell from noise); CPU ratio: the same of user + "
    "system time (from wait4), steadier than wall time on a shared machine. "
    f"NOT FLAT when the wall ratio is over {CURVE_FLAT}. The arrays axis's ASDF files are "
    "written by fitsasdf's Python module (`fitsasdf.write`) and its FITS files by `fitsasdf "
    "convert` of them; the other axes' ASDF files are `fitsasdf convert` of their FITS inputs.")


def image_bytes(path):
    """The bytes of the image a tile-compressed FITS file holds (astropy gives its compressed HDU's
    header as the image's)."""
    header = fits.getheader(path, 1)
    size = abs(header["BITPIX"]) // 8
    for k in range(1, header["NAXIS"] + 1):
        size *= header[f"NAXIS{k}"]
    return size


def contestants(args, job):
    """Name -> (argv builder taking (input, output), output suffix[, preparation]), in display
    order; an output suffix of None means the contestant writes nothing new (the read job) or
    changes its input (the edit job); a preparation is called before each run, outside the
    timing."""
    fitsasdf = args.fitsasdf
    compress = ["--compress", job.compression] if job.compression else []
    python_extra = [job.compression] if job.compression else []
    script = os.path.join(HERE, "python_convert.py")
    module = [PYTHON, os.path.join(HERE, "module_contestant.py")]
    table = {}
    if job.kind == "to_asdf":
        table["cp"] = (lambda i, o: ["cp", i, o], ".fits")
        table["fitscopy"] = (lambda i, o: ["fitscopy", i, o], ".fits")
        table["fitsasdf"] = (
            lambda i, o: [fitsasdf, "convert", i, "-o", o, "--no-fsync"] + compress, ".asdf")
        if job.no_checksum:
            table["fitsasdf (no checksum)"] = (
                lambda i, o: [fitsasdf, "convert", i, "-o", o, "--no-fsync", "--no-checksum"]
                + compress, ".asdf")
        if job.md5sum:
            # One MD5 pass over the input, as the checksums need at least (issue 28, target 2).
            table["md5sum"] = (lambda i, o: ["md5sum", i], None)
        if job.header_floor:
            # CFITSIO reading the cards and libyaml writing them, and nothing else: the least a
            # converter built on them does (issue 28, target 4).
            floor = os.path.join(os.path.dirname(args.reader), "fitsasdf_bench_header_floor")
            table[HEADER_FLOOR] = (lambda i, o: [floor, i, o], ".asdf")
            if job.md5sum:
                # The same with the data's MD5 on two threads, as the default checksums need.
                table[HEADER_FLOOR_MD5] = (lambda i, o: [floor, "--md5", i, o], ".asdf")
        if job.fpack_option:
            # CFITSIO's own decompressor on the same file.
            table["funpack"] = (lambda i, o: ["funpack", "-O", o, i], ".fits")
        if job.compression or job.fpack_option:
            # One compression thread beside the one that writes, or one thread that decodes the
            # tiles, hashes and writes (one thread in all): how the work scales with cores.
            table["fitsasdf (1 thread)"] = (
                lambda i, o: [fitsasdf, "convert", i, "-o", o, "--no-fsync", "--threads", "1"]
                + compress, ".asdf")
        if job.fpack_option:
            # Writing the output's bytes alone, in 1 MiB writes to a new file: buffered writes
            # to one file are serial (ext4 holds the inode's lock while it copies them into the
            # page cache), so this is the least time any number of threads can take.
            table[WRITE_ALONE] = (
                lambda i, o: ["dd", "if=/dev/zero", f"of={o}", "bs=1M",
                              f"count={-(-image_bytes(i) // (1 << 20))}", "status=none"], ".fits")
            # The same without the MD5 of the output, which funpack does not compute: on one
            # thread nothing hides it, so this row is what the decoding costs against funpack's.
            table[ONE_THREAD_NO_CHECKSUM] = (
                lambda i, o: [fitsasdf, "convert", i, "-o", o, "--no-fsync", "--threads", "1",
                              "--no-checksum"], ".asdf")
        if job.fsync:
            table["fitsasdf (fsync)"] = (
                lambda i, o: [fitsasdf, "convert", i, "-o", o] + compress, ".asdf")
        table[MODULE] = (lambda i, o: module + ["convert", i, o] + python_extra, ".asdf")
        table["python"] = (lambda i, o: [PYTHON, script, i, o] + python_extra, ".asdf")
    elif job.kind == "to_fits":
        table["cp"] = (lambda i, o: ["cp", i, o], ".asdf")
        table["fitsasdf"] = (lambda i, o: [fitsasdf, "convert", i, "-o", o, "--no-fsync"], ".fits")
        if job.fpack_option:
            # fpack compressing the same image from its plain FITS file (funpack's, made once in
            # OUT/derived), with the same parameters.
            plain = os.path.join(args.out, "derived", job.source + "_plain.fits")
            table["fpack"] = (lambda i, o: ["fpack", job.fpack_option, "-O", o, plain], ".fits")
            # One thread compressing the bands: how the way back scales with cores.
            table["fitsasdf (1 thread)"] = (
                lambda i, o: [fitsasdf, "convert", i, "-o", o, "--no-fsync", "--threads", "1"],
                ".fits")
        if job.no_verify:
            # The input's block MD5s are verified by default: this row is the data path alone.
            table[NO_VERIFY] = (
                lambda i, o: [fitsasdf, "convert", i, "-o", o, "--no-fsync",
                              "--no-verify-checksums"], ".fits")
            if job.compression == "zlib":
                # One thread decoding fitsasdf's zlib pieces (beside the one that writes): how
                # the parallel decoding scales with cores.
                table[NO_VERIFY_1_THREAD] = (
                    lambda i, o: [fitsasdf, "convert", i, "-o", o, "--no-fsync",
                                  "--no-verify-checksums", "--threads", "1"], ".fits")
        table[MODULE] = (lambda i, o: module + ["convert", i, o], ".fits")
        table["python"] = (lambda i, o: [PYTHON, script, i, o], ".fits")
    elif job.kind == "batch":
        workers = str(os.cpu_count() or 1)
        table["cp"] = (lambda i, o: ["cp", "-r", i, o], "")
        table["fitsasdf"] = (
            lambda i, o: [fitsasdf, "batch", "-j", workers, "-q", "--no-fsync", i, "-o", o], "")
        table[MODULE] = (lambda i, o: module + ["batch", i, o, workers], "")
        table["python"] = (
            lambda i, o: [PYTHON, os.path.join(HERE, "python_batch.py"), i, o], "")
    elif job.kind == "batch_list":
        # The list names its inputs relative to its folder: the batch runs there. The report
        # goes into the output folder (removed between runs, so no run resumes another).
        workers = str(os.cpu_count() or 1)
        in_list = ('cd "$1" && exec "$2" batch --from list.txt -o "$3" -j "$4" -q --no-fsync'
                   ' "${@:5}"')
        table["fitsasdf"] = (
            lambda i, o: ["bash", "-c", in_list, "_", i, fitsasdf, o, workers, "--report",
                          os.path.join(o, "report.jsonl")], "")
        table["fitsasdf (no report)"] = (
            lambda i, o: ["bash", "-c", in_list, "_", i, fitsasdf, o, workers], "")
    elif job.kind == "read":
        table["fitsasdf"] = (lambda i, o: [args.reader, i], None)
        # libyaml parsing the tree and nothing else: the floor of any reader built on it.
        floor = os.path.join(os.path.dirname(args.reader), "fitsasdf_bench_yaml_floor")
        table["libyaml parse alone"] = (lambda i, o: [floor, i], None)
        table["cat"] = (lambda i, o: ["cat", i], None)
        table[MODULE] = (lambda i, o: module + ["read", i], None)
        table["python"] = (lambda i, o: [PYTHON, os.path.join(HERE, "python_read.py"), i], None)
    elif job.kind == "validate":
        # All the files in one invocation: a list input goes through `xargs -a LIST` (one
        # command line for the whole list).
        def every(argv):
            if job.file_list:
                return lambda i, o: ["xargs", "-d", "\\n", "-a", i] + argv
            return lambda i, o: argv + [i]
        script = os.path.join(HERE, "python_validate.py")
        table["fitsasdf"] = (every([fitsasdf, "validate"]), None)
        table[NO_BLOCKS] = (every([fitsasdf, "validate", "--no-blocks"]), None)
        table["python"] = (every([PYTHON, script, "open"]), None)
        table[PYTHON_VALIDATE] = (every([PYTHON, script, "validate"]), None)
    elif job.kind == "edit":
        # The input is the job's work copy (edit_files). Every run, whoever makes it, sets
        # bench_edit.run to a number no run has used and appends a history entry, so each one
        # really writes.
        numbers = itertools.count(1)
        def edit(*options):
            def build(i, o):
                n = next(numbers)
                return [fitsasdf, "edit", i, "--json", *options, "--set", f"/bench_edit/run={n}",
                        "--history", f"bench run {n}"]
            return build
        pristine = os.path.join(args.out, "derived", job.derived + ".asdf")
        python_file = edit_files(args, job)[1]
        table["cp"] = (lambda i, o: ["cp", i, o], ".asdf")
        table[EDIT] = (edit(), None)
        table[EDIT_NO_SYNC] = (edit("--no-sync"), None)
        table[EDIT_REWRITE] = (edit("--rewrite", "--no-sync"), None)
        table["python"] = (
            lambda i, o: [PYTHON, os.path.join(HERE, "python_update.py"), python_file,
                          str(next(numbers))],
            None, lambda: shutil.copyfile(pristine, python_file))
    elif job.kind == "curve":
        table = curve_operations(args, job)
    for name in job.skip:
        table.pop(name, None)
    return table


def curve_operations(args, job):
    """The cost-curve operations on one input, as contestants: both conversions, info of either
    file, validate of the ASDF one and verify of the pair. The counterpart in the other format
    is the input's companion (derive_inputs), so each operation sees the same file at every
    run."""
    fitsasdf = args.fitsasdf
    other = os.path.join(args.out, "derived", job.companion
                         + (".fits" if job.axis == "arrays" else ".asdf"))
    table = {}
    if job.axis == "arrays":
        # The input is the ASDF file; its companion is the FITS file fitsasdf makes of it.
        fits_in, asdf_in = other, None
        table["read (bench reader)"] = (lambda i, o: [args.reader, i], None)
    else:
        fits_in, asdf_in = None, other
    def fits_of(i):
        return fits_in or i
    def asdf_of(i):
        return asdf_in or i
    table["convert to ASDF"] = (
        lambda i, o: [fitsasdf, "convert", fits_of(i), "-o", o, "--no-fsync"], ".asdf")
    table["convert to FITS"] = (
        lambda i, o: [fitsasdf, "convert", asdf_of(i), "-o", o, "--no-fsync"], ".fits")
    # info of a FITS file lists its HDUs; on the card axis every card is printed (--header).
    header = ["--header"] if job.axis == "cards" else []
    table["info FITS"] = (lambda i, o: [fitsasdf, "info", fits_of(i)] + header, None)
    table["info ASDF"] = (lambda i, o: [fitsasdf, "info", asdf_of(i)], None)
    table["validate ASDF"] = (lambda i, o: [fitsasdf, "validate", asdf_of(i)], None)
    table["verify FITS ASDF"] = (lambda i, o: [fitsasdf, "verify", fits_of(i), asdf_of(i)], None)
    return table


def jobs(quick, selected=None):
    """The jobs in order; with `selected` (names), only those whose slug or input name is among
    them."""
    big = "f32_128mib" if quick else "f32_1gib"
    big_label = "f32 128 MiB" if quick else "f32 1 GiB"
    big_tiled = "tiled_rice_128mib" if quick else "tiled_rice_1gib"
    big_tiled_label = "tiled 128 MiB RICE_1" if quick else "tiled 1 GiB RICE_1"
    mef, mef_label = (("mef4x32mib", "4 x 32 MiB MEF") if quick
                      else ("mef4x256mib", "4 x 256 MiB MEF"))
    big_list, big_list_label = (("list100k", "batch --from 100,000 inputs") if quick
                                else ("list1m", "batch --from 1,000,000 inputs"))
    every = [
        Job(big_label, big, fsync=True, no_checksum=True, md5sum=True),
        Job(mef_label, mef, md5sum=True),
        Job(big_label + " zlib", big, compression="zlib"),
        Job("u16 256 MiB BZERO", "u16_256mib", no_checksum=True),
        Job("tiled 64 MiB RICE_1", "tiled_rice"),
        Job("tiled 64 MiB GZIP_1", "tiled_gzip"),
        Job("tiled 64 MiB float32 RICE_1 (quantized)", "tiled_float"),
        Job(big_tiled_label, big_tiled, skip=(MODULE, "python")),
        Job("200 extensions", "mef200", header_floor=True, md5sum=True),
        Job("5000-card header", "hdr5000", header_floor=True),
        Job("table 5M rows x 10 cols", "table5m", no_checksum=True),
        Job(big_label + " to FITS", big, kind="to_fits", no_verify=True),
        Job(big_label + " zlib to FITS", big, kind="to_fits", compression="zlib", no_verify=True),
        Job("u16 256 MiB BZERO to FITS", "u16_256mib", kind="to_fits"),
        Job("tiled 64 MiB RICE_1 to FITS", "tiled_rice", kind="to_fits"),
        Job(big_tiled_label + " to FITS", big_tiled, kind="to_fits", skip=(MODULE, "python")),
        Job("200 extensions to FITS", "mef200", kind="to_fits"),
        Job("5000-card header to FITS", "hdr5000", kind="to_fits"),
        Job("table 5M rows to FITS", "table5m", kind="to_fits"),
        Job("batch 1000 files", "batch1000", kind="batch"),
        Job("batch --from 10,000 inputs", "list10k", kind="batch_list"),
        Job(big_list_label, big_list, kind="batch_list", max_runs=1),
        Job("read 5000 arrays", "arrays5000", kind="read"),
        Job("read " + big_label, big, kind="read", of_asdf=True),
        Job("validate 1000-entry tree", "tree1000", kind="validate"),
        Job("validate ASDF corpus", CORPUS, kind="validate", file_list=True),
        Job("edit " + big_label + " (small change)", big, kind="edit"),
    ] + curve_jobs()
    if selected is None:
        return every
    return [job for job in every
            if job.slug in selected or job.source in selected or job.groups & selected]


def curve_jobs():
    """The cost-curve jobs (issue 28): per axis, its fixed-cost input (a few items) and its three
    sizes; selected together by `curves`, per axis by `curve_AXIS` (curve_hdus, curve_cards,
    curve_arrays, curve_rows)."""
    found = []
    for axis, (prefix, _, base, sizes, _, item) in CURVES.items():
        for n in (base,) + sizes:
            found.append(Job(f"curve {axis} {n}", f"{prefix}_{n}", kind="curve", axis=axis,
                             items=n, groups=("curves", "curve_" + axis)))
    return found


def job_slug(name):
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


# ---------------------------------------------------------------------------------------------
# Measuring


def can_drop_caches():
    """Drop the page cache once; say whether that worked (it needs root and a writable /proc)."""
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def warm(path):
    """Read `path` (a file, or every file under a folder) into the page cache."""
    if os.path.isdir(path):
        for folder, _, names in os.walk(path):
            for name in names:
                warm(os.path.join(folder, name))
        return
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


# Where the batch job's output folders go between their run and the end of the bench.
RETIRED = ".retired"


def retire(path):
    """Move the folder `path` into RETIRED beside it (deleted when the bench ends) instead of
    deleting it now. Creating a thousand files right after deleting thousands in the same
    place makes ext4 look past each freed inode (`find_inode_bit`, `recently_deleted`: 15% of a
    batch's time in a profile, the run 2-4x slower): a cost of the bench's own churn, not of
    the contestant, which a real batch writing into a fresh tree does not pay."""
    if path is None or not os.path.isdir(path):
        remove(path)
        return
    trash = os.path.join(os.path.dirname(path), RETIRED)
    os.makedirs(trash, exist_ok=True)
    os.rename(path, os.path.join(trash, f"{os.path.basename(path)}.{time.monotonic_ns()}"))


def remove(path):
    if path is None:
        return
    if os.path.isdir(path):
        shutil.rmtree(path)
    elif os.path.exists(path):
        os.remove(path)


def size_of(path):
    """Bytes of a file, or of every file under a folder; 0 when absent."""
    if path is None or not os.path.exists(path):
        return 0
    if not os.path.isdir(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(folder, name))
               for folder, _, names in os.walk(path) for name in names)


def count_items(job, source, log_path):
    """Items a run handled: files for a batch, arrays for a read (from the reader's output)."""
    if job.kind == "batch":
        return len([n for n in os.listdir(source) if n.endswith(".fits")])
    if job.kind == "batch_list":
        with open(os.path.join(source, "list.txt")) as f:
            return sum(1 for _ in f)
    if job.kind == "curve":
        return job.items
    if job.kind == "read":
        with open(log_path, encoding="utf-8", errors="replace") as f:
            match = re.search(r"(\d+) arrays", f.read())
        return int(match.group(1)) if match else 0
    return 0


def measure(argv, output, cold, logdir, tag, prepare=None, keep=False):
    """Run argv once under /usr/bin/time; return wall, peak RSS, CPU, output size or an error.
    `prepare`, when given, is called first (after the output is deleted, before the cache is
    dropped or, warm, written back), outside the timing. With `keep` an output folder is
    retired (see retire) instead of deleted."""
    remove(output)
    if prepare:
        prepare()
    if cold:
        drop_caches()
    else:
        # The previous run's dirty pages (and the removed output's) written back now, outside
        # the timing: otherwise the kernel writes them during this run and bills it for them.
        os.sync()
    stats_path = os.path.join(logdir, tag + ".time")
    log_path = os.path.join(logdir, tag + ".log")
    with open(log_path, "wb") as log:
        start = time.perf_counter()
        child = subprocess.Popen(
            [TIME, "-f", "%M %F %R", "-o", stats_path] + argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
        )
        # wait4 gives the CPU times of /usr/bin/time and the command it waited for to the
        # microsecond; /usr/bin/time prints them in steps of 10 ms, too coarse for short runs.
        _, wait_status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = status = os.waitstatus_to_exitcode(wait_status)
    result = {"wall": wall, "status": status, "argv": argv}
    try:
        with open(stats_path) as f:
            fields = f.read().split()[-3:]
        rss_kib, major, minor = fields
        result.update(
            rss_mib=int(rss_kib) / 1024.0,
            cpu=usage.ru_utime + usage.ru_stime,
            user=usage.ru_utime,
            sys=usage.ru_stime,
            major_faults=int(major),
            minor_faults=int(minor),
        )
    except (OSError, ValueError):
        status = status or -1
    size = size_of(output)
    result["out_bytes"] = size
    result["log"] = log_path
    if status != 0 or (output is not None and size == 0):
        with open(log_path, "rb") as f:
            tail = f.read()[-600:].decode("utf-8", "replace").strip()
        result["error"] = f"exit status {status}, output {size} bytes: {tail}"
    (retire if keep else remove)(output)
    return result


def derive_inputs(args, inputs, chosen):
    """Write the ASDF inputs of the to_fits jobs with this fitsasdf (default options) into
    OUT/derived; name -> file info like the generated inputs."""
    folder = os.path.join(args.out, "derived")
    os.makedirs(folder, exist_ok=True)
    derived = {}
    for job in chosen:
        if job.kind == "curve":
            name = job.companion
            path = os.path.join(folder, name + (".fits" if job.axis == "arrays" else ".asdf"))
            print(f"bench: writing {os.path.relpath(path, ROOT)} (fitsasdf convert)", flush=True)
            remove(path)
            subprocess.run([args.fitsasdf, "convert", inputs[job.source]["path"], "-o", path,
                            "-q", "--no-fsync"], check=True)
            derived[name] = {"path": path, "description": f"fitsasdf's conversion of {job.source}",
                             "size": os.path.getsize(path), "md5": "(made by this fitsasdf)"}
            continue
        if not job.asdf_input or job.derived in derived:
            continue
        path = os.path.join(folder, job.derived + ".asdf")
        argv = [args.fitsasdf, "convert", inputs[job.source]["path"], "-o", path, "-q",
                "--no-fsync", "--overwrite"]
        if job.compression:
            argv += ["--compress", job.compression]
        print(f"bench: writing {os.path.relpath(path, ROOT)} (fitsasdf convert)", flush=True)
        subprocess.run(argv, check=True)
        if job.fpack_option:
            # fpack's input on the way back: the image as a plain FITS file.
            plain = os.path.join(folder, job.source + "_plain.fits")
            if os.path.exists(plain):
                os.remove(plain)
            subprocess.run(["funpack", "-O", plain, inputs[job.source]["path"]], check=True)
        derived[job.derived] = {
            "path": path,
            "description": f"fitsasdf's ASDF file of {job.source}"
            + (f" ({job.compression})" if job.compression else ""),
            "size": os.path.getsize(path),
            "md5": "(made by this fitsasdf)",
        }
    return derived


def corpus_inputs(args, chosen):
    """The corpus validate job's input: every .asdf file under asdf-reference and asdf-pyasdf of
    the shared corpus (FITSASDF_CORPUS_DIR, or ../shared/corpus beside the clone, as for the
    tests), listed one path a line in OUT/inputs/asdf_corpus.list; none when it is absent."""
    if not any(job.source == CORPUS for job in chosen):
        return {}
    root = os.path.abspath(os.environ.get("FITSASDF_CORPUS_DIR")
                           or os.path.join(ROOT, "..", "shared", "corpus"))
    files = sorted(os.path.join(folder, name) for sub in CORPUS_FOLDERS
                   for folder, _, names in os.walk(os.path.join(root, sub))
                   for name in names if name.endswith(".asdf"))
    if not files:
        print(f"bench: no ASDF corpus under {root} (FITSASDF_CORPUS_DIR): its job is skipped",
              flush=True)
        return {}
    folder = os.path.join(args.out, "inputs")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, CORPUS + ".list")
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(name + "\n" for name in files))
    digest = hashlib.md5()
    for name in files:
        with open(name, "rb") as f:
            digest.update(f.read())
    return {CORPUS: {
        "path": path,
        "files": files,
        "description": f"the {len(files)} .asdf files of {root}/{{{','.join(CORPUS_FOLDERS)}}}, "
        f"listed in {os.path.relpath(path, ROOT)} (bytes and md5: the files)",
        "size": sum(os.path.getsize(name) for name in files),
        "md5": digest.hexdigest(),
        "items": len(files),
    }}


def start_edits(args, job, source):
    """Copy the edit job's input to its work file (the shared derived input is never changed)
    and give the copy the bench_edit mapping whose run value the runs change; the work file's
    path. Outside the timing."""
    work = edit_files(args, job)[0]
    print(f"bench: {job.name}: copying {os.path.relpath(source, ROOT)} to "
          f"{os.path.relpath(work, ROOT)}", flush=True)
    shutil.copyfile(source, work)
    subprocess.run([args.fitsasdf, "edit", work, "--no-sync", "--set", "/bench_edit={run: 0}"],
                   stdout=subprocess.DEVNULL, check=True)
    return work


def tree_text(path):
    """The YAML tree at the head of an ASDF file (its first MiB at most), as text."""
    with open(path, "rb") as f:
        head = f.read(1 << 20).decode("utf-8", "replace")
    end = head.find("\n...\n")
    return head if end < 0 else head[:end]


def finish_edits(args, job, rows, runs):
    """After an edit job's runs: check that each edited file is sound (`fitsasdf validate
    --no-blocks`, cheap: the blocks are not read) and holds the history entry of every run made
    on it; a failure is printed and marks the rows of its contestants FAILED. Then delete the
    work files."""
    work, python_file = edit_files(args, job)
    files = {work: [EDIT, EDIT_NO_SYNC, EDIT_REWRITE], python_file: ["python"]}
    for path, names in files.items():
        done = [r["argv"] for name in names for r in runs.get(name, []) if "error" not in r]
        if not os.path.exists(path) or not done:
            continue
        if path == python_file:
            done = done[-1:]  # its file is copied afresh before each run
        problems = []
        check = subprocess.run([args.fitsasdf, "validate", "--no-blocks", path],
                               capture_output=True, text=True)
        if check.returncode != 0:
            said = " ".join((check.stdout + check.stderr).split())
            problems.append(f"`fitsasdf validate --no-blocks` exit {check.returncode}: "
                            + said[:400])
        tree = tree_text(path)
        numbers = [argv[argv.index("--history") + 1].split()[-1] if "--history" in argv
                   else argv[-1] for argv in done]
        missing = [n for n in numbers if not re.search(rf"bench run {n}\b", tree)]
        if missing:
            problems.append(f"no history entry for run(s) {', '.join(missing)}")
        shown = os.path.relpath(path, ROOT)
        if problems:
            print(f"bench: {job.name}: {shown} IS NOT WHAT THE RUNS SAY: "
                  + "; ".join(problems), flush=True)
            for row in rows:
                if row["contestant"] in names:
                    row["error"] = f"{shown} after the runs: " + "; ".join(problems)
        else:
            print(f"bench: {job.name}: {shown} sound after {len(numbers)} edit(s), each one's "
                  f"history entry present", flush=True)
    for path in files:
        remove(path)


def in_process_seconds(log_path):
    """python_validate.py's own timing of the validation calls, when the log holds one."""
    with open(log_path, encoding="utf-8", errors="replace") as f:
        match = re.search(r"^validation ([0-9.]+) s in-process$", f.read(), re.M)
    return float(match.group(1)) if match else None


def job_groups(chosen):
    """The jobs as they are timed: each alone, except the jobs of one cost-curve axis, which
    form one group (their runs alternate)."""
    groups = []
    for job in chosen:
        if (job.kind == "curve" and groups and groups[-1][0].kind == "curve"
                and groups[-1][0].axis == job.axis):
            groups[-1].append(job)
        else:
            groups.append([job])
    return groups


def run_jobs(args, inputs, cold):
    workdir = os.path.join(args.out, "work")
    logdir = os.path.join(args.out, "logs")
    for folder in (workdir, logdir):
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
    results = []
    chosen = [job for job in jobs(args.quick, args.selected)
              # the corpus is skipped when there is none
              if (job.derived if job.asdf_input else job.source) in inputs]
    for group in job_groups(chosen):
        # entries: (job, contestant name, its table entry, input info, input path)
        entries = []
        for job in group:
            source_info = inputs[job.derived if job.asdf_input else job.source]
            source = source_info["path"]
            if job.kind == "edit":
                source = start_edits(args, job, source)
            if job.kind == "validate":
                print(f"bench: {job.name}: {source_info['items']:,} "
                      f"{'files' if job.file_list else 'YAML nodes'}", flush=True)
            if not cold:
                for path in source_info.get("files", [source]):
                    warm(path)
            table = contestants(args, job)
            entries += [(job, name, table[name], source_info, source) for name in table]
        runs = {(job.name, name): [] for job, name, *_ in entries}
        wanted = {(job.name, name): min(args.runs, job.max_runs or args.runs)
                  for job, name, *_ in entries}
        round_index = 0
        while any(len(runs[key]) < wanted[key] for key in runs):
            shift = round_index % len(entries)
            for job, name, (build, suffix, *prepare), source_info, source in (
                    entries[shift:] + entries[:shift]):
                key = (job.name, name)
                if len(runs[key]) >= wanted[key]:
                    continue
                slug = re.sub(r"[^a-z0-9]+", "_", f"{job.name} {name}".lower()).strip("_")
                output = None if suffix is None else os.path.join(workdir, slug + suffix)
                run = measure(build(source, output), output, cold, logdir, f"{slug}.{round_index}",
                              prepare[0] if prepare else None, keep=job.kind == "batch")
                if "error" not in run and job.kind == "edit":
                    outcome = edit_outcome(run["log"])
                    if outcome:
                        run["edit"] = outcome
                elif "error" not in run and job.kind == "validate":
                    run["items"] = source_info["items"]
                    if in_process_seconds(run["log"]) is not None:
                        run["in_process"] = in_process_seconds(run["log"])
                elif "error" not in run:
                    run["items"] = count_items(job, source, run["log"])
                runs[key].append(run)
                if (job.kind == "curve" and len(runs[key]) == 1 and "error" not in run
                        and run["wall"] < CURVE_SHORT_S):
                    wanted[key] = max(wanted[key], CURVE_SHORT_RUNS)
                shown = f"{run['wall']:.3f} s" if "error" not in run else "FAILED"
                print(f"  {job.name:<26} {name:<22} run {len(runs[key])}/{wanted[key]}: "
                      f"{shown}", flush=True)
            round_index += 1
        for job in group:
            source_info = inputs[job.derived if job.asdf_input else job.source]
            names = [name for j, name, *_ in entries if j is job]
            rows = [summarize(job.name, name, source_info, runs[(job.name, name)])
                    for name in names]
            if job.kind == "curve":
                for row in rows:
                    row["curve"] = {"axis": job.axis, "items": job.items}
            if job.kind == "edit":
                finish_edits(args, job, rows, {name: runs[(job.name, name)] for name in names})
            results += rows
    shutil.rmtree(os.path.join(workdir, RETIRED), ignore_errors=True)
    return results


def summarize(job, name, source, runs):
    good = [r for r in runs if "error" not in r]
    row = {
        "job": job,
        "contestant": name,
        "input_bytes": source["size"],
        "runs": runs,
        "argv": runs[0]["argv"],
    }
    if len(good) != len(runs):
        row["error"] = next(r["error"] for r in runs if "error" in r)
        return row
    row.update(
        wall=statistics.median(r["wall"] for r in good),
        wall_all=[r["wall"] for r in good],
        rss_mib=max(r["rss_mib"] for r in good),
        cpu=statistics.median(r["cpu"] for r in good),
        out_mib=good[-1]["out_bytes"] / 2**20,
        out_ratio=good[-1]["out_bytes"] / source["size"],
        items=good[-1].get("items", 0),
    )
    if all("in_process" in r for r in good):
        row["in_process"] = statistics.median(r["in_process"] for r in good)
    if any("edit" in r for r in good):
        row["edits"] = [r["edit"] for r in good if "edit" in r]
    return row


# ---------------------------------------------------------------------------------------------
# The table, and the previous figures


def format_rows(results, previous):
    """Table rows as strings; each fitsasdf row is followed by its previous figures if known."""
    cp_wall = {r["job"]: r.get("wall") for r in results if r["contestant"] == "cp"}
    python_wall = {r["job"]: r.get("wall") for r in results if r["contestant"] == "python"}
    rows = []
    for r in results:
        if "error" in r:
            rows.append([r["job"], r["contestant"], "FAILED"] + [""] * (len(COLUMNS) - 3))
        else:
            base = cp_wall.get(r["job"])
            py = python_wall.get(r["job"])
            rows.append([
                r["job"],
                r["contestant"],
                f"{r['wall']:.3f}",
                f"{r['wall'] / base:.2f}" if base else "",
                f"{py / r['wall']:.1f}" if py and r["contestant"] != "python" else "",
                # An edit touches a few pages of its input: no MB/s.
                rate(r["input_bytes"] / 1e6 / r["wall"]) if not r.get("edits") else "",
                rate(r["items"] / r["wall"]) if r.get("items") else "",
                f"{r['rss_mib']:.1f}",
                f"{r['out_mib']:.1f}" if r["out_mib"] else "",
                f"{r['out_ratio']:.5f}" if r["out_mib"] else "",
                f"{r['cpu']:.2f}",
            ])
        old = previous.get((r["job"], r["contestant"]))
        if old:
            figures = [old.get(column, "") for column in COLUMNS[2:]]
            rows.append([r["job"], PREVIOUS + r["contestant"]] + figures)
    return rows


def rate(value):
    return f"{value:.0f}" if value >= 10 else f"{value:.2g}"


def markdown_table(rows, columns=COLUMNS):
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def text_table(rows, columns=COLUMNS):
    widths = [max(len(x) for x in column) for column in zip(columns, *rows)]
    def line(cells):
        return "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in
                         enumerate(zip(cells, widths)))
    return "\n".join([line(columns), line(["-" * w for w in widths])] + [line(r) for r in rows])


def parse_previous(path):
    """(job, contestant) -> {column: text} for the fitsasdf rows of an earlier RESULTS.md."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return {}, {}
    found, header = {}, None
    for line in text.splitlines():
        cells = None
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells is None:
            header = None
        elif cells[:2] == ["job", "contestant"]:
            header = cells
        elif header and not set(line) <= set("|- "):
            row = dict(zip(header, cells))
            name = row.get("contestant", "")
            if name.startswith("fitsasdf") and row.get("wall s", "FAILED") != "FAILED":
                found[(row["job"], name)] = row
    meta = {}
    for key in ("date", "commit"):
        match = re.search(rf"^- {key}: (.*)$", text, re.M)
        if match:
            meta[key] = match.group(1).strip("` ")
    return found, meta


def changes(results, previous):
    lines = []
    for r in results:
        old = previous.get((r["job"], r["contestant"]))
        if not old or "error" in r:
            continue
        try:
            old_wall, old_rss = float(old["wall s"]), float(old["peak RSS MiB"])
        except (KeyError, ValueError):
            continue
        wall_change = r["wall"] / old_wall - 1 if old_wall else 0.0
        rss_change = r["rss_mib"] / old_rss - 1 if old_rss else 0.0
        slower = (wall_change > REGRESSION_THRESHOLD
                  and r["wall"] - old_wall > REGRESSION_MIN_WALL_S)
        bigger = (rss_change > REGRESSION_THRESHOLD
                  and r["rss_mib"] - old_rss > REGRESSION_MIN_RSS_MIB)
        flag = " **regression?**" if slower or bigger else ""
        lines.append(
            f"- {r['job']}, {r['contestant']}: wall {old_wall:.3f} -> {r['wall']:.3f} s "
            f"({wall_change:+.0%}), peak RSS {old_rss:.1f} -> {r['rss_mib']:.1f} MiB "
            f"({rss_change:+.0%}){flag}"
        )
    return lines


# ---------------------------------------------------------------------------------------------
# The machine


def capture(argv, default="?"):
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=30).stdout.strip()
        return out or default
    except (OSError, subprocess.SubprocessError):
        return default


def package_versions():
    names = ["coreutils", "time", "libcfitsio-bin", "libcfitsio10", "zlib1g", "python3",
             "python3-numpy", "python3-astropy", "python3-asdf", "python3-asdf-astropy"]
    out = capture(["dpkg-query", "-W", "-f", "${Package} ${Version}\\n"] + names, "")
    return [line for line in out.splitlines() if line.strip()]


def machine(args):
    cpu = "?"
    for line in capture(["lscpu"]).splitlines():
        if line.startswith("Model name:"):
            cpu = line.split(":", 1)[1].strip()
    memory = "?"
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                memory = f"{int(line.split()[1]) / 2**20:.1f} GiB"
    os_name = "?"
    if os.path.exists("/etc/os-release"):
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    os_name = line.split("=", 1)[1].strip().strip('"')
    source = capture(["findmnt", "-n", "-o", "SOURCE,FSTYPE,OPTIONS", "-T", args.out])
    device = source.split()[0] if source != "?" else ""
    block = "?"
    if device:
        block = capture(["lsblk", "-d", "-n", "-o", "NAME,ROTA,SIZE,MODEL", device])
    df = capture(["df", "-h", "--output=size,used,avail,pcent", args.out]).splitlines()[-1].split()
    commit = capture(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
    # The results file is this script's own output: a change to it alone is not a change to
    # what is measured.
    dirty = capture(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no", "--",
                     ".", ":(exclude)bench/RESULTS.md"], "")
    compiler = "?"
    cache = os.path.join(args.build_dir, "CMakeCache.txt")
    if os.path.exists(cache):
        with open(cache) as f:
            for line in f:
                if line.startswith("CMAKE_CXX_COMPILER:"):
                    compiler = capture([line.split("=", 1)[1].strip(), "--version"]).splitlines()[0]
    return {
        "cpu": cpu,
        "nproc": os.cpu_count(),
        "memory": memory,
        "os": os_name,
        "kernel": platform.release(),
        "disk": f"{' '.join(source.split())}; {' '.join(block.split())} (name rota size model); "
        f"df: {' '.join(df)} (size used avail use%)",
        "commit": commit + (" (with uncommitted changes)" if dirty else ""),
        "fitsasdf": f"{capture([args.fitsasdf, '--version'])}, {args.build_type} build, {compiler}",
        "packages": package_versions(),
        "load": open("/proc/loadavg").read().split()[:3],
    }


# ---------------------------------------------------------------------------------------------
# Report


def write_results(args, info, inputs, results, rows, previous_meta, change_lines, cold, started,
                  elapsed):
    path = args.results
    lines = [
        "# fitsasdf benchmark results",
        "",
        "Written by `bench/run.sh`; see `bench/README.md` for what is measured and the caveats.",
        "Each figure is the median of the runs; peak RSS is the largest of them.",
        "",
        f"- date: {started}",
        f"- command: `{args.command}`",
        f"- runs per contestant: {args.runs}, alternating; total time of the run {elapsed:.0f} s",
        "- page cache: "
        + ("dropped before every run (`sync; echo 3 > /proc/sys/vm/drop_caches`)" if cold
           else "could not be dropped; warmed once per input (warm cache)"),
        f"- commit: `{info['commit']}`",
        f"- fitsasdf: {info['fitsasdf']}",
        f"- machine: {info['cpu']}, nproc {info['nproc']}, memory {info['memory']}",
        f"- OS: {info['os']}, kernel {info['kernel']}",
        f"- disk: {info['disk']}",
        f"- load average at start: {' '.join(info['load'])}; at end: "
        f"{' '.join(open('/proc/loadavg').read().split()[:3])}",
        "- packages: " + ", ".join(info["packages"]),
        "",
        "## Inputs",
        "",
        "| input | description | bytes | md5 |",
        "|---|---|---|---|",
    ]
    for name, item in inputs.items():
        lines.append(f"| {name} | {item['description']} | {item['size']} | `{item['md5']}` |")
    lines += [
        "",
        "## Results",
        "",
        "wall s: median wall time; x cp: wall time over cp's on the same input; python/this: "
        "python's wall time over this one's; MB/s: input bytes (10^6) per wall second; items/s: "
        "files (batch, validate corpus), arrays (read) or YAML nodes (validate tree) per second; peak RSS MiB: `/usr/bin/time -f %M`; out "
        "MiB: size of the output; out/in: output size over input size; CPU s: median user + "
        "system time.",
        "",
        "`fitsasdf` writes an MD5 checksum in every block header (the default, as python asdf "
        "does), hashed in a second thread beside the kernel's copy; MD5 is sequential and runs "
        "at about 0.75 GB/s on one core here, so on the large jobs it sets the pace. "
        "`fitsasdf (no checksum)` is the same conversion with `--no-checksum`: the data path "
        "itself. See bench/README.md (\"Checksums\"). On the `to FITS` jobs `fitsasdf` verifies "
        "the input's block MD5s (the default) and `fitsasdf (no verify)` is the same with "
        "`--no-verify-checksums`.",
        "",
        "On the `validate` jobs `fitsasdf` is `fitsasdf validate` (layout, blocks decoded, "
        "checksums, arrays, schemas), `fitsasdf (no blocks)` the same with `--no-blocks`; "
        "`python` is `asdf.open(f).close()` (the tree parsed, validated against the schemas, "
        "converted to custom types) and `python (parse + validate)` the same without the "
        "conversion, its validation also timed alone inside the process (below the table). "
        "Every contestant checks all the files in one process.",
        "",
        "On the `edit` job every run changes one value of the tree of a work copy of fitsasdf's "
        "ASDF file and appends a history entry: `fitsasdf edit` (in place when the new tree "
        "fits before the first block; fsync on), `fitsasdf edit (no fsync)` (`--no-sync`), "
        "`fitsasdf edit --rewrite` (the whole file rewritten and renamed over, `--no-sync`), "
        "`python` (python asdf's `update()`, python_update.py) and `cp` of the work file, the "
        "floor of any rewrite. MB/s is left out for the edits: they do not move the input's "
        "bytes.",
        "",
        markdown_table(rows),
        "",
    ]
    if verify_costs(results):
        lines += ["Checksum verification, ASDF -> FITS (verified / `--no-verify-checksums`):", ""]
        lines += verify_costs(results) + [""]
    if issue28_targets(results, args.quick):
        lines += ["The targets of issue 28 measured by this run:", ""]
        lines += issue28_targets(results, args.quick) + [""]
    if validation_costs(results):
        lines += ["Schema validation alone, python in-process against fitsasdf's whole process "
                  "(medians):", ""]
        lines += validation_costs(results) + [""]
    if scale_notes(results):
        lines += ["Batch at scale (`--from` lists of links; the report in the output folder): "
                  "peak RSS against the number of inputs:", ""]
        lines += scale_notes(results) + [""]
    if curve_rows(results):
        lines += ["## Cost curves", "", CURVE_NOTE, "",
                  markdown_table(curve_rows(results), CURVE_COLUMNS), ""]
    if edit_notes(results):
        lines += ["What the edit runs did (`fitsasdf edit --json`; python_update.py's file sizes; "
                  "after the runs each edited file must pass `fitsasdf validate --no-blocks` and "
                  "hold every run's history entry, or its rows fail):", ""]
        lines += edit_notes(results) + [""]
    if change_lines:
        lines += [
            f"Against the previous results ({previous_meta.get('date', 'date unknown')}, "
            f"commit {previous_meta.get('commit', 'unknown')}):",
            "",
        ] + change_lines + [""]
    else:
        lines += ["No previous fitsasdf figures to compare with.", ""]
    lines += ["## Commands and every run", ""]
    for r in results:
        shown = " ".join(os.path.relpath(a, ROOT) if a.startswith(ROOT) else a for a in r["argv"])
        walls = ", ".join(f"{w:.3f}" for w in r.get("wall_all", [])) or r.get("error", "")
        lines.append(f"- {r['job']}, {r['contestant']}: `{shown}` — {walls}")
    lines.append("")
    temporary = path + ".tmp-bench"
    with open(temporary, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    os.replace(temporary, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fitsasdf", required=True, help="the fitsasdf executable")
    parser.add_argument("--build-dir", required=True, help="the CMake folder it was built in")
    parser.add_argument("--build-type", default="?")
    parser.add_argument("--reader", default=None,
                        help="the bench's reader (fitsasdf_bench_read; default: in --build-dir)")
    parser.add_argument("--python-path", default=None,
                        help="the folder holding the built Python package fitsasdf")
    parser.add_argument("--out", default=os.path.join(HERE, "out"))
    parser.add_argument("--results", default=os.path.join(HERE, "RESULTS.md"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--warm", action="store_true", help="do not drop the page cache")
    parser.add_argument("--command", default="bash bench/run.sh")
    parser.add_argument("--jobs", default=None,
                        help="comma-separated job slugs or input names (e.g. table5m); the "
                             "results then go to OUT/RESULTS.selected.md, not RESULTS.md")
    args = parser.parse_args()
    args.fitsasdf = os.path.abspath(args.fitsasdf)
    args.reader = os.path.abspath(
        args.reader or os.path.join(args.build_dir, "bench", "fitsasdf_bench_read"))
    # The python module contestant imports the build's package.
    package = os.path.abspath(args.python_path or os.path.join(args.build_dir, "python"))
    os.environ["PYTHONPATH"] = package + (os.pathsep + os.environ["PYTHONPATH"]
                                          if os.environ.get("PYTHONPATH") else "")
    os.makedirs(args.out, exist_ok=True)
    args.selected = None
    if args.jobs:
        args.selected = set(args.jobs.split(","))
        chosen = jobs(args.quick, args.selected)
        if not chosen:
            known = ", ".join(f"{j.slug} ({j.source})" for j in jobs(args.quick))
            parser.error(f"--jobs {args.jobs} selects no job; jobs (inputs): {known}")
        if args.results == os.path.join(HERE, "RESULTS.md"):
            args.results = os.path.join(args.out, "RESULTS.selected.md")

    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    clock = time.monotonic()
    # The previous figures come from the full RESULTS.md even when a selection writes elsewhere.
    previous_path = os.path.join(HERE, "RESULTS.md") if args.selected else args.results
    previous, previous_meta = parse_previous(previous_path)
    if os.path.exists(args.results) and not args.selected:
        shutil.copyfile(args.results, os.path.join(args.out, "RESULTS.previous.md"))

    info = machine(args)
    chosen = jobs(args.quick, args.selected)
    needed = sorted({job.source for job in chosen if job.source != CORPUS})
    generated = subprocess.run(
        [PYTHON, os.path.join(HERE, "make_inputs.py"), os.path.join(args.out, "inputs")]
        + (["--quick"] if args.quick else []) + ["--only=" + ",".join(needed)],
        stdout=subprocess.PIPE, check=True, text=True)
    inputs = json.loads(generated.stdout)
    inputs.update(derive_inputs(args, inputs, chosen))
    inputs.update(corpus_inputs(args, chosen))

    cold = not args.warm and can_drop_caches()
    print(f"bench: {args.runs} run(s) per contestant, page cache "
          f"{'dropped before every run' if cold else 'warm (not dropped)'}", flush=True)
    results = run_jobs(args, inputs, cold)
    elapsed = time.monotonic() - clock

    # The cost-curve runs have a table of their own (curve_rows), not rows of the main one.
    plain = [r for r in results if "curve" not in r]
    rows = format_rows(plain, previous)
    change_lines = changes(plain, previous)
    if rows:
        print()
        print(text_table(rows))
    if verify_costs(results):
        print("\nchecksum verification, ASDF -> FITS (verified / --no-verify-checksums):")
        print("\n".join(verify_costs(results)))
    if issue28_targets(results, args.quick):
        print("\nthe targets of issue 28 measured by this run:")
        print("\n".join(issue28_targets(results, args.quick)))
    if validation_costs(results):
        print("\nschema validation alone, python in-process / fitsasdf's whole process (medians):")
        print("\n".join(line.replace("`", "") for line in validation_costs(results)))
    if scale_notes(results):
        print("\nbatch at scale, peak memory against the number of inputs:")
        print("\n".join(line[2:] for line in scale_notes(results)))
    if curve_rows(results):
        print("\n" + CURVE_NOTE)
        print(text_table(curve_rows(results), CURVE_COLUMNS))
    if edit_notes(results):
        print("\nwhat the edit runs did:")
        print("\n".join(edit_notes(results)))
    if change_lines:
        print()
        print("\n".join(line.replace("**", "") for line in change_lines))
    write_results(args, info, inputs, results, rows, previous_meta, change_lines, cold, started,
                  elapsed)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"machine": info, "inputs": inputs, "results": results}, f, indent=1)
    print(f"\nbench: wrote {os.path.relpath(args.results, ROOT)} in {elapsed:.0f} s")
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
