#pragma once
/// \file
/// Settings for converting FITS to ASDF.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "asdfcore/asdf_file.h"
#include "asdfcore/format/container_writer.h"
#include "fitsasdf/progress.h"

namespace fitsasdf {

/// Resource limits for reading an input file. Every size the file declares (a block's
/// `data_size`, a decompressed `.gz` stream, a tile-compressed image or table, a tree) is
/// checked against them before anything is allocated; going over is an `Error` (limit).
struct ReadLimits {
  /// The largest single buffer sized from the file's own fields: a decoded block, the
  /// decompressed stream of a .gz/.bz2 FITS file, a decompressed tile-compressed image or table.
  std::uint64_t max_memory = std::uint64_t{8} << 30;
  /// The most YAML nodes a tree may make (aliases counted as the size of what they repeat).
  std::size_t max_tree_nodes = 50'000'000;
  /// The deepest nesting of sequences and mappings a tree may have.
  std::size_t max_depth = 1000;
  /// The most nodes a tree may reach through YAML aliases, in total (stops alias bombs).
  std::size_t max_alias_nodes = 1'000'000;

  /// Return the options that open an ASDF file under these limits.
  asdfcore::OpenOptions open_options() const {
    asdfcore::OpenOptions o;
    o.layout.max_block_data_size = max_memory;
    o.yaml.max_nodes = max_tree_nodes;
    o.yaml.max_depth = max_depth;
    o.yaml.max_alias_expansion = max_alias_nodes;
    return o;
  }
};

/// What to do with integer data scaled by BSCALE/BZERO that is not an unsigned-integer offset,
/// or that has a BLANK value.
enum class ScalingPolicy {
  kRaw,       ///< Keep the stored integers and the cards: lossless, same size (default).
  kPhysical,  ///< Write the scaled floating-point values (float32 for BITPIX 8/16, float64 for
              ///< 32/64, as astropy reads them; BLANK becomes NaN).
};

/// Return the policy called `name` where users choose one ("raw", "physical"), or nothing.
inline std::optional<ScalingPolicy> scaling_policy_named(std::string_view name) noexcept {
  if (name == "raw") return ScalingPolicy::kRaw;
  if (name == "physical") return ScalingPolicy::kPhysical;
  return std::nullopt;
}

/// Which tag the `fits` item gets.
enum class FitsTag {
  kAuto,      ///< The standard's fits-1.0.0 when every card fits its limits, else astropy's.
  kStandard,  ///< tag:stsci.edu:asdf/fits/fits-1.0.0 (keywords <= 8 chars, strings <= 60).
  kAstropy,   ///< tag:astropy.org:astropy/fits/fits-1.0.0 (same shape, no header limits).
};

/// Return the choice called `name` where users choose one ("auto", "standard", "astropy"), or
/// nothing.
inline std::optional<FitsTag> fits_tag_named(std::string_view name) noexcept {
  if (name == "auto") return FitsTag::kAuto;
  if (name == "standard") return FitsTag::kStandard;
  if (name == "astropy") return FitsTag::kAstropy;
  return std::nullopt;
}

/// Settings for `convert_fits_to_asdf`.
struct ConvertOptions {
  ScalingPolicy scaling = ScalingPolicy::kRaw;  ///< What to do with scaled integer data.
  FitsTag fits_tag = FitsTag::kAuto;            ///< Which tag the `fits` item gets.
  /// Write image data in the machine's byte order instead of FITS's big-endian (costs a swap).
  bool native_byte_order = false;
  /// Block compression: "" (none), "zlib", "bzp2" or "lz4".
  std::string compression;
  /// The codec's level (asdfcore::compression::CompressOptions::level); -1 for its default.
  int compression_level = -1;
  /// The ASDF Standard to declare. 1.5.0 by default: python asdf 2.14 and asdf-astropy read it
  /// without a warning (their fits schemas refer to ndarray-1.0.0).
  std::string asdf_standard = "1.5.0";
  /// Write the native view (arrays by EXTNAME, quantities with units, root `data`).
  bool native_view = true;
  /// Which bytes each block's MD5 (the standard's optional checksum) covers: the stored bytes
  /// (the standard's reading, and python asdf's from after 5.2), the decoded data (what python
  /// asdf up to 5.2, Debian's 2.14 among them, checks with `validate_checksums=True`; the two
  /// differ only for compressed blocks), or none. MD5 is sequential, so for a large image it
  /// costs more than copying the bytes (about 0.75 GB/s per core here); kNone is for bytes
  /// checked another way.
  asdfcore::format::ChecksumConvention checksum = asdfcore::format::ChecksumConvention::kStoredBytes;
  /// fsync the output before renaming it into place.
  bool durable = true;
  /// Threads that compress each large block's pieces side by side; 0 means every core
  /// (`std::thread::hardware_concurrency()`). The output does not depend on it.
  unsigned threads = 0;
  /// For a FITS file that carries an ASDF extension (JWST products, AsdfInFits): write its
  /// embedded tree with the `fits:` arrays pulled in (`extract_embedded_asdf`) instead of the
  /// fits list. The command line sets it unless --fits-list is given.
  bool embedded_tree = false;
  /// Limits on what the input may make this read (the FITS file, an embedded ASDF tree).
  ReadLimits limits;
  /// Progress reports and cancellation: `total` is the input's data bytes (every HDU's data
  /// unit; for an embedded ASDF tree, the bytes of the arrays written), counted as the
  /// output's blocks are written.
  RunControl control;
  /// Replace an existing output. False: refuse with `Error` (exists) before converting anything,
  /// and again, atomically, at the final rename (astropy's `writeto(overwrite=False)`).
  bool overwrite = true;
};

}  // namespace fitsasdf
