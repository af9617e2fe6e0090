#include "format/legacy/encodings.h"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "asdfcore/error.h"
#include "util/endian.h"

namespace asdfcore::format::legacy {
namespace {

using tree::Node;

[[noreturn]] void bad(const std::string& message) { throw Error(ErrorCode::kCompression, message); }

// An encoding's arguments (an empty mapping when it has none).
const Node* args_of(const Node& entry) {
  if (entry.is_sequence() && entry.size() == 2 && entry.items()[1]->is_mapping()) {
    return entry.items()[1].get();
  }
  return nullptr;
}

std::vector<std::uint64_t> shape_arg(const Node* args, const char* encoding, const char* key) {
  const auto node = args ? args->get(key) : nullptr;
  if (!node || !node->is_sequence() || node->size() == 0) {
    bad(std::string("the ") + encoding + " encoding needs `" + key + "`, a list of sizes");
  }
  std::vector<std::uint64_t> out;
  for (const auto& n : node->items()) {
    if (n->kind() != tree::NodeKind::kInt || n->as_int() <= 0) {
      bad(std::string("the ") + encoding + " encoding's `" + key + "` holds " +
          tree::describe_for_error(*n) + "; sizes are positive integers");
    }
    out.push_back(static_cast<std::uint64_t>(n->as_int()));
  }
  return out;
}

std::uint64_t int_arg(const Node* args, const char* encoding, const char* key) {
  const auto node = args ? args->get(key) : nullptr;
  if (!node || node->kind() != tree::NodeKind::kInt || node->as_int() <= 0) {
    bad(std::string("the ") + encoding + " encoding needs `" + key + "`, a positive integer");
  }
  return static_cast<std::uint64_t>(node->as_int());
}

// The product of `sizes`, refusing overflow and anything past `limit`.
std::uint64_t checked_product(const std::vector<std::uint64_t>& sizes, std::uint64_t unit,
                              std::uint64_t limit, const char* what) {
  std::uint64_t n = unit;
  for (auto s : sizes) {
    if (s != 0 && n > limit / s) {
      throw Error(ErrorCode::kLimit, std::string(what) + " would exceed the limit of " +
                                         std::to_string(limit) + " bytes");
    }
    n *= s;
  }
  if (n > limit) {
    throw Error(ErrorCode::kLimit,
                std::string(what) + " would exceed the limit of " + std::to_string(limit) + " bytes");
  }
  return n;
}

// quantize: chunks of (u8 bits, f64 offset, f64 scale, u64 nvalues, packed two's-complement
// big-endian values); each value decodes to encoded * scale + offset.
std::vector<std::uint8_t> unquantize(std::span<const std::uint8_t> in, const Node* args,
                                     ndarray::ByteOrder order, std::uint64_t limit) {
  const std::uint64_t bits_out = int_arg(args, "quantize", "dtype");
  if (bits_out != 32 && bits_out != 64) bad("the quantize encoding's `dtype` must be 32 or 64");
  const std::uint64_t width = bits_out / 8;
  const auto shape = shape_arg(args, "quantize", "original_shape");
  const std::uint64_t count = checked_product(shape, 1, limit / width, "the quantized array");
  std::vector<std::uint8_t> out;
  out.reserve(count * width);
  const bool swap = order != ndarray::native_byte_order();
  std::size_t at = 0;
  std::uint64_t decoded = 0;
  while (at < in.size()) {
    constexpr std::size_t kChunkHeader = 1 + 8 + 8 + 8;
    if (in.size() - at < kChunkHeader) bad("a quantize chunk header is cut short");
    const unsigned bits = in[at];
    const double offset = std::bit_cast<double>(asdfcore::detail::load_be(in.data() + at + 1, 8));
    const double scale = std::bit_cast<double>(asdfcore::detail::load_be(in.data() + at + 9, 8));
    const std::uint64_t nvalues = asdfcore::detail::load_be(in.data() + at + 17, 8);
    at += kChunkHeader;
    if (bits == 0 || bits > 64) bad("a quantize chunk has " + std::to_string(bits) + "-bit values");
    if (nvalues > count - decoded) {
      bad("the quantize chunks hold more values than original_shape (" + std::to_string(count) + ")");
    }
    const std::uint64_t data_bits = nvalues * bits;  // nvalues <= count <= limit: no overflow
    const std::uint64_t data_bytes = (data_bits + 7) / 8;
    if (data_bytes > in.size() - at) bad("a quantize chunk's values run past the block's data");
    std::uint64_t bit = 0;
    for (std::uint64_t i = 0; i < nvalues; ++i) {
      std::uint64_t raw = 0;
      for (unsigned b = 0; b < bits; ++b, ++bit) {
        const std::uint8_t byte = in[at + bit / 8];
        raw = (raw << 1) | ((byte >> (7 - bit % 8)) & 1u);
      }
      // Sign-extend the two's-complement value.
      std::int64_t value = bits == 64 ? static_cast<std::int64_t>(raw)
                                      : static_cast<std::int64_t>(raw << (64 - bits)) >> (64 - bits);
      const double x = static_cast<double>(value) * scale + offset;
      std::uint8_t item[8];
      if (width == 4) {
        const auto f = std::bit_cast<std::uint32_t>(static_cast<float>(x));
        std::memcpy(item, &f, 4);
      } else {
        const auto d = std::bit_cast<std::uint64_t>(x);
        std::memcpy(item, &d, 8);
      }
      if (swap) std::reverse(item, item + width);
      out.insert(out.end(), item, item + width);
    }
    at += data_bytes;
    decoded += nvalues;
  }
  if (decoded != count) {
    bad("the quantize chunks hold " + std::to_string(decoded) + " values; original_shape says " +
        std::to_string(count));
  }
  return out;
}

// tile: the array stored as whole tiles of `shape` (edge tiles padded), tiles in C order of
// the tile grid and elements in C order within a tile; back to `original_shape`, C order.
std::vector<std::uint8_t> untile(std::span<const std::uint8_t> in, const Node* args,
                                 std::uint64_t limit) {
  const auto tile = shape_arg(args, "tile", "shape");
  const auto full = shape_arg(args, "tile", "original_shape");
  const std::uint64_t item = int_arg(args, "tile", "item_size");
  if (tile.size() != full.size()) bad("the tile encoding's shape and original_shape differ in rank");
  const std::size_t n = tile.size();
  std::vector<std::uint64_t> grid(n);
  std::vector<std::uint64_t> padded(n);
  for (std::size_t d = 0; d < n; ++d) {
    grid[d] = (full[d] + tile[d] - 1) / tile[d];
    padded[d] = grid[d] * tile[d];
  }
  const std::uint64_t expected = checked_product(padded, item, std::max<std::uint64_t>(limit, in.size()),
                                                 "the tiled array");
  if (in.size() != expected) {
    bad("the tiled data holds " + std::to_string(in.size()) + " bytes; its tiles need " +
        std::to_string(expected));
  }
  const std::uint64_t out_size = checked_product(full, item, limit, "the untiled array");
  std::vector<std::uint8_t> out(out_size);
  std::vector<std::uint64_t> tile_at(n, 0), elem_at(n, 0);
  const std::uint64_t tile_items = checked_product(tile, 1, in.size(), "a tile");
  std::uint64_t src = 0;
  const std::uint64_t tiles = expected / item / tile_items;
  for (std::uint64_t t = 0; t < tiles; ++t) {
    std::fill(elem_at.begin(), elem_at.end(), 0);
    for (std::uint64_t e = 0; e < tile_items; ++e, src += item) {
      bool inside = true;
      std::uint64_t dst = 0;
      for (std::size_t d = 0; d < n; ++d) {
        const std::uint64_t g = tile_at[d] * tile[d] + elem_at[d];
        inside = inside && g < full[d];
        dst = dst * full[d] + g;
      }
      if (inside) std::memcpy(out.data() + dst * item, in.data() + src, item);
      for (std::size_t d = n; d-- > 0;) {  // next element, C order
        if (++elem_at[d] < tile[d]) break;
        elem_at[d] = 0;
      }
    }
    for (std::size_t d = n; d-- > 0;) {  // next tile, C order
      if (++tile_at[d] < grid[d]) break;
      tile_at[d] = 0;
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> chain_names(const Node& chain) {
  if (!chain.is_sequence()) {
    throw Error(ErrorCode::kMalformed, "a block's encoding chain is " +
                                           tree::describe_for_error(chain) + ", not a list");
  }
  std::vector<std::string> names;
  for (const auto& entry : chain.items()) {
    if (entry->is_string()) {
      names.push_back(entry->as_string());
    } else if (entry->is_sequence() && entry->size() >= 1 && entry->items()[0]->is_string()) {
      names.push_back(entry->items()[0]->as_string());
    } else {
      throw Error(ErrorCode::kMalformed, "an entry of a block's encoding chain is " +
                                             tree::describe_for_error(*entry) +
                                             "; entries are a name or [name, {arguments}]");
    }
  }
  return names;
}

std::vector<std::uint8_t> inflate(std::span<const std::uint8_t> stored, std::uint64_t limit) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) bad("zlib could not start");
  struct End {
    z_stream& z;
    ~End() { inflateEnd(&z); }
  } end{z};
  const std::uint8_t* next = stored.data();
  std::size_t left = stored.size();
  std::vector<std::uint8_t> out;
  std::size_t produced = 0;
  for (;;) {
    if (z.avail_in == 0 && left > 0) {
      const auto take = static_cast<uInt>(std::min<std::size_t>(left, 1u << 30));
      z.next_in = const_cast<Bytef*>(next);
      z.avail_in = take;
      next += take;
      left -= take;
    }
    if (produced == out.size()) {
      if (out.size() >= limit) {
        throw Error(ErrorCode::kLimit,
                    "a zlib block decodes to more than " + std::to_string(limit) +
                        " bytes (a decompression bomb, or raise the memory limit)");
      }
      out.resize(std::min<std::uint64_t>(std::max<std::size_t>(64 * 1024, 2 * out.size()), limit));
    }
    z.next_out = out.data() + produced;
    z.avail_out = static_cast<uInt>(std::min<std::size_t>(out.size() - produced, 1u << 30));
    const uInt room = z.avail_out;
    const int rc = ::inflate(&z, Z_NO_FLUSH);
    produced += room - z.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc == Z_BUF_ERROR && z.avail_in == 0 && left == 0) bad("the zlib stream ends early");
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      bad(std::string("the zlib stream is corrupt") + (z.msg ? std::string(": ") + z.msg : ""));
    }
  }
  out.resize(produced);
  return out;
}

std::vector<std::uint8_t> decode_chain(const Node& chain, std::span<const std::uint8_t> stored,
                                       ndarray::ByteOrder order, std::uint64_t limit) {
  const std::vector<std::string> names = chain_names(chain);
  std::vector<std::uint8_t> data(stored.begin(), stored.end());
  for (std::size_t i = names.size(); i-- > 0;) {
    const Node* args = args_of(*chain.items()[i]);
    if (names[i] == "zlib") {
      data = inflate(data, limit);
    } else if (names[i] == "quantize") {
      data = unquantize(data, args, order, limit);
    } else if (names[i] == "tile") {
      data = untile(data, args, limit);
    } else {
      bad("the block is encoded with `" + names[i] +
          "`, which fitsasdf does not know (it knows zlib, tile and quantize)");
    }
  }
  return data;
}

}  // namespace asdfcore::format::legacy
