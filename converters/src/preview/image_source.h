#pragma once
// Where a preview's values come from: one 2-D plane of a FITS image HDU (fits_source.cc) or of
// an ASDF ndarray (asdf_source.cc), read a row at a time as the physical values astropy or
// python asdf would give, NaN where a value is missing (NaN, BLANK, masked).
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fitsasdf/preview.h"

namespace fitsasdf::preview_impl {

/// What was chosen, filled in by the source (the parts of `PreviewResult` it knows).
struct SourceInfo {
  std::string format;  ///< "fits" or "asdf".
  int hdu = -1;        ///< FITS: 0-based HDU.
  std::string extname;
  int extver = 0;
  bool tile_compressed = false;
  std::string array;                   ///< ASDF: JSON Pointer.
  std::vector<std::uint64_t> shape;    ///< numpy order.
  std::string dtype;                   ///< numpy name of the values.
  std::vector<std::uint64_t> plane;    ///< Index along each leading axis.
  std::uint64_t width = 0;
  std::uint64_t height = 0;
  ValuePrecision precision = ValuePrecision::kFloat64;
  /// "FILE HDU 1 (SCI,1)" or "FILE array /sci": the start of an error message about it.
  std::string where;
};

/// One plane of an image, read a row at a time.
class ImageSource {
 public:
  virtual ~ImageSource() = default;
  /// Return what was chosen.
  const SourceInfo& info() const noexcept { return info_; }
  /// Write row `row` (0-based, in storage order: row 0 is FITS's first row, shown at the
  /// bottom) to `out` (`info().width` values), NaN where a value is missing.
  virtual void read_row(std::uint64_t row, std::span<double> out) const = 0;

 protected:
  SourceInfo info_;
};

/// Return the index along each leading axis of `shape` (numpy order, 3 or more axes; none for
/// 2): `plane` (or the middle) along the first, the middle along the others. Throws
/// `asdfcore::Error` (invalid-argument) beginning with `where` when `plane` is out of range or
/// given for a 2-D image.
std::vector<std::uint64_t> choose_plane(const std::vector<std::uint64_t>& shape,
                                        const std::optional<std::uint64_t>& plane,
                                        const std::string& where);

/// Open the image of the FITS file `path` that `options` asks for (hdu, extname, extver).
std::unique_ptr<ImageSource> open_fits_source(const std::string& path,
                                              const PreviewOptions& options);
/// Open the ndarray of the ASDF file `path` that `options.array` names (or the first of 2 or
/// more dimensions).
std::unique_ptr<ImageSource> open_asdf_source(const std::string& path,
                                              const PreviewOptions& options);

}  // namespace fitsasdf::preview_impl
