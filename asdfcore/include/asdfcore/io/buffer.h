#pragma once
/// \file
/// Read-only bytes that keep their owner (a memory mapping, a vector) alive.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace asdfcore::io {

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

 private:
  std::shared_ptr<const void> owner_;
  std::span<const std::uint8_t> bytes_;
};

}  // namespace asdfcore::io
