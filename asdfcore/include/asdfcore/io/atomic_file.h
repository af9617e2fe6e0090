#pragma once
/// \file
/// Output files that appear under their final name only when complete.

#include <cstdint>
#include <span>
#include <string>

namespace asdfcore::io {

/// Writes to a temporary file in the target's folder and renames it into place on `commit()`.
/// If the object is destroyed without a commit (an exception, a failed conversion) the temporary
/// file is removed, so no reader ever sees a half-written output.
class AtomicFile {
 public:
  /// Create the temporary file beside `path`. Throws `Error` (io) when the folder is not
  /// writable. With `durable`, `commit()` flushes the data to disk before the rename.
  explicit AtomicFile(std::string path, bool durable = true);
  /// Create the temporary file under the name `temp_path` (in the target's folder; it must not
  /// exist), for a writer that can find and remove its own leftovers.
  AtomicFile(std::string path, std::string temp_path, bool durable);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  /// Take over `other`'s temporary file; `other` then owns nothing and removes nothing.
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&& other) = delete;

  /// Append `bytes` to the file.
  void write(std::span<const std::uint8_t> bytes);
  /// Append `count` zero bytes.
  void write_zeros(std::uint64_t count);
  /// Append every span of `parts` in order with as few system calls as possible.
  void write_all(std::span<const std::span<const std::uint8_t>> parts);
  /// Append `length` bytes read from `fd` at `offset`, letting the kernel copy them
  /// (copy_file_range; a read/write loop through a small buffer where that is not possible).
  void copy_from(int fd, std::uint64_t offset, std::uint64_t length);
  /// Overwrite `bytes` at byte `offset` of what was already written (a header whose checksum
  /// is known only after its data). Does not move the append position.
  void write_at(std::uint64_t offset, std::span<const std::uint8_t> bytes);
  /// Give the file the permission bits `mode` (those of a file it replaces) instead of the
  /// usual ones under the umask.
  void set_mode(unsigned mode);
  /// Give the file the owner `uid` and group `gid` (those of a file it replaces) where the
  /// process may; silently keeps its own where it may not.
  void set_owner(unsigned uid, unsigned gid) noexcept;
  /// Return the number of bytes written so far.
  std::uint64_t position() const noexcept { return position_; }

  /// Close the temporary file and rename it to the final path. With `replace` false, a file
  /// already at the final path is kept and `Error` (exists) thrown instead, with no window in
  /// which another writer's file could be replaced (renameat2's RENAME_NOREPLACE, or a hard
  /// link where the file system lacks it).
  void commit(bool replace = true);

  /// Return the final path.
  const std::string& path() const noexcept { return path_; }

 private:
  void discard() noexcept;

  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  bool durable_ = true;
  std::uint64_t position_ = 0;
};

}  // namespace asdfcore::io
