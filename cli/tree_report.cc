#include "tree_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <unordered_map>

#include "asdfcore/compression/md5.h"
#include "asdfcore/error.h"
#include "asdfcore/tree/reference.h"
#include "asdfcore/tree/walk.h"

namespace fitsasdf::cli {

using asdfcore::tree::Node;
using asdfcore::tree::NodeKind;
using asdfcore::tree::NodePtr;
using nlohmann::ordered_json;

ordered_json node_json(const Node& node) {
  switch (node.kind()) {
    case NodeKind::kNull: return nullptr;
    case NodeKind::kBool: return node.as_bool();
    case NodeKind::kInt: return node.as_int();
    case NodeKind::kBigInt: return ordered_json::parse(node.integer_text());
    case NodeKind::kFloat: {
      const double v = node.as_double();
      if (std::isnan(v)) return {{"$float", "nan"}};
      if (std::isinf(v)) return {{"$float", v > 0 ? "inf" : "-inf"}};
      return v;
    }
    case NodeKind::kString: return node.as_string();
    case NodeKind::kTimestamp: return {{"$datetime", node.as_string()}};
    case NodeKind::kBinary: {
      const auto& b = node.as_binary();
      return {{"$bytes_md5", asdfcore::compression::to_hex(asdfcore::compression::md5(b))}};
    }
    case NodeKind::kSequence: {
      ordered_json out = ordered_json::array();
      for (const auto& item : node.items()) out.push_back(node_json(*item));
      return out;
    }
    case NodeKind::kMapping: {
      ordered_json out = ordered_json::object();
      for (const auto& [k, v] : node.entries()) {
        const std::string key = k->is_string() ? k->as_string() : node_json(*k).dump();
        out[key] = node_json(*v);
      }
      return out;
    }
  }
  return nullptr;
}

ordered_json tag_map(const asdfcore::AsdfFile& file) {
  // ordered_json's operator[] finds a key by a linear search: with one lookup per tagged node
  // that is quadratic in the tree (issue 28). The entries are appended to the object's vector
  // instead, with an index of their positions; a path met twice (keys 1 and "1" print alike)
  // is assigned in place, as operator[] did.
  ordered_json tags = ordered_json::object();
  auto& entries = tags.get_ref<ordered_json::object_t&>();
  std::unordered_map<std::string, std::size_t> position;
  asdfcore::tree::walk(file.tree(), [&](const NodePtr& node, const std::string& path) {
    if (!node->tag().empty()) {
      const auto [it, added] = position.emplace(path, entries.size());
      if (added) {
        entries.emplace_back(path, node->tag());  // std::vector's: no search
      } else {
        (entries.begin() + static_cast<std::ptrdiff_t>(it->second))->second = node->tag();
      }
    }
    return !asdfcore::tree::is_ndarray(*node) && !asdfcore::tree::is_reference(*node);
  });
  return tags;
}

ordered_json array_summaries(const asdfcore::AsdfFile& file) {
  ordered_json arrays = ordered_json::array();
  std::map<const Node*, std::size_t> first;  // node -> index of its first summary
  asdfcore::tree::walk(file.tree(), [&](const NodePtr& node, const std::string& path) {
    if (asdfcore::tree::is_reference(*node)) return false;
    if (!asdfcore::tree::is_ndarray(*node)) return true;
    if (auto it = first.find(node.get()); it != first.end()) {
      ordered_json again = arrays[it->second];
      again["alias_of"] = again["path"];
      again["path"] = path;
      arrays.push_back(std::move(again));
      return false;
    }
    ordered_json a;
    a["path"] = path;
    if (node->is_mapping()) {
      const NodePtr source = node->get("source");
      a["source"] = source && !node->get("data") ? node_json(*source) : ordered_json("inline");
      for (const char* key : {"datatype", "byteorder", "shape", "offset", "strides"}) {
        if (const NodePtr v = node->get(key)) a[std::string("node_") + key] = node_json(*v);
      }
    } else {
      a["source"] = "inline";
    }
    try {
      const auto array = file.array(*node, path);
      a["shape"] = array.shape();
      a["dtype"] = array.dtype().numpy_str();
      a["dtype_name"] = array.dtype().name();
      a["datatype"] = node_json(*array.dtype().to_node(false));
      a["byteorder"] = std::string(asdfcore::ndarray::asdf_byteorder_name(array.dtype().byte_order()));
      a["nbytes"] = array.nbytes();
      a["md5"] = array.md5_le();
      if (array.has_mask()) {
        const auto mask = array.mask_c_order();
        a["masked"] = true;
        a["mask_md5"] = asdfcore::compression::to_hex(asdfcore::compression::md5(mask));
        a["n_masked"] = array.masked_count();
      }
    } catch (const asdfcore::Error& e) {
      a["error"] = e.message();
    }
    first[node.get()] = arrays.size();
    arrays.push_back(std::move(a));
    return false;
  });
  return arrays;
}

namespace {

std::string short_value(const Node& node) {
  std::string s;
  switch (node.kind()) {
    case NodeKind::kString:
    case NodeKind::kTimestamp: s = node.as_string(); break;
    case NodeKind::kSequence:
    case NodeKind::kMapping: return "";
    default: s = node_json(node).dump(); break;
  }
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

}  // namespace

std::string outline(const asdfcore::AsdfFile& file, std::size_t max_lines) {
  std::ostringstream out;
  std::size_t lines = 0;
  bool cut = false;
  asdfcore::tree::walk(file.tree(), [&](const NodePtr& node, const std::string& path) {
    if (lines >= max_lines) {
      cut = true;
      return false;
    }
    const std::size_t depth = static_cast<std::size_t>(std::count(path.begin(), path.end(), '/'));
    const std::size_t slash = path.rfind('/');
    std::string name = path.empty() ? "root" : path.substr(slash + 1);
    std::string type = node->tag().empty() ? std::string(asdfcore::tree::node_kind_name(node->kind()))
                                           : node->tag();
    if (const auto at = type.find(asdfcore::tree::kAsdfTagPrefix); at == 0) {
      type = type.substr(asdfcore::tree::kAsdfTagPrefix.size());
    }
    out << std::string(2 * depth, ' ') << (depth ? "├─" : "") << name << " (" << type << ")";
    bool descend = true;
    if (asdfcore::tree::is_ndarray(*node)) {
      try {
        const auto a = file.array(*node, path);
        out << " shape=[";
        for (std::size_t i = 0; i < a.shape().size(); ++i) out << (i ? "," : "") << a.shape()[i];
        out << "] dtype=" << a.dtype().name() << " source=" << a.source().describe();
      } catch (const asdfcore::Error& e) {
        out << " error: " << e.message();
      }
      descend = false;
    } else if (const std::string v = short_value(*node); !v.empty()) {
      out << ": " << v;
    } else if (node->is_mapping() || node->is_sequence()) {
      out << " [" << node->size() << "]";
      // A list of small scalar lists (FITS header cards) is summarised, not spelled out.
      if (node->is_sequence() && node->size() > 0 &&
          std::all_of(node->items().begin(), node->items().end(), [](const NodePtr& item) {
            return item->is_sequence() &&
                   std::none_of(item->items().begin(), item->items().end(), [](const NodePtr& x) {
                     return x->is_sequence() || x->is_mapping();
                   });
          })) {
        out << " (lists of scalars: use --json to see them)";
        descend = false;
      }
    }
    out << "\n";
    ++lines;
    return descend;
  });
  if (cut) out << "... (more nodes; use --json for everything)\n";
  return out.str();
}

}  // namespace fitsasdf::cli
