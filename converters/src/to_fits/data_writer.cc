// What the HDU writers share: reading arrays of the item, the declared data size, and writing
// elements big-endian in pieces.
#include <algorithm>
#include <limits>
#include <vector>

#include "to_fits/writers.h"

namespace fitsasdf::to_fits {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ndarray::ByteOrder;
using asdfcore::ndarray::NDArray;

NDArray ItemInput::array(const asdfcore::tree::Node& node, const std::string& key) const {
  const std::string path = item.path + "/" + key;
  try {
    // Deferred: a large compressed block is decoded only if something reads its bytes, and an
    // image that is the whole block is streamed from it (write_big_endian).
    return NDArray::from_node(node, blocks, path, NDArray::Load::kDeferred);
  } catch (const Error& e) {
    asdfcore::ErrorContext at = where;
    at.tree_path = path;
    throw e.with_context(at);
  }
}

Error ItemInput::error(ErrorCode code, const std::string& message) const {
  return Error(code, message, where);
}

std::vector<std::uint64_t> c_order_axes(const CardLookup& cards, const ItemInput& input) {
  const long long naxis = cards.integer("NAXIS", -1);
  if (naxis < 0 || naxis > 999) {
    throw input.error(ErrorCode::kMalformed,
                      "NAXIS is " + (naxis < 0 ? std::string("missing") : std::to_string(naxis)) +
                          ": a FITS header needs NAXIS from 0 to 999");
  }
  std::vector<std::uint64_t> axes;
  for (long long i = naxis; i >= 1; --i) {
    const std::string key = "NAXIS" + std::to_string(i);
    const long long n = cards.integer(key, -1);
    if (n < 0) throw input.error(ErrorCode::kMalformed, key + " is missing or negative");
    axes.push_back(static_cast<std::uint64_t>(n));
  }
  return axes;
}

std::uint64_t declared_data_size(const CardLookup& cards, const ItemInput& input) {
  try {
    const long long bitpix = cards.integer("BITPIX", 0);
    if (bitpix != 8 && bitpix != 16 && bitpix != 32 && bitpix != 64 && bitpix != -32 &&
        bitpix != -64) {
      throw input.error(ErrorCode::kMalformed,
                        "BITPIX = " + std::to_string(bitpix) +
                            " is not a FITS data type (8, 16, 32, 64, -32, -64)");
    }
    std::vector<std::uint64_t> axes = c_order_axes(cards, input);
    if (axes.empty()) return 0;
    const bool groups = cards.flag("GROUPS") && axes.back() == 0;
    if (groups) axes.pop_back();
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    const auto overflow = [&input]() {
      return input.error(ErrorCode::kMalformed, "the declared data size overflows 64 bits");
    };
    std::uint64_t count = 1;
    for (const std::uint64_t n : axes) {
      if (n != 0 && count > kMax / n) throw overflow();
      count *= n;
    }
    const long long pcount = cards.integer("PCOUNT", 0);
    const long long gcount = cards.integer("GCOUNT", 1);
    if (pcount < 0 || gcount < 0) {
      throw input.error(ErrorCode::kMalformed, "PCOUNT and GCOUNT cannot be negative");
    }
    const auto p = static_cast<std::uint64_t>(pcount);
    const auto g = static_cast<std::uint64_t>(gcount);
    const auto bytes = static_cast<std::uint64_t>(bitpix < 0 ? -bitpix : bitpix) / 8;
    if (count > kMax - p) throw overflow();
    if (count + p != 0 && g > kMax / (count + p)) throw overflow();
    if (g * (count + p) != 0 && bytes > kMax / (g * (count + p))) throw overflow();
    return bytes * g * (count + p);
  } catch (const Error& e) {
    throw e.with_context(input.where);
  }
}

void write_big_endian(const NDArray& array, bool flip_sign, DataSink& sink) {
  const auto& dtype = array.dtype();
  const auto plan = dtype.swap_plan(ByteOrder::kBig);
  const std::size_t itemsize = std::max<std::size_t>(1, dtype.itemsize());
  const auto change = [&](std::span<std::uint8_t> bytes) {
    if (!plan.empty()) asdfcore::ndarray::apply_swap_plan(bytes, itemsize, plan);
    if (flip_sign) {
      for (std::size_t i = 0; i < bytes.size(); i += itemsize) bytes[i] ^= 0x80;
    }
  };
  if (array.can_stream()) {
    // A compressed block decoded a few MiB at a time. The pieces may end inside an element,
    // so a transformed piece's last partial element waits for the next piece.
    std::vector<std::uint8_t> scratch;
    std::size_t pending = 0;  // bytes of a partial element at the front of scratch
    array.stream_bytes([&](std::span<const std::uint8_t> piece) {
      if (plan.empty() && !flip_sign) {
        sink.write(piece);
        return;
      }
      scratch.resize(pending + piece.size());
      std::copy(piece.begin(), piece.end(), scratch.begin() + static_cast<std::ptrdiff_t>(pending));
      const std::size_t whole = scratch.size() / itemsize * itemsize;
      change(std::span<std::uint8_t>(scratch.data(), whole));
      sink.write(std::span<const std::uint8_t>(scratch.data(), whole));
      pending = scratch.size() - whole;
      std::copy(scratch.begin() + static_cast<std::ptrdiff_t>(whole), scratch.end(), scratch.begin());
    });
    return;
  }
  if (const auto view = array.contiguous_view()) {
    const auto bytes = view->span();
    if (plan.empty() && !flip_sign) {
      // Bytes kept as they are go to the sink straight from the (mapped) block, in large
      // pieces whose pages are released once written: bounded memory for any size.
      constexpr std::size_t kPiece = std::size_t{16} << 20;
      for (std::size_t at = 0; at < bytes.size(); at += kPiece) {
        const auto part = bytes.subspan(at, std::min(kPiece, bytes.size() - at));
        sink.write(part);
        view->release(part);
      }
      return;
    }
    const std::size_t piece =
        std::max<std::size_t>(1, (std::size_t{1} << 20) / itemsize) * itemsize;
    std::vector<std::uint8_t> scratch;
    for (std::size_t at = 0; at < bytes.size(); at += piece) {
      const auto part = bytes.subspan(at, std::min(piece, bytes.size() - at));
      scratch.assign(part.begin(), part.end());
      change(scratch);
      sink.write(scratch);
      view->release(part);
    }
    return;
  }
  std::vector<std::uint8_t> copy = array.to_c_order(ByteOrder::kBig);
  if (flip_sign) {
    for (std::size_t i = 0; i < copy.size(); i += itemsize) copy[i] ^= 0x80;
  }
  sink.write(copy);
}

}  // namespace fitsasdf::to_fits
