// Committing an update. In place: the undo journal is made durable first, then the new blocks,
// the tree and the block index are written, the file synced, and the journal removed, which is
// the moment the new file becomes the file. Otherwise the whole file is written beside the
// original and renamed over it. ARCHITECTURE.md ("In-place updates") argues why a crash at any
// step leaves the old file or the new one.
#include "update/commit.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>

#include "asdfcore/asdf_writer.h"
#include "asdfcore/compression/md5.h"
#include "asdfcore/error.h"
#include "asdfcore/format/block_index.h"
#include "asdfcore/io/atomic_file.h"
#include "asdfcore/tree/walk.h"
#include "update/crash_point.h"
#include "update/journal.h"

namespace asdfcore {
namespace update_detail {

void crash_point() {
  static const long target = [] {
    const char* value = std::getenv("FITSASDF_TEST_CRASH_AT");
    return value == nullptr ? 0L : std::strtol(value, nullptr, 10);
  }();
  static long passed = 0;
  if (target > 0 && ++passed == target) ::raise(SIGKILL);
}

std::string update_temp_path(const std::string& path) {
  return update_journal_path(path) + "-rewrite";
}

namespace {

using tree::Node;
using tree::NodePtr;

[[noreturn]] void io_fail(const std::string& path, const std::string& what, int err) {
  throw Error(ErrorCode::kIo, what + ": " + std::strerror(err), ErrorContext{.file = path});
}

/// fsync the folder of `path` where it can: after a commit point (or a rollback) a failure
/// there changes nothing about which version the file is.
void sync_folder_quietly(const std::string& path) noexcept {
  try {
    sync_folder_of(path);
  } catch (...) {
  }
}

FileIdentity identity_of(const struct stat& st) {
  return FileIdentity{.device = static_cast<std::uint64_t>(st.st_dev),
                      .inode = static_cast<std::uint64_t>(st.st_ino),
                      .size = static_cast<std::uint64_t>(st.st_size),
                      .mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 +
                                  st.st_mtim.tv_nsec};
}

/// The file being committed: open read-write and locked against other committers (and
/// recoverers) until destroyed.
class LockedFile {
 public:
  explicit LockedFile(std::string path) : path_(std::move(path)) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
    if (fd_ < 0) io_fail(path_, "cannot open the file for update", errno);
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) {
        const int err = errno;
        ::close(fd_);
        io_fail(path_, "cannot lock the file for update", err);
      }
    }
  }
  ~LockedFile() { ::close(fd_); }  // closing releases the lock
  LockedFile(const LockedFile&) = delete;
  LockedFile& operator=(const LockedFile&) = delete;

  int fd() const noexcept { return fd_; }
  FileIdentity identity() const {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) io_fail(path_, "cannot stat the file", errno);
    return identity_of(st);
  }
  void read(std::uint64_t offset, std::span<std::uint8_t> out) const {
    std::size_t done = 0;
    while (done < out.size()) {
      const ssize_t n = ::pread(fd_, out.data() + done, out.size() - done,
                                static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) io_fail(path_, "cannot read the file", errno);
      if (n == 0) {
        throw Error(ErrorCode::kConflict, "the file is shorter than when it was opened",
                    ErrorContext{.file = path_, .offset = offset + done});
      }
      done += static_cast<std::size_t>(n);
    }
  }
  void write(std::uint64_t offset, std::span<const std::uint8_t> bytes) const {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done,
                                 static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) io_fail(path_, "cannot write the file", errno);
      done += static_cast<std::size_t>(n);
    }
  }
  void truncate(std::uint64_t size) const {
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) {
      io_fail(path_, "cannot set the file's size", errno);
    }
  }
  void sync() const {
    if (::fsync(fd_) != 0) io_fail(path_, "cannot sync the file", errno);
  }

 private:
  std::string path_;
  int fd_ = -1;
};

/// A new block, encoded: its header and its stored bytes.
struct EncodedBlock {
  std::array<std::uint8_t, format::kBlockPrefixSize + format::kBlockHeaderSize> header{};
  std::vector<std::uint8_t> compressed;             // owns the stored bytes when compressed
  std::vector<std::span<const std::uint8_t>> data;  // the stored bytes
  std::uint64_t size() const {
    std::uint64_t n = header.size();
    for (const auto& d : data) n += d.size();
    return n;
  }
};

EncodedBlock encode_block(const format::BlockToWrite& block, format::ChecksumConvention sums,
                          const std::string& path) {
  if (!block.file_ranges.empty() || block.source || block.streamed) {
    throw Error(ErrorCode::kUnsupported,
                "an array added by an update must be in memory (not streamed or pending)",
                ErrorContext{.file = path});
  }
  EncodedBlock out;
  format::BlockHeader header;
  header.set_compression_label(block.compression);
  compression::Md5 decoded_md5;
  for (const auto& p : block.pieces) {
    header.data_size += p.size();
    if (sums == format::ChecksumConvention::kDecodedData) decoded_md5.update(p);
  }
  if (block.compression.empty()) {
    out.data = block.pieces;
  } else {
    static const compression::CodecRegistry codecs = compression::CodecRegistry::with_builtins();
    const compression::Codec* codec = codecs.find(block.compression);
    if (codec == nullptr) {
      throw Error(ErrorCode::kInvalidArgument, "no codec for compression '" + block.compression + "'",
                  ErrorContext{.file = path});
    }
    std::vector<std::uint8_t> joined;
    std::span<const std::uint8_t> input;
    if (block.pieces.size() == 1) {
      input = block.pieces.front();
    } else {
      for (const auto& p : block.pieces) joined.insert(joined.end(), p.begin(), p.end());
      input = joined;
    }
    compression::CompressOptions options;
    options.level = block.level;
    out.compressed = codec->compress(input, options);
    out.data.emplace_back(out.compressed);
  }
  for (const auto& d : out.data) header.used_size += d.size();
  header.allocated_size = header.used_size;
  if (sums == format::ChecksumConvention::kStoredBytes) {
    compression::Md5 md5;
    for (const auto& d : out.data) md5.update(d);
    header.checksum = md5.finish();
  } else if (sums == format::ChecksumConvention::kDecodedData) {
    header.checksum = decoded_md5.finish();
  }
  out.header = format::encode_block_header(header);
  return out;
}

/// Blanks ending in a newline: space the reader skips after the tree.
std::vector<std::uint8_t> blank_fill(std::uint64_t length) {
  std::vector<std::uint8_t> fill(static_cast<std::size_t>(length), ' ');
  if (!fill.empty()) fill.back() = '\n';
  return fill;
}

/// The plan of a commit: what the file becomes.
struct Layout {
  CommitResult result;
  std::string tree_text;
  std::uint64_t tree_start = 0;
  std::uint64_t old_tree_end = 0;
  /// In place: the first `moved` blocks are copied after the last one to make room for the
  /// tree, which then runs up to block `moved` (the blocks renumbered in the tree text).
  std::size_t moved = 0;
};

/// Moving blocks is worth it up to this many bytes (and a quarter of the file); beyond, the
/// rewrite, which also leaves the file compact, costs little more.
constexpr std::uint64_t kMaxMovedBytes = std::uint64_t{64} << 20;

/// Tag namespaces whose nodes reach blocks only through ndarray `source` numbers (the ASDF
/// Standard's and astropy's); a tree with tags of others might number blocks in ways this
/// library cannot see, so its blocks are never renumbered.
bool only_known_block_users(const NodePtr& root) {
  static constexpr std::string_view kKnown[] = {"tag:stsci.edu:asdf/", "tag:astropy.org:astropy/",
                                                "tag:yaml.org,2002:", "asdf://asdf-format.org/",
                                                "asdf://astropy.org/"};
  bool known = true;
  tree::walk(root, [&](const NodePtr& node, const std::string&) {
    if (!node->tag().empty() &&
        std::none_of(std::begin(kKnown), std::end(kKnown),
                     [&](std::string_view prefix) { return node->tag().starts_with(prefix); })) {
      known = false;
    }
    return known;
  });
  return known;
}

/// A copy of `root` whose ndarray block numbers follow the move of the first `moved` of
/// `count` old blocks after the others (blocks numbered from `count` on, the new ones, keep
/// their numbers; negative numbers are made absolute first, out of `total`).
NodePtr renumbered(const NodePtr& root, std::size_t moved, std::size_t count, std::size_t total) {
  NodePtr copy = tree::deep_copy(root);
  tree::walk(copy, [&](const NodePtr& node, const std::string&) {
    if (!tree::is_ndarray(*node) || !node->is_mapping()) return true;
    const NodePtr source = node->get("source");
    if (!source || source->kind() != tree::NodeKind::kInt) return true;
    std::int64_t j = source->as_int();
    if (j < 0) j += static_cast<std::int64_t>(total);
    if (j >= 0 && static_cast<std::size_t>(j) < count) {
      const auto u = static_cast<std::size_t>(j);
      j = static_cast<std::int64_t>(u < moved ? count - moved + u : u - moved);
    }
    node->set("source", Node::make_int(j));
    return true;
  });
  return copy;
}

std::size_t count_unreferenced(const NodePtr& root, std::size_t total) {
  std::vector<bool> used(total, false);
  tree::walk(root, [&](const NodePtr& node, const std::string&) {
    if (tree::is_ndarray(*node) && node->is_mapping()) {
      const NodePtr source = node->get("source");
      if (source && source->kind() == tree::NodeKind::kInt) {
        const std::int64_t s = source->as_int();
        const std::int64_t i = s < 0 ? static_cast<std::int64_t>(total) + s : s;
        if (i >= 0 && static_cast<std::size_t>(i) < total) used[static_cast<std::size_t>(i)] = true;
      }
    }
    return true;
  });
  return static_cast<std::size_t>(std::count(used.begin(), used.end(), false));
}

/// Make room for the tree by moving the fewest leading blocks after the last one, when that
/// moves little and every block user is known; return whether `l` now says so.
bool try_moving_blocks(const UpdateState& s, const AsdfWriteOptions& w, Layout& l) {
  const auto& blocks = s.file->container().blocks();
  const std::size_t n = blocks.size();
  if (n == 0 || blocks.back().header.streamed() || !only_known_block_users(s.root)) return false;
  const std::uint64_t end_of_blocks = blocks.back().data_offset + blocks.back().header.allocated_size;
  const std::uint64_t limit = std::min(kMaxMovedBytes, l.result.old_size / 4);
  // Room for the tree, room for it to grow later, and for the block numbers it will hold.
  const std::uint64_t wanted = l.tree_text.size() +
                               format::default_tree_padding(l.tree_start + l.tree_text.size(),
                                                            l.tree_text.size()) +
                               8 * (n + s.added.size());
  std::uint64_t moved_bytes = 0;
  for (std::size_t k = 1; k <= n; ++k) {
    moved_bytes += format::kBlockPrefixSize + format::kBlockHeaderSize + blocks[k - 1].header.used_size;
    if (moved_bytes > limit) return false;
    const std::uint64_t room = (k < n ? blocks[k].offset : end_of_blocks) - l.tree_start;
    if (room < wanted) continue;
    std::string text = render_tree(renumbered(s.root, k, n, n + s.added.size()), w, s.path);
    if (text.size() > room) return false;
    l.moved = k;
    l.tree_text = std::move(text);
    l.result.new_tree = l.tree_text;
    l.result.new_tree_size = l.tree_text.size();
    l.result.blocks_moved = k;
    l.result.bytes_moved = moved_bytes;
    l.result.reason = "the first " + std::to_string(k) + " block(s) (" +
                      std::to_string(moved_bytes) + " bytes) moved after the last to make room";
    return true;
  }
  return false;
}

Layout lay_out(const UpdateState& s) {
  const format::Container& c = s.file->container();
  const format::Prologue& p = c.prologue();
  Layout l;
  l.tree_start = p.tree_offset.value_or(p.end);
  l.old_tree_end = p.tree_offset ? *p.tree_offset + p.tree_size : p.end;
  CommitResult& r = l.result;
  r.old_size = c.bytes().size();
  r.new_size = r.old_size;
  r.old_tree_size = p.tree_size;
  r.old_tree = s.old_tree;
  if (s.added.empty() && tree::deep_equal(*s.root, *s.file->tree())) return l;

  AsdfWriteOptions w;
  w.asdf_standard = s.file->asdf_standard();
  w.validate = s.options.validate;
  l.tree_text = render_tree(s.root, w, s.path);
  r.new_tree = l.tree_text;
  r.new_tree_size = l.tree_text.size();
  r.blocks_added = s.added.size();
  const auto& blocks = c.blocks();
  r.blocks_unreferenced = count_unreferenced(s.root, blocks.size() + s.added.size());
  if (!s.added.empty() && !blocks.empty() && blocks.back().header.streamed()) {
    throw Error(ErrorCode::kUnsupported,
                "the file ends in a streamed block, after which no array can be added; "
                "defragment it first (fitsasdf defragment)",
                ErrorContext{.file = s.path});
  }
  const std::uint64_t room = (blocks.empty() ? r.old_size : blocks.front().offset) - l.tree_start;
  r.tree_room = room;
  const bool fits = blocks.empty() || l.tree_text.size() <= room;
  if (s.options.mode == CommitMode::kRewrite) {
    r.kind = CommitKind::kRewritten;
    r.reason = "a rewrite was asked for";
  } else if (!fits && try_moving_blocks(s, w, l)) {
    r.kind = CommitKind::kInPlace;
  } else if (!fits) {
    r.reason = "the new tree (" + std::to_string(l.tree_text.size()) +
               " bytes) does not fit in the " + std::to_string(room) +
               " bytes before the first block";
    if (s.options.mode == CommitMode::kInPlace) {
      throw Error(ErrorCode::kUnsupported, "cannot update in place: " + r.reason,
                  ErrorContext{.file = s.path});
    }
    r.kind = CommitKind::kRewritten;
  } else {
    r.kind = CommitKind::kInPlace;
  }
  return l;
}

/// Check, under the lock, that the file is the one `s` opened, unchanged.
void check_unchanged(const UpdateState& s, const LockedFile& f, const Layout& l) {
  const ErrorContext at{.file = s.path};
  if (!(f.identity() == s.identity)) {
    throw Error(ErrorCode::kConflict,
                "the file changed on disk since it was opened for update; open it again", at);
  }
  std::string now(s.old_tree.size(), '\0');
  f.read(l.tree_start, std::span(reinterpret_cast<std::uint8_t*>(now.data()), now.size()));
  if (now != s.old_tree) {
    throw Error(ErrorCode::kConflict,
                "the file's tree changed on disk since it was opened for update; open it again", at);
  }
}

std::span<const std::uint8_t> bytes_of(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

/// One write of an in-place commit.
struct Piece {
  std::uint64_t offset = 0;
  std::span<const std::uint8_t> bytes;
};

void commit_in_place(UpdateState& s, LockedFile& f, Layout& l,
                     const std::vector<EncodedBlock>& fresh) {
  const format::Container& c = s.file->container();
  const auto& blocks = c.blocks();
  CommitResult& r = l.result;
  const std::uint64_t new_tree_end = l.tree_start + l.tree_text.size();

  std::vector<Piece> pieces;  // in the order they are written
  std::deque<std::vector<std::uint8_t>> owned;  // a deque: pieces point into its elements
  std::deque<io::Buffer> mapped;                 // moved blocks' stored bytes, kept mapped
  // New blocks first (after the last block, over the old block index), then their index:
  // bytes the old tree never reads.
  std::uint64_t new_size = blocks.empty() ? new_tree_end : r.old_size;
  std::uint64_t fill_end = std::max(l.old_tree_end, new_tree_end);
  if (!fresh.empty() || l.moved > 0) {
    std::uint64_t at = 0;
    if (blocks.empty()) {
      at = new_tree_end + format::default_tree_padding(new_tree_end, l.tree_text.size());
      fill_end = at;
    } else {
      at = blocks.back().data_offset + blocks.back().header.allocated_size;
    }
    // The tree's room now runs to the first block not moved (or to where the moved ones go).
    if (l.moved > 0) fill_end = l.moved < blocks.size() ? blocks[l.moved].offset : at;
    std::vector<std::uint64_t> offsets;
    for (std::size_t i = l.moved; i < blocks.size(); ++i) offsets.push_back(blocks[i].offset);
    for (std::size_t i = 0; i < l.moved; ++i) {
      // A moved block: its header (allocated trimmed to used, checksum kept) and stored bytes.
      format::BlockHeader header = blocks[i].header;
      header.allocated_size = header.used_size;
      const auto encoded = format::encode_block_header(header);
      owned.emplace_back(encoded.begin(), encoded.end());
      offsets.push_back(at);
      pieces.push_back({at, owned.back()});
      at += encoded.size();
      // Straight from the mapping: these pieces are written before the tree's, which is the
      // one that overwrites the moved blocks' old place.
      mapped.push_back(c.stored_data(i));
      pieces.push_back({at, mapped.back().span()});
      at += mapped.back().size();
    }
    for (const EncodedBlock& b : fresh) {
      offsets.push_back(at);
      pieces.push_back({at, b.header});
      at += b.header.size();
      for (const auto& d : b.data) {
        pieces.push_back({at, d});
        at += d.size();
      }
    }
    const std::string index = format::encode_block_index(offsets);
    owned.emplace_back(index.begin(), index.end());
    pieces.push_back({at, owned.back()});
    new_size = at + index.size();
  } else if (blocks.empty()) {
    fill_end = new_tree_end;  // the file ends with the tree
  }
  // Then the tree and blanks over what is left of the old one, in one write: the only step
  // after which (cut short) the file is neither version, until the journal undoes it.
  std::vector<std::uint8_t> tree_bytes(l.tree_text.begin(), l.tree_text.end());
  if (fill_end > new_tree_end) {
    const std::vector<std::uint8_t> fill = blank_fill(fill_end - new_tree_end);
    tree_bytes.insert(tree_bytes.end(), fill.begin(), fill.end());
  }
  owned.push_back(std::move(tree_bytes));
  pieces.push_back({l.tree_start, owned.back()});

  // The undo journal: the old bytes of every byte of the old file a piece overwrites or the
  // new size cuts off.
  Journal journal{.device = s.identity.device, .inode = s.identity.inode, .old_size = r.old_size};
  std::map<std::uint64_t, std::uint64_t> spans;  // start -> end, merged
  auto cover = [&](std::uint64_t start, std::uint64_t end) {
    end = std::min(end, r.old_size);
    if (start < end) spans[start] = std::max(spans[start], end);
  };
  for (const Piece& p : pieces) cover(p.offset, p.offset + p.bytes.size());
  cover(new_size, r.old_size);
  std::uint64_t cur_start = 0;
  std::uint64_t cur_end = 0;
  auto flush = [&] {
    if (cur_end <= cur_start) return;
    UndoRecord rec{.offset = cur_start, .bytes = std::vector<std::uint8_t>(cur_end - cur_start)};
    f.read(cur_start, rec.bytes);
    journal.records.push_back(std::move(rec));
  };
  for (const auto& [start, end] : spans) {
    if (start <= cur_end && cur_end > cur_start) {
      cur_end = std::max(cur_end, end);
    } else {
      flush();
      cur_start = start;
      cur_end = end;
    }
  }
  flush();

  const std::string journal_path = update_journal_path(s.path);
  const bool durable = s.options.durable;
  write_journal(journal_path, journal, durable);
  crash_point();
  try {
    for (const Piece& p : pieces) {
      f.write(p.offset, p.bytes);
      r.bytes_written += p.bytes.size();
      crash_point();
    }
    if (new_size != r.old_size) {
      f.truncate(new_size);
      crash_point();
    }
    if (durable) {
      f.sync();
      crash_point();
    }
  } catch (...) {
    // Undo now, while the lock is held; if even that fails, the journal stays for the next open.
    try {
      for (const UndoRecord& rec : journal.records) f.write(rec.offset, rec.bytes);
      f.truncate(r.old_size);
      f.sync();
      ::unlink(journal_path.c_str());
    } catch (...) {
    }
    throw;
  }
  // The commit point: with the journal gone, the new file is the file.
  if (::unlink(journal_path.c_str()) != 0) io_fail(journal_path, "cannot remove the update journal", errno);
  crash_point();
  // Past the commit point nothing may fail the commit: if the removal is not made durable, a
  // crash of the machine brings the journal back, and the next open rolls back to the old file,
  // still a whole version.
  if (durable) sync_folder_quietly(s.path);
  r.new_size = new_size;
}

void commit_rewrite(UpdateState& s, LockedFile& f, Layout& l,
                    const std::vector<EncodedBlock>& fresh) {
  const format::Container& c = s.file->container();
  const auto& blocks = c.blocks();
  CommitResult& r = l.result;
  // Under a fixed name, so that one left by a rewrite killed before its rename is found and
  // removed (we hold the lock: no other commit is using it).
  const std::string temp = update_temp_path(s.path);
  ::unlink(temp.c_str());
  io::AtomicFile out(s.path, temp, s.options.durable);
  struct stat st {};
  if (::fstat(f.fd(), &st) == 0) {  // keep the file's owner and permissions
    out.set_owner(st.st_uid, st.st_gid);
    out.set_mode(st.st_mode);
  }
  out.write(c.bytes().span().first(static_cast<std::size_t>(l.tree_start)));
  out.write(bytes_of(l.tree_text));
  const bool any_blocks = !blocks.empty() || !fresh.empty();
  if (any_blocks) {
    const std::uint64_t end = out.position();
    out.write(blank_fill(format::default_tree_padding(end, l.tree_text.size())));
  }
  std::vector<std::uint64_t> offsets;
  for (const format::BlockInfo& b : blocks) {
    offsets.push_back(out.position());
    format::BlockHeader header = b.header;
    if (!header.streamed()) header.allocated_size = header.used_size;
    out.write(format::encode_block_header(header));
    out.copy_from(f.fd(), b.data_offset, b.stored_size);
  }
  for (const EncodedBlock& b : fresh) {
    offsets.push_back(out.position());
    out.write(b.header);
    for (const auto& d : b.data) out.write(d);
  }
  if (any_blocks && !(blocks.size() > 0 && blocks.back().header.streamed())) {
    out.write(bytes_of(format::encode_block_index(offsets)));
  }
  r.bytes_written = out.position();
  r.new_size = out.position();
  crash_point();
  out.commit();
  crash_point();
}

}  // namespace

CommitResult plan_commit(const UpdateState& s) {
  Layout l = lay_out(s);
  CommitResult& r = l.result;
  if (r.kind == CommitKind::kInPlace) {
    const auto& blocks = s.file->container().blocks();
    std::uint64_t added = 0;
    for (const auto& plan : s.added) {
      for (const auto& b : plan.blocks) {
        for (const auto& p : b.pieces) added += p.size();
      }
    }
    r.bytes_written = l.tree_text.size() + added + r.bytes_moved;
    if (blocks.empty()) {
      r.new_size = l.tree_start + l.tree_text.size() + added;
    } else if (!s.added.empty() || l.moved > 0) {
      // About: the blocks added and moved, and an index of about 12 bytes an entry.
      r.new_size = blocks.back().data_offset + blocks.back().header.allocated_size + added +
                   r.bytes_moved + (s.added.size() + blocks.size()) * 12 + 24;
    }
  } else if (r.kind == CommitKind::kRewritten) {
    r.new_size = r.old_size + l.tree_text.size() - r.old_tree_size;
    r.bytes_written = r.new_size;
  }
  return r;
}

CommitResult run_commit(UpdateState& s) {
  Layout l = lay_out(s);
  if (l.result.kind == CommitKind::kNothing) return l.result;
  std::vector<EncodedBlock> fresh;
  for (const WritePlan& plan : s.added) {
    for (const auto& b : plan.blocks) fresh.push_back(encode_block(b, s.options.checksum, s.path));
  }
  LockedFile f(s.path);
  check_unchanged(s, f, l);
  if (l.result.kind == CommitKind::kInPlace) {
    commit_in_place(s, f, l, fresh);
  } else {
    commit_rewrite(s, f, l, fresh);
  }
  return l.result;
}

void UpdateState::load() {
  // Update the file a symbolic link names, not the link (a rewrite would replace the link).
  std::error_code ec;
  if (std::filesystem::is_symlink(path, ec)) {
    const auto target = std::filesystem::canonical(path, ec);
    if (!ec) path = target.string();
  }
  recover_update(path);
  const ErrorContext at{.file = path};
  struct stat before {};
  if (::stat(path.c_str(), &before) != 0) io_fail(path, "cannot open the file for update", errno);
  try {
    file = AsdfFile::open(path, options.open);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kNotAsdf && std::string_view(e.what()).find("FITS") != std::string_view::npos) {
      throw Error(ErrorCode::kUnsupported,
                  "updating the ASDF tree inside a FITS file is not supported: convert it, "
                  "update the ASDF file, and convert it back",
                  at);
    }
    throw;
  }
  const format::Container& c = file->container();
  if (c.legacy()) {
    throw Error(ErrorCode::kUnsupported,
                "the file is in a pre-1.0 dialect of ASDF; upgrade it first "
                "(fitsasdf defragment --standard 1.5.0 IN OUT)",
                at);
  }
  if (!c.problems().empty()) {
    const format::LayoutProblem& p = c.problems().front();
    throw Error(ErrorCode::kUnsupported,
                "cannot update a file whose layout is damaged (" + p.message +
                    "); rewrite it first (fitsasdf defragment)",
                ErrorContext{.file = path, .offset = p.offset});
  }
  for (std::size_t i = 0; i < c.blocks().size(); ++i) {
    if (!c.blocks()[i].problem.empty()) {
      throw Error(ErrorCode::kUnsupported,
                  "cannot update a file with a damaged block: " + c.blocks()[i].problem,
                  ErrorContext{.file = path, .offset = c.blocks()[i].offset, .block = i});
    }
  }
  struct stat after {};
  if (::stat(path.c_str(), &after) != 0) io_fail(path, "cannot stat the file", errno);
  identity = identity_of(after);
  if (!(identity_of(before) == identity)) {
    throw Error(ErrorCode::kConflict, "the file changed while it was being opened for update", at);
  }
  root = tree::deep_copy(file->tree());
  const format::Prologue& p = c.prologue();
  const std::uint64_t tree_start = p.tree_offset.value_or(p.end);
  old_tree.assign(reinterpret_cast<const char*>(c.bytes().data()) + tree_start,
                  static_cast<std::size_t>(p.tree_size));
  added.clear();
}

}  // namespace update_detail

Recovery recover_update(const std::string& path) {
  using namespace update_detail;
  const std::string journal_path = update_journal_path(path);
  const std::string temp = update_temp_path(path);
  const bool journal_there = ::access(journal_path.c_str(), F_OK) == 0;
  if (!journal_there && ::access(temp.c_str(), F_OK) != 0) return Recovery::kNone;
  // Wait for a commit in progress (it holds the lock until its journal is gone).
  LockedFile f(path);
  // What a rewrite killed before its rename left: never the file itself.
  ::unlink(temp.c_str());
  if (!journal_there) return Recovery::kNone;
  const int jfd = ::open(journal_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (jfd < 0) {
    if (errno == ENOENT) return Recovery::kNone;  // that commit finished
    io_fail(journal_path, "cannot read the update journal", errno);
  }
  std::vector<std::uint8_t> bytes;
  std::array<std::uint8_t, 65536> chunk{};
  while (true) {
    const ssize_t n = ::read(jfd, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(jfd);
      io_fail(journal_path, "cannot read the update journal", err);
    }
    if (n == 0) break;
    bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + n);
  }
  ::close(jfd);
  const std::optional<Journal> journal = decode_journal(bytes);
  if (!journal) {
    // Cut short while it was written: the file itself was not touched yet.
    if (::unlink(journal_path.c_str()) != 0) io_fail(journal_path, "cannot remove the update journal", errno);
    sync_folder_quietly(path);
    return Recovery::kDiscarded;
  }
  const FileIdentity id = f.identity();
  if (id.device != journal->device || id.inode != journal->inode) {
    throw Error(ErrorCode::kConflict,
                "the update journal " + journal_path +
                    " belongs to another file of this name (the file was replaced after an "
                    "interrupted update); check the file and remove the journal",
                ErrorContext{.file = path});
  }
  for (const UndoRecord& rec : journal->records) f.write(rec.offset, rec.bytes);
  f.truncate(journal->old_size);
  f.sync();
  if (::unlink(journal_path.c_str()) != 0) io_fail(journal_path, "cannot remove the update journal", errno);
  sync_folder_quietly(path);
  return Recovery::kRolledBack;
}

}  // namespace asdfcore
