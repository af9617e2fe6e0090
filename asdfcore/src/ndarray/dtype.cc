#include "asdfcore/ndarray/dtype.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <utility>

namespace asdfcore::ndarray {
namespace {

using tree::Node;
using tree::NodeKind;
using tree::NodePtr;

/// The one table of kinds: ASDF name, numpy name stem, numpy type character, bytes per unit
/// (element, or character for strings) and bytes per byte-swapped unit.
constexpr std::array<KindInfo, 17> kKinds = {{
    {DTypeKind::kInt8, "int8", "int8", 'i', 1, 0},
    {DTypeKind::kInt16, "int16", "int16", 'i', 2, 2},
    {DTypeKind::kInt32, "int32", "int32", 'i', 4, 4},
    {DTypeKind::kInt64, "int64", "int64", 'i', 8, 8},
    {DTypeKind::kUInt8, "uint8", "uint8", 'u', 1, 0},
    {DTypeKind::kUInt16, "uint16", "uint16", 'u', 2, 2},
    {DTypeKind::kUInt32, "uint32", "uint32", 'u', 4, 4},
    {DTypeKind::kUInt64, "uint64", "uint64", 'u', 8, 8},
    {DTypeKind::kFloat16, "float16", "float16", 'f', 2, 2},
    {DTypeKind::kFloat32, "float32", "float32", 'f', 4, 4},
    {DTypeKind::kFloat64, "float64", "float64", 'f', 8, 8},
    {DTypeKind::kComplex64, "complex64", "complex64", 'c', 8, 4},
    {DTypeKind::kComplex128, "complex128", "complex128", 'c', 16, 8},
    {DTypeKind::kBool8, "bool8", "bool", 'b', 1, 0},
    {DTypeKind::kAscii, "ascii", "bytes", 'S', 1, 0},
    {DTypeKind::kUcs4, "ucs4", "str", 'U', 4, 4},
    {DTypeKind::kStructured, "", "void", 'V', 0, 0},
}};

[[noreturn]] void fail(const std::string& path, std::string message) {
  ErrorContext context;
  context.tree_path = path;
  throw Error(ErrorCode::kMalformed, std::move(message), std::move(context));
}

/// Multiply with a check against `kMaxItemsize`; return nothing when exceeded.
std::optional<std::uint64_t> bounded_mul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > kMaxItemsize / a) return std::nullopt;
  return a * b;
}


std::string order_char(const DType& dtype) {
  switch (dtype.byte_order()) {
    case ByteOrder::kLittle:
      return "<";
    case ByteOrder::kBig:
      return ">";
    case ByteOrder::kNotApplicable:
      break;
  }
  return "|";
}

/// Quote `text` as python's repr of a str does in the common case (single quotes).
std::string py_quote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string py_shape_tuple(const std::vector<std::uint64_t>& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + (shape.size() == 1 ? ",)" : ")");
}

/// numpy's short spelling of a field type inside `str(dtype)`: the `|` prefix is dropped.
std::string short_str(const DType& dtype) {
  if (dtype.is_structured()) return dtype.to_string();
  std::string s = dtype.numpy_str();
  return s[0] == '|' ? s.substr(1) : s;
}

std::string descr_text(const DType& dtype, bool short_form) {
  std::string out = "[";
  const auto fields = dtype.fields();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const Field& f = fields[i];
    if (i) out += ", ";
    out += "(" + py_quote(effective_field_name(dtype, i)) + ", ";
    if (f.dtype.is_structured()) {
      out += descr_text(f.dtype, short_form);
    } else {
      out += py_quote(short_form ? short_str(f.dtype) : f.dtype.numpy_str());
    }
    if (!f.shape.empty()) out += ", " + py_shape_tuple(f.shape);
    out += ")";
  }
  return out + "]";
}

NodePtr flow_sequence() {
  NodePtr seq = Node::make_sequence();
  seq->collection_style = tree::CollectionStyle::kFlow;
  return seq;
}

void collect_swaps(const DType& dtype, std::uint64_t base, std::uint64_t repeat, ByteOrder target,
                   std::vector<SwapRun>& runs) {
  if (dtype.is_structured()) {
    for (std::uint64_t r = 0; r < repeat; ++r) {
      for (const Field& f : dtype.fields()) {
        collect_swaps(f.dtype, base + r * dtype.itemsize() + f.offset, f.count(), target, runs);
      }
    }
    return;
  }
  const KindInfo& info = kind_info(dtype.kind());
  if (info.swap_size == 0 || dtype.byte_order() == ByteOrder::kNotApplicable ||
      dtype.byte_order() == target || dtype.itemsize() == 0) {
    return;
  }
  const std::uint32_t unit = info.swap_size;
  const std::uint64_t count = dtype.itemsize() / unit * repeat;
  if (count == 0) return;
  if (!runs.empty()) {
    SwapRun& last = runs.back();
    if (last.unit == unit && last.offset + last.count * last.unit == base) {
      last.count += count;
      return;
    }
  }
  runs.push_back(SwapRun{base, unit, count});
}

DType parse_datatype(const Node& node, ByteOrder order, const std::string& path);

Field parse_field(const Node& item, ByteOrder order, const std::string& path) {
  Field field;
  if (!item.is_mapping()) {
    field.dtype = parse_datatype(item, order, path);
    return field;
  }
  const NodePtr datatype = item.get("datatype");
  if (!datatype) {
    fail(path, "field has no `datatype`; give each field mapping a `datatype` entry");
  }
  if (const NodePtr name = item.get("name")) {
    if (!name->is_string()) {
      fail(path + "/name", "field name must be a string, found " + tree::describe_for_error(*name));
    }
    field.name = name->as_string();
  }
  if (const NodePtr byteorder = item.get("byteorder")) {
    order = parse_byteorder(*byteorder, path + "/byteorder");
  }
  if (const NodePtr shape = item.get("shape")) {
    if (!shape->is_sequence()) {
      fail(path + "/shape",
           "field shape must be a list of non-negative integers, found " + tree::describe_for_error(*shape));
    }
    for (std::size_t i = 0; i < shape->items().size(); ++i) {
      const Node& dim = *shape->items()[i];
      if (dim.kind() != NodeKind::kInt || dim.as_int() < 0) {
        fail(path + "/shape/" + std::to_string(i),
             "field shape entries must be non-negative integers, found " + tree::describe_for_error(dim));
      }
      field.shape.push_back(static_cast<std::uint64_t>(dim.as_int()));
    }
  }
  field.dtype = parse_datatype(*datatype, order, path + "/datatype");
  return field;
}

DType parse_datatype(const Node& node, ByteOrder order, const std::string& path) {
  if (node.is_string()) {
    const std::string& name = node.as_string();
    if (auto kind = numeric_kind_from_asdf_name(name)) return DType::numeric(*kind, order);
    if (name == "ascii" || name == "ucs4") {
      fail(path, "datatype '" + name + "' needs a length: write [" + name + ", N]");
    }
    fail(path, "unknown datatype '" + name +
                   "'; expected int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
                   "float16, float32, float64, complex64, complex128, bool8, [ascii, N], "
                   "[ucs4, N] or a list of fields");
  }
  if (!node.is_sequence()) {
    fail(path, "datatype must be a name, [ascii, N], [ucs4, N] or a list of fields, found " +
                   tree::describe_for_error(node));
  }
  const auto& items = node.items();
  if (!items.empty() && items[0]->is_string() &&
      (items[0]->as_string() == "ascii" || items[0]->as_string() == "ucs4")) {
    const std::string& name = items[0]->as_string();
    if (items.size() != 2 || !items[1]->is_integer()) {
      fail(path, "string datatype must be [" + name + ", N] with an integer length N");
    }
    const Node& length = *items[1];
    if (length.kind() != NodeKind::kInt || length.as_int() < 0 ||
        !bounded_mul(static_cast<std::uint64_t>(length.as_int()), name == "ucs4" ? 4 : 1)) {
      fail(path + "/1", "string length " + length.integer_text() +
                            " must be a non-negative integer giving at most " +
                            std::to_string(kMaxItemsize) + " bytes");
    }
    const auto n = static_cast<std::uint64_t>(length.as_int());
    return name == "ascii" ? DType::ascii(n) : DType::ucs4(n, order);
  }
  std::vector<Field> fields;
  fields.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    fields.push_back(parse_field(*items[i], order, path + "/" + std::to_string(i)));
  }
  try {
    return DType::structured(std::move(fields));
  } catch (const Error& e) {
    fail(path, e.message());
  }
}

}  // namespace

ByteOrder native_byte_order() noexcept {
  return std::endian::native == std::endian::little ? ByteOrder::kLittle : ByteOrder::kBig;
}

std::string_view asdf_byteorder_name(ByteOrder order) noexcept {
  return order == ByteOrder::kLittle ? "little" : "big";
}

ByteOrder parse_byteorder(const tree::Node& node, const std::string& path) {
  if (node.is_string()) {
    if (node.as_string() == "little") return ByteOrder::kLittle;
    if (node.as_string() == "big") return ByteOrder::kBig;
  }
  fail(path, "byteorder must be 'big' or 'little', found " + tree::describe_for_error(node));
}

const KindInfo& kind_info(DTypeKind kind) noexcept {
  return kKinds[static_cast<std::size_t>(kind)];
}

std::optional<DTypeKind> numeric_kind_from_asdf_name(std::string_view name) noexcept {
  for (const KindInfo& info : kKinds) {
    if (info.asdf_name == name && info.numpy_code != 'S' && info.numpy_code != 'U' &&
        info.numpy_code != 'V') {
      return info.kind;
    }
  }
  return std::nullopt;
}

DType::DType() : kind_(DTypeKind::kFloat64), order_(native_byte_order()), itemsize_(8) {}

DType DType::numeric(DTypeKind kind, ByteOrder order) {
  const KindInfo& info = kind_info(kind);
  if (info.numpy_code == 'S' || info.numpy_code == 'U' || info.numpy_code == 'V') {
    throw Error(ErrorCode::kInvalidArgument,
                "DType::numeric needs a numeric kind; use ascii(), ucs4() or structured()");
  }
  DType d;
  d.kind_ = kind;
  d.itemsize_ = info.unit_size;
  d.order_ = info.unit_size == 1 ? ByteOrder::kNotApplicable : order;
  return d;
}

DType DType::ascii(std::uint64_t length) {
  if (length > kMaxItemsize) {
    throw Error(ErrorCode::kInvalidArgument, "ascii length " + std::to_string(length) +
                                                 " exceeds " + std::to_string(kMaxItemsize) +
                                                 " bytes");
  }
  DType d;
  d.kind_ = DTypeKind::kAscii;
  d.order_ = ByteOrder::kNotApplicable;
  d.length_ = length;
  d.itemsize_ = length;
  return d;
}

DType DType::ucs4(std::uint64_t length, ByteOrder order) {
  if (length > kMaxItemsize / 4) {
    throw Error(ErrorCode::kInvalidArgument, "ucs4 length " + std::to_string(length) + " exceeds " +
                                                 std::to_string(kMaxItemsize / 4) + " characters");
  }
  DType d;
  d.kind_ = DTypeKind::kUcs4;
  d.order_ = order == ByteOrder::kNotApplicable ? native_byte_order() : order;
  d.length_ = length;
  d.itemsize_ = length * 4;
  return d;
}

DType DType::structured(std::vector<Field> fields) {
  std::set<std::string> names;
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    Field& f = fields[i];
    const std::string name = f.name.empty() ? "f" + std::to_string(i) : f.name;
    if (!names.insert(name).second) {
      throw Error(ErrorCode::kInvalidArgument,
                  "field name '" + name + "' occurs more than once; give each field its own name");
    }
    std::optional<std::uint64_t> size = f.dtype.itemsize();
    for (std::uint64_t dim : f.shape) {
      if (size) size = bounded_mul(*size, dim);
    }
    if (!size || *size > kMaxItemsize - offset) {
      throw Error(ErrorCode::kInvalidArgument,
                  "record is larger than " + std::to_string(kMaxItemsize) + " bytes");
    }
    f.offset = offset;
    offset += *size;
  }
  DType d;
  d.kind_ = DTypeKind::kStructured;
  d.order_ = ByteOrder::kNotApplicable;
  d.itemsize_ = offset;
  d.fields_ = std::make_shared<const std::vector<Field>>(std::move(fields));
  return d;
}

DType DType::from_node(const tree::Node& datatype, ByteOrder byteorder, const std::string& path) {
  return parse_datatype(datatype, byteorder, path);
}

tree::NodePtr DType::to_node(bool include_byteorder) const {
  if (is_string()) {
    NodePtr seq = flow_sequence();
    seq->push_back(Node::make_string(std::string(kind_info(kind_).asdf_name)));
    seq->push_back(Node::make_int(static_cast<std::int64_t>(length_)));
    return seq;
  }
  if (!is_structured()) return Node::make_string(std::string(kind_info(kind_).asdf_name));
  NodePtr seq = Node::make_sequence();
  const auto list = fields();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Field& f = list[i];
    NodePtr entry = Node::make_mapping();
    entry->set("name", Node::make_string(effective_field_name(*this, i)));
    // python asdf writes byte orders of nested records even for inline arrays.
    entry->set("datatype", f.dtype.to_node(true));
    if (include_byteorder) {
      entry->set("byteorder",
                 Node::make_string(std::string(asdf_byteorder_name(f.dtype.byte_order()))));
    }
    if (!f.shape.empty()) {
      NodePtr shape = flow_sequence();
      for (std::uint64_t dim : f.shape)
        shape->push_back(Node::make_int(static_cast<std::int64_t>(dim)));
      entry->set("shape", shape);
    }
    seq->push_back(entry);
  }
  return seq;
}

std::span<const Field> DType::fields() const noexcept {
  if (!fields_) return {};
  return {fields_->data(), fields_->size()};
}

DType DType::with_byte_order(ByteOrder order) const {
  if (order == ByteOrder::kNotApplicable) return *this;
  if (is_structured()) {
    std::vector<Field> copy(fields().begin(), fields().end());
    for (Field& f : copy) f.dtype = f.dtype.with_byte_order(order);
    DType d = *this;
    d.fields_ = std::make_shared<const std::vector<Field>>(std::move(copy));
    return d;
  }
  DType d = *this;
  if (d.order_ != ByteOrder::kNotApplicable) d.order_ = order;
  return d;
}

std::vector<SwapRun> DType::swap_plan(ByteOrder target) const {
  std::vector<SwapRun> runs;
  if (target != ByteOrder::kNotApplicable) collect_swaps(*this, 0, 1, target, runs);
  return runs;
}

std::string DType::numpy_str() const {
  const KindInfo& info = kind_info(kind_);
  std::string out = order_char(*this);
  out += info.numpy_code;
  if (is_string()) return out + std::to_string(length_);
  return out + std::to_string(itemsize_);
}

std::string DType::name() const {
  if (is_structured()) return descr();
  const KindInfo& info = kind_info(kind_);
  if (is_string()) {
    return itemsize_ == 0 ? std::string(info.numpy_name)
                          : std::string(info.numpy_name) + std::to_string(itemsize_ * 8);
  }
  return std::string(info.numpy_name);
}

std::string DType::descr() const {
  if (!is_structured()) return "[('', " + py_quote(numpy_str()) + ")]";
  return descr_text(*this, false);
}

tree::NodePtr DType::descr_node() const {
  NodePtr list = Node::make_sequence();
  if (!is_structured()) {
    NodePtr entry = Node::make_sequence();
    entry->push_back(Node::make_string(""));
    entry->push_back(Node::make_string(numpy_str()));
    list->push_back(entry);
    return list;
  }
  const auto fs = fields();
  for (std::size_t i = 0; i < fs.size(); ++i) {
    NodePtr entry = Node::make_sequence();
    entry->push_back(Node::make_string(effective_field_name(*this, i)));
    entry->push_back(fs[i].dtype.is_structured() ? fs[i].dtype.descr_node()
                                                 : Node::make_string(fs[i].dtype.numpy_str()));
    if (!fs[i].shape.empty()) {
      NodePtr shape = Node::make_sequence();
      for (std::uint64_t dim : fs[i].shape) {
        shape->push_back(Node::make_int(static_cast<std::int64_t>(dim)));
      }
      entry->push_back(shape);
    }
    list->push_back(entry);
  }
  return list;
}

std::string DType::to_string() const {
  if (is_structured()) return descr_text(*this, true);
  if (is_string() || order_ == ByteOrder::kBig) return numpy_str();
  return std::string(kind_info(kind_).numpy_name);
}

bool operator==(const DType& a, const DType& b) {
  if (a.kind_ != b.kind_ || a.order_ != b.order_ || a.itemsize_ != b.itemsize_ ||
      a.length_ != b.length_) {
    return false;
  }
  const auto fa = a.fields();
  const auto fb = b.fields();
  return std::equal(fa.begin(), fa.end(), fb.begin(), fb.end());
}

std::uint64_t Field::count() const noexcept {
  std::uint64_t n = 1;
  for (std::uint64_t dim : shape) n *= dim;  // bounded by kMaxItemsize in DType::structured
  return n;
}

bool operator==(const Field& a, const Field& b) {
  return a.name == b.name && a.dtype == b.dtype && a.shape == b.shape && a.offset == b.offset;
}

std::string effective_field_name(const DType& dtype, std::size_t index) {
  const auto fs = dtype.fields();
  if (index < fs.size() && !fs[index].name.empty()) return fs[index].name;
  return "f" + std::to_string(index);
}

double float16_to_double(std::uint16_t bits) noexcept {
  const int exponent = (bits >> 10) & 0x1f;
  const int fraction = bits & 0x3ff;
  double magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(fraction), -24);
  } else if (exponent == 31) {
    magnitude = fraction == 0 ? std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::quiet_NaN();
  } else {
    magnitude = std::ldexp(static_cast<double>(fraction | 0x400), exponent - 25);
  }
  return (bits & 0x8000) ? -magnitude : magnitude;
}

std::uint16_t double_to_float16(double value) noexcept {
  const std::uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value)) return static_cast<std::uint16_t>(sign | 0x7e00);
  const double magnitude = std::fabs(value);
  if (magnitude >= 65520.0) return static_cast<std::uint16_t>(sign | 0x7c00);
  int e2 = 0;
  std::frexp(magnitude, &e2);  // magnitude = m * 2^e2 with m in [0.5, 1)
  const int exponent = e2 - 1;
  if (magnitude == 0.0 || exponent < -14) {
    // Subnormal (or zero): count units of 2^-24, rounding ties to even.
    const double units = std::nearbyint(std::ldexp(magnitude, 24));
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(units));
  }
  double fraction = std::nearbyint((std::ldexp(magnitude, -exponent) - 1.0) * 1024.0);
  int biased = exponent + 15;
  if (fraction >= 1024.0) {
    fraction = 0.0;
    ++biased;
  }
  if (biased >= 31) return static_cast<std::uint16_t>(sign | 0x7c00);
  return static_cast<std::uint16_t>(sign | (biased << 10) | static_cast<int>(fraction));
}

void swap_units(std::uint8_t* data, std::uint64_t count, std::uint32_t unit) noexcept {
  switch (unit) {
    case 2:
      for (std::uint64_t i = 0; i < count; ++i, data += 2) std::swap(data[0], data[1]);
      return;
    case 4:
      for (std::uint64_t i = 0; i < count; ++i, data += 4) {
        std::uint32_t v;
        std::memcpy(&v, data, 4);
        v = (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
        std::memcpy(data, &v, 4);
      }
      return;
    case 8:
      for (std::uint64_t i = 0; i < count; ++i, data += 8) {
        std::uint64_t v;
        std::memcpy(&v, data, 8);
        v = ((v & 0x00000000000000ffull) << 56) | ((v & 0x000000000000ff00ull) << 40) |
            ((v & 0x0000000000ff0000ull) << 24) | ((v & 0x00000000ff000000ull) << 8) |
            ((v & 0x000000ff00000000ull) >> 8) | ((v & 0x0000ff0000000000ull) >> 24) |
            ((v & 0x00ff000000000000ull) >> 40) | ((v & 0xff00000000000000ull) >> 56);
        std::memcpy(data, &v, 8);
      }
      return;
    default:
      return;
  }
}

void apply_swap_plan(std::span<std::uint8_t> elements, std::uint64_t itemsize,
                     std::span<const SwapRun> plan) noexcept {
  if (plan.empty() || itemsize == 0) return;
  const std::uint64_t n = elements.size() / itemsize;
  if (plan.size() == 1 && plan[0].offset == 0 && plan[0].count * plan[0].unit == itemsize) {
    swap_units(elements.data(), n * plan[0].count, plan[0].unit);  // the whole array is units
    return;
  }
  std::uint8_t* item = elements.data();
  for (std::uint64_t i = 0; i < n; ++i, item += itemsize) {
    for (const SwapRun& run : plan) swap_units(item + run.offset, run.count, run.unit);
  }
}

}  // namespace asdfcore::ndarray
