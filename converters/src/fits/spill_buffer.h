#pragma once
// Bytes appended in order and read back once, held in memory up to a limit and beyond it in an
// unnamed temporary file (gone when the buffer is, or when the process dies): where the heap of
// a tile-compressed image waits while the image is compressed, before its header, which needs
// the heap's size, can be written.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "asdfcore/error.h"

namespace fitsasdf::fits {

class SpillBuffer {
 public:
  /// Keep up to `memory_limit` bytes in memory; `where` names the work in errors.
  SpillBuffer(std::size_t memory_limit, asdfcore::ErrorContext where);
  ~SpillBuffer();
  SpillBuffer(SpillBuffer&& other) noexcept;
  SpillBuffer& operator=(SpillBuffer&& other) = delete;
  SpillBuffer(const SpillBuffer&) = delete;
  SpillBuffer& operator=(const SpillBuffer&) = delete;

  /// Append `bytes`. The first append past the memory limit moves what is held into a file made
  /// in `$TMPDIR` (or /tmp). Throws `Error` (io) when the file cannot be made or written.
  void append(std::span<const std::uint8_t> bytes);
  /// Return the bytes appended so far.
  std::uint64_t size() const noexcept { return size_; }
  /// Return true once the bytes are in a file.
  bool spilled() const noexcept { return fd_ >= 0; }
  /// Hand every byte to `out` in order, in pieces of at most a few MiB. Throws `Error` (io)
  /// when the file cannot be read.
  void read_all(const std::function<void(std::span<const std::uint8_t>)>& out) const;

 private:
  void spill();
  void write_at(std::uint64_t at, std::span<const std::uint8_t> bytes);

  std::size_t memory_limit_;
  asdfcore::ErrorContext where_;
  std::vector<std::uint8_t> memory_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

}  // namespace fitsasdf::fits
