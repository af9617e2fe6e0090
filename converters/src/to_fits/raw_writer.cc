// HDUs carried as bytes (foreign extensions and SIMPLE = F primaries, whose `data` is uint8; and
// `raw_data` as older fitsasdf outputs hold it): the cards, then the bytes as they were stored.
#include "asdfcore/ndarray/dtype.h"
#include "asdfcore/tree/walk.h"
#include "to_fits/writers.h"

namespace fitsasdf::to_fits {

using asdfcore::ErrorCode;

HduPlan plan_raw(const ItemInput& input) {
  HduPlan plan = plan_header(input.item.header, input.item.images);
  plan.report.kind = "raw";
  const CardLookup cards(input.item.header);
  // fitsasdf before 0.x wrote the bytes under `raw_data` beside `data: null`; now they are `data`.
  const bool legacy = input.item.raw_data != nullptr;
  const std::string key = legacy ? "raw_data" : "data";
  const auto& raw = legacy ? input.item.raw_data : input.item.data;
  if (!raw || !asdfcore::tree::is_ndarray(*raw)) {
    throw input.error(ErrorCode::kMalformed,
                      "`" + key + "` must be a uint8 ndarray of the data bytes");
  }
  const auto array = input.array(*raw, key);
  if (array.dtype().itemsize() != 1 || !array.dtype().is_numeric()) {
    throw input.error(ErrorCode::kMalformed,
                      "`" + key + "` must hold bytes (uint8), not " + array.dtype().name());
  }
  if (is_nonstandard_primary(input.item)) {
    // SIMPLE = F: the bytes after the header, as many as there are, unpadded.
    plan.data_size = array.size();
    plan.pad = false;
  } else {
    const std::uint64_t size = declared_data_size(cards, input);
    if (cards.string("XTENSION") == "TABLE") plan.fill = ' ';
    if (array.size() != size) {
      throw input.error(ErrorCode::kMalformed, "`" + key + "` holds " +
                                                   std::to_string(array.size()) +
                                                   " bytes but the header declares " +
                                                   std::to_string(size));
    }
    plan.data_size = size;
  }
  if (plan.data_size > 0) {
    plan.write_data = [array](DataSink& sink) { write_big_endian(array, false, sink); };
  }
  return plan;
}

bool is_nonstandard_primary(const FitsItem& item) {
  if (item.index != 1 || item.header.empty() || item.header.front().keyword != "SIMPLE") {
    return false;
  }
  const auto& value = item.header.front().value;
  return value && value->kind() == asdfcore::tree::NodeKind::kBool && !value->as_bool() &&
         CardLookup(item.header).find("GROUPS") == nullptr;
}

}  // namespace fitsasdf::to_fits
