#include "hdu/hdu_converter.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "asdfcore/error.h"
#include "hdu/hdu_findings.h"

namespace fitsasdf::hdu {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::tree::Node;
using asdfcore::tree::NodeKind;
using asdfcore::tree::NodePtr;

std::string upper_trimmed(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

NodePtr HeaderView::value(std::string_view keyword) const {
  for (const auto& c : cards_) {
    if (c.keyword == keyword) return c.value && !c.value->is_null() ? c.value : nullptr;
  }
  return nullptr;
}

long long HeaderView::integer(std::string_view keyword, long long fallback) const {
  const NodePtr v = value(keyword);
  if (!v) return fallback;
  if (v->kind() != NodeKind::kInt) {
    throw Error(ErrorCode::kMalformed, std::string(keyword) + " must be an integer");
  }
  return v->as_int();
}

double HeaderView::number(std::string_view keyword, double fallback) const {
  const NodePtr v = value(keyword);
  if (!v) return fallback;
  if (!v->is_number()) {
    throw Error(ErrorCode::kMalformed, std::string(keyword) + " must be a number");
  }
  return v->as_double();
}

std::string HeaderView::string(std::string_view keyword) const {
  const NodePtr v = value(keyword);
  return v && v->is_string() ? v->as_string() : std::string();
}

std::int64_t BlockSink::add_view(asdfcore::io::Buffer bytes) {
  entries_.push_back(Entry{std::move(bytes), std::nullopt});
  return static_cast<std::int64_t>(entries_.size() - 1);
}

std::int64_t BlockSink::add_input(const fits::FitsFile& file, std::uint64_t offset,
                                  asdfcore::io::Buffer bytes,
                                  Transform transform) {
  if (file.plain_fd() < 0) {
    if (!transform) return add_view(std::move(bytes));
    std::vector<std::uint8_t> copy(bytes.span().begin(), bytes.span().end());
    transform(copy, 0);
    return add_owned(std::move(copy));
  }
  entries_.push_back(Entry{{}, asdfcore::format::FileRange{file.plain_fd(), offset, bytes.size(),
                                                           std::move(transform)}});
  return static_cast<std::int64_t>(entries_.size() - 1);
}

std::int64_t BlockSink::add_source(std::uint64_t size, Source source) {
  entries_.push_back(Entry{{}, std::nullopt, std::move(source), size});
  return static_cast<std::int64_t>(entries_.size() - 1);
}

std::int64_t BlockSink::add_owned(std::vector<std::uint8_t> bytes) {
  return add_view(asdfcore::io::Buffer::from_vector(std::move(bytes)));
}

std::vector<asdfcore::format::BlockToWrite> BlockSink::blocks(const std::string& compression,
                                                              int level) const {
  std::vector<asdfcore::format::BlockToWrite> out;
  for (const auto& e : entries_) {
    asdfcore::format::BlockToWrite w;
    if (e.range) {
      w.file_ranges.push_back(*e.range);
    } else if (e.source) {
      w.source = e.source;
      w.source_size = e.source_size;
    } else {
      w.pieces.push_back(e.bytes.span());
    }
    w.compression = compression;
    w.level = level;
    out.push_back(std::move(w));
  }
  return out;
}

HduConverterRegistry HduConverterRegistry::with_builtins() {
  HduConverterRegistry r;
  r.add(make_compressed_image_converter());
  r.add(make_compressed_table_converter());
  r.add(make_image_converter());
  r.add(make_groups_converter());
  r.add(make_bintable_converter());
  r.add(make_ascii_table_converter());
  r.add(make_raw_converter());
  return r;
}

void HduConverterRegistry::add(std::shared_ptr<const HduConverter> converter) {
  if (converter) converters_.push_back(std::move(converter));
}

const HduConverter& HduConverterRegistry::find(const HduInput& input) const {
  for (const auto& c : converters_) {
    if (c->accepts(input)) return *c;
  }
  throw Error(ErrorCode::kInvalidArgument, "no HDU converter accepts this HDU", input.where());
}

HduInput read_hdu_input(const fits::FitsFile& file, const fits::HduExtent& extent) {
  // The walk that made `extent` checked that the header and the data lie in the file.
  const auto& bytes = file.bytes();
  const auto data_end = std::min<std::uint64_t>(extent.data_end, bytes.size());
  return HduInput{file, extent, file.headers().at(static_cast<std::size_t>(extent.index - 1)).cards,
                  bytes.slice(static_cast<std::size_t>(extent.data_start),
                              static_cast<std::size_t>(data_end - extent.data_start))};
}

DecompressedHdu read_decompressed_header(std::span<const std::uint8_t> bytes, const HduInput& input,
                                         std::string_view what) {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  std::size_t end = std::string_view::npos;
  for (std::size_t at = 0; at + 80 <= text.size() && end == std::string_view::npos; at += 80) {
    if (text.substr(at, 8) == "END     ") end = (at / 2880 + 1) * 2880;
  }
  if (end == std::string_view::npos || end > text.size()) {
    throw Error(ErrorCode::kMalformed,
                "CFITSIO's decompressed " + std::string(what) + " has no END card", input.where());
  }
  return {parse_header(text.substr(0, end), input.extent.index, input.file.path(),
                       repairing_header_options()),
          end};
}

HduReport decompressed_report(const HduInput& input, std::string kind) {
  HduReport report;
  report.index = input.extent.index;
  report.kind = std::move(kind);
  report.notes.push_back(
      "decompressed through CFITSIO; compression cards kept under `compressed_header`");
  return report;
}

void keep_compressed_header(HduOutput& out, const HduInput& input, std::vector<Card> cards) {
  out.item->set("compressed_header", header_node(input.cards));
  out.shown_cards = std::move(cards);
}

NodePtr header_node(const std::vector<Card>& cards) {
  NodePtr list = Node::make_sequence();
  for (const auto& c : cards) list->push_back(card_to_node(c));
  return list;
}

std::uint64_t declared_data_size(const HeaderView& header, const asdfcore::ErrorContext& where) {
  return fits::declared_data_size(header.cards(), where);
}

}  // namespace fitsasdf::hdu
