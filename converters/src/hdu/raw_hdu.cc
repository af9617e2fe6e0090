// Any HDU no other converter maps (foreign XTENSION values such as 'IUEIMAGE' or 'FOREIGN', and
// a SIMPLE = F primary): the header's cards and the data bytes exactly as stored, as the item's
// `data` (uint8, as astropy's NonstandardExtHDU and _NonstandardHDU read them), so nothing is
// lost and asdf-astropy rebuilds an HDU from it.
#include "asdfcore/error.h"
#include "asdfcore/ndarray/ndarray.h"
#include "hdu/hdu_converter.h"

namespace fitsasdf::hdu {
namespace {

using asdfcore::tree::Node;

class RawConverter final : public HduConverter {
 public:
  std::string_view name() const noexcept override { return "raw"; }
  bool accepts(const HduInput&) const override { return true; }
  HduOutput convert(const HduInput& input, BlockSink& sink,
                    const ConvertOptions&) const override {
    const HeaderView header(input.cards);
    const asdfcore::ErrorContext where = input.where();
    HduOutput out;
    out.report.index = input.extent.index;
    out.report.kind = "raw";
    const std::string xtension = header.string("XTENSION");
    const bool nonstandard = input.extent.nonstandard_primary;
    out.report.notes.push_back(
        nonstandard ? std::string("SIMPLE = F: not standard FITS; every byte after the header is "
                                  "kept as `data` (uint8), as astropy reads it")
                    : (xtension.empty() ? std::string("this HDU") : "XTENSION '" + xtension + "'") +
                          " is not a kind fitsasdf maps to ASDF types: its data bytes are kept as "
                          "stored as `data` (uint8), as astropy reads them");
    out.item = Node::make_mapping();
    out.item->set("header", header_node(input.cards));
    // SIMPLE = F: the rest of the file, whatever the header says (astropy's _NonstandardHDU).
    const std::uint64_t size =
        nonstandard ? input.extent.data_size : declared_data_size(header, where);
    if (input.data.size() < size) {
      throw asdfcore::Error(asdfcore::ErrorCode::kTruncated,
                            "the data holds " + std::to_string(input.data.size()) + " of the " +
                                std::to_string(size) + " bytes the header declares",
                            where);
    }
    // Always an array, possibly empty: asdf-astropy builds an HDU from every item's data and
    // cannot from a null one.
    asdfcore::ndarray::NDArrayNodeSpec spec;
    spec.dtype = asdfcore::ndarray::DType::numeric(asdfcore::ndarray::DTypeKind::kUInt8);
    spec.shape = {size};
    spec.source = sink.add_input(input.file, input.extent.data_start,
                                 input.data.slice(0, static_cast<std::size_t>(size)));
    out.item->set("data", asdfcore::ndarray::make_ndarray_node(spec));
    return out;
  }
};

}  // namespace

std::shared_ptr<const HduConverter> make_raw_converter() {
  return std::make_shared<RawConverter>();
}

}  // namespace fitsasdf::hdu
