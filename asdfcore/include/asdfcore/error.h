#pragma once
/// \file
/// The one exception type of fitsasdf: a category code plus the place (file, byte offset, block,
/// tree path, HDU) where the problem was found.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace asdfcore {

/// Categories of failure. The CLI maps each to a documented exit status.
enum class ErrorCode {
  kIo,                  ///< The operating system refused a read, write, rename or mapping.
  kNotAsdf,             ///< The input is not an ASDF file (no `#ASDF` header; another format).
  kNotFits,             ///< The input is not a FITS file (no `SIMPLE` card; another format).
  kUnsupportedVersion,  ///< The file declares a format version this library cannot read.
  kMalformed,           ///< The file's structure breaks the layout rules (header, tree, blocks).
  kTruncated,           ///< The file ends before a structure it declares.
  kCompression,         ///< A block cannot be decoded (unknown label, corrupt stream, size lie).
  kChecksum,            ///< A block's stored MD5 does not match its data.
  kLimit,               ///< A configured resource limit would be exceeded.
  kInvalidArgument,     ///< The caller passed a value the API does not accept.
  kNotFound,            ///< A tree path names nothing (a missing key, an index past the end).
  kWrongType,           ///< A value is not of the type asked for (or does not fit in it).
  kCancelled,           ///< The caller cancelled the operation; nothing was written.
  kSchema,             ///< The tree breaks a schema (opened with `OpenOptions::validate`).
  kConflict,           ///< The file changed on disk since it was opened for update.
  kUnsupported,        ///< The file is sound, but this operation cannot be done on it safely.
  kExists,             ///< The output exists and the caller asked not to replace it.
};

/// Return the stable lower-case name of `code` ("malformed", "checksum", ...).
std::string_view error_code_name(ErrorCode code) noexcept;

/// Where an error was found. Every field is optional; set the ones that are known.
struct ErrorContext {
  std::string file;                    ///< Path of the file being read or written.
  std::optional<std::uint64_t> offset; ///< Byte offset from the start of the file (0-based).
  std::optional<std::size_t> block;    ///< Block number in file order (0-based).
  std::string tree_path;               ///< JSON Pointer into the tree.
  std::optional<int> hdu;              ///< FITS HDU number (1-based, as CFITSIO counts).

  /// Fill the fields that are empty here from `outer`, keeping the ones already set.
  void merge_from(const ErrorContext& outer);
};

/// The root of every exception fitsasdf throws. `what()` reads
/// "FILE: at byte N (block K): MESSAGE" with the parts that are known.
class Error : public std::runtime_error {
 public:
  /// Make an error of category `code` with a message saying what was wrong and how to fix it.
  Error(ErrorCode code, std::string message, ErrorContext context = {});

  /// Return the category.
  ErrorCode code() const noexcept { return code_; }
  /// Return the message without the location prefix.
  const std::string& message() const noexcept { return message_; }
  /// Return where the error was found.
  const ErrorContext& context() const noexcept { return context_; }

  /// Return a copy whose context is completed from `outer` (fields already set are kept).
  Error with_context(const ErrorContext& outer) const;

 private:
  static std::string format(const std::string& message, const ErrorContext& context);

  ErrorCode code_;
  std::string message_;
  ErrorContext context_;
};

}  // namespace asdfcore
