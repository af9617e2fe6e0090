// `fitsasdf convert` through the command line: every refusal is one line on stderr naming the
// file, the documented exit status (2 invalid input, 3 I/O, 4 usage) and no output file or
// temporary file left behind; the output name, the --json report and -q on success.
// The FITS inputs are built here byte by byte (tiny, deterministic, no Python needed).
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "asdfcore/format/container.h"
#include "support/catch.h"
#include "support/fits_builder.h"
#include "support/layers.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

using namespace fitsasdf::test;
using fitsasdf::test::fits_builder::card;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename());
  return names;
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  REQUIRE(out.good());
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// One HDU: `cards`, then `nbytes` of data (a byte ramp).
std::string hdu(const std::vector<std::string>& cards, std::size_t nbytes) {
  std::string data;
  for (std::size_t i = 0; i < nbytes; ++i) data += static_cast<char>(i * 7 % 251);
  return fits_builder::hdu(cards, data);
}

/// A primary 16-bit image of `n` pixels (header 2880 bytes, data from byte 2880).
std::string image_fits(int n, std::vector<std::string> extra = {}) {
  std::vector<std::string> cards{card("SIMPLE", "T"), card("BITPIX", "16"), card("NAXIS", "1"),
                                 card("NAXIS1", std::to_string(n))};
  cards.insert(cards.end(), extra.begin(), extra.end());
  return hdu(cards, 2 * static_cast<std::size_t>(n));
}

std::string extension(const std::string& name, int bitpix, int n) {
  return hdu({card("XTENSION", "'IMAGE   '"), card("BITPIX", std::to_string(bitpix)),
              card("NAXIS", "1"), card("NAXIS1", std::to_string(n)), card("PCOUNT", "0"),
              card("GCOUNT", "1"), card("EXTNAME", "'" + name + "'")},
             static_cast<std::size_t>(n) * static_cast<std::size_t>(std::abs(bitpix) / 8));
}

/// Three HDUs: a primary without data (bytes 0..2880), SCI with 3000 int32 (header 2880..5760,
/// data 5760..17760, padded to 20160) and ERR with 100 int16 (header 20160..23040, data from
/// 23040).
struct Mef {
  std::string primary = fits_builder::empty_primary();
  std::string sci = extension("SCI", 32, 3000);
  std::string err = extension("ERR", 16, 100);
  std::string bytes() const { return primary + sci + err; }
};

/// Run convert on `input` (with `extra` options) twice, with the default output name (next to
/// the input) and with -o into an empty folder, and check the refusal: `status`, one line on
/// stderr naming the input and holding `says`, nothing on stdout, and nothing new in either
/// folder (no output, no temporary file).
void expect_refused(const fs::path& input, int status, const std::string& says,
                    const std::vector<std::string>& extra = {}) {
  const std::string named = input.filename().string();
  const fs::path in_dir = input.parent_path();
  const std::set<std::string> before = listing(in_dir);
  TempDir out;
  const fs::path output = out / "out.asdf";
  std::vector<std::vector<std::string>> runs{{"convert", input.string()},
                                             {"convert", input.string(), "-o", output.string()}};
  for (auto& args : runs) {
    args.insert(args.end(), extra.begin(), extra.end());
    const RunResult r = run_cli(args);
    INFO(join(args) << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.status == status);
    CHECK(r.out.empty());
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find(named) != std::string::npos);
    CHECK(r.err.find(says) != std::string::npos);
    CHECK(listing(in_dir) == before);
    CHECK(listing(out.path()).empty());
  }
}

}  // namespace

TEST_CASE("convert refuses files that are not FITS with exit 2 and no output", "[cli][convert]") {
  TempDir dir;
  write_file(dir / "x.fits",
             "<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n"
             "<body><h1>Not Found</h1></body></html>\n");
  expect_refused(dir / "x.fits", 2, "HTML");

  std::string hdf5("\x89HDF\r\n\x1a\n", 8);
  hdf5 += std::string(504, '\0');
  write_file(dir / "waveforms.fits", hdf5);
  expect_refused(dir / "waveforms.fits", 2, "HDF5");

  write_file(dir / "empty.fits", "");
  expect_refused(dir / "empty.fits", 2, "empty");

  write_file(dir / "notes.fits", "observing notes, not an image\n");
  expect_refused(dir / "notes.fits", 2, "not a FITS file");
}

TEST_CASE("convert refuses damaged FITS files with exit 2 and no output", "[cli][convert]") {
  TempDir dir;
  const std::string image = image_fits(3000);  // header 0..2880, data 2880..8880
  REQUIRE(image.size() == 4 * 2880);

  SECTION("cut inside the data") {
    write_file(dir / "cut_data.fits", image.substr(0, 5000));
    expect_refused(dir / "cut_data.fits", 2, "of the 6000 bytes the header declares");
    write_file(dir / "cut_after_header.fits", image.substr(0, 2880));
    expect_refused(dir / "cut_after_header.fits", 2, "0 of the 6000 bytes");
  }
  SECTION("cut inside the data of an extension") {
    const Mef mef;
    const std::string bytes = mef.bytes();
    const std::size_t sci_data = mef.primary.size() + 2880;
    write_file(dir / "cut_ext_data.fits", bytes.substr(0, sci_data + 4000));
    expect_refused(dir / "cut_ext_data.fits", 2, "HDU 2");
    const std::size_t err_data = mef.primary.size() + mef.sci.size() + 2880;
    write_file(dir / "cut_last_data.fits", bytes.substr(0, err_data + 100));
    expect_refused(dir / "cut_last_data.fits", 2, "HDU 3");
  }
  SECTION("cut inside the primary header") {
    // END is the fifth card (bytes 320..400): cut before it, and in the blanks after it.
    write_file(dir / "cut_card.fits", image.substr(0, 200));
    expect_refused(dir / "cut_card.fits", 2, "no END card in the 200 bytes of the header of HDU 1");
    write_file(dir / "cut_header.fits", image.substr(0, 1000));
    expect_refused(dir / "cut_header.fits", 2,
                   "the file ends inside the header of HDU 1 (its last block holds 1000");
  }
  SECTION("cut inside an extension's header: no HDU is silently dropped") {
    const Mef mef;
    const std::string bytes = mef.bytes();
    write_file(dir / "cut_ext_header.fits", bytes.substr(0, mef.primary.size() + 1000));
    expect_refused(dir / "cut_ext_header.fits", 2, "the file ends inside the header of HDU 2");
    const std::size_t err_header = mef.primary.size() + mef.sci.size();
    write_file(dir / "cut_last_header.fits", bytes.substr(0, err_header + 400));
    expect_refused(dir / "cut_last_header.fits", 2,
                   "no END card in the 400 bytes of the header of HDU 3");
  }
  SECTION("a structural card astropy cannot parse (any other such card is repaired)") {
    write_file(dir / "two_numbers.fits",
               fits_builder::hdu({card("SIMPLE", "T"), card("BITPIX", "16"), card("NAXIS", "1"),
                                  "NAXIS1  = 4, 5 / two numbers"},
                                 std::string(8, '\0')));
    expect_refused(dir / "two_numbers.fits", 2,
                   "NAXIS1 must be an integer ('NAXIS1  = 4, 5 / two numbers')");
  }
  SECTION("a card astropy cannot parse among the cards that decode the HDU") {
    // (Any other such card is read as astropy's verify('fix') reads it, with a finding:
    // findings_cli_test.cc.)
    write_file(dir / "bscale.fits", image_fits(4, {"BSCALE  = 1.0 2.0"}));
    expect_refused(dir / "bscale.fits", 2, "card 5 ('BSCALE  = 1.0 2.0'): astropy cannot parse");
  }
  SECTION("no END card") {
    std::string header =
        card("SIMPLE", "T") + card("BITPIX", "16") + card("NAXIS", "1") + card("NAXIS1", "4");
    header.resize(2880, ' ');
    write_file(dir / "no_end.fits", header + std::string(2880, '\0'));
    expect_refused(dir / "no_end.fits", 2, "END");
    write_file(dir / "no_end_short.fits", header);
    expect_refused(dir / "no_end_short.fits", 2, "END");
  }
  SECTION("a gzip file cut short") {
    write_file(dir / "image.fits", image);
    const RunResult gz = run({"gzip", "-n", (dir / "image.fits").string()});
    REQUIRE(gz.status == 0);
    const std::string packed = read_file(dir / "image.fits.gz");
    fs::remove(dir / "image.fits.gz");
    write_file(dir / "cut.fits.gz", packed.substr(0, packed.size() / 2));
    expect_refused(dir / "cut.fits.gz", 2, "cut.fits.gz");
    // Cut before a block of the FITS file came out: CFITSIO's own message would be that it
    // could not allocate memory (exit 3, io).
    write_file(dir / "stub.fits.gz", packed.substr(0, 20));
    expect_refused(dir / "stub.fits.gz", 2, "the gzip stream ends after 20 bytes");
    // A whole gzip stream of a FITS file cut inside its last block, after the data: decoded by
    // zlib, it converts as the plain file does, its padding kept as found (padding-cut-short).
    write_file(dir / "short.fits", image.substr(0, 2880 + 6000));
    REQUIRE(run({"gzip", "-n", (dir / "short.fits").string()}).status == 0);
    const RunResult r = run_cli({"convert", (dir / "short.fits.gz").string(), "--json", "-o",
                                 (dir / "short.asdf").string()});
    REQUIRE(r.status == 0);
    CHECK(json::parse(r.out)["findings"][0]["code"] == "padding-cut-short");
  }
}

TEST_CASE("convert reports files it cannot read or write with exit 3 and no output",
          "[cli][convert]") {
  TempDir dir;
  fs::create_directory(dir / "folder.fits");
  expect_refused(dir / "folder.fits", 3, "directory");
  expect_refused(dir / "missing.fits", 3, "No such file");

  write_file(dir / "image.fits", image_fits(10));
  const std::set<std::string> before = listing(dir.path());
  for (const fs::path& output :
       {dir / "no_such_folder" / "out.asdf", dir / "image.fits" / "out.asdf"}) {
    const RunResult r = run_cli({"convert", (dir / "image.fits").string(), "-o", output.string()});
    INFO(output << "\n" << r.err);
    CHECK(r.status == 3);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find(output.parent_path().filename().string()) != std::string::npos);
    CHECK(listing(dir.path()) == before);
  }
  // A folder without write permission, for real (io_fault_error_test.cc injects EACCES in every
  // environment). Root writes anywhere: as root the command runs as nobody (setpriv), and the
  // layer is recorded as skipped where root cannot drop to another user.
  std::string why;
  const auto prefix = as_non_root(why);
  if (!prefix) FITSASDF_SKIP_LAYER(kLayerNonRoot, why);
  if (geteuid() == 0) {  // nobody must reach the input
    fs::permissions(dir.path(),
                    fs::perms::all & ~fs::perms::group_write & ~fs::perms::others_write);
  }
  fs::create_directory(dir / "read_only");
  fs::permissions(dir / "read_only", fs::perms::owner_read | fs::perms::owner_exec |
                                         fs::perms::others_read | fs::perms::others_exec);
  std::vector<std::string> argv = *prefix;
  argv.insert(argv.end(), {cli_path().string(), "convert", (dir / "image.fits").string(), "-o",
                           (dir / "read_only" / "out.asdf").string()});
  const RunResult r = run(argv);
  INFO(r.err);
  CHECK(r.status == 3);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("read_only") != std::string::npos);
  CHECK(r.err.find("Permission denied") != std::string::npos);
  CHECK(listing(dir / "read_only").empty());
  fs::permissions(dir / "read_only", fs::perms::owner_all);
  layer_ran(kLayerNonRoot,
            geteuid() == 0 ? "as nobody through setpriv" : "as uid " + std::to_string(geteuid()));
}

TEST_CASE("convert rejects a wrong command line with exit 4 and no output", "[cli][convert]") {
  TempDir dir;
  write_file(dir / "image.fits", image_fits(10));
  const std::string in = (dir / "image.fits").string();
  const std::set<std::string> before = listing(dir.path());
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--scaling", "linear"}, "'linear'"},
      {{"--fits-tag", "stsci"}, "'stsci'"},
      {{"--compress", "gzip"}, "'gzip'"},
      {{"--checksum", "sha1"}, "'sha1'"},
      {{"--no-checksum", "--checksum", "decoded"}, "contradicts"},
      {{"--standard", "9.9.9"}, "ASDF Standard 9.9.9"},
      {{"--no-such-option"}, "no-such-option"},
      {{"--scaling"}, "scaling"},
      {{"second.fits"}, "too many"},
  };
  for (const auto& [extra, says] : cases) {
    std::vector<std::string> args{"convert", in};
    args.insert(args.end(), extra.begin(), extra.end());
    const RunResult r = run_cli(args);
    INFO(join(args) << "\n" << r.err);
    CHECK(r.status == 4);
    CHECK(r.out.empty());
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find(says) != std::string::npos);
    CHECK(listing(dir.path()) == before);
  }
  const RunResult r = run_cli({"convert"});
  CHECK(r.status == 4);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("input") != std::string::npos);

  // A header the standard fits schema cannot hold, with --fits-tag standard: the message names
  // the file and the card.
  write_file(dir / "hierarch.fits",
             image_fits(4, {"HIERARCH ESO DET CHIP NAME = 'CCD-44' / detector chip"}));
  expect_refused(dir / "hierarch.fits", 4, "ESO DET CHIP NAME", {"--fits-tag", "standard"});
}

TEST_CASE("a failed conversion leaves an existing output as it was", "[cli][convert]") {
  TempDir dir;
  write_file(dir / "cut.fits", image_fits(3000).substr(0, 5000));
  write_file(dir / "cut.asdf", "an earlier result\n");
  const RunResult r = run_cli({"convert", (dir / "cut.fits").string(), "--overwrite"});
  CHECK(r.status == 2);
  CHECK(read_file(dir / "cut.asdf") == "an earlier result\n");
  CHECK(listing(dir.path()) == std::set<std::string>{"cut.fits", "cut.asdf"});
}

TEST_CASE("convert names the output after the input", "[cli][convert]") {
  TempDir dir;
  const std::string image = image_fits(10);
  for (const char* name : {"a.fits", "b.fit", "c.fts", "d.image"}) write_file(dir / name, image);
  write_file(dir / "e.fits", image);
  REQUIRE(run({"gzip", "-n", (dir / "e.fits").string()}).status == 0);
  write_file(dir / "f.fits", image);
  REQUIRE(run({"bzip2", (dir / "f.fits").string()}).status == 0);
  const std::vector<std::pair<std::string, std::string>> names{
      {"a.fits", "a.asdf"},        {"b.fit", "b.asdf"},     {"c.fts", "c.asdf"},
      {"d.image", "d.image.asdf"}, {"e.fits.gz", "e.asdf"}, {"f.fits.bz2", "f.asdf"}};
  for (const auto& [in, out] : names) {
    const RunResult r = run_cli({"convert", (dir / in).string(), "-q", "--no-fsync"});
    INFO(in << ": " << r.err);
    CHECK(r.status == 0);
    CHECK(fs::is_regular_file(dir / out));
  }
  std::set<std::string> want;
  for (const auto& [in, out] : names) {
    want.insert(in);
    want.insert(out);
  }
  CHECK(listing(dir.path()) == want);  // no temporary file left

  // -o wins over the default; an existing output is refused (exit 3, one line naming it and
  // --overwrite, nothing written) unless --overwrite is given, as astropy's writeto does. A
  // symbolic link, even one to nothing, counts as an existing output.
  write_file(dir / "chosen.asdf", "old");
  fs::create_symlink(dir / "nowhere", dir / "dangling.asdf");
  for (const char* existing : {"chosen.asdf", "dangling.asdf", "a.asdf"}) {
    const std::string before = fs::is_symlink(dir / existing) ? "" : read_file(dir / existing);
    RunResult r = run_cli(
        {"convert", (dir / "a.fits").string(), "-o", (dir / existing).string(), "-q"});
    INFO(existing << ": " << r.err);
    CHECK(r.status == 3);
    CHECK(r.out.empty());
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find(existing) != std::string::npos);
    CHECK(r.err.find("--overwrite") != std::string::npos);
    if (before.empty()) {
      CHECK(fs::is_symlink(dir / existing));
    } else {
      CHECK(read_file(dir / existing) == before);
    }
  }
  want.insert("chosen.asdf");
  want.insert("dangling.asdf");
  CHECK(listing(dir.path()) == want);
  // The default output name is refused the same way.
  RunResult r = run_cli({"convert", (dir / "a.fits").string(), "-q"});
  CHECK(r.status == 3);
  CHECK(r.err.find("a.asdf") != std::string::npos);
  r = run_cli({"convert", (dir / "a.fits").string(), "-o", (dir / "chosen.asdf").string(), "-q",
               "--overwrite"});
  CHECK(r.status == 0);
  CHECK(read_file(dir / "chosen.asdf").starts_with("#ASDF 1.0.0\n"));
  r = run_cli({"convert", (dir / "a.fits").string(), "-o", (dir / "dangling.asdf").string(), "-q",
               "--overwrite"});
  CHECK(r.status == 0);
  CHECK(read_file(dir / "dangling.asdf").starts_with("#ASDF 1.0.0\n"));
  CHECK(listing(dir.path()) == want);  // still no temporary file left
  // --help says so.
  CHECK(run_cli({"convert", "--help"}).out.find("--overwrite") != std::string::npos);
}

TEST_CASE("convert prints a summary, a JSON report with --json, and nothing with -q",
          "[cli][convert]") {
  TempDir dir;
  write_file(dir / "mef.fits", Mef().bytes());
  const std::string in = (dir / "mef.fits").string();
  const std::string out = (dir / "mef.asdf").string();

  RunResult r = run_cli({"convert", in, "--no-fsync"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  CHECK(r.out.starts_with(in + " -> " + out + " (3 HDUs, "));
  CHECK(r.out.find("HDU 2 SCI: image") != std::string::npos);

  r = run_cli({"convert", in, "--no-fsync", "--json", "--overwrite"});
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  const auto j = nlohmann::ordered_json::parse(r.out);
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  CHECK(keys ==
        std::vector<std::string>{"input", "output", "fits_tag", "bytes_in", "bytes_out", "hdus",
                                 "findings"});
  CHECK(j["findings"].empty());
  CHECK(j["input"] == in);
  CHECK(j["output"] == out);
  CHECK(j["fits_tag"] == "tag:stsci.edu:asdf/fits/fits-1.0.0");
  CHECK(j["bytes_in"] == fs::file_size(in));
  CHECK(j["bytes_out"] == fs::file_size(out));
  REQUIRE(j["hdus"].size() == 3);
  const std::vector<std::string> names{"PRIMARY", "SCI", "ERR"};
  for (int i = 0; i < 3; ++i) {
    const auto& h = j["hdus"][i];
    std::vector<std::string> hkeys;
    for (const auto& [k, v] : h.items()) hkeys.push_back(k);
    CHECK(hkeys == std::vector<std::string>{"index", "kind", "name", "notes"});
    CHECK(h["index"] == i + 1);
    CHECK(h["kind"] == "image");
    CHECK(h["name"] == names[static_cast<std::size_t>(i)]);
    CHECK(h["notes"].is_array());
  }

  fs::remove(out);
  r = run_cli({"convert", in, "-q", "--no-fsync", "--overwrite"});
  CHECK(r.status == 0);
  CHECK(r.out.empty());
  CHECK(r.err.empty());
  CHECK(fs::is_regular_file(out));
  r = run_cli({"convert", in, "--quiet", "--no-fsync", "--overwrite"});
  CHECK(r.status == 0);
  CHECK(r.out.empty());
  CHECK(r.err.empty());
}

TEST_CASE("a file cut inside its last padding converts, the report says so, and it comes back",
          "[cli][convert]") {
  TempDir dir;
  // 10 pixels = 20 data bytes; the padding to 2880 is missing, or only partly there (a writer
  // that does not pad, or a file cut after its data).
  for (const std::size_t kept : {std::size_t{0}, std::size_t{100}}) {
    const std::string bytes = image_fits(10).substr(0, 2880 + 20 + kept);
    write_file(dir / "short.fits", bytes);
    fs::remove(dir / "short.asdf");
    const RunResult r =
        run_cli({"convert", (dir / "short.fits").string(), "--json", "--no-fsync"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    const json j = json::parse(r.out);
    REQUIRE(j["hdus"].size() == 1);
    REQUIRE(j["findings"].size() == 1);
    CHECK(j["findings"][0]["hdu"] == 0);
    CHECK(j["findings"][0]["code"] == "padding-cut-short");
    CHECK(j["findings"][0]["message"].get<std::string>().find(
              std::to_string(2860 - kept) + " bytes short") != std::string::npos);
    const fs::path back = dir / "back.fits";
    fs::remove(back);
    REQUIRE(run_cli({"convert", (dir / "short.asdf").string(), "-o", back.string(), "-q"})
                .status == 0);
    CHECK(read_file(back) == bytes);
  }
}

TEST_CASE("convert stores block checksums unless told not to", "[cli][convert]") {
  fitsasdf::test::TempDir dir;
  write_file(dir / "img.fits", image_fits(16));
  for (const bool with : {true, false}) {
    const std::string out = (dir / (with ? "sum.asdf" : "nosum.asdf")).string();
    std::vector<std::string> args{"convert", (dir / "img.fits").string(), "-o", out, "-q"};
    if (!with) args.push_back("--no-checksum");
    REQUIRE(run_cli(args).status == 0);
    const RunResult info = run_cli({"info", "--blocks", "--json", out});
    REQUIRE(info.status == 0);
    const auto j = nlohmann::json::parse(info.out);
    REQUIRE(j["blocks"].size() == 1);
    CHECK(j["blocks"][0]["checksum"].is_null() == !with);
    CHECK(j["blocks"][0]["checksum_ok"] == (with ? nlohmann::json(true) : nlohmann::json(nullptr)));
  }
  // --checksum picks the bytes the MD5 covers; they differ for a compressed block only.
  const std::vector<std::pair<std::vector<std::string>, nlohmann::json>> conventions{
      {{}, "stored"},
      {{"--checksum", "stored"}, "stored"},
      {{"--checksum", "decoded"}, "decoded"},
      {{"--checksum", "none"}, nullptr},
      {{"--checksum", "none", "--no-checksum"}, nullptr}};
  for (const auto& [extra, match] : conventions) {
    const std::string out = (dir / "zlib.asdf").string();
    std::vector<std::string> args{
        "convert", (dir / "img.fits").string(), "-o", out, "-q", "--compress", "zlib"};
    args.insert(args.end(), extra.begin(), extra.end());
    INFO(join(args));
    REQUIRE(run_cli(args).status == 0);
    const RunResult info = run_cli({"info", "--blocks", "--json", out});
    REQUIRE(info.status == 0);
    const auto block = nlohmann::json::parse(info.out)["blocks"][0];
    CHECK(block["compression"] == "zlib");
    CHECK(block["checksum_match"] == match);
    CHECK(block["checksum_ok"] ==
          (match.is_null() ? nlohmann::json(nullptr) : nlohmann::json(true)));
    std::filesystem::remove(out);
  }
  // An ASDF input writes FITS: the option does not apply there.
  REQUIRE(
      run_cli({"convert", (dir / "img.fits").string(), "-o", (dir / "back.asdf").string(), "-q"})
          .status == 0);
  const RunResult refused = run_cli({"convert", (dir / "back.asdf").string(), "-o",
                                     (dir / "back.fits").string(), "--checksum", "decoded"});
  CHECK(refused.status == 4);
  CHECK(refused.err.find("--checksum applies to FITS input") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "back.fits"));
}

TEST_CASE("convert and batch check an ASDF input's block checksums unless told not to",
          "[cli][convert][checksum]") {
  // ASDF inputs made by convert: uncompressed (stored MD5), zlib with the stored bytes' MD5 and
  // zlib with the decoded data's (python asdf 2.14's convention); each in a folder of its own,
  // so the default output name is free.
  TempDir dir;
  write_file(dir / "img.fits", image_fits(3000));
  const std::vector<std::pair<std::string, std::vector<std::string>>> kinds{
      {"plain", {}},
      {"zlib_stored", {"--compress", "zlib", "--checksum", "stored"}},
      {"zlib_decoded", {"--compress", "zlib", "--checksum", "decoded"}}};
  for (const auto& [name, extra] : kinds) {
    fs::create_directory(dir / name);
    const fs::path asdf = dir / name / (name + ".asdf");
    std::vector<std::string> args{"convert", (dir / "img.fits").string(), "-o", asdf.string(),
                                  "-q"};
    args.insert(args.end(), extra.begin(), extra.end());
    REQUIRE(run_cli(args).status == 0);
    INFO(name);
    // Intact: converts in either convention, back to the original bytes.
    const fs::path back = dir / (name + ".fits");
    REQUIRE(run_cli({"convert", asdf.string(), "-o", back.string(), "-q"}).status == 0);
    CHECK(read_file(back) == read_file(dir / "img.fits"));

    // A changed checksum field (uncompressed: a changed data byte too).
    const auto container = asdfcore::format::Container::open(asdf.string());
    REQUIRE(container.blocks().size() == 1);
    const auto& block = container.blocks()[0];
    std::string bytes = read_file(asdf);
    const std::string intact = bytes;
    const std::vector<std::uint64_t> places =
        extra.empty() ? std::vector<std::uint64_t>{block.offset + 38, block.data_offset + 100}
                      : std::vector<std::uint64_t>{block.offset + 38};
    for (const std::uint64_t at : places) {
      bytes = intact;
      bytes[at] = static_cast<char>(bytes[at] ^ 0x01);
      write_file(asdf, bytes);
      expect_refused(asdf, 2, "checksum mismatch");
      const RunResult said = run_cli({"convert", asdf.string(), "-o", (dir / "x.fits").string()});
      CHECK(said.err.find("error [checksum]") != std::string::npos);
      CHECK(said.err.find("block 0, byte " + std::to_string(block.offset)) != std::string::npos);
      const fs::path out = dir / name / "unchecked.fits";
      const RunResult r =
          run_cli({"convert", asdf.string(), "-o", out.string(), "-q", "--no-verify-checksums"});
      CHECK(r.status == 0);
      CHECK(fs::exists(out));
      fs::remove(out);

      // batch: the input fails (exit 1), or converts with --no-verify-checksums.
      const fs::path outdir = dir / (name + "_batch");
      const RunResult failed = run_cli({"batch", asdf.string(), "-o", outdir.string(), "-q"});
      CHECK(failed.status == 1);
      CHECK_FALSE(fs::exists(outdir / (name + ".fits")));
      const RunResult unchecked = run_cli(
          {"batch", asdf.string(), "-o", outdir.string(), "-q", "--no-verify-checksums"});
      CHECK(unchecked.status == 0);
      CHECK(fs::exists(outdir / (name + ".fits")));
      fs::remove_all(outdir);
    }
  }
  // A FITS input: the option does not apply.
  const RunResult refused = run_cli({"convert", (dir / "img.fits").string(), "-o",
                                     (dir / "x.asdf").string(), "--no-verify-checksums"});
  CHECK(refused.status == 4);
  CHECK(refused.err.find("--no-verify-checksums applies to ASDF input") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "x.asdf"));
  // The help lists it.
  CHECK(run_cli({"convert", "--help"}).out.find("--no-verify-checksums") != std::string::npos);
}
