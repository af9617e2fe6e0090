#include "fits/tile_guard.h"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "fits/cfitsio.h"
#include "fits/fits_file.h"
#include "fits/hcompress_guard.h"
#include "fits/plio_guard.h"
#include "fits/rice_guard.h"

namespace fitsasdf::fits {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;

/// Read a keyword of the current HDU as a long, or `fallback` when it is absent or unreadable.
long read_long(fitsfile* in, const char* keyword, long fallback) {
  int status = 0;
  long value = fallback;
  fits_read_key(in, TLONG, keyword, &value, nullptr, &status);
  if (status != 0) {
    fits_clear_errmsg();
    return fallback;
  }
  return value;
}

/// The decoder CFITSIO uses for the COMPRESSED_DATA column.
enum class Decoder { kRice, kGzip, kHcompress, kPlio, kUnchecked };

/// The `length` bytes at `offset` in the heap of `in`'s current HDU, as stored (a column's TSCALn
/// and TZEROn, kept on a compressed table's columns, do not apply to them). Throws (`what`, then
/// why) when they lie outside the file or CFITSIO cannot read them. Without `want_bytes`, only
/// checks that they lie inside the file (`bytes` is left as it is).
void read_heap_bytes(fitsfile* in, LONGLONG offset, LONGLONG length,
                     std::vector<std::uint8_t>& bytes, const std::string& what,
                     const asdfcore::ErrorContext& where, bool want_bytes = true) {
  int status = 0;
  LONGLONG head = 0, data = 0, end = 0;
  fits_get_hduaddrll(in, &head, &data, &end, &status);
  const LONGLONG size = in->Fptr->logfilesize;
  const LONGLONG heap = in->Fptr->heapstart;
  if (status == 0 && (offset < 0 || length < 0 || length > size || heap < 0 || offset > size ||
                      heap > size || data + heap + offset > size - length)) {
    throw Error(ErrorCode::kTruncated, what + ": its bytes lie past the end of the file", where);
  }
  if (!want_bytes) return;
  bytes.resize(static_cast<std::size_t>(length));
  ffmbyt(in, data + heap + offset, 0 /* report EOF */, &status);
  ffgbyt(in, length, bytes.data(), &status);
  check_status(status, what, where);
}

/// The bytes of the tile in row `row` of `column` (only its length when not `want_bytes`): empty
/// when its descriptor says none (the tile is in another column). Throws when CFITSIO cannot
/// read the descriptor or the bytes, or when the descriptor declares more bytes than the file. A
/// tile that cannot be read here is refused, not left to CFITSIO: its reads of a damaged file
/// depend on what its buffers already hold, so the decompression that follows may read the same
/// tile without an error, and then decode bytes this guard never saw.
void read_tile(fitsfile* in, int column, long row, bool want_bytes,
               std::vector<std::uint8_t>& bytes, const asdfcore::ErrorContext& where,
               const char* what = "image") {
  int status = 0;
  LONGLONG length = 0, offset = 0;
  fits_read_descriptll(in, column, row, &length, &offset, &status);
  check_status(
      status,
      "cannot read the descriptor of tile " + std::to_string(row) + " of the compressed " + what,
      where);
  bytes.clear();
  if (length <= 0) return;
  if (length > in->Fptr->logfilesize) {  // CFITSIO would allocate it before reading
    throw Error(ErrorCode::kMalformed,
                "tile " + std::to_string(row) + " of the compressed " + what + " declares " +
                    std::to_string(length) + " bytes, more than the whole file",
                where);
  }
  if (!want_bytes) {
    bytes.assign(1, 0);  // not empty: the tile is in this column
    return;
  }
  read_heap_bytes(in, offset, length, bytes,
                  "cannot read tile " + std::to_string(row) + " of the compressed " + what, where);
}

}  // namespace

std::optional<std::string> gzip_tile_problem(std::span<const std::uint8_t> tile,
                                             std::uint64_t limit,
                                             std::vector<std::uint8_t>* inflated) {
  if (inflated != nullptr) inflated->clear();
  // A sound tile (nearly all of them) is inflated whole by libdeflate, 2-3 times as fast as zlib
  // streams it; one it does not take is decoded again by zlib below to say what is wrong.
  // At most 4 MiB, kept by each thread for the next tile; larger tiles go to zlib only.
  constexpr std::uint64_t kWhole = std::uint64_t{4} << 20;
  if (limit <= kWhole) {
    struct Inflater {
      libdeflate_decompressor* d = libdeflate_alloc_decompressor();
      std::vector<unsigned char> out;
      ~Inflater() { libdeflate_free_decompressor(d); }
    };
    thread_local Inflater inflater;
    if (inflater.d != nullptr) {
      if (inflater.out.size() < limit) inflater.out.resize(static_cast<std::size_t>(limit));
      std::size_t in_used = 0, out_used = 0;
      if (libdeflate_gzip_decompress_ex(inflater.d, tile.data(), tile.size(), inflater.out.data(),
                                        static_cast<std::size_t>(limit), &in_used,
                                        &out_used) == LIBDEFLATE_SUCCESS) {
        if (inflated != nullptr) {
          inflated->assign(inflater.out.begin(),
                           inflater.out.begin() + static_cast<std::ptrdiff_t>(out_used));
        }
        return std::nullopt;
      }
    }
  }
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return std::string("zlib cannot start inflating");
  std::array<unsigned char, 64 * 1024> scratch{};
  std::optional<std::string> problem;
  std::size_t consumed = 0;
  while (!problem) {
    if (z.avail_in == 0 && consumed < tile.size()) {
      const std::size_t piece = std::min<std::size_t>(tile.size() - consumed, 1u << 30);
      z.next_in = const_cast<unsigned char*>(tile.data() + consumed);
      z.avail_in = static_cast<uInt>(piece);
      consumed += piece;
    }
    z.next_out = scratch.data();
    z.avail_out = static_cast<uInt>(scratch.size());
    const int rc = inflate(&z, Z_NO_FLUSH);
    if (inflated != nullptr && z.total_out <= limit) {
      inflated->insert(inflated->end(), scratch.data(), z.next_out);
    }
    if (z.total_out > limit) {
      problem = "it inflates past the " + std::to_string(limit) + " bytes its tile can hold";
    } else if (rc == Z_STREAM_END) {
      break;
    } else if (rc == Z_BUF_ERROR ||
               (rc == Z_OK && z.avail_in == 0 && consumed == tile.size() && z.avail_out != 0)) {
      problem = "its " + std::to_string(tile.size()) +
                " bytes end before its gzip stream does (the tile is cut short)";
    } else if (rc != Z_OK) {
      problem = std::string("zlib reports it damaged (") + (z.msg ? z.msg : "no message") + ")";
    }
  }
  inflateEnd(&z);
  return problem;
}

void check_image_tiles(fitsfile* in, const asdfcore::ErrorContext& where, long first_row,
                       long last_row) {
  // The parameters CFITSIO decodes with are the ones it parsed when it moved to the HDU
  // (imcomp_get_compressed_image_par), kept in its FITSfile: they are taken from there, not read
  // from the cards again. CFITSIO looks a keyword up from the card where its last look-up ended,
  // so a header with two ZNAXIS or ZVAL1 cards can read one way to a second reader and another
  // way to CFITSIO (fuzz finding 21: this guard saw ZNAXIS = 32 and let the image through, while
  // CFITSIO read 2 and allocated a PLIO tile of 2.6 GB from its descriptor).
  const FITSfile& state = *in->Fptr;
  if (state.compressimg != 1) return;  // CFITSIO does not read the HDU as a compressed image
  const std::string algorithm = state.zcmptype;
  Decoder decoder = Decoder::kUnchecked;
  if (state.compress_type == RICE_1) decoder = Decoder::kRice;
  if (state.compress_type == GZIP_1 || state.compress_type == GZIP_2) decoder = Decoder::kGzip;
  if (state.compress_type == HCOMPRESS_1) decoder = Decoder::kHcompress;
  if (state.compress_type == PLIO_1) decoder = Decoder::kPlio;
  // Rice's block size and bytes per pixel, already swapped back when an old writer put them the
  // other way round.
  const int nblock = state.rice_blocksize;
  const int bytepix = state.rice_bytepix;
  if (decoder == Decoder::kRice && nblock <= 0) {
    // CFITSIO's decoder would never advance, reading codes past the tile.
    throw Error(ErrorCode::kMalformed,
                "the RICE_1-compressed image declares a block size of " + std::to_string(nblock) +
                    " pixels",
                where);
  }
  // A dithered float image takes tile n's offsets from CFITSIO's table of 10,000 random values,
  // starting at entry (n + ZDITHER0 - 2) mod 10,000 of it, in int arithmetic: a ZDITHER0 below 1
  // makes that index negative (values read from before the table), one near 2^31 overflows it
  // (SIGSEGV). The convention allows 1 to 10,000.
  const bool dithered = state.quantize_method == SUBTRACTIVE_DITHER_1 ||
                        state.quantize_method == SUBTRACTIVE_DITHER_2;
  if (state.zbitpix < 0 && dithered && (state.dither_seed < 1 || state.dither_seed > 10000)) {
    throw Error(ErrorCode::kMalformed,
                "the dithered float image's ZDITHER0 = " + std::to_string(state.dither_seed) +
                    " is outside 1 to 10000",
                where);
  }
  const int naxis = state.zndim;
  if (naxis < 1 || naxis > MAX_COMPRESS_DIM) return;  // CFITSIO refuses these itself
  std::vector<long> axes(static_cast<std::size_t>(naxis));
  std::vector<long> tiles(static_cast<std::size_t>(naxis));
  for (int k = 0; k < naxis; ++k) {
    axes[k] = state.znaxis[k];
    tiles[k] = state.tilesize[k];
    if (axes[k] <= 0 || tiles[k] <= 0) return;  // no pixels to decode
  }
  const int compressed = state.cn_compressed;
  const int gzip_column = state.cn_gzip_data > 0 ? state.cn_gzip_data : 0;
  const int raw_column = state.cn_uncompressed > 0 ? state.cn_uncompressed : 0;
  int status = 0;
  long rows = 0;
  fits_get_num_rows(in, &rows, &status);
  if (status != 0) {
    fits_clear_errmsg();
    return;
  }
  // Each row is one tile, in FITS order (first axis fastest); its pixels are the tile's extent
  // clipped at the image's edge. The walk starts at `first_row`'s tile.
  std::vector<long> index(static_cast<std::size_t>(naxis), 0);
  first_row = std::max(first_row, 1L);
  if (last_row > 0) rows = std::min(rows, last_row);
  {
    long rest = first_row - 1;
    for (long k = 0; k < naxis && rest > 0; ++k) {
      const long across = (axes[k] - 1) / tiles[k] + 1;  // tiles along axis k
      index[k] = rest % across;
      rest /= across;
      if (k == naxis - 1 && rest > 0) return;  // past the last tile: leave it to CFITSIO
    }
  }
  std::vector<std::uint8_t> bytes;
  std::vector<std::int16_t> words;
  const auto refuse = [&](long row, const std::string& what) {
    throw Error(ErrorCode::kCompression,
                "tile " + std::to_string(row) + " of the " + algorithm +
                    "-compressed image is damaged: " + what,
                where);
  };
  for (long row = first_row; row <= rows; ++row) {
    std::uint64_t nx = 1;
    for (long k = 0; k < naxis; ++k) {
      const long start = index[k] * tiles[k];
      if (start >= axes[k]) return;  // more rows than tiles: leave it to CFITSIO
      nx *= static_cast<std::uint64_t>(std::min(tiles[k], axes[k] - start));
    }
    for (long k = 0; k < naxis; ++k) {  // the next tile
      if (static_cast<long>(++index[k]) * tiles[k] < axes[k]) break;
      index[k] = 0;
    }
    // No pixel is wider than 8 bytes, in any column.
    const std::uint64_t most = nx * 8;
    // PLIO_1 keeps 16-bit integers in its column: they are read below as CFITSIO reads them.
    read_tile(in, compressed, row, decoder != Decoder::kUnchecked && decoder != Decoder::kPlio,
              bytes, where);
    if (!bytes.empty()) {
      if (decoder == Decoder::kPlio) {
        LONGLONG length = 0, offset = 0;
        fits_read_descriptll(in, compressed, row, &length, &offset, &status);
        words.resize(static_cast<std::size_t>(length));
        short null_value = 0;  // CFITSIO's, should the column have a TNULLn
        fits_read_col(in, TSHORT, compressed, row, 1, length, &null_value, words.data(), nullptr,
                      &status);
        check_status(status, "cannot read tile " + std::to_string(row) + " of the compressed image",
                     where);
        if (const auto problem = plio_tile_problem(words, nx)) refuse(row, *problem);
      }
      if (decoder == Decoder::kRice && !rice_tile_in_bounds(bytes, nx, nblock, bytepix)) {
        refuse(row, "decoding it would read past its " + std::to_string(bytes.size()) + " bytes");
      }
      if (decoder == Decoder::kGzip) {
        if (const auto problem = gzip_tile_problem(bytes, most)) refuse(row, *problem);
      }
      if (decoder == Decoder::kHcompress) {
        if (const auto problem = hcompress_tile_problem(bytes, nx)) refuse(row, *problem);
      }
      continue;
    }
    // A tile CFITSIO could not compress with the algorithm: kept as it is in UNCOMPRESSED_DATA
    // (fpack until 2011), which CFITSIO looks in first, or gzipped in GZIP_COMPRESSED_DATA (a
    // float tile kept without loss).
    if (raw_column != 0) {
      // CFITSIO reads as many values as the descriptor says into its buffer for the tile's
      // pixels: more overran it (SIGSEGV, glibc aborting), fewer left pixels unset.
      LONGLONG count = 0, offset = 0;
      fits_read_descriptll(in, raw_column, row, &count, &offset, &status);
      check_status(status,
                   "cannot read the UNCOMPRESSED_DATA descriptor of tile " + std::to_string(row) +
                       " of the compressed image",
                   where);
      if (count < 0 || static_cast<std::uint64_t>(count) != nx) {
        refuse(row, "its UNCOMPRESSED_DATA holds " + std::to_string(count) + " values for its " +
                        std::to_string(nx) + " pixels");
      }
      continue;
    }
    if (gzip_column == 0) continue;
    read_tile(in, gzip_column, row, true, bytes, where);
    if (!bytes.empty()) {
      if (const auto problem = gzip_tile_problem(bytes, most)) {
        refuse(row, "its GZIP_COMPRESSED_DATA " + *problem);
      }
    }
  }
}

namespace {

/// One column of a compressed table as its ZFORMn declares it: CFITSIO's type code, repeat and
/// element width, and the bytes it takes in a row.
struct ColumnForm {
  int type = 0;
  long repeat = 0;
  long width = 0;
  std::uint64_t row_bytes = 0;
  char code = 0;  // the character after the repeat count, which picks CFITSIO's decoder
};

/// The columns' forms (ZFORM1 to ZFORM`columns`). CFITSIO's fits_uncompress_table sizes its
/// buffers by ZNAXIS1 bytes a row, but lays the columns out by their ZFORMn (each row's fields
/// one after another, with TFORM's widths: a bit column its bytes, a variable-length one its 8-
/// or 16-byte descriptor). Columns wider than ZNAXIS1 make it write past the buffers (fuzz
/// finding 26: ZFORM4 = '1C' for 'I'); narrower ones put every row after the first in the wrong
/// place. Refuses a table whose columns do not take exactly ZNAXIS1 bytes, one with a ZFORMn
/// missing or unparsable, and one with a column CFITSIO 4.2 cannot lay out (below). Empty when
/// ZNAXIS1 cannot be read (CFITSIO refuses such a table).
std::vector<ColumnForm> column_forms(fitsfile* in, long columns,
                                     const asdfcore::ErrorContext& where) {
  constexpr long kUnread = std::numeric_limits<long>::min();
  const long row_width = read_long(in, "ZNAXIS1", kUnread);
  if (row_width == kUnread) return {};
  const auto too_wide = [&](const std::string& what) {
    throw Error(ErrorCode::kMalformed,
                "the compressed table's columns (ZFORMn) " + what + ", but its rows are " +
                    std::to_string(row_width) + " bytes wide (ZNAXIS1)",
                where);
  };
  std::vector<ColumnForm> forms;
  std::uint64_t sum = 0;
  for (long n = 1; n <= columns; ++n) {
    int status = 0;
    char form[FLEN_VALUE] = {};
    fits_read_key(in, TSTRING, ("ZFORM" + std::to_string(n)).c_str(), form, nullptr, &status);
    ColumnForm c;
    fits_binary_tform(form, &c.type, &c.repeat, &c.width, &status);
    if (status != 0 || c.repeat < 0) {
      // CFITSIO 4.2 does not stop there: a missing ZFORMn leaves the previous column's form in
      // its buffer, and the rows grow past ZNAXIS1 all the same (finding 27: ZFORM4 -> ZFORM8).
      fits_clear_errmsg();
      throw Error(ErrorCode::kMalformed,
                  "the compressed table's ZFORM" + std::to_string(n) +
                      " is missing or not a binary table column format ('" + form + "')",
                  where);
    }
    const char* letter = form;
    while (*letter >= '0' && *letter <= '9') ++letter;
    c.code = *letter;
    // CFITSIO 4.2 sizes a variable-length column's descriptors only when its type is neither A
    // nor X, and keeps type codes in a char, where M's 163 does not fit: it takes a fixed M
    // column for a variable-length one and a variable-length one for a fixed one. It lays those
    // columns out with widths other than their rows' and writes past its buffers (fpack's own
    // tables with a PA, QA, PM or QM column: glibc aborts funpack too), or, for a fixed M column,
    // reads the compressed arrays' sizes and places from memory it never set.
    if (c.type == TDBLCOMPLEX || c.type == -TDBLCOMPLEX || c.type == -TSTRING || c.type == -TBIT) {
      throw Error(ErrorCode::kCompression,
                  "CFITSIO 4.2 cannot decompress a compressed table with column " +
                      std::to_string(n) + " of ZFORM" + std::to_string(n) + " = '" + form +
                      "' (an M column, or a variable-length A or X one): it would write past "
                      "its buffers or read memory it never set",
                  where);
    }
    if (c.type == TBIT) {
      c.row_bytes = (static_cast<std::uint64_t>(c.repeat) + 7) / 8;
    } else {
      std::uint64_t each = static_cast<std::uint64_t>(c.width);
      if (c.type == TSTRING) each = 1;
      if (c.type < 0) each = c.code == 'P' ? 8 : 16;  // a descriptor
      if (__builtin_mul_overflow(static_cast<std::uint64_t>(c.repeat), each, &c.row_bytes)) {
        too_wide("take more than 2^64 bytes a row");
      }
    }
    if (__builtin_add_overflow(sum, c.row_bytes, &sum)) too_wide("take more than 2^64 bytes a row");
    if (row_width < 0 || sum > static_cast<std::uint64_t>(row_width)) {
      too_wide("1 to " + std::to_string(n) + " take " + std::to_string(sum) + " bytes a row");
    }
    forms.push_back(c);
  }
  if (sum != static_cast<std::uint64_t>(row_width)) {
    too_wide("take " + std::to_string(sum) + " bytes a row");
  }
  return forms;
}

/// Column `n`'s algorithm (ZCTYPn) as fits_uncompress_table takes it: GZIP_2 when it is missing.
std::string column_algorithm(fitsfile* in, long n) {
  int status = 0;
  char algorithm[FLEN_VALUE] = {};
  fits_read_key(in, TSTRING, ("ZCTYP" + std::to_string(n)).c_str(), algorithm, nullptr, &status);
  if (status == 0) return algorithm;
  fits_clear_errmsg();
  return "GZIP_2";
}

/// A signed big-endian integer of `bytes` (4 or 8) bytes at `p`: a descriptor as CFITSIO's
/// decoded column holds it, before CFITSIO swaps it to the host's order.
std::int64_t read_be(const std::uint8_t* p, std::size_t bytes) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  if (bytes == 4) return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
  return static_cast<std::int64_t>(v);
}

/// The variable-length arrays of one tile of a compressed table's variable-length column, from
/// the tile as it inflated (`block`, `rows` rows). CFITSIO's fits_uncompress_table reads there,
/// for each row, the uncompressed table's descriptor (P: two 32-bit integers, Q, or a 2P column:
/// two 64-bit ones; the array's length in elements and its offset in the heap), and after all of
/// those a 64-bit pair a row for the compressed array (its bytes and their offset in this
/// table's heap). It then allocates both sizes, reads the compressed array, decodes it (RICE_1,
/// or inflates it into a buffer it grows as the stream asks) and writes it at its offset in the
/// decompressed table, trusting every one of those numbers. Refuses an array outside either
/// heap (CFITSIO allocated, or wrote into the table in memory, gigabytes for a forged one), and
/// one that its decoder would read past or that does not decode to its declared length.
void check_variable_arrays(fitsfile* in, const ColumnForm& c, bool rice,
                           std::span<const std::uint8_t> block, std::uint64_t rows,
                           std::uint64_t first_row, std::uint64_t heap_size, long column,
                           const asdfcore::ErrorContext& where) {
  const std::size_t pointer = static_cast<std::size_t>(c.row_bytes);  // 8 or 16
  // CFITSIO's bytes an element: its type code over ten (2 for I, 8 for D and C; column_forms
  // refuses A, X and M).
  const std::uint64_t element = static_cast<std::uint64_t>(-c.type) / 10;
  std::vector<std::uint8_t> packed;
  std::vector<std::uint8_t> inflated;
  for (std::uint64_t r = 0; r < rows; ++r) {
    const std::uint8_t* p = block.data() + r * pointer;
    const std::int64_t length = read_be(p, pointer / 2);
    const std::int64_t start = read_be(p + pointer / 2, pointer / 2);
    const std::uint8_t* q = block.data() + rows * pointer + r * 16;
    const std::int64_t packed_bytes = read_be(q, 8);
    const std::int64_t packed_at = read_be(q + 8, 8);
    if (packed_bytes <= 0) continue;  // CFITSIO writes nothing for this row
    const std::string row = "row " + std::to_string(first_row + r + 1) +
                            " of the compressed table's variable-length column " +
                            std::to_string(column);
    std::uint64_t size = 0;
    if (length < 0 || start < 0 ||
        __builtin_mul_overflow(static_cast<std::uint64_t>(length), element, &size) ||
        size > heap_size || static_cast<std::uint64_t>(start) > heap_size - size) {
      throw Error(ErrorCode::kMalformed,
                  row + " declares an array of " + std::to_string(length) + " elements at byte " +
                      std::to_string(start) + ", outside the table's heap of " +
                      std::to_string(heap_size) + " bytes (ZPCOUNT)",
                  where);
    }
    // An array stored as it is (as long as its descriptor says) CFITSIO copies: not read here.
    const bool stored = static_cast<std::uint64_t>(packed_bytes) == size;
    read_heap_bytes(in, packed_at, packed_bytes, packed,
                    "cannot read the compressed array of " + row, where, !stored);
    if (stored) continue;
    const auto refuse = [&](const std::string& what) {
      throw Error(ErrorCode::kCompression, row + " is damaged: " + what, where);
    };
    if (rice) {
      const int width = c.type == -TSHORT ? 2 : c.type == -TLONG ? 4 : c.type == -TBYTE ? 1 : 0;
      if (width == 0) continue;  // CFITSIO refuses a Rice array of another type
      if (length > std::numeric_limits<int>::max()) {
        refuse("its " + std::to_string(length) + " elements are more than CFITSIO's decoder takes");
      }
      if (!rice_tile_in_bounds(packed, static_cast<std::uint64_t>(length), 32, width)) {
        refuse("decoding its RICE_1 array would read past its " + std::to_string(packed.size()) +
               " bytes");
      }
    } else {
      if (const auto problem = gzip_tile_problem(packed, size, &inflated)) refuse(*problem);
      if (inflated.size() != size) {
        refuse("its array inflates to " + std::to_string(inflated.size()) + " bytes, not the " +
               std::to_string(size) + " its descriptor declares");
      }
    }
  }
}

}  // namespace

void check_table_tiles(fitsfile* in, std::uint64_t max_memory,
                       const asdfcore::ErrorContext& where) {
  const long columns = read_long(in, "TFIELDS", -1);
  const long rows = read_long(in, "ZNAXIS2", -1);
  constexpr long kUnread = std::numeric_limits<long>::min();  // CFITSIO refuses the table itself
  const long tile_rows = read_long(in, "ZTILELEN", kUnread);
  const long heap_size = read_long(in, "ZPCOUNT", -1);
  long tiles = 0;
  int status = 0;
  fits_get_num_rows(in, &tiles, &status);
  if (status != 0 || columns < 1 || columns > 999 || rows < 0 || tile_rows == kUnread ||
      heap_size < 0) {
    fits_clear_errmsg();
    return;
  }
  // CFITSIO's fits_uncompress_table visits ZNAXIS2 / ZTILELEN tiles (ZTILELEN clipped to
  // ZNAXIS2) whatever the table's row count, and decodes each one even when its descriptor
  // cannot be read: from a buffer of a size it never set (a table with fewer rows than tiles).
  // With ZTILELEN = 0 it frees its buffers twice.
  if (rows > 0 && tile_rows < 1) {
    throw Error(ErrorCode::kMalformed,
                "the compressed table's ZTILELEN = " + std::to_string(tile_rows) +
                    ": its tiles hold no rows",
                where);
  }
  const long needed =
      rows == 0 ? 0 : (rows + std::min(tile_rows, rows) - 1) / std::min(tile_rows, rows);
  if (tiles < needed) {
    throw Error(ErrorCode::kMalformed,
                "the compressed table has " + std::to_string(tiles) + " rows of tiles, but its " +
                    std::to_string(rows) + " rows (ZNAXIS2) in tiles of " +
                    std::to_string(tile_rows) + " (ZTILELEN) need " + std::to_string(needed),
                where);
  }
  const std::vector<ColumnForm> forms = column_forms(in, columns, where);
  // CFITSIO lays each tile out column by column in one buffer of ZNAXIS1 bytes a row plus a
  // 16-byte pair a row for every variable-length column (the table's memory check counts
  // ZNAXIS1 alone): a table of narrow rows with such columns asks for up to three times that.
  std::uint64_t column_major = 0;
  for (const ColumnForm& c : forms) column_major += c.row_bytes + (c.type < 0 ? 16 : 0);
  const auto tile_length = static_cast<std::uint64_t>(std::min(tile_rows, rows));
  if (rows > 0 && column_major != 0 && tile_length > max_memory / column_major) {
    throw Error(ErrorCode::kLimit,
                "a tile of the compressed table (" + std::to_string(tile_length) + " rows of " +
                    std::to_string(column_major) +
                    " bytes as CFITSIO lays it out) is larger than the memory limit of " +
                    std::to_string(max_memory) + " (raise --max-memory to read it)",
                where);
  }
  std::vector<std::uint8_t> bytes;
  std::vector<std::uint8_t> inflated;
  for (std::size_t i = 0; i < forms.size(); ++i) {
    const ColumnForm& c = forms[i];
    if (c.repeat == 0) continue;  // CFITSIO reads no tile of an empty column
    const long n = static_cast<long>(i) + 1;
    const std::string number = std::to_string(n);
    // CFITSIO refuses the table at any other name.
    const std::string name = column_algorithm(in, n);
    if (name != "GZIP_1" && name != "GZIP_2" && name != "RICE_1") continue;
    // CFITSIO picks the decoder by the ZFORMn letter: RICE_1 decodes I, J and B columns only;
    // every other column, a variable-length one's descriptors included, it inflates (whatever
    // ZCTYPn says), into its buffer for the whole tile at the column's place.
    const bool vla = c.type < 0;
    const int rice_width = name != "RICE_1" ? 0
                           : c.code == 'I'  ? 2
                           : c.code == 'J'  ? 4
                           : c.code == 'B'  ? 1
                                            : 0;
    // A variable-length column's tile holds its descriptors and a 16-byte pair a row more.
    const std::uint64_t per_row = c.row_bytes + (vla ? 16 : 0);
    for (long t = 1; t <= tiles; ++t) {
      const long first = (t - 1) * tile_rows;
      if (first >= rows) break;  // more rows than tiles: leave it to CFITSIO
      const auto in_tile = static_cast<std::uint64_t>(std::min(tile_rows, rows - first));
      read_tile(in, static_cast<int>(n), t, true, bytes, where, "table");
      const auto refuse = [&](const std::string& what) {
        throw Error(ErrorCode::kCompression,
                    "tile " + std::to_string(t) + " of column " + number + " of the " + name +
                        "-compressed table is damaged: " + what,
                    where);
      };
      if (bytes.empty()) {
        // CFITSIO decodes the empty stream all the same (a Rice decoder reading nothing, an
        // inflate asking for more room).
        if (in_tile * per_row != 0) {
          refuse("its descriptor gives no bytes for the " + std::to_string(in_tile * per_row) +
                 " bytes of its rows");
        }
        continue;
      }
      if (rice_width != 0) {
        if (!rice_tile_in_bounds(bytes, in_tile * static_cast<std::uint64_t>(c.repeat), 32,
                                 rice_width)) {
          refuse("decoding it would read past its " + std::to_string(bytes.size()) + " bytes");
        }
        continue;
      }
      // CFITSIO reallocates its buffer, a pointer inside a larger allocation (glibc aborts), when
      // the stream wants more room; a shorter one leaves part of the rows as the buffer held them.
      const std::uint64_t expected = in_tile * per_row;
      if (const auto problem = gzip_tile_problem(bytes, expected, &inflated)) refuse(*problem);
      if (inflated.size() != expected) {
        refuse("it inflates to " + std::to_string(inflated.size()) + " bytes, not the " +
               std::to_string(expected) + " of its rows");
      }
      // CFITSIO refuses descriptors of other widths itself.
      if (vla && (c.row_bytes == 8 || c.row_bytes == 16)) {
        check_variable_arrays(in, c, name == "RICE_1", inflated, in_tile,
                              static_cast<std::uint64_t>(first),
                              static_cast<std::uint64_t>(heap_size), n, where);
      }
    }
  }
}

std::vector<int> gzip2_columns_stored_plain(fitsfile* in) {
  std::vector<int> found;
  const long columns = read_long(in, "TFIELDS", -1);
  if (columns < 1 || columns > 999) return found;
  std::vector<ColumnForm> forms;
  try {
    forms = column_forms(in, columns, asdfcore::ErrorContext{});
  } catch (const Error&) {
    return found;  // check_table_tiles refuses the table with its reason
  }
  for (std::size_t i = 0; i < forms.size(); ++i) {
    const ColumnForm& c = forms[i];
    // CFITSIO's shuffle covers the 2-, 4- and 8-byte numbers; its compressor writes every other
    // fixed column under GZIP_2 as it stands. A variable-length column's arrays have their own
    // path, and an empty column has no tile.
    if (c.type < 0 || c.repeat == 0 || std::strchr("IJEDK", c.code) != nullptr) continue;
    const long n = static_cast<long>(i) + 1;
    if (column_algorithm(in, n) == "GZIP_2") found.push_back(static_cast<int>(n));
  }
  return found;
}

}  // namespace fitsasdf::fits
