#pragma once
// Block checksums computed beside the copy: the writer hands each block's MD5 to a few threads,
// first come first served, and goes on copying the next blocks; it collects the digests in
// block order to complete the headers. MD5 is sequential within a block, so only a file of
// several blocks hashes on more than one core.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "asdfcore/compression/md5.h"

namespace asdfcore::format {

/// Up to `threads` threads that run hashing tasks in the order they were submitted. The
/// threads start with the first task (a file of small blocks never starts one). Destroying
/// the pool drops the tasks not started and waits for the running ones.
class HashPool {
 public:
  using Task = std::function<compression::Md5Digest()>;

  explicit HashPool(unsigned threads) : wanted_(threads == 0 ? 1 : threads) {}
  ~HashPool();
  HashPool(const HashPool&) = delete;
  HashPool& operator=(const HashPool&) = delete;

  /// Queue `task`; its digest (or its exception) comes through the future.
  std::future<compression::Md5Digest> submit(Task task);

 private:
  void work();

  unsigned wanted_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::packaged_task<compression::Md5Digest()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace asdfcore::format
