#include "fits/fits_file.h"

#include <bzlib.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

#include "asdfcore/io/mapped_file.h"
#include "asdfcore/ndarray/dtype.h"
#include "fits/cfitsio.h"
#include "fits/hdu_walk.h"
#include "fits/header_guard.h"
#include "fits/tile_guard.h"
#include "fits/tile_bands.h"
#include "fits/tile_reader_state.h"
#include "fitsasdf/header.h"

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
  // CFITSIO quotes what it read, which for a damaged header may be data bytes: keep the message
  // one printable line.
  for (char& c : message) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  }
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
  return file_bytes(file, head, end - head, what, where);
}

std::vector<std::uint8_t> file_bytes(fitsfile* file, LONGLONG at, LONGLONG size,
                                     const std::string& what, const ErrorContext& where) {
  std::vector<std::uint8_t> result(static_cast<std::size_t>(size));
  if (size == 0) return result;
  int status = 0;
  ffmbyt(file, at, 0 /* report EOF */, &status);
  ffgbyt(file, size, result.data(), &status);
  check_status(status, "cannot read the " + what, where);
  return result;
}

std::string header_records(fitsfile* file, const std::string& what, const ErrorContext& where) {
  char* records = nullptr;
  int count = 0;
  int status = 0;
  fits_hdr2str(file, 0 /* every card */, nullptr, 0, &records, &count, &status);
  check_status(status, "cannot read the " + what + "'s header", where);
  std::string text(records, static_cast<std::size_t>(count) * 80);
  fits_free_memory(records, &status);
  return text;
}

void refuse_oversized(std::uint64_t count, std::uint64_t width, std::uint64_t limit,
                      const std::string& what, const ErrorContext& at) {
  if (width != 0 && count > limit / width) {
    throw Error(ErrorCode::kLimit,
                what + " would need " + std::to_string(count) + " elements of " +
                    std::to_string(width) + " bytes, more than the memory limit of " +
                    std::to_string(limit) + " (raise --max-memory to read it)",
                at);
  }
}

namespace {

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
  if (text.starts_with("#ASDF") || text.starts_with("%ASDF ")) {
    throw Error(ErrorCode::kNotFits, "this is an ASDF file, not FITS", at);
  }
  if (!text.starts_with("SIMPLE  =")) {
    std::string lower(text.substr(0, 512));
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool html =
        lower.find("<html") != std::string::npos || lower.find("<!doctype") != std::string::npos;
    throw Error(ErrorCode::kNotFits,
                html ? "this is an HTML page, not a FITS file (a failed download?)"
                     : "no SIMPLE card at the start: this is not a FITS file",
                at);
  }
}

/// Return the gzip or bzip2 stream `packed` decompressed (every gzip member, every bzip2 stream;
/// bytes after the last whole member that do not start another are ignored, as gzip does).
/// Throws (limit) as soon as it passes `limit` bytes (a small file that expands enormously, a
/// decompression bomb, is refused before it fills memory), (truncated) for a stream cut short,
/// (compression) for a damaged one.
std::vector<std::uint8_t> decode_stream(const asdfcore::io::Buffer& packed,
                                        const std::string& container, std::uint64_t limit,
                                        const ErrorContext& at) {
  std::vector<std::uint8_t> out;
  std::uint64_t total = 0;
  constexpr std::size_t kPiece = std::size_t{1} << 20;
  const auto room = [&] {
    if (total > limit) {
      throw Error(ErrorCode::kLimit,
                  "the " + container + " stream decompresses to more than " +
                      std::to_string(limit) + " bytes, the memory limit (raise --max-memory to read it)",
                  at);
    }
    out.resize(static_cast<std::size_t>(total) + kPiece);
    return out.data() + total;
  };
  if (container == "gzip") {
    z_stream z{};
    if (inflateInit2(&z, 15 + 32) != Z_OK) throw Error(ErrorCode::kIo, "zlib cannot start", at);
    z.next_in = const_cast<Bytef*>(packed.data());
    std::uint64_t left = packed.size();
    bool member_done = false;  // at least one member decoded whole
    while (true) {
      if (z.avail_in == 0 && left > 0) {
        z.avail_in = static_cast<uInt>(std::min<std::uint64_t>(left, 1u << 30));
        left -= z.avail_in;
      }
      z.next_out = room();
      z.avail_out = static_cast<uInt>(kPiece);
      const int rc = inflate(&z, Z_NO_FLUSH);
      total += kPiece - z.avail_out;
      if (rc == Z_STREAM_END) {
        member_done = true;
        if (z.avail_in == 0 && left == 0) break;
        if (z.avail_in < 2 || z.next_in[0] != 0x1f || z.next_in[1] != 0x8b) break;
        inflateReset(&z);  // another gzip member follows
      } else if (rc == Z_BUF_ERROR ||
                 (rc == Z_OK && z.avail_in == 0 && left == 0 && z.avail_out != 0)) {
        inflateEnd(&z);
        throw Error(ErrorCode::kTruncated,
                    "the gzip stream ends after " + std::to_string(packed.size()) +
                        " bytes, before its end: the file is cut short",
                    at);
      } else if (rc != Z_OK) {
        const std::string why = z.msg != nullptr ? z.msg : "error " + std::to_string(rc);
        inflateEnd(&z);
        if (member_done) break;  // junk after a whole member
        throw Error(ErrorCode::kCompression,
                    "the gzip stream is damaged (zlib reports: " + why + ")", at);
      }
      if (total > limit) {
        inflateEnd(&z);
        room();
      }
    }
    inflateEnd(&z);
    out.resize(static_cast<std::size_t>(total));
    return out;
  }
  bz_stream b{};
  if (BZ2_bzDecompressInit(&b, 0, 0) != BZ_OK) {
    throw Error(ErrorCode::kIo, "bzip2 cannot start", at);
  }
  b.next_in = const_cast<char*>(reinterpret_cast<const char*>(packed.data()));
  std::uint64_t left = packed.size();
  bool first_stream = true;
  while (true) {
    if (b.avail_in == 0 && left > 0) {
      b.avail_in = static_cast<unsigned>(std::min<std::uint64_t>(left, 1u << 30));
      left -= b.avail_in;
    }
    b.next_out = reinterpret_cast<char*>(room());
    b.avail_out = static_cast<unsigned>(kPiece);
    const int rc = BZ2_bzDecompress(&b);
    total += kPiece - b.avail_out;
    if (total > limit) {
      BZ2_bzDecompressEnd(&b);
      room();
    }
    if (rc == BZ_STREAM_END) {
      BZ2_bzDecompressEnd(&b);
      if (b.avail_in == 0 && left == 0) break;
      if (b.avail_in < 3 || std::memcmp(b.next_in, "BZh", 3) != 0) break;  // junk after it
      const char* next = b.next_in;  // another bzip2 stream follows
      const unsigned avail = b.avail_in;
      b = bz_stream{};
      if (BZ2_bzDecompressInit(&b, 0, 0) != BZ_OK) break;
      b.next_in = const_cast<char*>(next);
      b.avail_in = avail;
      first_stream = false;
    } else if (rc == BZ_DATA_ERROR || rc == BZ_DATA_ERROR_MAGIC) {
      const std::uint64_t read = b.total_in_lo32 | std::uint64_t{b.total_in_hi32} << 32;
      BZ2_bzDecompressEnd(&b);
      if (!first_stream) break;  // junk after a whole stream
      throw Error(ErrorCode::kCompression,
                  "the bzip2 stream is damaged (libbz2 reports " +
                      std::string(rc == BZ_DATA_ERROR ? "a data error" : "a bad magic number") +
                      " after " + std::to_string(read) + " bytes)",
                  at);
    } else if (rc != BZ_OK) {
      BZ2_bzDecompressEnd(&b);
      throw Error(ErrorCode::kCompression,
                  "libbz2 cannot decode the stream (error " + std::to_string(rc) + ")", at);
    } else if (b.avail_in == 0 && left == 0 && b.avail_out != 0) {
      // Cut short: libbz2 returns BZ_OK for every call without input (fuzz finding 16).
      BZ2_bzDecompressEnd(&b);
      throw Error(ErrorCode::kTruncated,
                  "the bzip2 stream ends after " + std::to_string(packed.size()) +
                      " bytes, before its end: the file is cut short",
                  at);
    }
  }
  out.resize(static_cast<std::size_t>(total));
  return out;
}

/// Throw (malformed) when the primary header in `bytes` reaches a card that is not text before
/// any END card: its END is missing or damaged and the header runs on into the data (CFITSIO
/// would quote the data bytes as a keyword). A header cut before END is left to the checks
/// that tell a truncated file.
void refuse_missing_end(std::string_view bytes, const std::string& path) {
  for (std::size_t at = 0; at + 80 <= bytes.size(); at += 80) {
    const std::string_view card = bytes.substr(at, 80);
    if (card.substr(0, 8) == "END     ") return;
    // Only the keyword is checked: a card with a valid keyword and stray bytes in its comment
    // is a damaged card, which CFITSIO reads.
    for (std::size_t k = 0; k < 8; ++k) {
      const char c = card[k];
      const bool keyword_char = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                                (c >= '0' && c <= '9') || c == '-' || c == '_' || c == ' ';
      if (!keyword_char) {
        throw Error(ErrorCode::kMalformed,
                    "the primary header has no END card: card " + std::to_string(at / 80 + 1) +
                        " has no valid keyword (byte " + std::to_string(at + k) +
                        "), so the header runs into the data; END is missing or damaged",
                    ErrorContext{.file = path, .offset = at + k, .hdu = 1});
      }
    }
  }
}

}  // namespace

FitsFile FitsFile::open(const std::string& path, std::uint64_t max_memory) {
  FitsFile f;
  f.path_ = path;
  f.max_memory_ = max_memory;
  asdfcore::io::Buffer mapped = asdfcore::io::map_file(path);
  f.container_ = sniff_container(mapped);
  if (f.container_.empty()) {
    f.bytes_ = std::move(mapped);
  } else if (f.container_ != "compress") {
    f.bytes_ = asdfcore::io::Buffer::from_vector(
        decode_stream(mapped, f.container_, max_memory, f.where()));
  } else {
    // .Z (LZW): CFITSIO's decoder, the one at hand; CFITSIO reads the primary header as it
    // opens, so a .Z file whose primary header CFITSIO refuses cannot be read (decompress it).
    int status = 0;
    CfitsioHandle opened;
    fits_open_diskfile(&opened.f, path.c_str(), READONLY, &status);
    check_status(status, "CFITSIO cannot open the .Z (compress) file", f.where());
    const auto total = static_cast<std::uint64_t>(opened.f->Fptr->logfilesize);
    refuse_oversized(total, 1, max_memory, "the decompressed .Z stream", f.where());
    std::vector<std::uint8_t> stream(static_cast<std::size_t>(total));
    if (total > 0) {
      ffmbyt(opened.f, 0, 0 /* report EOF */, &status);
      ffgbyt(opened.f, static_cast<LONGLONG>(total), stream.data(), &status);
      check_status(status, "cannot read the decompressed stream", f.where());
    }
    f.bytes_ = asdfcore::io::Buffer::from_vector(std::move(stream));
  }
  const std::string_view text(reinterpret_cast<const char*>(f.bytes_.data()), f.bytes_.size());
  refuse_other_formats(f.bytes_, path);
  refuse_missing_end(text, path);
  HduLayout layout = walk_hdus(text, path);
  f.hdus_ = std::move(layout.hdus);
  f.headers_ = std::move(layout.headers);
  if (f.container_.empty()) {
    f.plain_fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (f.plain_fd_ < 0) {
      throw Error(ErrorCode::kIo, std::string("cannot open for reading: ") + std::strerror(errno),
                  f.where());
    }
  }
  return f;
}

AloneHdu::~AloneHdu() {
  handles.clear();  // CFITSIO lets go of the memory first
  if (mapping != nullptr) ::munmap(mapping, mapping_size);
}

void AloneHdu::release() const {
  if (mapping == nullptr || mapping_size <= kept) return;
  // Pages never written: dropping them costs a read from the page cache when touched again.
  ::madvise(static_cast<std::uint8_t*>(mapping) + kept, mapping_size - kept, MADV_DONTNEED);
}

fitsfile* AloneHdu::handle(std::size_t t) {
  while (handles.size() <= t) {
    auto h = std::make_unique<Handle>();
    h->memory = data;
    h->size = size;
    int status = 0;
    int type = 0;
    fits_open_memfile(&h->cfitsio.f, "hdu", READONLY, &h->memory, &h->size, 0, nullptr, &status);
    fits_movabs_hdu(h->cfitsio.f, 2, &type, &status);
    check_status(status, "CFITSIO cannot open the HDU", where);
    handles.push_back(std::move(h));
  }
  return handles[t]->cfitsio.f;
}

std::unique_ptr<AloneHdu> FitsFile::open_alone(int index) const {
  const HduExtent& e = hdus_.at(static_cast<std::size_t>(index - 1));
  static constexpr std::string_view kPrimary[] = {"SIMPLE  =                    T",
                                                  "BITPIX  =                    8",
                                                  "NAXIS   =                    0",
                                                  "EXTEND  =                    T", "END"};
  auto alone = std::make_unique<AloneHdu>();
  alone->size = kBlockSize + static_cast<std::size_t>(e.data_end - e.header_start);
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  // Mapped when the plain file holds the HDU whole and a block before it (not the primary HDU).
  if (plain_fd_ >= 0 && e.header_start >= kBlockSize && e.data_end <= bytes_.size() &&
      alone->size >= 16 * page) {
    const std::uint64_t primary_at = e.header_start - kBlockSize;
    const std::uint64_t from = primary_at / page * page;
    const auto lead = static_cast<std::size_t>(primary_at - from);
    const auto length = static_cast<std::size_t>(e.data_end - from);
    void* mapped = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, plain_fd_,
                          static_cast<off_t>(from));
    if (mapped != MAP_FAILED) {
      alone->mapping = mapped;
      alone->mapping_size = length;
      alone->data = static_cast<std::uint8_t*>(mapped) + lead;
      alone->kept = static_cast<std::size_t>((lead + kBlockSize + page - 1) / page * page);
    }
  }
  if (alone->data == nullptr) {
    alone->copy.reserve(alone->size);
    alone->copy.assign(kBlockSize, ' ');
    const std::uint64_t end = std::min<std::uint64_t>(e.data_end, bytes_.size());
    const auto* from = bytes_.data() + e.header_start;
    alone->copy.insert(alone->copy.end(), from, bytes_.data() + end);
    alone->copy.resize(alone->size, 0);
    alone->data = alone->copy.data();
  }
  std::memset(alone->data, ' ', kBlockSize);
  for (std::size_t i = 0; i < std::size(kPrimary); ++i) {
    std::memcpy(alone->data + i * kCardSize, kPrimary[i].data(), kPrimary[i].size());
  }
  alone->where = where(index);
  auto first = std::make_unique<AloneHdu::Handle>();
  first->memory = alone->data;
  first->size = alone->size;
  int status = 0;
  fits_open_memfile(&first->cfitsio.f, "hdu", READONLY, &first->memory, &first->size, 0, nullptr,
                    &status);
  check_status(status, "CFITSIO cannot open the HDU", where(index));
  alone->handles.push_back(std::move(first));
  fitsfile* const opened = alone->handles[0]->cfitsio.f;
  // Before CFITSIO moves to the HDU: a compressed image header can make it divide by 0. The
  // guard counts bytes in the copy; its errors are given the offset in the file.
  try {
    check_extension_headers(opened, where(index));
  } catch (const Error& refused) {
    ErrorContext at = refused.context();
    if (at.offset && *at.offset >= kBlockSize) *at.offset += e.header_start - kBlockSize;
    at.hdu = index;  // the copy's HDU 2
    throw Error(refused.code(), refused.message(), at);
  }
  int type = 0;
  fits_movabs_hdu(opened, 2, &type, &status);
  check_status(status, "CFITSIO cannot read the header", where(index));
  // CFITSIO reads the header on its own terms: where a damaged card reads differently to it (a
  // keyword name with a control character), it can reckon more data than the HDU has here, and
  // its memory driver then reads past the copy's end (ASan: fuzz finding 36). Every later read
  // (descriptors, heap, tiles) lies within the data it reckons, so that must fit the copy.
  LONGLONG head = 0, data = 0, data_end = 0;
  fits_get_hduaddrll(opened, &head, &data, &data_end, &status);
  check_status(status, "CFITSIO cannot locate the HDU's data", where(index));
  if (data_end < 0 || static_cast<std::uint64_t>(data_end) > alone->size) {
    throw Error(ErrorCode::kMalformed,
                "CFITSIO reads this header as declaring " +
                    std::to_string(data_end - data) + " bytes of data, but the HDU has " +
                    std::to_string(e.data_end - e.data_start) +
                    " (a card it reads differently, or a file cut short)",
                where(index));
  }
  return alone;
}

FitsFile::~FitsFile() {
  if (plain_fd_ >= 0) ::close(plain_fd_);
}

FitsFile::FitsFile(FitsFile&& other) noexcept
    : path_(std::move(other.path_)),
      container_(std::move(other.container_)),
      plain_fd_(std::exchange(other.plain_fd_, -1)),
      max_memory_(other.max_memory_),
      hdus_(std::move(other.hdus_)),
      headers_(std::move(other.headers_)),
      bytes_(std::move(other.bytes_)) {}

FitsFile& FitsFile::operator=(FitsFile&& other) noexcept {
  if (this != &other) {
    FitsFile tmp(std::move(other));
    std::swap(path_, tmp.path_);
    std::swap(container_, tmp.container_);
    std::swap(plain_fd_, tmp.plain_fd_);
    std::swap(max_memory_, tmp.max_memory_);
    std::swap(hdus_, tmp.hdus_);
    std::swap(headers_, tmp.headers_);
    std::swap(bytes_, tmp.bytes_);
  }
  return *this;
}

ErrorContext FitsFile::where(int hdu) const {
  ErrorContext c{.file = path_};
  if (hdu > 0) c.hdu = hdu;
  return c;
}

TileReader FitsFile::open_compressed_image(int index) const {
  // As CFITSIO's imcopy does: an image HDU with the compressed image's type and shape, every
  // card whose class is beyond the compression keywords (user keywords, BSCALE/BZERO, ...),
  // and the pixels read with scaling off, so the stored integers come back unchanged.
  int status = 0;
  auto state = std::make_unique<TileReader::State>();
  state->alone = open_alone(index);
  state->where = where(index);
  state->max_memory = max_memory_;
  fitsfile* in = state->alone->handle(0);
  int bitpix = 0;
  int naxis = 0;
  long naxes[999] = {};
  fits_get_img_param(in, 999, &bitpix, &naxis, naxes, &status);
  check_status(status, "cannot read the compressed image's type and shape", where(index));
  int nkeys = 0;
  fits_get_hdrspace(in, &nkeys, nullptr, &status);
  check_status(status, "cannot read the compressed header", where(index));
  const auto item = static_cast<std::uint64_t>(std::abs(bitpix) / 8);

  // ZNAXISn come from the file: their product must be a number of bytes, and one row of tiles
  // must fit the memory limit, before anything is allocated for the pixels (CFITSIO's memory
  // file below grows to the image's size as soon as it is defined: it is given none).
  std::uint64_t count = naxis > 0 ? 1 : 0;
  for (int i = 0; i < naxis; ++i) {
    if (naxes[i] < 0) {
      throw Error(ErrorCode::kMalformed, "ZNAXIS" + std::to_string(i + 1) + " is negative",
                  where(index));
    }
    const auto n = static_cast<std::uint64_t>(naxes[i]);
    if (n != 0 && count > std::numeric_limits<std::uint64_t>::max() / 8 / n) {
      throw Error(ErrorCode::kMalformed,
                  "the decompressed image's ZNAXISn multiply to more bytes than a file can hold",
                  where(index));
    }
    count *= n;
  }
  // Bands of about 1 MiB of slabs one tile high (the tiling CFITSIO parsed; a whole image when
  // it cannot be used): large enough that a band costs little beside its tiles, small enough
  // that a few of them per thread stay far below the image.
  constexpr std::uint64_t kBandBytes = std::uint64_t{1} << 20;
  state->cut = cut_into_bands(*in->Fptr, std::span<const long>(naxes, static_cast<std::size_t>(naxis)),
                              item, kBandBytes);
  // Half the limit for one row of tiles: CFITSIO's buffers for its tiles come on top of it.
  refuse_oversized(state->cut.slab_pixels, item, max_memory_ / 2, "one row of the image's tiles",
                   where(index));
  CfitsioHandle memory;
  create_memory_file(memory, where(index));
  fitsfile* out = memory.f;
  // The image is made with its last axis 0, then given its length: the same cards, without the
  // memory file growing to the image's size (CFITSIO sizes the data area when the HDU is made,
  // and again when it is closed, so the length is set back to 0 below).
  long made[999] = {};
  std::copy(naxes, naxes + naxis, made);
  if (naxis > 0) made[naxis - 1] = 0;
  fits_create_img(out, bitpix, naxis, made, &status);
  const std::string last_axis = "NAXIS" + std::to_string(naxis);
  if (naxis > 0) fits_update_key(out, TLONG, last_axis.c_str(), &naxes[naxis - 1], nullptr, &status);
  char card[FLEN_CARD];
  for (int k = 1; k <= nkeys && status == 0; ++k) {
    fits_read_record(in, k, card, &status);
    if (status == 0 && fits_get_keyclass(card) > TYP_CMPRS_KEY)
      fits_write_record(out, card, &status);
  }
  check_status(status, "cannot copy the compressed image's keywords", where(index));
  // The header is CFITSIO's records for the image, then END, padded with blanks (written
  // through the memory file, the data area would be zero-filled for nothing).
  state->header = header_records(out, "decompressed image", where(index)) + "END";
  state->header.resize((state->header.size() + kBlockSize - 1) / kBlockSize * kBlockSize, ' ');
  if (naxis > 0) fits_update_key(out, TLONG, last_axis.c_str(), &made[naxis - 1], nullptr, &status);
  check_status(status, "cannot close the decompressed image's header", where(index));

  state->bitpix = bitpix;
  state->plain = plain_tiles(*in->Fptr, bitpix);
  return TileReader(std::move(state));
}

asdfcore::io::Buffer FitsFile::decompress_image(int index) const {
  TileReader image = open_compressed_image(index);
  const std::string& header = image.header();
  const std::uint64_t data = image.data_size();
  // The whole image in memory: half the limit, kept from when CFITSIO's memory file held a
  // second copy (the conversion's own copies, physical scaling's floats, come on top of it).
  refuse_oversized(data, 1, max_memory_ / 2, "the decompressed image", where(index));
  const std::uint64_t padded = (data + kBlockSize - 1) / kBlockSize * kBlockSize;
  asdfcore::io::WritableBuffer hdu =
      asdfcore::io::Buffer::allocate(header.size() + static_cast<std::size_t>(padded));
  std::memcpy(hdu.bytes.data(), header.data(), header.size());
  std::uint8_t* pixels = hdu.bytes.data() + header.size();
  image.read_all(std::span(pixels, static_cast<std::size_t>(data)));
  std::memset(pixels + data, 0, static_cast<std::size_t>(padded - data));
  return std::move(hdu.buffer);
}

std::vector<std::uint8_t> FitsFile::decompress_table(int index,
                                                     std::vector<int>* relabelled) const {
  int status = 0;
  const auto alone = open_alone(index);
  fitsfile* in = alone->handle(0);
  // The table CFITSIO builds in memory has ZNAXIS1 x ZNAXIS2 bytes of rows plus ZPCOUNT of heap.
  LONGLONG row = 0, rows = 0, heap = 0;
  fits_read_key(in, TLONGLONG, "ZNAXIS1", &row, nullptr, &status);
  fits_read_key(in, TLONGLONG, "ZNAXIS2", &rows, nullptr, &status);
  check_status(status, "cannot read the compressed table's ZNAXIS1 and ZNAXIS2", where(index));
  fits_read_key(in, TLONGLONG, "ZPCOUNT", &heap, nullptr, &status);
  if (status == KEY_NO_EXIST) {
    status = 0;
    fits_clear_errmsg();
  }
  check_status(status, "cannot read the compressed table's ZPCOUNT", where(index));
  if (row < 0 || rows < 0 || heap < 0) {
    throw Error(ErrorCode::kMalformed, "ZNAXIS1, ZNAXIS2 or ZPCOUNT is negative", where(index));
  }
  refuse_oversized(static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(row), max_memory_,
                   "the decompressed table's rows", where(index));
  refuse_oversized(static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(row) +
                       static_cast<std::uint64_t>(heap),
                   1, max_memory_, "the decompressed table", where(index));
  // CFITSIO's own GZIP_2 columns it cannot read back are read from a copy that calls them
  // GZIP_1, which is how they are stored (fpack's C columns).
  fitsfile* source = in;
  CfitsioHandle copy;
  if (const std::vector<int> plain = gzip2_columns_stored_plain(in); !plain.empty()) {
    create_memory_file(copy, where(index));
    fits_copy_hdu(in, copy.f, 0, &status);
    for (const int n : plain) {
      char gzip1[] = "GZIP_1";
      fits_update_key(copy.f, TSTRING, ("ZCTYP" + std::to_string(n)).c_str(), gzip1, nullptr,
                      &status);
    }
    check_status(status, "cannot copy the compressed table to relabel its GZIP_2 columns",
                 where(index));
    source = copy.f;
    if (relabelled != nullptr) *relabelled = plain;
  }
  // CFITSIO mishandles damaged gzip and Rice tiles.
  check_table_tiles(source, max_memory_, where(index));
  CfitsioHandle out;
  create_memory_file(out, where(index));
  fits_uncompress_table(source, out.f, &status);
  check_status(status, "CFITSIO cannot decompress the tile-compressed table", where(index));
  fits_flush_file(out.f, &status);
  check_status(status, "cannot write the decompressed table", where(index));
  return current_hdu_bytes(out.f, "decompressed table", where(index));
}

}  // namespace fitsasdf::fits
