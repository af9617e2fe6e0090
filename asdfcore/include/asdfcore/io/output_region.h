#pragma once
/// \file
/// A stretch of an output file written through memory instead of `write` calls.

#include <cstddef>
#include <cstdint>
#include <span>

namespace asdfcore::io {

/// Bytes of an output file (allocated on disk, zero until written) mapped shared and
/// writable, so that threads can write their parts of it side by side: their page faults run
/// in parallel, where `write` calls into one file are copied one after another. Made by
/// `AtomicFile::map_next`. What is written through it is the file's content once it is written
/// (the page cache is shared with `write`); destroying the region unmaps it, keeping the
/// bytes.
class OutputRegion {
 public:
  /// Take over the mapping of `mapping_size` bytes at `mapping`, the region being its bytes
  /// from `lead` on (a mapping starts on a page boundary; the region need not).
  OutputRegion(void* mapping, std::size_t mapping_size, std::size_t lead) noexcept
      : mapping_(static_cast<std::uint8_t*>(mapping)), mapping_size_(mapping_size), lead_(lead) {}
  /// Unmap what is still mapped; the bytes stay in the file.
  ~OutputRegion();
  /// Take over `other`'s mapping; `other` then holds nothing.
  OutputRegion(OutputRegion&& other) noexcept;
  OutputRegion& operator=(OutputRegion&&) = delete;
  OutputRegion(const OutputRegion&) = delete;
  OutputRegion& operator=(const OutputRegion&) = delete;

  /// Return the region's bytes.
  std::span<std::uint8_t> bytes() const noexcept {
    return {mapping_ + lead_, mapping_size_ - lead_};
  }
  /// Unmap the whole pages among the region's first `count` bytes, which are final: the
  /// process stops holding them (their bytes stay in the file), so that a large region costs
  /// the memory of what is still being written. Those bytes must not be touched again.
  void release_before(std::uint64_t count) noexcept;

 private:
  std::uint8_t* mapping_ = nullptr;
  std::size_t mapping_size_ = 0;
  std::size_t lead_ = 0;
  std::size_t released_ = 0;  ///< Bytes at the mapping's start already unmapped.
};

}  // namespace asdfcore::io
