#pragma once
// An open FITS file: its bytes (memory-mapped for a plain file, decompressed for .gz, .bz2 and
// .Z), its HDUs as the project's own header walk finds them (fits/hdu_walk.h), and CFITSIO for
// what only it does (tile-compressed HDUs, each handed to it alone). Also the one function that
// turns a CFITSIO status and its message stack into an asdfcore::Error.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "asdfcore/error.h"
#include "asdfcore/io/buffer.h"
#include "fits/tile_reader.h"
#include "fits/hdu_walk.h"

namespace fitsasdf::fits {

struct AloneHdu;

/// Throw `asdfcore::Error` for a non-zero CFITSIO `status`, with `what` and CFITSIO's messages.
void check_status(int status, const std::string& what, const asdfcore::ErrorContext& where);

/// Throw `asdfcore::Error` (limit) when `count` elements of `width` bytes each exceed `limit`
/// bytes, naming `what` and the option that raises the limit.
void refuse_oversized(std::uint64_t count, std::uint64_t width, std::uint64_t limit,
                      const std::string& what, const asdfcore::ErrorContext& at);

/// An open FITS file (read-only).
class FitsFile {
 public:
  /// Open `path` (plain, .gz, .bz2 or .Z, recognised by content) and find its HDUs by their
  /// headers' structural keywords (`walk_hdus`), wherever those stand. Throws `Error` (not-fits)
  /// for a file that is not FITS (an HTML page), (io) for one that cannot be read, (limit) when
  /// a compressed file decompresses to more than `max_memory` bytes (counted while decoding),
  /// and what `walk_hdus` throws.
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
  /// Return every HDU's header, parsed once (unparsable values repaired as astropy's
  /// `verify('fix')` does, each with its `Card::problem`), in file order.
  const std::vector<Header>& headers() const noexcept { return headers_; }
  /// Move every HDU's header out (`headers()` is empty afterwards; nothing else here uses them),
  /// for a caller that keeps them longer than the file.
  std::vector<Header> take_headers() noexcept { return std::move(headers_); }
  /// Return the whole (decompressed) byte stream. Plain files are mapped, not copied.
  const asdfcore::io::Buffer& bytes() const noexcept { return bytes_; }
  /// Return a descriptor of the plain file for streaming its bytes (pread), or -1 for a
  /// compressed container (whose stream exists only in memory).
  int plain_fd() const noexcept { return plain_fd_; }

  /// Decompress the tile-compressed image HDU `index` (1-based) with CFITSIO and return the
  /// bytes of the equivalent uncompressed image HDU: its header blocks then its data, big-endian,
  /// as CFITSIO writes them (`fits_img_decompress`).
  asdfcore::io::Buffer decompress_image(int index) const;
  /// Open the tile-compressed image HDU `index` (1-based) to be decompressed by CFITSIO a band
  /// of tiles at a time (tile_reader.h): its header is read and checked now, its tiles as
  /// they are decoded. Throws `Error` (limit) when one row of its tiles would need more than
  /// half of `max_memory`, and what `decompress_image` throws for a header CFITSIO refuses.
  TileReader open_compressed_image(int index) const;
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
  /// Open HDU `index` (1-based) alone in CFITSIO (behind a minimal primary HDU, in memory) and
  /// move to it; the result keeps the copy CFITSIO reads.
  std::unique_ptr<AloneHdu> open_alone(int index) const;

  std::string path_;
  std::string container_;
  int plain_fd_ = -1;
  std::uint64_t max_memory_ = 0;
  std::vector<HduExtent> hdus_;
  std::vector<Header> headers_;
  asdfcore::io::Buffer bytes_;
};

}  // namespace fitsasdf::fits
