#pragma once
// Helpers shared by the tests of the public API (asdfcore/asdfcore.h): little-endian MD5 of
// typed elements (the corpus convention), deterministic sample values, and one run of
// tests/interop/api_check.py (python asdf 2.14) over many files.
#include <algorithm>
#include <bit>
#include <complex>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "asdfcore/asdfcore.h"
#include "asdfcore/compression/md5.h"
#include "support/catch.h"
#include "support/paths.h"
#include "support/run.h"

namespace fitsasdf::test::api {

/// The warning python asdf 2.14 gives for every file with an ndarray-1.1.0 node (ASDF
/// Standard 1.6.0): it ships no schema for that tag.
inline const std::string kNdarray11Warning =
    "Unable to locate schema file for 'tag:stsci.edu:asdf/core/ndarray-1.1.0'";

/// Return the hex MD5 of `bytes`.
inline std::string md5_hex(std::span<const std::uint8_t> bytes) {
  return asdfcore::compression::to_hex(asdfcore::compression::md5(bytes));
}

/// Append the bytes of `v` little-endian (complex: real then imaginary; bool: one byte).
template <typename T>
void put_le(std::vector<std::uint8_t>& out, const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    out.push_back(v ? 1 : 0);
  } else if constexpr (std::is_same_v<T, asdfcore::ndarray::Float16>) {
    put_le(out, v.bits);
  } else if constexpr (std::is_same_v<T, std::complex<float>> ||
                       std::is_same_v<T, std::complex<double>>) {
    put_le(out, v.real());
    put_le(out, v.imag());
  } else {
    std::uint8_t b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    if constexpr (std::endian::native == std::endian::big) std::reverse(b, b + sizeof(T));
    out.insert(out.end(), b, b + sizeof(T));
  }
}

/// Return the hex MD5 of `values` as little-endian bytes in order.
template <typename T>
std::string le_md5(const std::vector<T>& values) {
  std::vector<std::uint8_t> bytes;
  for (const T& v : values) put_le(bytes, v);
  return md5_hex(bytes);
}

/// Return sample `i` of `T`: edge values first, then a spread of others.
template <typename T>
T sample(std::uint64_t i) {
  if constexpr (std::is_same_v<T, bool>) {
    return i % 3 == 1;
  } else if constexpr (std::is_same_v<T, asdfcore::ndarray::Float16>) {
    return asdfcore::ndarray::Float16{
        asdfcore::ndarray::double_to_float16(static_cast<double>(i % 97) * 0.5 - 7.0)};
  } else if constexpr (std::is_integral_v<T>) {
    using L = std::numeric_limits<T>;
    const T edges[] = {L::min(), L::max(), T(0), T(1)};
    if (i < 4) return edges[i];
    return static_cast<T>((i * 0x9e3779b97f4a7c15ull) >> 17);
  } else if constexpr (std::is_floating_point_v<T>) {
    using L = std::numeric_limits<T>;
    const T edges[] = {T(0), T(-0.0), L::max(), L::lowest(), L::denorm_min(), L::infinity()};
    if (i < 6) return edges[i];
    return static_cast<T>(static_cast<double>(i) * 0.731 - 17.0);
  } else {
    using F = typename T::value_type;
    return T(sample<F>(i), sample<F>(i + 7));
  }
}

/// Return `n` samples of `T`.
template <typename T>
std::vector<T> samples(std::uint64_t n, std::uint64_t first = 0) {
  std::vector<T> out;
  out.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) out.push_back(sample<T>(first + i));
  return out;
}

/// Run tests/interop/api_check.py on `files` (one python process), allowing the warnings
/// whose messages start with one of `allowed`; return its JSON ({file: record}).
inline nlohmann::json python_read(const std::vector<std::filesystem::path>& files,
                                  const std::vector<std::string>& allowed = {}) {
  std::vector<std::string> argv{reference_python(), (scripts_dir() / "api_check.py").string()};
  for (const std::string& a : allowed) {
    argv.push_back("--allow");
    argv.push_back(a);
  }
  for (const auto& f : files) argv.push_back(f.string());
  const RunResult r = run(argv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return nlohmann::json::parse(r.out);
}

/// Return the record of `file` in python's answer, REQUIRing that python read it.
inline const nlohmann::json& python_record(const nlohmann::json& all,
                                           const std::filesystem::path& file) {
  const nlohmann::json& rec = all.at(file.string());
  INFO(file.string() << ": " << rec.dump().substr(0, 2000));
  REQUIRE_FALSE(rec.contains("error"));
  return rec;
}

/// Return the names of the entries of `dir`, sorted (to check that nothing was left behind).
inline std::vector<std::string> folder(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace fitsasdf::test::api
