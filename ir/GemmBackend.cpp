// GemmBackend names (see GemmBackend.h).
#include "ir/GemmBackend.h"

namespace fp8c {

const char *gemmBackendName(GemmBackend b) {
  switch (b) {
  case GemmBackend::Auto:
    return "auto";
  case GemmBackend::CublasLt:
    return "cublaslt";
  case GemmBackend::Generated:
    return "generated";
  }
  return "?";
}

std::optional<GemmBackend> parseGemmBackend(std::string_view s) {
  for (GemmBackend b : {GemmBackend::Auto, GemmBackend::CublasLt, GemmBackend::Generated})
    if (s == gemmBackendName(b))
      return b;
  return std::nullopt;
}

const char *gemmBackendNames() { return "auto, cublaslt, generated"; }

} // namespace fp8c
