#include "asdfcore/io/buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "asdfcore/error.h"

namespace asdfcore::io {

Buffer Buffer::from_vector(std::vector<std::uint8_t> bytes) {
  auto owner = std::make_shared<std::vector<std::uint8_t>>(std::move(bytes));
  std::span<const std::uint8_t> view(owner->data(), owner->size());
  return Buffer(std::move(owner), view);
}

Buffer Buffer::slice(std::size_t offset, std::size_t count) const {
  if (offset > bytes_.size() || count > bytes_.size() - offset) {
    throw Error(ErrorCode::kInvalidArgument,
                "slice of " + std::to_string(count) + " bytes at " + std::to_string(offset) +
                    " lies outside a buffer of " + std::to_string(bytes_.size()) + " bytes");
  }
  Buffer out(owner_, bytes_.subspan(offset, count));
  out.file_backed_ = file_backed_;
  return out;
}

void Buffer::release(std::span<const std::uint8_t> bytes) const noexcept {
  if (!file_backed_ || bytes.empty()) return;
  const auto begin = reinterpret_cast<std::uintptr_t>(bytes.data());
  const auto end = begin + bytes.size();
  const auto own_begin = reinterpret_cast<std::uintptr_t>(bytes_.data());
  if (begin < own_begin || end > own_begin + bytes_.size()) return;
  // Only whole pages: a partial page at either end may hold bytes still wanted. The mapping is
  // read-only and private, so dropping a page loses nothing (it faults back from the file).
  static const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t first = (begin + page - 1) / page * page;
  const std::uintptr_t last = end / page * page;
  if (last <= first) return;
  madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

}  // namespace asdfcore::io
