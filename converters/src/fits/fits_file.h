#pragma once
// The only code that calls CFITSIO: a move-only handle on an open FITS file, the one function
// that turns a CFITSIO status and its message stack into an asdfcore::Error, and access to the
// file's bytes (memory-mapped for a plain file, decompressed for .gz, .bz2 and .Z).
#include <cstdint>
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "asdfcore/io/buffer.h"

namespace fitsasdf::fits {

/// Where one HDU lies in the FITS byte stream (0-based byte offsets; `index` is 1-based as
/// CFITSIO counts).
struct HduExtent {
  int index = 0;
  int type = 0;                   ///< 0 image, 1 ASCII table, 2 binary table (CFITSIO's codes).
  bool tile_compressed = false;   ///< A tile-compressed image stored as a binary table.
  bool compressed_table = false;  ///< A tile-compressed table (a binary table with ZTABLE = T).
  std::uint64_t header_start = 0;
  std::uint64_t data_start = 0;
  std::uint64_t data_end = 0;  ///< End of the data including the padding to 2880 bytes.
};

/// Throw `asdfcore::Error` for a non-zero CFITSIO `status`, with `what` and CFITSIO's messages.
void check_status(int status, const std::string& what, const asdfcore::ErrorContext& where);

/// An open FITS file (read-only).
class FitsFile {
 public:
  /// Open `path` (plain, .gz, .bz2 or .Z, recognised by content) without CFITSIO's extended
  /// file-name syntax. Throws `Error` (not-fits) for a file that is not FITS (an HTML page),
  /// (io) for one that cannot be read, and (limit) when a .gz or .bz2 file decompresses to more
  /// than `max_memory` bytes (counted while streaming, before CFITSIO holds it in memory).
  /// `max_memory` also bounds the images and tables that `decompress_image` and
  /// `decompress_table` make.
  static FitsFile open(const std::string& path, std::uint64_t max_memory = std::uint64_t{8} << 30);
  ~FitsFile();
  FitsFile(FitsFile&& other) noexcept;
  FitsFile& operator=(FitsFile&& other) noexcept;
  FitsFile(const FitsFile&) = delete;
  FitsFile& operator=(const FitsFile&) = delete;

  /// Return the path given to open.
  const std::string& path() const noexcept { return path_; }
  /// Return the container compression ("gzip", "bzip2", "compress") or "" for a plain file.
  const std::string& container() const noexcept { return container_; }
  /// Return every HDU's extent, in file order.
  const std::vector<HduExtent>& hdus() const noexcept { return hdus_; }
  /// Return the whole (decompressed) byte stream. Plain files are mapped, not copied.
  const asdfcore::io::Buffer& bytes() const noexcept { return bytes_; }
  /// Return a descriptor of the plain file for streaming its bytes (pread), or -1 for a
  /// compressed container (whose stream exists only in memory).
  int plain_fd() const noexcept { return plain_fd_; }

  /// Decompress the tile-compressed image HDU `index` (1-based) with CFITSIO and return the
  /// bytes of the equivalent uncompressed image HDU: its header blocks then its data, big-endian,
  /// as CFITSIO writes them (`fits_img_decompress`).
  asdfcore::io::Buffer decompress_image(int index) const;
  /// Decompress the tile-compressed table HDU `index` (1-based; ZTABLE = T) with CFITSIO
  /// (`fits_uncompress_table`) and return the bytes of the equivalent binary table HDU: its
  /// header blocks, then its rows and heap, as CFITSIO writes them. Columns CFITSIO names GZIP_2
  /// but stores unshuffled (`gzip2_columns_stored_plain` in tile_guard.h) are read as the GZIP_1
  /// they are; their numbers go to `relabelled` when given.
  std::vector<std::uint8_t> decompress_table(int index,
                                             std::vector<int>* relabelled = nullptr) const;

 private:
  FitsFile() = default;
  asdfcore::ErrorContext where(int hdu = 0) const;
  /// Throw when the bytes after the last of the `count` HDUs CFITSIO found start an extension
  /// it could not read (a file cut inside that extension's header).
  void refuse_unreadable_extension(int count) const;

  std::string path_;
  std::string container_;
  void* fptr_ = nullptr;
  int plain_fd_ = -1;  // CFITSIO's fitsfile*; fitsio.h stays inside fits_file.cc
  std::uint64_t max_memory_ = 0;
  std::vector<HduExtent> hdus_;
  asdfcore::io::Buffer bytes_;
};

}  // namespace fitsasdf::fits
