// `diff_files`: pick the comparison by the kinds of the two files; a FITS file and an ASDF file
// are compared as FITS, the ASDF side converted in a temporary folder.
#include "fitsasdf/diff.h"

#include <filesystem>

#include "asdfcore/error.h"
#include "compare/file_kind.h"
#include "compare/temp_folder.h"
#include "progress/meter.h"

namespace fitsasdf {

bool DiffReport::identical() const noexcept {
  if (fits) return fits->equivalent();
  if (asdf) return asdf->identical();
  return true;
}

DiffReport diff_files(const std::string& a, const std::string& b, const CompareOptions& options) {
  progress::Meter meter(options.control, a);
  const compare::FileKind ka = compare::file_kind(a);
  const compare::FileKind kb = compare::file_kind(b);
  DiffReport report;
  report.a = a;
  report.b = b;
  if (ka == compare::FileKind::kAsdf && kb == compare::FileKind::kAsdf) {
    report.asdf = compare_asdf(a, b, options);
  } else if (ka == compare::FileKind::kFits && kb == compare::FileKind::kFits) {
    report.fits = compare_fits(a, b, options);
  } else {
    const compare::TempFolder folder("diff");
    const std::string converted = folder.file("converted.fits");
    const bool a_is_asdf = ka == compare::FileKind::kAsdf;
    // Two passes of the ASDF file's size: the conversion, then the comparison.
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(a_is_asdf ? a : b, ec);
    const std::uint64_t pass = ec ? 0 : static_cast<std::uint64_t>(size);
    meter.start(2 * pass, 0, "write");
    CompareOptions compare = options;
    try {
      compare::asdf_to_fits(a_is_asdf ? a : b, converted, meter.nested(pass));
      compare.control = meter.nested(pass);
      report.fits = compare_fits(a_is_asdf ? converted : a, a_is_asdf ? b : converted, compare);
    } catch (const asdfcore::Error& e) {
      if (e.code() != asdfcore::ErrorCode::kCancelled) throw;
      throw asdfcore::Error(e.code(), e.message(), asdfcore::ErrorContext{.file = a});
    }
    meter.finish();
    report.converted.assign(1, a_is_asdf ? 'a' : 'b');
    report.fits->a = a;
    report.fits->b = b;
  }
  return report;
}

}  // namespace fitsasdf
