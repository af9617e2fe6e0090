#include "fits/rice_guard.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "fits/cfitsio.h"
#include "fits/fits_file.h"

namespace fitsasdf::fits {
namespace {

/// The number of significant bits of each byte value (0 for 0, 8 for 128..255).
int significant_bits(std::uint32_t byte) {
  int n = 0;
  while (byte != 0) {
    ++n;
    byte >>= 1;
  }
  return n;
}

/// Read a keyword of the current HDU as `type` (TLONG, or TINT as CFITSIO reads the ZVALn), or
/// `fallback` when it is absent or unreadable.
long read_long(fitsfile* in, const char* keyword, long fallback, int type = TLONG) {
  int status = 0;
  long value = fallback;
  if (type == TINT) {
    int narrow = 0;
    fits_read_key(in, TINT, keyword, &narrow, nullptr, &status);
    if (status == 0) value = narrow;
  } else {
    fits_read_key(in, TLONG, keyword, &value, nullptr, &status);
  }
  if (status != 0) {
    fits_clear_errmsg();
    return fallback;
  }
  return value;
}

}  // namespace

bool rice_tile_in_bounds(std::span<const std::uint8_t> tile, std::uint64_t nx, int nblock,
                         int bytepix) {
  // The decoder's constants for each pixel size: bits of the block's code, the code of a block
  // stored verbatim, and the bits of a verbatim pixel.
  const int fsbits = bytepix == 1 ? 3 : bytepix == 2 ? 4 : 5;
  const int fsmax = bytepix == 1 ? 6 : bytepix == 2 ? 14 : 25;
  const int bbits = bytepix == 1 ? 8 : bytepix == 2 ? 16 : 32;
  const std::size_t first = bytepix == 1 ? 1 : bytepix == 2 ? 2 : 4;
  if (nblock <= 0) return false;
  // The first pixel verbatim, then the first byte of the bit stream, read unconditionally.
  if (tile.size() < first + 1) return false;
  std::size_t pos = first;
  std::uint32_t b = tile[pos++];  // the bits not yet used, as CFITSIO's unsigned int
  int nbits = 8;
  const auto next = [&](std::uint32_t& byte) {
    if (pos >= tile.size()) return false;
    byte = tile[pos++];
    return true;
  };
  const auto mask = [](int n) { return n >= 32 ? 0xffffffffu : (std::uint32_t{1} << n) - 1; };
  std::uint32_t byte = 0;
  for (std::uint64_t i = 0; i < nx;) {
    nbits -= fsbits;
    while (nbits < 0) {
      if (!next(byte)) return false;
      b = (b << 8) | byte;
      nbits += 8;
    }
    const int fs = static_cast<int>(b >> nbits) - 1;
    b &= mask(nbits);
    const std::uint64_t end = std::min<std::uint64_t>(i + static_cast<std::uint64_t>(nblock), nx);
    if (fs < 0) {  // every difference zero: no bits
      i = end;
    } else if (fs == fsmax) {  // pixels stored verbatim, bbits each
      for (; i < end; ++i) {
        int k = bbits - nbits;
        for (k -= 8; k >= 0; k -= 8) {
          if (!next(byte)) return false;
        }
        if (nbits > 0) {
          if (!next(byte)) return false;
          b = byte & mask(nbits);
        } else {
          b = 0;
        }
      }
    } else {  // a run of zero bits ended by a one, then fs low bits
      for (; i < end; ++i) {
        while (b == 0) {
          nbits += 8;
          if (!next(byte)) return false;
          b = byte;
        }
        const int nzero = nbits - significant_bits(b & 0xff);
        nbits -= nzero + 1;
        if (nbits < 0 || nbits >= 32) return false;  // CFITSIO would shift out of range
        b ^= std::uint32_t{1} << nbits;
        nbits -= fs;
        while (nbits < 0) {
          if (!next(byte)) return false;
          b = (b << 8) | byte;
          nbits += 8;
        }
        b &= mask(nbits);
      }
    }
  }
  return true;
}

void check_rice_tiles(fitsfile* in, const asdfcore::ErrorContext& where) {
  int status = 0;
  char type[FLEN_VALUE] = {};
  fits_read_key(in, TSTRING, "ZCMPTYPE", type, nullptr, &status);
  if (status != 0) {
    fits_clear_errmsg();
    return;
  }
  if (std::strcmp(type, "RICE_1") != 0 && std::strcmp(type, "RICE_ONE") != 0) return;
  // As CFITSIO reads them: ZVAL1 the block size, ZVAL2 the bytes per pixel, swapped when an old
  // writer put them the other way round.
  long nblock = read_long(in, "ZVAL1", 32, TINT);
  long bytepix = read_long(in, "ZVAL2", 4, TINT);
  if (nblock < 16 && bytepix > 8) std::swap(nblock, bytepix);
  if (nblock <= 0) {  // CFITSIO's decoder would never advance, reading codes past the tile
    throw asdfcore::Error(asdfcore::ErrorCode::kMalformed,
                          "the RICE_1-compressed image declares a block size of " +
                              std::to_string(nblock) + " pixels",
                          where);
  }
  const long naxis = read_long(in, "ZNAXIS", -1);
  if (naxis < 1 || naxis > 999) return;
  std::vector<long> axes(static_cast<std::size_t>(naxis));
  std::vector<long> tiles(static_cast<std::size_t>(naxis));
  for (long k = 0; k < naxis; ++k) {
    const std::string n = std::to_string(k + 1);
    axes[k] = read_long(in, ("ZNAXIS" + n).c_str(), -1);
    tiles[k] = read_long(in, ("ZTILE" + n).c_str(), k == 0 ? axes[k] : 1);
    if (axes[k] <= 0 || tiles[k] <= 0) return;
  }
  int column = 0;
  fits_get_colnum(in, CASEINSEN, const_cast<char*>("COMPRESSED_DATA"), &column, &status);
  long rows = 0;
  fits_get_num_rows(in, &rows, &status);
  if (status != 0) {
    fits_clear_errmsg();
    return;
  }
  // Each row is one tile, in FITS order (first axis fastest); its pixels are the tile's extent
  // clipped at the image's edge.
  std::vector<long> index(static_cast<std::size_t>(naxis), 0);
  std::vector<std::uint8_t> bytes;
  for (long row = 1; row <= rows; ++row) {
    std::uint64_t nx = 1;
    for (long k = 0; k < naxis; ++k) {
      const long start = index[k] * tiles[k];
      if (start >= axes[k]) return;  // more rows than tiles: leave it to CFITSIO
      nx *= static_cast<std::uint64_t>(std::min(tiles[k], axes[k] - start));
    }
    for (long k = 0; k < naxis; ++k) {  // the next tile
      if (static_cast<long>(++index[k]) * tiles[k] < axes[k]) break;
      index[k] = 0;
    }
    // A tile that cannot be read here is refused, not left to CFITSIO: its reads of a damaged
    // file depend on what its buffers already hold, so the decompression that follows may read
    // the same tile without an error, and then decode bytes this guard never saw.
    LONGLONG length = 0, offset = 0;
    fits_read_descriptll(in, column, row, &length, &offset, &status);
    check_status(status, "cannot read the descriptor of tile " + std::to_string(row) +
                             " of the compressed image", where);
    if (length <= 0) continue;  // stored in another column, or lost: not Rice-decoded here
    if (length > in->Fptr->logfilesize) {  // CFITSIO would allocate it before reading
      throw asdfcore::Error(asdfcore::ErrorCode::kMalformed,
                            "tile " + std::to_string(row) + " of the compressed image declares " +
                                std::to_string(length) + " bytes, more than the whole file",
                            where);
    }
    bytes.resize(static_cast<std::size_t>(length));
    int anynul = 0;
    fits_read_col(in, TBYTE, column, row, 1, length, nullptr, bytes.data(), &anynul, &status);
    check_status(status, "cannot read tile " + std::to_string(row) + " of the compressed image",
                 where);
    if (!rice_tile_in_bounds(bytes, nx, static_cast<int>(nblock), static_cast<int>(bytepix))) {
      throw asdfcore::Error(asdfcore::ErrorCode::kCompression,
                            "tile " + std::to_string(row) + " of the RICE_1-compressed image is "
                            "damaged: decoding it would read past its " +
                                std::to_string(length) + " bytes",
                            where);
    }
  }
}

}  // namespace fitsasdf::fits
