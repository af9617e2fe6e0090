#pragma once
/// \file
/// The units the FITS standard (version 4.0, section 4.3) names, as astropy 5.2.1's "fits"
/// format accepts them: the prefixable bases with every SI prefix, the plain units, and for each
/// one the name VOUnit writes it under and what astropy decomposes it into (dimensions and
/// scale), which decides when a product is dimensionless ("Hz s" is, and astropy drops it).

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace fitsasdf::units {

/// The irreducible units astropy decomposes FITS units into; they decide whether a unit is
/// dimensionless.
enum class Dimension : std::uint8_t {
  kMetre,
  kKilogram,
  kSecond,
  kRadian,
  kKelvin,
  kAmpere,
  kMole,
  kCandela,
  kBit,
  kDex,
  kPhoton,
  kCount,
  kPixel,
  kVoxel,
  kSun,
  kChannel,
  kBin,
  kAdu,
  kBeam,
};

/// The number of `Dimension` values.
inline constexpr std::size_t kDimensionCount = 19;

/// The integer power of each `Dimension` in a unit.
using Dimensions = std::array<std::int8_t, kDimensionCount>;

/// One unit the FITS format knows: what astropy calls it, how VOUnit writes it, what it is made
/// of. Two FITS names for one astropy unit ("ct" and "count") share one `UnitDef`.
struct UnitDef {
  std::string name;    ///< astropy's primary name; it orders and merges bases ("ct").
  std::string vounit;  ///< The VOUnit name ("count"); empty when VOUnit cannot name it.
  /// When `vounit` is empty: the unit is `decompose_scale` times `decompose_base` (the deci and
  /// deka prefixes, which VOUnit refuses: dm = 0.1 m); null when it cannot be decomposed (Sun).
  const UnitDef* decompose_base = nullptr;
  double decompose_scale = 1.0;  ///< See `decompose_base`.
  Dimensions dimensions{};       ///< Power of each irreducible unit.
  /// The scale of the unit in irreducible units, bit for bit as astropy's `decompose()` gives
  /// it (erg: 1.0000000000000001e-07; an irreducible unit: 1).
  double si_scale = 1.0;
};

/// Return the unit the FITS format knows by `name` (case-sensitive: "Jy", "mJy", "Angstrom",
/// "ct"), or null when FITS does not name it ("DN", "counts", "electron", "%").
const UnitDef* find_fits_unit(std::string_view name);

}  // namespace fitsasdf::units
