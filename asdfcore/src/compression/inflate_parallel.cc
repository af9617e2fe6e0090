// The parallel zlib decoder (see inflate_parallel.h). Workers claim segments in order, each
// cut at a flush point found by searching for its four bytes, and decode them into their own
// buffers; the calling thread hands the segments on in order, checking that each one ended
// where the next begins. At the first segment that does not prove the cut after it, the
// workers stop and the calling thread decodes on alone from there.
#include "compression/inflate_parallel.h"

#include <isa-l/igzip_lib.h>
#include <zlib.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include <unistd.h>

#include "asdfcore/error.h"
#include "compression/buffer_pool.h"
#include "compression/ordered_parallel.h"

namespace asdfcore::compression {
namespace {

[[noreturn]] void fail(const std::string& what) {
  throw Error(ErrorCode::kCompression, "zlib: " + what);
}

/// The deflate window: how far back a distance may reach.
constexpr std::size_t kWindow = 32768;

/// Input handed to ISA-L at a time (it counts in 32 bits).
constexpr std::size_t kInputStep = std::size_t{16} << 20;

/// Input let go at a time, and how far behind the decoding (see `release_to`).
constexpr std::size_t kReleaseStep = std::size_t{4} << 20;
constexpr std::size_t kReleaseLag = std::size_t{1} << 20;

/// No position (a range without a flush point).
constexpr std::size_t kNone = static_cast<std::size_t>(-1);

/// Why a decoder stopped.
enum class Stop {
  kBoundary,  ///< Its input is used up, exactly at the start of a block.
  kMidBlock,  ///< Its input is used up anywhere else.
  kFinal,     ///< The last block is decoded.
  kFull,      ///< Its output buffer is full.
  kError,     ///< ISA-L refused the stream.
};

using State = std::unique_ptr<inflate_state>;

/// A raw deflate decoder with an empty history.
State raw_decoder() {
  auto state = std::make_unique<inflate_state>();
  isal_inflate_init(state.get());
  state->crc_flag = ISAL_DEFLATE;
  return state;
}

/// True when `s`, its input used up, is where a new block starts with no bit held: what the
/// decoder is after an empty stored block, and what a fresh decoder is.
bool at_block_start(const inflate_state& s) {
  return s.avail_in == 0 && s.read_in_length == 0 && s.tmp_in_size == 0 &&
         (s.block_state == ISAL_BLOCK_NEW_HDR || s.block_state == ISAL_BLOCK_HDR);
}

/// Decode with `s` into out[used, capacity) until its input is used up, the stream ends, the
/// buffer is full or ISA-L refuses the stream (its code in `error`).
Stop inflate_some(inflate_state& s, std::uint8_t* out, std::size_t capacity, std::size_t& used,
         int& error) {
  for (;;) {
    if (used == capacity) return Stop::kFull;
    s.next_out = out + used;
    s.avail_out = static_cast<std::uint32_t>(
        std::min<std::size_t>(capacity - used, std::numeric_limits<std::uint32_t>::max()));
    const std::uint32_t offered = s.avail_out;
    const int rc = isal_inflate(&s);
    const std::size_t produced = offered - s.avail_out;
    used += produced;
    if (rc < 0) {
      error = rc;
      return Stop::kError;
    }
    if (s.block_state == ISAL_BLOCK_FINISH) return Stop::kFinal;
    if (s.avail_in == 0 && produced == 0) {
      return at_block_start(s) ? Stop::kBoundary : Stop::kMidBlock;
    }
  }
}

/// Just past the first flush point (00 00 FF FF: LEN and NLEN of the empty stored block a full
/// or sync flush ends with) that starts in [from, from + span), or kNone.
std::size_t first_cut(std::span<const std::uint8_t> in, std::size_t from, std::size_t span) {
  // The pair FF FF is rare in compressed data: find each FF with memchr, then look around it.
  const std::size_t limit = std::min(in.size(), from + span + 3);
  std::size_t at = from;
  while (at + 4 <= limit) {
    const void* hit = std::memchr(in.data() + at + 2, 0xff, limit - at - 2);
    if (hit == nullptr) return kNone;
    const auto i = static_cast<std::size_t>(static_cast<const std::uint8_t*>(hit) - in.data());
    if (i + 1 < limit && in[i + 1] == 0xff && in[i - 1] == 0 && in[i - 2] == 0) return i + 2;
    at = i - 1;
  }
  return kNone;
}

/// One segment as a worker left it.
struct Segment {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t fed = 0;  ///< Input given to `state` so far (absolute offset).
  parallel::PooledBytes out;
  std::uint32_t adler = 1;  ///< Adler-32 of `out`'s bytes.
  Stop stop = Stop::kError;
  State state;
  std::exception_ptr failure;  ///< Not an ISA-L refusal (memory): rethrown when its turn comes.
};

class ParallelInflate {
 public:
  ParallelInflate(const io::Buffer& input, std::uint64_t size, const WriteNext& write,
                  const ParallelInflateSettings& settings)
      : input_(input), in_(input.span()), size_(size), write_(write), settings_(settings) {}

  ~ParallelInflate() { stop_workers(); }

  ParallelInflate(const ParallelInflate&) = delete;
  ParallelInflate& operator=(const ParallelInflate&) = delete;

  /// Start the workers; false when no thread could be had (nothing is written then).
  bool start(unsigned threads) {
    count_ = (in_.size() + settings_.segment_in - 1) / settings_.segment_in;
    window_ = 2 * std::size_t{threads};
    for (unsigned w = 0; w < threads; ++w) {
      try {
        pool_.emplace_back([this] { work(); });
      } catch (const std::system_error&) {
        break;
      }
    }
    return !pool_.empty();
  }

  ParallelInflateReport run() {
    std::size_t pos = 2;
    for (std::size_t index = 0;; ++index) {
      std::optional<Segment> next = take(index);
      if (!next) truncated();  // every segment ended on a boundary and the input is used up
      Segment& g = *next;
      if (g.failure) std::rethrow_exception(g.failure);
      if (g.begin == kNone) continue;  // a range without a flush point: in the segment before
      if (g.begin != pos) {  // cannot be: the ranges' cuts are computed the same way twice
        stop_workers();
        return in_order(pos, history_, 0);
      }
      if (g.stop == Stop::kError) {
        stop_workers();
        return in_order(g.begin, history_, 0);
      }
      // The history at the segment's start, in case its decoder goes on and fails.
      if (g.stop == Stop::kFull || g.stop == Stop::kMidBlock) history_at_begin_ = history_;
      const std::uint64_t before = delivered_;
      hand_on(g.out.bytes(), g.adler);
      pool_buffers_.give(std::move(g.out.buffer));
      ++report_.segments;
      Stop stop = g.stop;
      int error = 0;
      if (stop == Stop::kFull) stop = go_on(*g.state, g.fed, g.end, error);
      if (stop == Stop::kMidBlock) {
        // The cut after this segment was no cut: the segment's decoder, which has decoded the
        // stream exactly as far, goes on alone.
        stop_workers();
        stop = go_on(*g.state, g.fed, in_.size(), error);
      }
      if (stop == Stop::kError) {
        // Its decoder started without the history: decode the segment again with it.
        stop_workers();
        return in_order(g.begin, history_at_begin_, delivered_ - before);
      }
      if (stop == Stop::kFinal) {
        stop_workers();
        check_end(*g.state);
        return report_;
      }
      if (stop == Stop::kMidBlock) truncated();
      pos = g.end;
      release_to(pos);
    }
  }

 private:
  /// A worker: claim the next segment, decode it, leave it for `take`.
  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] {
        return stopping_ || next_claim_ == count_ || next_claim_ < next_take_ + window_;
      });
      if (stopping_ || next_claim_ == count_) return;
      const std::size_t index = next_claim_++;
      lock.unlock();
      Segment g;
      try {
        // Range `index` of the input, moved on to the flush points: the segment starts just
        // past the first one in its range and ends just past the first one in a later range.
        // A range without one adds to the segment before it and is itself empty.
        const std::size_t span = settings_.segment_in;
        g.begin = index == 0 ? 2 : first_cut(in_, index * span, span);
        g.end = g.begin;
        if (g.begin != kNone) {
          g.end = in_.size();
          for (std::size_t next = index + 1; next < count_; ++next) {
            const std::size_t cut = first_cut(in_, next * span, span);
            if (cut != kNone) {
              g.end = cut;
              break;
            }
          }
          decode(g);
        }
      } catch (...) {
        g.failure = std::current_exception();
      }
      lock.lock();
      done_.emplace(index, std::move(g));
      changed_.notify_all();
    }
  }

  /// Decode segment `g` from an empty state into a buffer of at most `segment_out` bytes.
  void decode(Segment& g) {
    g.state = raw_decoder();
    g.fed = g.begin;
    feed(*g.state, g.fed, g.end);
    // Room for what float data decodes to (it shrinks by about a fifth), grown on demand.
    std::size_t capacity =
        std::min(settings_.segment_out, (g.end - g.begin) + (g.end - g.begin) / 4 + 65536);
    g.out.buffer = pool_buffers_.take(capacity);
    capacity = std::min(g.out.buffer.size(), settings_.segment_out);
    std::size_t used = 0;
    int error = 0;
    for (;;) {
      g.stop = inflate_some(*g.state, g.out.buffer.data(), capacity, used, error);
      if (g.stop == Stop::kFull && capacity < settings_.segment_out) {
        capacity = std::min(settings_.segment_out, 2 * capacity);
        g.out.buffer.resize(std::max(g.out.buffer.size(), capacity));
        continue;
      }
      if ((g.stop == Stop::kBoundary || g.stop == Stop::kMidBlock) && g.fed < g.end) {
        feed(*g.state, g.fed, g.end);
        continue;
      }
      break;
    }
    g.out.used = used;
    g.adler = isal_adler32(1, g.out.buffer.data(), used);
  }

  /// Give `s` the next input step up to `until`, from `fed` (moved on).
  void feed(inflate_state& s, std::size_t& fed, std::size_t until) const {
    const std::size_t step = std::min(until - fed, kInputStep);
    s.next_in = const_cast<std::uint8_t*>(in_.data() + fed);
    s.avail_in = static_cast<std::uint32_t>(step);
    fed += step;
  }

  /// Wait for segment `index`; nullopt when every segment has been taken.
  std::optional<Segment> take(std::size_t index) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return done_.count(index) > 0 || index >= count_; });
    const auto it = done_.find(index);
    if (it == done_.end()) return std::nullopt;
    Segment g = std::move(it->second);
    done_.erase(it);
    next_take_ = index + 1;
    changed_.notify_all();
    return g;
  }

  void stop_workers() {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    for (auto& t : pool_) t.join();
    pool_.clear();
  }

  /// Decode on with `s` (whose input so far ends at `fed`) up to input offset `until`, handing
  /// the bytes on as they come.
  Stop go_on(inflate_state& s, std::size_t& fed, std::size_t until, int& error,
             std::uint64_t skip = 0) {
    if (step_buffer_.size() < settings_.out_step) step_buffer_.resize(settings_.out_step);
    for (;;) {
      std::size_t used = 0;
      const Stop stop = inflate_some(s, step_buffer_.data(), step_buffer_.size(), used, error);
      std::span<const std::uint8_t> piece(step_buffer_.data(), used);
      const std::size_t dropped = static_cast<std::size_t>(std::min<std::uint64_t>(skip, used));
      skip -= dropped;
      piece = piece.subspan(dropped);
      if (!piece.empty()) {
        report_.decoded_in_order += piece.size();
        hand_on(piece, isal_adler32(1, piece.data(), piece.size()));
      }
      if (stop == Stop::kFull) continue;
      if ((stop == Stop::kBoundary || stop == Stop::kMidBlock) && fed < until) {
        release_to(fed);
        feed(s, fed, until);
        continue;
      }
      return stop;
    }
  }

  /// Decode the rest of the stream in order from `from`, where a block starts and the last
  /// 32 KiB decoded are `history`, skipping the first `skip` bytes (already handed on).
  ParallelInflateReport in_order(std::size_t from, std::vector<std::uint8_t> history,
                                 std::uint64_t skip) {
    State s = raw_decoder();
    if (!history.empty() &&
        isal_inflate_set_dict(s.get(), history.data(),
                              static_cast<std::uint32_t>(history.size())) != COMP_OK) {
      fail("cannot give the decoder its history");
    }
    std::size_t fed = from;
    feed(*s, fed, in_.size());
    int error = 0;
    const Stop stop = go_on(*s, fed, in_.size(), error, skip);
    if (stop == Stop::kError) {
      fail("corrupt stream (" + isal_inflate_error(error) + ") after " +
           std::to_string(s->next_in - in_.data()) + " input bytes");
    }
    if (stop != Stop::kFinal) truncated();
    check_end(*s);
    return report_;
  }

  void hand_on(std::span<const std::uint8_t> piece, std::uint32_t adler) {
    if (piece.size() > size_ - delivered_) {
      fail("stream decodes to more than the declared data_size of " + std::to_string(size_) +
           " bytes");
    }
    if (piece.empty()) return;
    write_(piece);
    delivered_ += piece.size();
    adler_ = static_cast<std::uint32_t>(
        adler32_combine(adler_, adler, static_cast<z_off_t>(piece.size())));
    // The last 32 KiB handed on: the history a decoder restarted here needs.
    if (piece.size() >= kWindow) {
      history_.assign(piece.end() - kWindow, piece.end());
    } else {
      history_.insert(history_.end(), piece.begin(), piece.end());
      if (history_.size() > kWindow) {
        history_.erase(history_.begin(),
                       history_.begin() + static_cast<std::ptrdiff_t>(history_.size() - kWindow));
      }
    }
  }

  /// Let the input's pages well before offset `pos` go, a few MiB at a time. They lag: the
  /// kernel maps the pages around each page a read faults in (64 KiB), so pages let go just
  /// behind the workers' reads would come back. Only whole pages go, so the next range starts
  /// at the page that held the end of this one.
  void release_to(std::size_t pos) {
    if (pos < released_ + kReleaseLag + kReleaseStep) return;
    const std::size_t end = pos - kReleaseLag;
    input_.release(in_.subspan(released_, end - released_));
    static const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    released_ = end - reinterpret_cast<std::uintptr_t>(in_.data() + end) % page;
  }

  [[noreturn]] void truncated() const {
    fail("stream is truncated: it ends after decoding " + std::to_string(delivered_) + " of " +
         std::to_string(size_) + " bytes");
  }

  /// After the last block: the Adler-32 trailer (the four bytes after the block's last byte)
  /// and the decoded size.
  void check_end(const inflate_state& s) const {
    const std::size_t end =
        static_cast<std::size_t>(s.next_in - in_.data()) - static_cast<std::size_t>(s.read_in_length / 8);
    if (end + 4 > in_.size()) truncated();
    const std::uint32_t trailer = (std::uint32_t{in_[end]} << 24) |
                                  (std::uint32_t{in_[end + 1]} << 16) |
                                  (std::uint32_t{in_[end + 2]} << 8) | in_[end + 3];
    if (trailer != adler_) {
      fail("corrupt stream (" + isal_inflate_error(ISAL_INCORRECT_CHECKSUM) + ") after " +
           std::to_string(end + 4) + " input bytes");
    }
    if (delivered_ != size_) {
      fail("stream decodes to " + std::to_string(delivered_) + " bytes, but the block declares " +
           "data_size " + std::to_string(size_));
    }
  }

  const io::Buffer& input_;
  const std::span<const std::uint8_t> in_;
  const std::uint64_t size_;
  const WriteNext& write_;
  const ParallelInflateSettings settings_;

  // Shared with the workers.
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::thread> pool_;
  std::map<std::size_t, Segment> done_;
  std::size_t count_ = 0;  ///< Ranges of `segment_in` bytes.
  std::size_t next_claim_ = 0;
  std::size_t next_take_ = 0;
  std::size_t window_ = 2;  ///< Segments claimed past the one being taken, at most.
  bool stopping_ = false;
  parallel::BufferPool pool_buffers_;

  // The calling thread's.
  std::uint64_t delivered_ = 0;
  std::uint32_t adler_ = 1;
  std::vector<std::uint8_t> history_;
  std::vector<std::uint8_t> history_at_begin_;
  std::vector<std::uint8_t> step_buffer_;
  std::size_t released_ = 0;
  ParallelInflateReport report_;
};

}  // namespace

std::string isal_inflate_error(int rc) {
  switch (rc) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK: return "invalid back-reference distance";
    case ISAL_INVALID_WRAPPER: return "invalid zlib header or trailer";
    case ISAL_UNSUPPORTED_METHOD: return "the zlib header names a method other than deflate";
    case ISAL_INCORRECT_CHECKSUM: return "the Adler-32 trailer does not match the data";
    default: return "ISA-L inflate code " + std::to_string(rc);
  }
}

std::optional<ParallelInflateReport> inflate_parallel(const io::Buffer& input, std::uint64_t size,
                                                      const WriteNext& write, unsigned threads,
                                                      const ParallelInflateSettings& settings) {
  const std::span<const std::uint8_t> in = input.span();
  threads = parallel::resolve_threads(threads);
  if (threads < 2 || in.size() < std::max<std::size_t>(settings.min_input, 8)) return std::nullopt;
  // A header ISA-L accepts without a dictionary (anything else: the in-order decoder says why).
  const unsigned cmf = in[0];
  const unsigned flg = in[1];
  if ((cmf & 0x0f) != 8 || (cmf * 256 + flg) % 31 != 0 || (flg & 0x20) != 0) return std::nullopt;
  // A stream written in pieces has a flush point within its first segment or two.
  if (first_cut(in, 0, 2 * settings.segment_in) == kNone) return std::nullopt;
  ParallelInflate decoder(input, size, write, settings);
  if (!decoder.start(threads)) return std::nullopt;
  const ParallelInflateReport report = decoder.run();
  input.release();
  return report;
}

}  // namespace asdfcore::compression
