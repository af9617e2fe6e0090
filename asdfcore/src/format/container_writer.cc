#include "asdfcore/format/container_writer.h"

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

/// Gather `pieces` into one vector (only needed when a codec must see the data whole).
std::vector<std::uint8_t> gather(const std::vector<std::span<const std::uint8_t>>& pieces) {
  std::size_t total = 0;
  for (const auto& p : pieces) total += p.size();
  std::vector<std::uint8_t> out;
  out.reserve(total);
  for (const auto& p : pieces) out.insert(out.end(), p.begin(), p.end());
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
    header.data_size = data_size;

    std::optional<std::vector<std::uint8_t>> encoded;
    std::vector<std::span<const std::uint8_t>> stored = block.pieces;
    if (!block.compression.empty()) {
      const compression::Codec* codec = codecs.find(block.compression);
      const std::vector<std::uint8_t> whole =
          block.pieces.size() == 1 ? std::vector<std::uint8_t>() : gather(block.pieces);
      const std::span<const std::uint8_t> input =
          block.pieces.size() == 1 ? block.pieces.front() : std::span<const std::uint8_t>(whole);
      encoded = codec->compress(input, compression::CompressOptions{.level = block.level});
      stored = {std::span<const std::uint8_t>(*encoded)};
    }
    std::uint64_t used = 0;
    for (const auto& p : stored) used += p.size();
    header.used_size = used;
    header.allocated_size = used + block.padding;
    if (block.streamed) header.flags |= kFlagStreamed;

    if (options.checksum != ChecksumConvention::kNone) {
      const bool over_decoded =
          options.checksum == ChecksumConvention::kDecodedData && encoded.has_value();
      compression::Md5 h;
      for (const auto& p : over_decoded ? block.pieces : stored) h.update(p);
      header.checksum = h.finish();
    }

    offsets.push_back(out.position());
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
