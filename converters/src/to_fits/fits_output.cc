#include "to_fits/fits_output.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "asdfcore/error.h"
#include "fits/checksum.h"

namespace fitsasdf::to_fits {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::tree::Node;

constexpr std::size_t kStage = kBlockSize * 512;
/// The most bytes of a large piece written at once (whole stages, so sums stay aligned).
constexpr std::size_t kDirect = kStage * 4;
constexpr std::string_view kZeroChecksum = "0000000000000000";

/// Collects data bytes into whole blocks, sums them when asked, and appends them to the file.
class BlockWriter final : public DataSink {
 public:
  /// `expected`: the data unit's declared size; the stage holds at most that, padded to a block
  /// (most HDUs of a batch are small: a stage of 1.4 MB for each was an mmap and munmap apiece).
  BlockWriter(asdfcore::io::AtomicFile& out, bool sum, std::uint64_t expected,
              progress::Meter* meter)
      : out_(out), meter_(meter) {
    if (sum) sum_.emplace(0);
    const std::uint64_t blocks = expected / kBlockSize + (expected % kBlockSize != 0 ? 1 : 0);
    stage_.reserve(std::min<std::uint64_t>(blocks, kStage / kBlockSize) * kBlockSize);
  }
  void write(std::span<const std::uint8_t> bytes) override {
    written_ += bytes.size();
    if (stage_.empty() && bytes.size() >= kStage) {
      // Large pieces skip the stage: whole stages straight from the caller's bytes (the data
      // so far is whole stages, so sums stay aligned to 4 bytes), the rest staged below.
      const std::size_t direct = bytes.size() / kStage * kStage;
      for (std::size_t at = 0; at < direct; at += kDirect) {
        const auto part = bytes.subspan(at, std::min(kDirect, direct - at));
        if (sum_) sum_->add(part);
        out_.write(part);
        if (meter_ != nullptr) meter_->advance(part.size());
      }
      bytes = bytes.subspan(direct);
    }
    if (meter_ != nullptr) meter_->advance(bytes.size());  // staged, counted as taken
    while (!bytes.empty()) {
      const std::size_t n = std::min(bytes.size(), kStage - stage_.size());
      stage_.insert(stage_.end(), bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
      bytes = bytes.subspan(n);
      if (stage_.size() == kStage) flush();
    }
  }
  /// Pad the data to whole blocks with `fill` and write what is left; without `pad`, write the
  /// data unpadded (the sums still cover it as if padded, as FITS checksums do).
  void finish(std::uint8_t fill, bool pad) {
    const std::size_t unpadded = stage_.size();
    if (stage_.size() % kBlockSize != 0) {
      stage_.resize(stage_.size() + kBlockSize - stage_.size() % kBlockSize, fill);
    }
    if (!pad) {
      if (sum_ && !stage_.empty()) sum_->add(stage_);
      out_.write(std::span<const std::uint8_t>(stage_).first(unpadded));
      stage_.clear();
      return;
    }
    flush();
  }
  std::uint64_t written() const { return written_; }
  std::uint32_t sum() const { return sum_ ? sum_->value() : 0; }

 private:
  void flush() {
    if (stage_.empty()) return;
    if (sum_) sum_->add(stage_);
    out_.write(stage_);
    stage_.clear();
  }
  asdfcore::io::AtomicFile& out_;
  progress::Meter* meter_;
  std::optional<fits::ChecksumSum> sum_;
  std::vector<std::uint8_t> stage_;
  std::uint64_t written_ = 0;
};

std::span<const std::uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

/// The DATASUM value for `sum`, laid out as the card's value was: CFITSIO writes the number
/// right-aligned in 10 characters ('         0'), astropy left-aligned ('0').
asdfcore::tree::NodePtr datasum_value(const TreeCard& card, std::uint32_t sum) {
  std::string text = std::to_string(sum);
  if (card.value->is_string()) {
    const std::string& old = card.value->as_string();
    // A value that already reads as the sum (as CFITSIO's strtoul reads it: blanks are 0, the
    // sum of no data) stays as it is.
    if (std::strtoull(old.c_str(), nullptr, 10) == sum) return card.value;
    const std::size_t digits = old.find_first_not_of(' ');
    if (digits != std::string::npos && digits > 0 && old.size() > text.size()) {
      text.insert(0, old.size() - text.size(), ' ');
    }
  }
  return Node::make_string(text);
}

}  // namespace

WrittenHdu write_hdu(asdfcore::io::AtomicFile& out, HduPlan& plan, bool checksums,
                     progress::Meter* meter) {
  bool has_checksum = plan.index_of("CHECKSUM").has_value();
  bool has_datasum = plan.index_of("DATASUM").has_value();
  if (plan.keep_checksums && !checksums) {  // stale in the input: written as found
    has_checksum = has_datasum = false;
    plan.report.notes.push_back(
        "CHECKSUM/DATASUM did not verify in the FITS file this came from: written as found");
  }
  const bool sums = checksums || has_checksum || has_datasum;
  if (checksums && !has_checksum) {
    plan.set_value("CHECKSUM", Node::make_string(std::string(kZeroChecksum)), "HDU checksum");
  }
  if (checksums && !has_datasum) {
    plan.set_value("DATASUM", Node::make_string("0"), "data unit checksum");
  }
  if (sums && plan.index_of("CHECKSUM")) {
    plan.set_value("CHECKSUM", Node::make_string(std::string(kZeroChecksum)));
  }

  WrittenHdu result;
  result.header_offset = out.position();
  BuiltHeader header = build_header(plan);
  out.write(bytes_of(header.bytes));

  BlockWriter data(out, sums, plan.data_size, meter);
  if (plan.data_size > 0) {
    if (!plan.write_data) {
      throw Error(ErrorCode::kInvalidArgument,
                  "no writer for a data unit of " + std::to_string(plan.data_size) + " bytes");
    }
    plan.write_data(data);
  }
  if (data.written() != plan.data_size) {
    throw Error(ErrorCode::kMalformed,
                "the data unit came out as " + std::to_string(data.written()) + " bytes, not the " +
                    std::to_string(plan.data_size) + " bytes the header declares");
  }
  data.finish(plan.fill, plan.pad);

  if (sums) {
    if (const auto i = plan.index_of("DATASUM")) {
      plan.set_value("DATASUM", datasum_value(plan.cards[*i].card, data.sum()));
    }
    const std::size_t placeholder_size = header.bytes.size();
    header = build_header(plan);  // DATASUM's value changes within its card
    if (header.bytes.size() != placeholder_size) {
      throw Error(ErrorCode::kInvalidArgument,
                  "the header changed size when DATASUM got its value (" +
                      std::to_string(placeholder_size) + " -> " +
                      std::to_string(header.bytes.size()) + " bytes)");
    }
    std::size_t value_at = std::string::npos;
    if (const auto i = plan.index_of("CHECKSUM")) {
      const std::size_t card = header.card_offsets[*i];
      value_at = header.bytes.find("'" + std::string(kZeroChecksum) + "'", card);
      if (value_at == std::string::npos || value_at >= card + kCardSize) {
        throw Error(ErrorCode::kInvalidArgument, "the CHECKSUM card has no room for its value");
      }
      fits::ChecksumSum total(data.sum());
      total.add(bytes_of(header.bytes));
      header.bytes.replace(value_at + 1, kZeroChecksum.size(),
                           fits::encode_checksum(total.value()));
      plan.set_value("CHECKSUM", Node::make_string(header.bytes.substr(value_at + 1, 16)));
    }
    out.write_at(result.header_offset, bytes_of(header.bytes));
  }
  for (auto& note : header.notes) plan.report.notes.push_back(std::move(note));
  result.from_images = header.from_images;
  result.formatted = header.formatted;
  result.images_not_used = header.images_not_used;
  result.size = out.position() - result.header_offset;
  return result;
}

}  // namespace fitsasdf::to_fits
