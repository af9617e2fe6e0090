// libasdf's C API, values: opening and its errors, the path syntax, libasdf's typing of
// scalars and its getters, mappings, sequences, iteration and search.
#include <cerrno>
#include <cstring>
#include <string>

#include "asdfcore/c_api/c_api_support.h"
#include "support/catch.h"
#include "support/temp_dir.h"

using namespace fitsasdf::test::capi;
using fitsasdf::test::TempDir;

namespace {

const std::string kTree = asdf_text(
    "a: [b, c]\n"
    "m: {0: zero, 1: one}\n"
    "x/y: slash\n"
    "'[1]': bracketed\n"
    "odd.key*&: punct\n"
    "nested: {list: [{name: first}, {name: second}]}\n"
    "small: 42\n"
    "negative: -5\n"
    "big_unsigned: 18446744073709551615\n"
    "huge: 123456789012345678901234567890\n"
    "u255: 255\n"
    "int16ish: -300\n"
    "pi: 3.25\n"
    "tiny: 1.0e-300\n"
    "yes_bool: true\n"
    "zero: 0\n"
    "one: 1\n"
    "nothing: null\n"
    "text: hello\n"
    "quoted_number: '12'\n"
    "when: 2024-03-01T12:30:00\n"
    "empty_map: {}\n");

}  // namespace

TEST_CASE("C API: opening reports missing files, bad modes and non-ASDF input", "[c_api]") {
  TempDir dir;
  const std::string missing = (dir.path() / "does-not-exist.asdf").string();
  CHECK(asdf_open_file(missing.c_str(), "r") == nullptr);
  CHECK(asdf_error_code(nullptr) == ASDF_ERR_SYSTEM);
  CHECK(asdf_error_errno(nullptr) == ENOENT);
  REQUIRE(asdf_error(nullptr) != nullptr);
  CHECK(std::string(asdf_error(nullptr)).find("does-not-exist.asdf") != std::string::npos);

  CHECK(asdf_open_file(missing.c_str(), "x") == nullptr);
  CHECK(asdf_error_code(nullptr) == ASDF_ERR_INVALID_ARGUMENT);
  CHECK(std::string(asdf_error(nullptr)) == "invalid argument for mode: x");

  const std::string garbage = "SIMPLE  =                    T / not ASDF at all";
  CHECK(asdf_open_mem(garbage.data(), garbage.size()) == nullptr);
  CHECK(asdf_error_code(nullptr) == ASDF_ERR_INVALID_ASDF_HEADER);
  CHECK(std::string(asdf_error(nullptr)).find("<memory>") != std::string::npos);

  const std::string broken = asdf_text("a: [unclosed\n");
  CHECK(asdf_open_mem(broken.data(), broken.size()) == nullptr);
  CHECK(asdf_error_code(nullptr) == ASDF_ERR_YAML_PARSE_FAILED);

  CHECK(asdf_open_mem(nullptr, 5) == nullptr);
  CHECK(asdf_error_code(nullptr) == ASDF_ERR_INVALID_ARGUMENT);
  CHECK(asdf_open_fp(nullptr, "x") == nullptr);
  CHECK(asdf_open_file_ex(nullptr, "r", nullptr) == nullptr);

  // A good open clears this thread's error; a file's own error starts empty.
  FilePtr ok = open_text(kTree);
  REQUIRE(ok);
  CHECK(asdf_error(nullptr) == nullptr);
  CHECK(asdf_error(ok.get()) == nullptr);
  CHECK(asdf_error_code(ok.get()) == ASDF_ERR_NONE);
  CHECK(asdf_block_count(ok.get()) == 0);
  CHECK(asdf_block_count(nullptr) == 0);
}

TEST_CASE("C API: opening from a FILE stream and from a path", "[c_api]") {
  TempDir dir;
  const std::string path = (dir.path() / "t.asdf").string();
  {
    FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f);
    std::fwrite(kTree.data(), 1, kTree.size(), f);
    std::fclose(f);
  }
  FilePtr by_path(asdf_open_file(path.c_str(), "r"));
  REQUIRE(by_path);
  FILE* f = std::fopen(path.c_str(), "rb");
  FilePtr by_stream(asdf_open_fp(f, path.c_str()));
  std::fclose(f);
  REQUIRE(by_stream);
  for (asdf_file_t* file : {by_path.get(), by_stream.get()}) {
    const char* s = nullptr;
    CHECK(asdf_get_string0(file, "text", &s) == ASDF_VALUE_OK);
    CHECK(std::string(s) == "hello");
  }
}

TEST_CASE("C API: libasdf's path syntax", "[c_api]") {
  FilePtr file = open_text(kTree);
  REQUIRE(file);
  const auto text = [&](const char* path) -> std::string {
    const char* s = nullptr;
    const asdf_value_err_t err = asdf_get_string0(file.get(), path, &s);
    return err == ASDF_VALUE_OK ? std::string(s) : "<" + std::to_string(err) + ">";
  };
  const std::string not_found = "<" + std::to_string(ASDF_VALUE_ERR_NOT_FOUND) + ">";
  CHECK(text("a/0") == "b");
  CHECK(text("/a/0") == "b");
  CHECK(text("a/1") == "c");
  CHECK(text("a/-1") == "c");
  CHECK(text("a/-2") == "b");
  CHECK(text("a/[1]") == "c");
  CHECK(text("a/[-1]") == "c");
  CHECK(text("a/2") == not_found);
  CHECK(text("a/-3") == not_found);
  CHECK(text("a/'0'") == not_found);  // a quoted component is a key, and `a` is a sequence
  CHECK(text("'a'/0") == "b");
  CHECK(text("\"a\"/0") == "b");
  CHECK(text("m/0") == "zero");  // a number names a key of a mapping (here an integer key)
  CHECK(text("m/'1'") == "one");
  CHECK(text("m/[0]") == not_found);  // brackets are always an index
  CHECK(text("x\\/y") == "slash");
  CHECK(text("'x/y'") == "slash");
  CHECK(text("\\[1\\]") == "bracketed");
  CHECK(text("'[1]'") == "bracketed");
  CHECK(text("odd\\.key\\*\\&") == "punct");
  CHECK(text("nested/list/1/name") == "second");
  CHECK(text("nested/list/-2/name") == "first");
  CHECK(text("missing") == not_found);
  CHECK(text("text/0") == not_found);  // below a scalar
  // Paths that cannot be read name nothing.
  CHECK(text("'unclosed") == not_found);
  CHECK(text("a/[x]") == not_found);
  CHECK(text("a/[1]z") == not_found);
  // The root: "" or "/".
  CHECK(asdf_is_mapping(file.get(), ""));
  CHECK(asdf_is_mapping(file.get(), "/"));
  ValuePtr v(asdf_get_value(file.get(), "nested/list/-1"));
  REQUIRE(v);
  CHECK(std::string(asdf_value_path(v.get())) == "/nested/list/1");
  ValuePtr odd(asdf_get_value(file.get(), "'x/y'"));
  REQUIRE(odd);
  CHECK(std::string(asdf_value_path(odd.get())) == "/x\\/y");
  CHECK(asdf_get_value(file.get(), nullptr) == nullptr);
  CHECK(asdf_get_value(nullptr, "a") == nullptr);
}

TEST_CASE("C API: scalars are typed and converted as libasdf does", "[c_api]") {
  FilePtr file = open_text(kTree);
  REQUIRE(file);
  asdf_file_t* f = file.get();
  const auto type = [&](const char* path) {
    ValuePtr v(asdf_get_value(f, path));
    return v ? asdf_value_get_type(v.get()) : ASDF_VALUE_UNKNOWN;
  };
  CHECK(type("small") == ASDF_VALUE_UINT8);
  CHECK(type("negative") == ASDF_VALUE_INT8);
  CHECK(type("int16ish") == ASDF_VALUE_INT16);
  CHECK(type("big_unsigned") == ASDF_VALUE_UINT64);
  CHECK(type("huge") == ASDF_VALUE_UNKNOWN);
  CHECK(type("pi") == ASDF_VALUE_DOUBLE);
  CHECK(type("yes_bool") == ASDF_VALUE_BOOL);
  CHECK(type("zero") == ASDF_VALUE_UINT8);
  CHECK(type("nothing") == ASDF_VALUE_NULL);
  CHECK(type("text") == ASDF_VALUE_STRING);
  CHECK(type("quoted_number") == ASDF_VALUE_STRING);
  CHECK(type("when") == ASDF_VALUE_STRING);
  CHECK(type("a") == ASDF_VALUE_SEQUENCE);
  CHECK(type("m") == ASDF_VALUE_MAPPING);
  CHECK(std::string(asdf_value_type_string(ASDF_VALUE_UINT16)) == "uint16");
  CHECK(std::string(asdf_value_type_string(static_cast<asdf_value_type_t>(31))) == "unknown");

  // Integers: any type the value fits; else OVERFLOW with C's conversion stored.
  int8_t i8 = 0;
  CHECK(asdf_get_int8(f, "small", &i8) == ASDF_VALUE_OK);
  CHECK(i8 == 42);
  CHECK(asdf_get_int8(f, "u255", &i8) == ASDF_VALUE_ERR_OVERFLOW);
  CHECK(i8 == -1);
  uint8_t u8 = 0;
  CHECK(asdf_get_uint8(f, "negative", &u8) == ASDF_VALUE_ERR_OVERFLOW);
  CHECK(u8 == static_cast<uint8_t>(-5));
  int16_t i16 = 0;
  CHECK(asdf_get_int16(f, "int16ish", &i16) == ASDF_VALUE_OK);
  CHECK(i16 == -300);
  uint64_t u64 = 0;
  CHECK(asdf_get_uint64(f, "big_unsigned", &u64) == ASDF_VALUE_OK);
  CHECK(u64 == UINT64_MAX);
  int64_t i64 = 0;
  CHECK(asdf_get_int64(f, "big_unsigned", &i64) == ASDF_VALUE_ERR_OVERFLOW);
  CHECK(asdf_get_uint64(f, "huge", &u64) == ASDF_VALUE_ERR_OVERFLOW);
  CHECK(asdf_get_int32(f, "text", nullptr) == ASDF_VALUE_ERR_TYPE_MISMATCH);
  CHECK(asdf_get_int32(f, "missing", nullptr) == ASDF_VALUE_ERR_NOT_FOUND);
  CHECK(asdf_get_int32(f, "yes_bool", nullptr) == ASDF_VALUE_ERR_TYPE_MISMATCH);
  CHECK(asdf_is_int8(f, "small"));
  CHECK_FALSE(asdf_is_int8(f, "u255"));
  CHECK(asdf_is_uint8(f, "u255"));
  CHECK_FALSE(asdf_is_uint8(f, "negative"));
  CHECK(asdf_is_int(f, "big_unsigned"));
  CHECK_FALSE(asdf_is_int(f, "huge"));
  CHECK_FALSE(asdf_is_int(f, "pi"));
  CHECK_FALSE(asdf_is_int64(f, "missing"));

  // Bools: true/false, and the integers 0 and 1.
  bool b = false;
  CHECK(asdf_get_bool(f, "yes_bool", &b) == ASDF_VALUE_OK);
  CHECK(b);
  CHECK(asdf_get_bool(f, "zero", &b) == ASDF_VALUE_OK);
  CHECK_FALSE(b);
  CHECK(asdf_get_bool(f, "one", &b) == ASDF_VALUE_OK);
  CHECK(b);
  CHECK(asdf_get_bool(f, "small", &b) == ASDF_VALUE_ERR_TYPE_MISMATCH);
  CHECK(asdf_is_bool(f, "one"));
  CHECK_FALSE(asdf_is_bool(f, "text"));

  // Floats; integers read as doubles too (beyond libasdf, which refuses them).
  double d = 0;
  CHECK(asdf_get_double(f, "pi", &d) == ASDF_VALUE_OK);
  CHECK(d == 3.25);
  CHECK(asdf_get_double(f, "small", &d) == ASDF_VALUE_OK);
  CHECK(d == 42.0);
  CHECK(asdf_get_double(f, "text", &d) == ASDF_VALUE_ERR_TYPE_MISMATCH);
  float fl = 0;
  CHECK(asdf_get_float(f, "pi", &fl) == ASDF_VALUE_OK);
  CHECK(fl == 3.25f);
  CHECK(asdf_get_float(f, "tiny", &fl) == ASDF_VALUE_OK);  // underflow is not overflow
  CHECK(asdf_is_double(f, "pi"));
  CHECK(asdf_is_float(f, "pi"));
  CHECK_FALSE(asdf_is_double(f, "small"));

  // Strings and scalar text.
  const char* s = nullptr;
  size_t len = 0;
  CHECK(asdf_get_string(f, "text", &s, &len) == ASDF_VALUE_OK);
  CHECK(std::string(s, len) == "hello");
  CHECK(asdf_get_string0(f, "small", &s) == ASDF_VALUE_ERR_TYPE_MISMATCH);
  CHECK(asdf_get_string0(f, "when", &s) == ASDF_VALUE_OK);
  CHECK(std::string(s) == "2024-03-01T12:30:00");
  CHECK(asdf_get_scalar0(f, "small", &s) == ASDF_VALUE_OK);
  CHECK(std::string(s) == "42");
  const char* again = nullptr;  // asking again keeps the first text valid
  CHECK(asdf_get_scalar0(f, "small", &again) == ASDF_VALUE_OK);
  CHECK(again == s);
  CHECK(std::string(s) == "42");
  CHECK(asdf_get_scalar0(f, "pi", &s) == ASDF_VALUE_OK);
  CHECK(std::string(s) == "3.25");
  CHECK(asdf_get_scalar(f, "yes_bool", &s, &len) == ASDF_VALUE_OK);
  CHECK(std::string(s, len) == "true");
  CHECK(asdf_get_scalar0(f, "m", &s) == ASDF_VALUE_ERR_TYPE_MISMATCH);
  CHECK(asdf_is_scalar(f, "nothing"));
  CHECK(asdf_is_null(f, "nothing"));
  CHECK_FALSE(asdf_is_null(f, "text"));
  CHECK(asdf_is_string(f, "quoted_number"));

  // asdf_value_as_type dispatches on the type asked for.
  ValuePtr small(asdf_get_value(f, "small"));
  uint16_t u16 = 0;
  CHECK(asdf_value_as_type(small.get(), ASDF_VALUE_UINT16, &u16) == ASDF_VALUE_OK);
  CHECK(u16 == 42);
  CHECK(asdf_value_is_type(small.get(), ASDF_VALUE_INT8));
  CHECK(asdf_value_is_type(small.get(), ASDF_VALUE_SCALAR));
  CHECK_FALSE(asdf_value_is_type(small.get(), ASDF_VALUE_STRING));
  asdf_value_t* copy = nullptr;
  CHECK(asdf_value_as_type(small.get(), ASDF_VALUE_UNKNOWN, &copy) == ASDF_VALUE_OK);
  ValuePtr copied(copy);
  CHECK(std::string(asdf_value_path(copy)) == "/small");
  CHECK(asdf_value_as_type(small.get(), static_cast<asdf_value_type_t>(30), nullptr) ==
        ASDF_VALUE_ERR_TYPE_MISMATCH);
  CHECK(asdf_value_as_int8(nullptr, &i8) == ASDF_VALUE_ERR_UNKNOWN);
  CHECK(asdf_value_get_type(nullptr) == ASDF_VALUE_UNKNOWN);
}

TEST_CASE("C API: mappings, sequences and their iterators", "[c_api]") {
  FilePtr file = open_text(kTree);
  REQUIRE(file);
  asdf_file_t* f = file.get();

  asdf_mapping_t* m = nullptr;
  REQUIRE(asdf_get_mapping(f, "m", &m) == ASDF_VALUE_OK);
  ValuePtr m_owner(asdf_value_of_mapping(m));
  CHECK(asdf_mapping_size(m) == 2);
  std::string keys;
  asdf_mapping_iter_t* it = asdf_mapping_iter_init(m);
  while (asdf_mapping_iter_next(&it)) {
    const char* s = nullptr;
    REQUIRE(asdf_value_as_string0(it->value, &s) == ASDF_VALUE_OK);
    keys += std::string(it->key) + "=" + s + ";";
  }
  CHECK(it == nullptr);
  CHECK(keys == "0=zero;1=one;");
  it = asdf_mapping_reverse_iter_init(m);
  REQUIRE(asdf_mapping_iter_next(&it));
  CHECK(std::string(it->key) == "1");
  asdf_mapping_iter_destroy(it);  // stopping early
  asdf_mapping_iter_destroy(nullptr);
  ValuePtr zero(asdf_mapping_get(m, "0"));
  REQUIRE(zero);
  CHECK(std::string(asdf_value_path(zero.get())) == "/m/0");
  ValuePtr parent(asdf_value_parent(zero.get()));
  REQUIRE(parent);
  CHECK(std::string(asdf_value_path(parent.get())) == "/m");
  CHECK(asdf_mapping_get(m, "nope") == nullptr);
  CHECK(asdf_get_mapping(f, "a", &m) == ASDF_VALUE_ERR_TYPE_MISMATCH);

  asdf_sequence_t* seq = nullptr;
  REQUIRE(asdf_get_sequence(f, "a", &seq) == ASDF_VALUE_OK);
  ValuePtr seq_owner(asdf_value_of_sequence(seq));
  CHECK(asdf_sequence_size(seq) == 2);
  ValuePtr last(asdf_sequence_get(seq, -1));
  const char* s = nullptr;
  REQUIRE(asdf_value_as_string0(last.get(), &s) == ASDF_VALUE_OK);
  CHECK(std::string(s) == "c");
  CHECK(asdf_sequence_get(seq, 2) == nullptr);
  CHECK(asdf_sequence_get(seq, -3) == nullptr);
  std::string items;
  asdf_sequence_iter_t* sit = asdf_sequence_reverse_iter_init(seq);
  while (asdf_sequence_iter_next(&sit)) {
    REQUIRE(asdf_value_as_string0(sit->value, &s) == ASDF_VALUE_OK);
    items += std::to_string(sit->index) + s;
  }
  CHECK(items == "1c0b");
  CHECK(asdf_mapping_iter_init(reinterpret_cast<asdf_mapping_t*>(seq)) == nullptr);

  ValuePtr root(asdf_get_value(f, ""));
  CHECK(asdf_value_is_container(root.get()));
  CHECK(asdf_container_size(root.get()) > 10);
  ValuePtr text(asdf_get_value(f, "text"));
  CHECK(asdf_container_size(text.get()) == -1);
  CHECK(asdf_container_iter_init(text.get()) == nullptr);
  ValuePtr a(asdf_get_value(f, "a"));
  asdf_container_iter_t* cit = asdf_container_iter_init(a.get());
  int n = 0;
  while (asdf_container_iter_next(&cit)) {
    CHECK(cit->key == nullptr);
    CHECK(cit->index == n++);
  }
  CHECK(n == 2);

  // Search: breadth-first finds the shallowest match first; depth limits apply.
  const auto is_name_map = [](asdf_value_t* v) {
    asdf_mapping_t* mm = nullptr;
    if (asdf_value_as_mapping(v, &mm) != ASDF_VALUE_OK) return false;
    asdf_value_t* name = asdf_mapping_get(mm, "name");
    asdf_value_destroy(name);
    return name != nullptr;
  };
  ValuePtr found(asdf_value_find(root.get(), is_name_map));
  REQUIRE(found);
  CHECK(std::string(asdf_value_path(found.get())) == "/nested/list/0");
  CHECK(asdf_value_find_ex(root.get(), is_name_map, ASDF_DEPTH_FIRST, nullptr, 1) == nullptr);
  asdf_find_iter_t* fit = asdf_find_iter_init(root.get(), is_name_map);
  std::string paths;
  while (asdf_value_find_iter_next(&fit)) paths += std::string(asdf_value_path(fit->value)) + ";";
  CHECK(paths == "/nested/list/0;/nested/list/1;");
  ValuePtr by_file(asdf_file_find(f, asdf_value_is_sequence));
  REQUIRE(by_file);
  CHECK(std::string(asdf_value_path(by_file.get())) == "/a");
  CHECK(asdf_file_find(f, nullptr) == nullptr);
  asdf_find_iter_destroy(nullptr);
}

TEST_CASE("C API: building a tree and changing one read from a file", "[c_api]") {
  FilePtr file = open_text(kTree);
  REQUIRE(file);
  asdf_file_t* f = file.get();
  CHECK(asdf_set_string0(f, "added/deep/name", "value") == ASDF_VALUE_OK);
  CHECK(asdf_set_int16(f, "text", -7) == ASDF_VALUE_OK);  // replaces
  CHECK(asdf_set_string0(f, "p/q/[1]/r", "padded") == ASDF_VALUE_OK);
  CHECK(asdf_set_uint64(f, "u", UINT64_MAX) == ASDF_VALUE_OK);
  CHECK(asdf_set_null(f, "a/0") == ASDF_VALUE_OK);
  CHECK(asdf_set_double(f, "text/inside", 1.0) == ASDF_VALUE_ERR_TYPE_MISMATCH);
  CHECK(asdf_set_bool(f, "'unclosed", true) == ASDF_VALUE_ERR_NOT_FOUND);
  CHECK(asdf_error_code(f) == ASDF_ERR_INVALID_ARGUMENT);
  CHECK(asdf_set_int8(nullptr, "x", 1) == ASDF_VALUE_ERR_UNKNOWN);
  const char* s = nullptr;
  CHECK(asdf_get_string0(f, "added/deep/name", &s) == ASDF_VALUE_OK);
  CHECK(std::string(s) == "value");
  int16_t i16 = 0;
  CHECK(asdf_get_int16(f, "text", &i16) == ASDF_VALUE_OK);
  CHECK(i16 == -7);
  CHECK(asdf_is_null(f, "p/q/0"));
  CHECK(asdf_get_string0(f, "p/q/1/r", &s) == ASDF_VALUE_OK);
  CHECK(asdf_is_null(f, "a/0"));

  // Values made by the file: inserted (the tree takes them) or left for asdf_close to free.
  asdf_mapping_t* m = asdf_mapping_create(f);
  REQUIRE(m);
  CHECK(asdf_mapping_set_string0(m, "s", "x") == ASDF_VALUE_OK);
  CHECK(asdf_mapping_set_int64(m, "i", INT64_MIN) == ASDF_VALUE_OK);
  CHECK(asdf_mapping_set_float(m, "f", 0.5f) == ASDF_VALUE_OK);
  asdf_sequence_t* seq = asdf_sequence_create(f);
  CHECK(asdf_sequence_append_uint8(seq, 200) == ASDF_VALUE_OK);
  CHECK(asdf_sequence_append_string(seq, "ab", 1) == ASDF_VALUE_OK);
  CHECK(asdf_sequence_append(seq, asdf_value_of_bool(f, true)) == ASDF_VALUE_OK);
  CHECK(asdf_mapping_set_sequence(m, "list", seq) == ASDF_VALUE_OK);
  CHECK(asdf_set_mapping(f, "built", m) == ASDF_VALUE_OK);
  CHECK(asdf_get_string0(f, "built/list/1", &s) == ASDF_VALUE_OK);
  CHECK(std::string(s) == "a");
  int64_t i64 = 0;
  CHECK(asdf_get_int64(f, "built/i", &i64) == ASDF_VALUE_OK);
  CHECK(i64 == INT64_MIN);
  asdf_value_t* dangling = asdf_value_of_string0(f, "never inserted");  // freed by asdf_close
  CHECK(dangling != nullptr);
  asdf_value_t* floated = asdf_value_of_float(f, 1.5f);
  CHECK(asdf_value_get_type(floated) == ASDF_VALUE_FLOAT);
  asdf_value_destroy(floated);
  const double ds[] = {1.5, -2.0};
  asdf_sequence_t* doubles = asdf_sequence_of_double(f, ds, 2);
  CHECK(asdf_set_sequence(f, "doubles", doubles) == ASDF_VALUE_OK);
  const char* const names[] = {"x", "y"};
  CHECK(asdf_set_sequence(f, "names", asdf_sequence_of_string0(f, names, 2)) == ASDF_VALUE_OK);
  CHECK(asdf_sequence_of_int8(nullptr, nullptr, 0) == nullptr);

  asdf_mapping_t* root = nullptr;
  REQUIRE(asdf_get_mapping(f, "", &root) == ASDF_VALUE_OK);
  ValuePtr root_owner(asdf_value_of_mapping(root));
  ValuePtr popped(asdf_mapping_pop(root, "negative"));
  REQUIRE(popped);
  CHECK(asdf_value_path(popped.get()) == nullptr);  // no longer in the tree
  CHECK_FALSE(asdf_is_int(f, "negative"));
  asdf_sequence_t* names_seq = nullptr;
  REQUIRE(asdf_get_sequence(f, "names", &names_seq) == ASDF_VALUE_OK);
  ValuePtr names_owner(asdf_value_of_sequence(names_seq));
  ValuePtr first(asdf_sequence_pop(names_seq, 0));
  CHECK(asdf_sequence_size(names_seq) == 1);
  CHECK(asdf_sequence_pop(names_seq, 5) == nullptr);
  asdf_mapping_t* update = asdf_mapping_create(f);
  asdf_mapping_set_int8(update, "small", -1);
  CHECK(asdf_mapping_update(root, update) == ASDF_VALUE_OK);
  asdf_mapping_destroy(update);
  int8_t i8 = 0;
  CHECK(asdf_get_int8(f, "small", &i8) == ASDF_VALUE_OK);
  CHECK(i8 == -1);
  CHECK(asdf_sequence_append_null(nullptr) == ASDF_VALUE_ERR_UNKNOWN);
  CHECK(asdf_mapping_set_null(nullptr, "k") == ASDF_VALUE_ERR_UNKNOWN);

  // Replacing the root needs a mapping.
  CHECK(asdf_set_value(f, "", asdf_value_of_int8(f, 1)) == ASDF_VALUE_ERR_TYPE_MISMATCH);
  asdf_mapping_t* new_root = asdf_mapping_create(f);
  asdf_mapping_set_string0(new_root, "only", "this");
  CHECK(asdf_set_mapping(f, "", new_root) == ASDF_VALUE_OK);
  CHECK(asdf_get_string0(f, "only", &s) == ASDF_VALUE_OK);
  CHECK_FALSE(asdf_is_string(f, "text"));
}
