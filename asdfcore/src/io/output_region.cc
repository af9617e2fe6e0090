#include "asdfcore/io/output_region.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

namespace asdfcore::io {

OutputRegion::OutputRegion(OutputRegion&& other) noexcept
    : mapping_(std::exchange(other.mapping_, nullptr)),
      mapping_size_(std::exchange(other.mapping_size_, 0)),
      lead_(other.lead_),
      released_(std::exchange(other.released_, 0)) {}

OutputRegion::~OutputRegion() {
  if (mapping_ != nullptr && released_ < mapping_size_) {
    munmap(mapping_ + released_, mapping_size_ - released_);
  }
}

void OutputRegion::release_before(std::uint64_t count) noexcept {
  if (mapping_ == nullptr) return;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t end = static_cast<std::size_t>(
      std::min<std::uint64_t>(lead_ + count, mapping_size_)) / page * page;
  if (end <= released_) return;
  // Unmapping keeps the pages' bytes: they are dirty in the page cache, written back as usual.
  munmap(mapping_ + released_, end - released_);
  released_ = end;
}

}  // namespace asdfcore::io
