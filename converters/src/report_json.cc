// The reports as JSON documents (fitsasdf/report_json.h).
#include "fitsasdf/report_json.h"

#include <nlohmann/json.hpp>
#include <string>

namespace fitsasdf {
namespace {

using nlohmann::ordered_json;

std::string header_name(HeaderMatch m) {
  switch (m) {
    case HeaderMatch::kIdentical:
      return "identical";
    case HeaderMatch::kEqualValues:
      return "equal-values";
    case HeaderMatch::kDifferent:
      return "different";
  }
  return "different";
}

std::string card_kind_name(CardDifference::Kind k) {
  switch (k) {
    case CardDifference::Kind::kValue:
      return "value";
    case CardDifference::Kind::kComment:
      return "comment";
    case CardDifference::Kind::kMissing:
      return "missing";
    case CardDifference::Kind::kExtra:
      return "extra";
    case CardDifference::Kind::kMoved:
      return "moved";
    case CardDifference::Kind::kCount:
      return "count";
    case CardDifference::Kind::kText:
      return "text";
  }
  return "value";
}

std::string tree_kind_name(TreeDifference::Kind k) {
  switch (k) {
    case TreeDifference::Kind::kValue:
      return "value";
    case TreeDifference::Kind::kType:
      return "type";
    case TreeDifference::Kind::kTag:
      return "tag";
    case TreeDifference::Kind::kMissing:
      return "missing";
    case TreeDifference::Kind::kExtra:
      return "extra";
    case TreeDifference::Kind::kArray:
      return "array";
  }
  return "value";
}

ordered_json data_json(const DataComparison& d) {
  ordered_json j;
  j["identical"] = d.identical;
  j["summary"] = d.summary;
  j["compared"] = d.compared;
  j["differing"] = d.differing;
  j["elements"] = ordered_json::array();
  for (const auto& e : d.elements) {
    j["elements"].push_back({{"index", e.index}, {"column", e.column}, {"a", e.a}, {"b", e.b}});
  }
  return j;
}

ordered_json hdu_json(const HduComparison& h, CompareMode mode) {
  ordered_json j;
  j["hdu_a"] = h.hdu_a;
  j["hdu_b"] = h.hdu_b;
  j["name"] = h.name;
  j["kind"] = h.kind;
  j["equivalent"] = h.equivalent();
  j["header"] = header_name(h.header);
  j["cards_a"] = h.cards_a;
  j["cards_b"] = h.cards_b;
  j["card_differences"] = h.card_differences;
  j["cards"] = ordered_json::array();
  for (const auto& c : h.cards) {
    j["cards"].push_back({{"kind", card_kind_name(c.kind)},
                          {"keyword", c.keyword},
                          {"occurrence", c.occurrence},
                          {"position_a", c.position_a},
                          {"position_b", c.position_b},
                          {"a", c.a},
                          {"b", c.b}});
  }
  j["data"] = data_json(h.data);
  if (mode == CompareMode::kVerify) {
    j["checksums"] = {{"datasum_a", std::string(checksum_state_name(h.datasum_a))},
                      {"checksum_a", std::string(checksum_state_name(h.checksum_a))},
                      {"datasum_b", std::string(checksum_state_name(h.datasum_b))},
                      {"checksum_b", std::string(checksum_state_name(h.checksum_b))}};
  }
  j["notes"] = h.notes;
  return j;
}

ordered_json conversion_json(const ConversionReport& report) {
  ordered_json j;
  j["input"] = report.input;
  j["output"] = report.output;
  j["fits_tag"] = report.fits_tag;
  j["bytes_in"] = report.bytes_in;
  j["bytes_out"] = report.bytes_out;
  j["hdus"] = ordered_json::array();
  for (const auto& h : report.hdus) {
    j["hdus"].push_back({{"index", h.index}, {"kind", h.kind}, {"name", h.name}, {"notes", h.notes}});
  }
  j["findings"] = ordered_json::array();
  for (const auto& f : report.all_findings()) {
    j["findings"].push_back({{"hdu", f.hdu}, {"code", f.code}, {"message", f.message}});
  }
  return j;
}

ordered_json fits_comparison_json(const FitsComparison& c) {
  ordered_json j;
  j["mode"] = c.mode == CompareMode::kVerify ? "verify" : "diff";
  j["hdus_a"] = c.hdus_a;
  j["hdus_b"] = c.hdus_b;
  j["missing_hdus"] = c.missing_hdus;
  j["extra_hdus"] = c.extra_hdus;
  j["hdus"] = ordered_json::array();
  for (const auto& h : c.hdus) j["hdus"].push_back(hdu_json(h, c.mode));
  return j;
}

ordered_json asdf_comparison_json(const AsdfComparison& c) {
  ordered_json j;
  j["total"] = c.total;
  j["arrays_compared"] = c.arrays_compared;
  j["differences"] = ordered_json::array();
  for (const auto& d : c.differences) {
    ordered_json e{{"kind", tree_kind_name(d.kind)}, {"path", d.path}, {"a", d.a}, {"b", d.b}};
    if (d.kind == TreeDifference::Kind::kArray) e["array"] = data_json(d.array);
    j["differences"].push_back(std::move(e));
  }
  return j;
}

ordered_json verify_json(const VerifyReport& r) {
  ordered_json j;
  j["fits"] = r.fits;
  j["asdf"] = r.asdf.empty() ? ordered_json(nullptr) : ordered_json(r.asdf);
  j["other"] = r.other.empty() ? ordered_json(nullptr) : ordered_json(r.other);
  j["round_trip"] = r.round_trip;
  j["equivalent"] = r.equivalent();
  j["blocks"] = ordered_json::array();
  for (const auto& b : r.blocks) {
    j["blocks"].push_back(
        {{"block", b.block},
         {"status", b.status},
         {"ok", b.ok()},
         {"problem", b.problem.empty() ? ordered_json(nullptr) : ordered_json(b.problem)}});
  }
  j["comparison"] = fits_comparison_json(r.comparison);
  return j;
}

ordered_json diff_json(const DiffReport& r) {
  ordered_json j;
  j["a"] = r.a;
  j["b"] = r.b;
  j["format"] = r.asdf ? "asdf" : "fits";
  j["converted"] = r.converted.empty() ? ordered_json(nullptr) : ordered_json(r.converted);
  j["identical"] = r.identical();
  if (r.fits) j["fits"] = fits_comparison_json(*r.fits);
  if (r.asdf) j["asdf"] = asdf_comparison_json(*r.asdf);
  return j;
}

}  // namespace

std::string_view checksum_state_name(ChecksumState state) noexcept {
  switch (state) {
    case ChecksumState::kAbsent:
      return "absent";
    case ChecksumState::kValid:
      return "valid";
    case ChecksumState::kInvalid:
      return "invalid";
  }
  return "absent";
}

std::string to_json(const ConversionReport& report, int indent) {
  return conversion_json(report).dump(indent);
}
std::string to_json(const VerifyReport& report, int indent) { return verify_json(report).dump(indent); }
std::string to_json(const DiffReport& report, int indent) { return diff_json(report).dump(indent); }

std::string to_json(const asdfcore::FileValidation& result, int indent) {
  ordered_json j;
  j["file"] = result.file;
  j["status"] = result.sound() ? "sound" : "findings";
  j["asdf_standard"] = result.asdf_standard;
  ordered_json findings = ordered_json::array();
  for (const auto& f : result.findings) {
    ordered_json one;
    one["kind"] = asdfcore::finding_kind_name(f.kind);
    one["pointer"] = f.pointer;
    one["block"] = f.block ? ordered_json(*f.block) : ordered_json(nullptr);
    one["offset"] = f.offset ? ordered_json(*f.offset) : ordered_json(nullptr);
    one["schema"] = f.schema_uri;
    one["keyword"] = f.keyword;
    one["message"] = f.message;
    one["value"] = f.value;
    findings.push_back(std::move(one));
  }
  j["findings"] = std::move(findings);
  j["notes"] = result.notes;
  j["unknown_tags"] = result.unknown_tags;
  j["missing_schemas"] = result.missing_schemas;
  j["checked"] = {{"blocks", result.blocks},
                  {"arrays", result.arrays},
                  {"tagged_nodes", result.tagged_nodes}};
  return j.dump(indent);
}

}  // namespace fitsasdf
