#include "to_fits/fits_items.h"

#include "asdfcore/error.h"
#include "asdfcore/tree/walk.h"

namespace fitsasdf::to_fits {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ErrorContext;
using asdfcore::tree::Node;
using asdfcore::tree::NodePtr;

NodePtr present(const Node& item, std::string_view key) {
  NodePtr v = item.get(key);
  return v && !v->is_null() ? v : nullptr;
}

FitsItem read_item(const NodePtr& node, int index, const std::string& path,
                   const std::string& file) {
  const ErrorContext where{.file = file, .tree_path = path, .hdu = index};
  if (!node || !node->is_mapping()) {
    throw Error(ErrorCode::kMalformed,
                "a fits item must be a mapping with `header` and `data`, not " +
                    (node ? asdfcore::tree::describe_for_error(*node) : std::string("nothing")),
                where);
  }
  FitsItem item;
  item.index = index;
  item.path = path;
  item.node = node;
  try {
    const NodePtr header = node->get("header");
    if (!header) throw Error(ErrorCode::kMalformed, "the fits item has no `header`", {});
    item.header = read_tree_cards(*header, path + "/header");
    if (const NodePtr images = present(*node, kCardImagesKey)) {
      item.images =
          read_card_images(*images, item.header.size(), path + "/" + std::string(kCardImagesKey));
    }
    if (const NodePtr compressed = present(*node, "compressed_header")) {
      item.compressed = true;
      item.compressed_header = read_tree_cards(*compressed, path + "/compressed_header");
      if (const NodePtr images = present(*node, kCompressedCardImagesKey)) {
        item.compressed_images =
            read_card_images(*images, item.compressed_header.size(),
                             path + "/" + std::string(kCompressedCardImagesKey));
      }
    }
  } catch (const Error& e) {
    throw e.with_context(where);
  }
  item.data = present(*node, "data");
  item.raw_data = present(*node, "raw_data");
  return item;
}

}  // namespace

bool is_fits_tag(std::string_view tag) {
  return tag.starts_with(kStandardFitsTag) || tag.starts_with(kAstropyFitsTag);
}

bool has_fits_list(const NodePtr& root) {
  bool found = false;
  asdfcore::tree::walk(root, [&found](const NodePtr& node, const std::string&) {
    if (found || asdfcore::tree::is_ndarray(*node)) return false;
    if (node->is_sequence() && is_fits_tag(node->tag())) found = true;
    return !found;
  });
  return found;
}

FitsList find_fits_list(const NodePtr& root, const std::string& file) {
  FitsList list;
  NodePtr found;
  const NodePtr at_fits = root && root->is_mapping() ? root->get("fits") : nullptr;
  if (at_fits && at_fits->is_sequence() && is_fits_tag(at_fits->tag())) {
    found = at_fits;
    list.path = "/fits";
  }
  asdfcore::tree::walk(root, [&](const NodePtr& node, const std::string& path) {
    if (asdfcore::tree::is_ndarray(*node)) return false;
    if (node->is_sequence() && is_fits_tag(node->tag())) {
      ++list.lists_found;
      if (!found) {
        found = node;
        list.path = path;
      }
      return false;
    }
    return true;
  });
  if (!found) {
    throw Error(ErrorCode::kNotFits,
                "this ASDF file has no `fits` list (a list tagged " +
                    std::string(kStandardFitsTag) + "0.0 or " + std::string(kAstropyFitsTag) +
                    "0.0, as fitsasdf and asdf-astropy write a FITS file into ASDF): it holds no "
                    "FITS file to write back",
                ErrorContext{.file = file});
  }
  list.tag = found->tag();
  if (found->size() == 0) {
    throw Error(ErrorCode::kMalformed, "the fits list is empty: a FITS file needs a primary HDU",
                ErrorContext{.file = file, .tree_path = list.path});
  }
  for (std::size_t i = 0; i < found->size(); ++i) {
    list.items.push_back(read_item(found->items()[i], static_cast<int>(i + 1),
                                   list.path + "/" + std::to_string(i), file));
  }
  // The images of a list at /fits may be beside it (the standard's tag allows no more keys in
  // an item); an item's own `card_images` wins.
  const NodePtr beside = list.path == "/fits" ? root->get(kRootCardImagesKey) : nullptr;
  if (beside && beside->is_sequence()) {
    const std::string path = "/" + std::string(kRootCardImagesKey);
    for (std::size_t i = 0; i < beside->size() && i < list.items.size(); ++i) {
      FitsItem& item = list.items[i];
      const NodePtr images = beside->items()[i];
      if (!images || images->is_null() || !item.images.empty()) continue;
      try {
        item.images = read_card_images(*images, item.header.size(), path + "/" + std::to_string(i));
      } catch (const Error& e) {
        throw e.with_context(ErrorContext{.file = file, .hdu = item.index});
      }
    }
  }
  return list;
}

}  // namespace fitsasdf::to_fits
