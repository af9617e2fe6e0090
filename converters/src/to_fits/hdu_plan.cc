#include "to_fits/hdu_plan.h"

#include <cmath>

#include "asdfcore/error.h"
#include "fits/card_format.h"
#include "fits/header_guard.h"

namespace fitsasdf::to_fits {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::tree::Node;
using asdfcore::tree::NodeKind;
using asdfcore::tree::NodePtr;

using fits::kEndCard;

std::string rstripped(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

/// The recorded image with the string value of `from` replaced by that of `to` in place, when
/// only that value changed and both have the same length; else nothing.
std::optional<std::string> substitute(const std::string& image, const TreeCard& from,
                                      const TreeCard& to) {
  if (image.size() != kCardSize || from.keyword != to.keyword || from.comment != to.comment ||
      !from.value->is_string() || !to.value->is_string() || !from.value->tag().empty() ||
      !to.value->tag().empty()) {
    return std::nullopt;
  }
  const std::string& old_text = from.value->as_string();
  const std::string& new_text = to.value->as_string();
  if (old_text.size() != new_text.size() || old_text.empty() ||
      old_text.find('\'') != std::string::npos || new_text.find('\'') != std::string::npos) {
    return std::nullopt;
  }
  const std::size_t at = image.find("'" + old_text, 10);
  if (at == std::string::npos) return std::nullopt;
  std::string out = image;
  out.replace(at + 1, new_text.size(), new_text);
  if (!image_matches(out, to)) return std::nullopt;
  return out;
}

}  // namespace

const TreeCard* CardLookup::find(std::string_view keyword) const {
  for (const auto& c : cards_) {
    if (c.keyword == keyword) return &c;
  }
  return nullptr;
}

long long CardLookup::integer(std::string_view keyword, long long fallback) const {
  const TreeCard* c = find(keyword);
  if (!c || c->value->is_null()) return fallback;
  if (c->value->kind() != NodeKind::kInt) {
    throw Error(ErrorCode::kMalformed, std::string(keyword) + " must be an integer, not " +
                                           asdfcore::tree::describe_for_error(*c->value));
  }
  return c->value->as_int();
}

double CardLookup::number(std::string_view keyword, double fallback) const {
  const TreeCard* c = find(keyword);
  if (!c || !c->value->is_number()) return fallback;
  return c->value->as_double();
}

std::string CardLookup::string(std::string_view keyword) const {
  const TreeCard* c = find(keyword);
  return c && c->value->is_string() ? rstripped(c->value->as_string()) : std::string();
}

bool CardLookup::flag(std::string_view keyword) const {
  const TreeCard* c = find(keyword);
  return c && c->value->kind() == NodeKind::kBool && c->value->as_bool();
}

std::optional<std::size_t> HduPlan::index_of(std::string_view keyword) const {
  for (std::size_t i = 0; i < cards.size(); ++i) {
    if (cards[i].card.keyword == keyword) return i;
  }
  return std::nullopt;
}

void HduPlan::set_value(std::string_view keyword, NodePtr value, std::string_view comment) {
  if (const auto i = index_of(keyword)) {
    cards[*i].card.value = std::move(value);
    return;
  }
  PlannedCard c;
  c.card = TreeCard{std::string(keyword), std::move(value), std::string(comment)};
  c.original = c.card;
  cards.push_back(std::move(c));
}

std::size_t HduPlan::erase(std::string_view keyword) {
  const auto before = cards.size();
  std::erase_if(cards, [&](const PlannedCard& c) { return c.card.keyword == keyword; });
  return before - cards.size();
}

std::vector<TreeCard> HduPlan::written_cards() const {
  std::vector<TreeCard> out;
  out.reserve(cards.size());
  for (const auto& c : cards) out.push_back(c.card);
  return out;
}

HduPlan plan_header(const std::vector<TreeCard>& cards, const CardImages& images) {
  HduPlan plan;
  plan.cards.reserve(cards.size());
  for (std::size_t i = 0; i < cards.size(); ++i) {
    PlannedCard c{cards[i], cards[i], std::nullopt};
    if (const auto it = images.find(i); it != images.end()) c.image = it->second;
    plan.cards.push_back(std::move(c));
  }
  if (const auto it = images.find(cards.size()); it != images.end()) plan.end_image = it->second;
  return plan;
}

BuiltHeader build_header(const HduPlan& plan) {
  BuiltHeader out;
  for (std::size_t i = 0; i < plan.cards.size(); ++i) {
    const PlannedCard& c = plan.cards[i];
    out.card_offsets.push_back(out.bytes.size());
    if (c.image && image_matches(*c.image, c.original)) {
      if (same_card(c.card, c.original)) {
        out.bytes += *c.image;
        ++out.from_images;
        continue;
      }
      if (auto changed = substitute(*c.image, c.original, c.card)) {
        out.bytes += *changed;
        ++out.from_images;
        continue;
      }
    }
    if (c.image) ++out.images_not_used;
    try {
      const fits::FormattedCard f = fits::format_card(c.card.keyword, c.card.value, c.card.comment);
      if (f.comment_truncated) {
        out.notes.push_back("card " + std::to_string(i + 1) + " (" + c.card.keyword +
                            "): the comment does not fit the card and was cut");
      } else if (f.images.size() > kCardSize && f.images.compare(kCardSize, 8, "CONTINUE") == 0 &&
                 !image_matches(f.images, c.card)) {
        // astropy's reading of CONTINUE cards changes some texts: two quotes in a row read as
        // one, a quote before a blank ends a piece, comment pieces cut inside a word are joined
        // with a blank. Say so rather than hide it.
        out.notes.push_back("card " + std::to_string(i + 1) + " (" + c.card.keyword +
                            "): its long string or comment, written on CONTINUE cards, does not "
                            "read back the same in astropy (quotes in a row or before a blank, "
                            "or a comment word longer than a card)");
      }
      out.bytes += f.images;
      ++out.formatted;
    } catch (const Error& e) {
      throw Error(ErrorCode::kMalformed,
                  "card " + std::to_string(i + 1) + " ('" + c.card.keyword + "'): " + e.message(),
                  e.context());
    }
  }
  const std::size_t end_at = out.bytes.size();
  const auto at_xtension = plan.index_of("XTENSION");
  const NodePtr kind = at_xtension ? plan.cards[*at_xtension].card.value : nullptr;
  const std::string xtension = kind && kind->is_string() ? rstripped(kind->as_string()) : "";
  if (xtension == "BINTABLE" || xtension == "TABLE" || xtension == "A3DTABLE") {
    // CFITSIO 4.2 aborts the process reading a table whose column name is an unquoted value of
    // 70 characters or more (a 70-digit integer, say): such a header is not written, unless the
    // card is the input's own, written back from its recorded image (no byte of an input is
    // dropped; fitsasdf itself never gives such an HDU to CFITSIO).
    for (std::size_t i = 0; i < out.card_offsets.size(); ++i) {
      const std::size_t at = out.card_offsets[i];
      const std::string_view image = std::string_view(out.bytes).substr(at, kCardSize);
      const auto& recorded = plan.cards[i].image;
      if (recorded && rstripped(std::string(image)) == rstripped(*recorded)) continue;
      if (const auto name = fits::overlong_column_name(image)) {
        throw Error(ErrorCode::kMalformed,
                    "card " + std::to_string(i + 1) + " ('" + plan.cards[i].card.keyword +
                        "'): the column name would be written unquoted in " +
                        std::to_string(name->length) +
                        " characters, which CFITSIO 4.2 cannot read (it aborts the process "
                        "copying a name of 70 characters or more); give the name as a string");
      }
    }
  }
  const std::size_t block_end = (end_at / kBlockSize + 1) * kBlockSize;
  if (plan.end_image && plan.end_image->starts_with("END")) {
    out.bytes += plan.end_image->substr(0, block_end - end_at);
  } else {
    out.bytes += kEndCard;
  }
  out.bytes.resize(block_end, ' ');
  return out;
}

}  // namespace fitsasdf::to_fits
