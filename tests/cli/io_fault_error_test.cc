// `convert` and `batch` when writing fails: a full disk (ENOSPC), an exhausted quota (EDQUOT),
// a failing device (EIO), an output folder without permission (EACCES) or on a read-only file
// system (EROFS). The faults are injected by the LD_PRELOAD shim (support/fault_shim.c) at the
// calls the library writes with (mkostemp, writev, copy_file_range, pwrite, fdatasync, write,
// mkdir), at the first byte and in the middle of a file, so these run in every environment:
// no privileges, namespaces or mounts. Each checks the documented exit status (3), one line on
// stderr naming the file and the cause, no output or temporary left, the input unchanged, and
// for batch, a clean stop that the same command without the fault resumes to the end. The real
// full disk (a tmpfs) is an extra layer in batch_archive_test.cc.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/batch_support.h"
#include "support/catch.h"
#include "support/fault_injection.h"
#include "support/layers.h"
#include "support/run.h"
#include "support/temp_dir.h"

using namespace fitsasdf::test;
using namespace fitsasdf::test::batch;

namespace {

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

/// The text strerror gives for each injected error (glibc's).
std::string error_text(const std::string& error) {
  if (error == "ENOSPC") return "No space left on device";
  if (error == "EDQUOT") return "Disk quota exceeded";
  if (error == "EIO") return "Input/output error";
  if (error == "EACCES") return "Permission denied";
  return "Read-only file system";
}

/// What batch's stop line says of each fatal error.
std::string batch_cause(const std::string& error) {
  if (error == "ENOSPC") return "the disk is full (No space left on device)";
  if (error == "EDQUOT") return "the disk quota is exceeded (Disk quota exceeded)";
  if (error == "EIO") return "the output device failed (Input/output error)";
  if (error == "EACCES") return "the output folder is not writable (Permission denied)";
  return "the output file system is read-only (Read-only file system)";
}

/// Every file under `dir` with its bytes.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& name : files_under(dir)) files[name] = fits_builder::read(dir / name);
  return files;
}

/// The inputs of the batch tests: 12 images of 200 KB in two folders and an ASDF file.
void make_inputs(const fs::path& in, const fs::path& scratch) {
  for (int i = 0; i < 12; ++i) {
    write_file(in / ((i % 2 ? "a/f" : "b/f") + std::to_string(i) + ".fits"), image_fits(100000, i));
  }
  write_file(scratch / "t.fits", image_fits(50000, 99));
  REQUIRE(run_cli({"convert", (scratch / "t.fits").string(), "-o", (in / "t.asdf").string(), "-q"})
              .status == 0);
}

}  // namespace

TEST_CASE("convert stops with exit 3, one line and nothing left when writing fails",
          "[cli][convert][fault]") {
  TempDir dir;
  write_file(dir / "in.fits", image_fits(300000, 1));
  REQUIRE(run_cli({"convert", (dir / "in.fits").string(), "-o", (dir / "in.asdf").string(), "-q"})
              .status == 0);
  const auto before = snapshot(dir.path());
  struct Case {
    std::string input;  // FITS to ASDF, or ASDF to FITS
    std::string output;
    std::string error;
    std::uint64_t after_bytes;  // 0: the first write fails; else in the middle of the data
    std::string ops;            // "" the shim's default (writes and flushes); "sync": flushes only
  };
  std::vector<Case> cases;
  for (const std::string error : {"ENOSPC", "EDQUOT", "EIO"}) {
    for (const std::uint64_t after : {std::uint64_t{0}, std::uint64_t{300000}}) {
      cases.push_back({"in.fits", "out.asdf", error, after, ""});
      cases.push_back({"in.asdf", "out.fits", error, after, ""});
    }
  }
  // A flush that fails after every byte was accepted (as NFS or a thin volume may report it).
  cases.push_back({"in.fits", "out.asdf", "EIO", 0, "sync"});
  cases.push_back({"in.asdf", "out.fits", "ENOSPC", 0, "sync"});
  for (const auto& c : cases) {
    const Fault fault{.error = c.error,
                      .path_substr = "out.",
                      .after_bytes = c.after_bytes,
                      .ops = c.ops,
                      .log = dir.path().parent_path() / (dir.path().filename().string() + ".log")};
    fs::remove(fault.log);
    const RunResult r = run_cli_with_fault(
        fault, {"convert", (dir / c.input).string(), "-o", (dir / c.output).string()});
    INFO(c.input << " -> " << c.output << ", " << c.error << " after " << c.after_bytes << " bytes"
                 << (c.ops.empty() ? "" : ", " + c.ops + " only") << "\n"
                 << r.err);
    CHECK(!injected_failures(fault).empty());  // the shim did make a call fail
    CHECK(r.status == 3);
    CHECK(lines(r.err) == 1);
    CHECK(contains(r.err, "fitsasdf: error [io]: "));
    CHECK(contains(r.err, c.output));
    CHECK(contains(r.err, error_text(c.error)));
    CHECK(r.out.empty());
    CHECK(snapshot(dir.path()) == before);  // no output, no temporary, the inputs unchanged
    fs::remove(fault.log);
  }
  layer_ran(kLayerInjectedFaults, fault_environment(Fault{}).front());
}

TEST_CASE("convert of a tile-compressed image on two threads stops with exit 3 when the disk "
          "fills up before or among its pixels",
          "[cli][convert][fault]") {
  // 1024 x 1500 int16 pixels, fpack'ed: three bands, decoded by two threads while the writer
  // writes them. A full disk at the first byte, or after the header and tree were written, is
  // one line, and the workers are stopped with nothing left.
  TempDir dir;
  std::string pixels;
  for (int i = 0; i < 1024 * 1500; ++i) {
    pixels += fits_builder::big_endian<std::int16_t>(static_cast<std::int16_t>(i % 4000 - 2000));
  }
  using fits_builder::card;
  using fits_builder::num;
  write_file(dir / "plain.fits",
             fits_builder::hdu({card("SIMPLE", "T"), num("BITPIX", 16), num("NAXIS", 2),
                                num("NAXIS1", 1024), num("NAXIS2", 1500)},
                               pixels));
  const RunResult packed = run({"fpack", "-r", "-O", (dir / "in.fits.fz").string(),
                                (dir / "plain.fits").string()});
  REQUIRE(packed.status == 0);
  fs::remove(dir / "plain.fits");
  const auto before = snapshot(dir.path());
  for (const std::string error : {"ENOSPC", "EDQUOT"}) {
    for (const std::uint64_t after : {std::uint64_t{0}, std::uint64_t{100000}}) {
      const Fault fault{.error = error,
                        .path_substr = "out.",
                        .after_bytes = after,
                        .log = dir.path().parent_path() / (dir.path().filename().string() + ".log")};
      fs::remove(fault.log);
      const RunResult r = run_cli_with_fault(fault, {"convert", (dir / "in.fits.fz").string(), "-o",
                                                     (dir / "out.asdf").string(), "--threads", "2"});
      INFO(error << " after " << after << " bytes\n" << r.err);
      CHECK(!injected_failures(fault).empty());  // the shim did make a call fail
      CHECK(r.status == 3);
      CHECK(lines(r.err) == 1);
      CHECK(contains(r.err, "fitsasdf: error [io]: "));
      CHECK(contains(r.err, "out.asdf"));
      CHECK(contains(r.err, error_text(error)));
      CHECK(snapshot(dir.path()) == before);
      fs::remove(fault.log);
    }
  }
}

TEST_CASE("convert stops with exit 3 and one line when the output folder cannot be written",
          "[cli][convert][fault]") {
  TempDir dir;
  write_file(dir / "in.fits", image_fits(1000, 1));
  fs::create_directories(dir / "out");
  const auto before = snapshot(dir.path());
  for (const std::string error : {"EACCES", "EROFS"}) {
    const Fault fault{.error = error, .path_substr = (dir / "out").string()};
    RunResult r = run_cli_with_fault(
        fault, {"convert", (dir / "in.fits").string(), "-o", (dir / "out/x.asdf").string()});
    INFO(error << "\n" << r.err);
    CHECK(r.status == 3);
    CHECK(lines(r.err) == 1);
    CHECK(contains(r.err, "x.asdf: cannot create a temporary file in " + (dir / "out").string()));
    CHECK(contains(r.err, error_text(error)));
    CHECK(snapshot(dir.path()) == before);
  }
}

TEST_CASE("batch stops cleanly with exit 3 when writing an output fails, and resumes",
          "[cli][batch][fault]") {
  for (const std::string error : {"ENOSPC", "EDQUOT", "EIO"}) {
    TempDir tmp;
    make_inputs(tmp / "in", tmp.path());
    const auto inputs = snapshot(tmp / "in");
    const std::vector<std::string> command{
        "batch",    (tmp / "in").string(),     "-o", (tmp / "out").string(), "-j", "2",
        "--report", (tmp / "r.jsonl").string()};
    // About three and a half outputs fit.
    const Fault fault{.error = error,
                      .path_substr = (tmp / "out").string() + "/",
                      .after_bytes = 700000,
                      .log = tmp / "faults.log"};
    const RunResult r = run_cli_with_fault(fault, command);
    INFO(error << "\n" << r.err);
    CHECK(!injected_failures(fault).empty());
    CHECK(r.status == 3);
    // One line says what stopped the batch, which file met it and how to resume.
    CHECK(lines(r.err) == 2);  // the stop line, after the summary line
    CHECK(contains(r.err, "fitsasdf batch: stopped: " + batch_cause(error) + ": "));
    CHECK(contains(r.err, (tmp / "out").string() + "/"));
    CHECK(contains(r.err, "run the same command again to resume"));
    CHECK(!contains(r.err, "failed: "));  // no input blamed
    CHECK(temporaries_under(tmp / "out").empty());
    CHECK(snapshot(tmp / "in") == inputs);
    // The outputs made are complete and in the report; the one that met the fault is neither.
    const auto made = files_under(tmp / "out");
    CHECK(!made.empty());
    CHECK(made.size() < 13);
    Report report = read_report(tmp / "r.jsonl");
    CHECK(report.summary["stopped"] == "fatal");
    CHECK(report.summary["failed"] == 0);
    CHECK(report.lines.size() == made.size());
    CHECK(report.summary["not_done"] == 13 - made.size());
    for (const auto& [input, line] : report.lines) CHECK(line["status"] == "ok");

    // The same command without the fault finishes the job.
    const RunResult again = run_cli(command);
    INFO(again.err);
    CHECK(again.status == 0);
    CHECK(files_under(tmp / "out").size() == 13);
    CHECK(temporaries_under(tmp / "out").empty());
    report = read_report(tmp / "r.jsonl");
    CHECK(report.line_count == 13);
    CHECK(report.summary["ok"] == 13);
    CHECK(report.summary["not_done"] == 0);
    CHECK(report.summary["stopped"].is_null());
    CHECK(snapshot(tmp / "in") == inputs);
  }
}

TEST_CASE("batch stops cleanly with exit 3 when its report cannot be written, and resumes",
          "[cli][batch][fault]") {
  // At the start (the report is rewritten before the first file), after a few lines, and at
  // the end (the report rewritten whole with its summary).
  for (const std::string error : {"ENOSPC", "EDQUOT"}) {
    for (const std::uint64_t after : {std::uint64_t{0}, std::uint64_t{600}, std::uint64_t{3000}}) {
      TempDir tmp;
      make_inputs(tmp / "in", tmp.path());
      const std::vector<std::string> command{
          "batch",    (tmp / "in").string(),     "-o", (tmp / "out").string(), "-j", "2",
          "--report", (tmp / "r.jsonl").string()};
      const Fault fault{.error = error,
                        .path_substr = "r.jsonl",
                        .after_bytes = after,
                        .log = tmp / "faults.log"};
      const RunResult r = run_cli_with_fault(fault, command);
      INFO(error << " after " << after << " bytes of the report\n" << r.err);
      CHECK(!injected_failures(fault).empty());
      CHECK(r.status == 3);
      CHECK(contains(r.err, batch_cause(error)));
      CHECK(contains(r.err, "cannot write the report " + (tmp / "r.jsonl").string()));
      CHECK(contains(r.err, "run the same command again"));
      CHECK(contains(r.err, after == 0 ? "stopped before the first file: " : "stopped: "));
      CHECK(!contains(r.err, "fitsasdf: error"));  // the batch's own stop line, not a crash
      CHECK(!contains(r.err, "failed: "));
      CHECK(temporaries_under(tmp.path()).empty());
      for (const auto& name : files_under(tmp / "out")) {  // the outputs made are whole
        if (name.ends_with(".asdf"))
          CHECK(run_cli({"info", (tmp / "out" / name).string()}).status == 0);
      }
      const RunResult again = run_cli(command);
      INFO(again.err);
      CHECK(again.status == 0);
      CHECK(files_under(tmp / "out").size() == 13);
      const Report report = read_report(tmp / "r.jsonl");
      CHECK(report.line_count == 13);
      CHECK(report.summary["not_done"] == 0);
      CHECK(report.summary["failed"] == 0);
      CHECK(temporaries_under(tmp.path()).empty());
    }
  }
}

TEST_CASE("batch stops with exit 3 when the output folder is not writable or read-only",
          "[cli][batch][fault]") {
  for (const std::string error : {"EACCES", "EROFS"}) {
    TempDir tmp;
    make_inputs(tmp / "in", tmp.path());
    const std::vector<std::string> command{
        "batch", (tmp / "in").string(), "-o", (tmp / "out").string(), "-j", "2"};
    // The whole output folder: refused before the first file (the probe, or making the folder).
    Fault fault{.error = error, .path_substr = (tmp / "out").string()};
    RunResult r = run_cli_with_fault(fault, command);
    INFO(error << "\n" << r.err);
    CHECK(r.status == 3);
    CHECK(lines(r.err) == 1);
    CHECK(contains(r.err, "fitsasdf batch: stopped before the first file: "));
    CHECK(contains(r.err, error_text(error)));
    CHECK(contains(r.err, (tmp / "out").string()));
    CHECK(!fs::exists(tmp / "out"));
    // One sub-folder: the batch stops when it gets there, and resumes without the fault.
    fault.path_substr = (tmp / "out/b").string();
    r = run_cli_with_fault(fault, command);
    INFO(r.err);
    CHECK(r.status == 3);
    CHECK(contains(r.err, "fitsasdf batch: stopped: " + batch_cause(error)));
    CHECK(contains(r.err, (tmp / "out/b").string()));
    CHECK(contains(r.err, "run the same command again to resume"));
    CHECK(temporaries_under(tmp / "out").empty());
    r = run_cli(command);
    CHECK(r.status == 0);
    CHECK(files_under(tmp / "out").size() == 13);
  }
}
