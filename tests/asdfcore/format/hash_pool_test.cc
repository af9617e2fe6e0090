// The writer's hashing threads (src/format/hash_pool.h): every task's digest reaches its own
// future, in whatever order the threads finish; a task's exception reaches its future alone;
// no thread starts before the first task; destroying the pool drops the tasks not started.
#include "format/hash_pool.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

#include "support/catch.h"

using asdfcore::compression::Md5;
using asdfcore::compression::Md5Digest;
using asdfcore::format::HashPool;

namespace {

std::vector<std::uint8_t> bytes_of(std::size_t n, std::uint8_t seed) {
  std::vector<std::uint8_t> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(seed + i * 7);
  return out;
}

Md5Digest md5_of(const std::vector<std::uint8_t>& data) {
  Md5 h;
  h.update(data);
  return h.finish();
}

/// The threads of this process (Linux: one entry each under /proc/self/task).
std::ptrdiff_t thread_count() {
  return std::distance(std::filesystem::directory_iterator("/proc/self/task"),
                       std::filesystem::directory_iterator{});
}

}  // namespace

TEST_CASE("each task's digest reaches its own future", "[hash_pool]") {
  std::vector<std::vector<std::uint8_t>> inputs;
  for (std::size_t i = 0; i < 60; ++i) {
    inputs.push_back(bytes_of(1000 + (i % 7) * 40000, static_cast<std::uint8_t>(i)));
  }
  for (const unsigned threads : {1u, 3u}) {
    HashPool pool(threads);
    std::vector<std::future<Md5Digest>> digests;
    for (const auto& in : inputs) digests.push_back(pool.submit([&in] { return md5_of(in); }));
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      INFO(threads << " threads, task " << i);
      CHECK(digests[i].get() == md5_of(inputs[i]));
    }
  }
}

TEST_CASE("a task's exception reaches its future and no other", "[hash_pool][error]") {
  HashPool pool(2);
  auto good = pool.submit([] { return md5_of(bytes_of(10, 1)); });
  auto bad = pool.submit([]() -> Md5Digest { throw std::runtime_error("cannot read"); });
  auto after = pool.submit([] { return md5_of(bytes_of(20, 2)); });
  CHECK(good.get() == md5_of(bytes_of(10, 1)));
  CHECK_THROWS_WITH(bad.get(), "cannot read");
  CHECK(after.get() == md5_of(bytes_of(20, 2)));
}

TEST_CASE("no thread starts before the first task", "[hash_pool]") {
  const auto before = thread_count();
  {
    HashPool pool(4);
    CHECK(thread_count() == before);
    CHECK(pool.submit([] { return md5_of(bytes_of(1, 0)); }).get() == md5_of(bytes_of(1, 0)));
    CHECK(thread_count() > before);
  }
  CHECK(thread_count() == before);
}

TEST_CASE("destroying the pool drops the tasks not started and waits for the running one",
          "[hash_pool]") {
  std::promise<void> started;
  std::atomic<bool> release{false};
  std::future<Md5Digest> running;
  std::vector<std::future<Md5Digest>> queued;
  std::thread releaser;
  {
    HashPool pool(1);
    running = pool.submit([&] {
      started.set_value();
      while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      return md5_of(bytes_of(5, 5));
    });
    for (int i = 0; i < 4; ++i) queued.push_back(pool.submit([] { return Md5Digest{}; }));
    started.get_future().wait();
    // Released only while the pool is being destroyed: its destructor must wait for it.
    releaser = std::thread([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      release = true;
    });
  }
  releaser.join();
  CHECK(running.get() == md5_of(bytes_of(5, 5)));
  for (auto& f : queued) CHECK_THROWS_AS(f.get(), std::future_error);
}
