#pragma once
/// \file
/// An ASDF file opened for reading: its layout, its YAML tree (tags kept, `$ref` resolvable),
/// and its arrays, read lazily from blocks that stay memory-mapped.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "asdfcore/format/container.h"
#include "asdfcore/ndarray/ndarray.h"
#include "asdfcore/tree/node.h"
#include "asdfcore/tree/yaml.h"

namespace asdfcore {

/// Settings for opening a file.
struct OpenOptions {
  format::ReadOptions layout;          ///< Block-layout checks and limits.
  tree::YamlReadOptions yaml;          ///< Tree-size, depth and alias limits.
  /// Check each block's MD5 (either convention) when its data is read: a large uncompressed
  /// block read with `Load::kDeferred` is then streamed, hashed by a second thread on the way.
  bool verify_checksums = false;
  /// Folders besides the file's own that external references and external blocks may reach.
  std::vector<std::filesystem::path> allowed_dirs;
  bool allow_any_path = false;         ///< Let external references reach any local file.
  /// Check every tagged node of the tree against its schema, as python asdf does on open, and
  /// throw `Error` (schema) naming the first node that breaks one (and how many do). Off by
  /// default: fitsasdf trusts what it reads unless asked, for speed.
  bool validate = false;
  /// Threads that decode one streamed zlib block written in pieces (as fitsasdf writes them)
  /// side by side; 0 means the hardware's thread count. The bytes do not depend on it.
  unsigned threads = 0;
};

/// One ASDF file. Copies share the same open file.
class AsdfFile {
 public:
  /// Open the file at `path`: map it, scan its layout, parse its tree. Arrays are not read
  /// until asked for. Throws `Error` for a file that is not ASDF or whose tree is not valid YAML.
  static AsdfFile open(const std::string& path, const OpenOptions& options = {});
  /// Read an ASDF file held in memory (an ASDF extension of a FITS file); `name` stands for its
  /// path in errors and is the base for relative references and exploded blocks.
  static AsdfFile open_bytes(io::Buffer bytes, const std::string& name,
                             const OpenOptions& options = {});

  /// Return the path the file was opened with.
  const std::string& path() const noexcept;
  /// Return the byte layout (prologue, blocks, index).
  const format::Container& container() const noexcept;
  /// Return the ASDF Standard version the file declares ("1.0.0" when it declares none).
  const std::string& asdf_standard() const noexcept;
  /// Return the tree as written: tags kept, `$ref` mappings left in place. A file with no tree
  /// gives an empty mapping.
  const tree::NodePtr& tree() const noexcept;
  /// Return the tree with every `$ref` replaced by its target (computed once, on first call);
  /// the tree itself when it holds no reference.
  tree::NodePtr resolved_tree() const;
  /// Return what was odd but not fatal: layout problems, unknown tag versions, ...
  const std::vector<std::string>& warnings() const noexcept;
  /// Return the keys the tree's YAML repeats within one mapping (the last value is kept, as
  /// PyYAML does; YAML forbids the repetition).
  const std::vector<tree::DuplicateKey>& duplicate_keys() const noexcept;

  /// Return the source of block data for ndarrays of this file (including exploded blocks in
  /// sibling files).
  const ndarray::BlockProvider& blocks() const noexcept;
  /// Read the ndarray described by `node` (a `core/ndarray` mapping of this file's tree);
  /// `path` is its JSON Pointer, used in errors.
  ndarray::NDArray array(const tree::Node& node, const std::string& path = "") const;
  /// Read the ndarray `node` with its block read as `load` says. With `Load::kDeferred` a
  /// compressed block of 16 MiB or more is decoded only when its bytes are first needed, or
  /// streamed a few MiB at a time (`NDArray::stream_bytes`); such an array must not outlive
  /// this file object (or a copy of it).
  ndarray::NDArray array(const tree::Node& node, const std::string& path,
                         ndarray::NDArray::Load load) const;
  /// Verify the checksum of every block of this file that has one and that no read has
  /// verified yet (with `OpenOptions::verify_checksums` each read verifies its block), as
  /// `format::Container::verify_checksum` does, in bounded memory. Blocks whose header is
  /// damaged (`BlockInfo::problem`) are skipped: they cannot be read at all. Throws `Error`
  /// (checksum) naming the first block that matches neither convention.
  void verify_unread_checksums() const;

 private:
  struct State;
  explicit AsdfFile(std::shared_ptr<State> state) : state_(std::move(state)) {}
  static AsdfFile from_container(format::Container container, const std::string& path,
                                 const OpenOptions& options);
  std::shared_ptr<State> state_;
};

}  // namespace asdfcore
