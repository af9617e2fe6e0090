#include "asdfcore/compression/md5.h"

#include <openssl/evp.h>

#include "asdfcore/error.h"

namespace asdfcore::compression {

struct Md5::State {
  EVP_MD_CTX* ctx = nullptr;
  ~State() { EVP_MD_CTX_free(ctx); }
};

Md5::Md5() : state_(std::make_unique<State>()) {
  state_->ctx = EVP_MD_CTX_new();
  if (state_->ctx == nullptr || EVP_DigestInit_ex(state_->ctx, EVP_md5(), nullptr) != 1) {
    throw Error(ErrorCode::kIo, "OpenSSL cannot start an MD5 digest");
  }
}
Md5::~Md5() = default;
Md5::Md5(Md5&&) noexcept = default;
Md5& Md5::operator=(Md5&&) noexcept = default;

void Md5::update(std::span<const std::uint8_t> bytes) {
  if (!bytes.empty()) EVP_DigestUpdate(state_->ctx, bytes.data(), bytes.size());
}

Md5Digest Md5::finish() {
  Md5Digest digest{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(state_->ctx, digest.data(), &length);
  return digest;
}

Md5Digest md5(std::span<const std::uint8_t> bytes) {
  Md5 h;
  h.update(bytes);
  return h.finish();
}

std::string to_hex(std::span<const std::uint8_t> digest) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(digest.size() * 2);
  for (std::uint8_t b : digest) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

}  // namespace asdfcore::compression
