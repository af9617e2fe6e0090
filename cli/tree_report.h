#pragma once
// What `fitsasdf info` shows of a tree: the tag of every tagged node, a summary of every
// ndarray, and a human-readable outline.
#include <nlohmann/json.hpp>
#include <string>

#include "asdfcore/asdf_file.h"

namespace fitsasdf::cli {

/// Return {json_pointer: tag} for every tagged node, as reached from the root (nodes inside
/// ndarrays and `$ref` mappings are not entered).
nlohmann::ordered_json tag_map(const asdfcore::AsdfFile& file);

/// Return one summary per ndarray node in document order: path, shape, datatype and byteorder
/// as written, source, dtype (numpy form), md5 (C order, little-endian fields), mask facts, or
/// error. A node reached again through an alias gets `alias_of`.
nlohmann::ordered_json array_summaries(const asdfcore::AsdfFile& file);

/// Return an outline of the tree, one line per node with its type and a short value.
std::string outline(const asdfcore::AsdfFile& file, std::size_t max_lines);

/// Return `node` as JSON (tags dropped; non-finite floats and binary as in the corpus oracle).
nlohmann::ordered_json node_json(const asdfcore::tree::Node& node);

}  // namespace fitsasdf::cli
