#pragma once
/// \file
/// MD5 digests for block checksums.

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace asdfcore::compression {

/// A 16-byte MD5 digest.
using Md5Digest = std::array<std::uint8_t, 16>;

/// Incremental MD5: feed bytes with `update`, read the digest with `finish`.
class Md5 {
 public:
  Md5();
  ~Md5();
  /// Take over the state of the moved-from object, which may then only be destroyed or assigned.
  Md5(Md5&&) noexcept;
  /// Take over the state of the moved-from object, dropping this one's.
  Md5& operator=(Md5&&) noexcept;
  Md5(const Md5&) = delete;
  Md5& operator=(const Md5&) = delete;

  /// Add `bytes` to the digest.
  void update(std::span<const std::uint8_t> bytes);
  /// Return the digest of everything added; the object must not be updated afterwards.
  Md5Digest finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Return the MD5 digest of `bytes`.
Md5Digest md5(std::span<const std::uint8_t> bytes);

/// Return `digest` as 32 lower-case hex digits.
std::string to_hex(std::span<const std::uint8_t> digest);

}  // namespace asdfcore::compression
