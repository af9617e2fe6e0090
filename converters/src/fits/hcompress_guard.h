#pragma once
// A guard in front of CFITSIO's HCOMPRESS_1 decoder. CFITSIO 4.2's fits_hdecompress is handed a
// tile's bytes without their length: it takes the tile's dimensions and the number of bit planes
// of each quadrant from the stream's header, and then reads codes for as long as they say. A
// stream that declares dimensions other than the tile's makes it write outside its buffer; a
// stream cut short, or whose codes or bit plane counts were damaged, makes it read past the
// tile's bytes (into whatever the heap holds next, or an unmapped page for a tile of its own
// mapping). `hcompress_tile_problem` replays its reads, and the quadtree decoding they depend on,
// without computing any pixel value (tile_guard.h walks the tiles).
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace fitsasdf::fits {

/// Why CFITSIO's HCOMPRESS_1 decoder cannot decode a tile of `pixels` pixels from `tile`: shorter
/// than the stream's 25-byte header, without its magic bytes, declaring dimensions (nx, ny) that
/// are not positive or whose product is not `pixels`, or coded so that decoding it reads past
/// its bytes. Nothing when every byte the decoder reads is inside `tile` (a stream CFITSIO itself
/// refuses, a bad format code or end marker, is left to it).
std::optional<std::string> hcompress_tile_problem(std::span<const std::uint8_t> tile,
                                                  std::uint64_t pixels);

}  // namespace fitsasdf::fits
