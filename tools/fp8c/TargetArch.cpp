// Parsing of --arch and the GEMM backend it allows (see TargetArch.h).
#include "TargetArch.h"

#include <fmt/format.h>

#include <charconv>

namespace fp8c::cli {

Expected<TargetArch> parseTargetArch(std::string_view s) {
  const Error bad(fmt::format("--arch expects an NVRTC target sm_<compute capability>[a], such "
                              "as sm_90a or sm_89, got '{}'",
                              s));
  if (!s.starts_with("sm_"))
    return bad;
  std::string_view digits = s.substr(3);
  TargetArch a;
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) {
    a.suffix = digits.back();
    digits.remove_suffix(1);
  }
  int cc = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), cc);
  if (digits.size() < 2 || digits.size() > 3 || ec != std::errc() ||
      end != digits.data() + digits.size() || digits.front() == '0')
    return bad;
  a.name = std::string(s);
  a.major = cc / 10;
  a.minor = cc % 10;
  return a;
}

Expected<GemmBackend> gemmBackendFor(const std::optional<TargetArch> &arch, GemmBackend requested) {
  if (!arch || arch->hasWgmma())
    return requested;
  if (requested != GemmBackend::Generated)
    return GemmBackend::CublasLt; // auto: the generated GEMM cannot compile for this arch
  if (arch->major == 9 && arch->minor == 0)
    return Error(fmt::format("--backend=generated: the generated GEMM uses wgmma, which only the "
                             "arch-specific target has: use --arch=sm_90a, not --arch={}",
                             arch->name));
  return Error(fmt::format("--backend=generated: the generated GEMM uses wgmma and needs "
                           "--arch=sm_90a (compute capability 9.0); --arch={} is compute "
                           "capability {}.{}",
                           arch->name, arch->major, arch->minor));
}

} // namespace fp8c::cli
