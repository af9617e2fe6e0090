// `fitsasdf edit FILE`: change an ASDF file's tree where it is (asdfcore::Update): set and
// delete values by JSON Pointer, append a history entry; in place when the new tree fits before
// the first block, else by an atomic rewrite. Exit 0 when done (or nothing to do), 2 when the
// file cannot be updated safely (left untouched), 3 for I/O errors, 4 for a wrong command line.
#include <boost/program_options.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "asdfcore/error.h"
#include "asdfcore/tree/yaml.h"
#include "asdfcore/update.h"
#include "command_line.h"
#include "commands.h"
#include "exit_codes.h"
#include "limit_options.h"

namespace po = boost::program_options;
using nlohmann::ordered_json;

namespace fitsasdf::cli {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

/// The lines of the tree that change, in order: "-" for an old line, "+" for a new one (a
/// longest-common-subsequence diff of the lines; past a few million line pairs, the lines
/// between the common start and end, old then new).
std::vector<std::string> changed_lines(const std::string& old_tree, const std::string& new_tree) {
  const auto a = lines_of(old_tree);
  const auto b = lines_of(new_tree);
  std::size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  std::size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head &&
         a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) {
    ++tail;
  }
  const std::size_t n = a.size() - head - tail;
  const std::size_t m = b.size() - head - tail;
  std::vector<std::string> out;
  if (n * m > 4'000'000) {
    for (std::size_t i = 0; i < n; ++i) out.push_back("-" + a[head + i]);
    for (std::size_t j = 0; j < m; ++j) out.push_back("+" + b[head + j]);
    return out;
  }
  // lcs[i][j]: the longest common subsequence of a's middle from i and b's from j.
  std::vector<std::vector<std::uint32_t>> lcs(n + 1, std::vector<std::uint32_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t j = m; j-- > 0;) {
      lcs[i][j] = a[head + i] == b[head + j] ? lcs[i + 1][j + 1] + 1
                                             : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[head + i] == b[head + j]) {
      ++i;
      ++j;
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      out.push_back("-" + a[head + i++]);
    } else {
      out.push_back("+" + b[head + j++]);
    }
  }
  return out;
}

std::string describe(const asdfcore::CommitResult& r, bool dry_run) {
  using asdfcore::CommitKind;
  std::string text;
  switch (r.kind) {
    case CommitKind::kNothing: return "nothing to change";
    case CommitKind::kInPlace: text = dry_run ? "fits in place" : "updated in place"; break;
    case CommitKind::kRewritten: text = dry_run ? "would be rewritten" : "rewritten"; break;
  }
  text += " (tree " + std::to_string(r.old_tree_size) + " -> " + std::to_string(r.new_tree_size) +
          " bytes, room before the first block " + std::to_string(r.tree_room) + "; " +
          std::to_string(r.bytes_written) + " bytes " + (dry_run ? "to write" : "written");
  if (r.blocks_moved > 0) {
    text += "; " + std::to_string(r.blocks_moved) + " leading block(s), " +
            std::to_string(r.bytes_moved) + " bytes, moved after the last to make room";
  }
  if (r.blocks_unreferenced > 0) {
    text += "; " + std::to_string(r.blocks_unreferenced) +
            " block(s) no array uses, reclaimed by fitsasdf defragment";
  }
  text += ")";
  if (!r.reason.empty() && r.kind == CommitKind::kRewritten) text += ": " + r.reason;
  return text;
}

ordered_json to_json(const std::string& file, const asdfcore::CommitResult& r, bool dry_run,
                     const std::vector<std::string>& diff) {
  ordered_json j{{"file", file},
                 {"dry_run", dry_run},
                 {"kind", std::string(asdfcore::commit_kind_name(r.kind))},
                 {"reason", r.reason},
                 {"old_size", r.old_size},
                 {"new_size", r.new_size},
                 {"tree_room", r.tree_room},
                 {"old_tree_size", r.old_tree_size},
                 {"new_tree_size", r.new_tree_size},
                 {"bytes_written", r.bytes_written},
                 {"blocks_added", r.blocks_added},
                 {"blocks_moved", r.blocks_moved},
                 {"bytes_moved", r.bytes_moved},
                 {"blocks_unreferenced", r.blocks_unreferenced}};
  if (dry_run) j["tree_changes"] = diff;
  return j;
}

}  // namespace

int run_edit(const std::vector<std::string>& args) {
  po::options_description opts(
      "fitsasdf edit FILE [--set POINTER=YAML]... [--delete POINTER]... [--history TEXT]\n\n"
      "Change an ASDF file's tree where it is. Deletions apply first, then the settings in the\n"
      "order given, then the history entry. The file is written in place when the new tree\n"
      "fits in the room before the first block (the rest stays untouched), else rewritten\n"
      "beside the original and renamed over it. An in-place update keeps an undo journal\n"
      "beside the file until it is complete: if it is interrupted, the next open of the file\n"
      "rolls it back. Exit 0: done, 2: the file cannot be updated safely (left untouched),\n"
      "3: I/O error, 4: wrong command line.\n\nOptions");
  opts.add_options()("help,h", "show this help")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "POINTER=YAML: set the value at the JSON Pointer (a missing last key is added; '-' "
      "appends to a sequence) to the YAML text (repeatable). POINTER ends at the first '='")(
      "delete", po::value<std::vector<std::string>>()->composing(),
      "POINTER: remove this key or item (repeatable; an array's block stays in the file "
      "until defragment)")(
      "history", po::value<std::string>(),
      "append an entry with this description to history.entries (with the time and fitsasdf)")(
      "dry-run", "change nothing: print how the tree changes and whether it fits in place")(
      "json", "print the result as one JSON object")(
      "in-place", "refuse (exit 2) unless the change can be written in place")(
      "rewrite", "always rewrite the whole file (atomic for readers too; slower)")(
      "validate", "check the new tree against its schemas first and refuse one that breaks them")(
      "no-sync", "do not fsync (faster; safe against a killed process, not against power loss)")(
      "recover", "only roll back an interrupted update of FILE, if there is one")(
      "file", po::value<std::vector<std::string>>(), "the ASDF file");
  add_limit_options(opts);
  po::variables_map vm;
  if (!parse_command_line(args, opts, "file", vm, 1)) return kExitOk;
  const auto files = values_of(vm, "file");
  if (files.size() != 1) {
    std::cerr << "fitsasdf edit: give exactly one FILE (see fitsasdf edit --help)\n";
    return kExitUsage;
  }
  const std::string& file = files.front();
  const bool json = vm.count("json") > 0;
  if (vm.count("in-place") && vm.count("rewrite")) {
    throw po::error("--in-place and --rewrite exclude each other");
  }

  if (vm.count("recover")) {
    const asdfcore::Recovery r = asdfcore::recover_update(file);
    const char* what = r == asdfcore::Recovery::kRolledBack ? "rolled-back"
                       : r == asdfcore::Recovery::kDiscarded ? "discarded-journal"
                                                             : "nothing";
    if (json) {
      std::cout << ordered_json{{"file", file}, {"recovery", what}}.dump(2) << "\n";
    } else {
      std::cout << file << ": "
                << (r == asdfcore::Recovery::kRolledBack
                        ? "an interrupted update was rolled back"
                        : r == asdfcore::Recovery::kDiscarded
                              ? "a journal written only in part was removed (the file was not touched)"
                              : "no interrupted update")
                << "\n";
    }
    return kExitOk;
  }

  const auto sets = values_of(vm, "set");
  const auto deletes = values_of(vm, "delete");
  if (sets.empty() && deletes.empty() && vm.count("history") == 0) {
    std::cerr << "fitsasdf edit: nothing to change: give --set, --delete or --history\n";
    return kExitUsage;
  }
  std::vector<std::pair<std::string, asdfcore::tree::NodePtr>> values;
  for (const auto& s : sets) {
    const std::size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || s[0] != '/') {
      throw po::error("--set " + s + ": expected POINTER=YAML, the pointer starting with '/'");
    }
    asdfcore::tree::NodePtr value;
    try {
      value = asdfcore::tree::parse_yaml(s.substr(eq + 1), "--set " + s.substr(0, eq)).root;
    } catch (const asdfcore::Error& e) {
      throw po::error("--set " + s.substr(0, eq) + ": the value is not valid YAML: " + e.what());
    }
    values.emplace_back(s.substr(0, eq), value);
  }

  asdfcore::UpdateOptions options;
  options.open = read_limits(vm).open_options();
  options.mode = vm.count("in-place")  ? asdfcore::CommitMode::kInPlace
                 : vm.count("rewrite") ? asdfcore::CommitMode::kRewrite
                                       : asdfcore::CommitMode::kAuto;
  options.validate = vm.count("validate") > 0;
  options.durable = vm.count("no-sync") == 0;
  asdfcore::Update update = asdfcore::Update::open(file, options);
  for (const auto& d : deletes) update.remove(d);
  for (const auto& [pointer, value] : values) update.set(pointer, value);
  if (vm.count("history")) update.add_history(vm["history"].as<std::string>());

  const bool dry_run = vm.count("dry-run") > 0;
  const asdfcore::CommitResult result = dry_run ? update.plan() : update.commit();
  const std::vector<std::string> diff =
      dry_run && result.kind != asdfcore::CommitKind::kNothing
          ? changed_lines(result.old_tree, result.new_tree)
          : std::vector<std::string>{};
  if (json) {
    std::cout << to_json(file, result, dry_run, diff).dump(2) << "\n";
  } else {
    std::cout << file << ": " << describe(result, dry_run) << "\n";
    for (const auto& line : diff) std::cout << "  " << line << "\n";
  }
  return kExitOk;
}

}  // namespace fitsasdf::cli
