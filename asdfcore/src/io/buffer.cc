#include "asdfcore/io/buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <new>
#include <string>

#include "asdfcore/error.h"

namespace asdfcore::io {

Buffer Buffer::from_vector(std::vector<std::uint8_t> bytes) {
  auto owner = std::make_shared<std::vector<std::uint8_t>>(std::move(bytes));
  std::span<const std::uint8_t> view(owner->data(), owner->size());
  return Buffer(std::move(owner), view);
}

WritableBuffer Buffer::allocate(std::size_t size) {
  // Below this, malloc's own pages are as good; above it, a mapping of its own can get huge
  // pages (a 1 GiB block: 512 faults instead of 262,144).
  constexpr std::size_t kMapped = std::size_t{8} << 20;
  if (size < kMapped) {
    std::shared_ptr<std::uint8_t[]> owner(new std::uint8_t[size]);  // default-initialised
    const std::span<std::uint8_t> bytes(owner.get(), size);
    return {Buffer(std::move(owner), bytes), bytes};
  }
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  madvise(p, size, MADV_HUGEPAGE);  // advice only: without THP it is ordinary pages
  std::shared_ptr<void> owner(p, [size](void* q) { munmap(q, size); });
  const std::span<std::uint8_t> bytes(static_cast<std::uint8_t*>(p), size);
  return {Buffer(std::move(owner), bytes), bytes};
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
