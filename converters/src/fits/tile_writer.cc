#include "fits/tile_writer.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "asdfcore/ndarray/dtype.h"
#include "fits/cfitsio.h"
#include "fits/fits_file.h"
#include "fits/tile_bands.h"
#include "fits/tile_compress_detail.h"

namespace fitsasdf::fits {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ErrorContext;

void BandedImage::write_data(const ByteSink& out) const {
  if (!rows.empty()) out(rows);
  heap.read_all(out);
}

namespace {

/// What one band's CFITSIO file gave: its rows of the table, its heap (descriptors relative to
/// it), the header's records, and the file itself for band 0 (whose header becomes the HDU's).
struct BandResult {
  std::vector<std::uint8_t> rows;
  std::vector<std::uint8_t> heap;
  std::string records;
  std::string plio_problem;  // PLIO_1 cannot hold a value of the band: nothing else is set
  std::unique_ptr<CfitsioHandle> file;
};

/// Thrown by `attempt` when PLIO_1 cannot hold a value: the image is compressed again with
/// RICE_1.
struct PlioOutOfRange {
  std::string problem;
};

/// A variable-length column of the compressed table: where its descriptor sits in a row.
struct ArrayColumn {
  int number = 0;        // 1-based
  std::string tform;     // without "(max)"
  std::size_t offset = 0;
  bool wide = false;     // 'Q': two 64-bit integers; 'P': two 32-bit ones
  std::uint64_t max_length = 0;
};

std::uint64_t get_big_endian(const std::uint8_t* p, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

void put_big_endian(std::uint8_t* p, std::size_t n, std::uint64_t v) {
  for (std::size_t i = n; i-- > 0; v >>= 8) p[i] = static_cast<std::uint8_t>(v);
}

/// Make CFITSIO close the band's file `file` without completing its HDU: with a heap, closing
/// reads every row's descriptors (the whole image's table, for each band) to set TFORMn and
/// PCOUNT, work for nothing in a file that is thrown away.
void forget_heap(CfitsioHandle& file) {
  int status = 0;
  fits_modify_key_lng(file.f, "NAXIS2", 0, "&", &status);
}

/// Everything a band needs to be compressed on its own.
struct Job {
  int bitpix;
  const std::vector<long>& naxes;
  const std::vector<std::string>& cards;
  const TileCompression& params;
  const ErrorContext& where;
  TileBands cut;

  /// Turn `pixels` between big-endian and the machine's order (the same swap either way).
  void swap(std::vector<std::uint8_t>& pixels) const {
    if (cut.item > 1 &&
        asdfcore::ndarray::native_byte_order() != asdfcore::ndarray::ByteOrder::kBig) {
      asdfcore::ndarray::swap_units(pixels.data(), pixels.size() / cut.item,
                                    static_cast<std::uint32_t>(cut.item));
    }
  }

  /// Compress band `band`, whose stored values (big-endian) are `pixels`, in a file of its own.
  /// `pixels` are turned to the machine's order first, and `swapped` set then.
  BandResult compress(long band, std::vector<std::uint8_t>& pixels, bool& swapped) const {
    auto file = std::make_unique<CfitsioHandle>();
    const int ctype = begin_compressed_image(*file, bitpix, naxes, cards, params, where);
    swap(pixels);
    swapped = true;
    BandResult result;
    if (ctype == PLIO_1) {
      result.plio_problem = plio_range_problem(file->f, bitpix, pixels, cut.first_pixel(band));
      if (!result.plio_problem.empty()) return result;
    }
    const int naxis = static_cast<int>(naxes.size());
    std::vector<long> first(naxes.size(), 1);
    std::vector<long> last(naxes);
    first[naxis - 1] = static_cast<long>(cut.first_slab(band) * cut.slab_height + 1);
    last[naxis - 1] = static_cast<long>(std::min<std::uint64_t>(
        static_cast<std::uint64_t>(naxes[naxis - 1]), cut.end_slab(band) * cut.slab_height));
    int status = 0;
    fits_write_subset(file->f, image_datatype(bitpix), first.data(), last.data(), pixels.data(), &status);
    check_status(status, "CFITSIO cannot compress the image", where);
    const FITSfile& state = *file->f->Fptr;
    const LONGLONG row_bytes = state.rowlength;
    const auto first_tile = static_cast<LONGLONG>(cut.first_slab(band) * cut.tiles_per_slab);
    const auto tiles =
        static_cast<LONGLONG>((cut.end_slab(band) - cut.first_slab(band)) * cut.tiles_per_slab);
    const std::string what = "band of the compressed image";
    result.rows = file_bytes(file->f, state.datastart + first_tile * row_bytes, tiles * row_bytes,
                             what, where);
    result.heap = file_bytes(file->f, state.datastart + state.heapstart, state.heapsize, what,
                             where);
    result.records = header_records(file->f, what, where);
    if (band == 0) {
      result.file = std::move(file);
    } else {
      forget_heap(*file);
    }
    return result;
  }
};

/// Bands compressed by worker threads while the caller's thread feeds pixels and takes the
/// results in order, at most two bands a thread in flight. With one thread, the caller's
/// thread compresses each band as it is submitted.
class BandQueue {
 public:
  using Consume = std::function<void(BandResult&&)>;

  BandQueue(const Job& job, unsigned threads, Consume consume)
      : job_(job), threads_(threads), consume_(std::move(consume)) {
    for (unsigned t = 0; threads_ > 1 && t < threads_; ++t) workers_.emplace_back([this] { work(); });
  }
  ~BandQueue() { stop(); }
  BandQueue(const BandQueue&) = delete;
  BandQueue& operator=(const BandQueue&) = delete;

  void submit(std::vector<std::uint8_t> pixels) {
    const long band = submitted_++;
    if (workers_.empty()) {
      bool swapped = false;
      consume_(job_.compress(band, pixels, swapped));
      ++consumed_;
      return;
    }
    {
      std::lock_guard lock(mutex_);
      jobs_.emplace(band, std::move(pixels));
    }
    changed_.notify_all();
    drain(2 * static_cast<long>(threads_));
  }
  /// Take every result still to come.
  void finish() { drain(0); }

 private:
  struct Outcome {
    BandResult result;
    std::exception_ptr failure;
    std::vector<std::uint8_t> pixels;  // of a failed band, to compress it again alone
    bool swapped = false;
  };

  void drain(long in_flight) {
    while (submitted_ - consumed_ > in_flight) {
      Outcome outcome;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [this] { return done_.count(consumed_) != 0; });
        outcome = std::move(done_[consumed_]);
        done_.erase(consumed_);
      }
      if (outcome.failure) fail_alone(std::move(outcome));
      consume_(std::move(outcome.result));
      ++consumed_;
    }
  }

  /// CFITSIO's message stack is one for the process: a band that failed among others may carry
  /// their passing messages in its error. With the workers stopped, the band is compressed
  /// again on this thread, so the error says what CFITSIO says of it alone.
  [[noreturn]] void fail_alone(Outcome outcome) {
    stop();
    fits_clear_errmsg();
    if (outcome.swapped) job_.swap(outcome.pixels);
    bool swapped = false;
    job_.compress(consumed_, outcome.pixels, swapped);
    std::rethrow_exception(outcome.failure);  // it failed on a worker only
  }

  void stop() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    for (auto& w : workers_) {
      if (w.joinable()) w.join();
    }
  }

  void work() {
    while (true) {
      long band = 0;
      std::vector<std::uint8_t> pixels;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
        if (stop_) return;
        auto first = jobs_.begin();
        band = first->first;
        pixels = std::move(first->second);
        jobs_.erase(first);
      }
      Outcome outcome;
      try {
        outcome.result = job_.compress(band, pixels, outcome.swapped);
      } catch (...) {
        outcome.failure = std::current_exception();
        outcome.pixels = std::move(pixels);
      }
      {
        std::lock_guard lock(mutex_);
        done_.emplace(band, std::move(outcome));
      }
      changed_.notify_all();
    }
  }

  const Job& job_;
  const unsigned threads_;
  Consume consume_;
  long submitted_ = 0;
  long consumed_ = 0;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool stop_ = false;
  std::map<long, std::vector<std::uint8_t>> jobs_;
  std::map<long, Outcome> done_;
  std::vector<std::thread> workers_;
};

/// The bands' results joined in order: rows with their descriptors moved past the heap before
/// them, the heap, the largest array of each variable-length column.
class Joiner {
 public:
  Joiner(std::vector<ArrayColumn> columns, std::size_t heap_in_memory, const ErrorContext& where)
      : columns_(std::move(columns)), heap_(heap_in_memory, where), where_(where) {}

  void add(BandResult&& band, long row_bytes) {
    if (!plio_problem_.empty()) return;  // the image is to be compressed again
    if (!band.plio_problem.empty()) {
      plio_problem_ = std::move(band.plio_problem);
      return;
    }
    if (first_.file == nullptr) {
      first_.records = band.records;
      first_.file = std::move(band.file);
    } else if (band.records != first_.records) {
      same_headers_ = false;
    }
    const std::uint64_t base = heap_.size();
    for (std::size_t at = 0; at + static_cast<std::size_t>(row_bytes) <= band.rows.size();
         at += static_cast<std::size_t>(row_bytes)) {
      for (ArrayColumn& c : columns_) {
        std::uint8_t* d = band.rows.data() + at + c.offset;
        const std::size_t n = c.wide ? 8 : 4;
        const std::uint64_t length = get_big_endian(d, n);
        const std::uint64_t offset = get_big_endian(d + n, n) + base;
        if (!c.wide && offset > 0x7fffffffu) {
          throw Error(ErrorCode::kLimit,
                      "the compressed image's heap passes 2 GiB, more than the 32-bit "
                      "descriptors of its " + c.tform + " column can address",
                      where_);
        }
        put_big_endian(d + n, n, offset);
        c.max_length = std::max(c.max_length, length);
      }
    }
    rows_.insert(rows_.end(), band.rows.begin(), band.rows.end());
    heap_.append(band.heap);
  }

  bool same_headers() const { return same_headers_; }
  /// True when PLIO_1 cannot hold a value of a band (the first in order), which
  /// `plio_problem` describes: the bands after it are not compressed.
  bool out_of_range() const { return !plio_problem_.empty(); }
  const std::string& plio_problem() const { return plio_problem_; }

  /// The HDU's header (band 0's, with the sizes CFITSIO writes when it closes the HDU) and data.
  BandedImage finish() {
    fitsfile* f = first_.file->f;
    int status = 0;
    if (heap_.size() > 0) {
      for (const ArrayColumn& c : columns_) {
        const std::string key = "TFORM" + std::to_string(c.number);
        const std::string form = c.tform + "(" + std::to_string(c.max_length) + ")";
        fits_modify_key_str(f, key.c_str(), form.c_str(), "&", &status);
      }
      LONGLONG pcount = 0;
      fits_read_key(f, TLONGLONG, "PCOUNT", &pcount, nullptr, &status);
      if (static_cast<std::uint64_t>(pcount) != heap_.size()) {
        fits_modify_key_lng(f, "PCOUNT", static_cast<LONGLONG>(heap_.size()), "&", &status);
      }
    }
    check_status(status, "cannot complete the compressed image's header", where_);
    // The header as the file holds it: CFITSIO leaves room for more cards before END.
    const FITSfile& state = *f->Fptr;
    const LONGLONG start = state.headstart[state.curhdu];
    const std::vector<std::uint8_t> header =
        file_bytes(f, start, state.datastart - start, "compressed image's header", where_);
    forget_heap(*first_.file);
    return BandedImage{std::string(header.begin(), header.end()), std::move(rows_),
                       std::move(heap_), ""};
  }

 private:
  std::vector<ArrayColumn> columns_;
  std::vector<std::uint8_t> rows_;
  SpillBuffer heap_;
  BandResult first_;
  bool same_headers_ = true;
  std::string plio_problem_;
  const ErrorContext& where_;
};

/// The variable-length columns of the compressed table open in `f`.
std::vector<ArrayColumn> array_columns(fitsfile* f) {
  std::vector<ArrayColumn> columns;
  const FITSfile& state = *f->Fptr;
  for (int c = 0; c < state.tfield; ++c) {
    const tcolumn& column = state.tableptr[c];
    if (column.tdatatype >= 0) continue;
    std::string form = column.tform;
    form = form.substr(0, form.find('('));
    columns.push_back(ArrayColumn{c + 1, form, static_cast<std::size_t>(column.tbcol),
                                  form.find('Q') != std::string::npos, 0});
  }
  return columns;
}

/// The cut of the image CFITSIO made in `f`, or nothing when it is not cut into bands: no
/// pixels, a tiling that does not fit the axes, or a slab over `slab_limit`.
std::optional<TileBands> cut_image(fitsfile* f, int bitpix, const std::vector<long>& naxes,
                                   const BandSettings& settings) {
  const TileBands cut = cut_into_bands(*f->Fptr, naxes, static_cast<std::uint64_t>(std::abs(bitpix) / 8),
                                       settings.band_bytes);
  if (!cut.tiled || cut.pixels == 0 || cut.slab_pixels * cut.item > settings.slab_limit) {
    return std::nullopt;
  }
  return cut;
}

/// One attempt with `params`; nothing when the bands' headers differ (CFITSIO added a column
/// to some bands only), so that the image is compressed whole instead.
std::optional<BandedImage> attempt(int bitpix, const std::vector<long>& naxes,
                                   const PixelFeed& pixels, const std::vector<std::string>& cards,
                                   const TileCompression& params, unsigned threads,
                                   const ErrorContext& where, const BandSettings& settings) {
  CfitsioHandle probe;
  begin_compressed_image(probe, bitpix, naxes, cards, params, where);
  const std::optional<TileBands> cut = cut_image(probe.f, bitpix, naxes, settings);
  if (!cut) return std::nullopt;
  const long row_bytes = static_cast<long>(probe.f->Fptr->rowlength);
  const LONGLONG table_rows = probe.f->Fptr->numrows;
  if (static_cast<std::uint64_t>(table_rows) != cut->slabs * cut->tiles_per_slab) {
    return std::nullopt;  // not the tiles counted here: leave it to CFITSIO whole
  }
  Joiner joiner(array_columns(probe.f), settings.heap_in_memory, where);
  const Job job{bitpix, naxes, cards, params, where, *cut};
  threads = std::max(1u, std::min<unsigned>(threads == 0 ? std::thread::hardware_concurrency()
                                                         : threads,
                                            static_cast<unsigned>(std::min<long>(cut->bands, 64))));
  BandQueue queue(job, threads, [&](BandResult&& band) { joiner.add(std::move(band), row_bytes); });
  long band = 0;
  std::vector<std::uint8_t> current;
  std::uint64_t given = 0;
  const std::uint64_t total = cut->pixels * cut->item;
  // Bytes past the axes' need are counted, not kept, so the error can say how many there were
  // (compress_image's words). The feed is read to its end whatever happens: errors are thrown
  // from here, not through the caller's code that feeds.
  pixels([&](std::span<const std::uint8_t> piece) {
    const std::uint64_t room = given < total ? total - given : 0;
    given += piece.size();
    if (piece.size() > room) piece = piece.first(static_cast<std::size_t>(room));
    while (!piece.empty()) {
      const std::size_t want = static_cast<std::size_t>(cut->band_bytes(band)) - current.size();
      const std::size_t n = std::min(want, piece.size());
      if (current.empty()) current.reserve(static_cast<std::size_t>(cut->band_bytes(band)));
      current.insert(current.end(), piece.begin(), piece.begin() + static_cast<std::ptrdiff_t>(n));
      piece = piece.subspan(n);
      if (current.size() == cut->band_bytes(band)) {
        if (!joiner.out_of_range()) queue.submit(std::move(current));
        current = {};
        ++band;
      }
    }
  });
  if (given != total) {
    throw Error(ErrorCode::kInvalidArgument,
                "the image holds " + std::to_string(given) + " bytes, not the " +
                    std::to_string(total) + " its axes need",
                where);
  }
  queue.finish();
  if (joiner.out_of_range()) throw PlioOutOfRange{joiner.plio_problem()};
  if (!joiner.same_headers()) return std::nullopt;
  return joiner.finish();
}

}  // namespace

std::optional<BandedImage> compress_image_banded(int bitpix, const std::vector<long>& naxes,
                                                 const PixelFeed& pixels,
                                                 const std::vector<std::string>& cards,
                                                 const TileCompression& params, unsigned threads,
                                                 const ErrorContext& where,
                                                 const BandSettings& settings) {
  if (naxes.empty() || image_datatype(bitpix) == 0) return std::nullopt;  // refused whole
  for (const long n : naxes) {
    if (n <= 0) return std::nullopt;  // no pixels
  }
  try {
    return attempt(bitpix, naxes, pixels, cards, params, threads, where, settings);
  } catch (PlioOutOfRange& out_of_range) {
    // CFITSIO's Rice writer checks its output's bounds, and takes every integer type.
    TileCompression rice = params;
    rice.type = "RICE_1";
    std::optional<BandedImage> image =
        attempt(bitpix, naxes, pixels, cards, rice, threads, where, settings);
    if (image) {
      image->substitution =
          "compressed with RICE_1 (without loss) instead of PLIO_1, which cannot hold it: " +
          out_of_range.problem;
    }
    return image;
  }
}

}  // namespace fitsasdf::fits
