#include "fits/checksum_check.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "asdfcore/error.h"
#include "fits/checksum.h"
#include "fits/fits_file.h"

namespace fitsasdf::fits {
namespace {

/// The first `keyword` card, or nullptr.
const Card* find_card(const std::vector<Card>& cards, std::string_view keyword) {
  for (const auto& c : cards) {
    if (c.keyword == keyword) return &c;
  }
  return nullptr;
}

/// Add `bytes` to `sum`, the last block padded with zeros when the file ends inside it.
void add_padded(ChecksumSum& sum, std::span<const std::uint8_t> bytes) {
  const std::size_t whole = bytes.size() / kBlockSize * kBlockSize;
  if (whole > 0) sum.add(bytes.first(whole));
  if (whole < bytes.size()) {
    std::vector<std::uint8_t> last(kBlockSize, 0);
    std::copy(bytes.begin() + static_cast<std::ptrdiff_t>(whole), bytes.end(), last.begin());
    sum.add(last);
  }
}

}  // namespace

std::vector<HduChecksumVerdict> verify_checksums(const std::string& path) {
  // As CFITSIO's fits_verify_chksum, over each HDU's bytes as the HDU walk finds them (so that
  // files whose headers CFITSIO refuses are checked too): DATASUM must equal the data's sum,
  // and the whole HDU must sum to 0 or all ones.
  const FitsFile file = FitsFile::open(path);
  const auto& bytes = file.bytes();
  std::vector<HduChecksumVerdict> out;
  for (std::size_t i = 0; i < file.hdus().size(); ++i) {
    const HduExtent& e = file.hdus()[i];
    const std::vector<Card>& cards = file.headers()[i].cards;
    HduChecksumVerdict v;
    const Card* datasum = find_card(cards, "DATASUM");
    const Card* checksum = find_card(cards, "CHECKSUM");
    if (datasum == nullptr && checksum == nullptr) {
      out.push_back(v);
      continue;
    }
    ChecksumSum data;
    const std::uint64_t end = std::min<std::uint64_t>(e.data_end, bytes.size());
    add_padded(data, bytes.span().subspan(static_cast<std::size_t>(e.data_start),
                                          static_cast<std::size_t>(end - e.data_start)));
    if (datasum != nullptr) {
      // CFITSIO reads the value with strtoul: blanks (no data) are 0.
      bool ok = false;
      if (datasum->value && datasum->value->is_string()) {
        ok = std::strtoull(datasum->value->as_string().c_str(), nullptr, 10) == data.value();
      } else if (datasum->value && datasum->value->kind() == asdfcore::tree::NodeKind::kInt) {
        ok = datasum->value->as_int() == static_cast<std::int64_t>(data.value());
      }
      v.datasum = ok ? ChecksumVerdict::kValid : ChecksumVerdict::kInvalid;
    }
    if (checksum != nullptr) {
      ChecksumSum total(data.value());
      total.add(bytes.span().subspan(static_cast<std::size_t>(e.header_start),
                                     static_cast<std::size_t>(e.data_start - e.header_start)));
      v.checksum = total.value() == 0 || total.value() == 0xFFFFFFFFu ? ChecksumVerdict::kValid
                                                                      : ChecksumVerdict::kInvalid;
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace fitsasdf::fits
