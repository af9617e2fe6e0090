#include "asdfcore/format/container.h"

#include <algorithm>
#include <future>
#include <limits>
#include <new>
#include <string_view>

#include "asdfcore/error.h"
#include "asdfcore/io/mapped_file.h"

namespace asdfcore::format {
namespace {

std::string_view as_text(std::span<const std::uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::optional<std::uint64_t> find_magic(std::span<const std::uint8_t> file, std::uint64_t from) {
  const std::string_view text = as_text(file);
  const std::string_view magic(reinterpret_cast<const char*>(kBlockMagic.data()),
                               kBlockMagic.size());
  const std::size_t at = text.find(magic, static_cast<std::size_t>(from));
  if (at == std::string_view::npos) return std::nullopt;
  return at;
}

/// Pieces in which a block's mapped bytes are handed on, hashed and let go.
constexpr std::size_t kStreamPiece = std::size_t{4} << 20;

/// A piece smaller than this is hashed in the calling thread: starting a thread costs more than
/// hashing it (tens of microseconds against about 1.3 us a KiB), and a file of N small blocks
/// started N threads (issue 28).
constexpr std::size_t kThreadedHashMin = std::size_t{1} << 20;

/// Return the MD5 of `bytes`, hashed in pieces whose pages are let go once hashed, so a large
/// block is never held mapped whole (the pages fault back from the file if read again).
compression::Md5Digest digest_releasing(const io::Buffer& bytes) {
  compression::Md5 md5;
  const auto span = bytes.span();
  for (std::size_t at = 0; at < span.size(); at += kStreamPiece) {
    const auto part = span.subspan(at, std::min(kStreamPiece, span.size() - at));
    md5.update(part);
    bytes.release(part);
  }
  return md5.finish();
}

}  // namespace

std::string_view checksum_status_name(ChecksumStatus status) noexcept {
  switch (status) {
    case ChecksumStatus::kUnchecked: return "unchecked";
    case ChecksumStatus::kMatchesStored: return "stored";
    case ChecksumStatus::kMatchesDecoded: return "decoded";
    case ChecksumStatus::kMismatch: return "mismatch";
    case ChecksumStatus::kUndecodable: return "undecodable";
  }
  return "unknown";
}

Container Container::open(const std::string& path, const ReadOptions& options,
                          compression::CodecRegistry codecs) {
  return from_buffer(io::map_file(path), path, options, std::move(codecs));
}

Container Container::from_buffer(io::Buffer bytes, std::string name, const ReadOptions& options,
                                 compression::CodecRegistry codecs) {
  Container c;
  c.name_ = std::move(name);
  c.bytes_ = std::move(bytes);
  c.codecs_ = std::move(codecs);
  c.max_block_data_size_ = options.max_block_data_size;
  try {
    if (is_legacy_asdf(c.bytes_.span())) {
      UpgradedFile upgraded = upgrade_legacy(c.bytes_.span(), c.name_, options);
      c.bytes_ = std::move(upgraded.bytes);
      c.legacy_ = std::move(upgraded.info);
    }
    c.scan(options);
    if (c.legacy_) {
      // A block whose legacy encoding could not be undone stays empty; reading it says why.
      for (std::size_t i = 0; i < c.blocks_.size() && i < c.legacy_->blocks.size(); ++i) {
        if (!c.legacy_->blocks[i].problem.empty()) {
          c.blocks_[i].problem = "legacy block " + std::to_string(i) + " (at byte " +
                                 std::to_string(c.legacy_->blocks[i].offset) +
                                 " of the original file): " + c.legacy_->blocks[i].problem;
        }
      }
    }
  } catch (const Error& e) {
    throw e.with_context(ErrorContext{.file = c.name_});
  }
  return c;
}

void Container::add_problem(LayoutProblem::Kind kind, std::uint64_t offset, std::string message,
                            bool strict) {
  if (strict && kind == LayoutProblem::Kind::kBrokenChain) {
    throw Error(ErrorCode::kMalformed, message, ErrorContext{.file = name_, .offset = offset});
  }
  problems_.push_back(LayoutProblem{kind, offset, std::move(message)});
}

void Container::scan(const ReadOptions& options) {
  const auto file = bytes_.span();
  prologue_ = parse_prologue(file, name_);
  // The first block is found by searching for its magic: anything else between the tree and
  // the first block is unused space.
  const auto first = find_magic(file, prologue_.end);
  if (!first) return;
  index_ = find_block_index(file, *first);
  walk_blocks(*first, options.strict);
  check_index();
}

void Container::walk_blocks(std::uint64_t first, bool strict) {
  const auto file = bytes_.span();
  const std::uint64_t size = file.size();
  const std::uint64_t stop = size;
  const std::string_view index_header = kBlockIndexHeader;
  if (index_ && index_->parsed) {
    // The index says how many blocks to expect; no more than the bytes left can hold headers
    // for, whatever a hostile index claims.
    const std::uint64_t room = (size - first) / (kBlockPrefixSize + kBlockHeaderSize);
    blocks_.reserve(static_cast<std::size_t>(
        std::min<std::uint64_t>(index_->entries.size(), room)));
  }
  std::uint64_t p = first;
  while (p < stop) {
    if (as_text(file.subspan(p)).starts_with(index_header)) break;
    if (!starts_with_block_magic(file.subspan(p))) {
      // Zero bytes may pad the space before the index or the end of the file.
      std::uint64_t q = p;
      while (q < stop && file[q] == 0) ++q;
      if (q == stop || as_text(file.subspan(q)).starts_with(index_header)) break;
      const auto next = find_magic(file, p);
      const bool promised = index_ && index_->parsed &&
                            std::find(index_->entries.begin(), index_->entries.end(), p) !=
                                index_->entries.end();
      if (next || promised) {
        add_problem(LayoutProblem::Kind::kBrokenChain, p,
                    next ? "no block magic where the previous block ends; the next magic is at "
                           "byte " + std::to_string(*next) + ", so the blocks from there on are "
                           "not read"
                         : std::string("no block magic where the block index lists a block"),
                    strict);
      } else {
        add_problem(LayoutProblem::Kind::kTrailingBytes, p,
                    std::to_string(stop - p) + " bytes after the last block are neither a block "
                    "nor a block index",
                    false);
      }
      return;
    }
    BlockInfo b;
    b.offset = p;
    try {
      b.header = parse_block_header(file, p);
    } catch (const Error& e) {
      if (strict) throw e.with_context(ErrorContext{.file = name_});
      add_problem(LayoutProblem::Kind::kBrokenChain, p, e.message(), false);
      return;
    }
    b.data_offset = p + b.header.total_header_bytes();
    const std::uint64_t room = size - b.data_offset;
    const std::string block_name = "block " + std::to_string(blocks_.size());
    if (b.header.streamed()) {
      // A streamed block runs to the end of the file; its size fields are ignored.
      b.stored_size = room;
      blocks_.push_back(std::move(b));
      return;
    }
    b.stored_size = b.header.used_size;
    if (b.header.used_size > b.header.allocated_size) {
      b.problem = "used_size " + std::to_string(b.header.used_size) +
                  " exceeds allocated_size " + std::to_string(b.header.allocated_size);
    } else if (b.header.used_size > room) {
      b.problem = "used_size " + std::to_string(b.header.used_size) + " runs past the end of " +
                  "the file (" + std::to_string(room) + " bytes remain): the file is truncated";
    } else if (b.header.compression_label().empty() &&
               b.header.data_size != b.header.used_size) {
      b.problem = "uncompressed block declares data_size " +
                  std::to_string(b.header.data_size) + " but used_size " +
                  std::to_string(b.header.used_size);
    }
    if (!b.problem.empty() && strict) {
      throw Error(ErrorCode::kMalformed, b.problem,
                  ErrorContext{.file = name_, .offset = p, .block = blocks_.size()});
    }
    const bool fits = b.header.allocated_size <= room;
    const bool sane = b.header.used_size <= b.header.allocated_size;
    blocks_.push_back(std::move(b));
    if (!fits || !sane) {
      add_problem(LayoutProblem::Kind::kBrokenChain, p,
                  block_name + (fits ? " has used_size greater than allocated_size"
                                     : " claims more space than the file holds") +
                      "; no further blocks are read",
                  strict);
      return;
    }
    p = blocks_.back().data_offset + blocks_.back().header.allocated_size;
  }
}

void Container::check_index() {
  if (!index_) return;
  auto stale = [this](const std::string& why) {
    index_valid_ = false;
    problems_.push_back(LayoutProblem{LayoutProblem::Kind::kStaleIndex, index_->offset,
                                      "block index ignored: " + why});
  };
  if (!index_->parsed) return stale("it is not a YAML list of offsets");
  if (blocks_.empty()) return stale("the file has no readable blocks");
  const BlockInfo& last = blocks_.back();
  if (last.header.streamed()) return stale("a file ending in a streamed block has no index");
  const auto& entries = index_->entries;
  if (entries.empty() || entries.front() != blocks_.front().offset) {
    return stale("its first entry is not the first block at byte " +
                 std::to_string(blocks_.front().offset));
  }
  if (!std::is_sorted(entries.begin(), entries.end()) ||
      std::adjacent_find(entries.begin(), entries.end()) != entries.end()) {
    return stale("its offsets do not increase");
  }
  for (std::uint64_t e : entries) {
    if (e >= bytes_.size() || !starts_with_block_magic(bytes_.span().subspan(e))) {
      return stale("no block magic at listed offset " + std::to_string(e));
    }
  }
  if (entries.back() != last.offset ||
      last.data_offset + last.header.allocated_size != index_->offset) {
    return stale("the last block does not end where the index starts");
  }
  if (entries.size() != blocks_.size() ||
      !std::equal(entries.begin(), entries.end(), blocks_.begin(),
                  [](std::uint64_t e, const BlockInfo& b) { return e == b.offset; })) {
    return stale("it lists other offsets than the block headers lead to");
  }
  index_valid_ = true;
}

std::string_view Container::tree_text() const noexcept {
  if (!prologue_.tree_offset) return {};
  return as_text(bytes_.span().subspan(*prologue_.tree_offset, prologue_.tree_size));
}

ErrorContext Container::where(std::size_t i) const {
  return ErrorContext{.file = name_, .offset = blocks_[i].offset, .block = i};
}

const BlockInfo& Container::block_at(std::size_t i) const {
  if (i >= blocks_.size()) {
    throw Error(ErrorCode::kInvalidArgument,
                "block " + std::to_string(i) + " does not exist; the file has " +
                    std::to_string(blocks_.size()) + " readable blocks",
                ErrorContext{.file = name_});
  }
  const BlockInfo& b = blocks_[i];
  if (!b.problem.empty()) throw Error(ErrorCode::kMalformed, b.problem, where(i));
  return b;
}

io::Buffer Container::stored_data(std::size_t i) const {
  const BlockInfo& b = block_at(i);
  return bytes_.slice(b.data_offset, b.stored_size);
}

const compression::Codec* Container::codec_for(std::size_t i) const {
  const BlockInfo& b = block_at(i);
  const std::string label = b.header.compression_label();
  if (label.empty()) return nullptr;
  const compression::Codec* codec = codecs_.find(label);
  if (codec == nullptr) {
    std::string known;
    for (const auto& l : codecs_.labels()) known += (known.empty() ? "" : ", ") + l;
    throw Error(ErrorCode::kCompression,
                "unknown compression '" + label + "' (known: " + known +
                    "); this block cannot be decoded, the tree and other blocks can",
                where(i));
  }
  if (b.header.data_size > max_block_data_size_) {
    throw Error(ErrorCode::kLimit,
                "block declares data_size " + std::to_string(b.header.data_size) +
                    " bytes, above the limit of " + std::to_string(max_block_data_size_) +
                    " (raise ReadOptions::max_block_data_size, fitsasdf --max-memory, to read it)",
                where(i));
  }
  if (b.header.data_size > codec->max_decoded_size(b.stored_size)) {
    throw Error(ErrorCode::kCompression,
                "block declares data_size " + std::to_string(b.header.data_size) +
                    " bytes, more than " + std::to_string(b.stored_size) + " bytes of " + label +
                    " data can decode to",
                where(i));
  }
  return codec;
}

std::optional<compression::Md5Digest> Container::stored_digest(std::size_t i, bool verify) const {
  const BlockInfo& b = block_at(i);
  if (!verify || !b.header.has_checksum()) return std::nullopt;
  return digest_releasing(stored_data(i));
}

Error Container::checksum_mismatch(std::size_t i, const compression::Md5Digest& stored_md5,
                                   const std::optional<compression::Md5Digest>& decoded_md5,
                                   const std::string& why_not_decoded) const {
  const BlockInfo& b = block_at(i);
  // The context names the file, the block (0-based) and its offset.
  std::string message = "checksum mismatch: the block header stores MD5 " +
                        compression::to_hex(b.header.checksum) + ", but ";
  if (b.header.compression_label().empty()) {
    message += "its data hashes to " + compression::to_hex(stored_md5);
  } else {
    message += "its stored (" + b.header.compression_label() + ") bytes hash to " +
               compression::to_hex(stored_md5) + " (the standard's convention)";
    if (decoded_md5) {
      message += " and its decoded data to " + compression::to_hex(*decoded_md5) +
                 " (python asdf 2.14-5.2's)";
    } else if (!why_not_decoded.empty()) {
      message += ", and its data cannot be decoded to try the other convention (" +
                 why_not_decoded + ")";
    }
  }
  message += ": the file is damaged (or its checksum field is)";
  return Error(ErrorCode::kChecksum, message, where(i));
}

io::Buffer Container::data(std::size_t i, bool verify_checksum) const {
  const BlockInfo& b = block_at(i);
  io::Buffer stored = bytes_.slice(b.data_offset, b.stored_size);
  const compression::Codec* codec = codec_for(i);
  const auto stored_md5 = stored_digest(i, verify_checksum);
  const bool stored_ok = stored_md5 && *stored_md5 == b.header.checksum;
  io::Buffer decoded;
  if (codec == nullptr) {
    decoded = stored;
  } else {
    io::WritableBuffer out;
    try {
      if (b.header.data_size > std::numeric_limits<std::size_t>::max()) throw std::bad_alloc();
      out = io::Buffer::allocate(static_cast<std::size_t>(b.header.data_size));
    } catch (const std::bad_alloc&) {
      throw Error(ErrorCode::kLimit,
                  "block declares data_size " + std::to_string(b.header.data_size) +
                      " bytes, which cannot be allocated",
                  where(i));
    }
    try {
      codec->decompress(stored.span(), out.bytes);
    } catch (const Error& e) {
      throw e.with_context(where(i));
    }
    decoded = std::move(out.buffer);
  }
  if (verify_checksum && b.header.has_checksum() && !stored_ok && codec == nullptr) {
    throw checksum_mismatch(i, *stored_md5);
  }
  if (verify_checksum && b.header.has_checksum() && !stored_ok) {
    const compression::Md5Digest decoded_md5 = compression::md5(decoded.span());
    if (decoded_md5 != b.header.checksum) throw checksum_mismatch(i, *stored_md5, decoded_md5);
  }
  return decoded;
}

void Container::data_stream(std::size_t i, bool verify_checksum,
                            const compression::WriteNext& write, unsigned threads) const {
  const BlockInfo& b = block_at(i);
  const io::Buffer stored = bytes_.slice(b.data_offset, b.stored_size);
  const compression::Codec* codec = codec_for(i);
  const bool verify = verify_checksum && b.header.has_checksum();
  if (codec == nullptr) {
    // Mapped bytes in large pieces whose pages are let go once handed on. With verification a
    // second thread hashes each piece while it is handed on, and its pages go when both are
    // done: the hash costs no time beside a slower consumer, and no memory.
    const auto bytes = stored.span();
    compression::Md5 md5;
    for (std::size_t at = 0; at < bytes.size(); at += kStreamPiece) {
      const auto part = bytes.subspan(at, std::min(kStreamPiece, bytes.size() - at));
      std::future<void> hashed;
      if (verify && part.size() >= kThreadedHashMin) {
        hashed = std::async(std::launch::async, [&md5, part] { md5.update(part); });
      } else if (verify) {
        md5.update(part);
      }
      write(part);  // a throw waits for the hash (the future's destructor) before unwinding
      if (hashed.valid()) hashed.get();
      stored.release(part);
    }
    if (verify) {
      const compression::Md5Digest digest = md5.finish();
      if (digest != b.header.checksum) throw checksum_mismatch(i, digest);
    }
    return;
  }
  const auto stored_md5 = stored_digest(i, verify_checksum);
  const bool stored_ok = stored_md5 && *stored_md5 == b.header.checksum;
  // The other convention (MD5 of the decoded bytes) is hashed on the way.
  const bool hash_decoded = verify && !stored_ok;
  compression::Md5 decoded_md5;
  const auto hand_on = [&](std::span<const std::uint8_t> piece) {
    if (hash_decoded) decoded_md5.update(piece);
    write(piece);
  };
  try {
    codec->decompress_stream(stored, b.header.data_size, hand_on, threads);
  } catch (const Error& e) {
    throw e.with_context(where(i));
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::kLimit,
                "block declares data_size " + std::to_string(b.header.data_size) +
                    " bytes, which cannot be allocated",
                where(i));
  }
  if (hash_decoded) {
    const compression::Md5Digest decoded = decoded_md5.finish();
    if (decoded != b.header.checksum) throw checksum_mismatch(i, *stored_md5, decoded);
  }
}

ChecksumStatus Container::verify_checksum(std::size_t i) const {
  const BlockInfo& b = block_at(i);
  if (!b.header.has_checksum()) return ChecksumStatus::kUnchecked;
  const compression::Md5Digest stored_md5 = digest_releasing(stored_data(i));
  if (stored_md5 == b.header.checksum) return ChecksumStatus::kMatchesStored;
  if (b.header.compression_label().empty()) throw checksum_mismatch(i, stored_md5);
  compression::Md5 decoded_md5;
  try {
    data_stream(i, false, [&decoded_md5](std::span<const std::uint8_t> piece) {
      decoded_md5.update(piece);
    });
  } catch (const Error& e) {
    throw checksum_mismatch(i, stored_md5, std::nullopt, e.message());
  }
  const compression::Md5Digest decoded = decoded_md5.finish();
  if (decoded != b.header.checksum) throw checksum_mismatch(i, stored_md5, decoded);
  return ChecksumStatus::kMatchesDecoded;
}

ChecksumStatus Container::check(std::size_t i) const {
  const BlockInfo& b = block_at(i);
  if (!b.header.has_checksum()) return ChecksumStatus::kUnchecked;
  if (compression::md5(stored_data(i).span()) == b.header.checksum) {
    return ChecksumStatus::kMatchesStored;
  }
  if (b.header.compression_label().empty()) return ChecksumStatus::kMismatch;
  try {
    return compression::md5(data(i).span()) == b.header.checksum ? ChecksumStatus::kMatchesDecoded
                                                                  : ChecksumStatus::kMismatch;
  } catch (const Error&) {
    return ChecksumStatus::kUndecodable;
  }
}

}  // namespace asdfcore::format
