#include "update/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "asdfcore/compression/md5.h"
#include "asdfcore/error.h"
#include "util/endian.h"

namespace asdfcore::update_detail {
namespace {

constexpr std::string_view kMagic = "FITSASDF UNDO JOURNAL 1\n";
constexpr std::size_t kDigestSize = 16;

void put_u64(std::vector<std::uint8_t>& out, std::uint64_t v) {
  std::uint8_t b[8];
  detail::store_be(b, v, 8);
  out.insert(out.end(), b, b + 8);
}

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw Error(ErrorCode::kIo, what + ": " + std::strerror(err), ErrorContext{.file = path});
}

}  // namespace

std::vector<std::uint8_t> encode_journal(const Journal& journal) {
  std::vector<std::uint8_t> out(kMagic.begin(), kMagic.end());
  put_u64(out, journal.device);
  put_u64(out, journal.inode);
  put_u64(out, journal.old_size);
  put_u64(out, journal.records.size());
  for (const UndoRecord& r : journal.records) {
    put_u64(out, r.offset);
    put_u64(out, r.bytes.size());
    out.insert(out.end(), r.bytes.begin(), r.bytes.end());
  }
  compression::Md5 md5;
  md5.update(out);
  const compression::Md5Digest digest = md5.finish();
  out.insert(out.end(), digest.begin(), digest.end());
  return out;
}

std::optional<Journal> decode_journal(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < kMagic.size() + 32 + kDigestSize ||
      std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0) {
    return std::nullopt;
  }
  const auto body = bytes.first(bytes.size() - kDigestSize);
  compression::Md5 md5;
  md5.update(body);
  const compression::Md5Digest digest = md5.finish();
  if (std::memcmp(digest.data(), bytes.data() + body.size(), kDigestSize) != 0) return std::nullopt;

  std::size_t at = kMagic.size();
  auto take = [&](std::uint64_t& v) {
    if (body.size() - at < 8) return false;
    v = detail::load_be(body.data() + at, 8);
    at += 8;
    return true;
  };
  Journal j;
  std::uint64_t count = 0;
  if (!take(j.device) || !take(j.inode) || !take(j.old_size) || !take(count)) return std::nullopt;
  for (std::uint64_t i = 0; i < count; ++i) {
    UndoRecord r;
    std::uint64_t length = 0;
    if (!take(r.offset) || !take(length) || length > body.size() - at) return std::nullopt;
    r.bytes.assign(body.begin() + static_cast<std::ptrdiff_t>(at),
                   body.begin() + static_cast<std::ptrdiff_t>(at + length));
    at += static_cast<std::size_t>(length);
    j.records.push_back(std::move(r));
  }
  if (at != body.size()) return std::nullopt;
  return j;
}

void sync_folder_of(const std::string& path) {
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  const std::string name = folder.empty() ? "." : folder.string();
  const int dir = ::open(name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) fail(name, "cannot open the folder to sync it", errno);
  const int rc = ::fsync(dir);
  const int err = errno;
  ::close(dir);
  if (rc != 0) fail(name, "cannot sync the folder", err);
}

void write_journal(const std::string& path, const Journal& journal, bool durable) {
  const std::vector<std::uint8_t> bytes = encode_journal(journal);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) fail(path, "cannot create the update journal", errno);
  std::size_t done = 0;
  int err = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (err == 0 && durable && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(path.c_str());
    fail(path, "cannot write the update journal", err);
  }
  if (durable) sync_folder_of(path);
}

}  // namespace asdfcore::update_detail
