#pragma once
// A tile-compressed image HDU decompressed by CFITSIO a band at a time: the header of the plain
// image CFITSIO would write (as `FitsFile::decompress_image` gives it), then its pixels in
// bands of whole rows of tiles, each band's tiles checked by the tile guard (tile_guard.h) just
// before CFITSIO decodes them. Memory holds a few bands, not the image, and the bands can be
// decoded by several threads at once, each through a CFITSIO handle of its own on the same
// copy of the compressed HDU (tiles are independent). Made by `FitsFile::open_compressed_image`.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "asdfcore/io/buffer.h"

namespace fitsasdf::fits {

class TileReader {
 public:
  /// Where the pixels go: fills `buffer` from its start with the next bytes of the data and
  /// returns how many, fewer than `buffer.size()` only at the end (a `BlockToWrite::source`).
  using Source = std::function<std::size_t(std::span<std::uint8_t> buffer)>;
  /// Changes pixel bytes on their way out (a sign-bit flip, a byte swap): called on consecutive
  /// pieces of the data in order, each a whole number of pixels, with its offset in the data.
  using Transform = std::function<void(std::span<std::uint8_t> piece, std::uint64_t offset)>;

  ~TileReader();
  TileReader(TileReader&&) noexcept;
  TileReader& operator=(TileReader&&) noexcept;

  /// Return the plain image HDU's header: CFITSIO's cards for it (the image's type and shape,
  /// then every card of the compressed header beyond the compression keywords), END, blanks to
  /// a whole FITS block.
  const std::string& header() const noexcept;
  /// Return the bytes of the pixels (no padding).
  std::uint64_t data_size() const noexcept;

  /// Decompress every pixel into `out` (`data_size()` bytes), big-endian, on this thread.
  void read_all(std::span<std::uint8_t> out);
  /// Return every pixel, big-endian, decompressed on this thread. Throws `Error` (limit) when
  /// they need more than half the memory limit the file was opened with.
  asdfcore::io::Buffer read_whole();

  /// Return a source of the pixels, big-endian, changed by `transform` when given, decoded by
  /// `threads` threads besides the caller's, which only takes the bands they decoded (with one
  /// thread, or for an image of one band, each band is decoded on the caller's thread as it
  /// pulls). The source owns this image.
  /// With more than one thread, `transform` runs on the decoding threads, bands out of order.
  /// Errors (a damaged tile, CFITSIO refusing one) are thrown from the pull that reaches the
  /// band holding the tile, with the HDU's context. Threads stop when the source is destroyed.
  static Source stream(std::shared_ptr<TileReader> image, unsigned threads,
                       Transform transform);

  /// What the image holds; defined in the private tile_reader_state.h.
  struct State;
  explicit TileReader(std::unique_ptr<State> state);

 private:
  std::unique_ptr<State> state_;
};

}  // namespace fitsasdf::fits
