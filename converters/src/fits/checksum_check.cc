#include "fits/checksum_check.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "asdfcore/error.h"
#include "fits/checksum.h"
#include "fits/fits_file.h"

namespace fitsasdf::fits {

HduChecksums check_hdu_checksums(std::span<const std::uint8_t> header_bytes,
                                 const asdfcore::io::Buffer& data, const std::vector<Card>& cards) {
  HduChecksums out;
  const Card* datasum = find_card(cards, "DATASUM");
  const Card* checksum = find_card(cards, "CHECKSUM");
  if (datasum == nullptr && checksum == nullptr) return out;
  // The data's sum over whole blocks, pages released as they go (a short last block as if
  // padded with zeros).
  const std::span<const std::uint8_t> bytes = data.span();
  ChecksumSum data_sum;
  const std::size_t whole = bytes.size() / kBlockSize * kBlockSize;
  constexpr std::size_t kWindow = kBlockSize * 1024;  // 2.8 MiB
  for (std::size_t at = 0; at < whole; at += kWindow) {
    const auto piece = bytes.subspan(at, std::min(kWindow, whole - at));
    data_sum.add(piece);
    data.release(piece);
  }
  if (whole < bytes.size()) {
    std::vector<std::uint8_t> last(kBlockSize, 0);
    std::copy(bytes.begin() + static_cast<std::ptrdiff_t>(whole), bytes.end(), last.begin());
    data_sum.add(last);
  }
  out.data_sum = data_sum.value();
  if (datasum != nullptr) {
    bool ok = false;
    if (datasum->value && datasum->value->is_string()) {
      ok = std::strtoull(datasum->value->as_string().c_str(), nullptr, 10) == out.data_sum;
    } else if (datasum->value && datasum->value->kind() == asdfcore::tree::NodeKind::kInt) {
      ok = datasum->value->as_int() == static_cast<std::int64_t>(out.data_sum);
    }
    out.verdict.datasum = ok ? ChecksumVerdict::kValid : ChecksumVerdict::kInvalid;
  }
  ChecksumSum total(out.data_sum);
  total.add(header_bytes.first(header_bytes.size() / kBlockSize * kBlockSize));
  out.hdu_sum = total.value();
  if (checksum != nullptr) {
    out.verdict.checksum = out.hdu_sum == 0 || out.hdu_sum == 0xFFFFFFFFu
                               ? ChecksumVerdict::kValid
                               : ChecksumVerdict::kInvalid;
  }
  return out;
}

std::vector<HduChecksumVerdict> verify_checksums(const FitsFile& file) {
  // Over each HDU's bytes as the HDU walk finds them, so that files whose headers CFITSIO
  // refuses are checked too.
  const auto& bytes = file.bytes();
  std::vector<HduChecksumVerdict> out;
  for (std::size_t i = 0; i < file.hdus().size(); ++i) {
    const HduExtent& e = file.hdus()[i];
    const std::uint64_t end = std::min<std::uint64_t>(e.data_end, bytes.size());
    out.push_back(
        check_hdu_checksums(
            bytes.span().subspan(static_cast<std::size_t>(e.header_start),
                                 static_cast<std::size_t>(e.data_start - e.header_start)),
            bytes.slice(static_cast<std::size_t>(e.data_start),
                        static_cast<std::size_t>(end - e.data_start)),
            file.headers()[i].cards)
            .verdict);
  }
  return out;
}

}  // namespace fitsasdf::fits
