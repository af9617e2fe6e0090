#pragma once
/// \file
/// `NDArray`: an ASDF `ndarray` node resolved against its bytes. It reads the node's `source`
/// (a block of this file, counted from the end when negative, or the first block of another
/// file) or its inline `data`, the `datatype`, `byteorder`, `shape` (with a streamed `*`),
/// `offset`, `strides` and `mask`, checks that every element lies inside the bytes before any
/// byte is read, and hands the elements out in C order in the byte order the caller wants.
/// `make_ndarray_node` builds the node for writing.

#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "asdfcore/io/buffer.h"
#include "asdfcore/ndarray/dtype.h"
#include "asdfcore/tree/node.h"

namespace asdfcore::ndarray {

/// Where an ndarray finds its bytes. The file layer implements this; implementations throw
/// `Error` (malformed, io, ...) when a block cannot be delivered.
class BlockProvider {
 public:
  virtual ~BlockProvider() = default;
  /// Return the decoded data of block `index` (0-based in file order; a negative index counts
  /// from the end, -1 being the last block).
  virtual io::Buffer block(std::int64_t index) const = 0;
  /// Return the number of blocks in the file (the streamed block included).
  virtual std::uint64_t block_count() const = 0;
  /// Return the data of the first block of the ASDF file at `uri`, relative to this file
  /// ("exploded0000.asdf").
  virtual io::Buffer external(const std::string& uri) const = 0;
  /// Return why blocks past `block_count()` cannot be reached (the file is cut, a block header
  /// is damaged), for the error about a `source` naming no block; empty when nothing is known.
  virtual std::string missing_blocks_reason() const { return {}; }
  /// Return the decoded size of block `index` (0-based) when `stream_block` hands it on
  /// without decoding it whole first (a large compressed block of this file, or a large
  /// uncompressed one whose MD5 is verified on the way), else nothing
  /// (the default): `NDArray::from_node` with `Load::kDeferred` then reads it with `block`.
  virtual std::optional<std::uint64_t> streamable_block_size(std::int64_t index) const {
    (void)index;
    return std::nullopt;
  }
  /// Hand block `index`'s decoded data (0-based) to `write` in order, in pieces. A failure
  /// part way (a corrupt stream, a checksum mismatch) throws after earlier pieces were handed
  /// on. The default hands on `block(index)` whole.
  virtual void stream_block(std::int64_t index,
                            const std::function<void(std::span<const std::uint8_t>)>& write) const {
    write(block(index).span());
  }
};

/// What a `source` names.
enum class SourceKind {
  kBlock,     ///< A block of this file.
  kExternal,  ///< The first block of another file.
  kInline,    ///< No block: the values are in the tree (`data`, or the node is a list).
};

/// The source of an array, as written and as resolved.
struct Source {
  SourceKind kind = SourceKind::kInline;  ///< Which kind of source.
  std::int64_t index = 0;   ///< The block index as written (may be negative); kBlock only.
  std::uint64_t block = 0;  ///< The block index counted from the start (0-based); kBlock only.
  std::string uri;          ///< The URI as written; kExternal only.

  /// Return "block 0", "block -1 (= 2)", "external 'a0000.asdf'" or "inline data".
  std::string describe() const;
};

/// What kind of mask an array has (inline nulls are reported separately).
enum class MaskKind {
  kNone,   ///< No `mask` entry.
  kValue,  ///< A number (or complex number): elements equal to it are missing.
  kArray,  ///< Another ndarray: its non-zero elements mark missing ones.
};

class NDArray;

/// How missing values are marked. python asdf combines every source: inline nulls, then the
/// `mask` entry; an element is masked when any of them says so.
struct Mask {
  MaskKind kind = MaskKind::kNone;  ///< The kind of the `mask` entry.
  /// The value of a kValue mask: an integer, a float or a complex number as written.
  std::variant<std::int64_t, double, std::complex<double>> value;
  std::shared_ptr<const NDArray> array;  ///< The mask array of a kArray mask.
  std::vector<std::uint8_t> nulls;       ///< Inline data only: 1 per null element, C order.
};

/// An ndarray node resolved against its bytes. Copies share the bytes.
class NDArray {
 public:
  /// Read the ndarray `node` (a mapping, or a list of inline values) whose JSON pointer is
  /// `path`, taking block bytes from `blocks`. Inline values get the type python asdf infers
  /// when there is no `datatype` (strings: ucs4 of the longest; else complex128, float64,
  /// int64 or bool8; null is a masked 0); nested lists give the shape. Every size is checked
  /// before any byte is read or any buffer allocated. Throws `Error` (malformed) naming the
  /// offending path for: neither or both of `source` and `data`, a missing `datatype`,
  /// `byteorder` or `shape` next to `source`, an unknown block index, a bad shape, offset or
  /// strides, elements outside the block, a shape whose size overflows, ragged or
  /// unconvertible inline data, or a mask that does not fit; (limit) for inline data larger
  /// than `kMaxInlineBytes`. Errors thrown by `blocks` get `path` added. A negative `source`
  /// is checked against `blocks.block_count()` and passed to `blocks.block()` counted from 0.
  static NDArray from_node(const tree::Node& node, const BlockProvider& blocks,
                           const std::string& path);

  /// When `from_node` reads the block of a `source`.
  enum class Load {
    kNow,       ///< At once, through `BlockProvider::block`.
    kDeferred,  ///< A block the provider can stream (`streamable_block_size`) is checked
                ///< against its declared size only and decoded when the bytes are first
                ///< needed, or handed on piece by piece by `stream_bytes`. The provider (for an
                ///< `AsdfFile`, the file) must then outlive the array and its copies.
  };
  /// Read `node` as `from_node` does, reading its block as `load` says.
  static NDArray from_node(const tree::Node& node, const BlockProvider& blocks,
                           const std::string& path, Load load);

  /// The largest inline array accepted, in bytes of converted data.
  static constexpr std::uint64_t kMaxInlineBytes = std::uint64_t{1} << 30;

  /// Return the element type as python asdf delivers it.
  const DType& dtype() const noexcept { return dtype_; }
  /// Return the shape in elements, a streamed `*` resolved from the block size.
  const std::vector<std::uint64_t>& shape() const noexcept { return shape_; }
  /// Return the stride of each dimension in bytes (may be negative); C-order strides when the
  /// node gives none.
  const std::vector<std::int64_t>& strides() const noexcept { return strides_; }
  /// Return true when the node gave `strides`.
  bool has_explicit_strides() const noexcept { return explicit_strides_; }
  /// Return the byte offset of the first element (index 0, 0, ...) inside the block.
  std::uint64_t offset() const noexcept { return offset_; }
  /// Return where the bytes come from.
  const Source& source() const noexcept { return source_; }
  /// Return true when the values came from the tree rather than a block.
  bool is_inline() const noexcept { return source_.kind == SourceKind::kInline; }
  /// Return true when the shape began with `*` (a streamed array).
  bool is_streamed() const noexcept { return streamed_; }
  /// Return the number of dimensions.
  std::size_t ndim() const noexcept { return shape_.size(); }
  /// Return the number of elements.
  std::uint64_t size() const noexcept { return size_; }
  /// Return the size of the elements in C order, in bytes (`size() * dtype().itemsize()`).
  std::uint64_t nbytes() const noexcept { return nbytes_; }
  /// Return all bytes of the block (or of the converted inline values; native byte order). A
  /// deferred block is decoded here on first use (throws what `BlockProvider::block` throws).
  const io::Buffer& data() const;

  /// Return true when the elements are the whole of a deferred block, not yet decoded, in C
  /// order (offset 0, C-order strides, `nbytes()` = the block's size): `stream_bytes` then hands
  /// them on a few MiB at a time, without the block ever being in memory whole.
  bool can_stream() const noexcept;
  /// Hand the elements in C order, in the stored byte order, to `write` in pieces of any
  /// length (when `can_stream()`, through `BlockProvider::stream_block`). Throws `Error`
  /// (invalid-argument) when `can_stream()` is false, and what the provider throws; after a
  /// failure part way, earlier pieces have been handed on.
  void stream_bytes(const std::function<void(std::span<const std::uint8_t>)>& write) const;

  /// Return the mask description.
  const Mask& mask() const noexcept { return mask_; }
  /// Return true when the array has a `mask` entry or inline nulls.
  bool has_mask() const noexcept { return mask_.kind != MaskKind::kNone || !mask_.nulls.empty(); }
  /// Return one byte per element in C order, 1 where the element is masked, as python asdf
  /// computes it: inline nulls, a mask array (non-zero = masked; one element or as many as
  /// the array, read in C order), values equal to a value mask (floats: numpy's `isclose` with
  /// rtol 1e-5 and atol 1e-8; a NaN mask marks NaNs; records and strings never match).
  std::vector<std::uint8_t> mask_c_order() const;
  /// Return the number of masked elements (0 without a mask).
  std::uint64_t masked_count() const;

  /// Return true when the elements lie in C order without gaps.
  bool is_c_contiguous() const noexcept;
  /// Return the bytes of the elements without copying when `is_c_contiguous()` (a slice of the
  /// block in the dtype's byte order), else nothing.
  std::optional<io::Buffer> contiguous_view() const;
  /// Return the elements in C order with every number and UCS-4 character in `target` order
  /// (`kNotApplicable` keeps the stored order; ASCII bytes are never changed; records field by
  /// field). Throws `Error` (limit) when the result would exceed `max_bytes`; by default the
  /// limit is the larger of the block size and 1 GiB, so only views whose strides overlap can
  /// reach it.
  std::vector<std::uint8_t> to_c_order(ByteOrder target,
                                       std::optional<std::uint64_t> max_bytes = {}) const;
  /// Return the MD5 (32 lower-case hex digits) of `to_c_order(ByteOrder::kLittle)`, computed
  /// in pieces without building the whole copy; the corpus oracle's array `md5`. Throws
  /// `Error` (limit) past the same default limit as `to_c_order`.
  std::string md5_le() const;

 private:
  NDArray() = default;

  DType dtype_;
  std::vector<std::uint64_t> shape_;
  std::vector<std::int64_t> strides_;
  bool explicit_strides_ = false;
  std::uint64_t offset_ = 0;
  std::uint64_t size_ = 0;
  std::uint64_t nbytes_ = 0;
  bool streamed_ = false;
  Source source_;
  io::Buffer data_;
  Mask mask_;
  /// A block read with Load::kDeferred, decoded on first use (shared by the copies).
  struct Deferred;
  std::shared_ptr<Deferred> deferred_;
  /// Return the size of the bytes: a deferred block's declared size, else `data_`'s.
  std::uint64_t byte_size() const noexcept;

  friend class NDArrayReader;
};

/// What `make_ndarray_node` writes.
struct NDArrayNodeSpec {
  DType dtype;                       ///< Element type (its byte order is the data's).
  std::vector<std::uint64_t> shape;  ///< Shape in elements.
  std::variant<std::int64_t, std::string> source = std::int64_t{0};  ///< Block index or URI.
  bool streamed = false;  ///< Write `*` as the first dimension.
  /// The `byteorder` entry; by default the dtype's ("big" for one-byte kinds, strings and
  /// records, as python asdf writes).
  std::optional<ByteOrder> byteorder;
  std::uint64_t offset = 0;           ///< Bytes; written only when non-zero.
  std::vector<std::int64_t> strides;  ///< Bytes per dimension; written only when non-empty.
  std::string version = "1.0.0";      ///< Tag version: "1.0.0" or "1.1.0".
};

/// Return an ndarray node tagged "tag:stsci.edu:asdf/core/ndarray-<version>" with `source`,
/// `datatype`, `byteorder`, `shape` and, when set, `offset` and `strides`, in the order the
/// schema lists them. Throws `Error` (invalid-argument) when `strides` and `shape` differ in
/// length or `version` is empty.
tree::NodePtr make_ndarray_node(const NDArrayNodeSpec& spec);

}  // namespace asdfcore::ndarray
