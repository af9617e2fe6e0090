#include "hdu/native_table.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "fitsasdf/units.h"

namespace fitsasdf::hdu {

using asdfcore::tree::Node;
using asdfcore::tree::NodePtr;

namespace {
constexpr char kUnitTag[] = "tag:stsci.edu:asdf/unit/unit-1.0.0";
constexpr char kTableTag[] = "tag:stsci.edu:asdf/core/table-1.0.0";
constexpr char kColumnTag[] = "tag:stsci.edu:asdf/core/column-1.0.0";
}  // namespace

std::vector<std::string> column_names(const HeaderView& header, long long count) {
  std::vector<std::string> names;
  std::set<std::string> taken;  // upper-cased
  const auto upper = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return s;
  };
  for (long long n = 1; n <= count; ++n) {
    std::string name = header.string("TTYPE" + std::to_string(n));
    while (!name.empty() && name.back() == ' ') name.pop_back();
    if (name.empty()) name = "col" + std::to_string(n);
    if (taken.count(upper(name)) != 0) name += "_" + std::to_string(n);
    taken.insert(upper(name));
    names.push_back(std::move(name));
  }
  return names;
}

NodePtr unit_node(const std::string& fits_unit, std::string_view what, HduReport& report) {
  if (fits_unit.find_first_not_of(' ') == std::string::npos) return nullptr;
  const UnitTranslation unit = fits_unit_to_vounit(fits_unit);
  if (!unit.parsed) {
    report.notes.push_back(std::string(what) + " '" + fits_unit +
                           "' is not a FITS unit astropy parses (" + unit.message +
                           "); the native view has no unit, the card is kept");
    return nullptr;
  }
  NodePtr u = Node::make_string(unit.vounit);
  u->set_tag(kUnitTag);
  return u;
}

NodePtr make_native_table(const std::vector<NativeColumn>& columns, HduReport& report) {
  NodePtr list = Node::make_sequence();
  for (const auto& c : columns) {
    NodePtr column = Node::make_mapping();
    column->set_tag(kColumnTag);
    column->set("data", c.data);
    column->set("name", Node::make_string(c.name));
    if (NodePtr u = unit_node(c.fits_unit, "the unit of column '" + c.name + "'", report)) {
      column->set("unit", u);
    }
    if (c.description.find_first_not_of(' ') != std::string::npos) {
      column->set("description", Node::make_string(c.description));
    }
    list->push_back(column);
  }
  NodePtr table = Node::make_mapping();
  table->set_tag(kTableTag);
  table->set("columns", list);
  return table;
}

}  // namespace fitsasdf::hdu
