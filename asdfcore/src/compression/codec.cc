#include "asdfcore/compression/codec.h"

#include <limits>
#include <string>

#include "asdfcore/error.h"
#include "asdfcore/io/buffer.h"

namespace asdfcore::compression {

void Codec::compress_stream(std::uint64_t size, const ReadNext& read, const WriteNext& write,
                            const CompressOptions& options) const {
  if (size > std::numeric_limits<std::size_t>::max()) {
    throw Error(ErrorCode::kLimit, std::string(label()) + ": a block of " + std::to_string(size) +
                                       " bytes does not fit in memory on this machine");
  }
  // A codec without a streaming form sees the data whole.
  std::vector<std::uint8_t> input(static_cast<std::size_t>(size));
  if (!input.empty()) read(input);
  const std::vector<std::uint8_t> encoded = compress(input, options);
  input = {};
  write(encoded);
}

void Codec::decompress_stream(const io::Buffer& input, std::uint64_t size,
                              const WriteNext& write, unsigned /*threads*/) const {
  if (size > std::numeric_limits<std::size_t>::max()) {
    throw Error(ErrorCode::kLimit, std::string(label()) + ": a block of " + std::to_string(size) +
                                       " bytes does not fit in memory on this machine");
  }
  const io::WritableBuffer out = io::Buffer::allocate(static_cast<std::size_t>(size));
  decompress(input.span(), out.bytes);
  input.release();
  write(out.buffer.span());
}

}  // namespace asdfcore::compression
