// The ASDF side of a preview: the ndarray at a JSON Pointer, or the first of 2 or more
// dimensions in the tree's order, read through its offset and strides from its block (a view
// of the mapping for an uncompressed block; a compressed block is decoded whole). Values are
// converted from any numeric dtype in either byte order; masked elements (python asdf's mask:
// a value, an array, inline nulls) become NaN.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <optional>
#include <type_traits>

#include "asdfcore/asdf_file.h"
#include "asdfcore/error.h"
#include "asdfcore/tree/reference.h"
#include "asdfcore/tree/walk.h"
#include "preview/image_source.h"

namespace fitsasdf::preview_impl {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ndarray::DTypeKind;
using asdfcore::ndarray::NDArray;
using asdfcore::tree::NodePtr;

/// Why `array` cannot be shown, or "" when it can.
std::string not_an_image(const NDArray& array) {
  const auto& dtype = array.dtype();
  if (!dtype.is_numeric()) {
    return "holds " + dtype.name() + " elements; a preview needs numbers";
  }
  if (dtype.kind() == DTypeKind::kComplex64 || dtype.kind() == DTypeKind::kComplex128) {
    return "holds " + dtype.name() + " numbers; a preview needs real numbers";
  }
  if (array.ndim() < 2) {
    return "has " + std::to_string(array.ndim()) +
           (array.ndim() == 1 ? " dimension" : " dimensions") + "; a preview needs 2 or more";
  }
  if (array.size() == 0) return "has no elements";
  return "";
}

class AsdfSource final : public ImageSource {
 public:
  AsdfSource(asdfcore::AsdfFile file, NDArray array, const std::string& pointer,
             const PreviewOptions& options)
      : file_(std::move(file)), array_(std::move(array)) {
    info_.format = "asdf";
    info_.array = pointer;
    info_.where = file_.path() + ": array " + pointer;
    const std::string why = not_an_image(array_);
    if (!why.empty()) throw Error(ErrorCode::kInvalidArgument, info_.where + " " + why);
    info_.shape = array_.shape();
    info_.dtype = array_.dtype().name();
    const std::size_t nd = info_.shape.size();
    info_.width = info_.shape[nd - 1];
    info_.height = info_.shape[nd - 2];
    info_.plane = choose_plane(info_.shape, options.plane, info_.where);
    switch (array_.dtype().kind()) {
      case DTypeKind::kFloat16: info_.precision = ValuePrecision::kFloat16; break;
      case DTypeKind::kFloat32: info_.precision = ValuePrecision::kFloat32; break;
      default: info_.precision = ValuePrecision::kFloat64; break;
    }
    const auto& strides = array_.strides();
    plane_start_ = static_cast<std::int64_t>(array_.offset());
    std::uint64_t plane_number = 0;
    for (std::size_t a = 0; a < info_.plane.size(); ++a) {
      plane_start_ += static_cast<std::int64_t>(info_.plane[a]) * strides[a];
      plane_number = plane_number * info_.shape[a] + info_.plane[a];
    }
    plane_first_element_ = plane_number * info_.width * info_.height;
    row_stride_ = strides[nd - 2];
    column_stride_ = strides[nd - 1];
    const auto order = array_.dtype().byte_order();
    swap_ = order != asdfcore::ndarray::ByteOrder::kNotApplicable &&
            order != asdfcore::ndarray::native_byte_order();
    if (array_.has_mask()) mask_ = array_.mask_c_order();
    bytes_ = array_.data().data();
  }

  void read_row(std::uint64_t row, std::span<double> out) const override {
    const std::uint8_t* p =
        bytes_ + plane_start_ + static_cast<std::int64_t>(row) * row_stride_;
    asdfcore::ndarray::visit_numeric(array_.dtype().kind(), [&]<typename T>(std::type_identity<T>) {
      for (std::size_t c = 0; c < out.size(); ++c) {
        out[c] = load<T>(p + static_cast<std::int64_t>(c) * column_stride_);
      }
    });
    if (!mask_.empty()) {
      const std::uint64_t first = plane_first_element_ + row * info_.width;
      for (std::size_t c = 0; c < out.size(); ++c) {
        if (mask_[first + c]) out[c] = std::nan("");
      }
    }
  }

 private:
  template <typename T>
  double load(const std::uint8_t* p) const noexcept {
    if constexpr (std::is_same_v<T, std::complex<float>> ||
                  std::is_same_v<T, std::complex<double>>) {
      return std::nan("");  // refused in the constructor
    } else {
      std::uint8_t raw[sizeof(T)];
      std::memcpy(raw, p, sizeof(T));
      if (swap_) std::reverse(raw, raw + sizeof(T));
      if constexpr (std::is_same_v<T, asdfcore::ndarray::Float16>) {
        std::uint16_t bits;
        std::memcpy(&bits, raw, 2);
        return asdfcore::ndarray::float16_to_double(bits);
      } else if constexpr (std::is_same_v<T, bool>) {
        return raw[0] != 0 ? 1.0 : 0.0;
      } else {
        T v;
        std::memcpy(&v, raw, sizeof(T));
        return static_cast<double>(v);
      }
    }
  }

  asdfcore::AsdfFile file_;
  NDArray array_;
  const std::uint8_t* bytes_ = nullptr;
  std::int64_t plane_start_ = 0;
  std::uint64_t plane_first_element_ = 0;
  std::int64_t row_stride_ = 0;
  std::int64_t column_stride_ = 0;
  bool swap_ = false;
  std::vector<std::uint8_t> mask_;
};

}  // namespace

std::unique_ptr<ImageSource> open_asdf_source(const std::string& path,
                                              const PreviewOptions& options) {
  if (options.hdu || !options.extname.empty()) {
    throw Error(ErrorCode::kInvalidArgument,
                path + " is an ASDF file: choose its array by JSON Pointer (--array /sci), not "
                       "by HDU");
  }
  asdfcore::AsdfFile file = asdfcore::AsdfFile::open(path);
  const NodePtr& root = file.tree();
  if (!options.array.empty()) {
    const auto tokens = asdfcore::tree::parse_json_pointer(options.array);
    const NodePtr node = asdfcore::tree::find_by_pointer(root, tokens);
    if (!node) {
      throw Error(ErrorCode::kNotFound,
                  path + ": the tree has nothing at " + options.array);
    }
    if (!asdfcore::tree::is_ndarray(*node)) {
      throw Error(ErrorCode::kInvalidArgument,
                  path + ": " + options.array + " is a " +
                      std::string(asdfcore::tree::node_kind_name(node->kind())) +
                      ", not an ndarray");
    }
    NDArray array = file.array(*node, options.array, NDArray::Load::kDeferred);
    return std::make_unique<AsdfSource>(std::move(file), std::move(array), options.array,
                                        options);
  }
  std::optional<std::pair<NDArray, std::string>> found;
  std::uint64_t looked_at = 0;
  asdfcore::tree::walk(root, [&](const NodePtr& node, const std::string& pointer) {
    if (found) return false;
    if (!asdfcore::tree::is_ndarray(*node)) return true;
    ++looked_at;
    try {
      NDArray array = file.array(*node, pointer, NDArray::Load::kDeferred);
      if (not_an_image(array).empty()) found.emplace(std::move(array), pointer);
    } catch (const Error&) {
      // An array that cannot be read is passed over when looking for the first image.
    }
    return false;
  });
  if (!found) {
    throw Error(ErrorCode::kNotFound,
                path + ": no ndarray of 2 or more dimensions in the tree (" +
                    std::to_string(looked_at) + " ndarrays looked at)");
  }
  return std::make_unique<AsdfSource>(std::move(file), std::move(found->first), found->second,
                                      options);
}

}  // namespace fitsasdf::preview_impl
