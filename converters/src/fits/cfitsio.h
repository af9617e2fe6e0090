#pragma once
// Private to src/fits, the only files that call CFITSIO: what several of them need around its
// API. Its raw byte read, a handle closed at scope exit, a file in memory for CFITSIO to build
// an HDU in (decompressing, compressing), and an HDU of such a file read back as bytes.
#include <fitsio.h>

#include <cstdint>
#include <string>
#include <vector>

#include "asdfcore/error.h"

// CFITSIO's raw byte read (declared in its internal fitsio2.h, which lacks C linkage for C++);
// used with ffmbyt (public) to copy bytes out of an open file.
extern "C" int ffgbyt(fitsfile* fptr, LONGLONG nbytes, void* buffer, int* status);
// CFITSIO's PLIO_1 line-list decoder (fitsio2.h likewise): `npix` ints from the list at `ll_src`,
// starting at pixel `xs` (1 for a whole tile). It trusts the list's header: plio_guard.h first.
extern "C" int pl_l2pi(short* ll_src, int xs, int* px_dst, int npix);

namespace fitsasdf::fits {

/// Return CFITSIO's datatype for pixels of `bitpix` (TBYTE, TSHORT, TINT, TLONGLONG, TFLOAT,
/// TDOUBLE), or 0 when `bitpix` is not a FITS BITPIX.
inline int image_datatype(int bitpix) noexcept {
  switch (bitpix) {
    case BYTE_IMG:
      return TBYTE;
    case SHORT_IMG:
      return TSHORT;
    case LONG_IMG:
      return TINT;
    case LONGLONG_IMG:
      return TLONGLONG;
    case FLOAT_IMG:
      return TFLOAT;
    case DOUBLE_IMG:
      return TDOUBLE;
    default:
      return 0;
  }
}

/// A CFITSIO file handle, closed when it goes out of scope (CFITSIO's messages cleared then).
struct CfitsioHandle {
  fitsfile* f = nullptr;

  CfitsioHandle() = default;
  CfitsioHandle(const CfitsioHandle&) = delete;
  CfitsioHandle& operator=(const CfitsioHandle&) = delete;
  ~CfitsioHandle();
};

/// Create `out` as a file in memory holding an empty primary HDU, for CFITSIO to append an HDU
/// to. Throws `Error` with `where` when CFITSIO cannot.
void create_memory_file(CfitsioHandle& out, const asdfcore::ErrorContext& where);

/// Return the bytes of the current HDU of `file` (header, data and padding); `what` names it in
/// the errors ("decompressed table": "cannot read the decompressed table").
std::vector<std::uint8_t> current_hdu_bytes(fitsfile* file, const std::string& what,
                                            const asdfcore::ErrorContext& where);

/// Return `size` bytes of `file` from byte `at` (through CFITSIO's buffers, so what it has not
/// flushed yet included); `what` names them in the errors.
std::vector<std::uint8_t> file_bytes(fitsfile* file, LONGLONG at, LONGLONG size,
                                     const std::string& what, const asdfcore::ErrorContext& where);

/// Return the current HDU's header records as CFITSIO has them (80 bytes each, without END);
/// `what` names the HDU in the errors.
std::string header_records(fitsfile* file, const std::string& what,
                           const asdfcore::ErrorContext& where);

}  // namespace fitsasdf::fits
