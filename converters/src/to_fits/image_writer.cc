// Primary arrays and IMAGE extensions: the cards, then the array in big-endian order. Three
// forms of data are accepted, the inverses of what FITS -> ASDF writes: the stored type itself
// (any byte order), the unsigned type of a BZERO offset (sign bits flipped back), and physical
// floats (`--scaling physical`), turned back into the stored values when every element has one
// that gives it exactly. Physical floats that do not (the data was edited) are written as they
// are, as a float image (BITPIX -32 or -64 by their type) with BSCALE, BZERO and BLANK removed:
// the values the user has are kept and the report says the layout changed.
#include <cmath>

#include "asdfcore/tree/walk.h"
#include "fits/fits_types.h"
#include "to_fits/stored_values.h"
#include "to_fits/writers.h"

namespace fitsasdf::to_fits {
namespace {

using asdfcore::ErrorCode;
using asdfcore::ndarray::DTypeKind;
using asdfcore::ndarray::NDArray;
using asdfcore::tree::Node;

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

HduPlan plan_image(const ItemInput& input) {
  HduPlan plan = plan_header(input.item.header, input.item.images);
  plan.report.kind = "image";
  const CardLookup cards(input.item.header);
  const std::uint64_t size = declared_data_size(cards, input);
  const long long bitpix = cards.integer("BITPIX", 0);
  const auto& data = input.item.data;
  if (!data || size == 0) {
    if (size > 0) {
      throw input.error(ErrorCode::kMalformed,
                        "the header declares " + std::to_string(size) +
                            " bytes of data (BITPIX and NAXISn) but the item has no `data`");
    }
    if (data && asdfcore::tree::is_ndarray(*data) && input.array(*data, "data").size() > 0) {
      throw input.error(ErrorCode::kMalformed,
                        "the header declares no data (NAXIS = 0 or an axis of length 0) but the "
                        "item's `data` has elements");
    }
    return plan;
  }
  if (!asdfcore::tree::is_ndarray(*data)) {
    throw input.error(ErrorCode::kMalformed, "the `data` of an image HDU must be an ndarray, not " +
                                                 asdfcore::tree::describe_for_error(*data));
  }
  const NDArray array = input.array(*data, "data");
  const std::vector<std::uint64_t> axes = c_order_axes(cards, input);
  if (array.shape() != axes) {
    throw input.error(ErrorCode::kMalformed, "the header's axes (NAXISn..NAXIS1) are " +
                                                 shape_text(axes) + " but the data's shape is " +
                                                 shape_text(array.shape()));
  }
  const DTypeKind stored = *fits::kind_for_bitpix(bitpix);
  const double bscale = cards.number("BSCALE", 1.0);
  const double bzero = cards.number("BZERO", 0.0);
  const DTypeKind kind = array.dtype().kind();
  plan.data_size = size;
  if (kind == stored) {
    plan.write_data = [array](DataSink& sink) { write_big_endian(array, false, sink); };
    return plan;
  }
  const auto offset = bscale == 1.0 ? fits::offset_kind(bitpix, bzero) : std::nullopt;
  if (offset && kind == *offset) {
    plan.write_data = [array](DataSink& sink) { write_big_endian(array, true, sink); };
    return plan;
  }
  if (kind != DTypeKind::kFloat32 && kind != DTypeKind::kFloat64) {
    throw input.error(ErrorCode::kMalformed,
                      "BITPIX = " + std::to_string(bitpix) + " stores " +
                          std::string(asdfcore::ndarray::kind_info(stored).asdf_name) +
                          " but the data is " + array.dtype().name() +
                          " (neither that type, nor the unsigned type of a BZERO offset, nor "
                          "physical floats)");
  }
  std::optional<long long> blank;
  if (bitpix > 0 && cards.find("BLANK") && !cards.find("BLANK")->value->is_null()) {
    blank = cards.integer("BLANK", 0);
  }
  if (auto values = stored_from_physical(array, bitpix, bscale, bzero, blank)) {
    plan.report.notes.push_back("physical values turned back into the stored values (exact)");
    if (values->ambiguous > 0) {
      plan.report.notes.push_back(
          std::to_string(values->ambiguous) +
          " elements have several stored values giving the same physical value; the nearest "
          "was taken (the physical values are exact, the stored ones may differ)");
    }
    auto bytes = std::make_shared<std::vector<std::uint8_t>>(std::move(values->bytes));
    plan.write_data = [bytes](DataSink& sink) { sink.write(*bytes); };
    return plan;
  }
  // Floats that no stored value gives: keep the user's values, as a float image.
  const long long float_bitpix = kind == DTypeKind::kFloat32 ? -32 : -64;
  plan.set_value("BITPIX", Node::make_int(float_bitpix));
  std::string removed;
  for (const char* key : {"BSCALE", "BZERO", "BLANK"}) {
    if (plan.erase(key) > 0) removed += (removed.empty() ? "" : ", ") + std::string(key);
  }
  plan.report.notes.push_back(
      "the data is " + array.dtype().name() + " values that no stored value of BITPIX = " +
      std::to_string(bitpix) + (removed.empty() ? "" : " with " + removed) +
      " gives exactly: written as they are with BITPIX = " + std::to_string(float_bitpix) +
      (removed.empty() ? "" : " and " + removed + " removed"));
  plan.data_size = array.size() * array.dtype().itemsize();
  plan.write_data = [array](DataSink& sink) { write_big_endian(array, false, sink); };
  return plan;
}

}  // namespace fitsasdf::to_fits
