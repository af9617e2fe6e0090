// `fitsasdf convert` of ASDF back to FITS, judged by the reference tools: every FITS file of the
// corpus and of tests/data/astropy goes FITS -> ASDF -> FITS through the CLI (with each
// conversion option), then astropy's FITSDiff must find the files identical, fitsverify must
// report nothing the original did not have, and the bytes must be the original's except for a
// known reason (checked for what it is). asdf-astropy's own HDUList files are written back too.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

using nlohmann::json;
namespace fs = std::filesystem;
using namespace fitsasdf::test;

namespace {

/// The FITS files of the corpus and of tests/data/astropy, sorted.
std::vector<fs::path> fits_files() {
  std::vector<fs::path> out;
  for (const fs::path& dir : {corpus_dir() / "fits-astropy", data_dir() / "astropy"}) {
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() == ".fits") out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// fitsverify's findings for `path`: every "*** Warning" and "*** Error" line, counted.
std::multiset<std::string> fitsverify(const fs::path& path) {
  const RunResult r = run({"fitsverify", path.string()});
  std::multiset<std::string> found;
  std::istringstream lines(r.out + "\n" + r.err);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t at = line.find("*** ");
    if (at == std::string::npos) continue;
    line = line.substr(at);
    if (line.starts_with("*** Warning") || line.starts_with("*** Error")) found.insert(line);
  }
  return found;
}

/// The findings of `written` that `original` does not have.
std::vector<std::string> new_findings(const std::multiset<std::string>& original,
                                      const std::multiset<std::string>& written) {
  std::vector<std::string> extra;
  std::set_difference(written.begin(), written.end(), original.begin(), original.end(),
                      std::back_inserter(extra));
  return extra;
}

bool checksum_finding(const std::string& line) {
  return line.find("checksum is not consistent") != std::string::npos ||
         line.find("checksum is not in agreement") != std::string::npos;
}

json compare(const std::vector<std::pair<fs::path, fs::path>>& pairs) {
  std::vector<std::string> argv{reference_python(), (scripts_dir() / "fits_roundtrip.py").string(),
                                "compare"};
  for (const auto& [a, b] : pairs) {
    argv.push_back(a.string());
    argv.push_back(b.string());
  }
  const RunResult r = run(argv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return json::parse(r.out);
}

/// Run `fits_roundtrip.py MODE DIR` (make-astropy, make-images): it writes its files into `dir`.
void make_files(const std::string& mode, const fs::path& dir) {
  const RunResult r =
      run({reference_python(), (scripts_dir() / "fits_roundtrip.py").string(), mode, dir.string()});
  INFO(r.err);
  REQUIRE(r.status == 0);
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// One file's way through FITS -> ASDF -> FITS.
struct RoundTrip {
  fs::path original;
  fs::path asdf;
  fs::path written;
  bool refused = false;  ///< FITS -> ASDF refused it (CFITSIO cannot read it).
};

/// Convert `fits` to ASDF with `options` and back, into `dir`.
RoundTrip round_trip(const fs::path& fits, const fs::path& dir,
                     const std::vector<std::string>& options) {
  RoundTrip t;
  t.original = fits;
  t.asdf = dir / (fits.stem().string() + ".asdf");
  t.written = dir / (fits.stem().string() + ".back.fits");
  // (--overwrite: a case may convert the same input again with other options)
  std::vector<std::string> there{"convert",  fits.string(), "-o",         t.asdf.string(),
                                 "--no-fsync", "-q",        "--overwrite"};
  there.insert(there.end(), options.begin(), options.end());
  const RunResult a = run_cli(there);
  if (a.status == 2 && a.err.find("CFITSIO cannot open the file") != std::string::npos) {
    t.refused = true;
    return t;
  }
  INFO(fits << ": " << a.err);
  REQUIRE(a.status == 0);
  const RunResult b =
      run_cli({"convert", t.asdf.string(), "-o", t.written.string(), "--no-fsync", "-q",
               "--overwrite"});
  INFO(t.asdf << ": " << b.err);
  REQUIRE(b.status == 0);
  CHECK(b.err.empty());
  return t;
}

/// Check every round trip against the reference tools; return how many are byte-identical.
std::size_t check_round_trips(const std::vector<RoundTrip>& trips, std::string& summary) {
  std::vector<std::pair<fs::path, fs::path>> pairs;
  for (const auto& t : trips) {
    if (!t.refused) pairs.emplace_back(t.original, t.written);
  }
  const json result = compare(pairs);
  std::size_t identical = 0;
  for (const auto& t : trips) {
    const std::string name = t.original.filename().string();
    if (t.refused) {
      // verify.fits breaks the standard so that CFITSIO cannot open it (NAXIS before BITPIX):
      // FITS -> ASDF refuses it, so there is nothing to write back.
      CHECK(name == "verify.fits");
      summary += name + ": refused by CFITSIO on the way to ASDF\n";
      continue;
    }
    const json& rec = result[t.written.string()];
    INFO(name << ": " << rec.dump().substr(0, 3000));
    REQUIRE_FALSE(rec.contains("error"));
    CHECK(rec["identical_but_checksums"].get<bool>());
    const auto before = fitsverify(t.original);
    const auto after = fitsverify(t.written);
    const std::vector<std::string> extra = new_findings(before, after);
    for (const auto& line : extra) INFO("new fitsverify finding: " << line);
    CHECK(extra.empty());
    if (rec["byte_identical"].get<bool>()) {
      CHECK(rec["identical"].get<bool>());
      ++identical;
      summary += name + ": byte-identical\n";
      continue;
    }
    // The one known reason: the original's CHECKSUM/DATASUM do not match its bytes (stale
    // cards); fitsasdf writes them afresh. Only those cards differ, fitsverify flagged them in
    // the original and flags nothing in the copy.
    const bool stale = std::any_of(before.begin(), before.end(), checksum_finding);
    CHECK(stale);
    CHECK(std::none_of(after.begin(), after.end(), checksum_finding));
    for (const auto& where : rec["differing"]) {
      const std::string w = where.get<std::string>();
      INFO(w);
      CHECK((w.ends_with(" card CHECKSUM") || w.ends_with(" card DATASUM")));
    }
    summary += name + ": same but for CHECKSUM/DATASUM (the original's are stale)\n";
  }
  return identical;
}

}  // namespace

TEST_CASE("every corpus FITS file goes FITS -> ASDF -> FITS identical", "[interop][to_fits]") {
  TempDir dir;
  std::vector<RoundTrip> trips;
  for (const auto& fits : fits_files()) trips.push_back(round_trip(fits, dir.path(), {}));
  REQUIRE(trips.size() >= 27);
  std::string summary;
  const std::size_t identical = check_round_trips(trips, summary);
  WARN("FITS -> ASDF -> FITS: " << identical << " of " << trips.size() << " files byte-identical\n"
                                << summary);
  CHECK(identical >= 24);
}

TEST_CASE("FITS -> ASDF -> FITS with each conversion option", "[interop][to_fits]") {
  for (const std::vector<std::string>& options : {std::vector<std::string>{"--scaling", "physical"},
                                                  {"--native-byteorder"},
                                                  {"--compress", "zlib"},
                                                  {"--fits-tag", "astropy"},
                                                  {"--no-native-view"},
                                                  {"--standard", "1.6.0"}}) {
    std::string text;
    for (const auto& o : options) text += o + " ";
    INFO(text);
    TempDir dir;
    std::vector<RoundTrip> trips;
    for (const auto& fits : fits_files()) trips.push_back(round_trip(fits, dir.path(), options));
    std::string summary;
    const std::size_t identical = check_round_trips(trips, summary);
    CHECK(identical >= 24);
  }
}

TEST_CASE("asdf-astropy's HDUList with a table is written back to the FITS it came from",
          "[interop][to_fits]") {
  TempDir dir;
  make_files("make-astropy", dir.path());
  const fs::path source = dir / "source.fits";
  const fs::path asdf = dir / "hdul.asdf";
  const fs::path written = dir / "written.fits";
  const RunResult r = run_cli({"convert", asdf.string(), "-o", written.string(), "--json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json report = json::parse(r.out);
  CHECK(report["fits_tag"] == "tag:astropy.org:astropy/fits/fits-1.0.0");
  REQUIRE(report["hdus"].size() == 4);
  CHECK(report["hdus"][3]["kind"] == "binary table (from table columns)");
  const json result = compare({{source, written}});
  const json& rec = result[written.string()];
  INFO(rec.dump());
  CHECK(rec["identical"].get<bool>());
  CHECK(fitsverify(written).empty());
}

TEST_CASE("convert chooses the direction from the content and checks its options",
          "[interop][to_fits]") {
  TempDir dir;
  const fs::path fits = data_dir() / "astropy" / "checksum.fits";
  const fs::path asdf = dir / "sums.asdf";
  REQUIRE(run_cli({"convert", fits.string(), "-o", asdf.string(), "-q"}).status == 0);

  // An ASDF file named .fits is still ASDF.
  const fs::path disguised = dir / "disguised.fits";
  fs::copy_file(asdf, disguised);
  RunResult r = run_cli({"convert", disguised.string(), "-o", (dir / "a.fits").string(), "-q"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(read_file(dir / "a.fits") == read_file(fits));

  // The default output is IN with .fits; an existing one is kept unless --overwrite is given.
  r = run_cli({"convert", asdf.string(), "-q"});
  CHECK(r.status == 0);
  CHECK(read_file(dir / "sums.fits") == read_file(fits));
  std::ofstream(dir / "sums.fits", std::ios::binary) << "the FITS file this came from\n";
  r = run_cli({"convert", asdf.string()});
  CHECK(r.status == 3);
  CHECK(r.err.find("exists") != std::string::npos);
  CHECK(r.err.find("--overwrite") != std::string::npos);
  CHECK(read_file(dir / "sums.fits") == "the FITS file this came from\n");
  r = run_cli({"convert", asdf.string(), "-q", "--overwrite"});
  CHECK(r.status == 0);
  CHECK(read_file(dir / "sums.fits") == read_file(fits));

  // Options of the FITS -> ASDF direction are refused for ASDF input, and the reverse.
  for (const std::vector<std::string>& extra : {std::vector<std::string>{"--scaling", "physical"},
                                                {"--native-byteorder"},
                                                {"--compress", "zlib"},
                                                {"--fits-tag", "astropy"},
                                                {"--no-checksum"}}) {
    std::vector<std::string> args{"convert", asdf.string(), "-o", (dir / "b.fits").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    r = run_cli(args);
    INFO(extra[0] << ": " << r.err);
    CHECK(r.status == 4);
    CHECK(r.err.find(extra[0]) != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "b.fits"));
  }
  r = run_cli({"convert", fits.string(), "-o", (dir / "c.asdf").string(), "--add-checksums"});
  CHECK(r.status == 4);
  CHECK(r.err.find("--add-checksums") != std::string::npos);

  // --add-checksums: every HDU gets valid CHECKSUM/DATASUM cards.
  const fs::path plain = corpus_dir() / "fits-astropy" / "test0.fits";
  const fs::path plain_asdf = dir / "test0.asdf";
  REQUIRE(run_cli({"convert", plain.string(), "-o", plain_asdf.string(), "-q"}).status == 0);
  const fs::path summed = dir / "summed.fits";
  r = run_cli({"convert", plain_asdf.string(), "-o", summed.string(), "--add-checksums", "-q"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const RunResult verified = run({"fitsverify", summed.string()});
  CHECK(verified.out.find("0 warning(s) and 0 error(s)") != std::string::npos);
  const std::string bytes = read_file(summed);
  std::size_t checksums = 0;
  for (std::size_t at = 0; (at = bytes.find("CHECKSUM= '", at)) != std::string::npos; ++at) {
    ++checksums;
  }
  CHECK(checksums == 5);  // one per HDU

  // An ASDF file without a fits list is written the ASDF-in-FITS way (images, cards and an ASDF
  // extension; tests/interop/asdf_in_fits_test.cc checks it with python asdf).
  const fs::path tree = dir / "tree.asdf";
  fs::copy_file(samples_dir() / "compressed.asdf", tree);
  r = run_cli({"convert", tree.string(), "-o", (dir / "tree.fits").string()});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(fs::exists(dir / "tree.fits"));
}

TEST_CASE("tile-compressed images and tables made by fpack are compressed again",
          "[interop][to_fits]") {
  TempDir dir;
  make_files("make-images", dir.path());
  struct Case {
    std::string image;
    std::vector<std::string> fpack;
    bool lossless;  ///< The compressed bytes come back (else only the values).
  };
  std::vector<Case> cases;
  for (const char* image : {"int16", "int32", "uint8", "uint16"}) {
    for (const std::vector<std::string>& options :
         {std::vector<std::string>{"-r"}, {"-g"}, {"-g2"}, {"-h"}, {"-r", "-t", "10,20"}}) {
      cases.push_back({image, options, true});
    }
  }
  cases.push_back({"int16", {"-p"}, true});
  cases.push_back({"int16", {"-h", "-s", "2"}, false});   // lossy HCOMPRESS
  cases.push_back({"int16", {"-h", "-s", "-3"}, false});  // lossy, an absolute scale
  cases.push_back({"float32", {"-q", "0", "-g"}, true});  // floats without quantization
  cases.push_back({"float32", {"-r"}, false});            // quantized floats
  cases.push_back({"float32", {"-g2", "-q", "16"}, false});
  cases.push_back({"table", {"-table"}, true});

  std::vector<std::pair<fs::path, fs::path>> pairs;
  std::vector<const Case*> order;
  int n = 0;
  for (const Case& c : cases) {
    std::string text = c.image;
    for (const auto& o : c.fpack) text += " " + o;
    INFO(text);
    const fs::path packed = dir / ("case" + std::to_string(++n) + ".fits.fz");
    std::vector<std::string> args{"fpack"};
    args.insert(args.end(), c.fpack.begin(), c.fpack.end());
    args.insert(args.end(), {"-O", packed.string(), (dir / (c.image + ".fits")).string()});
    const RunResult pack = run(args);
    INFO(pack.err);
    REQUIRE(pack.status == 0);
    const RoundTrip t = round_trip(packed, dir.path(), {});
    REQUIRE_FALSE(t.refused);
    pairs.emplace_back(packed, t.written);
    order.push_back(&c);
    CHECK(new_findings(fitsverify(packed), fitsverify(t.written)).empty());
  }
  const json result = compare(pairs);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const json& rec = result[pairs[i].second.string()];
    std::string text = order[i]->image;
    for (const auto& o : order[i]->fpack) text += " " + o;
    INFO(text << ": " << rec.dump().substr(0, 2000));
    REQUIRE_FALSE(rec.contains("error"));
    if (order[i]->lossless) {
      CHECK(rec["byte_identical"].get<bool>());
    } else {
      // The values are the same; the compressed bytes (so the compressed HDU's checksums) not.
      CHECK(rec["identical_but_checksums"].get<bool>());
      CHECK_FALSE(rec["byte_identical"].get<bool>());
    }
  }
}

TEST_CASE("a binary table with every in-place change comes back byte for byte",
          "[interop][to_fits]") {
  TempDir dir;
  make_files("make-images", dir.path());
  // Unsigned columns of 8 to 64 bits, logicals with a NUL and a '?', a heap.
  const fs::path edge = dir / "edge_table.fits";
  for (const std::vector<std::string>& options :
       {std::vector<std::string>{}, {"--fits-tag", "astropy"}, {"--compress", "lz4"}}) {
    const RoundTrip t = round_trip(edge, dir.path(), options);
    REQUIRE_FALSE(t.refused);
    CHECK(read_file(t.written) == read_file(edge));
    CHECK(new_findings(fitsverify(edge), fitsverify(t.written)).empty());
  }
}
