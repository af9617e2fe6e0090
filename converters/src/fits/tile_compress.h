#pragma once
// Tile compression of images with CFITSIO, the inverse of `FitsFile::decompress_image`: the
// image's stored values in, the compressed binary table HDU (header and data area) out, as
// CFITSIO writes it with the given parameters.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "asdfcore/error.h"

namespace fitsasdf::fits {


/// The compression parameters a compressed image's header records (its Z* cards).
struct TileCompression {
  std::string type;        ///< ZCMPTYPE: RICE_1, GZIP_1, GZIP_2, PLIO_1, HCOMPRESS_1, NOCOMPRESS.
  std::vector<long> tile;  ///< ZTILEn, FITS order (first axis first); empty: CFITSIO's rows.
  std::optional<float> hcomp_scale;  ///< ZNAMEi = SCALE (HCOMPRESS_1).
  std::optional<int> hcomp_smooth;   ///< ZNAMEi = SMOOTH (HCOMPRESS_1).
  std::optional<int> noise_bits;     ///< ZNAMEi = NOISEBIT (old float quantization).
  std::string quantize;              ///< ZQUANTIZ: NO_DITHER, SUBTRACTIVE_DITHER_1/2, NONE, or "".
  std::optional<int> dither_seed;    ///< ZDITHER0.
};

/// A compressed image HDU, and why its algorithm is not the one asked for (empty when it is).
struct CompressedImage {
  std::vector<std::uint8_t> hdu;
  std::string substitution;
};

/// Compress the image of BITPIX `bitpix` and axes `naxes` (FITS order) whose stored values are
/// `pixels` (big-endian, C order; taken, and turned to the machine's order in place) with
/// `params`, as CFITSIO does: the compressed image HDU gets `cards` (80-byte images: BSCALE,
/// BZERO, BLANK, any card the header should carry) before the pixels are written with scaling
/// off, so the stored values go in unchanged. Integer images
/// compress without loss with every algorithm but HCOMPRESS with SCALE other than 0. Float images
/// are compressed without quantization (CFITSIO's quantize level 0: exact values), whatever
/// ZQUANTIZ says: quantized floats cannot be quantized again to the same integers. PLIO_1 is
/// replaced by RICE_1 when a value is outside its 0 to 2^24 - 1 (CFITSIO would refuse it).
/// Return the bytes of the compressed HDU: its header blocks, then its data area (rows and heap)
/// padded to 2880 bytes. Throws `asdfcore::Error` with `where` when CFITSIO refuses the
/// parameters.
CompressedImage compress_image(int bitpix, const std::vector<long>& naxes,
                               std::vector<std::uint8_t> pixels,
                               const std::vector<std::string>& cards, const TileCompression& params,
                               const asdfcore::ErrorContext& where);

/// Compress the binary table HDU `table` (its header blocks and padded data area, as a FITS
/// file would hold it) with CFITSIO's `fits_compress_table`, `rows_per_tile` rows per tile (0:
/// CFITSIO's choice), the way fpack -table does. Return the bytes of the compressed HDU: header
/// blocks, then the padded data area. Throws `asdfcore::Error` with `where` when CFITSIO refuses.
std::vector<std::uint8_t> compress_table(std::span<const std::uint8_t> table, long rows_per_tile,
                                         const asdfcore::ErrorContext& where);

}  // namespace fitsasdf::fits
