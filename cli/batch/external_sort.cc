// Sorted runs on disk and their merge; record files; the work folder.
#include "batch/external_sort.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <queue>
#include <system_error>

#include "asdfcore/error.h"

namespace fs = std::filesystem;

namespace fitsasdf::cli::batch {
namespace {

constexpr std::size_t kReadBuffer = 64 * 1024;
constexpr const char* kLockName = "lock";
constexpr const char* kMakingPrefix = ".fitsasdf-work-new-";
/// Bytes a buffered record costs beyond its key and value (the pair and two string headers).
constexpr std::size_t kRecordOverhead = sizeof(std::pair<std::string, std::string>);

[[noreturn]] void io_error(const std::string& what, const fs::path& path, int err) {
  throw asdfcore::Error(asdfcore::ErrorCode::kIo,
                        what + (err ? std::string(": ") + std::strerror(err) : std::string()),
                        asdfcore::ErrorContext{.file = path.string()});
}

void put_u32(std::FILE* file, std::uint32_t n) {
  const unsigned char b[4] = {static_cast<unsigned char>(n >> 24),
                              static_cast<unsigned char>(n >> 16),
                              static_cast<unsigned char>(n >> 8), static_cast<unsigned char>(n)};
  std::fwrite(b, 1, 4, file);
}

}  // namespace

WorkFolder::WorkFolder(const fs::path& parent, const std::string& prefix) {
  // Made and locked under a name no sweep looks at, then renamed to its own: a sweep by a run
  // beside this one never sees it unlocked.
  std::string making = (parent / (std::string(kMakingPrefix) + "XXXXXX")).string();
  if (mkdtemp(making.data()) == nullptr) {
    io_error("cannot make a work folder", making, errno);
  }
  lock_ = open((fs::path(making) / kLockName).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  int err = 0;
  if (lock_ < 0 || flock(lock_, LOCK_EX | LOCK_NB) != 0) {
    err = errno;
  } else {
    path_ = parent / (prefix + making.substr(making.size() - 6));
    // RENAME_NOREPLACE keeps an existing folder of that name; file systems without it (some
    // network ones) get a plain rename, which still refuses a folder that is not empty.
    if (renameat2(AT_FDCWD, making.c_str(), AT_FDCWD, path_.c_str(), RENAME_NOREPLACE) != 0) {
      err = errno;
      if ((err == EINVAL || err == ENOSYS) && rename(making.c_str(), path_.c_str()) == 0) err = 0;
    }
  }
  if (err != 0) {
    if (lock_ >= 0) close(lock_);
    std::error_code ec;
    fs::remove_all(making, ec);
    io_error("cannot make and lock a work folder", making, err);
  }
}

WorkFolder::~WorkFolder() {
  std::error_code ec;
  fs::remove_all(path_, ec);
  if (lock_ >= 0) close(lock_);
}

std::size_t WorkFolder::remove_abandoned(const fs::path& parent, const std::string& prefix) {
  std::size_t removed = 0;
  std::error_code ec;
  fs::directory_iterator it(parent, ec);
  if (ec) return 0;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (!it->path().filename().string().starts_with(prefix)) continue;
    std::error_code type_ec;
    if (!it->is_directory(type_ec) || it->is_symlink(type_ec)) continue;
    const int fd = open((it->path() / kLockName).c_str(), O_RDONLY | O_CLOEXEC);
    // No lock file: a folder being made this instant, or not ours; left alone.
    if (fd < 0) continue;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
      std::error_code rm_ec;
      if (fs::remove_all(it->path(), rm_ec) > 0) ++removed;
    }
    close(fd);
  }
  return removed;
}

std::string index_key(std::uint64_t n) {
  std::string key(8, '\0');
  for (int i = 7; i >= 0; --i, n >>= 8) key[static_cast<std::size_t>(i)] = static_cast<char>(n & 0xff);
  return key;
}

std::uint64_t key_index(std::string_view key) {
  std::uint64_t n = 0;
  for (const char c : key.substr(0, 8)) n = (n << 8) | static_cast<unsigned char>(c);
  return n;
}

RecordWriter::RecordWriter(const fs::path& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "wbe");
  if (!file_) io_error("cannot create a work file", path, errno);
}

RecordWriter::~RecordWriter() {
  if (file_) std::fclose(file_);
}

void RecordWriter::write(std::string_view key, std::string_view value) {
  put_u32(file_, static_cast<std::uint32_t>(key.size()));
  put_u32(file_, static_cast<std::uint32_t>(value.size()));
  std::fwrite(key.data(), 1, key.size(), file_);
  std::fwrite(value.data(), 1, value.size(), file_);
  if (std::ferror(file_)) io_error("cannot write a work file", path_, errno);
}

void RecordWriter::close() {
  if (!file_) return;
  const bool failed = std::fflush(file_) != 0 || std::ferror(file_);
  const int err = errno;
  std::fclose(file_);
  file_ = nullptr;
  if (failed) io_error("cannot write a work file", path_, err);
}

RecordReader::RecordReader(const fs::path& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "rbe");
  if (!file_) io_error("cannot read a work file", path, errno);
  std::setvbuf(file_, nullptr, _IOFBF, kReadBuffer);
}

RecordReader::~RecordReader() {
  if (file_) std::fclose(file_);
}

bool RecordReader::next(std::string& key, std::string& value) {
  unsigned char head[8];
  const std::size_t got = std::fread(head, 1, sizeof head, file_);
  if (got == 0 && std::feof(file_)) return false;
  auto u32 = [&](int at) {
    return static_cast<std::uint32_t>(head[at]) << 24 | static_cast<std::uint32_t>(head[at + 1]) << 16 |
           static_cast<std::uint32_t>(head[at + 2]) << 8 | head[at + 3];
  };
  if (got == sizeof head) {
    key.resize(u32(0));
    value.resize(u32(4));
    if (std::fread(key.data(), 1, key.size(), file_) == key.size() &&
        std::fread(value.data(), 1, value.size(), file_) == value.size()) {
      return true;
    }
  }
  if (std::ferror(file_)) io_error("cannot read a work file", path_, errno);
  throw asdfcore::Error(asdfcore::ErrorCode::kMalformed, "a work file ends inside a record",
                        asdfcore::ErrorContext{.file = path_.string()});
}

/// Either the records of memory, sorted, or the runs on disk merged.
struct SortedStream::State {
  std::vector<std::pair<std::string, std::string>> memory;
  std::size_t at = 0;
  struct Run {
    std::unique_ptr<RecordReader> reader;
    std::string key, value;
  };
  std::vector<Run> runs;
  // Runs by their current key, the earlier run first on a tie (stable).
  struct Later {
    const std::vector<Run>* runs;
    bool operator()(std::size_t a, std::size_t b) const {
      const int c = (*runs)[a].key.compare((*runs)[b].key);
      return c != 0 ? c > 0 : a > b;
    }
  };
  std::priority_queue<std::size_t, std::vector<std::size_t>, Later> heap{Later{&runs}};
  std::vector<fs::path> files;  ///< Removed at the end.

  ~State() {
    runs.clear();
    std::error_code ec;
    for (const auto& f : files) fs::remove(f, ec);
  }
};

SortedStream::SortedStream() = default;
SortedStream::~SortedStream() = default;
SortedStream::SortedStream(SortedStream&&) noexcept = default;
SortedStream& SortedStream::operator=(SortedStream&&) noexcept = default;

bool SortedStream::next(std::string& key, std::string& value) {
  if (!state_) return false;
  State& s = *state_;
  if (s.runs.empty()) {
    if (s.at >= s.memory.size()) return false;
    key = std::move(s.memory[s.at].first);
    value = std::move(s.memory[s.at].second);
    ++s.at;
    return true;
  }
  if (s.heap.empty()) return false;
  const std::size_t i = s.heap.top();
  s.heap.pop();
  auto& run = s.runs[i];
  key.swap(run.key);
  value.swap(run.value);
  if (run.reader->next(run.key, run.value)) s.heap.push(i);
  return true;
}

ExternalSorter::ExternalSorter(fs::path folder, std::string name, std::size_t budget)
    : folder_(std::move(folder)), name_(std::move(name)), budget_(budget) {}

ExternalSorter::~ExternalSorter() {
  std::error_code ec;
  for (const auto& run : runs_) fs::remove(run, ec);
}

void ExternalSorter::add(std::string_view key, std::string_view value) {
  buffer_.emplace_back(std::string(key), std::string(value));
  buffered_ += key.size() + value.size() + kRecordOverhead;
  ++count_;
  if (buffered_ >= budget_) spill();
}

fs::path ExternalSorter::run_path() {
  return folder_ / (name_ + "-" + std::to_string(made_++));
}

void ExternalSorter::spill() {
  std::stable_sort(buffer_.begin(), buffer_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  const fs::path path = run_path();
  RecordWriter out(path);
  runs_.push_back(path);
  for (const auto& [key, value] : buffer_) out.write(key, value);
  out.close();
  // Give the memory back, not only the elements.
  std::vector<std::pair<std::string, std::string>>().swap(buffer_);
  buffered_ = 0;
}

SortedStream ExternalSorter::sorted() {
  SortedStream stream;
  stream.state_ = std::make_unique<SortedStream::State>();
  auto& s = *stream.state_;
  if (runs_.empty()) {
    std::stable_sort(buffer_.begin(), buffer_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    s.memory = std::move(buffer_);
    buffer_.clear();
    buffered_ = 0;
    return stream;
  }
  if (!buffer_.empty()) spill();
  // Merge neighbouring groups of runs until few are left; a group's run takes the group's
  // place, so ties still come out in the order added.
  while (runs_.size() > kFanIn) {
    std::vector<fs::path> merged;
    for (std::size_t first = 0; first < runs_.size(); first += kFanIn) {
      const std::size_t last = std::min(runs_.size(), first + kFanIn);
      if (last - first == 1) {
        merged.push_back(runs_[first]);
        continue;
      }
      ExternalSorter group(folder_, name_, budget_);
      group.made_ = made_;
      group.runs_.assign(runs_.begin() + static_cast<std::ptrdiff_t>(first),
                         runs_.begin() + static_cast<std::ptrdiff_t>(last));
      SortedStream part = group.sorted();
      made_ = group.made_;
      const fs::path path = run_path();
      RecordWriter out(path);
      std::string key, value;
      while (part.next(key, value)) out.write(key, value);
      out.close();
      merged.push_back(path);
    }
    runs_ = std::move(merged);
  }
  s.files = runs_;
  s.runs.resize(runs_.size());
  for (std::size_t i = 0; i < runs_.size(); ++i) {
    s.runs[i].reader = std::make_unique<RecordReader>(runs_[i]);
    if (s.runs[i].reader->next(s.runs[i].key, s.runs[i].value)) s.heap.push(i);
  }
  runs_.clear();
  return stream;
}

}  // namespace fitsasdf::cli::batch
