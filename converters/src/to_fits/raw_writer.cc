// HDUs carried as bytes (`raw_data`: foreign extensions, and anything FITS -> ASDF did not map):
// the cards, then the bytes as they were stored.
#include "asdfcore/ndarray/dtype.h"
#include "asdfcore/tree/walk.h"
#include "to_fits/writers.h"

namespace fitsasdf::to_fits {

using asdfcore::ErrorCode;

HduPlan plan_raw(const ItemInput& input) {
  HduPlan plan = plan_header(input.item.header, input.item.images);
  plan.report.kind = "raw";
  const CardLookup cards(input.item.header);
  const std::uint64_t size = declared_data_size(cards, input);
  if (cards.string("XTENSION") == "TABLE") plan.fill = ' ';
  const auto& raw = input.item.raw_data;
  if (!asdfcore::tree::is_ndarray(*raw)) {
    throw input.error(ErrorCode::kMalformed,
                      "`raw_data` must be a uint8 ndarray of the data bytes");
  }
  const auto array = input.array(*raw, "raw_data");
  if (array.dtype().itemsize() != 1 || !array.dtype().is_numeric()) {
    throw input.error(ErrorCode::kMalformed,
                      "`raw_data` must hold bytes (uint8), not " + array.dtype().name());
  }
  if (array.size() != size) {
    throw input.error(ErrorCode::kMalformed, "`raw_data` holds " + std::to_string(array.size()) +
                                                 " bytes but the header declares " +
                                                 std::to_string(size));
  }
  plan.data_size = size;
  plan.write_data = [array](DataSink& sink) { write_big_endian(array, false, sink); };
  return plan;
}

}  // namespace fitsasdf::to_fits
