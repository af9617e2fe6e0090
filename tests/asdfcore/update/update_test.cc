// asdfcore::Update: every kind of change, in place and by a rewrite, on files with no, one and
// many blocks (compressed, with and without a block index, padded, streamed), written by python
// asdf and by fitsasdf; python asdf reads each result with validation and checksums on and
// must see the change and every other array unchanged. Then the refusals, the conflict check
// and the journal's recovery.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "asdfcore/asdf_writer.h"
#include "asdfcore/asdfcore.h"
#include "asdfcore/error.h"
#include "asdfcore/rewrite.h"
#include "asdfcore/tree/yaml.h"
#include "asdfcore/update.h"
#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/temp_dir.h"
#include "update_versions.h"

namespace fs = std::filesystem;
using asdfcore::CommitKind;
using asdfcore::CommitMode;
using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::Update;
using asdfcore::tree::Node;
using fitsasdf::test::TempDir;
using nlohmann::json;

namespace {

std::vector<std::uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

asdfcore::tree::NodePtr yaml(const std::string& text) {
  return asdfcore::tree::parse_yaml(text).root;
}

/// python asdf's reading of `files` (read_updated.py), by file name.
std::map<std::string, json> python_reads(const std::vector<std::string>& files) {
  std::vector<std::string> argv{"/usr/bin/python3",
                                std::string(FITSASDF_TEST_SCRIPTS_DIR) + "/read_updated.py"};
  argv.insert(argv.end(), files.begin(), files.end());
  const auto r = fitsasdf::test::run(argv);
  INFO(r.err);
  REQUIRE(!r.out.empty());
  std::map<std::string, json> out;
  for (const auto& report : json::parse(r.out)) {
    out[fs::path(report["file"].get<std::string>()).filename().string()] = report;
  }
  return out;
}

void make_python_inputs(const fs::path& dir) {
  const auto r = fitsasdf::test::run(
      {"/usr/bin/python3", std::string(FITSASDF_TEST_SCRIPTS_DIR) + "/make_update_inputs.py",
       dir.string()});
  INFO(r.err);
  REQUIRE(r.status == 0);
}

/// One change to make to a copy of an input.
struct Change {
  std::string name;
  std::function<void(Update&)> apply;
  /// Checks of python asdf's reading (its tree, arrays as "md5:..."), given the input's.
  std::function<void(const json& before, const json& after)> check;
};

std::vector<std::uint8_t> ramp_bytes(std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(i * 7 + 3);
  return v;
}

/// Every ndarray entry of `tree` except `skip` is the same in `a` and `b`.
void same_arrays(const json& a, const json& b, const std::string& skip = "") {
  for (const auto& [key, value] : a.items()) {
    if (key == skip || !value.is_string() || value.get<std::string>().rfind("md5:", 0) != 0) {
      continue;
    }
    INFO(key);
    CHECK(b.contains(key));
    if (b.contains(key)) CHECK(b[key] == value);
  }
}

std::vector<Change> changes() {
  std::vector<Change> out;
  out.push_back({"set a small value",
                 [](Update& u) { u.set("/meta/calver", Node::make_string("2.0")); },
                 [](const json& a, const json& b) {
                   CHECK(b["meta"]["calver"] == "2.0");
                   CHECK(b["meta"]["flag"] == 3);
                   same_arrays(a, b);
                 }});
  out.push_back({"add a large mapping",
                 [](Update& u) {
                   u.set("/meta/big", yaml("{text: " + std::string(20000, 'x') + ", list: [1, 2]}"));
                 },
                 [](const json& a, const json& b) {
                   CHECK(b["meta"]["big"]["text"].get<std::string>().size() == 20000);
                   CHECK(b["meta"]["big"]["list"] == json::array({1, 2}));
                   same_arrays(a, b);
                 }});
  out.push_back({"delete a key and append a history entry",
                 [](Update& u) {
                   u.remove("/meta/flag");
                   u.add_history("flag removed");
                 },
                 [](const json& a, const json& b) {
                   CHECK(!b["meta"].contains("flag"));
                   const json& entries = b["history"]["entries"];
                   CHECK(entries.back()["description"] == "flag removed");
                   CHECK(entries.back()["software"]["name"] == "fitsasdf");
                   same_arrays(a, b);
                 }});
  out.push_back({"add an array",
                 [](Update& u) {
                   u.add_array("/added", asdfcore::Array::take(ramp_bytes(10000), {100, 100}));
                 },
                 [](const json& a, const json& b) {
                   const auto bytes = ramp_bytes(10000);
                   const std::string md5 = asdfcore::compression::to_hex(asdfcore::compression::md5(bytes));
                   CHECK(b["added"] == "md5:" + md5 + ":[100, 100]");
                   same_arrays(a, b);
                 }});
  out.push_back({"replace an array's values",
                 [](Update& u) {
                   if (!u.root()->get("sci")) return u.set("/meta/calver", Node::make_string("3"));
                   u.replace_array("/sci", asdfcore::Array::take(std::vector<std::int16_t>(64 * 48, 5),
                                                                 {64, 48}));
                 },
                 [](const json& a, const json& b) {
                   if (a.contains("sci")) {
                     const std::vector<std::int16_t> v(64 * 48, 5);
                     const auto* p = reinterpret_cast<const std::uint8_t*>(v.data());
                     const std::string md5 = asdfcore::compression::to_hex(
                         asdfcore::compression::md5(std::span(p, v.size() * 2)));
                     CHECK(b["sci"] == "md5:" + md5 + ":[64, 48]");
                   }
                   same_arrays(a, b, "sci");
                 }});
  return out;
}

}  // namespace

TEST_CASE("every kind of change to python-written files reads back in python asdf",
          "[update][interop]") {
  TempDir dir;
  make_python_inputs(dir.path());
  const std::vector<std::string> inputs{"py_none", "py_one", "py_many", "py_noindex",
                                        "py_padded", "py_stream"};
  std::vector<std::string> all;
  for (const auto& in : inputs) all.push_back((dir / (in + ".asdf")).string());
  const auto before = python_reads(all);
  // The oracle hands arrays back as MD5s (same_arrays compares only those): every input but
  // the one without arrays must show some.
  for (const auto& [name, report] : before) {
    if (name == "py_none.asdf") continue;
    INFO(name);
    CHECK(report["tree"].dump().find("\"md5:") != std::string::npos);
  }

  std::vector<std::string> outputs;
  std::map<std::string, std::pair<std::string, std::size_t>> what;  // output -> input, change
  const auto list = changes();
  for (const auto& in : inputs) {
    for (std::size_t c = 0; c < list.size(); ++c) {
      const fs::path out = dir / (in + "-" + std::to_string(c) + ".asdf");
      fs::copy_file(dir / (in + ".asdf"), out);
      INFO(in << ": " << list[c].name);
      Update u = Update::open(out.string());
      if (in == "py_stream" && (list[c].name == "add an array" ||
                                list[c].name == "replace an array's values")) {
        // No block can follow a streamed one: refused, the file untouched.
        const auto bytes = read_bytes(out);
        list[c].apply(u);
        try {
          u.commit();
          FAIL("an array was added after a streamed block");
        } catch (const Error& e) {
          CHECK(e.code() == ErrorCode::kUnsupported);
        }
        CHECK(read_bytes(out) == bytes);
        continue;
      }
      list[c].apply(u);
      const asdfcore::CommitResult r = u.commit();
      CHECK(r.kind != CommitKind::kNothing);
      outputs.push_back(out.string());
      what[out.filename().string()] = {in + ".asdf", c};
      // Ours reads it too, checksums verified.
      CHECK_NOTHROW(asdfcore::File::open(out.string()).verify_checksums());
    }
  }
  const auto after = python_reads(outputs);
  for (const auto& [name, report] : after) {
    const auto& [input, c] = what.at(name);
    INFO(name << " (" << input << ": " << list[c].name << ")");
    INFO(report.dump().substr(0, 2000));
    REQUIRE(!report.contains("error"));
    CHECK(report["warnings"].empty());
    list[c].check(before.at(input)["tree"], report["tree"]);
  }
}

TEST_CASE("a file fitsasdf wrote has room: small changes are written in place, blocks untouched",
          "[update]") {
  TempDir dir;
  const fs::path file = dir / "ours.asdf";
  asdfcore::Tree tree;
  tree["meta"]["calver"] = "1.0";
  std::vector<float> values(100000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.5f;
  tree["sci"] = asdfcore::Array::view(std::span<const float>(values), {100, 1000});
  tree["err"] = asdfcore::Array::view(std::span<const float>(values), {1000, 100}).compression("zlib");
  asdfcore::write(file.string(), tree);
  const auto old_bytes = read_bytes(file);
  const std::uint64_t first_block =
      asdfcore::File::open(file.string()).raw().container().blocks().front().offset;
  CHECK(first_block % 4096 == 0);

  Update u = Update::open(file.string());
  u.set("/meta/calver", Node::make_string("1.1"));
  u.add_history("recalibrated");
  const auto plan = u.plan();
  CHECK(plan.kind == CommitKind::kInPlace);
  const auto r = u.commit();
  CHECK(r.kind == CommitKind::kInPlace);
  CHECK(r.bytes_written < first_block);
  const auto new_bytes = read_bytes(file);
  REQUIRE(new_bytes.size() == old_bytes.size());
  CHECK(std::equal(old_bytes.begin() + static_cast<std::ptrdiff_t>(first_block), old_bytes.end(),
                   new_bytes.begin() + static_cast<std::ptrdiff_t>(first_block)));
  const asdfcore::File f = asdfcore::File::open(file.string());
  CHECK(f.get<std::string>("/meta/calver") == "1.1");
  CHECK(f.array<float>("/err").to_vector() == values);

  // The same Update takes more changes: replace an array (a new block, the old one left).
  u.replace_array("/sci", asdfcore::Array::take(std::vector<float>(100000, 2.0f), {100, 1000}));
  const auto r2 = u.commit();
  CHECK(r2.kind == CommitKind::kInPlace);
  CHECK(r2.blocks_added == 1);
  CHECK(r2.blocks_unreferenced == 1);
  const asdfcore::File g = asdfcore::File::open(file.string());
  CHECK(g.array<float>("/sci").to_vector() == std::vector<float>(100000, 2.0f));
  CHECK(g.array<float>("/err").to_vector() == values);
  CHECK(g.raw().container().block_index_valid());
  CHECK_NOTHROW(g.verify_checksums());

  // Nothing changed: nothing written.
  Update same = Update::open(file.string());
  CHECK(same.commit().kind == CommitKind::kNothing);
}

TEST_CASE("replace_array refuses another dtype or shape", "[update]") {
  TempDir dir;
  const fs::path file = dir / "a.asdf";
  asdfcore::Tree tree;
  tree["a"] = asdfcore::Array::take(std::vector<std::int32_t>(12, 1), {3, 4});
  asdfcore::write(file.string(), tree);
  Update u = Update::open(file.string());
  auto code_of = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.code();
    }
    return ErrorCode::kIo;  // "did not throw"
  };
  CHECK(code_of([&] { u.replace_array("/a", asdfcore::Array::take(std::vector<std::int32_t>(12, 2), {4, 3})); }) ==
        ErrorCode::kInvalidArgument);
  CHECK(code_of([&] { u.replace_array("/a", asdfcore::Array::take(std::vector<float>(12, 2), {3, 4})); }) ==
        ErrorCode::kInvalidArgument);
  CHECK(code_of([&] { u.replace_array("/missing", asdfcore::Array::take(std::vector<float>(1), {1})); }) ==
        ErrorCode::kNotFound);
  CHECK(code_of([&] { u.set("/no/such/place", Node::make_int(1)); }) == ErrorCode::kNotFound);
  CHECK(code_of([&] { u.remove("/nothing"); }) == ErrorCode::kNotFound);
  CHECK(code_of([&] { u.remove(""); }) == ErrorCode::kInvalidArgument);
  CHECK(code_of([&] { u.add_array("/no/such", asdfcore::Array::take(std::vector<float>(1), {1})); }) ==
        ErrorCode::kNotFound);
  CHECK(u.commit().kind == CommitKind::kNothing);  // nothing was added by the refused calls
}

TEST_CASE("a history entry is never added over a history of another kind", "[update]") {
  for (const char* text : {"{history: free text}", "{history: {entries: 3}}"}) {
    INFO(text);
    const auto root = yaml(text);
    const auto before = asdfcore::tree::deep_copy(root);
    CHECK_THROWS_AS(asdfcore::add_history_entry(root, "x", "2026-11-27T00:00:00"), Error);
    CHECK(asdfcore::tree::deep_equal(*root, *before));
  }
  const auto missing = yaml("{a: 1, history: null}");
  asdfcore::add_history_entry(missing, "x", "2026-11-27T00:00:00");
  CHECK(missing->get("history")->get("entries")->size() == 1);
}

TEST_CASE("a file changed on disk since it was opened is refused at commit", "[update]") {
  TempDir dir;
  const fs::path file = dir / "a.asdf";
  asdfcore::Tree tree;
  tree["meta"]["v"] = 1;
  tree["a"] = asdfcore::Array::take(std::vector<std::int32_t>(12, 1), {3, 4});
  asdfcore::write(file.string(), tree);

  Update u = Update::open(file.string());
  u.set("/meta/v", Node::make_int(2));
  // Someone else updates it meanwhile.
  Update other = Update::open(file.string());
  other.set("/meta/v", Node::make_int(3));
  other.commit();
  const auto theirs = read_bytes(file);
  try {
    u.commit();
    FAIL("the commit went through");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kConflict);
    CHECK(std::string(e.what()).find("changed on disk") != std::string::npos);
  }
  CHECK(read_bytes(file) == theirs);
  CHECK(asdfcore::File::open(file.string()).get<std::int64_t>("/meta/v") == 3);
}

TEST_CASE("files that cannot be updated safely are refused, untouched", "[update]") {
  TempDir dir;
  auto refused = [](const fs::path& p, const std::function<void(Update&)>& change) -> std::string {
    const auto bytes = read_bytes(p);
    std::string message;
    try {
      Update u = Update::open(p.string());
      change(u);
      u.commit();
    } catch (const Error& e) {
      message = std::string(asdfcore::error_code_name(e.code())) + ": " + e.what();
    }
    CHECK(read_bytes(p) == bytes);
    return message;
  };
  const auto set_v = [](Update& u) { u.set("/v", Node::make_int(1)); };

  // A pre-1.0 dialect.
  const fs::path legacy = dir / "legacy.asdf";
  fs::copy_file(fs::path(FITSASDF_TEST_DATA_DIR) / "legacy" / "b40-bzp2.asdf", legacy);
  CHECK_THAT(refused(legacy, set_v), Catch::Matchers::StartsWith("unsupported") &&
                                         Catch::Matchers::Contains("defragment --standard"));
  // A FITS file (with or without an ASDF extension).
  const fs::path fits = dir / "test0.fits";
  fs::copy_file(fs::path(FITSASDF_SAMPLES_DIR) / "test0.fits", fits);
  CHECK_THAT(refused(fits, set_v), Catch::Matchers::StartsWith("unsupported") &&
                                       Catch::Matchers::Contains("inside a FITS file"));
  // In place only, and the tree does not fit.
  const fs::path tight = dir / "tight.asdf";
  {
    asdfcore::Tree tree;
    tree["a"] = asdfcore::Array::take(std::vector<std::int32_t>(12, 1), {3, 4});
    asdfcore::WriteOptions w;
    asdfcore::write(tight.string(), tree, w);
  }
  asdfcore::UpdateOptions in_place;
  in_place.mode = CommitMode::kInPlace;
  {
    const auto bytes = read_bytes(tight);
    Update u = Update::open(tight.string(), in_place);
    u.set("/big", Node::make_string(std::string(100000, 'y')));
    CHECK_THROWS_AS(u.commit(), Error);
    CHECK(read_bytes(tight) == bytes);
  }
  // An array in another file (exploded form) cannot be replaced; the tree can still change.
  const fs::path exploded = dir / "ex.asdf";
  asdfcore::explode(tight.string(), exploded.string());
  CHECK_THAT(refused(exploded,
                     [](Update& u) {
                       u.replace_array("/a", asdfcore::Array::take(std::vector<std::int32_t>(12, 5), {3, 4}));
                     }),
             Catch::Matchers::StartsWith("unsupported"));
  {
    Update u = Update::open(exploded.string());
    u.set("/meta", yaml("{note: exploded}"));
    CHECK(u.commit().kind == CommitKind::kInPlace);
    const asdfcore::File f = asdfcore::File::open(exploded.string());
    CHECK(f.get<std::string>("/meta/note") == "exploded");
    CHECK(f.array<std::int32_t>("/a").to_vector() == std::vector<std::int32_t>(12, 1));
  }
  // A damaged layout (bytes after the block index).
  const fs::path junk = dir / "junk.asdf";
  fs::copy_file(tight, junk);
  {
    std::ofstream out(junk, std::ios::binary | std::ios::app);
    out << "junk";
  }
  CHECK_THAT(refused(junk, set_v), Catch::Matchers::StartsWith("unsupported") &&
                                       Catch::Matchers::Contains("defragment"));
}

TEST_CASE("an interrupted commit's journal is rolled back by the next open", "[update]") {
  TempDir dir;
  const fs::path file = dir / "a.asdf";
  asdfcore::Tree tree;
  tree["meta"]["v"] = 1;
  asdfcore::write(file.string(), tree);
  const auto old_bytes = read_bytes(file);
  const std::string journal = asdfcore::update_journal_path(file.string());
  CHECK(journal == (dir / ".a.asdf.fitsasdf-journal").string());

  // A journal cut short (the writer died while writing it): removed, the file untouched.
  {
    std::ofstream out(journal, std::ios::binary);
    out << "FITSASDF UNDO JOURNAL 1\n" << std::string(20, '\0');
  }
  CHECK(asdfcore::recover_update(file.string()) == asdfcore::Recovery::kDiscarded);
  CHECK(!fs::exists(journal));
  CHECK(read_bytes(file) == old_bytes);
  CHECK(asdfcore::recover_update(file.string()) == asdfcore::Recovery::kNone);

  // A complete journal, made by stopping a commit between its writes, as the kill test does in
  // another process; here the file is damaged by hand after a journal of it is saved.
  {
    Update u = Update::open(file.string());
    u.set("/meta/v", Node::make_int(2));
    u.commit();
  }
  const auto v2 = read_bytes(file);
  // A journal of the wrong file (another inode) is not applied.
  const fs::path other = dir / "b.asdf";
  fs::copy_file(file, other);
  {
    // Reuse a real journal layout: commit on `other` with its journal kept by a crash is
    // covered by the kill test; here a forged journal naming another inode must be refused.
    std::vector<std::uint8_t> bytes;
    std::string magic = "FITSASDF UNDO JOURNAL 1\n";
    bytes.assign(magic.begin(), magic.end());
    auto put = [&](std::uint64_t v) {
      for (int i = 7; i >= 0; --i) bytes.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    };
    put(1);
    put(1);  // inode 1: not this file
    put(v2.size());
    put(0);
    const auto digest = asdfcore::compression::md5(bytes);
    bytes.insert(bytes.end(), digest.begin(), digest.end());
    std::ofstream out(asdfcore::update_journal_path(other.string()), std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  try {
    asdfcore::recover_update(other.string());
    FAIL("a journal of another file was applied");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kConflict);
  }
  CHECK(read_bytes(other) == v2);
  // Reading the file says so too, and does not read a possibly mixed file.
  CHECK_THROWS_AS(asdfcore::File::open(other.string()), Error);
}

TEST_CASE("a tree that outgrows its room moves small leading blocks, not the whole file",
          "[update][interop]") {
  TempDir dir;
  const fs::path file = dir / "move.asdf";
  fitsasdf::test::write_version0(file.string(), "move");  // no room after the tree
  const auto before = asdfcore::File::open(file.string());
  const auto& old_blocks = before.raw().container().blocks();
  const std::uint64_t old_size = before.raw().container().bytes().size();

  Update u = Update::open(file.string());
  fitsasdf::test::apply_version(u, "move", 1);  // a 400-character note
  const auto r = u.commit();
  CHECK(r.kind == CommitKind::kInPlace);
  CHECK(r.blocks_moved >= 1);
  CHECK(r.blocks_moved < old_blocks.size());
  CHECK(r.bytes_written < old_size / 4);
  int version = -1;
  CHECK(fitsasdf::test::check_version(file.string(), "move", version) == "");
  CHECK(version == 1);
  const asdfcore::File after = asdfcore::File::open(file.string());
  CHECK(after.raw().container().block_index_valid());
  CHECK(after.raw().container().problems().empty());
  // The last (big) block did not move.
  CHECK(after.raw().container().blocks()[old_blocks.size() - 1 - r.blocks_moved].offset ==
        old_blocks.back().offset);

  // A tree with a tag of an unknown namespace keeps its blocks in place: a rewrite instead.
  Update v = Update::open(file.string());
  auto tagged = Node::make_mapping();
  tagged->set_tag("tag:example.org:site/thing-1.0.0");
  tagged->set("text", Node::make_string(std::string(30000, 't')));
  v.set("/site", tagged);
  CHECK(v.plan().kind == CommitKind::kRewritten);

  const auto report = python_reads({file.string()}).begin()->second;
  INFO(report.dump().substr(0, 2000));
  CHECK(!report.contains("error"));
  CHECK(report["warnings"].empty());
  CHECK(report["tree"]["meta"]["note"].get<std::string>().size() == 400);
}

TEST_CASE("an update through a symbolic link changes the file it names, in place or not",
          "[update]") {
  TempDir dir;
  const fs::path file = dir / "real.asdf";
  asdfcore::Tree tree;
  tree["a"] = asdfcore::Array::take(std::vector<std::int32_t>(12, 1), {3, 4});
  asdfcore::write(file.string(), tree);
  const fs::path link = dir / "link.asdf";
  fs::create_symlink(file.filename(), link);
  for (const CommitMode mode : {CommitMode::kAuto, CommitMode::kRewrite}) {
    asdfcore::UpdateOptions options;
    options.mode = mode;
    Update u = Update::open(link.string(), options);
    u.set("/v", Node::make_int(mode == CommitMode::kAuto ? 1 : 2));
    u.commit();
    CHECK(fs::is_symlink(link));
    CHECK(asdfcore::File::open(file.string()).get<std::int64_t>("/v") ==
          (mode == CommitMode::kAuto ? 1 : 2));
  }
  CHECK(asdfcore::update_journal_path(link.string()) ==
        (fs::canonical(dir.path()) / ".real.asdf.fitsasdf-journal").string());
}
