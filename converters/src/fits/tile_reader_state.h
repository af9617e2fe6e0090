#pragma once
// Private to src/fits: what a `TileReader` holds (tile_reader.h), shared by
// `FitsFile::open_compressed_image`, which fills it, and compressed_image.cc, which reads it.
#include <fitsio.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "fits/cfitsio.h"
#include "fits/plain_tiles.h"
#include "fits/tile_bands.h"
#include "fits/tile_reader.h"

namespace fitsasdf::fits {

/// A copy of one HDU of a FITS file behind a minimal primary HDU, opened by CFITSIO in memory:
/// what CFITSIO gets to decompress a tile-compressed HDU, so that it never reads the rest of the
/// file (headers it would refuse, HDUs it has no business with). More handles can be opened on
/// the same copy, one for each thread that decodes tiles (CFITSIO is built thread-safe; one
/// handle is never used by two threads at once).
struct AloneHdu {
  /// The primary HDU and the copy of the HDU, `size` bytes at `data`: in `copy`, or, for an HDU
  /// the plain file holds whole, in a private mapping of the file whose first page is written
  /// with the primary HDU just before the HDU's header (copy-on-write: the file is unchanged),
  /// so a large HDU is not copied and its pages can be let go once read (`release`).
  std::uint8_t* data = nullptr;
  std::size_t size = 0;
  std::vector<std::uint8_t> copy;
  void* mapping = nullptr;
  std::size_t mapping_size = 0;
  std::size_t kept = 0;  ///< Bytes at the mapping's start `release` keeps (the written pages).

  AloneHdu() = default;
  AloneHdu(const AloneHdu&) = delete;
  AloneHdu& operator=(const AloneHdu&) = delete;
  ~AloneHdu();
  /// Let go of the mapped pages read so far (they are read again from the file if needed), so
  /// that memory holds what the threads read now, not the whole HDU. Nothing for a copy.
  void release() const;

  struct Handle {
    void* memory = nullptr;  // CFITSIO keeps the addresses of these two
    std::size_t size = 0;
    CfitsioHandle cfitsio;
  };
  std::vector<std::unique_ptr<Handle>> handles;  // handles[0] is the one open_alone checked
  asdfcore::ErrorContext where;

  /// Return handle `t`, opened on the copy and moved to its HDU when it is not open yet (not
  /// thread-safe: open every handle before threads use them). Throws `Error` when CFITSIO
  /// cannot open it.
  fitsfile* handle(std::size_t t);
};

struct TileReader::State {
  std::unique_ptr<AloneHdu> alone;
  asdfcore::ErrorContext where;
  std::uint64_t max_memory = 0;  ///< The limit the file was opened with.
  std::string header;       ///< The plain image HDU's header blocks.
  int bitpix = 0;
  TileBands cut;  ///< How the image is cut into bands.
  /// How its tiles are decoded without CFITSIO, when they can be (plain_tiles.h).
  std::optional<PlainTiles> plain;

  fitsfile* handle(std::size_t t) { return alone->handle(t); }
  /// Decode band `band` through `f` into `out` (`band_bytes(band)` bytes), big-endian: its
  /// tiles decoded here when they are plain, else checked by the tile guard and decoded by
  /// CFITSIO.
  void decode(fitsfile* f, long band, std::uint8_t* out) const;
};

}  // namespace fitsasdf::fits
