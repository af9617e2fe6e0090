#pragma once
// The header of the image a tile-compressed HDU holds, built from the binary table's cards the
// way astropy 5.2's `CompImageHDU.header` builds it (no pixel is decompressed): the table's
// reserved keywords dropped (TFIELDS, TTYPEn, TFORMn, ..., ZIMAGE, ZCMPTYPE, ZTILEn, ...),
// ZBITPIX, ZNAXIS, ZNAXISn, ZPCOUNT, ZGCOUNT, ZEXTEND, ZBLOCKED, ZHECKSUM and ZDATASUM moved
// onto their image keywords with their comments, a default EXTNAME = 'COMPRESSED_IMAGE'
// dropped, trailing blank cards kept as many as the table has. Cards astropy changes get
// images in astropy's fixed format; the others keep the file's.
#include <vector>

#include "asdfcore/error.h"
#include "fitsasdf/header.h"

namespace fitsasdf::info {

/// The name astropy gives a compressed image without an EXTNAME of its own.
inline constexpr std::string_view kCompressedImageName = "COMPRESSED_IMAGE";

/// Drop the EXTNAME = 'COMPRESSED_IMAGE' cards of `table` that another EXTNAME makes
/// unnecessary (all of them but the first when every EXTNAME is the default), as astropy does
/// to the table header before it reads the image header from it.
void remove_default_extnames(std::vector<Card>& table);

/// Return the image header astropy shows for the compressed-image table header `table` (already
/// passed through `remove_default_extnames`). Throws `asdfcore::Error` (malformed, with `where`)
/// when ZBITPIX, ZNAXIS or a ZNAXISn is missing, or ZNAXIS is not a non-negative integer.
std::vector<Card> compressed_image_header(const std::vector<Card>& table,
                                          const asdfcore::ErrorContext& where);

}  // namespace fitsasdf::info
