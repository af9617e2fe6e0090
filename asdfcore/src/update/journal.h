#pragma once
// The undo journal of an in-place commit: the bytes of the file that the commit overwrites, as
// they were, and the file's old size. It sits beside the file (`.NAME.fitsasdf-journal`) from
// before the first byte of the file changes until the commit is complete; a journal found later
// means the commit was interrupted, and writing its bytes back gives the old file exactly.
//
// Layout (integers big-endian):
//   "FITSASDF UNDO JOURNAL 1\n"  (24 bytes)
//   u64 st_dev, u64 st_ino, u64 old_size, u64 record_count      of the file it belongs to
//   record_count times: u64 offset, u64 length, length bytes      old bytes at offset
//   16 bytes: MD5 of everything before                            absent or wrong: incomplete
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace asdfcore::update_detail {

/// Old bytes of one region of the file.
struct UndoRecord {
  std::uint64_t offset = 0;
  std::vector<std::uint8_t> bytes;
};

/// What an in-place commit needs to undo itself.
struct Journal {
  std::uint64_t device = 0;  ///< st_dev of the file.
  std::uint64_t inode = 0;   ///< st_ino of the file.
  std::uint64_t old_size = 0;
  std::vector<UndoRecord> records;
};

/// Return the bytes of `journal`.
std::vector<std::uint8_t> encode_journal(const Journal& journal);

/// Return the journal in `bytes`, or nothing when they are not a complete journal (cut short by
/// a crash while it was written, or damaged).
std::optional<Journal> decode_journal(std::span<const std::uint8_t> bytes);

/// Create `path` (it must not exist) holding `journal`; with `durable`, the journal and its
/// folder entry are on disk when this returns. Throws `Error` (io), removing what it created.
void write_journal(const std::string& path, const Journal& journal, bool durable);

/// fsync the folder holding `path` (a creation, rename or removal in it then survives a
/// crash). Throws `Error` (io) when the folder cannot be opened or synced.
void sync_folder_of(const std::string& path);

}  // namespace asdfcore::update_detail
