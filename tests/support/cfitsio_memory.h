#pragma once
// CFITSIO files in memory, for tests that make FITS files with CFITSIO itself (compressed images
// above all) and read them back as FitsFile hands CFITSIO one HDU: a file being written, and a
// copy of some bytes opened read-only at an HDU.
#include <fitsio.h>

#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

#include "support/catch.h"

namespace fitsasdf::test {

/// A FITS file CFITSIO writes in memory through `f`, open until `bytes()`.
struct CfitsioWriting {
  void* memory = nullptr;  // CFITSIO keeps the addresses of these two
  std::size_t size = 2880;
  fitsfile* f = nullptr;

  CfitsioWriting() {
    memory = std::malloc(size);
    int status = 0;
    fits_create_memfile(&f, &memory, &size, 2880, std::realloc, &status);
    REQUIRE(status == 0);
  }
  ~CfitsioWriting() {
    int status = 0;
    if (f != nullptr) fits_close_file(f, &status);
    std::free(memory);
  }
  CfitsioWriting(const CfitsioWriting&) = delete;
  CfitsioWriting& operator=(const CfitsioWriting&) = delete;

  /// Close the file (its errors, if any, are a failed REQUIRE naming CFITSIO's message) and
  /// return its bytes.
  std::vector<std::uint8_t> bytes() {
    int status = 0;
    fits_close_file(f, &status);
    f = nullptr;
    char message[FLEN_ERRMSG] = "";
    if (status != 0) fits_read_errmsg(message);
    INFO("CFITSIO: " << message);
    REQUIRE(status == 0);
    const auto* at = static_cast<const std::uint8_t*>(memory);
    return std::vector<std::uint8_t>(at, at + size);
  }
};

/// `file`, a FITS file's bytes, opened read-only by CFITSIO at HDU `hdu` (1-based) through `f`.
/// CFITSIO reads `file` itself, so changing its bytes changes what it reads.
struct CfitsioReading {
  std::vector<std::uint8_t> file;
  void* memory = nullptr;  // CFITSIO keeps the addresses of these two
  std::size_t size = 0;
  fitsfile* f = nullptr;

  explicit CfitsioReading(std::vector<std::uint8_t> bytes, int hdu = 2)
      : file(std::move(bytes)), memory(file.data()), size(file.size()) {
    int status = 0, type = 0;
    fits_open_memfile(&f, "test", READONLY, &memory, &size, 0, nullptr, &status);
    fits_movabs_hdu(f, hdu, &type, &status);
    REQUIRE(status == 0);
  }
  ~CfitsioReading() {
    int status = 0;
    if (f != nullptr) fits_close_file(f, &status);
  }
  CfitsioReading(const CfitsioReading&) = delete;
  CfitsioReading& operator=(const CfitsioReading&) = delete;
};

}  // namespace fitsasdf::test
