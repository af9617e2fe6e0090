// Round-trip verification: FITS -> ASDF -> FITS in a temporary folder, or an existing pair;
// the FITS files compared in kVerify mode, the ASDF file's block checksums checked.
#include "fitsasdf/verify.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>

#include "asdfcore/error.h"
#include "asdfcore/format/container.h"
#include "compare/file_kind.h"
#include "compare/temp_folder.h"
#include "fitsasdf/convert.h"
#include "progress/meter.h"

namespace fitsasdf {
namespace {

using asdfcore::format::ChecksumStatus;

std::vector<BlockCheck> check_blocks(const std::string& path, progress::Meter& meter) {
  meter.enter("check", 0);
  const auto container = asdfcore::format::Container::open(path);
  std::vector<BlockCheck> out;
  for (std::size_t i = 0; i < container.blocks().size(); ++i) {
    meter.check();
    BlockCheck b;
    b.block = i;
    if (!container.blocks()[i].problem.empty()) {
      b.status = "unreadable";
      b.problem = container.blocks()[i].problem;
      out.push_back(std::move(b));
      continue;
    }
    switch (container.check(i)) {
      case ChecksumStatus::kUnchecked:
        b.status = "none";
        break;
      case ChecksumStatus::kMatchesStored:
        b.status = "stored";
        break;
      case ChecksumStatus::kMatchesDecoded:
        b.status = "decoded";
        break;
      case ChecksumStatus::kMismatch:
        b.status = "mismatch";
        break;
      case ChecksumStatus::kUndecodable:
        b.status = "undecodable";
        break;
    }
    out.push_back(std::move(b));
  }
  for (const auto& p : container.problems()) {
    if (p.kind == asdfcore::format::LayoutProblem::Kind::kBrokenChain) {
      out.push_back(
          {out.size(), "unreadable", p.message + " (at byte " + std::to_string(p.offset) + ")"});
    }
  }
  return out;
}

CompareOptions compare_options(const VerifyOptions& options) {
  CompareOptions c;
  c.mode = CompareMode::kVerify;
  c.max_listed = options.max_listed;
  c.control.cancel = options.control.cancel;
  return c;
}

/// Return the bytes one pass of a verification counts: the FITS file's size.
std::uint64_t pass_bytes(const std::string& fits) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(fits, ec);
  return ec ? 0 : static_cast<std::uint64_t>(size);
}

/// Run `step`; a cancellation in it names `file`, the caller's file, not a temporary one.
template <typename Step>
auto naming_cancel(const std::string& file, const Step& step) {
  try {
    return step();
  } catch (const asdfcore::Error& e) {
    if (e.code() != asdfcore::ErrorCode::kCancelled) throw;
    throw asdfcore::Error(e.code(), e.message(), asdfcore::ErrorContext{.file = file});
  }
}

/// A tile-compressed image comes back compressed again by CFITSIO, with its own settings (GZIP
/// at deflate level 1, for one), so another writer's tiles seldom come back byte for byte. When
/// its bytes differ, compare the decompressed images too and say what that shows: the verdict
/// stays DIFFERENT (the bytes are not the file's), but the user learns whether pixels changed.
void compare_decompressed(FitsComparison& c, const std::string& a, const std::string& b,
                          const VerifyOptions& options) {
  const auto recompressed = [](const HduComparison& h) {
    return h.kind == "tile-compressed image" && !h.data.identical;
  };
  if (std::none_of(c.hdus.begin(), c.hdus.end(), recompressed)) return;
  CompareOptions values = compare_options(options);
  values.mode = CompareMode::kDiff;  // decompresses tile-compressed images first
  std::optional<FitsComparison> d;
  std::string why;
  try {
    d = compare_fits(a, b, values);
  } catch (const asdfcore::Error& e) {
    if (e.code() == asdfcore::ErrorCode::kCancelled) throw;
    why = e.message();
  }
  for (auto& h : c.hdus) {
    if (!recompressed(h)) continue;
    const HduComparison* dh = nullptr;
    if (d) {
      for (const auto& x : d->hdus) {
        if (x.hdu_a == h.hdu_a && x.hdu_b == h.hdu_b) dh = &x;
      }
    }
    if (dh == nullptr) {
      h.notes.push_back("the decompressed images could not be compared" +
                        (why.empty() ? std::string() : ": " + why));
    } else if (dh->data.identical) {
      h.notes.push_back(
          "decompressed, the images are equal in value (fitsdiff's rules): only the compressed "
          "bytes differ, as CFITSIO compresses the tiles again with its own settings");
    } else {
      h.notes.push_back(
          "decompressed, the images differ too: " + std::to_string(dh->data.differing) + " of " +
          std::to_string(dh->data.compared) + " pixels");
    }
  }
}

/// Compare `fits` with the ASDF file `asdf` converted back to FITS in `folder`, each pass
/// filling `pass` bytes of `meter`.
FitsComparison back_and_compare(const std::string& fits, const std::string& asdf,
                                const compare::TempFolder& folder, const VerifyOptions& options,
                                progress::Meter& meter, std::uint64_t pass) {
  const std::string back = folder.file("back.fits");
  compare::asdf_to_fits(asdf, back, meter.nested(pass));
  CompareOptions compare = compare_options(options);
  compare.control = meter.nested(pass);
  FitsComparison c = compare_fits(fits, back, compare);
  compare_decompressed(c, fits, back, options);
  c.b = asdf;
  return c;
}

}  // namespace

bool BlockCheck::ok() const noexcept {
  return status == "stored" || status == "decoded" || status == "none";
}

bool VerifyReport::equivalent() const noexcept {
  return comparison.equivalent() &&
         std::all_of(blocks.begin(), blocks.end(), [](const auto& b) { return b.ok(); });
}

VerifyReport verify_round_trip(const std::string& fits, const VerifyOptions& options) {
  if (compare::file_kind(fits) != compare::FileKind::kFits) {
    throw asdfcore::Error(asdfcore::ErrorCode::kNotFits,
                          "verify needs a FITS file here (this is ASDF): give the FITS file "
                          "first, then the ASDF file",
                          asdfcore::ErrorContext{.file = fits});
  }
  progress::Meter meter(options.control, fits);
  const std::uint64_t pass = pass_bytes(fits);
  meter.start(pass * 3, 0, "read");
  VerifyReport report;
  report.fits = fits;
  report.round_trip = true;
  const compare::TempFolder folder("verify");
  const std::string asdf = folder.file("round-trip.asdf");
  ConvertOptions convert = options.convert;
  convert.control = meter.nested(pass);
  convert_fits_to_asdf(fits, asdf, convert);
  report.blocks = naming_cancel(fits, [&] { return check_blocks(asdf, meter); });
  try {
    report.comparison = back_and_compare(fits, asdf, folder, options, meter, pass);
  } catch (const asdfcore::Error& e) {
    if (e.code() == asdfcore::ErrorCode::kCancelled) {
      throw asdfcore::Error(e.code(), e.message(), asdfcore::ErrorContext{.file = fits});
    }
    // Name the input, not the temporary file that is about to go. The intermediate file is
    // ours, so a refusal is not the caller's usage error.
    asdfcore::ErrorContext where = e.context();
    where.file = fits;
    const auto code = e.code() == asdfcore::ErrorCode::kInvalidArgument
                          ? asdfcore::ErrorCode::kMalformed
                          : e.code();
    throw asdfcore::Error(
        code, "its ASDF conversion cannot be written back to FITS: " + e.message(), where);
  }
  report.comparison.b = "";
  meter.finish();
  return report;
}

VerifyReport verify_pair(const std::string& fits, const std::string& other,
                         const VerifyOptions& options) {
  if (compare::file_kind(fits) != compare::FileKind::kFits) {
    throw asdfcore::Error(asdfcore::ErrorCode::kNotFits,
                          "verify needs a FITS file first (this is ASDF): verify A.fits B.asdf",
                          asdfcore::ErrorContext{.file = fits});
  }
  progress::Meter meter(options.control, fits);
  VerifyReport report;
  report.fits = fits;
  if (compare::file_kind(other) == compare::FileKind::kFits) {
    report.other = other;
    CompareOptions compare = compare_options(options);
    compare.control = options.control;  // the comparison is the whole verification
    report.comparison = compare_fits(fits, other, compare);
    compare_decompressed(report.comparison, fits, other, options);
    return report;
  }
  const std::uint64_t pass = pass_bytes(fits);
  meter.start(pass * 2, 0, "check");
  report.asdf = other;
  report.blocks = check_blocks(other, meter);
  const compare::TempFolder folder("verify");
  report.comparison = naming_cancel(
      fits, [&] { return back_and_compare(fits, other, folder, options, meter, pass); });
  meter.finish();
  return report;
}

}  // namespace fitsasdf
