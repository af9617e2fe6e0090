#include "format/hash_pool.h"

#include <system_error>
#include <utility>

namespace asdfcore::format {

HashPool::~HashPool() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();  // their futures report a broken promise; nobody waits for them any more
  }
  ready_.notify_all();
  for (auto& t : threads_) t.join();
}

std::future<compression::Md5Digest> HashPool::submit(Task task) {
  std::packaged_task<compression::Md5Digest()> job(std::move(task));
  auto digest = job.get_future();
  {
    const std::lock_guard lock(mutex_);
    queue_.push_back(std::move(job));
  }
  if (threads_.size() < wanted_) {
    try {
      threads_.emplace_back([this] { work(); });
    } catch (const std::system_error&) {
      // No more threads to be had: the ones started take the task. With none at all, it runs
      // here and now.
      if (threads_.empty()) {
        std::packaged_task<compression::Md5Digest()> now;
        {
          const std::lock_guard lock(mutex_);
          now = std::move(queue_.back());
          queue_.pop_back();
        }
        now();
        return digest;
      }
    }
  }
  ready_.notify_one();
  return digest;
}

void HashPool::work() {
  for (;;) {
    std::packaged_task<compression::Md5Digest()> job;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job();  // an exception of the task goes into its future
  }
}

}  // namespace asdfcore::format
