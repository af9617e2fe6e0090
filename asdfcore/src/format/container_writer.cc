#include "asdfcore/format/container_writer.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <future>
#include <thread>

#include "asdfcore/compression/md5.h"
#include "asdfcore/error.h"
#include "asdfcore/format/block_header.h"
#include "asdfcore/format/block_index.h"
#include "asdfcore/io/atomic_file.h"
#include "format/hash_pool.h"

namespace asdfcore::format {
namespace {

std::span<const std::uint8_t> as_bytes(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

/// The chunk size for streaming file ranges: large sequential reads, bounded memory.
constexpr std::size_t kStreamChunk = std::size_t{4} << 20;

/// The most data bytes copied or written between two `WriteOptions::on_data` calls.
constexpr std::size_t kReportChunk = std::size_t{4} << 20;

/// Fill `buffer` from `fd` at `offset`: short reads are continued (they must not shift element
/// boundaries); an input that ends first or cannot be read throws.
void pread_full(int fd, std::span<std::uint8_t> buffer, std::uint64_t offset) {
  std::size_t have = 0;
  while (have < buffer.size()) {
    const ssize_t n =
        pread(fd, buffer.data() + have, buffer.size() - have, static_cast<off_t>(offset + have));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw Error(ErrorCode::kIo,
                  n == 0 ? "an input file ended before the range to copy"
                         : std::string("cannot read an input file: ") + std::strerror(errno),
                  ErrorContext{.offset = offset + have});
    }
    have += static_cast<std::size_t>(n);
  }
}

/// Call `sink` with consecutive chunks of `range`, each `buffer.size()` bytes except the last,
/// after the range's transform (if any) has been applied to it. With several buffers (all of
/// one size) the chunks take them in turn, so the one before stays intact while the next is
/// read (another thread may still be hashing it).
template <typename Sink>
void read_range(const FileRange& range, std::span<std::vector<std::uint8_t>> buffers,
                const Sink& sink) {
  std::uint64_t done = 0;
  std::size_t turn = 0;
  while (done < range.length) {
    std::vector<std::uint8_t>& buffer = buffers[turn++ % buffers.size()];
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), range.length - done));
    const std::span<std::uint8_t> chunk(buffer.data(), want);
    pread_full(range.fd, chunk, range.offset + done);
    if (range.transform) range.transform(chunk, done);
    sink(std::span<const std::uint8_t>(chunk));
    done += want;
  }
}

/// Fill `buffer` from `source` until it is full or the source ends; return the bytes given.
std::size_t pull_full(const std::function<std::size_t(std::span<std::uint8_t>)>& source,
                      std::span<std::uint8_t> buffer) {
  std::size_t have = 0;
  while (have < buffer.size()) {
    const std::size_t n = source(buffer.subspan(have));
    if (n == 0) break;
    have += n;
  }
  return have;
}

/// MD5 over chunks in order, each hashed on a second thread while the caller writes it and
/// fills its next buffer. `add` waits for the chunk before, so a chunk must stay unchanged until
/// the next `add` or `wait` returns: with two buffers in turn, the one being filled is never the
/// one being hashed.
class HashBehind {
 public:
  explicit HashBehind(compression::Md5& h) : h_(h) {}
  ~HashBehind() {
    if (hashing_.valid()) hashing_.wait();
  }
  HashBehind(const HashBehind&) = delete;
  HashBehind& operator=(const HashBehind&) = delete;

  void add(std::span<const std::uint8_t> chunk) {
    wait();
    hashing_ = std::async(std::launch::async, [this, chunk] { h_.update(chunk); });
  }
  /// Wait until every chunk given is hashed.
  void wait() {
    if (hashing_.valid()) hashing_.get();
  }

 private:
  compression::Md5& h_;
  std::future<void> hashing_;
};

/// The decoded bytes of a block read in order, piece by piece, as a codec's streaming
/// compression asks for them: first the memory pieces, then the file ranges. A range with a
/// transform is read and transformed in the chunks its contract promises (4 MiB from the
/// range's start), staged, and handed out from there; one without is read straight into the
/// caller's buffer.
class BlockReader {
 public:
  explicit BlockReader(const BlockToWrite& block) : block_(block) {}

  /// Fill `out` with the next bytes of the block.
  void read(std::span<std::uint8_t> out) {
    std::size_t done = 0;
    while (done < out.size()) {
      const auto rest = out.subspan(done);
      if (piece_ < block_.pieces.size()) {
        const auto& p = block_.pieces[piece_];
        const std::size_t n = std::min(rest.size(), p.size() - piece_at_);
        if (n > 0) std::memcpy(rest.data(), p.data() + piece_at_, n);
        piece_at_ += n;
        done += n;
        if (piece_at_ == p.size()) {
          ++piece_;
          piece_at_ = 0;
        }
        continue;
      }
      if (range_ >= block_.file_ranges.size()) {
        if (!block_.source) {
          throw Error(ErrorCode::kInvalidArgument,
                      "a codec asked for more bytes than the block declares (a codec bug)");
        }
        const std::size_t n = pull_full(block_.source, rest);
        if (n < rest.size()) {
          throw Error(ErrorCode::kInvalidArgument,
                      "the block's data source ended " + std::to_string(rest.size() - n) +
                          " bytes early");
        }
        done += n;
        continue;
      }
      const FileRange& r = block_.file_ranges[range_];
      std::size_t n = 0;
      if (!r.transform) {
        n = static_cast<std::size_t>(std::min<std::uint64_t>(rest.size(), r.length - range_at_));
        pread_full(r.fd, rest.first(n), r.offset + range_at_);
        range_at_ += n;
      } else {
        if (staged_at_ == staged_.size() && range_at_ < r.length) {
          const auto len =
              static_cast<std::size_t>(std::min<std::uint64_t>(kStreamChunk, r.length - range_at_));
          staged_.resize(len);
          pread_full(r.fd, staged_, r.offset + range_at_);
          r.transform(staged_, range_at_);
          range_at_ += len;
          staged_at_ = 0;
        }
        n = std::min(rest.size(), staged_.size() - staged_at_);
        if (n > 0) std::memcpy(rest.data(), staged_.data() + staged_at_, n);
        staged_at_ += n;
      }
      done += n;
      if (range_at_ == r.length && staged_at_ == staged_.size()) {
        ++range_;
        range_at_ = 0;
        staged_.clear();
        staged_at_ = 0;
      }
    }
  }

 private:
  const BlockToWrite& block_;
  std::size_t piece_ = 0;         ///< The memory piece being read.
  std::size_t piece_at_ = 0;      ///< Bytes of it handed out.
  std::size_t range_ = 0;         ///< The file range being read.
  std::uint64_t range_at_ = 0;    ///< Bytes of it read from the file.
  std::vector<std::uint8_t> staged_;  ///< A transformed chunk of it.
  std::size_t staged_at_ = 0;     ///< Bytes of `staged_` handed out.
};

/// The window of an input file mapped at a time to hash it: bounded memory (each window is
/// unmapped before the next), large enough that mapping costs nothing next to hashing.
constexpr std::size_t kHashWindow = std::size_t{16} << 20;

/// Below this many bytes a range is hashed from a read() into a buffer: unmapping a window
/// costs more than copying it (in a process with several threads, every munmap interrupts the
/// other cores to flush their TLBs; 14% of a batch of small files went there).
constexpr std::uint64_t kMapAtLeast = std::uint64_t{1} << 20;

/// Add the bytes of `range` (which has no transform) to `h`, reading a large one through a
/// moving memory mapping: MD5 reads the page cache in place, with none of the copying a
/// read() into a buffer costs (on a busy 2-core machine that copy is a fifth of the hashing
/// time). A small one, or one whose file cannot be mapped, is read through `buffer`.
void hash_range(const FileRange& range, compression::Md5& h, std::vector<std::uint8_t>& buffer) {
  const auto hash = [&h](std::span<const std::uint8_t> chunk) { h.update(chunk); };
  if (range.length < kMapAtLeast) {
    if (buffer.size() < range.length) buffer.resize(static_cast<std::size_t>(range.length));
    read_range(range, std::span(&buffer, 1), hash);
    return;
  }
  static const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  // A mapping past the end of the file would fault (SIGBUS) where a read reports the short
  // file: a range the file does not hold goes the read way, which throws the proper error.
  struct stat st {};
  const bool mappable = fstat(range.fd, &st) == 0 && S_ISREG(st.st_mode) &&
                        range.offset + range.length <= static_cast<std::uint64_t>(st.st_size);
  std::uint64_t done = 0;
  while (done < range.length) {
    const std::uint64_t at = range.offset + done;
    const std::uint64_t start = at / page * page;  // mmap wants a page-aligned offset
    const std::uint64_t skip = at - start;
    const auto want = static_cast<std::size_t>(
        std::min<std::uint64_t>(kHashWindow, range.length - done));
    const std::size_t span = want + static_cast<std::size_t>(skip);
    void* map = mappable ? mmap(nullptr, span, PROT_READ, MAP_PRIVATE, range.fd,
                                static_cast<off_t>(start))
                         : MAP_FAILED;
    if (map == MAP_FAILED) {
      if (buffer.size() < kStreamChunk) buffer.resize(kStreamChunk);
      FileRange rest = range;
      rest.offset = at;
      rest.length = range.length - done;
      read_range(rest, std::span(&buffer, 1), hash);
      return;
    }
    madvise(map, span, MADV_SEQUENTIAL);
    madvise(map, span, MADV_WILLNEED);
    h.update(std::span<const std::uint8_t>(static_cast<const std::uint8_t*>(map) + skip, want));
    munmap(map, span);
    done += want;
  }
}

/// Blocks copied from files from this size up are hashed by the HashPool while the next blocks
/// are copied; a smaller one costs less to hash than to hand over.
constexpr std::uint64_t kAsideAtLeast = std::uint64_t{64} << 10;

/// From this size up a block hashed aside is large: at most one a hashing thread is waiting
/// to be hashed (its pages stay close in the page cache to its copy's).
constexpr std::uint64_t kLargeAside = 4 * kStreamChunk;

/// The most blocks hashed aside waiting for their digest at a time.
constexpr std::size_t kMaxAside = 64;

void check_tree(std::string_view tree, const std::string& path) {
  if (tree.empty()) return;
  const bool starts = tree.starts_with("%YAML");
  const bool ends = tree.ends_with("\n...\n") || tree.ends_with("\r\n...\r\n");
  if (!starts || !ends) {
    throw Error(ErrorCode::kInvalidArgument,
                "the tree must be a YAML document that starts with `%YAML` and ends with a `...` "
                "line",
                ErrorContext{.file = path});
  }
}

}  // namespace

std::vector<std::uint64_t> write_container(const std::string& path, std::string_view tree,
                                           std::span<const BlockToWrite> blocks,
                                           const WriteOptions& options,
                                           const compression::CodecRegistry& codecs) {
  check_tree(tree, path);
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const ErrorContext at{.file = path, .block = i};
    if (blocks[i].streamed && i + 1 != blocks.size()) {
      throw Error(ErrorCode::kInvalidArgument, "only the last block may be streamed", at);
    }
    if (blocks[i].streamed && blocks[i].padding != 0) {
      throw Error(ErrorCode::kInvalidArgument,
                  "a streamed block runs to the end of the file and cannot have padding", at);
    }
    if (blocks[i].streamed && !blocks[i].compression.empty()) {
      throw Error(ErrorCode::kInvalidArgument, "a streamed block cannot be compressed", at);
    }
    if (blocks[i].source && !blocks[i].source_size &&
        !(blocks[i].streamed && blocks[i].compression.empty())) {
      throw Error(ErrorCode::kInvalidArgument,
                  "a data source of unknown size needs an uncompressed streamed block", at);
    }
    if (!blocks[i].compression.empty() && codecs.find(blocks[i].compression) == nullptr) {
      throw Error(ErrorCode::kInvalidArgument,
                  "no codec for compression '" + blocks[i].compression + "'", at);
    }
  }

  io::AtomicFile out(path, options.durable);
  std::string head = "#ASDF 1.0.0\n#ASDF_STANDARD " + options.asdf_standard + "\n";
  for (const auto& c : options.comments) head += "#" + c + "\n";
  out.write(as_bytes(head));
  // Without a tree the first block must follow the header at once: no padding then.
  const std::uint64_t padding =
      tree.empty() ? 0
      : options.tree_padding ? *options.tree_padding
      : blocks.empty()       ? 0
                             : default_tree_padding(out.position() + tree.size(), tree.size());
  out.write(as_bytes(tree));
  if (padding > 0) {
    // Blanks then a newline: the unused space stays valid YAML whitespace.
    std::string pad(static_cast<std::size_t>(padding), ' ');
    pad.back() = '\n';
    out.write(as_bytes(pad));
  }

  // Blocks hashed aside (uncompressed, copied unchanged from files, kAsideAtLeast bytes or
  // more) whose digest is still to come, oldest first: each completes its block's header. The
  // pool's threads stop whatever ends this function.
  struct PendingHash {
    std::future<compression::Md5Digest> digest;
    BlockHeader header;
    std::uint64_t header_at = 0;
    bool large = false;
  };
  const bool sum = options.checksum != ChecksumConvention::kNone;
  const std::size_t hash_threads =
      options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  HashPool hashers(static_cast<unsigned>(hash_threads));
  std::deque<PendingHash> pending;
  const auto finish_oldest = [&pending, &out] {
    PendingHash& oldest = pending.front();
    oldest.header.checksum = oldest.digest.get();  // rethrows a read error of its thread
    out.write_at(oldest.header_at, encode_block_header(oldest.header));
    pending.pop_front();
  };
  const auto large_pending = [&pending] {
    return static_cast<std::size_t>(std::count_if(pending.begin(), pending.end(),
                                                  [](const PendingHash& p) { return p.large; }));
  };

  std::vector<std::uint64_t> offsets;
  offsets.reserve(blocks.size());
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const BlockToWrite& block = blocks[i];
    BlockHeader header;
    header.set_compression_label(block.compression);
    std::uint64_t data_size = 0;
    for (const auto& p : block.pieces) data_size += p.size();
    for (const auto& r : block.file_ranges) data_size += r.length;
    if (block.source_size) data_size += *block.source_size;
    header.data_size = data_size;
    if (block.streamed) header.flags |= kFlagStreamed;
    offsets.push_back(out.position());

    if (block.compression.empty() && block.source) {
      // Pulled from a source: the header first, then the data as it comes, hashed on the way;
      // the sizes (unknown beforehand for a streamed block) and the checksum are filled in after.
      const std::uint64_t header_at = out.position();
      out.write(encode_block_header(header));
      compression::Md5 h;
      std::uint64_t written = 0;
      for (const auto& p : block.pieces) {
        if (sum) h.update(p);
        out.write(p);
        written += p.size();
        if (options.on_data) options.on_data(p.size());
      }
      std::vector<std::uint8_t> chunk;
      for (const auto& r : block.file_ranges) {
        chunk.resize(kStreamChunk);
        read_range(r, std::span(&chunk, 1), [&](std::span<const std::uint8_t> bytes) {
          if (sum) h.update(bytes);
          out.write(bytes);
          written += bytes.size();
          if (options.on_data) options.on_data(bytes.size());
        });
      }
      // A large source's chunks are hashed on a second thread while this one writes them and
      // pulls the next into the other buffer (a tile-compressed image's bands come from threads
      // of their own: hashing and writing in one thread would hold them back).
      const bool overlap = sum && hash_threads > 1 &&
                           (!block.source_size || *block.source_size >= 4 * kStreamChunk);
      std::vector<std::uint8_t> other;
      if (overlap) other.resize(kStreamChunk);
      HashBehind behind(h);
      chunk.resize(kStreamChunk);
      std::uint64_t pulled = 0;
      while (true) {
        if (overlap) chunk.swap(other);
        std::span<std::uint8_t> want(chunk);
        if (block.source_size) {
          want = want.first(static_cast<std::size_t>(
              std::min<std::uint64_t>(want.size(), *block.source_size - pulled)));
          if (want.empty()) break;
        }
        const std::size_t n = pull_full(block.source, want);
        if (n == 0 && !want.empty() && block.source_size) {
          throw Error(ErrorCode::kInvalidArgument,
                      "the block's data source ended " +
                          std::to_string(*block.source_size - pulled) + " bytes early",
                      ErrorContext{.file = path, .block = i});
        }
        if (n == 0) break;
        const auto bytes = std::span<const std::uint8_t>(chunk.data(), n);
        if (overlap) {
          behind.add(bytes);
        } else if (sum) {
          h.update(bytes);
        }
        out.write(bytes);
        pulled += n;
        written += n;
        if (options.on_data) options.on_data(n);
      }
      behind.wait();
      header.data_size = written;
      header.used_size = written;
      header.allocated_size = written + block.padding;
      if (sum) header.checksum = h.finish();
      out.write_at(header_at, encode_block_header(header));
      out.write_zeros(block.padding);
      continue;
    }

    if (block.compression.empty() && !block.file_ranges.empty()) {
      // Stream: the kernel copies the file ranges while another thread hashes them (the two
      // run side by side); the header's checksum is filled in afterwards.
      header.used_size = data_size;
      header.allocated_size = data_size + block.padding;
      const std::uint64_t header_at = out.position();
      out.write(encode_block_header(header));
      // A block hashed aside: its memory pieces, then its file ranges, on a pool thread while
      // this one copies it and the next blocks; its header is completed when the digest comes.
      const bool transformed = std::any_of(block.file_ranges.begin(), block.file_ranges.end(),
                                           [](const FileRange& r) { return bool(r.transform); });
      const bool deferred = sum && !transformed && data_size >= kAsideAtLeast;
      if (deferred) {
        const bool large = data_size >= kLargeAside;
        while (!pending.empty() && ((large && large_pending() >= hash_threads) ||
                                    pending.size() >= kMaxAside)) {
          finish_oldest();
        }
        auto digest = hashers.submit([&block] {
          compression::Md5 aside;
          for (const auto& p : block.pieces) aside.update(p);
          std::vector<std::uint8_t> buffer;
          for (const auto& r : block.file_ranges) hash_range(r, aside, buffer);
          return aside.finish();
        });
        pending.push_back(PendingHash{std::move(digest), header, header_at, large});
      }
      compression::Md5 h;
      for (const auto& p : block.pieces) {
        if (sum && !deferred) h.update(p);
        out.write(p);
        if (options.on_data) options.on_data(p.size());
      }
      if (transformed) {
        // Bytes that change on the way go through a buffer: read, transform, hash, write. For
        // a large block the hash of each chunk runs in a second thread while this one writes
        // it and reads and transforms the next into the other buffer.
        const bool overlap = sum && hash_threads > 1 && data_size >= 4 * kStreamChunk;
        // No larger than the longest range: a small block (most of a batch of small files)
        // does not pay for zero-filling 4 MiB. A range no longer than the buffer is one chunk,
        // so the transforms' chunk contract holds either way.
        std::uint64_t longest = 1;
        for (const auto& r : block.file_ranges) longest = std::max(longest, r.length);
        const auto chunk_size = static_cast<std::size_t>(std::min<std::uint64_t>(kStreamChunk, longest));
        std::vector<std::vector<std::uint8_t>> buffers(overlap ? 2 : 1,
                                                       std::vector<std::uint8_t>(chunk_size));
        HashBehind behind(h);
        for (const auto& r : block.file_ranges) {
          read_range(r, buffers, [&](std::span<const std::uint8_t> chunk) {
            if (overlap) {
              behind.add(chunk);
            } else if (sum) {
              h.update(chunk);
            }
            out.write(chunk);
            if (options.on_data) options.on_data(chunk.size());
          });
          behind.wait();  // the next range starts again with the first buffer
        }
        if (sum) {
          header.checksum = h.finish();
          out.write_at(header_at, encode_block_header(header));
        }
        out.write_zeros(block.padding);
        continue;
      }
      // A small block (not hashed aside) is hashed before the copy.
      if (sum && !deferred) {
        std::vector<std::uint8_t> buffer;
        for (const auto& r : block.file_ranges) hash_range(r, h, buffer);
      }
      {
        for (const auto& r : block.file_ranges) {
          if (!options.on_data) {
            out.copy_from(r.fd, r.offset, r.length);
            continue;
          }
          for (std::uint64_t at = 0; at < r.length;) {
            const std::uint64_t n = std::min<std::uint64_t>(kReportChunk, r.length - at);
            out.copy_from(r.fd, r.offset + at, n);
            options.on_data(n);
            at += n;
          }
        }
      }
      if (sum && !deferred) {
        header.checksum = h.finish();
        out.write_at(header_at, encode_block_header(header));
      }
      out.write_zeros(block.padding);
      continue;
    }

    if (!block.compression.empty()) {
      // Compressed: the codec reads the data piece by piece (from memory or straight from the
      // input file) and its output goes to the file as it comes, so memory stays a few pieces
      // whatever the block's size. The sizes and checksum go into the header afterwards.
      const compression::Codec* codec = codecs.find(block.compression);
      const std::uint64_t header_at = out.position();
      out.write(encode_block_header(header));
      const bool over_decoded = options.checksum == ChecksumConvention::kDecodedData;
      compression::Md5 h;
      std::uint64_t used = 0;
      BlockReader reader(block);
      codec->compress_stream(
          data_size,
          [&](std::span<std::uint8_t> buffer) {
            reader.read(buffer);
            if (sum && over_decoded) h.update(buffer);
            if (options.on_data) options.on_data(buffer.size());
          },
          [&](std::span<const std::uint8_t> bytes) {
            if (sum && !over_decoded) h.update(bytes);
            out.write(bytes);
            used += bytes.size();
          },
          compression::CompressOptions{.level = block.level, .threads = options.threads});
      header.used_size = used;
      header.allocated_size = used + block.padding;
      if (sum) header.checksum = h.finish();
      out.write_at(header_at, encode_block_header(header));
      out.write_zeros(block.padding);
      continue;
    }

    // Uncompressed memory pieces go out as they are (no gathering copy when there are several).
    header.used_size = data_size;
    header.allocated_size = data_size + block.padding;
    if (options.checksum != ChecksumConvention::kNone) {
      compression::Md5 h;
      for (const auto& p : block.pieces) h.update(p);
      header.checksum = h.finish();
    }
    const auto encoded_header = encode_block_header(header);
    if (options.on_data) {
      out.write(encoded_header);
      for (auto p : block.pieces) {
        while (!p.empty()) {
          const auto part = p.first(std::min<std::size_t>(kReportChunk, p.size()));
          out.write(part);
          options.on_data(part.size());
          p = p.subspan(part.size());
        }
      }
      out.write_zeros(block.padding);
      continue;
    }
    std::vector<std::span<const std::uint8_t>> parts;
    parts.reserve(block.pieces.size() + 1);
    parts.emplace_back(encoded_header);
    parts.insert(parts.end(), block.pieces.begin(), block.pieces.end());
    out.write_all(parts);
    out.write_zeros(block.padding);
  }

  while (!pending.empty()) finish_oldest();
  const bool streamed = !blocks.empty() && blocks.back().streamed;
  if (options.block_index && !blocks.empty() && !streamed) {
    out.write(as_bytes(encode_block_index(offsets)));
  }
  if (options.on_data) options.on_data(0);
  out.commit(options.replace);
  return offsets;
}

std::uint64_t default_tree_padding(std::uint64_t tree_end, std::uint64_t tree_size) noexcept {
  constexpr std::uint64_t kPage = 4096;
  const std::uint64_t at_least = tree_end + std::max<std::uint64_t>(tree_size / 10, 1024);
  return (at_least + kPage - 1) / kPage * kPage - tree_end;
}

std::optional<ChecksumConvention> checksum_convention_named(std::string_view name) noexcept {
  if (name == "stored") return ChecksumConvention::kStoredBytes;
  if (name == "decoded") return ChecksumConvention::kDecodedData;
  if (name == "none") return ChecksumConvention::kNone;
  return std::nullopt;
}

}  // namespace asdfcore::format
