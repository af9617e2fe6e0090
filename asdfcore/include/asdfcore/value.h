#pragma once
/// \file
/// `Value`: one node of an opened file's tree, reached by key, index or JSON Pointer, with
/// typed getters whose errors say where, what was expected and what was found. A value that is
/// an ndarray gives its elements as an `ArrayView<T>`.
///
/// \code
///   asdfcore::File file = asdfcore::File::open("jwst.asdf");
///   asdfcore::Value meta = file["meta"];
///   double exptime = meta["exposure"]["exptime"].get<double>();
///   std::string name = file.get<std::string>("/meta/instrument/name");
///   for (const auto& [key, value] : meta.entries()) { /* in file order */ }
/// \endcode

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "asdfcore/array_view.h"
#include "asdfcore/asdf_file.h"
#include "asdfcore/tree/node.h"

namespace asdfcore {

/// A YAML timestamp (`2024-03-01T12:30:00.5Z`, `2001-12-14 21:59:43.10 -5`, `2002-12-14`).
struct Timestamp {
  std::string text;  ///< As written in the file.
  /// The instant in UTC, to the nanosecond (a date alone is its midnight, UTC).
  std::chrono::sys_time<std::chrono::nanoseconds> time;
  /// The offset from UTC the text gave (`-05:00`), or nothing for `Z` and no zone at all.
  std::optional<std::chrono::minutes> utc_offset;
  bool date_only = false;  ///< True when the text is a date without a time.

  /// Read a YAML 1.1 timestamp as PyYAML does. Throws `Error` (wrong-type) for text that is
  /// not one.
  static Timestamp parse(std::string_view text);
};

/// One node of a file's tree together with its JSON Pointer. A cheap handle: copies share the
/// node and keep the file open. Reading values from several threads at once is safe.
class Value {
 public:
  /// One entry of a mapping, as `entries()` gives it.
  struct Entry;

  /// Make an empty handle (`valid()` is false).
  Value() = default;
  /// Make a handle to `node` of `file` at JSON Pointer `path` ("" for the root). `file` may
  /// be null for a tree that belongs to no file (its ndarrays then cannot be read).
  Value(std::shared_ptr<const AsdfFile> file, tree::NodePtr node, std::string path);

  /// Return true unless this is an empty handle.
  bool valid() const noexcept { return node_ != nullptr; }
  /// Return the JSON Pointer of the node ("" for the root, "/meta/exptime").
  const std::string& path() const noexcept { return path_; }
  /// Return what the node holds.
  tree::NodeKind kind() const;
  /// Return the node's full tag URI ("tag:stsci.edu:asdf/core/ndarray-1.0.0"), "" if none.
  const std::string& tag() const;
  /// Return true for a null value.
  bool is_null() const { return kind() == tree::NodeKind::kNull; }
  /// Return true for a mapping.
  bool is_mapping() const { return kind() == tree::NodeKind::kMapping; }
  /// Return true for a sequence.
  bool is_sequence() const { return kind() == tree::NodeKind::kSequence; }
  /// Return true for an ndarray (a node tagged `core/ndarray`, any version).
  bool is_ndarray() const;
  /// Return the number of entries of a mapping or items of a sequence (0 for a scalar).
  std::size_t size() const;

  /// Return true when this is a mapping with the string key `key`.
  bool contains(std::string_view key) const;
  /// Return the value under the string key `key`. Throws `Error` (wrong-type) when this is
  /// not a mapping, (not-found) when the key is missing.
  Value operator[](std::string_view key) const;
  /// Return item `index` (0-based) of a sequence. Throws `Error` (wrong-type) when this is
  /// not a sequence, (not-found) when the index is past the end.
  Value operator[](std::size_t index) const;
  /// Return the value at the JSON Pointer `pointer` relative to this one ("/exposure/exptime";
  /// the leading "/" may be left out; "" is this value; `~0` is "~", `~1` is "/"; sequence
  /// steps are decimal indices, negative ones counting from the end). Throws `Error`
  /// (not-found) naming the first step that does not exist, (invalid-argument) for a pointer
  /// that cannot be read.
  Value at(std::string_view pointer) const;
  /// Return the value at `pointer` (as `at`), or nothing when a step does not exist.
  std::optional<Value> find(std::string_view pointer) const;

  /// Return the value as `T`: `bool`; an integer type (the value must fit); `float` or
  /// `double` (integers are converted; a scalar `unit/quantity` gives its value, as its
  /// astropy Quantity's float does); `std::string` (a string, or a timestamp's text);
  /// `Timestamp` (a YAML timestamp, or a `time/time` string in ISO form); `std::vector<U>` of
  /// any of these (a sequence); `Value` (this). Throws
  /// `Error` (wrong-type) saying the expected type and the type found, with the path.
  template <typename T>
  T get() const;
  /// Return the value at `pointer` as `T` (`at(pointer).get<T>()`).
  template <typename T>
  T get(std::string_view pointer) const {
    return at(pointer).get<T>();
  }
  /// Return the value at `pointer` as `T`, or `fallback` when a step does not exist (a value
  /// of another type is still an error).
  template <typename T>
  T get_or(std::string_view pointer, T fallback) const {
    const std::optional<Value> v = find(pointer);
    return v ? v->get<T>() : std::move(fallback);
  }

  /// Return the entries of a mapping in file order (keys that are not strings are given as
  /// their YAML text). Throws `Error` (wrong-type) when this is not a mapping.
  std::vector<Entry> entries() const;
  /// Return the items of a sequence in order. Throws `Error` (wrong-type) when this is not a
  /// sequence.
  std::vector<Value> items() const;

  /// Return the ndarray this value describes (`core/ndarray`, or a `core/column`,
  /// `unit/quantity` or masked array wrapping one), read from the file. Throws `Error`
  /// (wrong-type) for any other value, and what reading the array throws.
  std::shared_ptr<const ndarray::NDArray> raw_array() const;
  /// Return the elements as `T`; the array's element type must be `T` (any byte order).
  /// Throws `Error` (wrong-type) naming both types when it is not.
  template <typename T>
  ArrayView<T> array() const {
    return ArrayView<T>(raw_array(), false, "", file_name(), path_);
  }
  /// Return the elements converted to `T` when numpy's safe casting allows it (int16 ->
  /// double, uint8 -> int32, float32 -> complex<double>, ...). Throws `Error` (wrong-type)
  /// naming both types otherwise.
  template <typename T>
  ArrayView<T> array_as() const {
    return ArrayView<T>(raw_array(), true, "", file_name(), path_);
  }
  /// Return the field `name` of a record (structured) array as `T` (exact type); a field with
  /// a sub-array shape adds its dimensions after the array's. Throws `Error` (not-found) for
  /// a missing field, (wrong-type) for another type.
  template <typename T>
  ArrayView<T> field(const std::string& name) const {
    return ArrayView<T>(raw_array(), false, name, file_name(), path_);
  }
  /// Return the elements of a string array (`ascii` or `ucs4`) in C order, as UTF-8 without
  /// trailing NULs. Throws `Error` (wrong-type) for any other element type.
  std::vector<std::string> strings() const;

  /// Return the node itself (for the lower-level tree API).
  const tree::NodePtr& node() const noexcept { return node_; }
  /// Return the file the value belongs to, or null.
  const std::shared_ptr<const AsdfFile>& file() const noexcept { return file_; }

 private:
  std::string file_name() const { return file_ ? file_->path() : std::string(); }
  const tree::Node& checked() const;
  [[noreturn]] void wrong_type(std::string_view expected) const;

  std::shared_ptr<const AsdfFile> file_;
  tree::NodePtr node_;
  std::string path_;
};

/// One entry of a mapping.
struct Value::Entry {
  std::string key;  ///< The key (a string key as is; another key as its YAML text).
  Value value;      ///< The value under it.
};

/// \cond INTERNAL
// The scalar getters are compiled into the library for exactly these types.
template <>
bool Value::get<bool>() const;
template <>
std::int8_t Value::get<std::int8_t>() const;
template <>
std::int16_t Value::get<std::int16_t>() const;
template <>
std::int32_t Value::get<std::int32_t>() const;
template <>
std::int64_t Value::get<std::int64_t>() const;
template <>
std::uint8_t Value::get<std::uint8_t>() const;
template <>
std::uint16_t Value::get<std::uint16_t>() const;
template <>
std::uint32_t Value::get<std::uint32_t>() const;
template <>
std::uint64_t Value::get<std::uint64_t>() const;
template <>
float Value::get<float>() const;
template <>
double Value::get<double>() const;
template <>
std::string Value::get<std::string>() const;
template <>
Timestamp Value::get<Timestamp>() const;
template <>
Value Value::get<Value>() const;

template <typename T>
struct is_std_vector : std::false_type {};
template <typename U>
struct is_std_vector<std::vector<U>> : std::true_type {};

template <typename T>
T Value::get() const {
  static_assert(is_std_vector<T>::value,
                "Value::get<T>: T must be bool, an integer type, float, double, std::string, "
                "Timestamp, Value or a std::vector of these");
  T out;
  for (const Value& item : items()) out.push_back(item.get<typename T::value_type>());
  return out;
}
/// \endcond

}  // namespace asdfcore
