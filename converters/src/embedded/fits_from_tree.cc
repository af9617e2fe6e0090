// ASDF -> FITS for trees without a `fits` list: every numeric array becomes an IMAGE extension
// named from its tree path, a quantity's unit its BUNIT, each table a BINTABLE, scalar metadata
// with FITS-sized names primary-header cards, and the whole tree an ASDF extension (a one-row
// BINTABLE with the byte column ASDF_METADATA, as python asdf's AsdfInFits and stdatamodels
// write it) whose image arrays point at their HDUs with `source: fits:EXTNAME,1`.
//
// The FITS file is planned in memory as a `fits` list with blocks of its own and written by the
// fits-list writer (to_fits), so every HDU is formatted by one piece of code.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include "asdfcore/asdf_file.h"
#include "asdfcore/asdf_writer.h"
#include "asdfcore/error.h"
#include "asdfcore/ndarray/ndarray.h"
#include "asdfcore/tree/walk.h"
#include "compare/temp_folder.h"
#include "embedded/fits_from_tree.h"
#include "fitsasdf/asdf_in_fits.h"
#include "fitsasdf/output_names.h"
#include "fitsasdf/to_fits.h"
#include "progress/meter.h"
#include "to_fits/fits_list_writer.h"

namespace fitsasdf {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ErrorContext;
using asdfcore::ndarray::ByteOrder;
using asdfcore::ndarray::DType;
using asdfcore::ndarray::DTypeKind;
using asdfcore::ndarray::NDArray;
using asdfcore::tree::Node;
using asdfcore::tree::NodeKind;
using asdfcore::tree::NodePtr;

constexpr char kAstropyFitsTag[] = "tag:astropy.org:astropy/fits/fits-1.0.0";
constexpr std::string_view kQuantityTag = "tag:stsci.edu:asdf/unit/quantity-";
constexpr std::string_view kCoreTableTag = "tag:stsci.edu:asdf/core/table-";
constexpr std::string_view kAstropyTableTag = "tag:astropy.org:astropy/table/table-";

/// The blocks of an ASDF file being planned: the embedded file's, or the planned fits list's,
/// which the fits-list writer reads as it would a file's. The fits list's start with the input
/// file's own blocks, so that an image HDU reads its elements where they are: a large one is
/// streamed from its block in bounded memory, nothing is copied. A block the input decodes or
/// hashes whole is kept once read (the planner and the writer both read it), and an error
/// reading one names the input's tree path of the array that uses it. Blocks added here follow.
class Blocks final : public asdfcore::ndarray::BlockProvider {
 public:
  /// Blocks of the embedded file: only those added.
  Blocks() = default;
  /// Blocks of the planned fits list: `input`'s, then those added.
  explicit Blocks(asdfcore::AsdfFile input)
      : input_(std::move(input)), first_(input_->blocks().block_count()) {}

  /// Return the input file (the planned fits list's blocks only).
  const asdfcore::AsdfFile& input() const { return *input_; }

  /// Add `bytes` as a block; return its index.
  std::int64_t add(std::vector<std::uint8_t> bytes) {
    added_.push_back(asdfcore::io::Buffer::from_vector(std::move(bytes)));
    return static_cast<std::int64_t>(first_ + added_.size() - 1);
  }
  /// Name `path` in errors about the input's block `index` (the first path given is kept).
  void name_block(std::uint64_t index, const std::string& path) { paths_.emplace(index, path); }
  /// Planning is done: let go of the kept blocks no image reads, and hand each other one to
  /// the writer once.
  void start_writing() {
    const std::lock_guard<std::mutex> lock(mutex_);
    writing_ = true;
    std::erase_if(kept_, [&](const auto& kept) {
      return paths_.count(static_cast<std::uint64_t>(kept.first)) == 0;
    });
  }
  /// Return the added blocks as `write_asdf` takes them.
  std::vector<asdfcore::format::BlockToWrite> to_write() const {
    std::vector<asdfcore::format::BlockToWrite> out;
    for (const auto& d : added_) {
      asdfcore::format::BlockToWrite w;
      w.pieces.push_back(d.span());
      out.push_back(std::move(w));
    }
    return out;
  }

  asdfcore::io::Buffer block(std::int64_t index) const override {
    if (from_input(index)) {
      return forwarded(index, [&] {
        const auto& blocks = input_->blocks();
        if (blocks.streamable_block_size(index)) return blocks.block(index);
        const std::lock_guard<std::mutex> lock(mutex_);
        if (writing_) {
          // The writer reads a kept block once: it is let go with the writer's array.
          const auto node = kept_.extract(index);
          return node.empty() ? blocks.block(index) : std::move(node.mapped());
        }
        auto [it, fresh] = kept_.try_emplace(index);
        if (fresh) {
          try {
            it->second = blocks.block(index);
          } catch (...) {
            kept_.erase(it);
            throw;
          }
        }
        return it->second;
      });
    }
    const auto i = static_cast<std::uint64_t>(index) - first_;
    if (index < 0 || i >= added_.size()) {
      // Only a planner bug can get here: every source it writes names a block that exists.
      throw Error(ErrorCode::kMalformed,
                  "the planned FITS file has no block " + std::to_string(index));
    }
    return added_[i];
  }
  std::uint64_t block_count() const override { return first_ + added_.size(); }
  asdfcore::io::Buffer external(const std::string& uri) const override {
    if (!input_) {
      throw Error(ErrorCode::kUnsupported,
                  "the embedded ASDF file has no external blocks (asked for " + uri + ")");
    }
    return input_->blocks().external(uri);
  }
  std::string missing_blocks_reason() const override {
    return input_ ? input_->blocks().missing_blocks_reason() : std::string();
  }
  std::optional<std::uint64_t> streamable_block_size(std::int64_t index) const override {
    if (!from_input(index)) return std::nullopt;
    return input_->blocks().streamable_block_size(index);
  }
  void stream_block(
      std::int64_t index,
      const std::function<void(std::span<const std::uint8_t>)>& write) const override {
    if (!from_input(index)) {
      write(block(index).span());
      return;
    }
    forwarded(index, [&] {
      input_->blocks().stream_block(index, write);
      return 0;
    });
  }

 private:
  bool from_input(std::int64_t index) const {
    return input_ && (index < 0 || static_cast<std::uint64_t>(index) < first_);
  }
  /// Return `read()`, an error naming the input's tree path of block `index`.
  template <typename Read>
  auto forwarded(std::int64_t index, Read read) const -> decltype(read()) {
    try {
      return read();
    } catch (const Error& e) {
      const auto it = paths_.find(static_cast<std::uint64_t>(index));
      throw e.with_context(ErrorContext{.file = input_->path(),
                                        .tree_path = it == paths_.end() ? "" : it->second});
    }
  }

  std::optional<asdfcore::AsdfFile> input_;
  std::uint64_t first_ = 0;  ///< The number of the input's blocks: the first added block's index.
  std::vector<asdfcore::io::Buffer> added_;
  std::map<std::uint64_t, std::string> paths_;  ///< Input block -> the path of an array using it.
  mutable std::mutex mutex_;  ///< Guards `kept_` and `writing_`.
  bool writing_ = false;      ///< Planning is done (`start_writing`).
  mutable std::map<std::int64_t, asdfcore::io::Buffer> kept_;  ///< Input blocks read whole.
};

to_fits::TreeCard card(std::string keyword, NodePtr value, std::string comment = "") {
  return to_fits::TreeCard{std::move(keyword), std::move(value), std::move(comment)};
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

bool starts_with(const std::string& tag, std::string_view prefix) {
  return tag.compare(0, prefix.size(), prefix) == 0;
}

/// The FITS image form of a numeric kind: BITPIX and the BZERO of an unsigned offset (0: none).
std::optional<std::pair<int, double>> image_form(DTypeKind kind) {
  switch (kind) {
    case DTypeKind::kUInt8: return std::pair{8, 0.0};
    case DTypeKind::kInt8: return std::pair{8, -128.0};
    case DTypeKind::kInt16: return std::pair{16, 0.0};
    case DTypeKind::kUInt16: return std::pair{16, 32768.0};
    case DTypeKind::kInt32: return std::pair{32, 0.0};
    case DTypeKind::kUInt32: return std::pair{32, 2147483648.0};
    case DTypeKind::kInt64: return std::pair{64, 0.0};
    case DTypeKind::kUInt64: return std::pair{64, 9223372036854775808.0};
    case DTypeKind::kFloat32: return std::pair{-32, 0.0};
    case DTypeKind::kFloat64: return std::pair{-64, 0.0};
    default: return std::nullopt;
  }
}

/// The keys of an ndarray node that say where and how its elements are stored.
constexpr std::string_view kStorageKeys[] = {"source", "data",  "datatype", "byteorder",
                                             "shape",  "offset", "strides"};

/// Return true when `key` is one of `kStorageKeys`.
bool is_storage_key(const Node& key) {
  return key.is_string() && std::find(std::begin(kStorageKeys), std::end(kStorageKeys),
                                      key.as_string()) != std::end(kStorageKeys);
}

/// Rewrite the ndarray `node` in place (a mapping, or an inline list) as a mapping of `entries`
/// followed by its other keys (`mask`, ...), keeping its tag, so every path that reaches the
/// node (YAML aliases) sees the new form.
void rewrite_array_node(const NodePtr& node, const NodePtr& entries) {
  NodePtr fresh = Node::make_mapping();
  for (const auto& [k, v] : entries->entries()) fresh->set(k->as_string(), v);
  if (node->is_mapping()) {
    for (const auto& [k, v] : node->entries()) {
      if (!is_storage_key(*k)) fresh->entries().emplace_back(k, v);
    }
  }
  const std::string tag = node->tag();
  *node = *fresh;
  node->set_tag(tag);
}

/// Make `node` (an ndarray node read as `array`) point at a new block of `blocks` holding its
/// elements in C order in their stored byte order, keeping its tag and other keys (mask, ...).
void reblock(const NodePtr& node, const NDArray& array, Blocks& blocks) {
  asdfcore::ndarray::NDArrayNodeSpec spec;
  spec.dtype = array.dtype();
  spec.shape = array.shape();
  spec.source = blocks.add(array.to_c_order(ByteOrder::kNotApplicable));
  rewrite_array_node(node, asdfcore::ndarray::make_ndarray_node(spec));
}

/// The EXTNAME card, with its comment only when both fit on one card (no CONTINUE card, which
/// fitsverify flags without LONGSTRN).
to_fits::TreeCard extname_card(const std::string& name) {
  return card("EXTNAME", Node::make_string(name), name.size() <= 50 ? "extension name" : "");
}

/// The TFORM letter of a column kind.
std::optional<char> column_letter(const DType& dtype) {
  switch (dtype.kind()) {
    case DTypeKind::kBool8: return 'L';
    case DTypeKind::kUInt8: return 'B';
    case DTypeKind::kInt16:
    case DTypeKind::kUInt16: return 'I';
    case DTypeKind::kInt32:
    case DTypeKind::kUInt32: return 'J';
    case DTypeKind::kInt64:
    case DTypeKind::kUInt64: return 'K';
    case DTypeKind::kFloat32: return 'E';
    case DTypeKind::kFloat64: return 'D';
    case DTypeKind::kComplex64: return 'C';
    case DTypeKind::kComplex128: return 'M';
    case DTypeKind::kAscii: return 'A';
    default: return std::nullopt;
  }
}

/// A planned HDU: its cards and its data node (its `source` a block of the plan), or none.
struct PlannedHdu {
  std::vector<to_fits::TreeCard> header;
  NodePtr data;
};

class Planner {
 public:
  /// Plan from the input file of `blocks` (the planned fits list's), reading its arrays
  /// through them.
  explicit Planner(Blocks& blocks) : blocks_(blocks) {}

  /// Plan every HDU; the embedded tree is `root` with image arrays replaced by fits sources
  /// and the other block arrays moved to `embedded_blocks`.
  std::vector<PlannedHdu> plan(const NodePtr& root, Blocks& embedded_blocks, HduReport& notes) {
    std::vector<PlannedHdu> hdus(1);
    std::vector<to_fits::TreeCard>& primary = hdus.front().header;
    primary.push_back(card("SIMPLE", Node::make_bool(true), "conforms to FITS standard"));
    primary.push_back(card("BITPIX", Node::make_int(8), "array data type"));
    primary.push_back(card("NAXIS", Node::make_int(0), "number of array dimensions"));
    primary.push_back(card("EXTEND", Node::make_bool(true)));

    // Every array is read before any node changes: a node reached twice (YAML aliases), or a
    // mask array that is also an array of its own, is read once from the original file.
    read_all(root);
    asdfcore::tree::walk(root, [&](const NodePtr& node, const std::string& path) {
      if (path == "/asdf_library" || path == "/history") return false;
      if (node->is_mapping() && starts_with(node->tag(), kQuantityTag)) {
        const NodePtr value = node->get("value");
        if (value && asdfcore::tree::is_ndarray(*value)) {
          const NodePtr unit = node->get("unit");
          array(value, path + "/value", unit && unit->is_string() ? unit : nullptr);
          return false;
        }
        return true;
      }
      if (node->is_mapping() && (starts_with(node->tag(), kCoreTableTag) ||
                                 starts_with(node->tag(), kAstropyTableTag))) {
        if (seen_tables_.insert(node.get()).second && !table(node, path)) {
          notes.notes.push_back(skipped_table_);
        }
        // The table stays whole in the ASDF extension too (its columns cannot point at the
        // BINTABLE's rows); its arrays get blocks there.
        asdfcore::tree::walk(node, [&](const NodePtr& n, const std::string& p) {
          if (!asdfcore::tree::is_ndarray(*n)) return true;
          keep(n, path + p);
          return false;
        });
        return false;
      }
      if (asdfcore::tree::is_ndarray(*node)) {
        array(node, path, nullptr);
        return false;
      }
      if (!node->is_mapping() && !node->is_sequence()) scalar_card(primary, node, path);
      return true;
    });
    for (auto& planned : planned_) hdus.push_back(std::move(planned));
    for (const auto& [node, path] : kept_) reblock(node, read(node, path), embedded_blocks);
    return hdus;
  }

 private:
  /// Read every ndarray of `root` (and every mask array) into `arrays_`.
  void read_all(const NodePtr& root) {
    asdfcore::tree::walk(root, [&](const NodePtr& node, const std::string& path) {
      if (path == "/asdf_library" || path == "/history") return false;
      if (!asdfcore::tree::is_ndarray(*node)) return true;
      read_with_mask(node, path);
      return false;
    });
  }

  void read_with_mask(const NodePtr& node, const std::string& path) {
    read(node, path);
    const NodePtr mask = node->is_mapping() ? node->get("mask") : nullptr;
    if (mask && asdfcore::tree::is_ndarray(*mask)) read_with_mask(mask, path + "/mask");
  }

  /// Return the array of `node` as read from the original file (read on first use).
  const NDArray& read(const NodePtr& node, const std::string& path) {
    auto it = arrays_.find(node.get());
    if (it == arrays_.end()) {
      // Deferred: an image's elements are read by the writer, where they are.
      try {
        it = arrays_.emplace(node.get(), NDArray::from_node(*node, blocks_, path,
                                                             NDArray::Load::kDeferred))
                 .first;
      } catch (const Error& e) {
        throw e.with_context(ErrorContext{.file = blocks_.input().path(), .tree_path = path});
      }
    }
    return it->second;
  }

  /// Plan the array `node` at `path`, once however many paths reach it: an IMAGE extension
  /// when FITS can hold it, else kept in the ASDF extension; then its mask array, if any.
  void array(const NodePtr& node, const std::string& path, const NodePtr& unit) {
    if (!seen_arrays_.insert(node.get()).second) return;
    if (!image_array(node, path, unit)) keep_in_asdf(node, path);
    plan_mask(node, path);
  }

  /// Keep the array `node` (a table's column) in the ASDF extension, once however many paths
  /// reach it; then its mask array, if any.
  void keep(const NodePtr& node, const std::string& path) {
    if (!seen_arrays_.insert(node.get()).second) return;
    keep_in_asdf(node, path);
    plan_mask(node, path);
  }

  /// Give the array `node` a block of the embedded file, or leave its inline values as they
  /// are (they need no block, and inline nulls stay nulls).
  void keep_in_asdf(const NodePtr& node, const std::string& path) {
    if (!read(node, path).is_inline()) kept_.emplace_back(node, path);
  }

  /// Plan the mask array of the array `node`, if it has one (a mask value needs nothing).
  void plan_mask(const NodePtr& node, const std::string& path) {
    const NodePtr mask = node->is_mapping() ? node->get("mask") : nullptr;
    if (mask && asdfcore::tree::is_ndarray(*mask)) array(mask, path + "/mask", nullptr);
  }

  /// Plan an IMAGE extension for the array at `path` when FITS can hold it; rewrite the node
  /// as a fits source. Return false (node untouched) when it stays in the ASDF extension.
  bool image_array(const NodePtr& node, const std::string& path, const NodePtr& unit) {
    const NDArray& array = read(node, path);
    const auto form = image_form(array.dtype().kind());
    if (!form || array.size() == 0 || array.ndim() == 0 || array.ndim() > 999 ||
        !array.mask().nulls.empty()) {
      return false;
    }
    PlannedHdu hdu;
    const std::string name = extname(path);
    hdu.header.push_back(card("XTENSION", Node::make_string("IMAGE"), "Image extension"));
    hdu.header.push_back(card("BITPIX", Node::make_int(form->first), "array data type"));
    hdu.header.push_back(
        card("NAXIS", Node::make_int(static_cast<std::int64_t>(array.ndim())),
             "number of array dimensions"));
    for (std::size_t i = 0; i < array.ndim(); ++i) {
      hdu.header.push_back(
          card("NAXIS" + std::to_string(i + 1),
               Node::make_int(static_cast<std::int64_t>(array.shape()[array.ndim() - 1 - i]))));
    }
    hdu.header.push_back(card("PCOUNT", Node::make_int(0), "number of parameters"));
    hdu.header.push_back(card("GCOUNT", Node::make_int(1), "number of groups"));
    if (form->second != 0.0) {
      hdu.header.push_back(card("BSCALE", Node::make_int(1)));
      hdu.header.push_back(
          card("BZERO", form->second == 9223372036854775808.0
                            ? Node::make_integer_text("9223372036854775808")
                            : Node::make_int(static_cast<std::int64_t>(form->second))));
    }
    hdu.header.push_back(extname_card(name));
    hdu.header.push_back(card("EXTVER", Node::make_int(1), "extension value"));
    if (unit) hdu.header.push_back(card("BUNIT", unit, "physical unit of the array values"));
    hdu.data = in_place(node, array, path);
    planned_.push_back(std::move(hdu));

    // In the ASDF extension, as python asdf writes an array that lives in an HDU, with the
    // byte order the array had, so that reading it back gives the same dtype (python asdf
    // takes the dtype from the HDU's data and ignores it).
    NodePtr entries = Node::make_mapping();
    entries->set("source", Node::make_string("fits:" + name + ",1"));
    entries->set("datatype", Node::make_string(array.dtype().name()));
    const auto order = asdfcore::ndarray::asdf_byteorder_name(array.dtype().byte_order());
    entries->set("byteorder", Node::make_string(std::string(order)));
    NodePtr shape = Node::make_sequence();
    shape->collection_style = asdfcore::tree::CollectionStyle::kFlow;
    for (auto n : array.shape()) shape->push_back(Node::make_int(static_cast<std::int64_t>(n)));
    entries->set("shape", shape);
    rewrite_array_node(node, entries);
    return true;
  }

  /// Return a node for the plan that reads the array `node` (read as `array`) where it is: its
  /// storage keys (not `mask`), its tag, and its block counted from the start of the file.
  NodePtr in_place(const NodePtr& node, const NDArray& array, const std::string& path) {
    if (!node->is_mapping()) return asdfcore::tree::deep_copy(node);  // inline values
    NodePtr copy = Node::make_mapping();
    copy->copy_tag(*node);
    for (const auto& [k, v] : node->entries()) {
      if (is_storage_key(*k)) copy->entries().emplace_back(k, v);
    }
    if (array.source().kind == asdfcore::ndarray::SourceKind::kBlock) {
      copy->set("source", Node::make_int(static_cast<std::int64_t>(array.source().block)));
      blocks_.name_block(array.source().block, path);
    }
    return copy;
  }

  /// Return the array node of a table column (an ndarray, a `column` with `data`, or a
  /// quantity column with `value`), setting `unit` from the column when it has one.
  static NodePtr column_data(const NodePtr& c, NodePtr& unit) {
    if (asdfcore::tree::is_ndarray(*c)) return c;
    if (!c->is_mapping()) return nullptr;
    unit = c->get("unit");
    if (const NodePtr data = c->get("data")) return data;
    return c->get("value");
  }

  /// Plan a BINTABLE for the table at `path`; return false when a column cannot be a FITS
  /// column (then the table lives in the ASDF extension only, `skipped_table_` says why).
  bool table(const NodePtr& node, const std::string& path) {
    const NodePtr columns = node->get("columns");
    if (!columns || !columns->is_sequence() || columns->size() == 0) {
      skipped_table_ = "the table at " + path + " has no columns: kept in the ASDF extension only";
      return false;
    }
    const NodePtr colnames = node->get("colnames");
    PlannedHdu hdu;
    NodePtr table_copy = asdfcore::tree::deep_copy(node);
    std::vector<to_fits::TreeCard> cards;
    std::uint64_t row = 0;
    std::optional<std::uint64_t> rows;
    for (std::size_t i = 0; i < columns->size(); ++i) {
      const std::string where = path + "/columns/" + std::to_string(i);
      NodePtr unit;
      const NodePtr original = column_data(columns->items()[i], unit);
      const NodePtr c = table_copy->get("columns")->items()[i];
      const NodePtr data = column_data(c, unit);
      std::string name;
      if (c->is_mapping() && c->get("name") && c->get("name")->is_string()) {
        name = c->get("name")->as_string();
      } else if (colnames && colnames->is_sequence() && i < colnames->size() &&
                 colnames->items()[i]->is_string()) {
        name = colnames->items()[i]->as_string();
      }
      if (name.empty()) {
        // A column without a name (the schemas require one) is written as colN, and the plan's
        // copy of the table names it so in `colnames`, where the fits-list writer looks first.
        name = "col" + std::to_string(i + 1);
        NodePtr names = table_copy->get("colnames");
        if (!names || !names->is_sequence()) {
          names = Node::make_sequence();
          table_copy->set("colnames", names);
        }
        while (names->size() <= i) names->push_back(Node::make_null());
        names->items()[i] = Node::make_string(name);
      }
      if (!data || !asdfcore::tree::is_ndarray(*data)) {
        skipped_table_ = "column " + where + " is not an array: the table is kept in the ASDF "
                         "extension only";
        return false;
      }
      const NDArray& array = read(original, where);
      const auto letter = column_letter(array.dtype());
      if (!letter || array.ndim() == 0) {
        skipped_table_ = "column " + where + " (" + array.dtype().name() +
                         ") has no FITS column type: the table is kept in the ASDF extension only";
        return false;
      }
      if (!rows) rows = array.shape()[0];
      if (array.shape()[0] != *rows) {
        skipped_table_ = "the columns of " + path + " differ in length";
        return false;
      }
      reblock(data, array, blocks_);
      std::uint64_t repeat = 1;
      for (std::size_t d = 1; d < array.ndim(); ++d) repeat *= array.shape()[d];
      const std::uint64_t width = *letter == 'A' ? array.dtype().itemsize() * repeat
                                                 : repeat;
      const std::string n = std::to_string(i + 1);
      cards.push_back(card("TTYPE" + n, Node::make_string(name)));
      cards.push_back(card("TFORM" + n, Node::make_string(std::to_string(width) + *letter)));
      const auto kind = array.dtype().kind();
      if (kind == DTypeKind::kUInt16) cards.push_back(card("TZERO" + n, Node::make_int(32768)));
      if (kind == DTypeKind::kUInt32) {
        cards.push_back(card("TZERO" + n, Node::make_int(2147483648LL)));
      }
      if (kind == DTypeKind::kUInt64) {
        cards.push_back(card("TZERO" + n, Node::make_integer_text("9223372036854775808")));
      }
      if (array.ndim() > 2 || (*letter == 'A' && array.ndim() > 1)) {
        std::string dim = "(";
        if (*letter == 'A') dim += std::to_string(array.dtype().itemsize());
        for (std::size_t d = array.ndim(); d-- > 1;) {
          if (dim.size() > 1) dim += ",";
          dim += std::to_string(array.shape()[d]);
        }
        cards.push_back(card("TDIM" + n, Node::make_string(dim + ")")));
      }
      if (unit && unit->is_string()) cards.push_back(card("TUNIT" + n, unit));
      row += width * (*letter == 'A' ? 1 : array.dtype().itemsize());
    }
    hdu.header.push_back(
        card("XTENSION", Node::make_string("BINTABLE"), "binary table extension"));
    hdu.header.push_back(card("BITPIX", Node::make_int(8), "array data type"));
    hdu.header.push_back(card("NAXIS", Node::make_int(2), "number of array dimensions"));
    hdu.header.push_back(card("NAXIS1", Node::make_int(static_cast<std::int64_t>(row)),
                              "length of dimension 1"));
    hdu.header.push_back(card("NAXIS2", Node::make_int(static_cast<std::int64_t>(*rows)),
                              "length of dimension 2"));
    hdu.header.push_back(card("PCOUNT", Node::make_int(0), "number of group parameters"));
    hdu.header.push_back(card("GCOUNT", Node::make_int(1), "number of groups"));
    hdu.header.push_back(card("TFIELDS",
                              Node::make_int(static_cast<std::int64_t>(columns->size())),
                              "number of table fields"));
    for (auto& c : cards) hdu.header.push_back(c);
    hdu.header.push_back(extname_card(extname(path)));
    hdu.data = table_copy;
    planned_.push_back(std::move(hdu));
    return true;
  }

  /// A primary-header card for a scalar whose key is a FITS keyword (the first one wins).
  void scalar_card(std::vector<to_fits::TreeCard>& header, const NodePtr& node,
                   const std::string& path) {
    const std::size_t slash = path.rfind('/');
    const std::string key = upper(path.substr(slash + 1));
    if (key.empty() || key.size() > 8 || key[0] < 'A' || key[0] > 'Z' ||
        key.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != std::string::npos) {
      return;
    }
    static const std::set<std::string> kReserved{
        "SIMPLE", "BITPIX", "EXTEND", "XTENSION", "PCOUNT", "GCOUNT", "END", "BSCALE", "BZERO",
        "BLANK", "BUNIT", "EXTNAME", "EXTVER", "COMMENT", "HISTORY", "CHECKSUM", "DATASUM",
        "GROUPS", "TFIELDS", "THEAP", "CONTINUE", "EXTLEVEL", "INHERIT"};
    if (kReserved.count(key) != 0 || key.starts_with("NAXIS") || used_.count(key) != 0) return;
    if (!node->tag().empty()) return;
    NodePtr value;
    switch (node->kind()) {
      case NodeKind::kBool:
      case NodeKind::kInt: value = node; break;
      case NodeKind::kFloat:
        if (!std::isfinite(node->as_double())) return;
        value = node;
        break;
      case NodeKind::kString: {
        const std::string& s = node->as_string();
        if (s.size() > 68) return;
        for (char ch : s) {
          if (ch < 0x20 || ch > 0x7e) return;
        }
        value = node;
        break;
      }
      default: return;
    }
    used_.insert(key);
    header.push_back(card(key, value, path.size() <= 40 ? "ASDF " + path : ""));
  }

  /// A unique EXTNAME from a tree path: its keys (JSON Pointer escapes undone) joined by '.',
  /// upper case, every character other than A-Z, 0-9, '_' and '-' as '_' (one per UTF-8
  /// character), so the name is plain ASCII that astropy and python asdf's `fits:NAME,VER`
  /// pattern read back as written; at most 60 characters (the card keeps its comment up to 50);
  /// never PRIMARY (astropy's name for the primary HDU) or ASDF.
  std::string extname(const std::string& path) {
    std::string name;
    for (std::size_t i = 1; i <= path.size(); ++i) {
      const char c = i < path.size() ? path[i] : '/';
      if (c == '/') {
        if (!name.empty() && name.back() != '.') name += '.';
        continue;
      }
      if (c == '~' && i + 1 < path.size() && (path[i + 1] == '0' || path[i + 1] == '1')) {
        ++i;  // "~0" is '~', "~1" is '/': neither is kept
        name += '_';
        continue;
      }
      const auto byte = static_cast<unsigned char>(c);
      if (byte >= 0x80 && byte < 0xc0) continue;  // a UTF-8 continuation byte
      const char u = static_cast<char>(std::toupper(byte));
      const bool plain = (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '_' || u == '-';
      name += plain ? u : '_';
    }
    while (!name.empty() && name.back() == '.') name.pop_back();
    if (name.empty()) name = "DATA";
    if (name.size() > 60) name = name.substr(name.size() - 60);
    std::string unique = name;
    for (int n = 2; names_.count(unique) != 0 || unique == "ASDF" || unique == "PRIMARY"; ++n) {
      unique = name + "_" + std::to_string(n);
    }
    names_.insert(unique);
    return unique;
  }

  Blocks& blocks_;  ///< Blocks of the planned fits list (the input's first).
  std::vector<PlannedHdu> planned_;
  std::set<std::string> names_;
  std::set<std::string> used_;
  std::string skipped_table_;
  std::map<const Node*, NDArray> arrays_;        ///< Every array as read from the input.
  std::set<const Node*> seen_arrays_;            ///< Arrays planned already (aliases).
  std::set<const Node*> seen_tables_;            ///< Tables planned already (aliases).
  std::vector<std::pair<NodePtr, std::string>> kept_;  ///< Those that need a block there.
};

std::vector<std::uint8_t> read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

ConversionReport write_asdf_in_fits(const std::string& input, const std::string& output,
                                    const AsdfToFitsOptions& options) {
  asdfcore::OpenOptions open = options.limits.open_options();
  open.verify_checksums = options.verify_checksums;
  open.threads = options.threads;
  if (!options.overwrite) refuse_existing_output(output);
  progress::Meter meter(options.control, input);
  return embedded::write_asdf_in_fits(asdfcore::AsdfFile::open(input, open), input, output,
                                      options, meter);
}

ConversionReport embedded::write_asdf_in_fits(asdfcore::AsdfFile opened, const std::string& input,
                                              const std::string& output,
                                              const AsdfToFitsOptions& options,
                                              progress::Meter& meter) {
  compare::TempFolder temp("asdf-in-fits");
  // The plan: the HDUs as a fits list, whose blocks are the input's and its own. The arrays
  // the planner read from the input are let go once the plan is made.
  Blocks plan_blocks(std::move(opened));
  to_fits::FitsListToWrite plan;
  const HduReport plan_notes = [&] {
    const asdfcore::AsdfFile& file = plan_blocks.input();
    // The tree as written: `$ref`s stay references, as python asdf writes them back. It is
    // changed in place, not copied: the file is this conversion's own, and after planning only
    // its blocks are read.
    const NodePtr& root = file.tree();
    Planner planner(plan_blocks);
    Blocks embedded_blocks;
    HduReport notes;
    std::vector<PlannedHdu> hdus;
    try {
      hdus = planner.plan(root, embedded_blocks, notes);
    } catch (const Error& e) {
      throw e.with_context(ErrorContext{.file = input});
    }

    // The embedded ASDF file: the tree with image arrays pointing at their HDUs.
    const std::string embedded_path = temp.file("embedded.asdf");
    asdfcore::AsdfWriteOptions write;
    write.asdf_standard = file.asdf_standard() == "1.6.0" ? "1.6.0" : "1.5.0";
    write.layout.durable = false;
    write.layout.block_index = false;
    root->erase("asdf_library");
    root->erase("history");
    asdfcore::write_asdf(embedded_path, root, embedded_blocks.to_write(), write);
    std::vector<std::uint8_t> embedded = read_whole(embedded_path);
    // The ASDF extension: one row, one byte column.
    PlannedHdu asdf_hdu;
    const auto n = static_cast<std::int64_t>(embedded.size());
    asdf_hdu.header.push_back(
        card("XTENSION", Node::make_string("BINTABLE"), "binary table extension"));
    asdf_hdu.header.push_back(card("BITPIX", Node::make_int(8), "array data type"));
    asdf_hdu.header.push_back(card("NAXIS", Node::make_int(2), "number of array dimensions"));
    asdf_hdu.header.push_back(card("NAXIS1", Node::make_int(n), "length of dimension 1"));
    asdf_hdu.header.push_back(card("NAXIS2", Node::make_int(1), "length of dimension 2"));
    asdf_hdu.header.push_back(card("PCOUNT", Node::make_int(0), "number of group parameters"));
    asdf_hdu.header.push_back(card("GCOUNT", Node::make_int(1), "number of groups"));
    asdf_hdu.header.push_back(card("TFIELDS", Node::make_int(1), "number of table fields"));
    asdf_hdu.header.push_back(card("TTYPE1", Node::make_string("ASDF_METADATA")));
    asdf_hdu.header.push_back(card("TFORM1", Node::make_string(std::to_string(n) + "B")));
    asdf_hdu.header.push_back(card("EXTNAME", Node::make_string("ASDF"), "extension name"));
    asdfcore::ndarray::NDArrayNodeSpec spec;
    asdfcore::ndarray::Field field;
    field.name = "ASDF_METADATA";
    field.dtype = DType::numeric(DTypeKind::kUInt8, ByteOrder::kBig);
    field.shape = {static_cast<std::uint64_t>(n)};
    spec.dtype = DType::structured({field});
    spec.shape = {1};
    spec.source = plan_blocks.add(std::move(embedded));
    asdf_hdu.data = asdfcore::ndarray::make_ndarray_node(spec);
    hdus.push_back(std::move(asdf_hdu));

    // The plan as the items of a fits list, as the fits-list writer reads a file's.
    plan.list.tag = kAstropyFitsTag;
    plan.list.path = "/fits";
    plan.list.lists_found = 1;
    for (std::size_t i = 0; i < hdus.size(); ++i) {
      to_fits::FitsItem item;
      item.index = static_cast<int>(i + 1);
      item.path = "/fits/" + std::to_string(i);
      item.node = Node::make_mapping();
      if (hdus[i].data) item.node->set("data", hdus[i].data);
      item.header = std::move(hdus[i].header);
      item.data = std::move(hdus[i].data);
      plan.list.items.push_back(std::move(item));
    }
    return notes;
  }();
  plan_blocks.start_writing();
  meter.check();
  // Every block of the input with a checksum, read for the output or not, is verified before
  // the output appears (a block the writer read was verified as it was read).
  ConversionReport report;
  try {
    report = to_fits::write_fits_list(plan, plan_blocks, input, output, options, meter, [&] {
      if (options.verify_checksums) plan_blocks.input().verify_unread_checksums();
    });
  } catch (const Error& e) {
    // A block of the input that cannot be read is named by its block number and the tree path
    // of its array (`Blocks`), not by the HDU of the output being written.
    if (!e.context().block || !e.context().hdu) throw;
    ErrorContext where = e.context();
    where.hdu.reset();
    throw Error(e.code(), e.message(), where);
  }
  report.fits_tag.clear();
  if (!plan_notes.notes.empty() && !report.hdus.empty()) {
    for (const auto& note : plan_notes.notes) report.hdus.front().notes.push_back(note);
  }
  return report;
}

}  // namespace fitsasdf
