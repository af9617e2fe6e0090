// The floor of the bench's small-file jobs ("200 extensions", "5000-card header") for any FITS to
// ASDF converter built on CFITSIO and libyaml, as fitsasdf is: open the file with CFITSIO, read
// every HDU's cards with it, split each into keyword, value and comment (CFITSIO's own
// parsing), hand libyaml a block list of [keyword, value, comment] flow lists, one a card, and
// copy each HDU's data bytes after the YAML. No types, no checksums, no fsync, no rename, no
// tree, no card images kept: less than any converter that writes a file python asdf can read
// must do. Its time against fitscopy's says whether "at or below fitscopy" is within reach of
// these two libraries at all (bench/README.md, "Many blocks, small files and short jobs").
//
// With --md5 it also computes each HDU's data MD5 (OpenSSL, as fitsasdf's block checksums, on by
// default), on two threads that start before the cards are read: the same floor with the
// checksums a converter cannot leave out, at its most favourable.
//
// Usage: fitsasdf_bench_header_floor [--md5] IN.fits OUT
#include <fitsio.h>
#include <openssl/evp.h>
#include <yaml.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
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

/// Each HDU's data bytes (`pieces`) hashed with MD5 by two threads, each taking the next piece.
class Hashers {
 public:
  explicit Hashers(const std::vector<std::vector<unsigned char>>& pieces) : pieces_(pieces) {
    for (int t = 0; t < 2; ++t) threads_.emplace_back([this] { work(); });
  }
  /// Wait for both; false when OpenSSL failed on a piece.
  bool join() {
    for (auto& t : threads_) t.join();
    return ok_;
  }

 private:
  void work() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    for (std::size_t k = next_++; k < pieces_.size(); k = next_++) {
      if (EVP_Digest(pieces_[k].data(), pieces_[k].size(), digest, &length, EVP_md5(), nullptr) !=
          1) {
        ok_ = false;
      }
    }
  }
  const std::vector<std::vector<unsigned char>>& pieces_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> ok_{true};
  std::vector<std::thread> threads_;
};

int main(int argc, char** argv) {
  const bool md5 = argc == 4 && std::string(argv[1]) == "--md5";
  if (argc != 3 && !md5) {
    std::fprintf(stderr, "usage: fitsasdf_bench_header_floor [--md5] IN.fits OUT\n");
    return 4;
  }
  if (md5) ++argv;
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
  // Where each HDU's data are, found first so that with --md5 their hashing starts at once.
  std::vector<LONGLONG> data_start(static_cast<std::size_t>(hdus));
  std::vector<LONGLONG> data_end(static_cast<std::size_t>(hdus));
  for (int h = 1; h <= hdus && status == 0; ++h) {
    LONGLONG head = 0;
    fits_movabs_hdu(in, h, nullptr, &status);
    fits_get_hduaddrll(in, &head, &data_start[h - 1], &data_end[h - 1], &status);
  }
  // The data, each HDU's bytes as stored, read as plain file bytes.
  std::vector<std::vector<unsigned char>> data(static_cast<std::size_t>(hdus));
  bool ok = true;
  std::FILE* raw = std::fopen(argv[1], "rb");
  for (int h = 0; h < hdus && ok && raw != nullptr; ++h) {
    data[h].resize(static_cast<std::size_t>(data_end[h] - data_start[h]));
    ok = std::fseek(raw, static_cast<long>(data_start[h]), SEEK_SET) == 0 &&
         std::fread(data[h].data(), 1, data[h].size(), raw) == data[h].size();
  }
  ok = ok && raw != nullptr;
  if (raw != nullptr) std::fclose(raw);
  std::optional<Hashers> hashers;
  if (md5 && ok) hashers.emplace(data);
  yaml_emitter_t emitter;
  yaml_emitter_initialize(&emitter);
  yaml_emitter_set_output(&emitter, to_file, out);
  yaml_emitter_set_unicode(&emitter, 1);
  yaml_event_t event;
  yaml_stream_start_event_initialize(&event, YAML_UTF8_ENCODING);
  ok = ok && emit(emitter, event);
  yaml_document_start_event_initialize(&event, nullptr, nullptr, nullptr, 0);
  ok = ok && emit(emitter, event);
  yaml_sequence_start_event_initialize(&event, nullptr, nullptr, 1, YAML_BLOCK_SEQUENCE_STYLE);
  ok = ok && emit(emitter, event);
  for (int h = 1; h <= hdus && ok && status == 0; ++h) {
    fits_movabs_hdu(in, h, nullptr, &status);
    int cards = 0;
    fits_get_hdrspace(in, &cards, nullptr, &status);
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
  for (const auto& piece : data) {
    ok = ok && std::fwrite(piece.data(), 1, piece.size(), out) == piece.size();
  }
  if (hashers && !hashers->join()) ok = false;
  ok = std::fclose(out) == 0 && ok;
  if (status != 0) fits_report_error(stderr, status);
  if (!ok) std::fprintf(stderr, "fitsasdf_bench_header_floor: cannot write %s\n", argv[2]);
  return ok && status == 0 ? 0 : 2;
}
