// The device headers of codegen/kernels/*.cuh, embedded into the library at build time, so
// NVRTC reads them from memory (never from the file system) wherever fp8c is installed.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace fp8c {

struct EmbeddedHeader {
  std::string_view name;     ///< include name, e.g. "fp8c/common.cuh"
  std::string_view contents;
};

std::span<const EmbeddedHeader> embeddedHeaders();
/// A hash of every embedded header's name and contents (part of the kernel cache key).
std::string embeddedHeadersHash();

} // namespace fp8c
