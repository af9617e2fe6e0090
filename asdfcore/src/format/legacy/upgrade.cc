// upgrade_legacy: a pre-1.0 file rewritten in memory as the ASDF 1.0.0 file it would be today.

#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_set>

#include "asdfcore/compression/codec.h"
#include "asdfcore/compression/md5.h"
#include "asdfcore/error.h"
#include "asdfcore/format/block_header.h"
#include "asdfcore/format/container.h"
#include "asdfcore/format/legacy.h"
#include "asdfcore/format/prologue.h"
#include "asdfcore/tree/yaml.h"
#include "format/legacy/encodings.h"
#include "util/endian.h"
#include "format/legacy/tree_upgrade.h"

namespace asdfcore::format {
namespace {

using Bytes = std::span<const std::uint8_t>;

constexpr std::uint8_t kOldMagic[4] = {0x89, 'B', 'L', 'K'};  // 0.1.0dev's "\211BLK"

bool magic_at(Bytes file, std::uint64_t at) {
  if (file.size() < 4 || at > file.size() - 4) return false;
  return std::equal(kBlockMagic.begin(), kBlockMagic.end(), file.begin() + at) ||
         std::equal(std::begin(kOldMagic), std::end(kOldMagic), file.begin() + at);
}

std::uint64_t be(Bytes b, std::uint64_t at, int width) { return asdfcore::detail::load_be(b.data() + at, width); }

std::string hex_or_empty(Bytes b) {
  if (std::all_of(b.begin(), b.end(), [](std::uint8_t c) { return c == 0; })) return "";
  return compression::to_hex(b);
}

// A NUL-padded label ("zlib\0\0..."): its text, or nullopt when it is not one.
std::optional<std::string> padded_label(Bytes field) {
  std::string out;
  std::size_t i = 0;
  for (; i < field.size() && field[i] != 0; ++i) {
    if (field[i] < 0x21 || field[i] > 0x7e) return std::nullopt;
    out += static_cast<char>(field[i]);
  }
  for (; i < field.size(); ++i) {
    if (field[i] != 0) return std::nullopt;
  }
  return out;
}

// One block header of any legacy layout, reduced to what decoding needs.
struct Header {
  LegacyBlock info;
  std::uint32_t flags = 0;
  std::uint64_t allocated = 0;
  std::uint64_t used = 0;
  std::optional<std::uint64_t> decoded;  // memory_size / data_size when the layout has one
  bool chain = false;                    // ENCODED: the data starts with a YAML chain
  std::string label;                     // compression or encoding label ("" none)
  std::uint64_t data_offset = 0;
};

[[noreturn]] void malformed(const std::string& name, std::uint64_t offset, const std::string& what) {
  throw Error(ErrorCode::kMalformed, what, ErrorContext{.file = name, .offset = offset});
}

Header parse_header(Bytes file, std::uint64_t at, const std::string& name, std::size_t index) {
  Header h;
  h.info.offset = at;
  h.info.magic = file[at] == 0xd3 ? "\\323BLK" : "\\211BLK";
  if (file.size() - at < 6) {
    throw Error(ErrorCode::kTruncated, "the file ends inside a block header",
                ErrorContext{.file = name, .offset = at, .block = index});
  }
  const auto size = static_cast<std::uint16_t>(be(file, at + 4, 2));
  h.info.header_size = size;
  const std::uint64_t f = at + 6;
  if (file.size() - f < size) {
    throw Error(ErrorCode::kTruncated,
                "the file ends inside a block header of " + std::to_string(size) + " bytes",
                ErrorContext{.file = name, .offset = at, .block = index});
  }
  h.data_offset = f + size;
  const Bytes fields = file.subspan(f, size);
  const std::uint64_t room = file.size() - h.data_offset;
  auto fits = [&](std::uint64_t allocated, std::uint64_t used) {
    return used <= allocated && allocated <= room;
  };
  switch (size) {
    case 36: {  // the draft seed: flags, allocated, used, memory_size, checksum (u64)
      h.info.layout = "draft-36";
      h.flags = static_cast<std::uint32_t>(be(fields, 0, 4));
      h.allocated = be(fields, 4, 8);
      h.used = be(fields, 12, 8);
      h.decoded = be(fields, 20, 8);
      h.info.checksum = hex_or_empty(fields.subspan(28, 8));
      h.chain = (h.flags & 2) != 0;
      break;
    }
    case 40: {
      // Two layouts share 40 bytes: (A) allocated, used, checksum u64, encoding[16] (0.1.0dev)
      // and (B) flags, compression[4], allocated, used, data_size, checksum u64. Only one
      // usually makes sense: A's encoding is text, B's compression a known label.
      const auto enc_a = padded_label(fields.subspan(24, 16));
      const bool a = enc_a && fits(be(fields, 0, 8), be(fields, 8, 8));
      const auto flags_b = be(fields, 0, 4);
      const auto label_b = padded_label(fields.subspan(4, 4));
      const bool streamed_b = (flags_b & 1) != 0;
      const bool b = flags_b <= 1 && label_b &&
                     (label_b->empty() || *label_b == "zlib" || *label_b == "bzp2") &&
                     (streamed_b || fits(be(fields, 8, 8), be(fields, 16, 8)));
      // Both can make sense when the sizes are small: the one whose allocated space ends at
      // the next block (or the end of the file) wins; failing that, 0.1.0dev's own layout for a
      // `%ASDF` file and the later one otherwise.
      auto lands = [&](std::uint64_t allocated) {
        const std::uint64_t next = h.data_offset + allocated;
        return next == file.size() || magic_at(file, next);
      };
      const bool prefer_a =
          a && (!b || (lands(be(fields, 0, 8)) && !lands(be(fields, 8, 8))) ||
                (lands(be(fields, 0, 8)) == lands(be(fields, 8, 8)) && file[0] == '%'));
      if (prefer_a) {
        h.info.layout = "0.1.0dev-40";
        h.allocated = be(fields, 0, 8);
        h.used = be(fields, 8, 8);
        h.info.checksum = hex_or_empty(fields.subspan(16, 8));
        h.label = *enc_a;
      } else if (b) {
        h.info.layout = "flags-compression-40";
        h.flags = static_cast<std::uint32_t>(flags_b);
        h.label = *label_b;
        h.allocated = be(fields, 8, 8);
        h.used = be(fields, 16, 8);
        h.decoded = be(fields, 24, 8);
        h.info.checksum = hex_or_empty(fields.subspan(32, 8));
      } else {
        malformed(name, at, "block " + std::to_string(index) +
                                ": a 40-byte legacy header that fits neither 40-byte layout "
                                "(sizes past the end of the file, or an unreadable encoding name)");
      }
      break;
    }
    case 44: {  // flags, allocated, used, checksum u64, encoding[16]
      h.info.layout = "flags-44";
      h.flags = static_cast<std::uint32_t>(be(fields, 0, 4));
      h.allocated = be(fields, 4, 8);
      h.used = be(fields, 12, 8);
      h.info.checksum = hex_or_empty(fields.subspan(20, 8));
      const auto enc = padded_label(fields.subspan(28, 16));
      if (!enc) malformed(name, at, "block " + std::to_string(index) + ": the encoding name is not text");
      h.label = *enc;
      break;
    }
    case 48: {  // today's layout
      h.info.layout = "modern-48";
      const BlockHeader m = parse_block_header(file, at);
      h.flags = m.flags;
      h.label = m.compression_label();
      h.allocated = m.allocated_size;
      h.used = m.used_size;
      h.decoded = m.data_size;
      h.info.checksum = hex_or_empty(m.checksum);
      break;
    }
    default:
      malformed(name, at, "block " + std::to_string(index) + ": header_size " +
                              std::to_string(size) +
                              " matches no ASDF layout (36, 40, 44 or 48 before 1.0.0)");
  }
  h.info.streamed = (h.flags & 1) != 0;
  if (h.info.streamed) {
    h.used = h.allocated = room;
  } else if (h.used > h.allocated || h.allocated > room) {
    throw Error(ErrorCode::kTruncated,
                "block " + std::to_string(index) + " declares " + std::to_string(h.allocated) +
                    " allocated and " + std::to_string(h.used) + " used bytes; the file holds " +
                    std::to_string(room) + " after its header",
                ErrorContext{.file = name, .offset = at, .block = index});
  }
  h.info.used_size = h.used;
  if (!h.label.empty()) h.info.encodings.push_back(h.label);
  return h;
}

// The byte order of the array each block holds, by block number (quantize writes its floats in
// it): one walk of the tree, whatever the number of blocks.
std::map<std::int64_t, ndarray::ByteOrder> block_orders(const tree::NodePtr& root) {
  std::map<std::int64_t, ndarray::ByteOrder> out;
  std::unordered_set<const tree::Node*> seen;
  std::vector<const tree::Node*> stack{root.get()};
  while (!stack.empty()) {
    const tree::Node* n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    if (n->is_mapping()) {
      const auto source = n->get("source");
      const auto byteorder = n->get("byteorder");
      if (source && source->kind() == tree::NodeKind::kInt && byteorder && byteorder->is_string()) {
        out.emplace(source->as_int(), byteorder->as_string() == "little"
                                          ? ndarray::ByteOrder::kLittle
                                          : ndarray::ByteOrder::kBig);
      }
      for (const auto& [k, v] : n->entries()) stack.push_back(v.get());
    } else if (n->is_sequence()) {
      for (const auto& v : n->items()) stack.push_back(v.get());
    }
  }
  return out;
}

std::vector<std::uint8_t> decode_block(Header& h, Bytes stored, ndarray::ByteOrder order,
                                       std::size_t index, const std::string& name,
                                       const ReadOptions& options) {
  const std::uint64_t limit = options.max_block_data_size;
  if (h.chain) {
    // The data starts with a YAML document naming the encodings: "--- [zlib]\n...\n".
    const std::string_view text(reinterpret_cast<const char*>(stored.data()), stored.size());
    const auto end = find_tree_end(text, 0);
    if (!end) {
      throw Error(ErrorCode::kMalformed, "an ENCODED block's encoding chain has no `...` end line");
    }
    const auto chain =
        tree::parse_yaml(text.substr(0, *end), name + " (block " + std::to_string(index) + ")").root;
    h.info.encodings = legacy::chain_names(*chain);
    // memory_size bounds every stage: a stage may exceed it (padded tiles, quantized chunks),
    // but not by more than 64 times, so a bomb in the chain stops early.
    const std::uint64_t declared = h.decoded.value_or(0);
    const std::uint64_t stage_limit =
        declared > (limit - (1u << 20)) / 64 ? limit : std::min(limit, declared * 64 + (1u << 20));
    auto data = legacy::decode_chain(*chain, stored.subspan(*end), order, stage_limit);
    if (h.decoded && *h.decoded != data.size()) {
      throw Error(ErrorCode::kCompression,
                  "the encoding chain decodes to " + std::to_string(data.size()) +
                      " bytes; memory_size says " + std::to_string(*h.decoded));
    }
    return data;
  }
  if (h.label.empty()) return {stored.begin(), stored.end()};
  if (h.label == "zlib" && !h.decoded) return legacy::inflate(stored, limit);
  const auto codecs = compression::CodecRegistry::with_builtins();
  const compression::Codec* codec = codecs.find(h.label);
  if (codec == nullptr || !h.decoded) {
    throw Error(ErrorCode::kCompression, "the block is encoded with `" + h.label +
                                             "`, which fitsasdf cannot decode in this layout");
  }
  if (*h.decoded > limit || *h.decoded > codec->max_decoded_size(stored.size())) {
    throw Error(ErrorCode::kLimit, "the block declares " + std::to_string(*h.decoded) +
                                       " decoded bytes, more than its data or the limit allows");
  }
  std::vector<std::uint8_t> data(*h.decoded);
  codec->decompress(stored, data);
  return data;
}

void append(std::vector<std::uint8_t>& out, std::string_view text) {
  out.insert(out.end(), text.begin(), text.end());
}

}  // namespace

bool is_legacy_asdf(std::span<const std::uint8_t> file) noexcept {
  const std::string_view text(reinterpret_cast<const char*>(file.data()),
                              std::min<std::size_t>(file.size(), 8));
  return text.starts_with("%ASDF ") || text.starts_with("#ASDF 0.");
}

UpgradedFile upgrade_legacy(std::span<const std::uint8_t> file, const std::string& name,
                            const ReadOptions& options) {
  UpgradedFile result;
  LegacyInfo& info = result.info;
  const std::string_view text(reinterpret_cast<const char*>(file.data()), file.size());
  std::size_t at = text.find('\n');
  if (at == std::string_view::npos) malformed(name, 0, "a legacy ASDF header line with no end");
  info.header_line = std::string(text.substr(0, at));
  if (!info.header_line.empty() && info.header_line.back() == '\r') info.header_line.pop_back();
  info.file_format_version = info.header_line.substr(6);
  ++at;
  // Comment lines (#ASDF_STANDARD 0.1.0, ...) up to the tree or the first block.
  while (at < text.size() && text[at] == '#') {
    const auto end = text.find('\n', at);
    at = end == std::string_view::npos ? text.size() : end + 1;
  }
  // The tree, from `%YAML` (or `---`) to its `...` line; then unused space up to the first block.
  tree::NodePtr root = tree::Node::make_mapping();
  std::uint64_t blocks_from = at;
  if (text.substr(at).starts_with("%YAML") || text.substr(at).starts_with("---") ||
      text.substr(at).starts_with("%TAG")) {
    const auto end = find_tree_end(text, at);
    if (!end) malformed(name, at, "the legacy tree has no `...` end line");
    root = tree::parse_yaml(text.substr(at, *end - at), name, at).root;
    if (!root || root->is_null()) root = tree::Node::make_mapping();
    blocks_from = *end;
  }
  legacy::upgrade_tree(root, info);
  if (root->tag().empty()) root->set_tag("tag:stsci.edu:asdf/core/asdf-1.0.0");

  // The blocks, each decoded.
  std::vector<std::vector<std::uint8_t>> data;
  const auto orders = block_orders(root);
  std::uint64_t p = blocks_from;
  while (p < file.size() && !magic_at(file, p)) ++p;  // unused space after the tree
  while (p < file.size()) {
    if (!magic_at(file, p)) {
      // Zero padding may end a file; anything else is the end of the blocks.
      break;
    }
    const std::size_t index = info.blocks.size();
    Header h = parse_header(file, p, name, index);
    const Bytes stored = file.subspan(h.data_offset, h.used);
    try {
      const auto order = orders.find(static_cast<std::int64_t>(index));
      data.push_back(decode_block(h, stored,
                                  order == orders.end() ? ndarray::ByteOrder::kBig  // 0.1.0dev's default
                                                        : order->second,
                                  index, name, options));
      h.info.decoded_size = data.back().size();
    } catch (const Error& e) {
      if (e.code() == ErrorCode::kIo) throw;
      data.emplace_back();
      h.info.problem = e.message();
    }
    info.blocks.push_back(std::move(h.info));
    p = h.data_offset + h.allocated;
    if (info.blocks.back().streamed) break;
  }

  // The modern file: header, tree, then each block plain with its MD5.
  std::vector<std::uint8_t> out;
  append(out, "#ASDF 1.0.0\n#ASDF_STANDARD 1.0.0\n");
  append(out, tree::emit_yaml(*root));
  for (std::size_t i = 0; i < data.size(); ++i) {
    BlockHeader h;
    h.flags = info.blocks[i].streamed ? kFlagStreamed : 0;
    h.allocated_size = h.used_size = h.data_size = data[i].size();
    if (!data[i].empty()) h.checksum = compression::md5(data[i]);
    const auto header = encode_block_header(h);
    out.insert(out.end(), header.begin(), header.end());
    out.insert(out.end(), data[i].begin(), data[i].end());
  }
  result.bytes = io::Buffer::from_vector(std::move(out));
  return result;
}

}  // namespace asdfcore::format
