"""Run one example program of samples/cpp on the bundled samples and check what it printed and
wrote against python asdf, asdf-astropy, astropy and numpy (run with /usr/bin/python3).

    check_samples.py NAME BIN_DIR SAMPLES_DIR WORK_DIR

Every file a sample writes must open in python asdf with validation on, checksums verified and
warnings turned into errors, and hold the values the sample meant to write."""
import re
import subprocess
import sys
import warnings
from pathlib import Path

import asdf
import numpy as np

name, bin_dir, samples, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])
work.mkdir(parents=True, exist_ok=True)
warnings.simplefilter("error")


def run(*args):
    done = subprocess.run([str(bin_dir / f"sample_{name}"), *map(str, args)],
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        sys.exit(f"sample_{name} exited {done.returncode}: {done.stderr}")
    print(done.stdout, end="")
    return done.stdout


def open_strict(path, checksums=True):
    """Open with schema validation, warnings as errors and (by default) block checksums checked.
    python asdf 2.14 checks the MD5 of the decoded data, so a compressed block written with the
    standard's convention (the MD5 of the stored bytes, fitsasdf's default) must not be checked."""
    return asdf.open(path, validate_checksums=checksums, copy_arrays=True)


def close(a, b, what):
    if not np.isclose(a, b, rtol=1e-4, atol=1e-6):
        sys.exit(f"{what}: the sample printed {a}, numpy says {b}")


jwst = samples / "jwst_like.asdf"
if name == "read_stats":
    with asdf.open(jwst) as af:
        for pointer in ["/data", "/dq", "/err"]:
            out = run(jwst, pointer)
            values = np.asarray(af[pointer[1:]], dtype=np.float64)
            m = re.search(r"min (\S+)\s+max (\S+)\s+mean (\S+)\s+std (\S+)", out)
            if not m or f"shape ({values.shape[0]}, {values.shape[1]})" not in out:
                sys.exit(f"unexpected output for {pointer}: {out}")
            for got, want, what in zip(map(float, m.groups()),
                                       [values.min(), values.max(), values.mean(), values.std()],
                                       ["min", "max", "mean", "std"]):
                close(got, want, f"{pointer} {what}")
    # An error names the path and what was found.
    bad = subprocess.run([str(bin_dir / "sample_read_stats"), str(jwst), "/meta"],
                         capture_output=True, text=True)
    if bad.returncode != 1 or "tree path /meta" not in bad.stderr or "found a mapping" not in bad.stderr:
        sys.exit(f"reading /meta as an array: {bad.returncode} {bad.stderr}")
elif name == "write_file":
    out = work / "write_file.asdf"
    run(out)
    with open_strict(out) as af:
        sci, dq = af["sci"], af["dq"]
        assert sci.dtype == np.float32 and sci.shape == (128, 256), (sci.dtype, sci.shape)
        want = (np.arange(128 * 256) % 256 * 0.5).astype(np.float32).reshape(128, 256)
        assert np.array_equal(sci, want)
        assert dq.dtype == np.uint16 and dq[0, 0] == 1 and dq.sum() == 1
        assert af.blocks.get_block(1).input_compression == "zlib"
        assert af["meta"] == {"telescope": "JWST", "instrument": {"name": "NIRCAM"},
                              "exposure": {"exptime": 12.5, "ngroups": 4},
                              "history": ["made by samples/cpp/write_file.cc"]}, af["meta"]
elif name == "stream_cube":
    out = work / "stream_cube.asdf"
    run(out, 100)
    with open_strict(out) as af:
        cube = af["cube"]
        assert cube.shape == (100, 64, 64) and cube.dtype == np.float32, (cube.shape, cube.dtype)
        want = (np.arange(100, dtype=np.float32)[:, None] +
                np.float32(0.001) * np.arange(64 * 64, dtype=np.float32)[None, :]).reshape(100, 64, 64)
        assert np.array_equal(cube, want)
        assert af["meta"]["detector"] == "NRCA1"
elif name == "readme_example":
    out = work / "readme_example.asdf"
    printed = run(jwst, out)
    assert printed.strip() == "NIRCAM 1374.3 s, data 64x64, data[32,32] = 5000, dq[0,0] = 1", printed
    with asdf.open(jwst) as src, open_strict(out) as af:
        assert np.array_equal(af["sci"], src["data"]) and af["sci"].dtype == np.float32
        assert np.array_equal(af["dq"], src["dq"]) and af["dq"].dtype == np.uint32
        assert af["meta"]["exposure"]["exptime"] == 1374.3
        assert af["meta"]["instrument"]["name"] == "NIRCAM"
elif name == "convert_in_process":
    from astropy.io import fits
    out = work / "convert_in_process.asdf"
    printed = run(samples / "test0.fits", out)
    assert "round trip: identical" in printed and "138 cards in the primary header" in printed, printed
    assert re.search(r"^[0-9]+ progress reports, the last at 100%$", printed, re.M), printed
    with fits.open(samples / "test0.fits") as hdul, open_strict(out, checksums=False) as af:
        ours = af["fits"]
        assert len(ours) == len(hdul)
        for a, b in zip(hdul, ours):
            assert (a.data is None and b.data is None) or np.array_equal(a.data, b.data)
elif name == "c_print_meta":
    printed = run(jwst)
    with asdf.open(jwst) as af:
        lib = af["asdf_library"]
        assert f"written by: {lib['name']} {lib['version']}" in printed, printed
        keys = re.findall(r"^key (\S+): (\S+)$", printed, re.M)
        assert [k for k, _ in keys] == list(af.tree.keys()), (keys, list(af.tree.keys()))
        assert ("data", "ndarray") in keys and ("meta", "mapping") in keys, keys
        assert f"instrument: {af['meta']['instrument']['name']}" in printed, printed
        close(float(re.search(r"^exptime: (\S+)$", printed, re.M).group(1)),
              af["meta"]["exposure"]["exptime"], "exptime")
elif name == "c_list_arrays":
    files = [jwst] + sorted((samples / ".." / ".." / "shared" / "corpus" / "asdf-pyasdf").glob("*.asdf"))
    for path in files:
        printed = run(path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # python's own complaints about old files' tags
            af = asdf.open(path, copy_arrays=True)
        with af:
            found = {}
            for line in printed.splitlines():
                m = re.match(r"^(\S+) (\S+) \[([0-9,]*)\] n=(\d+) sum=(\S+)(?: first=(\S+) last=(\S+))?$", line)
                assert m, f"{path}: unexpected line {line!r}"
                found[m.group(1)] = m.groups()
            if path == jwst:
                assert sorted(found) == ["/data", "/dq", "/err"], sorted(found)
            for pointer, (_, dtype, shape, n, total, first, last) in found.items():
                node = af.tree
                for step in pointer.strip("/").split("/"):
                    node = node[int(step)] if isinstance(node, list) else node[step]
                values = np.asarray(node)
                assert shape == ",".join(map(str, values.shape)), (pointer, shape, values.shape)
                flat = values.astype(np.float64).ravel()
                assert int(n) == flat.size, (pointer, n, flat.size)
                close(float(total), flat.sum(), f"{path} {pointer} sum")
                if flat.size:
                    assert float(first) == flat[0] and float(last) == flat[-1], (pointer, first, last)
elif name == "c_cutout":
    printed = run(jwst, "data", 30, 31, 3, 2)
    with asdf.open(jwst) as af:
        want = np.asarray(af["data"], dtype=np.float32)[31:33, 30:33]
        rows = [list(map(np.float32, line.split())) for line in printed.splitlines()[:2]]
        assert np.array_equal(np.array(rows, dtype=np.float32), want), (rows, want)
        corner = float(re.search(r"^corner: (\S+) \(0\)$", printed, re.M).group(1))
        assert corner == float(af["data"][31, 30]), corner
    bad = subprocess.run([str(bin_dir / "sample_c_cutout"), str(jwst), "data", "62", "0", "5", "1"],
                         capture_output=True, text=True)
    assert bad.returncode == 1 and "cannot read the cutout (1)" in bad.stderr, (bad.returncode, bad.stderr)
elif name == "c_write_file":
    out = work / "c_write_file.asdf"
    run(out)
    # sci is zlib-compressed: python asdf 2.14 checks decoded data's MD5 (see open_strict).
    with open_strict(out, checksums=False) as af:
        assert af["sci"].dtype == np.float32 and af["sci"].shape == (3, 4)
        assert np.array_equal(af["sci"], (0.5 * np.arange(12, dtype=np.float32)).reshape(3, 4))
        assert af["dq"].dtype == np.int16 and list(af["dq"]) == [0, 1, -2, 300, -32768], af["dq"]
        assert af.blocks.get_block(0).input_compression == "zlib"
        assert af["meta"] == {"telescope": "JWST", "instrument": {"name": "NIRCAM"},
                              "exposure": {"exptime": 1374.3, "ngroups": 10}, "calibrated": True,
                              "filters": ["F200W", "F444W"]}, af["meta"]
        assert af["history"]["entries"][0]["description"] == "made by sample_c_write_file"
elif name == "c_convert":
    from astropy.io import fits
    out = work / "c_convert.asdf"
    printed = run(samples / "test0.fits", out)
    assert "verified: equivalent" in printed, printed
    with fits.open(samples / "test0.fits") as hdul, open_strict(out, checksums=False) as af:
        assert f"fits items: {len(hdul)}" in printed, printed
        assert len(af["fits"]) == len(hdul)
else:
    sys.exit(f"no check for sample {name}")
print(f"sample {name}: ok")
