// `fitsasdf batch` at archive scale and its options: 300 files in nested folders (multi-extension
// FITS, images, ASDF) with 5 corrupt ones; --verify; --merge-reports of shard reports; the
// fatal conditions (output folder unusable, disk full) and the progress lines.
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/batch_support.h"
#include "support/catch.h"
#include "support/layers.h"
#include "support/run.h"
#include "support/temp_dir.h"

using namespace fitsasdf::test;
using namespace fitsasdf::test::batch;
using fitsasdf::test::fits_builder::card;
using fitsasdf::test::fits_builder::num;

namespace {

/// The 300-file archive under `root`: relative path -> whether it converts.
std::map<std::string, bool> make_archive(const fs::path& root, const fs::path& scratch) {
  std::map<std::string, bool> files;
  // ASDF inputs: python asdf's compressed sample and one of our conversions of the sample FITS.
  write_file(scratch / "sample.fits", fits_builder::sample());
  const RunResult made = run_cli({"convert", (scratch / "sample.fits").string(), "-o",
                                  (scratch / "sample.asdf").string(), "-q"});
  REQUIRE(made.status == 0);
  const std::string ours = fits_builder::read(scratch / "sample.asdf");
  const std::string theirs = fits_builder::read(samples_dir() / "compressed.asdf");
  for (int i = 0; i < 295; ++i) {
    const std::string folder = "y" + std::to_string(2020 + i % 3) + "/m" + std::to_string(i % 5) +
                               (i % 7 == 0 ? "/calib" : "") + "/";
    std::string rel;
    std::string bytes;
    if (i % 15 == 0) {
      rel = folder + "tree" + std::to_string(i) + ".asdf";
      bytes = i % 30 == 0 ? theirs : ours;
    } else {
      rel = folder + "obs" + std::to_string(i) + ".fits";
      bytes = i % 3 == 0 ? image_fits(20 + i, i) : fits_builder::sample();
    }
    write_file(root / rel, bytes);
    files[rel] = true;
  }
  const std::string sample = fits_builder::sample();
  const std::map<std::string, std::string> corrupt{
      {"y2020/m1/truncated.fits", sample.substr(0, 7000)},
      {"y2021/m2/calib/notfits.fits", "<html>404 not found</html>\n"},
      {"y2022/badheader.fits",
       fits_builder::header({card("SIMPLE", "T"), num("BITPIX", 17), num("NAXIS", 0)})},
      {"empty.fits", ""},
      {"y2020/m3/cut.asdf", ours.substr(0, ours.size() - 100)},
  };
  for (const auto& [rel, bytes] : corrupt) {
    write_file(root / rel, bytes);
    files[rel] = false;
  }
  return files;
}

std::string output_of(const std::string& rel) {
  if (rel.ends_with(".asdf")) return rel.substr(0, rel.size() - 5) + ".fits";
  return rel.substr(0, rel.size() - 5) + ".asdf";
}

/// Run `argv` with its stderr on a pseudo-terminal; return what it wrote there and its status.
RunResult run_on_terminal(const std::vector<std::string>& args) {
  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  REQUIRE(master >= 0);
  REQUIRE(grantpt(master) == 0);
  REQUIRE(unlockpt(master) == 0);
  const std::string slave = ptsname(master);
  const pid_t pid = spawn_cli(args, slave, O_RDWR | O_NOCTTY);
  RunResult result;
  int raw = 0;
  bool ended = false;
  char buf[4096];
  for (;;) {
    pollfd p{master, POLLIN, 0};
    if (poll(&p, 1, 20) > 0 && (p.revents & POLLIN)) {
      const ssize_t n = read(master, buf, sizeof buf);
      if (n > 0) {
        result.err.append(buf, static_cast<std::size_t>(n));
        continue;
      }
    }
    if (ended) break;  // drained after the end
    ended = waitpid(pid, &raw, WNOHANG) == pid;
  }
  close(master);
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  return result;
}

}  // namespace

TEST_CASE("batch converts a 300-file archive with 5 corrupt files and reports each",
          "[cli][batch]") {
  TempDir tmp;
  const fs::path archive = tmp / "archive";
  const fs::path out = tmp / "out";
  const fs::path report = tmp / "report.jsonl";
  const auto files = make_archive(archive, tmp.path());
  REQUIRE(files.size() == 300);
  const RunResult r = run_cli(
      {"batch", archive.string(), "-o", out.string(), "-j", "2", "--report", report.string()});
  INFO(r.err);
  CHECK(r.status == 1);  // some failed
  const Report got = read_report(report);
  CHECK(got.line_count == 300);
  CHECK(got.summaries == 1);
  CHECK(got.summary["inputs"] == 300);
  CHECK(got.summary["ok"] == 295);
  CHECK(got.summary["failed"] == 5);
  CHECK(got.summary["not_done"] == 0);
  std::set<std::string> outputs;
  for (const auto& [rel, good] : files) {
    INFO(rel);
    const json& line = got.lines.at((archive / rel).string());
    CHECK(line["status"] == (good ? "ok" : "failed"));
    if (good) {
      outputs.insert(output_of(rel));
    } else {
      // A clear error: the category, the file, what was wrong.
      const std::string error = line["error"];
      CHECK(error.find(rel.substr(rel.rfind('/') + 1)) != std::string::npos);
      CHECK(error.starts_with("["));
      CHECK(r.err.find("failed: " + error) != std::string::npos);
    }
  }
  CHECK(got.lines.at((archive / "y2021/m2/calib/notfits.fits").string())["error"]
            .get<std::string>()
            .find("not-fits") != std::string::npos);
  CHECK(
      got.lines.at((archive / "y2020/m1/truncated.fits").string())["error"].get<std::string>().find(
          "truncated") != std::string::npos);
  CHECK(files_under(out) == outputs);
  CHECK(temporaries_under(out).empty());
}

TEST_CASE("batch --verify records the round-trip verdict and fails a file that differs",
          "[cli][batch]") {
  TempDir tmp;
  write_file(tmp / "in/a.fits", fits_builder::sample());
  write_file(tmp / "in/sub/b.fits", image_fits(300, 5));
  fs::copy_file(samples_dir() / "compressed.asdf", tmp / "in/c.asdf");
  const fs::path report = tmp / "r.jsonl";
  RunResult r = run_cli({"batch", (tmp / "in").string(), "-o", (tmp / "out").string(), "--verify",
                         "--report", report.string()});
  INFO(r.err);
  CHECK(r.status == 0);
  Report got = read_report(report);
  REQUIRE(got.lines.size() == 3);
  for (const auto& [input, line] : got.lines) {
    INFO(input);
    CHECK(line["status"] == "ok");
    CHECK(line["verify"] == "identical");
    CHECK(line["verify_message"] == "");
  }
  CHECK(got.summary["verify"]["identical"] == 3);
  // A re-run keeps the verified lines of the outputs it skips.
  r = run_cli({"batch", (tmp / "in").string(), "-o", (tmp / "out").string(), "--verify", "--report",
               report.string()});
  CHECK(r.status == 0);
  CHECK(read_report(report).lines == got.lines);

  // A scaled float image converted with --scaling physical: the physical values are written
  // back as if they were the stored ones (README, known limit), so the round trip differs.
  std::string floats;
  for (std::uint32_t bits : {0x3f800000u, 0x40000000u, 0x40400000u, 0x40800000u}) {
    floats += fits_builder::big_endian(bits);
  }
  write_file(tmp / "scaled/s.fits",
             fits_builder::hdu({card("SIMPLE", "T"), num("BITPIX", -32), num("NAXIS", 1),
                                num("NAXIS1", 4), card("BSCALE", "2.0"), card("BZERO", "10.0")},
                               floats));
  r = run_cli({"batch", (tmp / "scaled").string(), "-o", (tmp / "out2").string(), "--verify",
               "--scaling", "physical", "--report", report.string()});
  CHECK(r.status == 1);
  got = read_report(report);
  REQUIRE(got.lines.size() == 1);
  const json& line = got.lines.begin()->second;
  CHECK(line["status"] == "failed");
  CHECK(line["verify"] == "different");
  CHECK(line["verify_message"].get<std::string>().find("HDU 1") != std::string::npos);
  CHECK(line["error"].get<std::string>().starts_with("verification: different"));
  CHECK(got.summary["verify"]["different"] == 1);
}

TEST_CASE("batch --merge-reports combines shard reports, one line per input", "[cli][batch]") {
  TempDir tmp;
  for (int i = 0; i < 12; ++i) {
    write_file(tmp / ("in/d" + std::to_string(i % 3) + "/f" + std::to_string(i) + ".fits"),
               image_fits(10 + i, i));
  }
  write_file(tmp / "in/bad.fits", "not fits");
  std::vector<std::string> reports;
  for (int k = 0; k < 4; ++k) {
    reports.push_back((tmp / ("reports/shard-" + std::to_string(k) + ".jsonl")).string());
    run_cli({"batch", (tmp / "in").string(), "-o", (tmp / "out").string(), "--shard",
             std::to_string(k) + "/4", "--report", reports.back(), "-q"});
  }
  std::vector<std::string> args{"batch", "--merge-reports", (tmp / "all.jsonl").string()};
  args.insert(args.end(), reports.begin(), reports.end());
  RunResult r = run_cli(args);
  INFO(r.err);
  CHECK(r.status == 1);  // bad.fits failed
  CHECK(r.err.find("13 inputs, 12 ok, 0 skipped, 1 failed") != std::string::npos);
  Report merged = read_report(tmp / "all.jsonl");
  CHECK(merged.line_count == 13);
  CHECK(merged.summaries == 1);
  CHECK(merged.summary["inputs"] == 13);
  CHECK(merged.summary["failed"] == 1);
  CHECK(merged.summary["reports"] == 4);

  // The failed file fixed and its shard re-run into a new report: the later line wins.
  write_file(tmp / "in/bad.fits", image_fits(3, 3));
  std::string fixed_shard;
  for (int k = 0; k < 4; ++k) {
    const Report shard = read_report(reports[static_cast<std::size_t>(k)]);
    if (shard.lines.count((tmp / "in/bad.fits").string())) {
      fixed_shard = std::to_string(k) + "/4";
    }
  }
  REQUIRE_FALSE(fixed_shard.empty());
  const RunResult redo =
      run_cli({"batch", (tmp / "in").string(), "-o", (tmp / "out").string(), "--shard", fixed_shard,
               "--report", (tmp / "redo.jsonl").string(), "-q"});
  CHECK(redo.status == 0);
  args.push_back((tmp / "redo.jsonl").string());
  r = run_cli(args);
  INFO(r.err);
  CHECK(r.status == 0);
  merged = read_report(tmp / "all.jsonl");
  CHECK(merged.line_count == 13);
  CHECK(merged.lines.at((tmp / "in/bad.fits").string())["status"] == "ok");
  CHECK(merged.summary["failed"] == 0);

  // A report without its summary (a killed run) makes the merge incomplete.
  write_file(tmp / "killed.jsonl",
             R"({"input":"x.fits","output":"x.asdf","status":"ok","error":"","bytes_in":1,)"
             R"("bytes_out":1,"seconds":0.1})"
             "\n{\"input\":\"y.fi");
  r = run_cli(
      {"batch", "--merge-reports", (tmp / "m2.jsonl").string(), (tmp / "killed.jsonl").string()});
  CHECK(r.status == 1);
  CHECK(r.err.find("killed.jsonl is incomplete") != std::string::npos);
  CHECK(read_report(tmp / "m2.jsonl").line_count == 1);
  CHECK(run_cli({"batch", "--merge-reports", (tmp / "m3.jsonl").string()}).status == 4);
}

TEST_CASE("batch --summary counts the shards' reports, each input once", "[cli][batch]") {
  TempDir tmp;
  for (int i = 0; i < 12; ++i) {
    write_file(tmp / ("in/d" + std::to_string(i % 3) + "/f" + std::to_string(i) + ".fits"),
               image_fits(10 + 1500 * i, i));
  }
  write_file(tmp / "in/bad.fits", "not fits");
  std::vector<std::string> args{"batch", "--summary", "--json"};
  for (int k = 0; k < 3; ++k) {
    args.push_back((tmp / ("shard-" + std::to_string(k) + ".jsonl")).string());
    run_cli({"batch", (tmp / "in").string(), "-o", (tmp / "out").string(), "--shard",
             std::to_string(k) + "/3", "--report", args.back(), "-q"});
  }
  // The first shard's report given twice: its inputs still count once.
  args.push_back(args[3]);
  RunResult r = run_cli(args);
  INFO(r.out << r.err);
  CHECK(r.status == 1);  // bad.fits failed
  const json s = json::parse(r.out);
  CHECK(s["reports"] == 4);
  CHECK(s["inputs"] == 13);
  CHECK(s["status"]["ok"] == 12);
  CHECK(s["status"]["failed"] == 1);
  REQUIRE(s["failures"].size() == 1);
  CHECK(s["failures"].begin().value() == 1);
  CHECK(s["incomplete_reports"].empty());
  CHECK(s["bytes_in"].get<std::uint64_t>() > 12 * 2880);
  REQUIRE(s["largest"].size() == 5);
  // The largest input is the last image (16,510 pixels, 12 data blocks).
  CHECK(s["largest"][0]["input"].get<std::string>().ends_with("f11.fits"));
  CHECK(s["slowest"][0]["seconds"].get<double>() >= s["slowest"][4]["seconds"].get<double>());
  CHECK(s["run_seconds"].get<double>() > 0);

  // The text form, and a report a killed run left (no summary, a line cut short).
  write_file(tmp / "killed.jsonl",
             R"({"input":"x.fits","output":"x.asdf","status":"ok","error":"","bytes_in":1,)"
             R"("bytes_out":1,"seconds":0.1})"
             "\n{\"input\":\"y.fi");
  r = run_cli({"batch", "--summary", (tmp / "killed.jsonl").string()});
  INFO(r.out << r.err);
  CHECK(r.status == 1);
  CHECK(r.out.find("1 inputs in 1 report") != std::string::npos);
  CHECK(r.out.find("1 ok, 0 skipped, 0 failed") != std::string::npos);
  CHECK(r.out.find("incomplete " + (tmp / "killed.jsonl").string()) != std::string::npos);
  r = run_cli({"batch", "--summary", (tmp / "missing.jsonl").string()});
  CHECK(r.status != 0);
  CHECK(r.err.find("missing.jsonl") != std::string::npos);
  CHECK(run_cli({"batch", "--summary"}).status == 4);
}

TEST_CASE("batch stops with exit status 3 and one line when the output folder is unusable",
          "[cli][batch]") {
  TempDir tmp;
  write_file(tmp / "in/a.fits", image_fits(10, 1));
  // An existing file where the output folder should be (works as root too).
  write_file(tmp / "file", "x");
  RunResult r = run_cli({"batch", (tmp / "in").string(), "-o", (tmp / "file").string()});
  CHECK(r.status == 3);
  CHECK(r.err.find("stopped before the first file") != std::string::npos);
  CHECK(r.err.find("existing file, not a folder") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  // A folder without write permission, for real (tests/cli/io_fault_error_test.cc injects
  // EACCES in every environment). Root writes anyway: as root the command runs as nobody
  // (setpriv); where root cannot drop to another user the layer is recorded as skipped.
  std::string why;
  const auto prefix = as_non_root(why);
  if (!prefix) FITSASDF_SKIP_LAYER(kLayerNonRoot, why);
  std::vector<std::string> command = *prefix;
  command.push_back(cli_path().string());
  if (geteuid() == 0) {
    // nobody must reach the inputs and the folders.
    fs::permissions(tmp.path(),
                    fs::perms::all & ~fs::perms::group_write & ~fs::perms::others_write);
  }
  const auto read_only = fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                         fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec;
  fs::create_directories(tmp / "locked");
  fs::permissions(tmp / "locked", read_only);
  auto batch = [&](const fs::path& out) {
    std::vector<std::string> argv = command;
    argv.insert(argv.end(), {"batch", (tmp / "in").string(), "-o", out.string()});
    return run(argv);
  };
  r = batch(tmp / "locked");
  INFO(r.err);
  CHECK(r.status == 3);
  CHECK(r.err.find("stopped before the first file") != std::string::npos);
  CHECK(r.err.find("Permission denied") != std::string::npos);
  // A sub-folder of OUTDIR that cannot be written: the batch stops when it gets there.
  fs::create_directories(tmp / "open/sub");
  fs::permissions(tmp / "open", fs::perms::all);
  fs::permissions(tmp / "open/sub", read_only);
  write_file(tmp / "in/sub/b.fits", image_fits(12, 2));
  r = batch(tmp / "open");
  INFO(r.err);
  CHECK(r.status == 3);
  CHECK(r.err.find("stopped: the output folder is not writable (Permission denied)") !=
        std::string::npos);
  CHECK(r.err.find("run the same command again to resume") != std::string::npos);
  CHECK(temporaries_under(tmp / "open").empty());
  fs::permissions(tmp / "locked", fs::perms::owner_all);
  fs::permissions(tmp / "open/sub", fs::perms::owner_all);
  layer_ran(kLayerNonRoot,
            geteuid() == 0 ? "as nobody through setpriv" : "as uid " + std::to_string(geteuid()));
}

TEST_CASE("batch stops cleanly when the disk fills up", "[cli][batch]") {
  // A real full disk, as an extra layer over the injected ENOSPC of io_fault_error_test.cc: a
  // 1 MB tmpfs mounted on OUTDIR in a private mount namespace, made with unshare -Urm (no root
  // needed where user namespaces are allowed) or, as root, unshare -m. Containers, chroots and
  // hardened kernels often allow neither: the layer is then recorded as skipped.
  const std::string layer = kLayerRealDiskFull;
  std::vector<std::string> unshare;
  std::string how;
  // A missing unshare counts as unusable, not as an error of the test.
  auto probe = [](const std::vector<std::string>& argv) {
    try {
      return run(argv);
    } catch (const std::exception& e) {
      return RunResult{127, "", e.what()};
    }
  };
  auto first_line = [](const RunResult& r) {
    const std::string line = r.err.substr(0, r.err.find('\n'));
    return line.empty() ? "exit status " + std::to_string(r.status) : line;
  };
  const RunResult user_ns = probe({"unshare", "-Urm", "true"});
  const RunResult root_ns =
      user_ns.status != 0 && geteuid() == 0 ? probe({"unshare", "-m", "true"}) : RunResult{};
  if (user_ns.status == 0) {
    unshare = {"unshare", "-Urm"};
    how = "unshare -Urm (a user namespace)";
  } else if (geteuid() == 0 && root_ns.status == 0) {
    unshare = {"unshare", "-m"};
    how = "unshare -m as root";
  } else {
    // In a chroot the kernel refuses user namespaces, and unshare -m needs the chroot's / to
    // be a mount point (mount --bind ROOT ROOT before chroot, as scripts/fresh-root-test.sh does).
    FITSASDF_SKIP_LAYER(layer, "unshare -Urm fails (" + first_line(user_ns) + ")" +
                                   (geteuid() == 0 ? ", and so does unshare -m as root (" +
                                                         first_line(root_ns) + ")"
                                                   : "; as root the test would try unshare -m"));
  }
  TempDir tmp;
  for (int i = 0; i < 20; ++i) {
    write_file(tmp / ("in/f" + std::to_string(i) + ".fits"), image_fits(100000, i));
  }
  fs::create_directories(tmp / "out");
  const std::string script =
      "mount -t tmpfs -o size=1m tmpfs \"$1\" || exit 99; shift; \"$@\"; rc=$?; "
      "find \"$OUTDIR\" -name '.*.tmp-*'; ls \"$OUTDIR\" | wc -l; exit $rc";
  std::vector<std::string> argv{"env", "OUTDIR=" + (tmp / "out").string()};
  argv.insert(argv.end(), unshare.begin(), unshare.end());
  argv.insert(argv.end(), {"sh", "-c", script, "sh", (tmp / "out").string(), cli_path().string(),
                           "batch", (tmp / "in").string(), "-o", (tmp / "out").string(), "-j", "2",
                           "--report", (tmp / "r.jsonl").string()});
  const RunResult r = run(argv);
  INFO(r.err << r.out);
  if (r.status == 99) {
    FITSASDF_SKIP_LAYER(layer, "tmpfs cannot be mounted after " + how);
  }
  layer_ran(layer, how);
  CHECK(r.status == 3);
  CHECK(r.err.find("stopped: the disk is full (No space left on device)") != std::string::npos);
  CHECK(r.err.find("run the same command again to resume") != std::string::npos);
  // No temporary left, some outputs made (each 200 KB: a few fit), not all.
  const std::string listed = r.out;
  CHECK(listed.find(".tmp-") == std::string::npos);
  const int made = std::stoi(listed);
  CHECK(made > 0);
  CHECK(made < 20);
  const Report report = read_report(tmp / "r.jsonl");
  CHECK(report.summary["stopped"] == "fatal");
  CHECK(report.summary["failed"] == 0);  // the file that met the full disk is not done, not failed
  CHECK(report.lines.size() == static_cast<std::size_t>(made));
  CHECK(report.summary["not_done"] == 20 - made);
}

TEST_CASE("batch shows progress: a line redrawn on a terminal, plain lines elsewhere",
          "[cli][batch]") {
  TempDir tmp;
  for (int i = 0; i < 30; ++i) {
    write_file(tmp / ("in/f" + std::to_string(i) + ".fits"), image_fits(200000, i));
  }
  write_file(tmp / "in/bad.fits", "not fits");
  // Not a terminal: a plain line every --progress-interval seconds, then the summary.
  RunResult r = run_cli({"batch", (tmp / "in").string(), "-o", (tmp / "out").string(), "-j", "1",
                         "--progress-interval", "0.01"});
  INFO(r.err);
  CHECK(r.status == 1);
  CHECK(r.err.find(" files, ") != std::string::npos);
  CHECK(r.err.find("/31 files, ") != std::string::npos);
  CHECK(r.err.find(" MB/s, ETA ") != std::string::npos);
  CHECK(r.err.find('\r') == std::string::npos);
  CHECK(r.err.find("31 inputs: 30 converted, 0 skipped (complete), 1 failed") != std::string::npos);
  // A terminal: the line is redrawn in place (carriage return, erase to the end of the line).
  r = run_on_terminal({"batch", (tmp / "in").string(), "-o", (tmp / "out2").string(), "-j", "1"});
  INFO(r.err);
  CHECK(r.status == 1);
  CHECK(r.err.find("\rfitsasdf batch: ") != std::string::npos);
  CHECK(r.err.find("\x1b[K") != std::string::npos);
  CHECK(r.err.find("/31 files, ") != std::string::npos);
  CHECK(r.err.find("failed: [not-fits]") != std::string::npos);
  // --quiet: nothing.
  r = run_cli({"batch", (tmp / "in").string(), "-o", (tmp / "out3").string(), "-q"});
  CHECK(r.err.empty());
}
