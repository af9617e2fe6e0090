#include "fits_info_report.h"

#include <iomanip>
#include <sstream>

#include "tree_report.h"

namespace fitsasdf::cli {
namespace {

using nlohmann::ordered_json;

/// Python's `str()` of an EXTVER value.
std::string ver_text(const FitsHduInfo& h) {
  if (!h.ver) return "";
  const ordered_json j = node_json(*h.ver);
  return j.is_string() ? j.get<std::string>() : j.dump();
}

/// The key as fitsheader prints it in "# HDU key in FILE:": a number, a name as given, or the
/// Python tuple of "NAME,VER".
std::string key_text(const std::string& key) {
  const std::size_t comma = key.rfind(',');
  if (comma == std::string::npos) {
    if (!key.empty() && key.find_first_not_of("0123456789") == std::string::npos) {
      return std::to_string(std::stoll(key));
    }
    return key;
  }
  std::string ver = key.substr(comma + 1);
  while (!ver.empty() && ver.front() == ' ') ver.erase(ver.begin());
  while (!ver.empty() && ver.back() == ' ') ver.pop_back();
  return "('" + key.substr(0, comma) + "', " + ver + ")";
}

ordered_json card_json(const Card& c) {
  return ordered_json{{"keyword", c.keyword},
                      {"value", c.value ? node_json(*c.value) : ordered_json(nullptr)},
                      {"comment", c.comment},
                      {"image", card_text(c)}};
}

ordered_json cards_json(const std::vector<Card>& cards) {
  ordered_json out = ordered_json::array();
  for (const auto& c : cards) out.push_back(card_json(c));
  return out;
}

std::vector<std::size_t> chosen(const FitsInfo& info, const HduChoice& choice) {
  if (choice.index) return {*choice.index};
  std::vector<std::size_t> all(info.hdus.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  return all;
}

}  // namespace

void print_fits_table(std::ostream& out, const FitsInfo& info) {
  out << "Filename: " << info.file << "\n"
      << "No.    Name      Ver    Type      Cards   Dimensions   Format\n";
  for (const auto& h : info.hdus) {
    // astropy's "{:3d}  {:10}  {:3} {:11}  {:5d}   {}   {}   {}"; an integer EXTVER is right
    // aligned, a string left aligned.
    const bool ver_number = h.ver && h.ver->is_integer();
    std::ostringstream line;
    line << std::right << std::setw(3) << h.index << "  " << std::left << std::setw(10) << h.name
         << "  " << (ver_number ? std::right : std::left) << std::setw(3) << ver_text(h) << " "
         << std::left << std::setw(11) << h.type << "  " << std::right << std::setw(5)
         << h.cards.size() << "   " << dimensions_text(h) << "   " << h.format << "   " << h.extra;
    out << line.str() << "\n";
  }
  if (info.embedded_asdf_hdu >= 0) {
    out << "HDU " << info.embedded_asdf_hdu
        << " holds an embedded ASDF file (ASDF-in-FITS); `fitsasdf extract " << info.file
        << " -o OUT.asdf` writes it out (its fits: arrays pulled in), `fitsasdf info OUT.asdf` "
           "then shows its tree\n";
  }
}

void print_fits_headers(std::ostream& out, const FitsInfo& info, const HduChoice& choice,
                        bool stored) {
  bool first = true;
  for (const std::size_t i : chosen(info, choice)) {
    const FitsHduInfo& h = info.hdus[i];
    if (!first) out << "\n";
    first = false;
    out << "# HDU " << (choice.index ? key_text(choice.key) : std::to_string(i)) << " in "
        << info.file << ":\n";
    for (const auto& c : stored && !h.stored_cards.empty() ? h.stored_cards : h.cards) {
      out << card_text(c) << "\n";
    }
  }
}

ordered_json fits_info_json(const FitsInfo& info, bool headers, const HduChoice& choice,
                            bool stored) {
  ordered_json j;
  j["file"] = info.file;
  j["format"] = "fits";
  j["container"] = info.container.empty() ? ordered_json(nullptr) : ordered_json(info.container);
  ordered_json hdus = ordered_json::array();
  for (const std::size_t i : headers ? chosen(info, choice) : chosen(info, {})) {
    const FitsHduInfo& h = info.hdus[i];
    ordered_json e;
    e["index"] = h.index;
    e["name"] = h.name;
    e["ver"] = h.ver ? node_json(*h.ver) : ordered_json(nullptr);
    e["type"] = h.type;
    e["cards"] = h.cards.size();
    if (h.table) {
      e["dimensions"] = dimensions_text(h);
    } else {
      e["dimensions"] = h.axes;
    }
    e["format"] = h.format;
    e["extra"] = h.extra;
    if (headers) {
      e["header"] = cards_json(h.cards);
      if (stored && !h.stored_cards.empty()) e["stored_header"] = cards_json(h.stored_cards);
    }
    hdus.push_back(std::move(e));
  }
  j["hdus"] = std::move(hdus);
  if (info.embedded_asdf_hdu >= 0) {
    j["embedded_asdf"] = {{"hdu", info.embedded_asdf_hdu},
                          {"how", "fitsasdf extract " + info.file + " -o OUT.asdf"}};
  } else {
    j["embedded_asdf"] = nullptr;
  }
  return j;
}

}  // namespace fitsasdf::cli
