#pragma once
// Pieces of one block worked on by several threads and handed on in their original order, with
// a bounded number of finished pieces waiting: what lets a codec compress a large array on every
// core while its output still comes out as one ordered stream.
#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

namespace asdfcore::compression::parallel {

/// Return the number of threads `requested` asks for: itself, or the hardware's thread count
/// for 0 (at least 1).
inline unsigned resolve_threads(unsigned requested) noexcept {
  if (requested > 0) return requested;
  const unsigned hardware = std::thread::hardware_concurrency();
  return hardware > 0 ? hardware : 1;
}

/// Lets the `produce` calls of `run_in_order` take their input from one sequential source: the
/// call for piece `index` runs `step` only after the calls for every earlier piece have run
/// theirs, one at a time. Pieces are claimed in index order, so every earlier piece is already
/// in some thread's hands and the wait always ends. After a `step` throws, every later `pass`
/// rethrows that same exception (the work is being stopped anyway, and whichever thread
/// reports first reports the real cause).
class Turnstile {
 public:
  template <typename Step>
  void pass(std::size_t index, const Step& step) {
    std::unique_lock lock(mutex_);
    turn_.wait(lock, [&] { return failure_ || next_ == index; });
    if (failure_) std::rethrow_exception(failure_);
    try {
      step();
    } catch (...) {
      failure_ = std::current_exception();
      turn_.notify_all();
      throw;
    }
    ++next_;
    turn_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable turn_;
  std::size_t next_ = 0;
  std::exception_ptr failure_;
};

/// Call `produce(index, worker)` for every index in [0, count) on up to `threads` threads (the
/// calling thread is one of them; `worker` in [0, threads) tells a call which thread's scratch
/// space it may use), and `consume(index, result)` for each result in index order, one call at
/// a time. At most 2 * threads pieces are started past the one `consume` waits for, so memory
/// stays bounded whatever `count` is. The first exception thrown by either callback stops the
/// work and is rethrown here once every thread has stopped.
template <typename Result, typename Produce, typename Consume>
void run_in_order(std::size_t count, unsigned threads, const Produce& produce,
                  const Consume& consume) {
  if (count == 0) return;
  threads = static_cast<unsigned>(std::min<std::size_t>(resolve_threads(threads), count));
  if (threads == 1) {
    for (std::size_t i = 0; i < count; ++i) consume(i, produce(i, 0u));
    return;
  }
  const std::size_t window = std::size_t{2} * threads;
  std::mutex mutex;
  std::condition_variable room;
  std::vector<std::optional<Result>> ready(window);
  std::size_t next_claim = 0;
  std::size_t next_emit = 0;
  bool emitting = false;
  std::exception_ptr failure;

  const auto work = [&](unsigned worker) {
    std::unique_lock lock(mutex);
    for (;;) {
      room.wait(lock, [&] {
        return failure || next_claim == count || next_claim < next_emit + window;
      });
      if (failure || next_claim == count) return;
      const std::size_t index = next_claim++;
      lock.unlock();
      try {
        Result result = produce(index, worker);
        lock.lock();
        ready[index % window].emplace(std::move(result));
        // Hand on every result that is next in line, unless another thread already does.
        if (emitting) continue;
        emitting = true;
        while (!failure && ready[next_emit % window].has_value()) {
          Result out = std::move(*ready[next_emit % window]);
          ready[next_emit % window].reset();
          const std::size_t at = next_emit;
          lock.unlock();
          consume(at, std::move(out));
          lock.lock();
          ++next_emit;
          room.notify_all();
        }
        emitting = false;
      } catch (...) {
        if (!lock.owns_lock()) lock.lock();
        if (!failure) failure = std::current_exception();
        emitting = false;
        room.notify_all();
        return;
      }
    }
  };

  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  try {
    for (unsigned w = 1; w < threads; ++w) pool.emplace_back(work, w);
  } catch (const std::system_error&) {
    // No more threads to be had: the ones started and this one share the work.
  }
  work(0u);
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace asdfcore::compression::parallel
