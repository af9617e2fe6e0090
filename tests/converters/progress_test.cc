// Progress reports and cancellation (fitsasdf/progress.h) for every entry point a pipeline
// calls: FITS -> ASDF (copied and compressed), ASDF -> FITS, the round-trip verification, the
// verification of a pair, and the diff of two FITS, two ASDF and a mixed pair. Each reports
// monotonic progress that ends at its total; a cancel from the first report, from the middle
// of the data, or before the call gives (cancelled) and leaves neither the output nor a
// temporary file; a callback's own exception comes out unchanged, with nothing left either.
// The large input is a 16 MiB float32 image made here, so reports and cancels fall mid-data.
#include "fitsasdf/progress.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "fitsasdf/asdf_in_fits.h"
#include "fitsasdf/convert.h"
#include "fitsasdf/diff.h"
#include "fitsasdf/to_fits.h"
#include "fitsasdf/verify.h"
#include "support/catch.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using asdfcore::Error;
using asdfcore::ErrorCode;
using fitsasdf::Progress;
using fitsasdf::RunControl;
using fitsasdf::test::TempDir;

/// A report as recorded (the stage copied: it is valid only during the callback).
struct Report {
  std::string stage;
  int hdu = 0;
  int hdu_count = 0;
  std::uint64_t done = 0;
  std::uint64_t total = 0;
};

/// The exception a caller's callback throws.
struct UserStop {};

std::string card(const std::string& text) {
  std::string c = text;
  c.resize(80, ' ');
  return c;
}

/// Write a FITS file whose primary HDU is a float32 image of `width` x `height` (big-endian
/// values 0, 0.5, 1, ...).
void write_float_image(const fs::path& path, std::size_t width, std::size_t height) {
  std::string header = card("SIMPLE  =                    T") +
                       card("BITPIX  =                  -32") +
                       card("NAXIS   =                    2") +
                       card("NAXIS1  = " + std::string(20 - std::to_string(width).size(), ' ') +
                            std::to_string(width)) +
                       card("NAXIS2  = " + std::string(20 - std::to_string(height).size(), ' ') +
                            std::to_string(height)) +
                       card("END");
  header.resize((header.size() + 2879) / 2880 * 2880, ' ');
  std::vector<std::uint8_t> data(width * height * 4);
  for (std::size_t i = 0; i < width * height; ++i) {
    const float v = static_cast<float>(i % 100000) * 0.5F;
    std::uint32_t bits = 0;
    std::memcpy(&bits, &v, 4);
    for (int b = 0; b < 4; ++b) data[i * 4 + b] = static_cast<std::uint8_t>(bits >> (24 - 8 * b));
  }
  data.resize((data.size() + 2879) / 2880 * 2880, 0);
  std::ofstream out(path, std::ios::binary);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
}

/// The inputs, made once: the 16 MiB image as FITS, as ASDF and as zlib-compressed ASDF.
struct Inputs {
  TempDir dir;
  fs::path fits = dir / "big.fits";
  fs::path asdf = dir / "big.asdf";
  fs::path zlib = dir / "big-zlib.asdf";

  Inputs() {
    write_float_image(fits, 2048, 2048);
    fitsasdf::ConvertOptions options;
    options.durable = false;
    fitsasdf::convert_fits_to_asdf(fits.string(), asdf.string(), options);
    options.compression = "zlib";
    options.compression_level = 1;
    fitsasdf::convert_fits_to_asdf(fits.string(), zlib.string(), options);
  }
};

const Inputs& inputs() {
  static const Inputs kInputs;
  return kInputs;
}

/// Point TMPDIR (where verify and diff make their temporary folders) at `dir` for a scope.
class TmpDirOverride {
 public:
  explicit TmpDirOverride(const fs::path& dir) {
    if (const char* old = std::getenv("TMPDIR")) old_ = old;
    had_ = std::getenv("TMPDIR") != nullptr;
    setenv("TMPDIR", dir.c_str(), 1);
  }
  ~TmpDirOverride() {
    if (had_) {
      setenv("TMPDIR", old_.c_str(), 1);
    } else {
      unsetenv("TMPDIR");
    }
  }
  TmpDirOverride(const TmpDirOverride&) = delete;
  TmpDirOverride& operator=(const TmpDirOverride&) = delete;

 private:
  std::string old_;
  bool had_ = false;
};

/// One entry point: run it under `control`, writing any output into `out`.
struct Entry {
  std::string name;
  std::function<void(const RunControl& control, const fs::path& out)> run;
};

std::vector<Entry> entries(const fs::path& fits, const fs::path& asdf, const fs::path& zlib) {
  return {
      {"FITS to ASDF",
       [=](const RunControl& c, const fs::path& out) {
         fitsasdf::ConvertOptions o;
         o.durable = false;
         o.control = c;
         fitsasdf::convert_fits_to_asdf(fits.string(), (out / "o.asdf").string(), o);
       }},
      {"FITS to compressed ASDF",
       [=](const RunControl& c, const fs::path& out) {
         fitsasdf::ConvertOptions o;
         o.durable = false;
         o.compression = "zlib";
         o.compression_level = 1;
         o.control = c;
         fitsasdf::convert_fits_to_asdf(fits.string(), (out / "o.asdf").string(), o);
       }},
      {"ASDF to FITS",
       [=](const RunControl& c, const fs::path& out) {
         fitsasdf::AsdfToFitsOptions o;
         o.durable = false;
         o.control = c;
         fitsasdf::convert_asdf_to_fits(asdf.string(), (out / "o.fits").string(), o);
       }},
      {"compressed ASDF to FITS",
       [=](const RunControl& c, const fs::path& out) {
         fitsasdf::AsdfToFitsOptions o;
         o.durable = false;
         o.control = c;
         fitsasdf::convert_asdf_to_fits(zlib.string(), (out / "o.fits").string(), o);
       }},
      {"verify round trip",
       [=](const RunControl& c, const fs::path&) {
         fitsasdf::VerifyOptions o;
         o.convert.durable = false;
         o.control = c;
         const bool ok = fitsasdf::verify_round_trip(fits.string(), o).equivalent();
         CHECK(ok);
       }},
      {"verify pair",
       [=](const RunControl& c, const fs::path&) {
         fitsasdf::VerifyOptions o;
         o.control = c;
         const bool ok = fitsasdf::verify_pair(fits.string(), asdf.string(), o).equivalent();
         CHECK(ok);
       }},
      {"diff two FITS",
       [=](const RunControl& c, const fs::path&) {
         fitsasdf::CompareOptions o;
         o.control = c;
         const bool ok = fitsasdf::diff_files(fits.string(), fits.string(), o).identical();
         CHECK(ok);
       }},
      {"diff two ASDF",
       [=](const RunControl& c, const fs::path&) {
         fitsasdf::CompareOptions o;
         o.control = c;
         const bool ok = fitsasdf::diff_files(asdf.string(), zlib.string(), o).identical();
         CHECK(ok);
       }},
      {"diff FITS and ASDF",
       [=](const RunControl& c, const fs::path&) {
         fitsasdf::CompareOptions o;
         o.control = c;
         const bool ok = fitsasdf::diff_files(fits.string(), zlib.string(), o).identical();
         CHECK(ok);
       }},
  };
}

/// Run `entry` in fresh output and temporary folders; return its reports, or rethrow.
struct Outcome {
  std::vector<Report> reports;
  std::vector<fs::path> left;  ///< Files left in the output and temporary folders.
};

Outcome run(const Entry& entry, RunControl control,
            const std::function<void(const Progress&, const RunControl&)>& on_report = {}) {
  TempDir work;
  const fs::path out = work / "out";
  const fs::path tmp = work / "tmp";
  fs::create_directory(out);
  fs::create_directory(tmp);
  Outcome outcome;
  const RunControl outer = control;  // shares the token
  control.progress = [&outcome, &on_report, &outer](const Progress& p) {
    outcome.reports.push_back({std::string(p.stage), p.hdu, p.hdu_count, p.done, p.total});
    if (on_report) on_report(p, outer);
  };
  const auto leftovers = [&] {
    std::vector<fs::path> left;
    for (const auto& dir : {out, tmp}) {
      for (const auto& e : fs::recursive_directory_iterator(dir)) left.push_back(e.path());
    }
    return left;
  };
  {
    const TmpDirOverride tmpdir(tmp);
    try {
      entry.run(control, out);
    } catch (...) {
      outcome.left = leftovers();
      INFO(entry.name);
      CHECK(outcome.left.empty());
      throw;
    }
  }
  outcome.left = leftovers();
  return outcome;
}

void check_progress(const std::string& name, const std::vector<Report>& reports) {
  INFO(name);
  REQUIRE(!reports.empty());
  const std::uint64_t total = reports.front().total;
  std::uint64_t done = 0;
  for (const auto& r : reports) {
    INFO(r.stage << " hdu " << r.hdu << "/" << r.hdu_count << " " << r.done << "/" << r.total);
    CHECK(r.total == total);
    CHECK(r.done >= done);
    CHECK(r.done <= r.total);
    CHECK(!r.stage.empty());
    done = r.done;
  }
  CHECK(reports.back().done == total);
}

/// Return true when some report falls strictly inside the data.
bool has_middle(const std::vector<Report>& reports) {
  for (const auto& r : reports) {
    if (r.done > 0 && r.done < r.total) return true;
  }
  return false;
}

void expect_cancelled(const Entry& entry, RunControl control,
                      const std::function<void(const Progress&, const RunControl&)>& on_report) {
  INFO(entry.name);
  try {
    run(entry, std::move(control), on_report);
    FAIL("not cancelled");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kCancelled);
    CHECK(e.message() == "cancelled by the caller");
    CHECK(!e.context().file.empty());
    // The caller's input, not a temporary file of verify or diff.
    CHECK(fs::path(e.context().file).filename().string().starts_with("big"));
  }
}

}  // namespace

TEST_CASE("every entry point reports monotonic progress that ends at its total") {
  const Inputs& in = inputs();
  for (const Entry& entry : entries(in.fits, in.asdf, in.zlib)) {
    const Outcome outcome = run(entry, RunControl{});
    check_progress(entry.name, outcome.reports);
    INFO(entry.name);
    CHECK(has_middle(outcome.reports));  // reports come while the 16 MiB move, not only after
    CHECK(outcome.reports.size() >= 4);
    CHECK(outcome.reports.front().total >= (std::uint64_t{16} << 20));
  }
}

TEST_CASE("small files report progress that ends at its total") {
  TempDir dir;
  const fs::path test0 = fs::path(FITSASDF_SAMPLES_DIR) / "test0.fits";
  const fs::path compressed = fs::path(FITSASDF_SAMPLES_DIR) / "compressed.asdf";
  const fs::path comp = fs::path(FITSASDF_TEST_DATA_DIR) / "astropy" / "comp.fits";
  fitsasdf::ConvertOptions convert;
  convert.durable = false;
  const fs::path test0_asdf = dir / "test0.asdf";
  fitsasdf::convert_fits_to_asdf(test0.string(), test0_asdf.string(), convert);
  const fs::path comp_asdf = dir / "comp.asdf";
  fitsasdf::convert_fits_to_asdf(comp.string(), comp_asdf.string(), convert);
  std::vector<Entry> all = entries(test0, test0_asdf, test0_asdf);
  for (Entry& e : entries(comp, comp_asdf, comp_asdf)) all.push_back(std::move(e));
  all.push_back({"tree without a fits list to FITS", [=](const RunControl& c, const fs::path& out) {
                   fitsasdf::AsdfToFitsOptions o;
                   o.durable = false;
                   o.control = c;
                   fitsasdf::convert_asdf_to_fits(compressed.string(), (out / "o.fits").string(),
                                                  o);
                 }});
  all.push_back(
      {"diff two ASDF trees", [=](const RunControl& c, const fs::path&) {
         fitsasdf::CompareOptions o;
         o.control = c;
         const bool ok =
             fitsasdf::diff_files(compressed.string(), compressed.string(), o).identical();
         CHECK(ok);
       }});
  for (const Entry& entry : all) {
    const Outcome outcome = run(entry, RunControl{});
    check_progress(entry.name, outcome.reports);
    // A FITS file names its HDUs.
    if (entry.name.starts_with("FITS to")) {
      bool hdu = false;
      for (const auto& r : outcome.reports) hdu = hdu || (r.hdu >= 1 && r.hdu_count >= 1);
      CHECK(hdu);
    }
  }
}

TEST_CASE("a cancelled call throws (cancelled) and leaves nothing behind") {
  const Inputs& in = inputs();
  for (const Entry& entry : entries(in.fits, in.asdf, in.zlib)) {
    SECTION("cancelled before the call: " + entry.name) {
      RunControl control;
      control.cancel.cancel();
      expect_cancelled(entry, control, {});
    }
    SECTION("cancelled at the first report: " + entry.name) {
      expect_cancelled(entry, RunControl{},
                       [](const Progress&, const RunControl& c) { c.cancel.cancel(); });
    }
    SECTION("cancelled in the middle of the data: " + entry.name) {
      expect_cancelled(entry, RunControl{}, [](const Progress& p, const RunControl& c) {
        if (p.done >= p.total / 2 && p.done < p.total) c.cancel.cancel();
      });
    }
  }
}

TEST_CASE("an exception of the callback comes out unchanged and leaves nothing behind") {
  const Inputs& in = inputs();
  for (const Entry& entry : entries(in.fits, in.asdf, in.zlib)) {
    INFO(entry.name);
    SECTION("at the first report: " + entry.name) {
      CHECK_THROWS_AS(
          run(entry, RunControl{}, [](const Progress&, const RunControl&) { throw UserStop{}; }),
          UserStop);
    }
    SECTION("in the middle of the data: " + entry.name) {
      CHECK_THROWS_AS(run(entry, RunControl{},
                          [](const Progress& p, const RunControl&) {
                            if (p.done > 0 && p.done < p.total) throw UserStop{};
                          }),
                      UserStop);
    }
    SECTION("at the last report: " + entry.name) {
      CHECK_THROWS_AS(run(entry, RunControl{},
                          [](const Progress& p, const RunControl&) {
                            if (p.done == p.total) throw UserStop{};
                          }),
                      UserStop);
    }
  }
}

TEST_CASE("an embedded ASDF file is extracted with progress, and a cancel leaves nothing") {
  TempDir dir;
  const fs::path compressed = fs::path(FITSASDF_SAMPLES_DIR) / "compressed.asdf";
  const fs::path in_fits = dir / "asdf-in-fits.fits";
  fitsasdf::AsdfToFitsOptions to_fits;
  to_fits.durable = false;
  fitsasdf::write_asdf_in_fits(compressed.string(), in_fits.string(), to_fits);
  const Entry entry{"extract embedded ASDF", [&](const RunControl& c, const fs::path& out) {
                      fitsasdf::ConvertOptions o;
                      o.durable = false;
                      o.control = c;
                      fitsasdf::extract_embedded_asdf(in_fits.string(), (out / "o.asdf").string(),
                                                      o);
                    }};
  check_progress(entry.name, run(entry, RunControl{}).reports);
  RunControl before;
  before.cancel.cancel();
  try {
    run(entry, before);
    FAIL("not cancelled");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kCancelled);
    CHECK(e.context().file == in_fits.string());
  }
  CHECK_THROWS_AS(run(entry, RunControl{},
                      [](const Progress& p, const RunControl&) {
                        if (p.done == p.total) throw UserStop{};
                      }),
                  UserStop);
}

TEST_CASE("a cancel token is shared by its copies") {
  const fitsasdf::CancelToken token;
  const fitsasdf::CancelToken copy = token;
  const fitsasdf::CancelToken other;
  CHECK(!copy.cancelled());
  token.cancel();
  CHECK(copy.cancelled());
  CHECK(!other.cancelled());
}
