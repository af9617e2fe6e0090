// `fitsasdf convert` options, checked through the reference tools: FITS in gzip, bzip2 and
// compress containers, the native view (units as astropy reads BUNIT, root `data`, shared
// blocks), --scaling physical, --native-byteorder, --compress, --fits-tag, and the corpus's
// tile-compressed image. Python runs at most once per test case, over all of its files.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "support/catch.h"
#include "support/fits_builder.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"

using nlohmann::json;
namespace fs = std::filesystem;
using namespace fitsasdf::test;
using fitsasdf::test::fits_builder::big_endian;
using fitsasdf::test::fits_builder::card;
using fitsasdf::test::fits_builder::hdu;

namespace {

constexpr char kStandardTag[] = "tag:stsci.edu:asdf/fits/fits-1.0.0";
constexpr char kAstropyTag[] = "tag:astropy.org:astropy/fits/fits-1.0.0";

/// The FITS cases of make_fits_cases.py, written once per test run.
const std::vector<fs::path>& generated() {
  static TempDir dir;
  static const std::vector<fs::path> files = [] {
    const RunResult r = run(
        {reference_python(), (scripts_dir() / "make_fits_cases.py").string(), dir.path().string()});
    INFO(r.err);
    REQUIRE(r.status == 0);
    std::vector<fs::path> out;
    std::istringstream names(r.out);
    for (std::string name; std::getline(names, name);) out.push_back(dir / name);
    REQUIRE(out.size() >= 40);
    return out;
  }();
  return files;
}

fs::path case_file(const std::string& name) {
  for (const auto& f : generated()) {
    if (f.filename() == name) return f;
  }
  FAIL("make_fits_cases.py wrote no " << name);
  return {};
}


/// `n` big-endian integers of `bytes` bytes each, spread over the whole range of the type
/// (a fixed pseudo-random sequence), with element 3 set to `blank` when given.
std::string big_endian_ints(int bytes, int n, std::optional<long long> blank = {}) {
  std::string out;
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::uint64_t v = x;
    if (blank && i == 3) v = static_cast<std::uint64_t>(*blank);
    out += big_endian(v, bytes);
  }
  return out;
}

/// A primary image with BITPIX `bitpix`, one axis of `n` and `extra` cards: finite floats for
/// BITPIX -32, else pseudo-random integers (element 3 = `blank` when given).
std::string image(int bitpix, int n, const std::vector<std::string>& extra,
                  std::optional<long long> blank = {}) {
  std::vector<std::string> cards{card("SIMPLE", "T"), card("BITPIX", std::to_string(bitpix)),
                                 card("NAXIS", "1"), card("NAXIS1", std::to_string(n))};
  cards.insert(cards.end(), extra.begin(), extra.end());
  std::string data;
  if (bitpix == -32) {  // finite floats: bytes of small integers' float images
    for (int i = 0; i < n; ++i) {
      data += big_endian(static_cast<float>(i * 37 % 1001) / 7.0f - 50.0f);
    }
  } else {
    data = big_endian_ints(std::abs(bitpix) / 8, n, blank);
  }
  return hdu(cards, data);
}

/// An IMAGE extension named `name`: 2 x 3 float64 values and `extra` cards.
std::string image_extension(const std::string& name, const std::vector<std::string>& extra) {
  std::vector<std::string> cards{card("XTENSION", "'IMAGE   '"),
                                 card("BITPIX", "-64"),
                                 card("NAXIS", "2"),
                                 card("NAXIS1", "3"),
                                 card("NAXIS2", "2"),
                                 card("PCOUNT", "0"),
                                 card("GCOUNT", "1"),
                                 card("EXTNAME", "'" + name + "'")};
  cards.insert(cards.end(), extra.begin(), extra.end());
  std::string data;
  for (int i = 0; i < 6; ++i) {
    data += big_endian(1.5 * i - 2.0);
  }
  return hdu(cards, data);
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  REQUIRE(out.good());
}

/// Convert `fits` to `asdf` with `options`; return the --json report.
json convert(const fs::path& fits, const fs::path& asdf, std::vector<std::string> options = {}) {
  std::vector<std::string> args{"convert",     fits.string(), "-o",
                                asdf.string(), "--no-fsync",  "--json"};
  args.insert(args.end(), options.begin(), options.end());
  const RunResult r = run_cli(args);
  INFO(join(args) << "\n" << r.err);
  REQUIRE(r.status == 0);
  return json::parse(r.out);
}

/// `fitsasdf info --blocks --json` of `asdf`.
json info(const fs::path& asdf) {
  const RunResult r = run_cli({"info", "--blocks", "--json", asdf.string()});
  INFO(asdf << ": " << r.err);
  REQUIRE(r.status == 0);
  return json::parse(r.out);
}

/// {path: md5} of every array `info` lists.
std::map<std::string, std::string> array_md5s(const json& info) {
  std::map<std::string, std::string> out;
  for (const auto& a : info["arrays"]) out[a["path"]] = a.value("md5", "error");
  return out;
}

/// {path: source} of every array `info` lists.
std::map<std::string, std::int64_t> array_sources(const json& info) {
  std::map<std::string, std::int64_t> out;
  for (const auto& a : info["arrays"]) {
    if (a.contains("source") && a["source"].is_number_integer()) out[a["path"]] = a["source"];
  }
  return out;
}

/// Run compare_fits_asdf.py over every (FITS, ASDF) pair with `flags` (once) and return its
/// JSON, keyed by the ASDF path.
json compare(const std::vector<std::pair<fs::path, fs::path>>& pairs,
             const std::vector<std::string>& flags = {}) {
  std::vector<std::string> argv{reference_python(),
                                (scripts_dir() / "compare_fits_asdf.py").string()};
  argv.insert(argv.end(), flags.begin(), flags.end());
  for (const auto& [fits, asdf] : pairs) {
    argv.push_back(fits.string());
    argv.push_back(asdf.string());
  }
  const RunResult r = run(argv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return json::parse(r.out);
}

/// The warnings the reference tools give on their own (see fits_to_asdf_test.cc): python asdf
/// on BZERO = 2**63 and astropy on VOUnit units it deprecates.
bool tool_warning(const std::string& text) {
  return text.starts_with("AsdfWarning: Invalid integer literal value 9223372036854775808 ") ||
         (text.starts_with("UnitsWarning: The unit '") &&
          text.find("' has been deprecated in the VOUnit standard") != std::string::npos);
}

/// The record opened without an error, with only the tools' own warnings, every card and every
/// HDU's data equal to astropy's.
void check_read_equal(const json& rec) {
  INFO(rec.dump().substr(0, 2000));
  REQUIRE(rec.value("ok", false));
  for (const auto& w : rec["warnings"]) {
    INFO("warning: " << w.get<std::string>());
    CHECK(tool_warning(w.get<std::string>()));
  }
  CHECK(rec["n_hdus_equal"].get<bool>());
  for (const auto& h : rec["hdus"]) {
    CHECK(h["cards_equal"].get<bool>());
    CHECK(h["hdul_cards_equal"].get<bool>());
    CHECK(h["data_equal"].get<bool>());
  }
}

std::string asdf_name(const fs::path& fits, const std::string& suffix) {
  std::string name = fits.filename().string();
  for (char& c : name) {
    if (c == '.') c = '_';
  }
  return name + suffix + ".asdf";
}

}  // namespace

TEST_CASE("FITS in gzip, bzip2 and compress containers converts to the same arrays",
          "[interop][fits]") {
  TempDir dir;
  REQUIRE(run({"sh", "-c", "command -v compress"}).status == 0);  // ncompress (install-deps.sh)
  int compared = 0;
  for (const auto& fits : generated()) {
    const std::string stem = fits.filename().string();
    const fs::path plain_asdf = dir / asdf_name(fits, "");
    convert(fits, plain_asdf);
    const auto want = array_md5s(info(plain_asdf));
    const std::vector<std::pair<std::string, std::vector<std::string>>> containers{
        {".gz", {"gzip", "-n", "-c"}}, {".bz2", {"bzip2", "-c"}}, {".Z", {"compress", "-c"}}};
    for (const auto& [suffix, tool] : containers) {
      const fs::path packed = dir / (stem + suffix);
      std::string command;
      for (const auto& t : tool) command += t + " ";
      command += "'" + fits.string() + "' > '" + packed.string() + "'";
      const RunResult z = run({"sh", "-c", command});
      INFO(command << ": " << z.err);
      REQUIRE(z.status == 0);
      const fs::path out = dir / asdf_name(packed, "");
      const json report = convert(packed, out);
      CHECK(report["output"] == out.string());
      INFO(packed);
      CHECK(array_md5s(info(out)) == want);
      ++compared;
    }
  }
  CHECK(compared == 3 * static_cast<int>(generated().size()));
}

TEST_CASE("the native view: units as astropy reads BUNIT, root data, blocks shared",
          "[interop][fits]") {
  TempDir dir;
  std::vector<fs::path> inputs = generated();
  // BUNIT values astropy parses (some deprecated in VOUnit, one with a scale factor) and some it
  // does not.
  const std::vector<std::string> units{"Jy/beam",
                                       "km/s",
                                       "erg/s/cm2/Angstrom",
                                       "count",
                                       "10**(-17) erg/(s cm2 Angstrom)",
                                       "MJy/sr",
                                       "K",
                                       "deg",
                                       "solMass",
                                       "adu",
                                       "DN/s",
                                       "erg cm-2 s-1 A-1",
                                       "counts/pixel",
                                       "not a unit"};
  for (std::size_t i = 0; i < units.size(); ++i) {
    const fs::path f = dir / ("bunit_" + std::to_string(i) + ".fits");
    write_file(f, image(-32, 5, {card("BUNIT", "'" + units[i] + "'")}));
    inputs.push_back(f);
  }
  // Multi-extension files whose first HDU with data is the second (python reads it) and the
  // third, after an empty extension (asdf-astropy cannot build that HDUList: checked by info).
  const std::string empty_primary = fits_builder::empty_primary();
  const std::string sci_var = image_extension("SCI", {card("BUNIT", "'ct/s'")}) +
                              image_extension("VAR", {card("BUNIT", "'ct2/s2'")});
  const fs::path mef = dir / "mef_sci_var.fits";
  write_file(mef, empty_primary + sci_var);
  inputs.push_back(mef);
  const fs::path hollow = dir / "mef_hollow.fits";
  write_file(hollow, empty_primary +
                         hdu({card("XTENSION", "'IMAGE   '"), card("BITPIX", "16"),
                              card("NAXIS", "1"), card("NAXIS1", "0"), card("PCOUNT", "0"),
                              card("GCOUNT", "1"), card("EXTNAME", "'HOLLOW'")},
                             "") +
                         sci_var);
  inputs.push_back(hollow);

  std::vector<std::pair<fs::path, fs::path>> pairs;
  std::map<fs::path, json> reports;
  for (const auto& fits : inputs) {
    const fs::path asdf = dir / asdf_name(fits, "");
    reports[asdf] = convert(fits, asdf);
    pairs.emplace_back(fits, asdf);
  }
  const json result = compare(pairs, {"--details"});
  int quantities = 0;
  int unparsed = 0;
  for (const auto& [fits, asdf] : pairs) {
    const json& rec = result[asdf.string()];
    const json& report = reports[asdf];
    INFO(fits << "\nreport: " << report.dump() << "\npython: " << rec.dump().substr(0, 3000));
    check_read_equal(rec);
    const json in = info(asdf);
    const auto sources = array_sources(in);
    // (c) one block per HDU with data, and every native array on its HDU's block.
    int with_data = 0;
    int empty_blocks = 0;
    std::optional<std::string> first_with_data;
    for (std::size_t i = 0; i < rec["hdus"].size(); ++i) {
      const json& h = rec["hdus"][i];
      const std::string key = report["hdus"][i]["name"];
      const std::string item = "/fits/" + std::to_string(i) + "/data";
      INFO("HDU " << i + 1 << " (" << key << "): " << h.dump());
      if (!h["has_data"].get<bool>()) {
        // No data in astropy's reading: a primary has `data: null`, an extension a zero-size
        // array on its own empty block (asdf-astropy cannot build an HDU from null); no native.
        CHECK(sources.contains(item) == (i > 0));
        if (i > 0) ++empty_blocks;
        CHECK_FALSE(rec["native"].contains(key));
        continue;
      }
      ++with_data;
      // Root `data` is the first HDU whose data has elements (the md5 of no bytes: none).
      if (!first_with_data && rec["native"][key]["md5"] != "d41d8cd98f00b204e9800998ecf8427e") {
        first_with_data = key;
      }
      REQUIRE(sources.contains(item));
      REQUIRE(rec["native"].contains(key));
      const json& native = rec["native"][key];
      const std::string native_path = "/" + key + (native["quantity"].get<bool>() ? "/value" : "");
      REQUIRE(sources.contains(native_path));
      CHECK(sources.at(native_path) == sources.at(item));
      // (b) a quantity exactly when astropy parses BUNIT, with astropy's VOUnit.
      std::vector<std::string> notes = report["hdus"][i]["notes"];
      const bool unit_note = std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
        return n.find("is not a FITS unit astropy parses") != std::string::npos;
      });
      if (h["vounit"].is_string()) {
        CHECK(native["quantity"].get<bool>());
        CHECK(native["unit"] == h["vounit"]);
        CHECK_FALSE(unit_note);
        ++quantities;
      } else {
        CHECK_FALSE(native["quantity"].get<bool>());
        CHECK(native["unit"].is_null());
        CHECK(unit_note == h["bunit"].is_string());
        if (h["bunit"].is_string()) ++unparsed;
      }
    }
    CHECK(in["blocks"].size() == static_cast<std::size_t>(with_data + empty_blocks));
    std::set<std::int64_t> distinct;
    for (const auto& [path, source] : sources) distinct.insert(source);
    CHECK(distinct.size() == static_cast<std::size_t>(with_data + empty_blocks));
    // Root `data` is the first HDU with data (same block, same values).
    if (first_with_data) {
      REQUIRE(rec["native"].contains("data"));
      CHECK(rec["native"]["data"] == rec["native"][*first_with_data]);
      const std::string root =
          rec["native"]["data"]["quantity"].get<bool>() ? "/data/value" : "/data";
      REQUIRE(sources.contains(root));
      CHECK(sources.at(root) ==
            sources.at("/" + *first_with_data +
                       (rec["native"][*first_with_data]["quantity"].get<bool>() ? "/value" : "")));
    } else {
      CHECK_FALSE(rec["native"].contains("data"));
    }
  }
  CHECK(quantities >= 12);
  CHECK(unparsed >= 3);
  const json rec = result[(dir / asdf_name(mef, "")).string()];
  CHECK(rec["native"]["SCI"]["unit"] == rec["hdus"][1]["vounit"]);
  CHECK(rec["native"]["data"]["unit"] == rec["hdus"][1]["vounit"]);
  // Root data and the blocks, through info.
  const json in_hollow = info(dir / asdf_name(hollow, ""));
  const auto hollow_sources = array_sources(in_hollow);
  // HOLLOW's zero-size array (NAXIS1 = 0: astropy reads an int16 array of shape (0,)) has its
  // own empty block and native view; root `data` is the first HDU with elements, SCI.
  CHECK(in_hollow["blocks"].size() == 3);
  CHECK(hollow_sources.size() == 7);  // fits items 2, 3, 4, HOLLOW, SCI, VAR, data (quantities)
  CHECK(hollow_sources.at("/HOLLOW") == hollow_sources.at("/fits/1/data"));
  CHECK(hollow_sources.at("/data/value") == hollow_sources.at("/fits/2/data"));
  CHECK(hollow_sources.at("/SCI/value") == hollow_sources.at("/fits/2/data"));
  CHECK(hollow_sources.at("/VAR/value") == hollow_sources.at("/fits/3/data"));
  CHECK(in_hollow["tags"]["/data"] == "tag:stsci.edu:asdf/unit/quantity-1.1.0");
  const json in_empty = info(dir / asdf_name(case_file("mef_empty_ext.fits"), ""));
  const auto empty_sources = array_sources(in_empty);
  // The extension without data is a zero-size array of its own (empty) block, with no native
  // entry.
  CHECK(in_empty["blocks"].size() == 2);
  CHECK(empty_sources.at("/data") == empty_sources.at("/fits/0/data"));
  CHECK(empty_sources.contains("/fits/1/data"));
  CHECK(empty_sources.at("/fits/1/data") != empty_sources.at("/fits/0/data"));

  // --no-native-view: only the fits items, the same blocks.
  const fs::path bare = dir / "mef_bare.asdf";
  convert(mef, bare, {"--no-native-view"});
  const json in = info(bare);
  CHECK(in["blocks"].size() == 2);
  for (const auto& [path, source] : array_sources(in)) CHECK(path.starts_with("/fits/"));
}

TEST_CASE("scaling physical writes astropy's scaled data", "[interop][fits]") {
  TempDir dir;
  std::vector<fs::path> inputs;
  const auto add = [&](const std::string& name, const std::string& bytes) {
    inputs.push_back(dir / name);
    write_file(inputs.back(), bytes);
  };
  // Every integer BITPIX with scales that are not exact in binary, BLANK with and without
  // scaling, floats with a scale, and the unsigned-offset cases (which stay integers).
  for (const int bitpix : {8, 16, 32, 64}) {
    const std::string b = std::to_string(bitpix);
    add("scaled_" + b + ".fits",
        image(bitpix, 257, {card("BSCALE", "0.1"), card("BZERO", "3.3"), card("BLANK", "1")}, 1));
    add("zero_only_" + b + ".fits", image(bitpix, 100, {card("BZERO", "-7.25")}));
    const long long blank = bitpix == 8 ? 253 : -3;  // BITPIX 8 is unsigned
    add("blank_only_" + b + ".fits",
        image(bitpix, 50, {card("BLANK", std::to_string(blank))}, blank));
  }
  add("scaled_float.fits", image(-32, 200, {card("BSCALE", "1.7"), card("BZERO", "0.3")}));
  for (const char* name : {"scaled_blank_i2.fits", "blank_i4.fits", "unsigned_u2.fits",
                           "unsigned_u4.fits", "unsigned_u8.fits", "signed_int8.fits",
                           "bitpix16_naxis2.fits", "bitpix-64_naxis3.fits", "mef_units.fits"}) {
    inputs.push_back(case_file(name));
  }
  std::vector<std::pair<fs::path, fs::path>> pairs;
  for (const auto& fits : inputs) {
    const fs::path asdf = dir / asdf_name(fits, "_physical");
    convert(fits, asdf, {"--scaling", "physical"});
    pairs.emplace_back(fits, asdf);
  }
  const json result = compare(pairs, {"--physical", "--details"});
  for (const auto& [fits, asdf] : pairs) {
    const json& rec = result[asdf.string()];
    INFO(fits);
    check_read_equal(rec);
    for (const auto& h : rec["hdus"]) {  // kind and size; byte orders may differ
      if (h["has_data"].get<bool>()) {
        CHECK(h["dtype"].get<std::string>().substr(1) ==
              h["astropy_dtype"].get<std::string>().substr(1));
      }
    }
  }
  // The dtypes astropy gives, spelled out.
  const auto dtype = [&](const std::string& name) {
    return result[(dir / asdf_name(dir / name, "_physical")).string()]["hdus"][0]["dtype"];
  };
  CHECK(dtype("scaled_8.fits").get<std::string>().ends_with("f4"));
  CHECK(dtype("scaled_16.fits").get<std::string>().ends_with("f4"));
  CHECK(dtype("scaled_32.fits").get<std::string>().ends_with("f8"));
  CHECK(dtype("scaled_64.fits").get<std::string>().ends_with("f8"));
  CHECK(dtype("blank_only_16.fits").get<std::string>().ends_with("f4"));
  CHECK(dtype("blank_only_32.fits").get<std::string>().ends_with("f8"));
  CHECK(dtype("scaled_float.fits").get<std::string>().ends_with("f4"));
  CHECK(dtype("zero_only_8.fits").get<std::string>().ends_with("f4"));
}

TEST_CASE("native byte order and compression write arrays that read back equal",
          "[interop][fits]") {
  TempDir dir;
  std::vector<std::pair<fs::path, fs::path>> pairs;
  const std::vector<std::pair<std::string, std::vector<std::string>>> variants{
      {"_native", {"--native-byteorder"}},
      {"_zlib", {"--compress", "zlib"}},
      {"_bzp2", {"--compress", "bzp2"}},
      {"_lz4", {"--compress", "lz4", "--native-byteorder"}}};
  for (const auto& fits : generated()) {
    // A sample: every BITPIX in 2-D and every special case (the other shapes take the same
    // paths through the byte swap and the codecs).
    const std::string name = fits.filename().string();
    if (name.starts_with("bitpix") && !name.ends_with("naxis2.fits")) continue;
    const fs::path plain = dir / asdf_name(fits, "");
    convert(fits, plain);
    const json plain_info = info(plain);
    for (const auto& [suffix, options] : variants) {
      const fs::path asdf = dir / asdf_name(fits, suffix);
      convert(fits, asdf, options);
      const json in = info(asdf);
      INFO(asdf);
      CHECK(array_md5s(in) == array_md5s(plain_info));  // md5s of little-endian values
      CHECK(in["blocks"].size() == plain_info["blocks"].size());
      const bool native = suffix == "_native" || suffix == "_lz4";
      for (const auto& a : in["arrays"]) {
        INFO(a.dump());
        if (native && a["datatype"] != "uint8" && a["datatype"] != "int8") {
          CHECK(a["byteorder"] == "little");
        }
      }
      for (const auto& b : in["blocks"]) {
        INFO(b.dump());
        CHECK(b["checksum_ok"] == true);
        if (suffix != "_native") CHECK(b["compression"] == suffix.substr(1));
        if (suffix == "_native") CHECK(b["compression"].is_null());
      }
      // Python reads every --native-byteorder output, and the codecs' outputs of a few files
      // (the md5s above cover the rest).
      static const std::set<std::string> kCodecSample{"bitpix-64_naxis2.fits", "unsigned_u8.fits",
                                                      "nan_payloads.fits", "mef_units.fits",
                                                      "scaled_blank_i2.fits"};
      if (suffix == "_native" || kCodecSample.contains(name)) {
        pairs.emplace_back(fits, asdf);
      }
    }
  }
  REQUIRE(pairs.size() >= 15 + 3 * 5);
  const json result = compare(pairs);
  for (const auto& [fits, asdf] : pairs) {
    INFO(asdf);
    check_read_equal(result[asdf.string()]);
  }
}

TEST_CASE("fits tag: auto picks the standard tag when the header fits it, else astropy's",
          "[interop][fits]") {
  TempDir dir;
  const std::vector<std::string> plain_cards{
      card("DATE-OBS", "'2024-01-02T03:04:05'", "observation start"),
      card("EXPTIME", "30.0"),
      card("OBS_ID", "'ab-12'"),
      card("FLAG", "F"),
      "COMMENT a comment",
      "HISTORY step one",
      ""};
  const fs::path plain = dir / "plain.fits";
  write_file(plain, image(16, 6, plain_cards));
  std::vector<std::pair<std::string, std::string>> odd{
      {"hierarch", "HIERARCH ESO DET CHIP NAME = 'CCD-44' / detector chip"},
      {"long_string",
       "LONGSTR = 'This string is longer than the sixty-eight characters of one card&'"},
      {"undefined", "UNDEF   =                      / no value"},
      {"long_comment",  // free format: the comment starts at column 16
       "ANSWER  = 42 / a comment longer than sixty characters, as free format allows"}};
  std::vector<fs::path> odd_files;
  for (const auto& [name, card] : odd) {
    std::vector<std::string> cards = plain_cards;
    cards.push_back(card);
    if (name == "long_string") cards.push_back("CONTINUE  ' and it goes on in a CONTINUE card'");
    odd_files.push_back(dir / (name + ".fits"));
    write_file(odd_files.back(), image(16, 6, cards));
  }
  odd_files.push_back(case_file("header_oddities.fits"));

  std::vector<std::pair<fs::path, fs::path>> pairs;
  std::map<fs::path, std::string> want_tag;
  const auto add = [&](const fs::path& fits, const std::string& tag_option,
                       const std::string& tag) {
    const fs::path asdf = dir / asdf_name(fits, "_" + tag_option);
    const json report = convert(fits, asdf, {"--fits-tag", tag_option});
    CHECK(report["fits_tag"] == tag);
    CHECK(info(asdf)["tags"]["/fits"] == tag);
    pairs.emplace_back(fits, asdf);
    want_tag[asdf] = tag;
  };
  add(plain, "auto", kStandardTag);
  add(plain, "standard", kStandardTag);
  add(plain, "astropy", kAstropyTag);
  for (const auto& fits : odd_files) {
    INFO(fits);
    add(fits, "auto", kAstropyTag);
    add(fits, "astropy", kAstropyTag);
    // The standard tag cannot hold this header: a usage error naming the file and the card.
    const fs::path refused = dir / (fits.stem().string() + "_refused.asdf");
    const RunResult r =
        run_cli({"convert", fits.string(), "-o", refused.string(), "--fits-tag", "standard"});
    INFO(r.err);
    CHECK(r.status == 4);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find(fits.filename().string()) != std::string::npos);
    CHECK(r.err.find("standard fits-1.0.0 schema") != std::string::npos);
    CHECK(r.err.find("card '") != std::string::npos);
    CHECK_FALSE(fs::exists(refused));
  }
  const json result = compare(pairs, {"--details"});
  for (const auto& [fits, asdf] : pairs) {
    const json& rec = result[asdf.string()];
    INFO(asdf);
    check_read_equal(rec);
    CHECK(rec["warnings"].empty());
    CHECK(rec["fits_tag"] == want_tag[asdf]);
  }
}

TEST_CASE(
    "the corpus's tile-compressed image converts to astropy's data and keeps its table "
    "header",
    "[interop][fits][corpus]") {
  const fs::path fits = corpus_dir() / "fits-astropy" / "double_ext.fits";
  REQUIRE(fs::exists(fits));
  TempDir dir;
  const fs::path asdf = dir / "double_ext.asdf";
  const json report = convert(fits, asdf);
  REQUIRE(report["hdus"].size() == 2);
  CHECK(report["hdus"][1]["kind"] == "tile-compressed image");
  const json result = compare({{fits, asdf}}, {"--details"});
  const json& rec = result[asdf.string()];
  INFO(rec.dump().substr(0, 3000));
  REQUIRE(rec.value("ok", false));
  CHECK(rec["warnings"].empty());
  CHECK(rec["n_hdus_equal"].get<bool>());
  for (const auto& hd : rec["hdus"]) {
    CHECK(hd["data_equal"].get<bool>());
    CHECK(hd["hdul_cards_equal"].get<bool>());
    CHECK(hd["card_values_equal"].get<bool>());
  }
  CHECK(rec["hdus"][0]["cards_equal"].get<bool>());
  // The image header is CFITSIO's, with the structural cards' comments taken from ZTENSION,
  // ZBITPIX, ZNAXISn, ZPCOUNT and ZGCOUNT as astropy shows them: no comment differs.
  CHECK(rec["hdus"][1]["comment_diffs"] == json::array());
  CHECK(rec["hdus"][1]["cards_equal"].get<bool>());  // astropy's view, card for card
  const json& h = rec["hdus"][1];
  CHECK(h["astropy_dtype"].get<std::string>().substr(1) == "u2");  // BZERO = 32768 over int16
  CHECK(h["dtype"].get<std::string>().substr(1) == "u2");
  CHECK(h["item_keys"] == json::array({"compressed_header", "data", "header"}));
  CHECK(h["compressed_cards_equal"] == true);
  const json in = info(asdf);
  CHECK(in["blocks"].size() == 1);
  CHECK(in["tags"]["/fits"] == kAstropyTag);  // compressed_header is beyond the standard schema
}
