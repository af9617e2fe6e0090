#include "asdfcore/io/buffer.h"

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
  return Buffer(owner_, bytes_.subspan(offset, count));
}

}  // namespace asdfcore::io
