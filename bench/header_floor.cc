// The floor of the bench's small-file jobs ("200 extensions", "5000-card header") for any FITS to
// ASDF converter built on CFITSIO and libyaml, as fitsasdf is: open the file with CFITSIO, read
// every HDU's cards with it, split each into keyword, value and comment (CFITSIO's own
// parsing), hand libyaml a block list of [keyword, value, comment] flow lists, one a card, and
// copy each HDU's data bytes after the YAML. No types, no checksums, no fsync, no rename, no
// tree, no card images kept: less than any converter that writes a file python asdf can read
// must do. Its time against fitscopy's says whether "at or below fitscopy" is within reach of
// these two libraries at all (bench/README.md, "Many blocks, small files and short jobs").
//
// Usage: fitsasdf_bench_header_floor IN.fits OUT
#include <fitsio.h>
#include <yaml.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

int to_file(void* file, unsigned char* buffer, std::size_t size) {
  return std::fwrite(buffer, 1, size, static_cast<std::FILE*>(file)) == size ? 1 : 0;
}

bool emit(yaml_emitter_t& emitter, yaml_event_t& event) {
  return yaml_emitter_emit(&emitter, &event) != 0;
}

bool scalar(yaml_emitter_t& emitter, const char* text) {
  yaml_event_t event;
  yaml_scalar_event_initialize(&event, nullptr, nullptr,
                               reinterpret_cast<yaml_char_t*>(const_cast<char*>(text)),
                               static_cast<int>(std::strlen(text)), 1, 1, YAML_ANY_SCALAR_STYLE);
  return emit(emitter, event);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: fitsasdf_bench_header_floor IN.fits OUT\n");
    return 4;
  }
  fitsfile* in = nullptr;
  int status = 0;
  if (fits_open_file(&in, argv[1], READONLY, &status) != 0) {
    fits_report_error(stderr, status);
    return 2;
  }
  std::FILE* out = std::fopen(argv[2], "wb");
  if (out == nullptr) {
    std::perror(argv[2]);
    return 2;
  }
  int hdus = 0;
  fits_get_num_hdus(in, &hdus, &status);
  yaml_emitter_t emitter;
  yaml_emitter_initialize(&emitter);
  yaml_emitter_set_output(&emitter, to_file, out);
  yaml_emitter_set_unicode(&emitter, 1);
  yaml_event_t event;
  bool ok = true;
  yaml_stream_start_event_initialize(&event, YAML_UTF8_ENCODING);
  ok = ok && emit(emitter, event);
  yaml_document_start_event_initialize(&event, nullptr, nullptr, nullptr, 0);
  ok = ok && emit(emitter, event);
  yaml_sequence_start_event_initialize(&event, nullptr, nullptr, 1, YAML_BLOCK_SEQUENCE_STYLE);
  ok = ok && emit(emitter, event);
  std::vector<LONGLONG> data_start(static_cast<std::size_t>(hdus));
  std::vector<LONGLONG> data_end(static_cast<std::size_t>(hdus));
  for (int h = 1; h <= hdus && ok && status == 0; ++h) {
    fits_movabs_hdu(in, h, nullptr, &status);
    int cards = 0;
    fits_get_hdrspace(in, &cards, nullptr, &status);
    LONGLONG head = 0;
    fits_get_hduaddrll(in, &head, &data_start[h - 1], &data_end[h - 1], &status);
    yaml_sequence_start_event_initialize(&event, nullptr, nullptr, 1, YAML_BLOCK_SEQUENCE_STYLE);
    ok = ok && emit(emitter, event);
    char card[FLEN_CARD], keyword[FLEN_KEYWORD], value[FLEN_VALUE], comment[FLEN_COMMENT];
    for (int k = 1; k <= cards && ok && status == 0; ++k) {
      int length = 0;
      fits_read_record(in, k, card, &status);
      fits_get_keyname(card, keyword, &length, &status);
      fits_parse_value(card, value, comment, &status);
      yaml_sequence_start_event_initialize(&event, nullptr, nullptr, 1, YAML_FLOW_SEQUENCE_STYLE);
      ok = ok && emit(emitter, event) && scalar(emitter, keyword) && scalar(emitter, value) &&
           (comment[0] == '\0' || scalar(emitter, comment));
      yaml_sequence_end_event_initialize(&event);
      ok = ok && emit(emitter, event);
    }
    yaml_sequence_end_event_initialize(&event);
    ok = ok && emit(emitter, event);
  }
  yaml_sequence_end_event_initialize(&event);
  ok = ok && emit(emitter, event);
  yaml_document_end_event_initialize(&event, 0);
  ok = ok && emit(emitter, event);
  yaml_stream_end_event_initialize(&event);
  ok = ok && emit(emitter, event) && yaml_emitter_flush(&emitter) != 0;
  yaml_emitter_delete(&emitter);
  fits_close_file(in, &status);
  // The data, each HDU's bytes as stored, read as plain file bytes.
  std::FILE* raw = std::fopen(argv[1], "rb");
  std::vector<char> buffer;
  for (int h = 0; h < hdus && ok && raw != nullptr; ++h) {
    buffer.resize(static_cast<std::size_t>(data_end[h] - data_start[h]));
    ok = std::fseek(raw, static_cast<long>(data_start[h]), SEEK_SET) == 0 &&
         std::fread(buffer.data(), 1, buffer.size(), raw) == buffer.size() &&
         std::fwrite(buffer.data(), 1, buffer.size(), out) == buffer.size();
  }
  if (raw != nullptr) std::fclose(raw);
  ok = std::fclose(out) == 0 && ok && raw != nullptr;
  if (status != 0) fits_report_error(stderr, status);
  if (!ok) std::fprintf(stderr, "fitsasdf_bench_header_floor: cannot write %s\n", argv[2]);
  return ok && status == 0 ? 0 : 2;
}
