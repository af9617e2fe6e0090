#include "fits/tile_reader.h"

#include <algorithm>
#include <bit>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "asdfcore/ndarray/dtype.h"
#include "fits/cfitsio.h"
#include "fits/fits_file.h"
#include "fits/tile_guard.h"
#include "fits/tile_reader_state.h"

namespace fitsasdf::fits {

using asdfcore::Error;
using asdfcore::ErrorCode;

TileReader::TileReader(std::unique_ptr<State> state) : state_(std::move(state)) {}
TileReader::~TileReader() = default;
TileReader::TileReader(TileReader&&) noexcept = default;
TileReader& TileReader::operator=(TileReader&&) noexcept = default;

const std::string& TileReader::header() const noexcept { return state_->header; }
std::uint64_t TileReader::data_size() const noexcept {
  return state_->cut.pixels * state_->cut.item;
}

void TileReader::State::decode(fitsfile* f, long band, std::uint8_t* out) const {
  const std::uint64_t first_slab = cut.first_slab(band);
  const std::uint64_t end_slab = cut.end_slab(band);
  const std::uint64_t first = cut.first_pixel(band);
  const std::uint64_t count = cut.band_pixels(band);
  if (plain && decode_plain_band(f, std::span<const std::uint8_t>(alone->data, alone->size), *plain,
                                 cut, band, out)) {
    alone->release();
    return;
  }
  // The band's tiles are checked just before CFITSIO decodes them: a tile CFITSIO would
  // mishandle is refused before CFITSIO sees it.
  check_image_tiles(f, where, static_cast<long>(first_slab * cut.tiles_per_slab + 1),
                    static_cast<long>(end_slab * cut.tiles_per_slab));
  int status = 0;
  fits_set_bscale(f, 1.0, 0.0, &status);  // the stored values, unscaled
  int anynul = 0;
  // A quantized float image keeps its undefined pixels as ZBLANK (CFITSIO's NULL_VALUE), which
  // the convention restores as NaN. CFITSIO does so only when handed a null value that is not
  // 0 (with none, it dequantizes ZBLANK like any other integer: NaN pixels came back as
  // numbers); funpack hands it one for every float image, this for every quantized one. A
  // lossless float image (ZQUANTIZ = 'NONE') is read without: its NaNs are stored as NaN, and
  // CFITSIO's null check would also turn infinities into NaN and -0.0 and subnormals into 0
  // (fpack already turned them so when it compressed; another writer may not have). The NaN is
  // CFITSIO's own (every bit set), as funpack writes it, so the pixels are funpack's bytes.
  const bool quantized = quantized_floats(*f->Fptr, bitpix);
  auto float_nan = std::bit_cast<float>(~std::uint32_t{0});
  auto double_nan = std::bit_cast<double>(~std::uint64_t{0});
  void* null_value = !quantized ? nullptr
                     : bitpix == FLOAT_IMG ? static_cast<void*>(&float_nan)
                                           : static_cast<void*>(&double_nan);
  fits_read_img(f, image_datatype(bitpix), static_cast<LONGLONG>(first + 1),
                static_cast<LONGLONG>(count), null_value, out, &anynul, &status);
  check_status(status, "CFITSIO cannot decompress the tile-compressed image", where);
  alone->release();
  if (cut.item > 1 &&
      asdfcore::ndarray::native_byte_order() != asdfcore::ndarray::ByteOrder::kBig) {
    asdfcore::ndarray::swap_units(out, count, static_cast<std::uint32_t>(cut.item));
  }
}

void TileReader::read_all(std::span<std::uint8_t> out) {
  State& s = *state_;
  std::uint64_t at = 0;
  for (long band = 0; band < s.cut.bands; ++band) {
    s.decode(s.handle(0), band, out.data() + at);
    at += s.cut.band_bytes(band);
  }
}

asdfcore::io::Buffer TileReader::read_whole() {
  const std::uint64_t size = data_size();
  // Half the limit, as for a whole decompressed image (`FitsFile::decompress_image`).
  refuse_oversized(size, 1, state_->max_memory / 2, "the decompressed image", state_->where);
  asdfcore::io::WritableBuffer out = asdfcore::io::Buffer::allocate(static_cast<std::size_t>(size));
  read_all(out.bytes);
  return std::move(out.buffer);
}

namespace {

/// Bands decoded ahead of the reader by worker threads, each with its own CFITSIO handle, at
/// most `window` bands beyond the one the reader waits for: two a thread, and as many as the
/// writer pulls at once (4 MiB, 1 MiB bands), so that the workers go on while it writes them.
constexpr long kWriterChunkBands = 4;
class BandPipeline {
 public:
  BandPipeline(std::shared_ptr<TileReader> image, TileReader::State& state,
               unsigned threads, TileReader::Transform transform)
      : image_(std::move(image)),
        state_(state),
        transform_(std::move(transform)),
        window_(2 * static_cast<long>(threads) + kWriterChunkBands) {
    for (unsigned t = 0; t < threads; ++t) state_.handle(t);  // opened here: errors thrown now
    for (unsigned t = 0; t < threads; ++t) workers_.emplace_back([this, t] { work(t); });
  }
  ~BandPipeline() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    for (auto& w : workers_) w.join();
  }
  BandPipeline(const BandPipeline&) = delete;
  BandPipeline& operator=(const BandPipeline&) = delete;

  /// Copy the next bytes of the data into `buffer`; return how many (0 at the end).
  std::size_t read(std::span<std::uint8_t> buffer) {
    std::size_t given = 0;
    while (given < buffer.size()) {
      if (at_ == current_.size()) {
        if (next_ == state_.cut.bands) break;
        take_next();
      }
      const std::size_t n = std::min(buffer.size() - given, current_.size() - at_);
      std::memcpy(buffer.data() + given, current_.data() + at_, n);
      given += n;
      at_ += n;
    }
    return given;
  }

 private:
  void take_next() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return ready_.count(next_) != 0 || failed_.count(next_) != 0; });
    if (auto f = failed_.find(next_); f != failed_.end()) std::rethrow_exception(f->second);
    spare_.push_back(std::move(current_));
    current_ = std::move(ready_[next_]);
    ready_.erase(next_);
    ++next_;
    at_ = 0;
    lock.unlock();
    changed_.notify_all();
  }

  void work(unsigned t) {
    while (true) {
      long band = 0;
      std::vector<std::uint8_t> buffer;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [this] { return stop_ || claimed_ < next_ + window_; });
        if (stop_ || claimed_ >= state_.cut.bands) return;
        band = claimed_++;
        if (!spare_.empty()) {
          buffer = std::move(spare_.back());
          spare_.pop_back();
        }
      }
      try {
        buffer.resize(static_cast<std::size_t>(state_.cut.band_bytes(band)));
        state_.decode(state_.handle(t), band, buffer.data());
        if (transform_) transform_(buffer, state_.cut.band_offset(band));
        std::lock_guard lock(mutex_);
        ready_.emplace(band, std::move(buffer));
      } catch (...) {
        std::lock_guard lock(mutex_);
        failed_.emplace(band, std::current_exception());
        stop_ = true;  // no band after a failed one is needed
      }
      changed_.notify_all();
    }
  }

  std::shared_ptr<TileReader> image_;  // keeps `state_` alive
  TileReader::State& state_;
  TileReader::Transform transform_;
  const long window_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool stop_ = false;
  long claimed_ = 0;  // bands handed to workers
  long next_ = 0;     // the band the reader takes next
  std::map<long, std::vector<std::uint8_t>> ready_;
  std::map<long, std::exception_ptr> failed_;
  std::vector<std::vector<std::uint8_t>> spare_;  // buffers of bands already read, reused
  std::vector<std::uint8_t> current_;
  std::size_t at_ = 0;
  std::vector<std::thread> workers_;
};

}  // namespace

TileReader::Source TileReader::stream(std::shared_ptr<TileReader> image, unsigned threads,
                                     Transform transform) {
  State& state = *image->state_;
  if (state.cut.bands > 1 && threads > 1) {
    // Workers decode ahead while the caller's thread hashes and writes what they gave.
    threads = static_cast<unsigned>(std::min<long>(threads, state.cut.bands));
    auto pipeline =
        std::make_shared<BandPipeline>(std::move(image), state, threads, std::move(transform));
    return [pipeline](std::span<std::uint8_t> buffer) { return pipeline->read(buffer); };
  }
  // One thread (or one band, or none): each band decoded on the caller's thread as it pulls.
  struct Reader {
    std::shared_ptr<TileReader> image;
    Transform transform;
    long next = 0;  // the band decoded next
    std::vector<std::uint8_t> band;
    std::size_t at = 0;
  };
  auto reader = std::make_shared<Reader>(Reader{std::move(image), std::move(transform)});
  return [reader](std::span<std::uint8_t> buffer) {
    State& s = *reader->image->state_;
    std::size_t given = 0;
    while (given < buffer.size()) {
      if (reader->at == reader->band.size()) {
        if (reader->next == s.cut.bands) break;
        reader->band.resize(static_cast<std::size_t>(s.cut.band_bytes(reader->next)));
        s.decode(s.handle(0), reader->next, reader->band.data());
        if (reader->transform) reader->transform(reader->band, s.cut.band_offset(reader->next));
        ++reader->next;
        reader->at = 0;
      }
      const std::size_t n = std::min(buffer.size() - given, reader->band.size() - reader->at);
      std::memcpy(buffer.data() + given, reader->band.data() + reader->at, n);
      given += n;
      reader->at += n;
    }
    return given;
  };
}

}  // namespace fitsasdf::fits
