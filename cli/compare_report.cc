#include "compare_report.h"

#include <cstdio>
#include <string>

#include "fitsasdf/report_json.h"

namespace fitsasdf::cli {
namespace {

std::string hdu_title(const HduComparison& h) {
  std::string s = "HDU " + std::to_string(h.hdu_a);
  if (h.hdu_b != h.hdu_a) s += " (HDU " + std::to_string(h.hdu_b) + " of b)";
  if (!h.name.empty()) s += " " + h.name;
  return s + " (" + h.kind + ")";
}

std::string index_text(const std::vector<std::uint64_t>& index) {
  std::string s = "[";
  for (std::size_t i = 0; i < index.size(); ++i) s += (i ? ", " : "") + std::to_string(index[i]);
  return s + "]";
}

std::string element_place(const ElementDifference& e, bool fits) {
  if (!fits)
    return (e.column.empty() ? "" : "field " + e.column + " ") + "at " + index_text(e.index);
  std::string s = e.column.empty() ? "" : "column " + e.column + " ";
  if (e.column == "heap" || e.column == "gap") return e.column + " byte " + index_text(e.index);
  if (!e.column.empty() && !e.index.empty()) {
    s += "row " + std::to_string(e.index[0]);
    if (e.index.size() > 1) s += " item " + std::to_string(e.index[1]);
    return s;
  }
  return s + "at " + index_text(e.index);
}

std::string percent(std::uint64_t part, std::uint64_t whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%%",
                whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buf;
}

/// The lines of a data comparison, each starting with `indent`.
void print_data(std::ostream& out, const DataComparison& d, const std::string& indent,
                const char* unit, bool fits = true) {
  if (!d.summary.empty()) out << indent << d.summary << "\n";
  for (const auto& e : d.elements) {
    out << indent << "differs " << element_place(e, fits) << ": a> " << e.a << "  b> " << e.b
        << "\n";
  }
  if (d.differing > d.elements.size()) out << indent << "...\n";
  if (d.differing > 0) {
    out << indent << d.differing << " different " << unit << " found ("
        << percent(d.differing, d.compared) << " of " << d.compared << ").\n";
  }
}

void print_card(std::ostream& out, const CardDifference& c, const std::string& indent,
                bool verify) {
  const std::string where =
      verify ? "card " + std::to_string(c.position_a ? c.position_a : c.position_b) + " " : "";
  const std::string kw =
      "'" + c.keyword + "'" +
      (c.occurrence > 1 ? " (occurrence " + std::to_string(c.occurrence) + ")" : std::string());
  out << indent;
  switch (c.kind) {
    case CardDifference::Kind::kValue:
      out << where << "keyword " << kw << " has different values: a> " << c.a << "  b> " << c.b;
      break;
    case CardDifference::Kind::kComment:
      out << where << "keyword " << kw << " has different comments: a> '" << c.a << "'  b> '" << c.b
          << "'";
      break;
    case CardDifference::Kind::kMissing:
      out << where << "keyword " << kw << " only in a: " << c.a;
      break;
    case CardDifference::Kind::kExtra:
      out << where << "keyword " << kw << " only in b: " << c.b;
      break;
    case CardDifference::Kind::kMoved:
      out << "keyword " << kw << " moved: card " << c.position_a << " in a, card " << c.position_b
          << " in b";
      break;
    case CardDifference::Kind::kCount:
      out << "inconsistent duplicates of keyword '" << c.keyword << "': " << c.a << " in a, " << c.b
          << " in b";
      break;
    case CardDifference::Kind::kText:
      out << where << "keyword " << kw << " written differently:\n"
          << indent << "  a> " << c.a << "\n"
          << indent << "  b> " << c.b;
      break;
  }
  out << "\n";
}

void print_hdu_details(std::ostream& out, const HduComparison& h, bool verify) {
  const std::string in = "  ";
  if (h.cards_a != h.cards_b) {
    out << in << "headers have different numbers of cards: a " << h.cards_a << ", b " << h.cards_b
        << "\n";
  }
  for (const auto& c : h.cards) print_card(out, c, in, verify);
  if (h.card_differences > h.cards.size()) {
    out << in << "... (" << h.card_differences << " card differences in all)\n";
  }
  print_data(out, h.data, in, verify ? "elements" : "values");
  if (verify) {
    if (h.datasum_b == ChecksumState::kInvalid || h.datasum_a == ChecksumState::kInvalid) {
      out << in << "DATASUM: " << checksum_state_name(h.datasum_a) << " in a, "
          << checksum_state_name(h.datasum_b) << " in b\n";
    }
    if (h.checksum_b == ChecksumState::kInvalid || h.checksum_a == ChecksumState::kInvalid) {
      out << in << "CHECKSUM: " << checksum_state_name(h.checksum_a) << " in a, "
          << checksum_state_name(h.checksum_b) << " in b\n";
    }
  }
  for (const auto& n : h.notes) out << in << "note: " << n << "\n";
}

void print_fits_diff(std::ostream& out, const FitsComparison& c) {
  if (c.hdus_a != c.hdus_b) {
    out << "Files contain different numbers of HDUs: a " << c.hdus_a << ", b " << c.hdus_b << "\n";
  }
  for (int i : c.missing_hdus) out << "HDU " << i << " of a has no counterpart in b\n";
  for (int i : c.extra_hdus) out << "HDU " << i << " of b has no counterpart in a\n";
  std::size_t differing = 0;
  for (const auto& h : c.hdus) {
    if (h.equivalent()) continue;
    ++differing;
    out << hdu_title(h) << ":\n";
    print_hdu_details(out, h, c.mode == CompareMode::kVerify);
  }
  if (c.equivalent()) {
    out << "No differences found.\n";
  } else {
    out << differing << " of " << c.hdus.size() << " compared HDUs differ.\n";
  }
}

void print_asdf_diff(std::ostream& out, const AsdfComparison& c) {
  for (const auto& d : c.differences) {
    const std::string path = d.path.empty() ? "(root)" : d.path;
    switch (d.kind) {
      case TreeDifference::Kind::kMissing:
        out << path << ": only in a: " << d.a << "\n";
        break;
      case TreeDifference::Kind::kExtra:
        out << path << ": only in b: " << d.b << "\n";
        break;
      case TreeDifference::Kind::kTag:
        out << path << ": tags differ: a> " << d.a << "  b> " << d.b << "\n";
        break;
      case TreeDifference::Kind::kType:
        out << path << ": types differ: a> " << d.a << "  b> " << d.b << "\n";
        break;
      case TreeDifference::Kind::kValue:
        out << path << ": values differ: a> " << d.a << "  b> " << d.b << "\n";
        break;
      case TreeDifference::Kind::kArray:
        out << path << ": arrays differ: a> " << d.a << "  b> " << d.b << "\n";
        print_data(out, d.array, "  ", "elements", false);
        break;
    }
  }
  if (c.total > c.differences.size()) out << "... (" << c.total << " differences in all)\n";
  if (c.identical()) {
    out << "No differences found (" << c.arrays_compared << " arrays compared).\n";
  } else {
    out << c.total << " difference" << (c.total == 1 ? "" : "s") << " found (" << c.arrays_compared
        << " arrays compared).\n";
  }
}

}  // namespace

void print_verify(std::ostream& out, const VerifyReport& r) {
  if (r.round_trip) {
    out << "verify " << r.fits << ": FITS -> ASDF -> FITS\n";
  } else if (!r.asdf.empty()) {
    out << "verify " << r.fits << " against " << r.asdf << " (converted back to FITS)\n";
  } else {
    out << "verify " << r.fits << " against " << r.other << "\n";
  }
  if (!r.blocks.empty() || !r.asdf.empty() || r.round_trip) {
    std::size_t bad = 0;
    std::size_t unchecked = 0;
    for (const auto& b : r.blocks) {
      if (!b.ok()) {
        ++bad;
        out << "  ASDF block " << b.block << ": checksum " << b.status
            << (b.problem.empty() ? "" : " (" + b.problem + ")") << "\n";
      } else if (b.status == "none") {
        ++unchecked;
      }
    }
    out << "ASDF blocks: " << r.blocks.size() << ", "
        << (bad ? std::to_string(bad) + " with a wrong or unreadable checksum" : "checksums right")
        << (unchecked ? " (" + std::to_string(unchecked) + " without a checksum)" : "") << "\n";
  }
  const FitsComparison& c = r.comparison;
  if (c.hdus_a != c.hdus_b) {
    out << "HDUs: " << c.hdus_a << " in a, " << c.hdus_b << " in b\n";
  }
  for (const auto& h : c.hdus) {
    out << hdu_title(h) << ": cards ";
    switch (h.header) {
      case HeaderMatch::kIdentical:
        out << "identical";
        break;
      case HeaderMatch::kEqualValues:
        out << "equal in value";
        break;
      case HeaderMatch::kDifferent:
        out << "DIFFERENT";
        break;
    }
    out << ", data " << (h.data.identical ? "bit-identical" : "DIFFERENT");
    if (h.checksums_broken()) out << ", checksum BROKEN";
    out << "\n";
    if (!h.equivalent() || h.header == HeaderMatch::kEqualValues || !h.notes.empty()) {
      print_hdu_details(out, h, true);
    }
  }
  for (int i : c.missing_hdus) out << "HDU " << i << " of a: MISSING in b\n";
  for (int i : c.extra_hdus) out << "HDU " << i << " of b: EXTRA (not in a)\n";
  out << (r.equivalent() ? "equivalent\n" : "DIFFERENT\n");
}

void print_diff(std::ostream& out, const DiffReport& r) {
  out << " a: " << r.a << "\n b: " << r.b << "\n";
  if (!r.converted.empty()) {
    out << " (" << r.converted << " converted from ASDF to FITS for the comparison)\n";
  }
  if (r.fits) print_fits_diff(out, *r.fits);
  if (r.asdf) print_asdf_diff(out, *r.asdf);
}

}  // namespace fitsasdf::cli
