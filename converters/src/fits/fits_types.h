#pragma once
// The one table between FITS data types and ASDF dtypes.
#include <optional>

#include "asdfcore/ndarray/dtype.h"

namespace fitsasdf::fits {

/// Return the ASDF element kind of image data with `bitpix` (8, 16, 32, 64, -32, -64).
inline std::optional<asdfcore::ndarray::DTypeKind> kind_for_bitpix(long long bitpix) {
  using asdfcore::ndarray::DTypeKind;
  switch (bitpix) {
    case 8: return DTypeKind::kUInt8;
    case 16: return DTypeKind::kInt16;
    case 32: return DTypeKind::kInt32;
    case 64: return DTypeKind::kInt64;
    case -32: return DTypeKind::kFloat32;
    case -64: return DTypeKind::kFloat64;
    default: return std::nullopt;
  }
}

/// Return the ASDF element kind a binary-table TFORM type letter stores (`B I J K E D C M`,
/// before any TZEROn offset), or nothing for the other letters (`L X A P Q`).
inline std::optional<asdfcore::ndarray::DTypeKind> kind_for_tform(char code) {
  using asdfcore::ndarray::DTypeKind;
  switch (code) {
    case 'B': return DTypeKind::kUInt8;
    case 'I': return DTypeKind::kInt16;
    case 'J': return DTypeKind::kInt32;
    case 'K': return DTypeKind::kInt64;
    case 'E': return DTypeKind::kFloat32;
    case 'D': return DTypeKind::kFloat64;
    case 'C': return DTypeKind::kComplex64;
    case 'M': return DTypeKind::kComplex128;
    default: return std::nullopt;
  }
}

/// Return the unsigned (or, for BITPIX 8, signed) kind that BITPIX with the offset BZERO of
/// the FITS convention stands for: 16/2^15 -> uint16, 32/2^31 -> uint32, 64/2^63 -> uint64,
/// 8/-128 -> int8; nothing for any other pair.
inline std::optional<asdfcore::ndarray::DTypeKind> offset_kind(long long bitpix, double bzero) {
  using asdfcore::ndarray::DTypeKind;
  if (bitpix == 16 && bzero == 32768.0) return DTypeKind::kUInt16;
  if (bitpix == 32 && bzero == 2147483648.0) return DTypeKind::kUInt32;
  if (bitpix == 64 && bzero == 9223372036854775808.0) return DTypeKind::kUInt64;
  if (bitpix == 8 && bzero == -128.0) return DTypeKind::kInt8;
  return std::nullopt;
}

}  // namespace fitsasdf::fits
