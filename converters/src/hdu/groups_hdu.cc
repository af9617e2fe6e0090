// Random groups (a primary HDU with GROUPS = T and NAXIS1 = 0): GCOUNT groups, each PCOUNT
// parameters followed by an array of NAXIS2 x ... x NAXISn values, all of the BITPIX type.
//
// The `fits` item's data is a plain ndarray [GCOUNT, PCOUNT + NAXIS2*...*NAXISn] over the bytes
// as stored (one block, streamed from the input): asdf-astropy 0.3 hands the first item's data
// to `fits.PrimaryHDU`, which rejects a structured array, so one row per group is the form it
// opens. The native view names the parts: `parameters` (as astropy's `GroupData.par(name)` gives
// them) and `data` (the group arrays, a view into the same block unless physical values are
// asked for).
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "asdfcore/ndarray/ndarray.h"
#include "fits/fits_types.h"
#include "hdu/hdu_converter.h"

namespace fitsasdf::hdu {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ErrorContext;
using asdfcore::ndarray::ByteOrder;
using asdfcore::ndarray::DType;
using asdfcore::ndarray::DTypeKind;
using asdfcore::ndarray::NDArrayNodeSpec;
using asdfcore::tree::Node;
using asdfcore::tree::NodeKind;
using asdfcore::tree::NodePtr;

/// Return the big-endian element at `p` of BITPIX `bitpix` as a double (integers exactly as
/// numpy converts them: BITPIX 8 unsigned, the others signed).
double load_value(const std::uint8_t* p, long long bitpix) noexcept {
  const std::size_t size = static_cast<std::size_t>(std::llabs(bitpix) / 8);
  std::uint64_t bits = 0;
  for (std::size_t k = 0; k < size; ++k) bits = (bits << 8) | p[k];
  switch (bitpix) {
    case 8:
      return static_cast<double>(bits);
    case 16:
      return static_cast<double>(static_cast<std::int16_t>(bits));
    case 32:
      return static_cast<double>(static_cast<std::int32_t>(bits));
    case 64:
      return static_cast<double>(static_cast<std::int64_t>(bits));
    case -32: {
      const auto u = static_cast<std::uint32_t>(bits);
      float f;
      std::memcpy(&f, &u, 4);
      return static_cast<double>(f);
    }
    default: {
      double d;
      std::memcpy(&d, &bits, 8);
      return d;
    }
  }
}

/// Return true when the integer element at `p` equals `blank`.
bool is_blank(const std::uint8_t* p, long long bitpix, long long blank) noexcept {
  if (bitpix < 0) return false;
  const std::size_t size = static_cast<std::size_t>(bitpix / 8);
  std::uint64_t bits = 0;
  for (std::size_t k = 0; k < size; ++k) bits = (bits << 8) | p[k];
  switch (bitpix) {
    case 8:
      return static_cast<long long>(bits) == blank;
    case 16:
      return static_cast<std::int16_t>(bits) == blank;
    case 32:
      return static_cast<std::int32_t>(bits) == blank;
    default:
      return static_cast<std::int64_t>(bits) == blank;
  }
}

/// One group parameter.
struct Parameter {
  std::string name;    ///< PTYPEn, or PAR<n> when missing or blank.
  double scale = 1.0;  ///< PSCALn.
  double zero = 0.0;   ///< PZEROn.
  /// The unsigned kind astropy reads the parameter as (PZEROn = 2^15, 2^31 or 2^63 on BITPIX
  /// 16, 32, 64 with PSCALn = 1), or nothing.
  std::optional<DTypeKind> offset_kind;
};

/// Return the parameter's value in group `g` as astropy converts it (float64: `value * PSCAL`
/// when PSCAL is not 1, then `+ PZERO` when PZERO is not 0; an unsigned offset exactly).
double physical_parameter(const std::uint8_t* p, long long bitpix, const Parameter& par) noexcept {
  double v = load_value(p, bitpix);
  if (par.offset_kind) {
    std::uint64_t bits = 0;
    const std::size_t size = static_cast<std::size_t>(bitpix / 8);
    for (std::size_t k = 0; k < size; ++k) bits = (bits << 8) | p[k];
    bits ^= std::uint64_t{1} << (8 * size - 1);
    return static_cast<double>(bits);
  }
  if (par.scale != 1.0) v = v * par.scale;
  if (par.zero != 0.0) v = v + par.zero;
  return v;
}

class GroupsConverter final : public HduConverter {
 public:
  std::string_view name() const noexcept override { return "random groups"; }
  bool accepts(const HduInput& input) const override {
    if (input.extent.type != 0 || input.extent.tile_compressed || input.cards.empty() ||
        input.cards.front().keyword != "SIMPLE") {
      return false;
    }
    const HeaderView header(input.cards);
    const NodePtr groups = header.value("GROUPS");
    const NodePtr naxis1 = header.value("NAXIS1");
    const NodePtr naxis = header.value("NAXIS");
    return groups && groups->kind() == NodeKind::kBool && groups->as_bool() && naxis1 &&
           naxis1->kind() == NodeKind::kInt && naxis1->as_int() == 0 && naxis &&
           naxis->kind() == NodeKind::kInt && naxis->as_int() >= 1;
  }
  HduOutput convert(const HduInput& input, BlockSink& sink,
                    const ConvertOptions& options) const override;
};

HduOutput GroupsConverter::convert(const HduInput& input, BlockSink& sink,
                                   const ConvertOptions& options) const {
  const HeaderView header(input.cards);
  const ErrorContext where = input.where();
  HduOutput out;
  out.report.index = input.extent.index;
  out.report.kind = "random groups";
  HduReport& report = out.report;

  const long long bitpix = header.integer("BITPIX", 0);
  const auto kind = fits::kind_for_bitpix(bitpix);
  if (!kind) {
    throw Error(ErrorCode::kMalformed, "BITPIX = " + std::to_string(bitpix) + " is not a FITS type",
                where);
  }
  const std::uint64_t size = declared_data_size(header, where);  // checks every NAXISn
  const long long naxis = header.integer("NAXIS", 0);
  const long long pcount = header.integer("PCOUNT", 0);
  const long long gcount = header.integer("GCOUNT", 1);
  if (pcount > 999) {
    throw Error(ErrorCode::kMalformed,
                "PCOUNT = " + std::to_string(pcount) +
                    " random-groups parameters; at most 999 "
                    "can be named (PTYPEn)",
                where);
  }
  std::vector<std::uint64_t> group_shape;  // NAXISn ... NAXIS2
  std::uint64_t group_size = 1;
  for (long long i = naxis; i >= 2; --i) {
    const auto n = static_cast<std::uint64_t>(header.integer("NAXIS" + std::to_string(i), 0));
    group_shape.push_back(n);
    group_size *= n;  // cannot overflow: declared_data_size checked the product
  }
  if (input.data.size() < size) {
    throw Error(ErrorCode::kTruncated,
                "the data holds " + std::to_string(input.data.size()) + " of the " +
                    std::to_string(size) + " bytes the header declares",
                where);
  }
  const DType stored = DType::numeric(*kind, ByteOrder::kBig);
  const std::uint64_t itemsize = stored.itemsize();
  const auto npar = static_cast<std::uint64_t>(pcount);
  const auto ngroups = static_cast<std::uint64_t>(gcount);
  const std::uint64_t row_elements = npar + group_size;
  const std::uint64_t row_bytes = row_elements * itemsize;

  out.item = Node::make_mapping();
  out.item->set("header", header_node(input.cards));
  if (size == 0) {
    out.item->set("data", Node::make_null());
    report.notes.push_back("random groups without data (GCOUNT, PCOUNT or an axis is 0)");
    return out;
  }
  // Every element has the one BITPIX type, so `--native-byteorder` is a plain swap of the block
  // on its way through; the views below follow the block's byte order.
  DType shown = stored;
  BlockSink::Transform transform;
  if (options.native_byte_order && itemsize > 1 &&
      asdfcore::ndarray::native_byte_order() != ByteOrder::kBig) {
    transform = [plan = stored.swap_plan(asdfcore::ndarray::native_byte_order()), itemsize](
                    std::span<std::uint8_t> chunk, std::uint64_t) {
      asdfcore::ndarray::apply_swap_plan(chunk, itemsize, plan);
    };
    shown = stored.with_byte_order(asdfcore::ndarray::native_byte_order());
  }
  const std::int64_t block =
      sink.add_input(input.file, input.extent.data_start,
                     input.data.slice(0, static_cast<std::size_t>(size)), std::move(transform));
  NDArrayNodeSpec rows;
  rows.dtype = shown;
  rows.shape = {ngroups, row_elements};
  rows.source = block;
  out.item->set("data", asdfcore::ndarray::make_ndarray_node(rows));
  report.notes.push_back("the fits item's data has one row per group: the " + std::to_string(npar) +
                         " parameters, then the group's array of " + std::to_string(group_size) +
                         " values");
  if (!options.native_view) return out;

  // Parameters, grouped by name without regard to case as astropy's `par()` does.
  std::vector<Parameter> parameters;
  for (std::uint64_t i = 1; i <= npar; ++i) {
    const std::string n = std::to_string(i);
    Parameter p;
    p.name = header.string("PTYPE" + n);
    while (!p.name.empty() && p.name.back() == ' ') p.name.pop_back();
    if (p.name.empty()) p.name = "PAR" + n;
    p.scale = header.number("PSCAL" + n, 1.0);
    p.zero = header.number("PZERO" + n, 0.0);
    if (p.scale == 1.0 && bitpix != 8) p.offset_kind = fits::offset_kind(bitpix, p.zero);
    parameters.push_back(std::move(p));
  }
  std::vector<std::pair<std::string, std::vector<std::uint64_t>>> by_name;
  std::map<std::string, std::size_t> index_of;  // upper-cased name -> by_name index
  for (std::uint64_t i = 0; i < npar; ++i) {
    std::string upper = parameters[i].name;
    for (char& ch : upper) {
      if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
    }
    const auto [it, inserted] = index_of.emplace(upper, by_name.size());
    if (inserted) by_name.push_back({parameters[i].name, {}});
    by_name[it->second].second.push_back(i);
  }
  const std::span<const std::uint8_t> bytes = input.data.span().subspan(0, size);
  NodePtr params = Node::make_mapping();
  for (const auto& [name, members] : by_name) {
    const Parameter& first = parameters[members.front()];
    NDArrayNodeSpec spec;
    spec.shape = {ngroups};
    if (members.size() == 1 && first.scale == 1.0 && first.zero == 0.0) {
      spec.dtype = shown;
      spec.source = block;
      spec.offset = members.front() * itemsize;
      spec.strides = {static_cast<std::int64_t>(row_bytes)};
    } else if (members.size() == 1 && first.offset_kind) {
      // astropy reads it as unsigned integers: the stored values with the sign bit flipped.
      std::vector<std::uint8_t> values(static_cast<std::size_t>(ngroups * itemsize));
      for (std::uint64_t g = 0; g < ngroups; ++g) {
        std::memcpy(values.data() + g * itemsize,
                    bytes.data() + g * row_bytes + members.front() * itemsize, itemsize);
        values[g * itemsize] ^= 0x80;
      }
      spec.dtype = DType::numeric(*first.offset_kind, ByteOrder::kBig);
      spec.source = sink.add_owned(std::move(values));
    } else {
      std::vector<std::uint8_t> values(static_cast<std::size_t>(ngroups * 8));
      for (std::uint64_t g = 0; g < ngroups; ++g) {
        double sum = 0.0;
        for (std::size_t k = 0; k < members.size(); ++k) {
          const std::uint8_t* p = bytes.data() + g * row_bytes + members[k] * itemsize;
          const double v = physical_parameter(p, bitpix, parameters[members[k]]);
          sum = k == 0 ? v : sum + v;
        }
        std::memcpy(values.data() + g * 8, &sum, 8);
      }
      spec.dtype = DType::numeric(DTypeKind::kFloat64);
      spec.source = sink.add_owned(std::move(values));
      if (members.size() > 1) {
        report.notes.push_back("parameters named '" + name + "' (" +
                               std::to_string(members.size()) +
                               " of them) summed after "
                               "PSCAL/PZERO, as astropy's par() does");
      }
    }
    params->set(name, asdfcore::ndarray::make_ndarray_node(spec));
  }

  // The group arrays.
  const double bscale = header.number("BSCALE", 1.0);
  const double bzero = header.number("BZERO", 0.0);
  const bool scaled = bscale != 1.0 || bzero != 0.0;
  std::optional<long long> blank;
  if (bitpix > 0 && header.has("BLANK")) blank = header.integer("BLANK", 0);
  NDArrayNodeSpec spec;
  spec.shape = {ngroups};
  spec.shape.insert(spec.shape.end(), group_shape.begin(), group_shape.end());
  NodePtr data;
  if (options.scaling == ScalingPolicy::kPhysical && (scaled || blank)) {
    // Standard physical values, value * BSCALE + BZERO, in float64 as astropy's table columns
    // compute them; BLANK elements become NaN.
    std::vector<std::uint8_t> values(static_cast<std::size_t>(ngroups * group_size * 8));
    std::uint8_t* dst = values.data();
    for (std::uint64_t g = 0; g < ngroups; ++g) {
      const std::uint8_t* src = bytes.data() + g * row_bytes + npar * itemsize;
      for (std::uint64_t i = 0; i < group_size; ++i, src += itemsize, dst += 8) {
        double v = load_value(src, bitpix);
        if (bscale != 1.0) v = v * bscale;
        if (bzero != 0.0) v = v + bzero;
        if (blank && is_blank(src, bitpix, *blank)) v = std::nan("");
        std::memcpy(dst, &v, 8);
      }
    }
    spec.dtype = DType::numeric(DTypeKind::kFloat64);
    spec.source = sink.add_owned(std::move(values));
    data = asdfcore::ndarray::make_ndarray_node(spec);
    report.notes.push_back(std::string(scaled ? "BSCALE/BZERO applied" : "BLANK applied") +
                           " to the group arrays: physical float64 values written" +
                           (blank ? ", BLANK as NaN" : ""));
  } else {
    spec.dtype = shown;
    spec.source = block;
    spec.offset = npar * itemsize;
    spec.strides = {static_cast<std::int64_t>(row_bytes)};
    std::int64_t stride = static_cast<std::int64_t>(itemsize);
    std::vector<std::int64_t> inner(group_shape.size());
    for (std::size_t i = group_shape.size(); i > 0; --i) {
      inner[i - 1] = stride;
      stride *= static_cast<std::int64_t>(group_shape[i - 1]);
    }
    spec.strides.insert(spec.strides.end(), inner.begin(), inner.end());
    data = asdfcore::ndarray::make_ndarray_node(spec);
    if (blank) data->set("mask", Node::make_int(*blank));
    if (scaled) {
      report.notes.push_back(
          "BSCALE/BZERO kept as cards; the group arrays hold the stored "
          "values (--scaling physical applies them)");
    }
  }
  NodePtr native = Node::make_mapping();
  native->set("parameters", params);
  native->set("data", data);
  out.native = native;
  return out;
}

}  // namespace

std::shared_ptr<const HduConverter> make_groups_converter() {
  return std::make_shared<GroupsConverter>();
}

}  // namespace fitsasdf::hdu
