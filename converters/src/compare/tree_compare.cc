// Two ASDF files, node by node in the manner of `asdftool diff`: mappings by key, sequences by
// position, scalars by value (numbers as Python compares them), tags, and ndarrays by datatype,
// shape, mask and values read from their blocks.
#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

#include "asdfcore/asdf_file.h"
#include "asdfcore/ndarray/ndarray.h"
#include "asdfcore/tree/walk.h"
#include "compare/element.h"
#include "fitsasdf/diff.h"
#include "progress/meter.h"

namespace fitsasdf {
namespace {

using asdfcore::ndarray::ByteOrder;
using asdfcore::ndarray::DType;
using asdfcore::ndarray::DTypeKind;
using asdfcore::ndarray::NDArray;
using asdfcore::tree::Node;
using asdfcore::tree::NodeKind;
using asdfcore::tree::NodePtr;
using Kind = TreeDifference::Kind;

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string short_string(const std::string& s) {
  std::string out = "'";
  for (std::size_t i = 0; i < s.size() && i < 80; ++i) {
    const char c = s[i];
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\'') {
      out += "\\'";
    } else {
      out += c;
    }
  }
  return out + (s.size() > 80 ? "...'" : "'");
}

/// A node as short text for a report.
std::string node_text(const Node& n) {
  if (asdfcore::tree::is_ndarray(n)) return "an ndarray";
  std::string prefix = n.tag().empty() ? "" : "!<" + n.tag() + "> ";
  switch (n.kind()) {
    case NodeKind::kNull:
      return prefix + "null";
    case NodeKind::kBool:
      return prefix + (n.as_bool() ? "true" : "false");
    case NodeKind::kInt:
    case NodeKind::kBigInt:
      return prefix + n.integer_text();
    case NodeKind::kFloat:
      return prefix + compare::format_double(n.as_double());
    case NodeKind::kString:
      return prefix + short_string(n.as_string());
    case NodeKind::kTimestamp:
      return prefix + n.as_string();
    case NodeKind::kBinary:
      return prefix + "binary of " + std::to_string(n.as_binary().size()) + " bytes";
    case NodeKind::kSequence:
      return prefix + "a sequence of " + std::to_string(n.size()) + " items";
    case NodeKind::kMapping:
      return prefix + "a mapping of " + std::to_string(n.size()) + " entries";
  }
  return prefix;
}

/// The text a mapping key is known by (string keys as they are, others marked by kind).
std::string key_text(const Node& key) {
  if (key.is_string() && key.tag().empty()) return key.as_string();
  return "<" + std::string(asdfcore::tree::node_kind_name(key.kind())) + "> " + node_text(key);
}

/// Return the 0-based C-order index of flat element `i`.
std::vector<std::uint64_t> c_index(std::uint64_t i, const std::vector<std::uint64_t>& shape) {
  std::vector<std::uint64_t> idx(shape.size(), 0);
  for (std::size_t k = shape.size(); k-- > 0;) {
    if (shape[k] == 0) break;
    idx[k] = i % shape[k];
    i /= shape[k];
  }
  return idx;
}

/// The first differing item of field `f` of two records, as text; false when equal.
bool field_differs(const std::uint8_t* a, const std::uint8_t* b, const asdfcore::ndarray::Field& f,
                   std::string& ta, std::string& tb) {
  const std::uint8_t* pa = a + f.offset;
  const std::uint8_t* pb = b + f.offset;
  const std::size_t size = static_cast<std::size_t>(f.size());
  if (std::memcmp(pa, pb, size) == 0) return false;
  if (!f.dtype.is_numeric()) {
    ta = compare::format_bytes(pa, size);
    tb = compare::format_bytes(pb, size);
    return true;
  }
  const std::size_t unit = static_cast<std::size_t>(f.dtype.itemsize());
  for (std::uint64_t i = 0; i < f.count(); ++i) {
    if (!compare::elements_equal(pa + i * unit, pb + i * unit, f.dtype.kind(), false,
                                 compare::ElementRule::kValues)) {
      ta = compare::format_element(pa + i * unit, f.dtype.kind(), false, false);
      tb = compare::format_element(pb + i * unit, f.dtype.kind(), false, false);
      return true;
    }
  }
  return false;
}

struct Context {
  const asdfcore::AsdfFile& fa;
  const asdfcore::AsdfFile& fb;
  const CompareOptions& options;
  AsdfComparison& out;
  progress::Meter& meter;
  std::set<std::pair<const Node*, const Node*>> seen;

  void add(TreeDifference d) {
    ++out.total;
    if (out.differences.size() < options.max_listed) out.differences.push_back(std::move(d));
  }

  bool ignored(const std::string& path) const {
    for (const auto& p : options.ignore_paths) {
      if (path == p || (path.size() > p.size() && path.starts_with(p) && path[p.size()] == '/')) {
        return true;
      }
    }
    return false;
  }

  void compare_arrays(const Node& a, const Node& b, const std::string& path);
  void compare(const NodePtr& a, const NodePtr& b, const std::string& path);
};

void Context::compare_arrays(const Node& a, const Node& b, const std::string& path) {
  const NDArray xa = fa.array(a, path);
  const NDArray xb = fb.array(b, path);
  meter.enter("compare", 0);
  meter.share(3, xa.nbytes() + xb.nbytes());  // A decoded, B decoded, compared
  ++out.arrays_compared;
  DataComparison d;
  const std::size_t max_listed = options.max_listed;
  auto note = [&](const std::string& text) {
    d.summary += (d.summary.empty() ? "" : "; ") + text;
    d.identical = false;
  };
  const DType la = xa.dtype().with_byte_order(ByteOrder::kLittle);
  const DType lb = xb.dtype().with_byte_order(ByteOrder::kLittle);
  if (xa.shape() != xb.shape()) {
    note("shapes differ: " + shape_text(xa.shape()) + " vs " + shape_text(xb.shape()));
  } else {
    const bool same_type = la == lb;
    if (!same_type) note("datatypes differ: " + la.to_string() + " vs " + lb.to_string());
    if (same_type || (la.is_numeric() && lb.is_numeric())) {
      const auto ba = xa.to_c_order(ByteOrder::kLittle);
      meter.advance(1);
      const auto bb = xb.to_c_order(ByteOrder::kLittle);
      meter.advance(1);
      const std::uint64_t n = xa.size();
      const std::size_t sa = static_cast<std::size_t>(la.itemsize());
      const std::size_t sb = static_cast<std::size_t>(lb.itemsize());
      d.compared = n;
      if (!(same_type && ba == bb)) {
        for (std::uint64_t i = 0; i < n; ++i) {
          const std::uint8_t* pa = ba.data() + i * sa;
          const std::uint8_t* pb = bb.data() + i * sb;
          std::string column;
          std::string ta;
          std::string tb;
          bool differs = false;
          if (la.is_structured()) {
            for (std::size_t f = 0; f < la.fields().size() && !differs; ++f) {
              differs = field_differs(pa, pb, la.fields()[f], ta, tb);
              if (differs) column = asdfcore::ndarray::effective_field_name(la, f);
            }
          } else if (same_type) {
            differs = la.is_numeric() ? !compare::elements_equal(pa, pb, la.kind(), false,
                                                                 compare::ElementRule::kValues)
                                      : std::memcmp(pa, pb, sa) != 0;
          } else {
            differs = !compare::values_equal(pa, la.kind(), pb, lb.kind(), false);
          }
          if (!differs) continue;
          ++d.differing;
          d.identical = false;
          if (d.elements.size() >= max_listed) continue;
          if (!la.is_structured()) {
            ta = la.is_numeric() ? compare::format_element(pa, la.kind(), false, false)
                                 : compare::format_bytes(pa, sa);
            tb = lb.is_numeric() ? compare::format_element(pb, lb.kind(), false, false)
                                 : compare::format_bytes(pb, sb);
          }
          d.elements.push_back({c_index(i, xa.shape()), column, ta, tb});
        }
      }
    }
    if (xa.has_mask() || xb.has_mask()) {
      const auto ma = xa.mask_c_order();
      const auto mb = xb.mask_c_order();
      if (ma != mb) {
        note("masks differ: " + std::to_string(xa.masked_count()) + " vs " +
             std::to_string(xb.masked_count()) + " masked elements");
      }
    }
  }
  if (!d.identical) {
    TreeDifference t;
    t.kind = Kind::kArray;
    t.path = path;
    t.a = "ndarray " + xa.dtype().to_string() + " " + shape_text(xa.shape());
    t.b = "ndarray " + xb.dtype().to_string() + " " + shape_text(xb.shape());
    t.array = std::move(d);
    add(std::move(t));
  }
  meter.close_share();
}

void Context::compare(const NodePtr& a, const NodePtr& b, const std::string& path) {
  if (ignored(path)) return;
  if (!seen.insert({a.get(), b.get()}).second) return;  // an alias met again, or a cycle
  const bool nd_a = asdfcore::tree::is_ndarray(*a);
  const bool nd_b = asdfcore::tree::is_ndarray(*b);
  if (nd_a && nd_b) {
    compare_arrays(*a, *b, path);
    return;
  }
  if (nd_a != nd_b) {
    add({Kind::kType, path, node_text(*a), node_text(*b), {}});
    return;
  }
  if (a->tag() != b->tag()) {
    add({Kind::kTag,
         path,
         a->tag().empty() ? "(no tag)" : a->tag(),
         b->tag().empty() ? "(no tag)" : b->tag(),
         {}});
  }
  if (a->is_mapping() && b->is_mapping()) {
    std::unordered_map<std::string, const NodePtr*> in_b;
    for (const auto& [k, v] : b->entries()) in_b.emplace(key_text(*k), &v);
    std::set<std::string> in_a;
    for (const auto& [k, v] : a->entries()) {
      const std::string key = key_text(*k);
      in_a.insert(key);
      const std::string child = path + "/" + asdfcore::tree::escape_pointer_token(key);
      const auto it = in_b.find(key);
      if (it == in_b.end()) {
        if (!ignored(child)) add({Kind::kMissing, child, node_text(*v), "", {}});
      } else {
        compare(v, *it->second, child);
      }
    }
    for (const auto& [k, v] : b->entries()) {
      const std::string key = key_text(*k);
      const std::string child = path + "/" + asdfcore::tree::escape_pointer_token(key);
      if (in_a.count(key) == 0 && !ignored(child))
        add({Kind::kExtra, child, "", node_text(*v), {}});
    }
    return;
  }
  if (a->is_sequence() && b->is_sequence()) {
    const auto& x = a->items();
    const auto& y = b->items();
    for (std::size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
      const std::string child = path + "/" + std::to_string(i);
      if (i >= y.size()) {
        if (!ignored(child)) add({Kind::kMissing, child, node_text(*x[i]), "", {}});
      } else if (i >= x.size()) {
        if (!ignored(child)) add({Kind::kExtra, child, "", node_text(*y[i]), {}});
      } else {
        compare(x[i], y[i], child);
      }
    }
    return;
  }
  bool equal = false;
  if (const auto numbers = compare::numbers_equal(*a, *b)) {
    equal = *numbers;
  } else if (a->kind() != b->kind()) {
    add({Kind::kType, path, node_text(*a), node_text(*b), {}});
    return;
  } else if (a->is_mapping() || a->is_sequence()) {
    equal = true;  // unreachable: handled above
  } else {
    NodePtr ua = std::make_shared<Node>(*a);
    NodePtr ub = std::make_shared<Node>(*b);
    ua->set_tag("");
    ub->set_tag("");
    equal = asdfcore::tree::deep_equal(*ua, *ub);
  }
  if (!equal) add({Kind::kValue, path, node_text(*a), node_text(*b), {}});
}

}  // namespace

AsdfComparison compare_asdf(const std::string& a, const std::string& b,
                            const CompareOptions& options) {
  progress::Meter meter(options.control, a);
  const asdfcore::AsdfFile fa = asdfcore::AsdfFile::open(a);
  const asdfcore::AsdfFile fb = asdfcore::AsdfFile::open(b);
  AsdfComparison out;
  out.a = a;
  out.b = b;
  // The total: the decoded bytes of both files' blocks, counted array by array as compared
  // (an array in the tree, an array shared by several nodes counted each time, up to the
  // total).
  std::uint64_t total = 0;
  for (const auto* f : {&fa, &fb}) {
    for (const auto& block : f->container().blocks()) total += block.header.data_size;
  }
  meter.start(total, 0, "compare");
  Context context{fa, fb, options, out, meter, {}};
  context.compare(fa.tree(), fb.tree(), "");
  meter.finish();
  return out;
}

}  // namespace fitsasdf
