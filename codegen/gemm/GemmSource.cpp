// gemmSm90Source (GemmSource.h): the CUDA source of one GemmSm90Spec.
#include "codegen/gemm/GemmSource.h"

#include <algorithm>

namespace fp8c {
namespace {

const char *dtName(DType t) {
  switch (t) {
  case DType::F32: return "F32";
  case DType::F16: return "F16";
  case DType::BF16: return "BF16";
  case DType::F8E4M3FN: return "E4M3";
  case DType::F8E5M2: return "E5M2";
  default: return nullptr;
  }
}

const char *scaleName(GemmScaleMode s) {
  return s == GemmScaleMode::Tensor ? "Tensor" : s == GemmScaleMode::OuterVector ? "Row" : "Block";
}

const char *b(bool v) { return v ? "true" : "false"; }

/// The config struct of `k`: gemmSm90<Cfg>'s named members (gemm_sm90.cuh).
std::string configStruct(const GemmSm90Spec &k) {
  const bool side = !k.sideSpec.empty();
  auto i = [](int v) { return std::to_string(v); };
  auto dt = [](DType t) { return std::string("fp8c::Dt::") + dtName(t); };
  const char *amax = k.blockCast ? "fp8c::sm90::kAmaxBlock"
                     : k.amaxD   ? (k.amaxRows ? "fp8c::sm90::kAmaxRows" : "fp8c::sm90::kAmaxTensor")
                                 : "fp8c::sm90::kAmaxNone";
  return std::string("struct GemmConfig {\n") +
         "  static constexpr int kBM = " + i(k.bm) + ";\n" +
         "  static constexpr int kBN = " + i(k.bn) + ";\n" +
         "  static constexpr int kStages = " + i(k.stages) + ";\n" +
         "  static constexpr fp8c::Dt kTypeA = " + dt(k.aType) + ";\n" +
         "  static constexpr fp8c::Dt kTypeB = " + dt(k.bType) + ";\n" +
         "  static constexpr fp8c::Dt kTypeD = " + dt(k.dType) + ";\n" +
         "  static constexpr fp8c::sm90::Scale kScale = fp8c::sm90::Scale::" +
         scaleName(k.scaleMode) + ";\n" +
         "  static constexpr bool kHasBias = " + b(k.biasType.has_value()) + ";\n" +
         "  static constexpr fp8c::Dt kTypeBias = " + dt(k.biasType ? *k.biasType : DType::F32) +
         ";\n" +
         "  static constexpr fp8c::sm90::Act kAct = fp8c::sm90::Act::" +
         activationEnumerator(k.activation) + ";\n" +
         "  static constexpr int kAmax = " + amax + ";\n" +
         "  static constexpr bool kOverlap = " + b(k.overlap) + ";\n" +
         "  static constexpr bool kPromote = " + b(k.promotes()) + ";\n" +
         "  static constexpr fp8c::sm90::Sched kSchedule = fp8c::sm90::Sched::" +
         (k.schedule == GemmSchedule::PingPong ? "PingPong" : "Cooperative") + ";\n" +
         "  static constexpr int kClusterM = " + i(k.clusterM) + ";\n" +
         "  static constexpr int kCastSlots = " + i(k.castA ? k.castSlots : 0) + ";\n" +
         "  static constexpr bool kAmaxA = " + b(k.amaxA) + ";\n" +
         "  static constexpr int kEpilogueBuffers = " + i(k.epilogueBuffers()) + ";\n" +
         "  static constexpr int kExtraOutputs = " + i(k.extraOutputBits()) + ";\n" +
         "  static constexpr bool kDual = " + b(k.swiglu) + ";\n" +
         "  static constexpr bool kEpilogueWarps = " + b(k.epilogueWarps) + ";\n" +
         "  static constexpr bool kCastAhead = " + b(k.castAhead) + ";\n" +
         "  static constexpr bool kATransposed = " + b(k.aTransposed) + ";\n" +
         "  using Side = " + (side ? "Spec" : "fp8c::sm90::NoSide") + ";\n" +
         "  static constexpr int kSideBuffers = " + i(side ? std::max(1, k.sideBuffers) : 1) +
         ";\n};\n";
}

} // namespace

std::string gemmSm90Source(const GemmSm90Spec &k) {
  const std::string entry = k.name();
  const bool side = !k.sideSpec.empty();
  std::string s =
      "// fp8c generated Hopper FP8 GEMM (codegen/kernels/gemm_sm90.cuh)\n"
      "#include \"fp8c/gemm_sm90.cuh\"\n\n" +
      (side
           ? "// The side launch's Spec (codegen/kernels/gemm_sm90_side.cuh):\n" + k.sideSpec + "\n"
           : std::string()) +
      configStruct(k) + "\n" +
      "extern \"C\" __global__ void __launch_bounds__(384, 1)" +
      (k.clusterM > 1 ? " __cluster_dims__(" + std::to_string(k.clusterM) + ", 1, 1)"
                      : std::string()) +
      "\n" + entry +
      "(const __grid_constant__ fp8c::sm90::TmaDesc mapA,\n"
      "    const __grid_constant__ fp8c::sm90::TmaDesc mapB,\n"
      "    const __grid_constant__ fp8c::sm90::TmaDesc mapB2,\n"
      "    const __grid_constant__ fp8c::sm90::TmaDesc mapD,\n"
      "    const __grid_constant__ fp8c::sm90::TmaDesc mapAux,\n"
      "    const __grid_constant__ fp8c::sm90::TmaDesc mapDT,\n"
      "    const __grid_constant__ fp8c::sm90::TmaDesc mapSA,\n"
      "    const __grid_constant__ fp8c::sm90::TmaDesc mapSB,\n"
      "    const __grid_constant__ fp8c::sm90::TmaDesc mapSB2,\n"
      "    const fp8c::sm90::GemmParams p" +
      (side ? ",\n    const __grid_constant__ fp8c::Args<GemmConfig::kSideBuffers> side"
            : std::string()) +
      ") {\n"
      "  fp8c::sm90::gemmSm90<GemmConfig>(mapA, mapB, mapB2, mapD, mapAux, mapDT, mapSA, mapSB, "
      "mapSB2, p" +
      (side ? ", &side" : "") + ");\n}\n";
  if (k.colSumType)
    s += "\nextern \"C\" __global__ void __launch_bounds__(256)\n" + entry +
         "_colsum(const float *part, int slices, int n, void *out) {\n"
         "  fp8c::sm90::columnPartialSums<fp8c::Dt::" + dtName(*k.colSumType) +
         ">(part, slices, n, out);\n}\n";
  return s;
}

} // namespace fp8c
