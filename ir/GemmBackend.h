// Which GEMM implementation runs the FP8 GEMMs: CompileOptions::backend, TrainingOptions::
// gemmBackend, fp8c --backend, the fuse pass's gemm-backend option and a gemm fp8.kernel's
// `gemm_backend` attribute (ir/KernelPlan.h) all hold this enum; the name <-> enum conversion
// below is the only place its names are spelled.
#pragma once

#include <optional>
#include <string_view>

namespace fp8c {

/// Which GEMM implementation runs an FP8 GEMM step (CompileOptions::backend, fp8c --backend):
///   Auto       cuBLASLt, and the generated Hopper GEMM (runtime/gpu/GemmSm90.h) for a
///              configuration cuBLASLt refuses (no algorithm, or a layout it cannot take);
///   CublasLt   cuBLASLt only (its refusal is an error);
///   Generated  the generated Hopper GEMM for every FP8 GEMM (bf16/f16 GEMMs stay on cuBLASLt).
enum class GemmBackend { Auto, CublasLt, Generated };
/// "auto", "cublaslt" or "generated".
const char *gemmBackendName(GemmBackend b);
/// The backend named `s`, or nothing for a name that is not one of gemmBackendName's.
std::optional<GemmBackend> parseGemmBackend(std::string_view s);
/// The accepted names, for diagnostics: "auto, cublaslt, generated".
const char *gemmBackendNames();

} // namespace fp8c
