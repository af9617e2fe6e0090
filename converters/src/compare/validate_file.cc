#include "fitsasdf/validate_file.h"

#include "asdfcore/error.h"
#include "compare/file_kind.h"
#include "compare/temp_folder.h"
#include "fitsasdf/asdf_in_fits.h"

namespace fitsasdf {

asdfcore::FileValidation validate_file(const std::string& path, const asdfcore::OpenOptions& open,
                                       const asdfcore::ValidateOptions& options) {
  if (compare::file_kind(path) == compare::FileKind::kAsdf) {
    return asdfcore::validate(asdfcore::AsdfFile::open(path, open), options);
  }
  if (find_embedded_asdf(path) == 0) {
    throw asdfcore::Error(asdfcore::ErrorCode::kNotAsdf,
                          "a FITS file without an ASDF extension: there is no tree to validate",
                          asdfcore::ErrorContext{.file = path});
  }
  compare::TempFolder folder("validate");
  const std::string embedded = folder.file("embedded.asdf");
  ConvertOptions extract;
  extract.durable = false;  // a scratch copy
  try {
    extract_embedded_asdf(path, embedded, extract);
    asdfcore::FileValidation result =
        asdfcore::validate(asdfcore::AsdfFile::open(embedded, open), options);
    result.file = path;
    return result;
  } catch (const asdfcore::Error& e) {
    // Name the FITS file, not the temporary copy.
    asdfcore::ErrorContext context = e.context();
    if (context.file == embedded) context.file = path + " (its ASDF extension)";
    throw asdfcore::Error(e.code(), e.message(), context);
  }
}

}  // namespace fitsasdf
