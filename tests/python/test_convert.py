"""convert, verify, diff and batch in process: reports, progress, the GIL released, and Ctrl-C
(KeyboardInterrupt) leaving no partial output."""

import json
import os
import shutil
import signal
import threading
import time

import numpy as np
import pytest
from astropy.io import fits

import fitsasdf
from conftest import CORPUS

SAMPLES = CORPUS / "fits-astropy"


@pytest.fixture(scope="module")
def big_fits(tmp_path_factory):
    """A 32 MiB float32 image with a header worth keeping."""
    path = tmp_path_factory.mktemp("big") / "big.fits"
    data = np.arange(4096 * 2048, dtype=">f4").reshape(2048, 4096)
    hdu = fits.PrimaryHDU(data)
    hdu.header["OBSERVER"] = ("Someone", "who looked")
    hdu.writeto(path)
    return path


def leftovers(folder):
    """Every file under `folder` whose name says it is a temporary."""
    return [os.path.join(d, f) for d, _, files in os.walk(folder) for f in files
            if ".tmp" in f or f.startswith(".")]


def test_convert_both_ways_with_reports(tmp_path):
    source = SAMPLES / "double_ext.fits"
    to_asdf = fitsasdf.convert(source, tmp_path / "d.asdf", compress="zlib")
    assert to_asdf.direction == "fits-to-asdf"
    assert to_asdf.output == str(tmp_path / "d.asdf")
    with fits.open(source) as hdul:
        assert [h.index for h in to_asdf.hdus] == list(range(1, len(hdul) + 1))
    assert to_asdf.bytes_out == (tmp_path / "d.asdf").stat().st_size
    back = fitsasdf.convert(tmp_path / "d.asdf", tmp_path / "d.fits")
    assert back.direction == "asdf-to-fits"
    assert (tmp_path / "d.fits").read_bytes() == source.read_bytes()
    assert isinstance(to_asdf.to_dict(), dict) and "hdus" in repr(to_asdf)


def test_default_output_names(tmp_path):
    shutil.copy(SAMPLES / "arange.fits", tmp_path / "a.fits")
    report = fitsasdf.convert(tmp_path / "a.fits")
    assert report.output == str(tmp_path / "a.asdf") and (tmp_path / "a.asdf").exists()
    # The FITS file an ASDF file came from is never overwritten unasked.
    with pytest.raises(fitsasdf.InvalidArgumentError, match="exists"):
        fitsasdf.convert(tmp_path / "a.asdf")


def test_overwrite_false_keeps_an_existing_output(tmp_path):
    for name, source in (("a.asdf", SAMPLES / "arange.fits"), ("b.fits", None)):
        target = tmp_path / name
        target.write_bytes(b"keep me")
        if source is None:
            fitsasdf.convert(SAMPLES / "arange.fits", tmp_path / "src.asdf")
            source = tmp_path / "src.asdf"
        with pytest.raises(fitsasdf.ExistsError, match="exists") as info:
            fitsasdf.convert(source, target, overwrite=False)
        assert isinstance(info.value, FileExistsError) and info.value.code == "exists"
        assert target.read_bytes() == b"keep me"
        fitsasdf.convert(source, target)  # the default replaces, as python asdf's write_to
        assert target.read_bytes() != b"keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.asdf", "b.fits", "src.asdf"]


def test_verify_and_diff(tmp_path):
    source = SAMPLES / "btable.fits"
    report = fitsasdf.verify(source)
    assert report.equivalent and report.round_trip
    fitsasdf.convert(source, tmp_path / "b.asdf")
    pair = fitsasdf.verify(source, tmp_path / "b.asdf")
    assert pair.equivalent and all(b.ok for b in pair.blocks)
    same = fitsasdf.diff(source, tmp_path / "b.asdf")
    assert same.identical and same.format == "fits" and same.converted == "b"
    other = fitsasdf.diff(SAMPLES / "arange.fits", source)
    assert not other.identical
    fitsasdf.convert(SAMPLES / "arange.fits", tmp_path / "a.asdf")
    trees = fitsasdf.diff(tmp_path / "a.asdf", tmp_path / "b.asdf")
    assert trees.format == "asdf" and trees.asdf.total > 0


def test_progress_reports(tmp_path, big_fits):
    seen = []
    fitsasdf.convert(big_fits, tmp_path / "p.asdf", progress=seen.append)
    assert len(seen) >= 4
    assert all(a.done <= b.done for a, b in zip(seen, seen[1:]))
    assert seen[-1].done == seen[-1].total > 0
    assert {p.stage for p in seen} <= {"read", "write", "check"}


def test_an_exception_in_progress_stops_the_call(tmp_path, big_fits):
    def stop(progress):
        if progress.done > 0:
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        fitsasdf.convert(big_fits, tmp_path / "s.asdf", progress=stop)
    assert os.listdir(tmp_path) == []


def test_the_gil_is_released_while_converting(tmp_path, big_fits):
    ticks = 0
    done = threading.Event()

    def count():
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    try:
        start = ticks
        fitsasdf.convert(big_fits, tmp_path / "g.asdf", compress="bzp2", threads=1)
        during = ticks - start
    finally:
        done.set()
        counter.join()
    assert during > 20  # the other thread ran while the conversion worked


@pytest.fixture
def ctrl_c_raises():
    """Python's own SIGINT handler (KeyboardInterrupt), also when this process was started with
    SIGINT ignored (as a shell does to a background job), in which case Python leaves it so."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def interrupt_soon(progress):
    """A progress callback that presses Ctrl-C once, then gives the main thread time to see it."""
    if not getattr(interrupt_soon, "fired", False):
        interrupt_soon.fired = True
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.3)


def test_ctrl_c_cancels_a_conversion(tmp_path, big_fits, ctrl_c_raises):
    interrupt_soon.fired = False
    with pytest.raises(KeyboardInterrupt):
        fitsasdf.convert(big_fits, tmp_path / "k.asdf", compress="zlib", threads=1,
                         progress=interrupt_soon)
    assert os.listdir(tmp_path) == []


def test_batch_converts_resumes_and_reports(tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    for name in ("arange.fits", "btable.fits", "double_ext.fits"):
        shutil.copy(SAMPLES / name, inputs / name)
    (inputs / "junk.fits").write_text("not FITS at all\n" * 10)
    out = tmp_path / "out"
    report = fitsasdf.batch(inputs, out, jobs=2, report=tmp_path / "report.jsonl")
    statuses = {os.path.basename(i.input): i.status for i in report.items}
    assert statuses == {"arange.fits": "ok", "btable.fits": "ok", "double_ext.fits": "ok",
                        "junk.fits": "failed"}
    assert "not-fits" in [i for i in report.items if i.status == "failed"][0].error
    assert sorted(os.listdir(out)) == ["arange.asdf", "btable.asdf", "double_ext.asdf"]
    lines = [json.loads(line) for line in (tmp_path / "report.jsonl").read_text().splitlines()]
    assert len(lines) == 5 and lines[-1] == report.summary.to_dict()
    again = fitsasdf.batch(inputs, out, report=tmp_path / "report.jsonl")
    assert sorted(i.status for i in again.items) == ["failed", "skipped", "skipped", "skipped"]


def test_ctrl_c_stops_a_batch_with_no_partial_output(tmp_path, big_fits, ctrl_c_raises):
    small = tmp_path / "small.fits"
    shutil.copy(SAMPLES / "arange.fits", small)
    out = tmp_path / "out"
    interrupt_soon.fired = False
    with pytest.raises(KeyboardInterrupt):
        fitsasdf.batch([small, big_fits], out, jobs=1, compress="bzp2", threads=1,
                       report=tmp_path / "r.jsonl", progress=interrupt_soon)
    assert os.listdir(out) == ["small.asdf"]
    assert leftovers(out) == []
    report = (tmp_path / "r.jsonl").read_text()
    assert "small.fits" in report and "interrupted" in report
    resumed = fitsasdf.batch([small, big_fits], out, jobs=1, report=tmp_path / "r.jsonl")
    assert sorted(i.status for i in resumed.items) == ["ok", "skipped"]
