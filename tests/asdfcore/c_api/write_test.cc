// libasdf's C API, writing: new files and changed ones, to a path, a stream and memory, read
// back by python asdf 2.14 with validation on and no warning; the core metadata getters; and
// fitsasdf's C conversion functions.
#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "asdfcore/api/api_support.h"
#include "asdfcore/version.h"
#include "asdfcore/c_api/c_api_support.h"
#include "fitsasdf/c/convert.h"
#include "support/catch.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace fitsasdf::test::capi;
using fitsasdf::test::TempDir;
using fitsasdf::test::api::python_read;

namespace {

/// Fill `file` with metadata and arrays through the C API; the ndarray structs are the caller's.
void build(asdf_file_t* f, asdf_ndarray_t& image, asdf_ndarray_t& flags) {
  REQUIRE(asdf_set_string0(f, "meta/instrument/name", "NIRCAM") == ASDF_VALUE_OK);
  REQUIRE(asdf_set_double(f, "meta/exptime", 1374.25) == ASDF_VALUE_OK);
  REQUIRE(asdf_set_uint64(f, "meta/big", UINT64_MAX) == ASDF_VALUE_OK);
  REQUIRE(asdf_set_int8(f, "meta/list/[2]", -3) == ASDF_VALUE_OK);
  REQUIRE(asdf_set_bool(f, "meta/ok", true) == ASDF_VALUE_OK);
  REQUIRE(asdf_set_string(f, "meta/with\\/slash", "abc", 2) == ASDF_VALUE_OK);
  static const std::uint64_t image_shape[] = {3, 4};
  image = asdf_ndarray_t{};
  image.datatype.type = ASDF_DATATYPE_FLOAT32;
  image.byteorder = ASDF_BYTEORDER_LITTLE;
  image.ndim = 2;
  image.shape = image_shape;
  auto* px = static_cast<float*>(asdf_ndarray_data_alloc(&image));
  REQUIRE(px);
  CHECK(asdf_ndarray_data_alloc(&image) == px);  // the same buffer again
  for (int i = 0; i < 12; ++i) px[i] = 0.25f * static_cast<float>(i);
  CHECK(asdf_ndarray_compression_set(&image, "bogus") != 0);
  CHECK(asdf_ndarray_compression_set(&image, "lz4") == 0);
  REQUIRE(asdf_set_ndarray(f, "sci", &image) == ASDF_VALUE_OK);
  static const std::uint64_t flag_shape[] = {4};
  flags = asdf_ndarray_t{};
  flags.datatype.type = ASDF_DATATYPE_UINT16;
  flags.byteorder = ASDF_BYTEORDER_BIG;
  flags.ndim = 1;
  flags.shape = flag_shape;
  const std::uint8_t be[] = {0, 1, 0, 2, 1, 0, 0xff, 0xff};  // 1, 2, 256, 65535 big-endian
  REQUIRE(asdf_ndarray_data_copy(&flags, be) == ASDF_NDARRAY_OK);
  asdf_value_t* v = asdf_value_of_ndarray(f, &flags);
  REQUIRE(v);
  REQUIRE(asdf_set_value(f, "dq", v) == ASDF_VALUE_OK);
  REQUIRE(asdf_history_entry_add(f, "built by the C API test") == 0);
}

}  // namespace

TEST_CASE("C API: a new file written to a path, a stream and memory opens in python asdf", "[c_api][interop]") {
  TempDir dir;
  const std::string to_path = (dir.path() / "path.asdf").string();
  const std::string to_stream = (dir.path() / "stream.asdf").string();
  const std::string to_memory = (dir.path() / "memory.asdf").string();
  asdf_ndarray_t image, flags;
  {
    FilePtr file(asdf_open_mem(nullptr, 0));
    REQUIRE(file);
    build(file.get(), image, flags);
    REQUIRE(asdf_write_to_file(file.get(), to_path.c_str()) == 0);
    FILE* fp = std::fopen(to_stream.c_str(), "wb");
    REQUIRE(fp);
    CHECK(asdf_write_to_fp(file.get(), fp) == 0);
    std::fclose(fp);
    void* buf = nullptr;
    size_t size = 0;
    REQUIRE(asdf_write_to_mem(file.get(), &buf, &size) == 0);
    BufferPtr owner(buf);
    FILE* out = std::fopen(to_memory.c_str(), "wb");
    std::fwrite(buf, 1, size, out);
    std::fclose(out);
    // A buffer of the caller's that is too small: an error, and the size that fitted.
    std::vector<char> small(100);
    void* small_buf = small.data();
    size_t small_size = small.size();
    CHECK(asdf_write_to_mem(file.get(), &small_buf, &small_size) != 0);
    CHECK(std::string(asdf_error(file.get())).find("too small") != std::string::npos);
    std::vector<char> enough(size + 10);
    void* enough_buf = enough.data();
    size_t enough_size = enough.size();
    CHECK(asdf_write_to_mem(file.get(), &enough_buf, &enough_size) == 0);
    CHECK(enough_size == size);
    CHECK(asdf_write_to_file(file.get(), (dir.path() / "no/such/folder/x.asdf").c_str()) != 0);
    CHECK(asdf_error_code(file.get()) == ASDF_ERR_SYSTEM);
    CHECK(asdf_write_to_mem(file.get(), nullptr, nullptr) != 0);
  }
  // After asdf_close: the caller's structs still release their buffers safely.
  asdf_ndarray_data_dealloc(&image);
  asdf_ndarray_data_dealloc(&flags);

  const nlohmann::json read = python_read({to_path, to_stream, to_memory});
  for (const std::string& path : {to_path, to_stream, to_memory}) {
    const nlohmann::json& rec = read[path];
    INFO(path << ": " << rec.dump().substr(0, 2000));
    REQUIRE_FALSE(rec.contains("error"));
    CHECK(rec["warnings"].empty());
    const nlohmann::json& tree = rec["tree"];
    CHECK(tree["meta"]["instrument"]["name"] == "NIRCAM");
    CHECK(tree["meta"]["exptime"] == 1374.25);
    CHECK(tree["meta"]["big"] == nlohmann::json{{"$int", "18446744073709551615"}});
    CHECK(tree["meta"]["list"] == nlohmann::json::parse("[null, null, -3]"));
    CHECK(tree["meta"]["ok"] == true);
    CHECK(tree["meta"]["with/slash"] == "ab");
    CHECK(tree["sci"]["$array"]["shape"] == nlohmann::json::parse("[3, 4]"));
    CHECK(tree["sci"]["$array"]["dtype"] == "<f4");
    std::vector<float> px(12);
    for (int i = 0; i < 12; ++i) px[i] = 0.25f * static_cast<float>(i);
    CHECK(tree["sci"]["$array"]["md5"] == fitsasdf::test::api::le_md5(px));
    CHECK(tree["dq"]["$array"]["dtype"] == ">u2");
    CHECK(tree["dq"]["$array"]["md5"] ==
          fitsasdf::test::api::le_md5(std::vector<std::uint16_t>{1, 2, 256, 65535}));
  }
  // The history entry (api_check.py leaves the library's metadata out of its tree).
  FilePtr back(asdf_open_file(to_path.c_str(), "r"));
  REQUIRE(back);
  const char* description = nullptr;
  CHECK(asdf_get_string0(back.get(), "history/entries/0/description", &description) == ASDF_VALUE_OK);
  CHECK(std::string(description ? description : "") == "built by the C API test");
}

TEST_CASE("C API: a file opened \"w\" is written when closed", "[c_api][interop]") {
  TempDir dir;
  const std::string path = (dir.path() / "w.asdf").string();
  asdf_file_t* f = asdf_open_file(path.c_str(), "w");
  REQUIRE(f);
  REQUIRE(asdf_set_string0(f, "greeting", "hello") == ASDF_VALUE_OK);
  asdf_close(f);
  const nlohmann::json read = python_read({path});
  INFO(read.dump().substr(0, 1000));
  CHECK(read[path]["tree"]["greeting"] == "hello");
  CHECK(read[path]["warnings"].empty());
}

TEST_CASE("C API: a file read, changed and written elsewhere keeps its arrays", "[c_api][interop]") {
  TempDir dir;
  const std::string source = (fitsasdf::test::samples_dir() / "jwst_like.asdf").string();
  const std::string changed = (dir.path() / "changed.asdf").string();
  const std::string copied = (dir.path() / "copied.asdf").string();
  {
    FilePtr in(asdf_open_file(source.c_str(), "r"));
    REQUIRE(in);
    CHECK(asdf_set_string0(in.get(), "meta/instrument/name", "MIRI") == ASDF_VALUE_OK);
    asdf_mapping_t* meta = nullptr;
    REQUIRE(asdf_get_mapping(in.get(), "meta", &meta) == ASDF_VALUE_OK);
    CHECK(asdf_mapping_set_string0(meta, "added", "yes") == ASDF_VALUE_OK);
    asdf_mapping_destroy(meta);
    REQUIRE(asdf_write_to_file(in.get(), changed.c_str()) == 0);

    // An array read from one file, set into a new one (its bytes copied at the write). Its
    // codec is kept: python asdf 2.14 checks the MD5 of decoded data, fitsasdf writes the
    // standard's (of the stored bytes), so a compressed copy would fail its checksum check.
    FilePtr out(asdf_open_mem(nullptr, 0));
    asdf_ndarray_t* data = nullptr;
    REQUIRE(asdf_get_ndarray(in.get(), "data", &data) == ASDF_VALUE_OK);
    NdarrayPtr owner(data);
    REQUIRE(asdf_set_ndarray(out.get(), "copy", data) == ASDF_VALUE_OK);
    // A value of one file set into another: its ndarrays go with their data.
    REQUIRE(asdf_set_value(out.get(), "from_value/dq", asdf_get_value(in.get(), "dq")) == ASDF_VALUE_OK);
    asdf_mapping_t* holder = asdf_mapping_create(out.get());
    REQUIRE(asdf_mapping_set(holder, "err", asdf_get_value(in.get(), "err")) == ASDF_VALUE_OK);
    REQUIRE(asdf_set_mapping(out.get(), "held", holder) == ASDF_VALUE_OK);
    // Records cannot be written through the C API: a clear error.
    asdf_ndarray_t record{};
    record.datatype.type = ASDF_DATATYPE_STRUCTURED;
    CHECK(asdf_set_ndarray(out.get(), "record", &record) == ASDF_VALUE_ERR_EMIT_FAILURE);
    CHECK(std::string(asdf_error(out.get())).find("no data") != std::string::npos);
    static const std::uint64_t one[] = {1};
    record.ndim = 1;
    record.shape = one;
    record.datatype.size = 8;
    REQUIRE(asdf_ndarray_data_alloc(&record) != nullptr);
    CHECK(asdf_set_ndarray(out.get(), "record", &record) == ASDF_VALUE_ERR_EMIT_FAILURE);
    CHECK(std::string(asdf_error(out.get())).find("records are not supported") != std::string::npos);
    asdf_ndarray_data_dealloc(&record);
    REQUIRE(asdf_write_to_file(out.get(), copied.c_str()) == 0);
  }
  const nlohmann::json read = python_read({source, changed, copied});
  INFO(read.dump().substr(0, 3000));
  const nlohmann::json& before = read[source]["tree"];
  const nlohmann::json& after = read[changed]["tree"];
  CHECK(read[changed]["warnings"].empty());
  CHECK(after["meta"]["instrument"]["name"] == "MIRI");
  CHECK(after["meta"]["added"] == "yes");
  for (const char* key : {"data", "dq", "err"}) {
    CHECK(after[key]["$array"]["md5"] == before[key]["$array"]["md5"]);
  }
  CHECK(read[copied]["tree"]["copy"]["$array"]["md5"] == before["data"]["$array"]["md5"]);
  CHECK(read[copied]["tree"]["from_value"]["dq"]["$array"]["md5"] == before["dq"]["$array"]["md5"]);
  CHECK(read[copied]["tree"]["held"]["err"]["$array"]["md5"] == before["err"]["$array"]["md5"]);
  CHECK(read[copied]["warnings"].empty());
}

TEST_CASE("C API: asdf_get_meta, software records and history entries", "[c_api]") {
  const std::string path = (fitsasdf::test::samples_dir() / "jwst_like.asdf").string();
  FilePtr file(asdf_open_file(path.c_str(), "r"));
  REQUIRE(file);
  asdf_meta_t* meta = nullptr;
  REQUIRE(asdf_get_meta(file.get(), "", &meta) == ASDF_VALUE_OK);
  REQUIRE(meta->asdf_library);
  CHECK(std::string(meta->asdf_library->name) == "asdf");
  CHECK(meta->asdf_library->version->major == 2);
  REQUIRE(meta->history.entries);
  REQUIRE(meta->history.extensions);
  int extensions = 0;
  for (auto e = meta->history.extensions; *e; ++e) {
    CHECK((*e)->extension_class != nullptr);
    ++extensions;
  }
  CHECK(extensions >= 1);
  asdf_meta_destroy(meta);
  asdf_meta_destroy(nullptr);

  asdf_software_t* sw = nullptr;
  REQUIRE(asdf_get_software(file.get(), "asdf_library", &sw) == ASDF_VALUE_OK);
  CHECK(std::string(sw->name) == "asdf");
  CHECK(sw->homepage != nullptr);
  asdf_software_destroy(sw);
  CHECK(asdf_get_software(file.get(), "meta/exposure/exptime", &sw) == ASDF_VALUE_ERR_TYPE_MISMATCH);
  CHECK(asdf_get_software(file.get(), "nope", &sw) == ASDF_VALUE_ERR_NOT_FOUND);

  // A history entry added here reads back, time included.
  REQUIRE(asdf_history_entry_add(file.get(), "looked at") == 0);
  asdf_history_entry_t* entry = nullptr;
  REQUIRE(asdf_get_history_entry(file.get(), "history/entries/-1", &entry) == ASDF_VALUE_OK);
  CHECK(std::string(entry->description) == "looked at");
  REQUIRE(entry->time);
  CHECK(entry->time->info.ts.tv_sec > 1700000000);
  REQUIRE(entry->software[0]);
  CHECK(std::string(entry->software[0]->name) == "fitsasdf");
  CHECK(entry->software[1] == nullptr);
  asdf_history_entry_destroy(entry);

  asdf_version_t* v = asdf_version_parse("1.2.3.dev4");
  REQUIRE(v);
  CHECK(v->major == 1);
  CHECK(v->patch == 3);
  CHECK(std::string(v->extra) == "dev4");
  asdf_version_t* copy = asdf_version_copy(v);
  CHECK(std::string(copy->version) == "1.2.3.dev4");
  asdf_version_destroy(copy);
  asdf_version_destroy(v);
  asdf_tag_t* tag = asdf_tag_parse("tag:stsci.edu:asdf/core/ndarray-1.1.0");
  REQUIRE(tag);
  CHECK(std::string(tag->name) == "tag:stsci.edu:asdf/core/ndarray");
  CHECK(tag->version->minor == 1);
  asdf_tag_destroy(tag);
  CHECK(std::string(libasdf_software.name) == "fitsasdf");
  CHECK(std::string(libasdf_software.version->version) == asdfcore::kVersion);
  CHECK(std::to_string(libasdf_version.major) + "." + std::to_string(libasdf_version.minor) + "." +
            std::to_string(libasdf_version.patch) == asdfcore::kVersion);
  CHECK(std::string(asdf_scalar_datatype_to_string(ASDF_DATATYPE_UCS4)) == "ucs4");
  CHECK(asdf_scalar_datatype_from_string("complex128") == ASDF_DATATYPE_COMPLEX128);
  CHECK(asdf_scalar_datatype_from_string("int7") == ASDF_DATATYPE_UNKNOWN);
  asdf_datatype_t dt{};
  dt.type = ASDF_DATATYPE_FLOAT64;
  CHECK(asdf_datatype_size(&dt) == 8);
  CHECK(dt.size == 8);
}

TEST_CASE("C API: fitsasdf_convert and fitsasdf_verify", "[c_api]") {
  TempDir dir;
  const std::string fits = (fitsasdf::test::samples_dir() / "test0.fits").string();
  const std::string asdf = (dir.path() / "test0.asdf").string();
  const std::string back = (dir.path() / "back.fits").string();
  char* message = nullptr;
  REQUIRE(fitsasdf_convert(fits.c_str(), asdf.c_str(), &message) == FITSASDF_OK);
  CHECK(message == nullptr);
  REQUIRE(fitsasdf_convert(asdf.c_str(), back.c_str(), nullptr) == FITSASDF_OK);
  CHECK(fitsasdf_verify(fits.c_str(), asdf.c_str(), &message) == FITSASDF_OK);
  CHECK(fitsasdf_verify(fits.c_str(), nullptr, nullptr) == FITSASDF_OK);
  CHECK(fitsasdf_verify(fits.c_str(), back.c_str(), nullptr) == FITSASDF_OK);
  const std::string missing = (dir.path() / "missing.fits").string();
  CHECK(fitsasdf_convert(missing.c_str(), asdf.c_str(), &message) == FITSASDF_ERROR);
  REQUIRE(message);
  CHECK(std::string(message).find("missing.fits") != std::string::npos);
  std::free(message);
  CHECK(fitsasdf_convert(nullptr, nullptr, nullptr) == FITSASDF_ERROR);
  // Default names: FITS -> name.asdf; back to FITS refuses to overwrite name.fits.
  const std::string named = (dir.path() / "named.fits").string();
  std::filesystem::copy_file(fits, named);
  REQUIRE(fitsasdf_convert(named.c_str(), nullptr, nullptr) == FITSASDF_OK);
  const std::string named_asdf = (dir.path() / "named.asdf").string();
  REQUIRE(std::filesystem::exists(named_asdf));
  const auto before = std::filesystem::file_size(named);
  CHECK(fitsasdf_convert(named_asdf.c_str(), nullptr, &message) == FITSASDF_ERROR);
  REQUIRE(message);
  CHECK(std::string(message).find("exists") != std::string::npos);
  std::free(message);
  CHECK(std::filesystem::file_size(named) == before);
  CHECK(fitsasdf_verify(named.c_str(), named_asdf.c_str(), nullptr) == FITSASDF_OK);
  // A different file is reported as such.
  const std::string other = (fitsasdf::test::corpus_dir() / "fits-astropy" / "arange.fits").string();
  CHECK(fitsasdf_verify(fits.c_str(), other.c_str(), &message) == FITSASDF_DIFFERENT);
  REQUIRE(message);
  CHECK(std::string(message).find("differ") != std::string::npos);
  std::free(message);
}
