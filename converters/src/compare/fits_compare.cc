// Two FITS files, HDU by HDU: pair the HDUs (in order when the counts agree, else by the longest
// common run of matching EXTNAME, XTENSION and shape), then compare headers, data, padding and
// checksums of each pair.
#include <algorithm>
#include <cstring>

#include "compare/data_compare.h"
#include "compare/fits_hdus.h"
#include "compare/header_compare.h"
#include "fits/checksum_check.h"
#include "fitsasdf/diff.h"
#include "progress/meter.h"

namespace fitsasdf {
namespace {

using compare::FitsHdu;

ChecksumState state(fits::ChecksumVerdict v) {
  switch (v) {
    case fits::ChecksumVerdict::kValid:
      return ChecksumState::kValid;
    case fits::ChecksumVerdict::kInvalid:
      return ChecksumState::kInvalid;
    case fits::ChecksumVerdict::kAbsent:
      break;
  }
  return ChecksumState::kAbsent;
}

/// What must agree for two HDUs to be taken as counterparts when HDUs are missing.
std::string signature(const FitsHdu& h) {
  std::string s = h.xtension + "|" + h.name + "|" + std::to_string(h.bitpix);
  for (auto n : h.axes) s += "|" + std::to_string(n);
  return s;
}

/// Pairs (index in a, index in b) of a longest common subsequence of the signatures. The
/// common run at the start and at the end is paired first, and only what lies between goes
/// through the quadratic table (one HDU missing from a file of 10,000: a table of one row).
std::vector<std::pair<std::size_t, std::size_t>> align(const std::vector<FitsHdu>& a,
                                                       const std::vector<FitsHdu>& b) {
  std::vector<std::string> sa(a.size());
  std::vector<std::string> sb(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) sa[i] = signature(a[i]);
  for (std::size_t j = 0; j < b.size(); ++j) sb[j] = signature(b[j]);
  std::size_t head = 0;
  while (head < sa.size() && head < sb.size() && sa[head] == sb[head]) ++head;
  std::size_t tail = 0;
  while (tail < sa.size() - head && tail < sb.size() - head &&
         sa[sa.size() - 1 - tail] == sb[sb.size() - 1 - tail]) {
    ++tail;
  }
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t k = 0; k < head; ++k) pairs.emplace_back(k, k);
  // The middle: a[head, head + n), b[head, head + m).
  const std::size_t n = sa.size() - head - tail;
  const std::size_t m = sb.size() - head - tail;
  if (n > 0 && m > 0) {
    std::vector<std::vector<std::size_t>> len(n + 1, std::vector<std::size_t>(m + 1, 0));
    for (std::size_t i = n; i-- > 0;) {
      for (std::size_t j = m; j-- > 0;) {
        len[i][j] = sa[head + i] == sb[head + j] ? len[i + 1][j + 1] + 1
                                                 : std::max(len[i + 1][j], len[i][j + 1]);
      }
    }
    for (std::size_t i = 0, j = 0; i < n && j < m;) {
      if (sa[head + i] == sb[head + j]) {
        pairs.emplace_back(head + i++, head + j++);
      } else if (len[i + 1][j] >= len[i][j + 1]) {
        ++i;
      } else {
        ++j;
      }
    }
  }
  for (std::size_t k = tail; k > 0; --k) pairs.emplace_back(sa.size() - k, sb.size() - k);
  return pairs;
}

HduComparison compare_pair(const FitsHdu& a, const FitsHdu& b, const CompareOptions& options,
                           progress::Meter& meter) {
  HduComparison h;
  h.hdu_a = a.index;
  h.hdu_b = b.index;
  h.name = a.name;
  h.kind = a.kind;
  const compare::HeaderResult header =
      options.mode == CompareMode::kVerify
          ? compare::compare_headers_in_place(a.header, b.header, options.ignore_keywords,
                                              options.max_listed)
          : compare::compare_headers_by_keyword(a.header.cards, b.header.cards,
                                                options.ignore_keywords, options.max_listed);
  h.header = header.match;
  h.cards_a = header.cards_a;
  h.cards_b = header.cards_b;
  h.card_differences = header.total;
  h.cards = header.listed;
  h.notes = header.notes;
  h.data = compare::compare_hdu_data(a, b, options.mode, options.max_listed,
                                     [&meter](std::uint64_t n) { meter.advance(n); });
  if (options.mode == CompareMode::kVerify) {
    const auto& pa = a.padding;
    const auto& pb = b.padding;
    if (pa.size() != pb.size() ||
        (!pa.empty() && std::memcmp(pa.data(), pb.data(), pa.size()) != 0)) {
      h.notes.push_back("the padding after the data differs (" + std::to_string(pa.size()) +
                        " and " + std::to_string(pb.size()) + " bytes)");
    }
  }
  return h;
}

}  // namespace

bool HduComparison::checksums_broken() const noexcept {
  return (datasum_b == ChecksumState::kInvalid && datasum_a != ChecksumState::kInvalid) ||
         (checksum_b == ChecksumState::kInvalid && checksum_a != ChecksumState::kInvalid);
}

bool HduComparison::equivalent() const noexcept {
  return header != HeaderMatch::kDifferent && data.identical && !checksums_broken();
}

bool FitsComparison::equivalent() const noexcept {
  if (!missing_hdus.empty() || !extra_hdus.empty() || hdus_a != hdus_b) return false;
  return std::all_of(hdus.begin(), hdus.end(), [](const auto& h) { return h.equivalent(); });
}

FitsComparison compare_fits(const std::string& a, const std::string& b,
                            const CompareOptions& options) {
  progress::Meter meter(options.control, a);
  const bool decompress = options.mode == CompareMode::kDiff;
  // Verification also checks each HDU's DATASUM and CHECKSUM, from the same reading.
  const bool sums = options.mode == CompareMode::kVerify;
  std::vector<fits::HduChecksumVerdict> ca;
  std::vector<fits::HduChecksumVerdict> cb;
  const std::vector<FitsHdu> ha = compare::read_fits_hdus(a, decompress, sums ? &ca : nullptr);
  const std::vector<FitsHdu> hb = compare::read_fits_hdus(b, decompress, sums ? &cb : nullptr);
  FitsComparison out;
  out.a = a;
  out.b = b;
  out.mode = options.mode;
  out.hdus_a = static_cast<int>(ha.size());
  out.hdus_b = static_cast<int>(hb.size());

  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  if (ha.size() == hb.size() || options.mode == CompareMode::kDiff) {
    // fitsdiff pairs the HDUs in order, as far as the shorter file goes.
    for (std::size_t i = 0; i < std::min(ha.size(), hb.size()); ++i) pairs.emplace_back(i, i);
    for (std::size_t i = hb.size(); i < ha.size(); ++i) out.missing_hdus.push_back(ha[i].index);
    for (std::size_t j = ha.size(); j < hb.size(); ++j) out.extra_hdus.push_back(hb[j].index);
  } else {
    pairs = align(ha, hb);
    std::vector<bool> used_a(ha.size(), false);
    std::vector<bool> used_b(hb.size(), false);
    for (const auto& [i, j] : pairs) used_a[i] = used_b[j] = true;
    for (std::size_t i = 0; i < ha.size(); ++i) {
      if (!used_a[i]) out.missing_hdus.push_back(ha[i].index);
    }
    for (std::size_t j = 0; j < hb.size(); ++j) {
      if (!used_b[j]) out.extra_hdus.push_back(hb[j].index);
    }
  }
  std::uint64_t total = 0;
  for (const auto& [i, j] : pairs) total += ha[i].data.size() + hb[j].data.size();
  meter.start(total, out.hdus_a, "compare");
  for (const auto& [i, j] : pairs) {
    meter.enter("compare", ha[i].index);
    CompareOptions pair_options = options;
    std::vector<std::string> refreshed;
    ChecksumState states[4] = {ChecksumState::kAbsent, ChecksumState::kAbsent,
                               ChecksumState::kAbsent, ChecksumState::kAbsent};
    if (i < ca.size() && j < cb.size()) {
      states[0] = state(ca[i].datasum);
      states[1] = state(ca[i].checksum);
      states[2] = state(cb[j].datasum);
      states[3] = state(cb[j].checksum);
      // A checksum card that was wrong in A and is right in B was written afresh: its value
      // may differ without the HDUs differing.
      if (states[0] == ChecksumState::kInvalid && states[2] == ChecksumState::kValid) {
        refreshed.push_back("DATASUM");
      }
      if (states[1] == ChecksumState::kInvalid && states[3] == ChecksumState::kValid) {
        refreshed.push_back("CHECKSUM");
      }
      for (const auto& k : refreshed) pair_options.ignore_keywords.push_back(k);
    }
    // A's bytes found equal stand for both sides' share.
    meter.share(ha[i].data.size(), ha[i].data.size() + hb[j].data.size());
    HduComparison h = compare_pair(ha[i], hb[j], pair_options, meter);
    meter.close_share();
    h.datasum_a = states[0];
    h.checksum_a = states[1];
    h.datasum_b = states[2];
    h.checksum_b = states[3];
    for (const auto& k : refreshed) {
      h.notes.push_back(k +
                        " was wrong in a and is right in b (written afresh); its value is "
                        "not compared");
    }
    out.hdus.push_back(std::move(h));
  }
  meter.finish();
  return out;
}

}  // namespace fitsasdf
