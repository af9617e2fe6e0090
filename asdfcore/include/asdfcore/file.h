#pragma once
/// \file
/// `File`: the front door for reading an ASDF file. Open it from a path or from memory, then
/// reach values by key or JSON Pointer and arrays as typed views; nothing is read from a block
/// until an array is asked for, and uncompressed blocks are never copied.
///
/// \code
///   asdfcore::File file = asdfcore::File::open("jwst.asdf");
///   double exptime = file.get<double>("/meta/exposure/exptime");
///   asdfcore::ArrayView<float> sci = file.array<float>("/data");
///   std::cout << sci.shape()[0] << " x " << sci.shape()[1] << ", first " << sci(0, 0) << "\n";
///   if (file.contains("/dq")) { auto dq = file.array_as<std::uint32_t>("/dq"); }
/// \endcode

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "asdfcore/asdf_file.h"
#include "asdfcore/validate.h"
#include "asdfcore/value.h"

namespace asdfcore {

/// An ASDF file opened for reading. Copies share the open file. One `File` (and the values
/// and views it hands out) can be read from several threads at once.
class File {
 public:
  /// Open the ASDF file at `path` (memory-mapped; the tree is parsed, blocks are read when
  /// an array is asked for). Throws `Error` naming the file and the byte offset for a file
  /// that is not ASDF or is damaged, (io) when it cannot be read.
  static File open(const std::string& path, const OpenOptions& options = {});
  /// Open the ASDF file held in `bytes`; `name` stands for its path in errors and is the base
  /// of relative references. Throws as `open` does.
  static File open_memory(std::vector<std::uint8_t> bytes, const std::string& name = "<memory>",
                          const OpenOptions& options = {});
  /// Use the file `file` opened through the lower-level API.
  static File from(AsdfFile file);

  /// Return the path the file was opened with (or the name given to `open_memory`).
  const std::string& path() const noexcept { return file_->path(); }
  /// Return the ASDF Standard version the file declares ("1.5.0").
  const std::string& asdf_standard() const noexcept { return file_->asdf_standard(); }
  /// Return what was odd but not fatal (layout problems, unknown tag versions).
  const std::vector<std::string>& warnings() const noexcept { return file_->warnings(); }

  /// Return the root of the tree (a mapping; `$ref` entries are not followed).
  Value root() const;
  /// Return the root's value under `key` (`root()[key]`).
  Value operator[](std::string_view key) const { return root()[key]; }
  /// Return the value at the JSON Pointer `pointer` ("/meta/exposure/exptime"; see
  /// `Value::at`). Throws `Error` (not-found) naming the first missing step.
  Value at(std::string_view pointer) const { return root().at(pointer); }
  /// Return true when `pointer` names a value of the tree.
  bool contains(std::string_view pointer) const { return root().find(pointer).has_value(); }
  /// Return the value at `pointer` as `T` (see `Value::get`).
  template <typename T>
  T get(std::string_view pointer) const {
    return at(pointer).get<T>();
  }
  /// Return the ndarray at `pointer` as a view of `T` (exact element type; see
  /// `Value::array`).
  template <typename T>
  ArrayView<T> array(std::string_view pointer) const {
    return at(pointer).array<T>();
  }
  /// Return the ndarray at `pointer` converted to `T` by numpy's safe casting (see
  /// `Value::array_as`).
  template <typename T>
  ArrayView<T> array_as(std::string_view pointer) const {
    return at(pointer).array_as<T>();
  }

  /// Verify every block's MD5 checksum (either convention python asdf wrote). Throws `Error`
  /// (checksum) naming the first block that matches neither.
  void verify_checksums() const { file_->verify_unread_checksums(); }

  /// Check the whole file and return every finding: layout, blocks decoded, checksums, array
  /// bounds, references, and each tagged node against its schema (`asdfcore::validate`).
  /// To refuse a file that breaks its schemas when opening it, set `OpenOptions::validate`.
  FileValidation validate(const ValidateOptions& options = {}) const {
    return asdfcore::validate(*file_, options);
  }

  /// Return the lower-level file (layout, blocks, the tree's nodes).
  const AsdfFile& raw() const noexcept { return *file_; }

 private:
  explicit File(std::shared_ptr<const AsdfFile> file) : file_(std::move(file)) {}
  std::shared_ptr<const AsdfFile> file_;
};

}  // namespace asdfcore
