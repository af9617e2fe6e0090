#pragma once
/// \file
/// Read-only bytes that keep their owner (a memory mapping, a vector) alive.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace asdfcore::io {

struct WritableBuffer;

/// An immutable view of bytes together with a shared reference to whatever owns them, so a
/// view handed out of a memory-mapped file stays valid after the file object is gone.
class Buffer {
 public:
  /// Make an empty buffer.
  Buffer() = default;
  /// View `bytes`, keeping `owner` alive for as long as any copy of this buffer exists.
  Buffer(std::shared_ptr<const void> owner, std::span<const std::uint8_t> bytes)
      : owner_(std::move(owner)), bytes_(bytes) {}

  /// Take ownership of `bytes`.
  static Buffer from_vector(std::vector<std::uint8_t> bytes);

  /// Allocate `size` bytes whose contents start unspecified (nothing is zero-filled), to be
  /// filled through the returned writable view before the buffer is read. Large buffers (a
  /// decoded block) are mapped privately and asked for transparent huge pages, so filling them
  /// costs few page faults. Throws std::bad_alloc when the memory cannot be had.
  static WritableBuffer allocate(std::size_t size);

  /// Return the viewed bytes.
  std::span<const std::uint8_t> span() const noexcept { return bytes_; }
  /// Return a pointer to the first byte.
  const std::uint8_t* data() const noexcept { return bytes_.data(); }
  /// Return the size in bytes.
  std::size_t size() const noexcept { return bytes_.size(); }
  /// Return true when the buffer holds no bytes.
  bool empty() const noexcept { return bytes_.empty(); }

  /// Return a view of `count` bytes starting at byte `offset` that shares this buffer's owner.
  /// Throws `Error` (invalid-argument) when the range does not lie inside the buffer.
  Buffer slice(std::size_t offset, std::size_t count) const;

  /// Mark the buffer as viewing a read-only file mapping (set by `map_file`), which lets
  /// `release` drop its pages. Slices keep the mark.
  Buffer& mark_file_backed() noexcept {
    file_backed_ = true;
    return *this;
  }
  /// Return true when the bytes are a read-only file mapping.
  bool file_backed() const noexcept { return file_backed_; }

  /// Tell the kernel that the whole pages inside `bytes` (a part of this buffer) are done with,
  /// so that a stream over a large mapped file keeps a bounded resident set: the pages leave
  /// this process (they stay in the page cache) and are read again if touched. The bytes stay
  /// valid and unchanged. Does nothing for a buffer that is not file backed (memory owned by a
  /// vector is never discarded) or for a range outside the buffer.
  void release(std::span<const std::uint8_t> bytes) const noexcept;
  /// Release the whole buffer (see `release`).
  void release() const noexcept { release(bytes_); }

 private:
  std::shared_ptr<const void> owner_;
  std::span<const std::uint8_t> bytes_;
  bool file_backed_ = false;
};

/// A new buffer to fill once and then read (`Buffer::allocate`).
struct WritableBuffer {
  Buffer buffer;                  ///< The bytes, for reading once filled.
  std::span<std::uint8_t> bytes;  ///< The same bytes, writable.
};

}  // namespace asdfcore::io
