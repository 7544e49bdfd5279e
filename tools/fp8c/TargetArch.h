// The --arch option: an NVRTC target, parsed once into its compute capability and whether it
// names the arch-specific features (the `a` of sm_90a). The arch decides what the generated
// Hopper GEMM may do, and that decision (a GemmBackend) is what goes down to the passes,
// codegen and the runtime; nothing below re-reads the arch's name for it.
#pragma once

#include "ir/GemmBackend.h"
#include "ir/Status.h"

#include <optional>
#include <string>
#include <string_view>

namespace fp8c::cli {

struct TargetArch {
  std::string name;         ///< as NVRTC takes it: "sm_90a", "sm_89"
  int major = 0, minor = 0; ///< the compute capability: 9.0, 8.9
  char suffix = 0;          ///< 'a' (arch-specific features), 'f' (family) or 0

  /// The generated GEMM (TMA + wgmma, codegen/kernels/gemm_sm90.cuh) compiles only for
  /// sm_90a: wgmma is an arch-specific feature of compute capability 9.0, absent from sm_90
  /// (which promises code that runs on later GPUs too) and from every other arch.
  bool hasWgmma() const { return major == 9 && minor == 0 && suffix == 'a'; }
};

/// Parses `sm_<major><minor>[a|f]` (the last digit is the minor version: sm_89 is 8.9, sm_100a
/// is 10.0); an Error naming the value and the form otherwise.
Expected<TargetArch> parseTargetArch(std::string_view s);

/// The FP8 GEMM backend `requested` becomes for the target `arch` (none: the device's, which
/// the runtime checks): unchanged where the arch has wgmma; else `auto` never plans the
/// generated GEMM (cublaslt), and `generated` is an Error saying what it needs.
Expected<GemmBackend> gemmBackendFor(const std::optional<TargetArch> &arch, GemmBackend requested);

} // namespace fp8c::cli
