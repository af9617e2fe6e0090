#pragma once
// A tile-compressed image made a band at a time, the same HDU `compress_image` makes
// (tile_compress.h) without the image or its compressed form ever being whole in memory. The
// pixels come in order; each band of whole rows of tiles is compressed by CFITSIO in a small
// file of its own, on as many threads as asked for (tiles are independent), and the bands'
// table rows and heaps are joined in order: each row's heap descriptors moved by the heap
// before its band, each variable-length column's TFORMn maximum and PCOUNT set from the whole
// as CFITSIO sets them when it closes the HDU. The heap waits in a `SpillBuffer` (memory up to
// a limit, then a temporary file) until the header, which needs its size, is written.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "fits/spill_buffer.h"
#include "fits/tile_compress.h"

namespace fitsasdf::fits {

/// Receives bytes in order.
using ByteSink = std::function<void(std::span<const std::uint8_t>)>;
/// Hands the image's stored values, big-endian and in FITS order, to its argument, in pieces of
/// any size; called again from the start when the image has to be compressed again (PLIO_1
/// replaced by RICE_1).
using PixelFeed = std::function<void(const ByteSink&)>;

/// A compressed image HDU: its header blocks, then a data area of the table's rows and heap.
struct BandedImage {
  std::string header;  ///< Cards, END, blanks to whole FITS blocks.
  std::vector<std::uint8_t> rows;
  SpillBuffer heap;
  std::string substitution;  ///< As `CompressedImage::substitution`.

  /// Return the bytes of the data area before its padding.
  std::uint64_t data_size() const noexcept { return rows.size() + heap.size(); }
  /// Hand the data area (rows, then heap; no padding) to `out`.
  void write_data(const ByteSink& out) const;
};

/// How bands are cut and where the heap waits; the defaults are the product's, tests shrink them.
struct BandSettings {
  std::size_t band_bytes = std::size_t{1} << 20;  ///< Pixels a band holds, at least one slab.
  /// The largest slab (one row of tiles across the last axis) compressed in bands; a larger one
  /// (a tile the size of the image) leaves the image to `compress_image`.
  std::uint64_t slab_limit = std::uint64_t{64} << 20;
  std::size_t heap_in_memory = std::size_t{4} << 20;   ///< Heap bytes held before spilling.
};

/// Compress the image of BITPIX `bitpix` and axes `naxes` (FITS order) whose stored values
/// `pixels` gives, as `compress_image` would with `cards` and `params`, in bands compressed on
/// `threads` threads (0: one per core; 1: on the caller's thread). Return nothing, having read
/// no pixel, when the image is not cut into bands (no pixels, or a slab over
/// `settings.slab_limit`): `compress_image` makes it whole. Throws `asdfcore::Error` with `where`
/// as `compress_image` does, and (io) when the heap cannot be spilled.
std::optional<BandedImage> compress_image_banded(int bitpix, const std::vector<long>& naxes,
                                                 const PixelFeed& pixels,
                                                 const std::vector<std::string>& cards,
                                                 const TileCompression& params, unsigned threads,
                                                 const asdfcore::ErrorContext& where,
                                                 const BandSettings& settings = {});

}  // namespace fitsasdf::fits
