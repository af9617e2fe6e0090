#pragma once
/// \file
/// `StreamWriter`: writing an array that is never in memory whole. The tree holds one
/// `Array::streamed` (frames appended one by one, the first dimension growing: an instrument
/// writing a cube frame by frame) or one `Array::pending` (a known shape given piece by piece,
/// compressed on the worker threads as it comes). Memory stays a few pieces whatever the size.
///
/// \code
///   asdfcore::Tree tree;
///   tree["meta"]["detector"] = "NRCA1";
///   tree["cube"] = asdfcore::Array::streamed<float>({2048, 2048});
///   asdfcore::StreamWriter out("cube.asdf", tree);
///   for (const auto& frame : frames) out.append(std::span<const float>(frame));
///   out.close();  // the file appears now; without close() nothing is left
/// \endcode

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "asdfcore/tree_builder.h"
#include "asdfcore/write.h"

namespace asdfcore {

/// Writes one ASDF file whose last block is filled by `append` calls. The file appears under
/// its name when `close` succeeds; destroying the writer without `close` (or after a failure)
/// leaves nothing behind. Not for use from several threads at once.
class StreamWriter {
 public:
  /// Start writing `tree` to `path`. The tree must hold exactly one streamed or pending
  /// `Array` (its block is written last); every other array is written before it. Its bytes
  /// are written as given: `options.byte_order`, when set, must be the array's own. Throws
  /// `Error` (invalid-argument) when there is no such array or more than one, for another
  /// byte order, or for the reasons `write` throws.
  StreamWriter(const std::string& path, const Tree& tree, const WriteOptions& options = {});
  /// Abandon the file unless `close` succeeded (the temporary file is removed).
  ~StreamWriter();
  StreamWriter(const StreamWriter&) = delete;             ///< Not copyable.
  StreamWriter& operator=(const StreamWriter&) = delete;  ///< Not copyable.

  /// Append `values` (C order) to the array. Any number of elements may be appended at a
  /// time: frames may be split or joined across calls. Throws `Error` (wrong-type) when `T`
  /// is not the array's element type, (invalid-argument) when a pending array would get more
  /// elements than its shape holds, and what writing throws (the writer is then failed:
  /// close() rethrows).
  template <typename T>
  void append(std::span<const T> values) {
    check_type(kind_of<T>());
    append_bytes({reinterpret_cast<const std::uint8_t*>(values.data()), values.size_bytes()});
  }
  /// Append raw bytes of elements in the array's type and byte order.
  void append_bytes(std::span<const std::uint8_t> bytes);
  /// Return the bytes appended so far.
  std::uint64_t bytes_appended() const noexcept;

  /// Finish the file and rename it into place. Throws `Error` (invalid-argument) when a
  /// pending array did not get all its elements or a streamed one got a partial frame, and
  /// what writing throws; in every case nothing is left at `path` then.
  void close();

 private:
  void check_type(ndarray::DTypeKind kind) const;
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace asdfcore
