// GemmSm90 (GemmSm90.h): the kernel names and the CUDA source of one config (the template
// instantiation, and the column partial sums' kernel beside it).
#include "runtime/gpu/GemmSm90.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

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

const char *shortName(DType t) {
  switch (t) {
  case DType::F32: return "f32";
  case DType::F16: return "f16";
  case DType::BF16: return "bf16";
  case DType::F8E4M3FN: return "e4m3";
  case DType::F8E5M2: return "e5m2";
  default: return "?";
  }
}

const char *scaleName(GemmScaleMode s) {
  return s == GemmScaleMode::Tensor ? "Tensor" : s == GemmScaleMode::OuterVector ? "Row" : "Block";
}

} // namespace

std::string GemmSm90Kernel::name() const {
  std::string s = std::string("fp8c_gemm_sm90_") + shortName(aType) + "_" + shortName(bType) +
                  "_" + shortName(dType) + "_" +
                  (scaleMode == GemmScaleMode::Tensor        ? "tensor"
                   : scaleMode == GemmScaleMode::OuterVector ? "row"
                                                             : "block128") +
                  "_n" + std::to_string(bn) + "_s" + std::to_string(stages) + "_o" +
                  (overlap ? "1" : "0");
  if (bm != 128)
    s += "_m" + std::to_string(bm);
  if (schedule == GemmSchedule::PingPong)
    s += "_pp";
  if (clusterM != 1)
    s += "_c" + std::to_string(clusterM);
  if (!fastAccum && scaleMode != GemmScaleMode::Block128)
    s += "_promote";
  if (biasType)
    s += std::string("_bias") + shortName(*biasType);
  if (activation != Activation::None) {
    std::string a = activationEnumerator(activation);
    std::transform(a.begin(), a.end(), a.begin(), [](unsigned char c) { return std::tolower(c); });
    s += "_" + a;
  }
  if (amaxD)
    s += amaxRows ? "_amaxrow" : "_amax";
  if (castA)
    s += "_abf16s" + std::to_string(castSlots);
  if (castAhead)
    s += "_aca";
  if (amaxA)
    s += "_amaxa";
  if (const int eb = epilogueBuffers(); eb > 0)
    s += "_tms" + std::to_string(eb);
  if (auxOut)
    s += auxFp8 ? "_aux8" : "_aux";
  if (transD)
    s += "_dt";
  if (geluGradIn)
    s += geluGradInFp8 ? "_dgelu8" : "_dgelu";
  if (residualIn)
    s += "_res";
  if (colSumType)
    s += std::string("_colsum") + shortName(*colSumType);
  if (swiglu)
    s += "_swiglu";
  if (blockCast)
    s += "_bcast";
  if (epilogueWarps)
    s += "_ew";
  if (aTransposed)
    s += "_at";
  if (!sideSpec.empty()) {
    // FNV-1a of the Spec: kernels with different side launches differ in name (the cache
    // keys on the source as well).
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : sideSpec)
      h = (h ^ c) * 1099511628211ull;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    s += "_side" + std::string(hex, 8);
  }
  return s;
}

std::string gemmSm90Source(const GemmSm90Kernel &k) {
  const std::string entry = k.name();
  const bool side = !k.sideSpec.empty();
  const std::string sideN = std::to_string(std::max(1, k.sideBuffers));
  std::string s =
      "// fp8c generated Hopper FP8 GEMM (codegen/kernels/gemm_sm90.cuh)\n"
      "#include \"fp8c/gemm_sm90.cuh\"\n\n" +
      (side
           ? "// The side launch's Spec (codegen/kernels/gemm_sm90_side.cuh):\n" + k.sideSpec + "\n"
           : std::string()) +
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
      (side ? ",\n    const __grid_constant__ fp8c::Args<" + sideN + "> side" : std::string()) +
      ") {\n"
      "  using fp8c::Dt;\n"
      "  fp8c::sm90::gemmSm90<" +
      std::to_string(k.bm) + ", " + std::to_string(k.bn) + ", " + std::to_string(k.stages) +
      ", Dt::" + dtName(k.aType) + ", Dt::" + dtName(k.bType) + ", Dt::" + dtName(k.dType) +
      ", fp8c::sm90::Scale::" + scaleName(k.scaleMode) + ", " + (k.biasType ? "true" : "false") +
      ", Dt::" + dtName(k.biasType ? *k.biasType : DType::F32) +
      ", fp8c::sm90::Act::" + activationEnumerator(k.activation) + ", " +
      (k.blockCast ? "3"
       : k.amaxD   ? (k.amaxRows ? "2" : "1")
                   : "0") +
      ", " + (k.overlap ? "true" : "false") + ", " + (k.promotes() ? "true" : "false") +
      ", fp8c::sm90::Sched::" +
      (k.schedule == GemmSchedule::PingPong ? "PingPong" : "Cooperative") + ", " +
      std::to_string(k.clusterM) + ", " + std::to_string(k.castA ? k.castSlots : 0) + ", " +
      (k.amaxA ? "true" : "false") + ", " + std::to_string(k.epilogueBuffers()) + ", " +
      std::to_string(k.extraOutputBits()) + ", " + (k.swiglu ? "true" : "false") + ", " +
      (k.epilogueWarps ? "true" : "false") + ", " + (k.castAhead ? "true" : "false") +
      (side            ? ", Spec, " + sideN
       : k.aTransposed ? ", fp8c::sm90::NoSide, 1"
                       : std::string()) +
      (k.aTransposed ? ", true" : "") +
      ">(mapA, mapB, mapB2, mapD, mapAux, mapDT, mapSA, mapSB, mapSB2, p" +
      (side ? ", &side" : "") + ");\n}\n";
  if (k.colSumType)
    s += "\nextern \"C\" __global__ void __launch_bounds__(256)\n" + entry +
         "_colsum(const float *part, int slices, int n, void *out) {\n"
         "  fp8c::sm90::columnPartialSums<fp8c::Dt::" + dtName(*k.colSumType) +
         ">(part, slices, n, out);\n}\n";
  return s;
}

NvrtcRequest gemmSm90Request(const GemmSm90Kernel &k, const std::string &arch) {
  NvrtcRequest r;
  r.kernelName = k.name();
  r.source = gemmSm90Source(k);
  r.arch = arch;
  return r;
}

} // namespace fp8c
