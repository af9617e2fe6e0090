#pragma once
// Output buffers recycled between the pieces of one block. A piece's compressed bytes wait in
// their buffer until they are written in order, then the buffer goes back to the pool, so a
// block of any size cycles through about 2 x threads buffers. A fresh vector per piece would
// be zero-filled and, at a megabyte, mapped and faulted in anew by malloc every time: a fifth
// of the CPU time of a 2-thread zlib conversion went there.
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

namespace asdfcore::compression::parallel {

/// A compressed piece: `used` bytes at the front of `buffer`, the rest unspecified.
struct PooledBytes {
  std::vector<std::uint8_t> buffer;
  std::size_t used = 0;

  std::span<const std::uint8_t> bytes() const noexcept { return {buffer.data(), used}; }
};

/// Buffers handed out and given back by the threads of one `run_in_order` call.
class BufferPool {
 public:
  /// Return a buffer of at least `size` bytes whose contents are unspecified (a recycled one
  /// when any is free; it is only ever grown, so a recycled one is not filled again).
  std::vector<std::uint8_t> take(std::size_t size) {
    std::vector<std::uint8_t> buffer;
    {
      const std::lock_guard lock(mutex_);
      if (!free_.empty()) {
        buffer = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (buffer.size() < size) buffer.resize(size);
    return buffer;
  }

  /// Take `buffer` back for a later piece.
  void give(std::vector<std::uint8_t>&& buffer) {
    const std::lock_guard lock(mutex_);
    free_.push_back(std::move(buffer));
  }

 private:
  std::mutex mutex_;
  std::vector<std::vector<std::uint8_t>> free_;
};

}  // namespace asdfcore::compression::parallel
