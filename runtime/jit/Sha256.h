// SHA-256 (FIPS 180-4), for the kernel cache: the key of an entry is the hash of everything
// that determines its CUBIN, and every entry on disk carries the hash of its payload. A small
// self-contained implementation, so the cache needs no crypto library.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fp8c {

/// Incremental SHA-256: update() any number of times, then digest() once.
class Sha256 {
public:
  using Digest = std::array<uint8_t, 32>;

  Sha256();
  void update(const void *data, size_t size);
  void update(std::string_view s) { update(s.data(), s.size()); }
  /// Appends the length (8 bytes, little-endian) and then the bytes, so that a sequence of
  /// fields hashes unambiguously ("ab","c" differs from "a","bc").
  void updateField(std::string_view s);
  Digest digest();

  /// Lower-case hex of a digest (64 characters).
  static std::string hex(const Digest &d);
  /// Hex SHA-256 of `s` in one call.
  static std::string hexOf(std::string_view s);

private:
  void compress(const uint8_t *block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_;
  size_t buffered_ = 0;
  uint64_t totalBytes_ = 0;
};

} // namespace fp8c
