#include "asdfcore/format/container_writer.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <future>
#include <optional>

#include "asdfcore/compression/md5.h"
#include "asdfcore/error.h"
#include "asdfcore/format/block_header.h"
#include "asdfcore/format/block_index.h"
#include "asdfcore/io/atomic_file.h"

namespace asdfcore::format {
namespace {

std::span<const std::uint8_t> as_bytes(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

/// The chunk size for streaming file ranges: large sequential reads, bounded memory.
constexpr std::size_t kStreamChunk = std::size_t{4} << 20;

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
    std::size_t have = 0;
    while (have < want) {  // fill the chunk: short reads must not shift element boundaries
      const ssize_t n = pread(range.fd, buffer.data() + have, want - have,
                              static_cast<off_t>(range.offset + done + have));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        throw Error(ErrorCode::kIo,
                    n == 0 ? "an input file ended before the range to copy"
                           : std::string("cannot read an input file: ") + std::strerror(errno),
                    ErrorContext{.offset = range.offset + done + have});
      }
      have += static_cast<std::size_t>(n);
    }
    const std::span<std::uint8_t> chunk(buffer.data(), want);
    if (range.transform) range.transform(chunk, done);
    sink(std::span<const std::uint8_t>(chunk));
    done += want;
  }
}

/// The window of an input file mapped at a time to hash it: bounded memory (each window is
/// unmapped before the next), large enough that mapping costs nothing next to hashing.
constexpr std::size_t kHashWindow = std::size_t{16} << 20;

/// Add the bytes of `range` (which has no transform) to `h`, reading them through a moving
/// memory mapping: MD5 reads the page cache in place, with none of the copying a read() into
/// a buffer costs (on a busy 2-core machine that copy is a fifth of the hashing time). Falls
/// back to reading through `buffer` when the file cannot be mapped.
void hash_range(const FileRange& range, compression::Md5& h, std::vector<std::uint8_t>& buffer) {
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
      if (buffer.empty()) buffer.resize(kStreamChunk);
      FileRange rest = range;
      rest.offset = at;
      rest.length = range.length - done;
      read_range(rest, std::span(&buffer, 1),
                 [&h](std::span<const std::uint8_t> chunk) { h.update(chunk); });
      return;
    }
    madvise(map, span, MADV_SEQUENTIAL);
    madvise(map, span, MADV_WILLNEED);
    h.update(std::span<const std::uint8_t>(static_cast<const std::uint8_t*>(map) + skip, want));
    munmap(map, span);
    done += want;
  }
}

/// Gather a block's data into one vector (only needed when a codec must see the data whole).
std::vector<std::uint8_t> gather(const BlockToWrite& block, std::uint64_t total) {
  std::vector<std::uint8_t> out;
  out.reserve(static_cast<std::size_t>(total));
  for (const auto& p : block.pieces) out.insert(out.end(), p.begin(), p.end());
  std::vector<std::uint8_t> buffer(kStreamChunk);
  for (const auto& r : block.file_ranges) {
    read_range(r, std::span(&buffer, 1),
               [&out](std::span<const std::uint8_t> c) { out.insert(out.end(), c.begin(), c.end()); });
  }
  return out;
}

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
    if (!blocks[i].compression.empty() && codecs.find(blocks[i].compression) == nullptr) {
      throw Error(ErrorCode::kInvalidArgument,
                  "no codec for compression '" + blocks[i].compression + "'", at);
    }
  }

  io::AtomicFile out(path, options.durable);
  std::string head = "#ASDF 1.0.0\n#ASDF_STANDARD " + options.asdf_standard + "\n";
  for (const auto& c : options.comments) head += "#" + c + "\n";
  out.write(as_bytes(head));
  out.write(as_bytes(tree));
  // Without a tree the first block must follow the header at once: no padding then.
  if (!tree.empty() && options.tree_padding > 0) {
    // Blanks then a newline: the unused space stays valid YAML whitespace.
    std::string pad(static_cast<std::size_t>(options.tree_padding), ' ');
    pad.back() = '\n';
    out.write(as_bytes(pad));
  }

  std::vector<std::uint64_t> offsets;
  offsets.reserve(blocks.size());
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const BlockToWrite& block = blocks[i];
    BlockHeader header;
    header.set_compression_label(block.compression);
    std::uint64_t data_size = 0;
    for (const auto& p : block.pieces) data_size += p.size();
    for (const auto& r : block.file_ranges) data_size += r.length;
    header.data_size = data_size;
    if (block.streamed) header.flags |= kFlagStreamed;
    offsets.push_back(out.position());

    if (block.compression.empty() && !block.file_ranges.empty()) {
      // Stream: the kernel copies the file ranges while another thread hashes them (the two
      // run side by side); the header's checksum is filled in afterwards.
      header.used_size = data_size;
      header.allocated_size = data_size + block.padding;
      const std::uint64_t header_at = out.position();
      out.write(encode_block_header(header));
      const bool sum = options.checksum != ChecksumConvention::kNone;
      compression::Md5 h;
      for (const auto& p : block.pieces) {
        if (sum) h.update(p);
        out.write(p);
      }
      const bool transformed = std::any_of(block.file_ranges.begin(), block.file_ranges.end(),
                                           [](const FileRange& r) { return bool(r.transform); });
      if (transformed) {
        // Bytes that change on the way go through a buffer: read, transform, hash, write. For
        // a large block the hash of each chunk runs in a second thread while this one writes
        // it and reads and transforms the next into the other buffer.
        const bool overlap = sum && data_size >= 4 * kStreamChunk;
        std::vector<std::vector<std::uint8_t>> buffers(overlap ? 2 : 1,
                                                       std::vector<std::uint8_t>(kStreamChunk));
        std::future<void> hashing;
        const auto wait_hash = [&hashing] {
          if (hashing.valid()) hashing.get();  // in order: MD5 sees the chunks one after another
        };
        try {
          for (const auto& r : block.file_ranges) {
            read_range(r, buffers, [&](std::span<const std::uint8_t> chunk) {
              if (overlap) {
                wait_hash();
                hashing = std::async(std::launch::async, [&h, chunk] { h.update(chunk); });
              } else if (sum) {
                h.update(chunk);
              }
              out.write(chunk);
            });
            wait_hash();  // the next range starts again with the first buffer
          }
        } catch (...) {
          if (hashing.valid()) hashing.wait();
          throw;
        }
        if (sum) {
          header.checksum = h.finish();
          out.write_at(header_at, encode_block_header(header));
        }
        out.write_zeros(block.padding);
        continue;
      }
      // A thread pays off only for large ranges; small ones are hashed before the copy.
      const auto hash_ranges = [&h, &block] {
        std::vector<std::uint8_t> buffer;
        for (const auto& r : block.file_ranges) hash_range(r, h, buffer);
      };
      std::future<void> hashing;
      if (sum && data_size >= 4 * kStreamChunk) {
        hashing = std::async(std::launch::async, hash_ranges);
      } else if (sum) {
        hash_ranges();
      }
      try {
        for (const auto& r : block.file_ranges) out.copy_from(r.fd, r.offset, r.length);
      } catch (...) {
        if (hashing.valid()) hashing.wait();
        throw;
      }
      if (sum) {
        if (hashing.valid()) hashing.get();  // rethrows a read error of the hashing thread
        header.checksum = h.finish();
        out.write_at(header_at, encode_block_header(header));
      }
      out.write_zeros(block.padding);
      continue;
    }

    // A codec sees the data whole: gather it only when it is in several places.
    std::optional<std::vector<std::uint8_t>> whole;
    const bool compressed = !block.compression.empty();
    if (compressed && (block.pieces.size() != 1 || !block.file_ranges.empty())) {
      whole = gather(block, data_size);
    }
    std::span<const std::uint8_t> decoded;
    if (whole) {
      decoded = *whole;
    } else if (block.pieces.size() == 1) {
      decoded = block.pieces.front();
    }
    std::optional<std::vector<std::uint8_t>> encoded;
    std::span<const std::uint8_t> stored_single = decoded;
    if (compressed) {
      const compression::Codec* codec = codecs.find(block.compression);
      encoded = codec->compress(
          decoded, compression::CompressOptions{.level = block.level, .threads = options.threads});
      stored_single = *encoded;
    }
    // Uncompressed memory pieces go out as they are (no gathering copy when there are several).
    std::vector<std::span<const std::uint8_t>> stored;
    if (encoded) {
      stored = {stored_single};
    } else {
      stored = block.pieces;
    }
    std::uint64_t used = 0;
    for (const auto& p : stored) used += p.size();
    header.used_size = used;
    header.allocated_size = used + block.padding;

    if (options.checksum != ChecksumConvention::kNone) {
      const bool over_decoded =
          options.checksum == ChecksumConvention::kDecodedData && encoded.has_value();
      compression::Md5 h;
      if (over_decoded) {
        h.update(decoded);
      } else {
        for (const auto& p : stored) h.update(p);
      }
      header.checksum = h.finish();
    }

    const auto encoded_header = encode_block_header(header);
    std::vector<std::span<const std::uint8_t>> parts;
    parts.reserve(stored.size() + 1);
    parts.emplace_back(encoded_header);
    parts.insert(parts.end(), stored.begin(), stored.end());
    out.write_all(parts);
    out.write_zeros(block.padding);
  }

  const bool streamed = !blocks.empty() && blocks.back().streamed;
  if (options.block_index && !blocks.empty() && !streamed) {
    out.write(as_bytes(encode_block_index(offsets)));
  }
  out.commit();
  return offsets;
}

}  // namespace asdfcore::format
