#include "fits/fits_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "asdfcore/io/mapped_file.h"
#include "fits/cfitsio.h"

namespace fitsasdf::fits {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ErrorContext;

void check_status(int status, const std::string& what, const ErrorContext& where) {
  if (status == 0) return;
  char text[FLEN_STATUS] = {};
  fits_get_errstatus(status, text);
  std::string message = what + ": " + text;
  // Drain CFITSIO's message stack so nothing leaks into the next call; keep the useful lines.
  char line[FLEN_ERRMSG];
  std::string detail;
  while (fits_read_errmsg(line) != 0) {
    std::string s(line);
    while (!s.empty() && s.back() == ' ') s.pop_back();
    if (!s.empty() && detail.size() < 400) detail += (detail.empty() ? "" : "; ") + s;
  }
  if (!detail.empty()) message += " (" + detail + ")";
  ErrorCode code = ErrorCode::kMalformed;
  if (status == FILE_NOT_OPENED || status == MEMORY_ALLOCATION) {
    code = ErrorCode::kIo;
  } else if (status == END_OF_FILE || status == READ_ERROR) {
    // CFITSIO's file driver reports a short read as READ_ERROR. The file is mapped before
    // CFITSIO reads it, so a short read means the file ends early, not that the disk failed.
    code = ErrorCode::kTruncated;
  }
  throw Error(code, message, where);
}

CfitsioHandle::~CfitsioHandle() {
  if (f != nullptr) {
    int status = 0;
    fits_close_file(f, &status);
    fits_clear_errmsg();
  }
}

void create_memory_file(CfitsioHandle& out, const ErrorContext& where) {
  int status = 0;
  fits_create_file(&out.f, "mem://", &status);
  fits_create_img(out.f, BYTE_IMG, 0, nullptr, &status);
  check_status(status, "cannot create a memory file", where);
}

std::vector<std::uint8_t> current_hdu_bytes(fitsfile* file, const std::string& what,
                                            const ErrorContext& where) {
  int status = 0;
  LONGLONG head = 0, data = 0, end = 0;
  fits_get_hduaddrll(file, &head, &data, &end, &status);
  check_status(status, "cannot locate the " + what, where);
  std::vector<std::uint8_t> result(static_cast<std::size_t>(end - head));
  ffmbyt(file, head, 0 /* report EOF */, &status);
  ffgbyt(file, end - head, result.data(), &status);
  check_status(status, "cannot read the " + what, where);
  return result;
}

namespace {

fitsfile* handle(void* p) { return static_cast<fitsfile*>(p); }

std::string sniff_container(const asdfcore::io::Buffer& head) {
  const auto* p = head.data();
  if (head.size() >= 2 && p[0] == 0x1f && p[1] == 0x8b) return "gzip";
  if (head.size() >= 3 && std::memcmp(p, "BZh", 3) == 0) return "bzip2";
  if (head.size() >= 2 && p[0] == 0x1f && p[1] == 0x9d) return "compress";
  return "";
}

void refuse_other_formats(const asdfcore::io::Buffer& bytes, const std::string& path) {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()),
                              std::min<std::size_t>(bytes.size(), 4096));
  const ErrorContext at{.file = path, .offset = 0};
  if (bytes.empty()) throw Error(ErrorCode::kNotFits, "the file is empty", at);
  if (text.starts_with("\x89HDF\r\n\x1a\n")) {
    throw Error(ErrorCode::kNotFits,
                "this is an HDF5 file (perhaps the Adaptable Seismic Data Format), not FITS", at);
  }
  if (text.starts_with("#ASDF")) {
    throw Error(ErrorCode::kNotFits, "this is an ASDF file, not FITS", at);
  }
  if (!text.starts_with("SIMPLE  =")) {
    std::string lower(text.substr(0, 512));
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool html = lower.find("<html") != std::string::npos ||
                      lower.find("<!doctype") != std::string::npos;
    throw Error(ErrorCode::kNotFits,
                html ? "this is an HTML page, not a FITS file (a failed download?)"
                     : "no SIMPLE card at the start: this is not a FITS file",
                at);
  }
}

/// Throw (truncated) when the header at the start of `rest` has no END card, or ends in a
/// 2880-byte block that `rest` does not complete. `hdu` is the header's 1-based HDU number.
void refuse_cut_header(std::string_view rest, int hdu, const ErrorContext& at) {
  std::size_t header_size = 0;  // through the block holding END
  for (std::size_t card = 0; card + 80 <= rest.size() && header_size == 0; card += 80) {
    if (rest.substr(card, 8) == "END     ") header_size = (card / 2880 + 1) * 2880;
  }
  const std::string which = "the header of HDU " + std::to_string(hdu);
  if (header_size == 0) {
    throw Error(ErrorCode::kTruncated,
                "no END card in the " + std::to_string(rest.size()) + " bytes of " + which +
                    ": the file is cut inside the header, or END is missing",
                at);
  }
  if (header_size > rest.size()) {
    throw Error(ErrorCode::kTruncated,
                "the file ends inside " + which + " (its last block holds " +
                    std::to_string(rest.size() % 2880) + " of 2880 bytes): the file is cut",
                at);
  }
}

}  // namespace

FitsFile FitsFile::open(const std::string& path) {
  FitsFile f;
  f.path_ = path;
  asdfcore::io::Buffer mapped = asdfcore::io::map_file(path);
  f.container_ = sniff_container(mapped);
  if (f.container_.empty()) refuse_other_formats(mapped, path);

  int status = 0;
  fitsfile* opened = nullptr;
  fits_open_diskfile(&opened, path.c_str(), READONLY, &status);
  f.fptr_ = status == 0 ? opened : nullptr;
  if ((status == END_OF_FILE || status == READ_ERROR) && f.container_.empty()) {
    fits_clear_errmsg();  // say it plainly, without CFITSIO's stack
    refuse_cut_header({reinterpret_cast<const char*>(mapped.data()), mapped.size()}, 1,
                      ErrorContext{.file = path, .hdu = 1});
  }
  check_status(status, "CFITSIO cannot open the file", f.where());

  int count = 0;
  fits_get_num_hdus(handle(f.fptr_), &count, &status);
  check_status(status, "cannot count the HDUs", f.where());
  fits_clear_errmsg();  // the failed move past the last HDU leaves messages behind
  for (int i = 1; i <= count; ++i) {
    HduExtent e;
    e.index = i;
    fits_movabs_hdu(handle(f.fptr_), i, &e.type, &status);
    check_status(status, "cannot read the header", f.where(i));
    LONGLONG head = 0, data = 0, end = 0;
    fits_get_hduaddrll(handle(f.fptr_), &head, &data, &end, &status);
    check_status(status, "cannot locate the HDU", f.where(i));
    e.header_start = static_cast<std::uint64_t>(head);
    e.data_start = static_cast<std::uint64_t>(data);
    e.data_end = static_cast<std::uint64_t>(end);
    e.tile_compressed = fits_is_compressed_image(handle(f.fptr_), &status) != 0;
    check_status(status, "cannot inspect the HDU", f.where(i));
    if (e.type == BINARY_TBL && !e.tile_compressed) {
      int ztable = 0;
      fits_read_key(handle(f.fptr_), TLOGICAL, "ZTABLE", &ztable, nullptr, &status);
      if (status == KEY_NO_EXIST || status == VALUE_UNDEFINED || status == BAD_LOGICALKEY) {
        status = 0;  // absent or not a logical value: an ordinary binary table
        fits_clear_errmsg();
        ztable = 0;
      }
      check_status(status, "cannot read ZTABLE", f.where(i));
      e.compressed_table = ztable != 0;
    }
    f.hdus_.push_back(e);
  }

  if (f.container_.empty()) {
    f.bytes_ = std::move(mapped);
    f.plain_fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (f.plain_fd_ < 0) {
      throw Error(ErrorCode::kIo, std::string("cannot open for reading: ") + std::strerror(errno),
                  f.where());
    }
  } else {
    // CFITSIO has the decompressed stream in memory; copy it out once (all of it: a stream cut
    // inside the last HDU's padding is shorter than that HDU's extent).
    const auto total = static_cast<std::uint64_t>(handle(f.fptr_)->Fptr->logfilesize);
    if (total % 2880 != 0) {  // CFITSIO reads whole blocks and cannot give the partial one
      throw Error(ErrorCode::kTruncated,
                  "the decompressed stream is " + std::to_string(total) +
                      " bytes, not a whole number of 2880-byte blocks: the FITS file inside "
                      "was cut (decompress it and convert the plain file to keep what is left)",
                  f.where());
    }
    std::vector<std::uint8_t> stream(static_cast<std::size_t>(total));
    if (total > 0) {
      ffmbyt(handle(f.fptr_), 0, 0 /* report EOF */, &status);
      ffgbyt(handle(f.fptr_), static_cast<LONGLONG>(total), stream.data(), &status);
      check_status(status, "cannot read the decompressed stream", f.where());
    }
    f.bytes_ = asdfcore::io::Buffer::from_vector(std::move(stream));
  }
  f.refuse_unreadable_extension(count);
  return f;
}

void FitsFile::refuse_unreadable_extension(int count) const {
  // CFITSIO counts the HDUs up to the first one it cannot read and says nothing about the rest:
  // a file cut inside an extension's header would lose that HDU and every later one. Bytes after
  // the last HDU are ignored (as CFITSIO and astropy do) unless they start an extension.
  const std::uint64_t end = hdus_.empty() ? 0 : hdus_.back().data_end;
  if (end >= bytes_.size()) return;
  const std::string_view rest(reinterpret_cast<const char*>(bytes_.data()) + end,
                              static_cast<std::size_t>(bytes_.size() - end));
  if (!rest.starts_with("XTENSION")) return;
  ErrorContext at = where(count + 1);
  at.offset = end;
  refuse_cut_header(rest, count + 1, at);
  const std::string next = "HDU " + std::to_string(count + 1);
  int status = 0;
  int type = 0;
  fits_movabs_hdu(handle(fptr_), count + 1, &type, &status);
  check_status(status, "CFITSIO cannot read the header of " + next, at);
  throw Error(ErrorCode::kMalformed, "CFITSIO stops before " + next + " and gives no reason", at);
}

FitsFile::~FitsFile() {
  if (plain_fd_ >= 0) ::close(plain_fd_);
  if (fptr_ != nullptr) {
    int status = 0;
    fits_close_file(handle(fptr_), &status);
    fits_clear_errmsg();
  }
}

FitsFile::FitsFile(FitsFile&& other) noexcept
    : path_(std::move(other.path_)),
      container_(std::move(other.container_)),
      fptr_(std::exchange(other.fptr_, nullptr)),
      plain_fd_(std::exchange(other.plain_fd_, -1)),
      hdus_(std::move(other.hdus_)),
      bytes_(std::move(other.bytes_)) {}

FitsFile& FitsFile::operator=(FitsFile&& other) noexcept {
  if (this != &other) {
    FitsFile tmp(std::move(other));
    std::swap(path_, tmp.path_);
    std::swap(container_, tmp.container_);
    std::swap(fptr_, tmp.fptr_);
    std::swap(plain_fd_, tmp.plain_fd_);
    std::swap(hdus_, tmp.hdus_);
    std::swap(bytes_, tmp.bytes_);
  }
  return *this;
}

ErrorContext FitsFile::where(int hdu) const {
  ErrorContext c{.file = path_};
  if (hdu > 0) c.hdu = hdu;
  return c;
}

std::vector<std::uint8_t> FitsFile::decompress_image(int index) const {
  // As CFITSIO's imcopy does: an image HDU with the compressed image's type and shape, every
  // card whose class is beyond the compression keywords (user keywords, BSCALE/BZERO, ...),
  // and the pixels read with scaling off, so the stored integers come back unchanged.
  int status = 0;
  int type = 0;
  fitsfile* in = handle(fptr_);
  fits_movabs_hdu(in, index, &type, &status);
  check_status(status, "cannot move to the compressed image", where(index));
  int bitpix = 0;
  int naxis = 0;
  long naxes[999] = {};
  fits_get_img_param(in, 999, &bitpix, &naxis, naxes, &status);
  check_status(status, "cannot read the compressed image's type and shape", where(index));
  int nkeys = 0;
  fits_get_hdrspace(in, &nkeys, nullptr, &status);
  check_status(status, "cannot read the compressed header", where(index));

  CfitsioHandle memory;
  create_memory_file(memory, where(index));
  fitsfile* out = memory.f;
  fits_create_img(out, bitpix, naxis, naxes, &status);
  char card[FLEN_CARD];
  for (int k = 1; k <= nkeys && status == 0; ++k) {
    fits_read_record(in, k, card, &status);
    if (status == 0 && fits_get_keyclass(card) > TYP_CMPRS_KEY) fits_write_record(out, card, &status);
  }
  check_status(status, "cannot copy the compressed image's keywords", where(index));
  fits_set_bscale(in, 1.0, 0.0, &status);
  fits_set_bscale(out, 1.0, 0.0, &status);
  LONGLONG count = naxis > 0 ? 1 : 0;
  for (int i = 0; i < naxis; ++i) count *= naxes[i];
  const int datatype = image_datatype(bitpix);
  if (count > 0) {
    std::vector<std::uint8_t> pixels(static_cast<std::size_t>(count) *
                                     static_cast<std::size_t>(std::abs(bitpix) / 8));
    int anynul = 0;
    fits_read_img(in, datatype, 1, count, nullptr, pixels.data(), &anynul, &status);
    check_status(status, "CFITSIO cannot decompress the tile-compressed image", where(index));
    fits_write_img(out, datatype, 1, count, pixels.data(), &status);
  }
  fits_flush_file(out, &status);
  fits_set_bscale(in, 1.0, 0.0, &status);  // leave the input as it was for later reads
  check_status(status, "cannot write the decompressed image", where(index));
  return current_hdu_bytes(out, "decompressed image", where(index));
}

std::vector<std::uint8_t> FitsFile::decompress_table(int index) const {
  int status = 0;
  int type = 0;
  fitsfile* in = handle(fptr_);
  fits_movabs_hdu(in, index, &type, &status);
  check_status(status, "cannot move to the compressed table", where(index));
  CfitsioHandle out;
  create_memory_file(out, where(index));
  fits_uncompress_table(in, out.f, &status);
  check_status(status, "CFITSIO cannot decompress the tile-compressed table", where(index));
  fits_flush_file(out.f, &status);
  check_status(status, "cannot write the decompressed table", where(index));
  return current_hdu_bytes(out.f, "decompressed table", where(index));
}

}  // namespace fitsasdf::fits
