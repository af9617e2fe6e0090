// The FITS side of a preview: the image HDU asked for (by number, by EXTNAME and EXTVER, or
// the first with 2 or more axes), read from the file's bytes (a mapping for a plain file) or,
// for a tile-compressed image, from CFITSIO's decompressed copy (`FitsFile::decompress_image`).
// Values are what astropy's `hdu.data` holds: integers as they are, unsigned through BZERO,
// otherwise BSCALE and BZERO applied in float32 (BITPIX 8, 16, -32) or float64 (32, 64, -64),
// step by step as numpy does; BLANK (integer BITPIX) becomes NaN.
#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>

#include "asdfcore/error.h"
#include "fits/fits_file.h"
#include "fits/fits_types.h"
#include "hdu/hdu_converter.h"
#include "preview/image_source.h"

namespace fitsasdf::preview_impl {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ErrorContext;
using fits::HduExtent;

using hdu::upper_trimmed;

/// "HDU 1 (SCI,1)": the HDU 0-based, as astropy counts, with its name.
std::string hdu_label(const HduExtent& extent, const std::vector<Card>& cards) {
  const hdu::HeaderView header(cards);
  std::string label = "HDU " + std::to_string(extent.index - 1);
  const std::string name = header.string("EXTNAME");
  if (!name.empty()) {
    label += " (" + name;
    if (header.has("EXTVER")) label += "," + std::to_string(header.integer("EXTVER", 1));
    label += ")";
  }
  return label;
}

/// Why HDU `extent` cannot be shown, or "" when it is an image of 2 or more axes.
std::string not_an_image(const HduExtent& extent, const std::vector<Card>& cards) {
  const hdu::HeaderView header(cards);
  if (extent.tile_compressed) {
    const long long naxis = header.integer("ZNAXIS", 0);
    if (naxis < 2) {
      return "is a tile-compressed image of " + std::to_string(naxis) +
             " axes; a preview needs 2 or more";
    }
    return "";
  }
  if (extent.compressed_table) return "is a tile-compressed table, not an image";
  if (extent.nonstandard_primary) return "is a non-standard primary HDU (SIMPLE = F)";
  switch (extent.type) {
    case fits::kBinaryTableHdu: return "is a binary table, not an image";
    case fits::kAsciiTableHdu: return "is an ASCII table, not an image";
    case fits::kForeignHdu:
      return "is a foreign extension (XTENSION = '" + header.string("XTENSION") +
             "'), not an image";
    default: break;
  }
  const auto groups = header.value("GROUPS");
  if (groups && groups->kind() == asdfcore::tree::NodeKind::kBool && groups->as_bool()) {
    return "holds random groups, not an image";
  }
  const long long naxis = header.integer("NAXIS", 0);
  if (naxis < 2) {
    return "has NAXIS = " + std::to_string(naxis) + (naxis == 0 ? " (no data)" : "") +
           "; a preview needs an image of 2 or more axes";
  }
  for (long long i = 1; i <= naxis; ++i) {
    if (header.integer("NAXIS" + std::to_string(i), 0) <= 0) {
      return "has NAXIS" + std::to_string(i) + " = 0 (no data)";
    }
  }
  return "";
}

/// The HDU `options` asks for (its position in `file.hdus()`).
std::size_t choose_hdu(const fits::FitsFile& file, const PreviewOptions& options) {
  const auto& hdus = file.hdus();
  const ErrorContext where{file.path()};
  if (options.hdu) {
    const int n = *options.hdu;
    if (n < 0 || static_cast<std::size_t>(n) >= hdus.size()) {
      throw Error(ErrorCode::kNotFound,
                  "there is no HDU " + std::to_string(n) + ": the file has " +
                      std::to_string(hdus.size()) + " (numbered from 0, as in astropy)",
                  where);
    }
    return static_cast<std::size_t>(n);
  }
  if (!options.extname.empty()) {
    const std::string wanted = upper_trimmed(options.extname);
    const int version = options.extver.value_or(1);
    for (std::size_t i = 0; i < hdus.size(); ++i) {
      const hdu::HeaderView header(file.headers()[i].cards);
      if (upper_trimmed(header.string("EXTNAME")) == wanted &&
          header.integer("EXTVER", 1) == version) {
        return i;
      }
    }
    throw Error(ErrorCode::kNotFound,
                "no HDU has EXTNAME = '" + options.extname + "' and EXTVER = " +
                    std::to_string(version),
                where);
  }
  for (std::size_t i = 0; i < hdus.size(); ++i) {
    if (not_an_image(hdus[i], file.headers()[i].cards).empty()) return i;
  }
  throw Error(ErrorCode::kNotFound,
              "no HDU holds an image of 2 or more axes (" + std::to_string(hdus.size()) +
                  " HDUs looked at)",
              where);
}

/// How astropy turns stored values into `hdu.data`.
enum class Scaling {
  kNone,      ///< The stored values as they are.
  kUnsigned,  ///< BZERO = 2^(bits-1) (or -128 for BITPIX 8): the sign bit flipped.
  kFloat32,   ///< float32(stored) * float32(BSCALE) + float32(BZERO), each step in float32.
  kFloat64,   ///< The same in float64.
};

class FitsSource final : public ImageSource {
 public:
  FitsSource(fits::FitsFile file, std::size_t index, const PreviewOptions& options)
      : file_(std::move(file)) {
    const HduExtent& extent = file_.hdus()[index];
    const std::vector<Card>& outer_cards = file_.headers()[index].cards;
    info_.format = "fits";
    info_.hdu = extent.index - 1;
    const hdu::HeaderView outer(outer_cards);
    info_.extname = outer.string("EXTNAME");
    info_.extver = outer.has("EXTVER") ? static_cast<int>(outer.integer("EXTVER", 1)) : 0;
    info_.tile_compressed = extent.tile_compressed;
    info_.where = file_.path() + ": " + hdu_label(extent, outer_cards);
    const std::string why = not_an_image(extent, outer_cards);
    if (!why.empty()) throw Error(ErrorCode::kInvalidArgument, info_.where + " " + why);

    // The image's own header and data: the HDU itself, or CFITSIO's decompressed copy.
    std::uint64_t data_start = extent.data_start;
    if (extent.tile_compressed) {
      bytes_ = file_.decompress_image(extent.index);
      HeaderOptions lenient;
      lenient.fix_unparsable_values = true;
      const std::string_view text(reinterpret_cast<const char*>(bytes_.data()), bytes_.size());
      Header header = read_header(text, extent.index, file_.path(), lenient);
      cards_ = std::move(header.cards);
      data_start = header.size;
    } else {
      bytes_ = file_.bytes();
      cards_ = outer_cards;
    }
    const hdu::HeaderView header(cards_);
    const long long bitpix = header.integer("BITPIX", 0);
    const auto kind = fits::kind_for_bitpix(bitpix);
    if (!kind) {
      throw Error(ErrorCode::kMalformed,
                  info_.where + " has BITPIX = " + std::to_string(bitpix) + ", not a FITS type");
    }
    bitpix_ = bitpix;
    itemsize_ = static_cast<std::size_t>(std::llabs(bitpix) / 8);
    const long long naxis = header.integer("NAXIS", 0);
    for (long long i = naxis; i >= 1; --i) {
      info_.shape.push_back(
          static_cast<std::uint64_t>(header.integer("NAXIS" + std::to_string(i), 0)));
    }
    info_.width = info_.shape.back();
    info_.height = info_.shape[info_.shape.size() - 2];
    info_.plane = choose_plane(info_.shape, options.plane, info_.where);
    // The element offset of the plane: its index along each leading axis, in C order.
    std::uint64_t plane_number = 0;
    for (std::size_t a = 0; a < info_.plane.size(); ++a) {
      plane_number = plane_number * info_.shape[a] + info_.plane[a];
    }
    std::uint64_t total = 1;
    for (std::uint64_t n : info_.shape) total *= n;
    if (bytes_.size() < data_start || (bytes_.size() - data_start) / itemsize_ < total) {
      throw Error(ErrorCode::kTruncated,
                  info_.where + ": the file ends inside the image data (" +
                      std::to_string(total * itemsize_) + " bytes declared)");
    }
    plane_start_ = data_start + plane_number * info_.width * info_.height * itemsize_;

    bscale_ = header.number("BSCALE", 1.0);
    bzero_ = header.number("BZERO", 0.0);
    if (bitpix > 0 && header.has("BLANK")) blank_ = header.integer("BLANK", 0);
    const auto unsigned_kind = bitpix > 0 && bscale_ == 1.0 ? fits::offset_kind(bitpix, bzero_)
                                                            : std::nullopt;
    const bool narrow = bitpix == 8 || bitpix == 16 || bitpix == -32;
    if (unsigned_kind) {
      scaling_ = Scaling::kUnsigned;
      info_.dtype = std::string(asdfcore::ndarray::kind_info(*unsigned_kind).numpy_name);
    } else if (bscale_ != 1.0 || bzero_ != 0.0 || blank_) {
      scaling_ = narrow ? Scaling::kFloat32 : Scaling::kFloat64;
      info_.dtype = narrow ? "float32" : "float64";
    } else {
      scaling_ = Scaling::kNone;
      info_.dtype = std::string(asdfcore::ndarray::kind_info(*kind).numpy_name);
    }
    info_.precision = info_.dtype == "float32" ? ValuePrecision::kFloat32 : ValuePrecision::kFloat64;
  }

  void read_row(std::uint64_t row, std::span<double> out) const override {
    const std::uint8_t* p = bytes_.data() + plane_start_ + row * info_.width * itemsize_;
    const std::size_t n = out.size();
    switch (bitpix_) {
      case 8: convert(p, n, out, [](const std::uint8_t* q) { return std::int64_t{*q}; }); break;
      case 16:
        convert(p, n, out, [](const std::uint8_t* q) {
          return std::int64_t{static_cast<std::int16_t>((q[0] << 8) | q[1])};
        });
        break;
      case 32:
        convert(p, n, out, [](const std::uint8_t* q) {
          return std::int64_t{static_cast<std::int32_t>(load_be(q, 4))};
        });
        break;
      case 64:
        convert(p, n, out,
                [](const std::uint8_t* q) { return static_cast<std::int64_t>(load_be(q, 8)); });
        break;
      case -32:
        for (std::size_t i = 0; i < n; ++i) {
          float f = std::bit_cast<float>(static_cast<std::uint32_t>(load_be(p + 4 * i, 4)));
          if (bscale_ != 1.0) f = f * static_cast<float>(bscale_);
          if (bzero_ != 0.0) f = f + static_cast<float>(bzero_);
          out[i] = f;
        }
        break;
      default:
        for (std::size_t i = 0; i < n; ++i) {
          double d = std::bit_cast<double>(load_be(p + 8 * i, 8));
          if (bscale_ != 1.0) d = d * bscale_;
          if (bzero_ != 0.0) d = d + bzero_;
          out[i] = d;
        }
        break;
    }
  }

 private:
  static std::uint64_t load_be(const std::uint8_t* p, std::size_t size) noexcept {
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < size; ++k) v = (v << 8) | p[k];
    return v;
  }

  /// Convert `n` stored integers (read by `load`) to the values astropy holds.
  template <typename Load>
  void convert(const std::uint8_t* p, std::size_t n, std::span<double> out, Load load) const {
    const auto scale32 = static_cast<float>(bscale_);
    const auto zero32 = static_cast<float>(bzero_);
    for (std::size_t i = 0; i < n; ++i, p += itemsize_) {
      const std::int64_t v = load(p);
      if (blank_ && v == *blank_) {
        out[i] = std::nan("");
        continue;
      }
      switch (scaling_) {
        case Scaling::kNone: out[i] = static_cast<double>(v); break;
        case Scaling::kUnsigned:
          // BZERO = 2^(bits - 1) exactly: the value is the stored one plus BZERO, exact in
          // integers (uint64 values above 2^53 round as numpy's conversion to float does).
          out[i] = bitpix_ == 64 ? static_cast<double>(static_cast<std::uint64_t>(v) ^
                                                       (std::uint64_t{1} << 63))
                                 : static_cast<double>(v) + bzero_;
          break;
        case Scaling::kFloat32: {
          auto f = static_cast<float>(v);
          if (bscale_ != 1.0) f = f * scale32;
          if (bzero_ != 0.0) f = f + zero32;
          out[i] = f;
          break;
        }
        case Scaling::kFloat64: {
          auto d = static_cast<double>(v);
          if (bscale_ != 1.0) d = d * bscale_;
          if (bzero_ != 0.0) d = d + bzero_;
          out[i] = d;
          break;
        }
      }
    }
  }

  fits::FitsFile file_;
  asdfcore::io::Buffer bytes_;
  std::vector<Card> cards_;
  long long bitpix_ = 0;
  std::size_t itemsize_ = 0;
  std::uint64_t plane_start_ = 0;
  double bscale_ = 1.0;
  double bzero_ = 0.0;
  std::optional<std::int64_t> blank_;
  Scaling scaling_ = Scaling::kNone;
};

}  // namespace

std::unique_ptr<ImageSource> open_fits_source(const std::string& path,
                                              const PreviewOptions& options) {
  if (!options.array.empty()) {
    throw Error(ErrorCode::kInvalidArgument,
                path + " is a FITS file: choose its image by HDU number or EXTNAME, not by an "
                       "array pointer ('" + options.array + "')");
  }
  fits::FitsFile file = fits::FitsFile::open(path);
  const std::size_t index = choose_hdu(file, options);
  return std::make_unique<FitsSource>(std::move(file), index, options);
}

}  // namespace fitsasdf::preview_impl
