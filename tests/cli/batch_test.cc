// `fitsasdf batch` through the command line: a generated archive of small FITS files in nested
// folders, three of them corrupt, converted with two workers; the report, the exit status, the
// mirrored outputs; a re-run that skips the complete outputs and redoes a deleted or truncated
// one; shards that split the inputs without overlap.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/catch.h"
#include "support/fits_builder.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

using namespace fitsasdf::test;
using fitsasdf::test::fits_builder::card;
using fitsasdf::test::fits_builder::num;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

void write_file(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  REQUIRE(out.good());
}

/// A primary 16-bit image of `n` pixels valued `seed` + i.
std::string image_fits(int n, int seed) {
  std::string data;
  for (int i = 0; i < n; ++i) {
    data += fits_builder::big_endian<std::int16_t>(static_cast<std::int16_t>(seed + i));
  }
  return fits_builder::hdu(
      {card("SIMPLE", "T"), num("BITPIX", 16), num("NAXIS", 1), num("NAXIS1", n)}, data);
}

/// The archive: 30 files under `root` in nested folders (relative path -> whether it is good).
std::map<std::string, bool> make_archive(const fs::path& root) {
  std::map<std::string, bool> files;
  for (int i = 0; i < 27; ++i) {
    const std::string rel = "night" + std::to_string(i % 3) + "/chip" + std::to_string(i % 2) +
                            "/exp" + std::to_string(i) + ".fits";
    write_file(root / rel, i % 4 == 0 ? fits_builder::sample() : image_fits(10 + i, i));
    files[rel] = true;
  }
  write_file(root / "night0/truncated.fits", fits_builder::sample().substr(0, 7000));
  files["night0/truncated.fits"] = false;
  write_file(root / "night1/chip1/notfits.fits", "<html>not found</html>\n");
  files["night1/chip1/notfits.fits"] = false;
  write_file(root / "badheader.fits",
             fits_builder::header({card("SIMPLE", "T"), num("BITPIX", 17), num("NAXIS", 0)}));
  files["badheader.fits"] = false;
  return files;
}

struct BatchRun {
  int status = -1;
  std::string err;
  std::map<std::string, json> lines;  // input relative to the archive -> report line
  json summary;
};

/// Run `fitsasdf batch args...` with a fresh report; return its lines by input.
BatchRun run_batch(const fs::path& archive, const fs::path& report, std::vector<std::string> args) {
  fs::remove(report);
  args.insert(args.begin(), "batch");
  args.push_back("--report");
  args.push_back(report.string());
  const RunResult r = run_cli(args);
  INFO(r.err);
  BatchRun out;
  out.status = r.status;
  out.err = r.err;
  std::ifstream in(report);
  std::string line;
  while (std::getline(in, line)) {
    const json j = json::parse(line);
    if (j.contains("summary")) {
      REQUIRE(out.summary.is_null());
      out.summary = j;
      continue;
    }
    const std::string rel =
        fs::path(j["input"].get<std::string>()).lexically_relative(archive).generic_string();
    REQUIRE(out.lines.count(rel) == 0);  // each input once
    out.lines[rel] = j;
  }
  REQUIRE(out.summary.is_object());
  return out;
}

std::size_t count_status(const BatchRun& run, const std::string& status) {
  return static_cast<std::size_t>(std::count_if(
      run.lines.begin(), run.lines.end(), [&](auto& l) { return l.second["status"] == status; }));
}

std::set<std::string> files_under(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) names.insert(e.path().lexically_relative(dir).generic_string());
  }
  return names;
}

}  // namespace

TEST_CASE("batch converts an archive, isolates corrupt files, and resumes", "[cli][batch]") {
  TempDir tmp;
  const fs::path archive = tmp / "archive";
  const fs::path out = tmp / "out";
  const fs::path report = tmp / "report.jsonl";
  const auto files = make_archive(archive);

  const BatchRun first =
      run_batch(archive, report, {archive.string(), "-o", out.string(), "-j", "2"});
  CHECK(first.status == 1);  // some failed
  REQUIRE(first.lines.size() == 30);
  std::set<std::string> expected_outputs;
  for (const auto& [rel, good] : files) {
    INFO(rel);
    const json& line = first.lines.at(rel);
    CHECK(line["status"] == (good ? "ok" : "failed"));
    const std::string out_rel = rel.substr(0, rel.size() - 5) + ".asdf";
    CHECK(fs::path(line["output"].get<std::string>()) == out / out_rel);
    if (good) {
      CHECK(line["error"] == "");
      CHECK(line["bytes_in"].get<std::uint64_t>() == fs::file_size(archive / rel));
      CHECK(line["bytes_out"].get<std::uint64_t>() == fs::file_size(out / out_rel));
      expected_outputs.insert(out_rel);
    } else {
      CHECK(line["error"].get<std::string>().find(rel.substr(rel.rfind('/') + 1)) !=
            std::string::npos);
    }
  }
  CHECK(first.lines.at("night1/chip1/notfits.fits")["error"].get<std::string>().find("not-fits") !=
        std::string::npos);
  CHECK(first.lines.at("night0/truncated.fits")["error"].get<std::string>().find("truncated") !=
        std::string::npos);
  CHECK(first.summary["ok"] == 27);
  CHECK(first.summary["failed"] == 3);
  CHECK(first.summary["skipped"] == 0);
  // Only the complete outputs, mirrored; no temporary file left behind.
  CHECK(files_under(out) == expected_outputs);
  CHECK(std::count(first.err.begin(), first.err.end(), '\n') == 4);  // 3 failures + summary

  SECTION("a re-run skips every complete output") {
    const BatchRun again = run_batch(archive, report, {archive.string(), "-o", out.string(), "-q"});
    CHECK(again.status == 1);
    CHECK(again.err.empty());
    CHECK(count_status(again, "skipped") == 27);
    CHECK(count_status(again, "failed") == 3);
    CHECK(again.summary["skipped"] == 27);
  }
  SECTION("a deleted, a truncated or a stale output is redone") {
    fs::remove(out / "night0/chip0/exp0.asdf");
    fs::resize_file(out / "night1/chip1/exp1.asdf",
                    fs::file_size(out / "night1/chip1/exp1.asdf") / 2);
    const auto stale = out / "night2/chip0/exp2.asdf";
    fs::last_write_time(
        stale, fs::last_write_time(archive / "night2/chip0/exp2.fits") - std::chrono::hours(1));
    // A flipped byte in the first block's data: the size is right, the MD5 is not.
    const auto flipped = out / "night0/chip1/exp3.asdf";
    {
      std::fstream f(flipped, std::ios::in | std::ios::out | std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      const auto magic = bytes.find(
          "\xd3"
          "BLK");
      REQUIRE(magic != std::string::npos);
      const auto header_size =
          static_cast<std::size_t>(static_cast<unsigned char>(bytes[magic + 4]) * 256 +
                                   static_cast<unsigned char>(bytes[magic + 5]));
      const auto at = magic + 6 + header_size;
      REQUIRE(at < bytes.size());
      f.seekp(static_cast<std::streamoff>(at));
      f.put(static_cast<char>(bytes[at] ^ 0x01));
      REQUIRE(f.good());
    }
    const BatchRun again =
        run_batch(archive, report, {archive.string(), "-o", out.string(), "-j", "2"});
    CHECK(again.status == 1);
    CHECK(again.lines.at("night0/chip1/exp3.fits")["status"] == "ok");
    CHECK(again.lines.at("night0/chip0/exp0.fits")["status"] == "ok");
    CHECK(again.lines.at("night1/chip1/exp1.fits")["status"] == "ok");
    CHECK(again.lines.at("night2/chip0/exp2.fits")["status"] == "ok");
    CHECK(count_status(again, "skipped") == 23);
    CHECK(files_under(out) == expected_outputs);
    // And the redone outputs are complete: a further run skips them.
    const BatchRun third = run_batch(archive, report, {archive.string(), "-o", out.string()});
    CHECK(count_status(third, "skipped") == 27);
  }
  SECTION("the ASDF outputs convert back to FITS, the direction told by content") {
    const fs::path back = tmp / "back";
    const BatchRun reverse =
        run_batch(out, tmp / "back.jsonl", {out.string(), "-o", back.string()});
    CHECK(reverse.status == 0);
    CHECK(count_status(reverse, "ok") == 27);
    CHECK(fs::file_size(back / "night0/chip0/exp0.fits") ==
          fs::file_size(archive / "night0/chip0/exp0.fits"));
    const BatchRun again = run_batch(out, tmp / "back.jsonl", {out.string(), "-o", back.string()});
    CHECK(count_status(again, "skipped") == 27);
  }
}

TEST_CASE("batch --shard K/N splits the inputs without overlap, whatever the list order",
          "[cli][batch]") {
  TempDir tmp;
  const fs::path archive = tmp / "archive";
  const auto files = make_archive(archive);
  std::set<std::string> seen;
  std::size_t nonempty = 0;
  for (int k = 0; k < 4; ++k) {
    const fs::path out = tmp / ("out" + std::to_string(k));
    const BatchRun shard = run_batch(
        archive, tmp / "r.jsonl",
        {archive.string(), "-o", out.string(), "--shard", std::to_string(k) + "/4", "-q"});
    if (!shard.lines.empty()) ++nonempty;
    for (const auto& [rel, line] : shard.lines) {
      INFO(rel);
      CHECK(seen.insert(rel).second);  // no overlap
    }
    // Stable: the same shard again gives the same inputs.
    const BatchRun again = run_batch(
        archive, tmp / "r.jsonl",
        {archive.string(), "-o", out.string(), "--shard", std::to_string(k) + "/4", "-q"});
    CHECK(again.lines.size() == shard.lines.size());
  }
  std::set<std::string> all;
  for (const auto& [rel, good] : files) all.insert(rel);
  CHECK(seen == all);
  CHECK(nonempty >= 2);

  SECTION("a --from list gives the same shards in any order") {
    // Three orders of the list: sorted, reversed, shuffled (seeded).
    std::vector<std::string> paths;
    for (const auto& [rel, good] : files) paths.push_back((archive / rel).string());
    std::vector<std::vector<std::string>> orders{paths, paths, paths};
    std::reverse(orders[1].begin(), orders[1].end());
    std::shuffle(orders[2].begin(), orders[2].end(), std::mt19937(42));
    std::set<std::string> union_of_shards;
    for (int k = 0; k < 4; ++k) {
      std::set<std::string> by_order[3];
      for (std::size_t order = 0; order < orders.size(); ++order) {
        std::string list;
        for (const auto& p : orders[order]) list += p + "\n";
        write_file(tmp / "list.txt", list);
        const BatchRun shard =
            run_batch(archive, tmp / "r.jsonl",
                      {"--from", (tmp / "list.txt").string(), "-o", (tmp / "flat").string(),
                       "--shard", std::to_string(k) + "/4", "-q"});
        for (const auto& [rel, line] : shard.lines) by_order[order].insert(rel);
      }
      CHECK(by_order[0] == by_order[1]);
      CHECK(by_order[0] == by_order[2]);
      for (const auto& rel : by_order[0]) CHECK(union_of_shards.insert(rel).second);
    }
    CHECK(union_of_shards == all);
  }

  SECTION("bad shard values are usage errors") {
    for (const char* bad : {"4/4", "1", "a/4", "1/0", "-1/4"}) {
      INFO(bad);
      const RunResult r =
          run_cli({"batch", archive.string(), "-o", (tmp / "x").string(), "--shard", bad});
      CHECK(r.status == 4);
    }
  }
}

TEST_CASE("batch leaves out an output folder inside an input folder", "[cli][batch]") {
  TempDir tmp;
  write_file(tmp / "in/a.fits", image_fits(5, 1));
  write_file(tmp / "in/sub/b.fits", image_fits(6, 2));
  for (int run = 0; run < 2; ++run) {
    const RunResult r =
        run_cli({"batch", (tmp / "in").string(), "-o", (tmp / "in/converted").string()});
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK(r.err.find("2 inputs") != std::string::npos);
  }
  CHECK(files_under(tmp / "in/converted") == std::set<std::string>{"a.asdf", "sub/b.asdf"});
}

TEST_CASE("batch --from reads the inputs from a list or standard input", "[cli][batch]") {
  TempDir tmp;
  write_file(tmp / "in/a.fits", image_fits(5, 1));
  write_file(tmp / "in/sub/b.fit", image_fits(6, 2));
  write_file(tmp / "list.txt",
             (tmp / "in/a.fits").string() + "\n\n" + (tmp / "in/sub/b.fit").string() + "\n");
  RunResult r =
      run_cli({"batch", "--from", (tmp / "list.txt").string(), "-o", (tmp / "out").string(), "-q"});
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  CHECK(files_under(tmp / "out") == std::set<std::string>{"a.asdf", "b.asdf"});
  r = run({cli_path().string(), "batch", "--from", "-", "-o", (tmp / "out2").string()},
          (tmp / "in/a.fits").string() + "\n");
  CHECK(r.status == 0);
  CHECK(files_under(tmp / "out2") == std::set<std::string>{"a.asdf"});
  // Two inputs with the same output: the first in list order is converted, the other refused.
  write_file(tmp / "in/sub/a.fits", image_fits(7, 3));
  r = run_cli({"batch", (tmp / "in/a.fits").string(), (tmp / "in/sub/a.fits").string(), "-o",
               (tmp / "out4").string(), "-j", "2"});
  CHECK(r.status == 1);
  CHECK(r.err.find("is the output of " + (tmp / "in/a.fits").string()) != std::string::npos);
  CHECK(files_under(tmp / "out4") == std::set<std::string>{"a.asdf"});
  CHECK(fs::file_size(tmp / "out4/a.asdf") == fs::file_size(tmp / "out/a.asdf"));
  CHECK(run_cli({"batch", "-o", (tmp / "out3").string()}).status == 4);  // no inputs
  CHECK(run_cli({"batch", (tmp / "in").string()}).status == 4);          // no -o
}
