// cuBLASLt backend, the part that needs no GPU: configs, the row-major -> column-major layout,
// the configuration checks, plan steps -> calls, and descriptors. The runner is in
// CublasLtRunner.cpp.
#include "runtime/gpu/CublasLtGemm.h"

#include "runtime/gpu/CublasLtCheck.h"

#include <bit>

namespace fp8c {
namespace {

const char *modeName(GemmScaleMode m) {
  switch (m) {
  case GemmScaleMode::Tensor:
    return "tensor";
  case GemmScaleMode::OuterVector:
    return "outer_vector";
  case GemmScaleMode::Block128:
    return "block128";
  }
  return "?";
}

const char *epilogueName(GemmEpilogue e) {
  switch (e) {
  case GemmEpilogue::Default:
    return "default";
  case GemmEpilogue::Bias:
    return "bias";
  case GemmEpilogue::Gelu:
    return "gelu";
  case GemmEpilogue::GeluBias:
    return "gelu_bias";
  case GemmEpilogue::Relu:
    return "relu";
  case GemmEpilogue::ReluBias:
    return "relu_bias";
  case GemmEpilogue::DGelu:
    return "dgelu";
  case GemmEpilogue::DGeluBgrad:
    return "dgelu_bgrad";
  case GemmEpilogue::BGradA:
    return "bgrad_a";
  case GemmEpilogue::BGradB:
    return "bgrad_b";
  }
  return "?";
}

/// Epilogues with a bias pointer (DGeluBgrad, BGradA, BGradB: the bias gradient they write).
bool hasBias(GemmEpilogue e) {
  return e == GemmEpilogue::Bias || e == GemmEpilogue::GeluBias || e == GemmEpilogue::ReluBias ||
         e == GemmEpilogue::DGeluBgrad || e == GemmEpilogue::BGradA || e == GemmEpilogue::BGradB;
}

bool isDGelu(GemmEpilogue e) { return e == GemmEpilogue::DGelu || e == GemmEpilogue::DGeluBgrad; }

std::string dt(DType t) { return std::string(dtypeName(t)); }

} // namespace

int alignmentOf(uint64_t address) {
  if (address == 0)
    return 256;
  return static_cast<int>(std::min<uint64_t>(256, uint64_t(1) << std::countr_zero(address)));
}

std::string cublasLtErrorMessage(cublasStatus_t s, std::string_view call,
                                 std::string_view context) {
  std::string m = std::string(call) + " failed: " + cublasLtGetStatusName(s) + " (" +
                  cublasLtGetStatusString(s) + ")";
  if (!context.empty())
    m += " [" + std::string(context) + "]";
  return m;
}

bool CublasLtGemmConfig::isFp8() const { return isFloat8(aType) || isFloat8(bType); }

std::string CublasLtGemmConfig::str() const {
  std::string s = "m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
                  " lda=" + std::to_string(lda) + " ldb=" + std::to_string(ldb) +
                  " ldd=" + std::to_string(ldd) + " A=" + dt(aType) + " B=" + dt(bType) +
                  " D=" + dt(dType) + " bias=" + (biasType ? dt(*biasType) : std::string("none")) +
                  " scale=" + modeName(scaleMode) + " epilogue=" + epilogueName(epilogue) +
                  " fastAccum=" + (fastAccum ? "1" : "0");
  if (auxType)
    s += " aux=" + dt(*auxType) + "/" + std::to_string(ldAux) + "/" + std::to_string(alignAux);
  if (!aKMajor || !bKMajor)
    s += std::string(" layout=") + (aKMajor ? "A[M,K]" : "A[K,M]") + "/" +
         (bKMajor ? "B[N,K]" : "B[K,N]");
  if (hasScaleD)
    s += " scaleD";
  if (hasAmaxD)
    s += " amaxD";
  s += " align=" + std::to_string(alignA) + "/" + std::to_string(alignB) + "/" +
       std::to_string(alignD) + "/" + std::to_string(alignBias);
  return s;
}

cudaDataType_t cudaDataTypeOf(DType t) {
  switch (t) {
  case DType::F32:
    return CUDA_R_32F;
  case DType::F16:
    return CUDA_R_16F;
  case DType::BF16:
    return CUDA_R_16BF;
  case DType::F8E4M3FN:
    return CUDA_R_8F_E4M3;
  case DType::F8E5M2:
    return CUDA_R_8F_E5M2;
  case DType::I32:
    return CUDA_R_32I;
  }
  return CUDA_R_32F;
}

// Our problem is row-major: A[M,K] (pitch lda), B[N,K] (pitch ldb), D[M,N] (pitch ldd), and
// D = A Bᵀ. A row-major R x C matrix with pitch ld, read column-major, is the C x R matrix
// with leading dimension ld: its transpose. So cuBLASLt (column-major) sees our buffers as
//   A buffer: Aᵀ, K x M, ld = lda    B buffer: Bᵀ, K x N, ld = ldb    D buffer: Dᵀ, N x M, ld = ldd
// and we ask it for Dᵀ = (A Bᵀ)ᵀ = B Aᵀ:
//   cuBLASLt m = N, n = M, k = K;
//   its A := our B buffer (K x N, ld = ldb), transa = T  ->  op(A) = B   (N x K);
//   its B := our A buffer (K x M, ld = lda), transb = N  ->  op(B) = Aᵀ  (K x M);
//   its D := our D buffer (N x M, ld = ldd).
// Both operands are K-major: the "TN" layout cuBLASLt's FP8 kernels require. Consequences:
//   - its A scale is our invScaleB, its B scale our invScaleA;
//   - OUTER_VEC_32F: its A scale has m = N values (one per row of our B), its B scale n = M;
//   - Block128: our B (128x128 blocks) is its A -> A_SCALE_MODE = BLK128x128_32F, whose
//     factors are K-major [ceil(N/128)][roundUp(ceil(K/128), 4)]; our A (1x128 blocks) is its
//     B -> B_SCALE_MODE = VEC128_32F, whose factors are "n-major" [ceil(K/128)][M]
//     (BLK128x128 for A with VEC128 for B is a supported pair);
//   - the bias has one value per row of its D, i.e. per column n of our D: bias[N].
CublasLtLayout cublasLtLayout(const CublasLtGemmConfig &c) {
  CublasLtLayout l;
  const auto m = static_cast<uint64_t>(c.m), n = static_cast<uint64_t>(c.n),
             k = static_cast<uint64_t>(c.k);
  // Its A is our B: [N, K] row-major is K x N column-major (op T); [K, N] row-major is N x K
  // (op N). Its B is our A: [M, K] is K x M (op N); [K, M] is M x K (op T).
  l.rowsA = c.bKMajor ? k : n;
  l.colsA = c.bKMajor ? n : k;
  l.ldA = c.ldb;
  l.transA = c.bKMajor ? CUBLAS_OP_T : CUBLAS_OP_N;
  l.rowsB = c.aKMajor ? k : m;
  l.colsB = c.aKMajor ? m : k;
  l.ldB = c.lda;
  l.transB = c.aKMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
  l.rowsD = n;
  l.colsD = m;
  l.ldD = c.ldd;
  switch (c.scaleMode) {
  case GemmScaleMode::Tensor:
    break;
  case GemmScaleMode::OuterVector:
    l.scaleModeA = l.scaleModeB = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
    break;
  case GemmScaleMode::Block128:
    l.scaleModeA = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
    l.scaleModeB = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
    break;
  }
  const bool aux = c.auxType.has_value();
  switch (c.epilogue) {
  case GemmEpilogue::Default:
    l.epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    break;
  case GemmEpilogue::Bias:
    l.epilogue = CUBLASLT_EPILOGUE_BIAS;
    break;
  case GemmEpilogue::Gelu:
    l.epilogue = aux ? CUBLASLT_EPILOGUE_GELU_AUX : CUBLASLT_EPILOGUE_GELU;
    break;
  case GemmEpilogue::GeluBias:
    l.epilogue = aux ? CUBLASLT_EPILOGUE_GELU_AUX_BIAS : CUBLASLT_EPILOGUE_GELU_BIAS;
    break;
  case GemmEpilogue::Relu:
    l.epilogue = CUBLASLT_EPILOGUE_RELU;
    break;
  case GemmEpilogue::ReluBias:
    l.epilogue = CUBLASLT_EPILOGUE_RELU_BIAS;
    break;
  case GemmEpilogue::DGelu:
    l.epilogue = CUBLASLT_EPILOGUE_DGELU;
    break;
  case GemmEpilogue::DGeluBgrad:
    l.epilogue = CUBLASLT_EPILOGUE_DGELU_BGRAD;
    break;
  case GemmEpilogue::BGradA: // cuBLASLt's B is our A
    l.epilogue = CUBLASLT_EPILOGUE_BGRADB;
    break;
  case GemmEpilogue::BGradB:
    l.epilogue = CUBLASLT_EPILOGUE_BGRADA;
    break;
  }
  return l;
}

Status checkCublasLtConfig(const CublasLtGemmConfig &c, int ccMajor, int ccMinor) {
  auto fail = [&](const std::string &why) {
    return Error("cuBLASLt cannot run this GEMM [" + c.str() + "]: " + why);
  };
  const std::string cc = std::to_string(ccMajor) + "." + std::to_string(ccMinor);
  const bool fp8 = c.isFp8();
  if (fp8) {
    if (!isFloat8(c.aType) || !isFloat8(c.bType))
      return fail("A and B must both be FP8 or both be bf16, f16 or f32");
    if (c.aType == DType::F8E5M2 && c.bType == DType::F8E5M2)
      return fail("e5m2 x e5m2 is not offered (e4m3 x e4m3, e4m3 x e5m2, e5m2 x e4m3 are)");
    if (ccMajor * 10 + ccMinor < 89)
      return fail("FP8 GEMMs need compute capability 8.9 or newer; this device is " + cc);
    if (!c.aKMajor || !c.bKMajor)
      return fail("FP8 operands must both be K-major (TN): write the transposed FP8 copy "
                  "(a cast-transpose) instead");
  } else {
    // bf16 and f16 accumulate in f32 (CUBLAS_COMPUTE_32F); so do f32 operands: an SGEMM.
    if (c.aType != c.bType ||
        (c.aType != DType::BF16 && c.aType != DType::F16 && c.aType != DType::F32))
      return fail("A and B must both be FP8 or both be bf16, f16 or f32");
    if (c.scaleMode != GemmScaleMode::Tensor || c.hasScaleD || c.hasAmaxD)
      return fail("scales and amax(D) apply to FP8 GEMMs only");
    if (c.dType != c.aType && c.dType != DType::F32)
      return fail("a " + dt(c.aType) + " GEMM writes " + dt(c.aType) +
                  (c.aType == DType::F32 ? "" : " or f32"));
  }
  if (isFloat8(c.dType) && c.scaleMode != GemmScaleMode::Tensor)
    return fail("D cannot be FP8 with outer-vector or 128-block scales");
  if (c.dType == DType::I32)
    return fail("D cannot be i32");
  if (c.scaleMode != GemmScaleMode::Tensor) {
    if (!(ccMajor == 9 && ccMinor == 0))
      return fail(std::string(modeName(c.scaleMode)) +
                  " scales are offered on compute capability 9.0 (Hopper) only; this device is " +
                  cc + ": run it as a generated kernel");
    if (c.epilogue != GemmEpilogue::Default && c.epilogue != GemmEpilogue::Bias)
      return fail(std::string("the ") + epilogueName(c.epilogue) +
                  " epilogue is not offered with " + modeName(c.scaleMode) +
                  " scales (only default and bias): run the activation as a generated kernel");
    // 128-block scales: the A-scale buffer is [ceil(K/128)][M] with its pitch rounded up to a
    // multiple of 4 by codegen (BufferDesc::ldAlignM), so any M is accepted here.
  }
  if (hasBias(c.epilogue) != c.biasType.has_value())
    return fail(c.biasType ? "a bias without a bias epilogue" : "a bias epilogue without a bias");
  if (c.biasType) {
    // The bias type cuBLASLt accepts follows D (cublasLtMatmul's FP8 table): bf16 for bf16 or
    // f32 D, f16 for f16 D, bf16 or f16 for FP8 D; for bf16 inputs, D's own type.
    DType want = c.dType == DType::F16 ? DType::F16 : DType::BF16;
    if (!fp8 && c.dType == DType::F32)
      want = DType::F32;
    bool ok = *c.biasType == want ||
              (isFloat8(c.dType) && (*c.biasType == DType::BF16 || *c.biasType == DType::F16));
    if (!ok)
      return fail("the bias must be " + dt(want) + " for D of " + dt(c.dType));
  }
  if (isDGelu(c.epilogue) && !c.auxType)
    return fail("a backward GELU epilogue reads the GELU input as its aux matrix: give auxType");
  if (c.auxType) {
    if (c.epilogue != GemmEpilogue::Gelu && c.epilogue != GemmEpilogue::GeluBias &&
        !isDGelu(c.epilogue))
      return fail("an aux matrix (the GELU input) needs a GELU epilogue");
    const DType want = fp8 ? DType::BF16 : c.dType;
    if (*c.auxType != want)
      return fail("the aux matrix must be " + dt(want));
    if (c.ldAux < c.n || (c.ldAux * dtypeBytes(*c.auxType)) % 16 != 0)
      return fail("the aux row pitch must hold a row and be a multiple of 16 bytes");
    if (c.alignAux < 16)
      return fail("the aux matrix must be 16-byte aligned");
  }
  if (c.m < 0 || c.n <= 0 || c.k <= 0)
    return fail("empty or negative dims");
  if (c.lda < (c.aKMajor ? c.k : c.m) || c.ldb < (c.bKMajor ? c.k : c.n) || c.ldd < c.n)
    return fail("a row pitch is smaller than its row");
  auto pitchOk = [](int64_t ld, DType t) { return (ld * dtypeBytes(t)) % 16 == 0; };
  if (!pitchOk(c.lda, c.aType) || !pitchOk(c.ldb, c.bType) || !pitchOk(c.ldd, c.dType))
    return fail("row pitches must be multiples of 16 bytes: the producer must write a padded "
                "layout");
  if (c.alignA < 16 || c.alignB < 16 || c.alignD < 16)
    return fail("A, B and D must be 16-byte aligned");
  return Status::ok();
}

Expected<std::pair<CublasLtGemmConfig, CublasLtGemmPointers>>
cublasLtCall(const GemmStep &g, const LaunchPlan &plan, int64_t m,
             std::span<const CUdeviceptr> buffers) {
  auto fail = [&](const std::string &why) {
    return Error("cuBLASLt GEMM '" + g.name + "': " + why);
  };
  if (buffers.size() != plan.buffers.size())
    return fail("got " + std::to_string(buffers.size()) + " buffer addresses for a plan of " +
                std::to_string(plan.buffers.size()));
  auto valid = [&](int i) { return i >= 0 && static_cast<size_t>(i) < plan.buffers.size(); };
  for (int i : {g.a, g.b, g.d})
    if (!valid(i))
      return fail("operand buffer index " + std::to_string(i) + " out of range");
  for (int i : {g.invScaleA, g.invScaleB, g.bias, g.amaxD, g.scaleD, g.aux, g.epiD, g.b2,
                g.invScaleB2, g.gateD, g.upD})
    if (i != -1 && !valid(i))
      return fail("buffer index " + std::to_string(i) + " out of range");
  auto pitch = [&](int i) -> int64_t {
    const BufferDesc &b = plan.buffers[static_cast<size_t>(i)];
    if (b.ld > 0)
      return b.ld;
    return b.type.rank() >= 1 ? b.type.dim(b.type.rank() - 1) : 1;
  };
  CublasLtGemmConfig c;
  c.m = g.m.eval(m);
  c.n = g.n;
  c.k = g.k;
  c.aType = plan.buffers[g.a].type.dtype();
  c.bType = plan.buffers[g.b].type.dtype();
  c.dType = plan.buffers[g.d].type.dtype();
  c.lda = pitch(g.a);
  c.ldb = pitch(g.b);
  c.aKMajor = g.aKMajor;
  c.bKMajor = g.bKMajor;
  c.ldd = pitch(g.d);
  if (g.bias != -1)
    c.biasType = plan.buffers[g.bias].type.dtype();
  c.scaleMode = g.scaleMode;
  c.epilogue = g.epilogue;
  c.fastAccum = g.fastAccum && g.scaleMode != GemmScaleMode::Block128;
  c.hasScaleD = g.scaleD != -1;
  c.hasAmaxD = g.amaxD != -1;
  if (g.aux != -1) {
    c.auxType = plan.buffers[g.aux].type.dtype();
    c.ldAux = pitch(g.aux);
  }
  // FP8 operands need K to be a multiple of 16 bytes; a padded pitch with zero padding
  // columns (written by the producing cast) lets us round K up without changing the result.
  if (c.isFp8() && c.k % 16 != 0) {
    int64_t k16 = (c.k + 15) / 16 * 16;
    if (c.lda >= k16 && c.ldb >= k16)
      c.k = k16;
  }
  // bf16 / f16 operands that are padded copies (GemmStep::kPadsZero): K up to 8, or
  // cuBLASLt falls back to kernels without tensor cores.
  if (!c.isFp8() && g.kPadsZero && c.aKMajor && c.bKMajor && c.k % 8 != 0) {
    int64_t k8 = (c.k + 7) / 8 * 8;
    if (c.lda >= k8 && c.ldb >= k8)
      c.k = k8;
  }
  // ... and B with N rounded up (GemmStep::nPadded): D's pitch takes the extra columns.
  if (g.nPadded > c.n) {
    if (c.ldd < g.nPadded)
      return fail("internal error: D's pitch " + std::to_string(c.ldd) + " is below N rounded up (" +
                  std::to_string(g.nPadded) + ")");
    c.n = g.nPadded;
  }
  auto addr = [&](int i) { return i == -1 ? CUdeviceptr(0) : buffers[static_cast<size_t>(i)]; };
  CublasLtGemmPointers p;
  p.a = reinterpret_cast<const void *>(addr(g.a));
  p.b = reinterpret_cast<const void *>(addr(g.b));
  p.d = reinterpret_cast<void *>(addr(g.d));
  p.invScaleA = reinterpret_cast<const float *>(addr(g.invScaleA));
  p.invScaleB = reinterpret_cast<const float *>(addr(g.invScaleB));
  p.bias = reinterpret_cast<const void *>(addr(g.bias));
  p.amaxD = reinterpret_cast<float *>(addr(g.amaxD));
  p.scaleD = reinterpret_cast<const float *>(addr(g.scaleD));
  p.aux = reinterpret_cast<void *>(addr(g.aux));
  c.alignAux = alignmentOf(addr(g.aux));
  c.alignA = alignmentOf(addr(g.a));
  c.alignB = alignmentOf(addr(g.b));
  c.alignD = alignmentOf(addr(g.d));
  c.alignBias = alignmentOf(addr(g.bias));
  // An epilogue only the generated GEMM fuses: cuBLASLt writes the plain GEMM result to `buf`
  // (no D scale, no amax) and the step's fallback launches compute the epilogue from it.
  auto resultTo = [&](int buf) {
    c.dType = plan.buffers[buf].type.dtype();
    c.ldd = pitch(buf);
    c.hasScaleD = c.hasAmaxD = false;
    p.d = reinterpret_cast<void *>(addr(buf));
    p.scaleD = nullptr;
    p.amaxD = nullptr;
    c.alignD = alignmentOf(addr(buf));
  };
  if (g.epiD != -1) // gelu_grad or a residual add: epiFallback reads the result from epiD
    resultTo(g.epiD);
  if (g.b2 != -1) {
    // The dual GEMM's swiglu epilogue: this call is the gate's (B) into gateD; the runtime
    // repeats it for the up weight (b2, invScaleB2) into upD, and dualFallback reads both.
    if (g.gateD == -1 || g.upD == -1)
      return fail("a dual GEMM needs its gate and up result buffers");
    resultTo(g.gateD);
  }
  if (c.isFp8() && (!p.invScaleA || !p.invScaleB))
    return fail("an FP8 GEMM needs both inverse-scale buffers");
  return std::pair{c, p};
}

Expected<std::unique_ptr<CublasLtDescriptors>>
CublasLtDescriptors::create(const CublasLtGemmConfig &c) {
  std::unique_ptr<CublasLtDescriptors> d(new CublasLtDescriptors());
  d->config = c;
  const CublasLtLayout l = cublasLtLayout(c);
  const std::string ctx = c.str();
  FP8C_CUBLASLT_TRY(cublasLtMatmulDescCreate(&d->op, CUBLAS_COMPUTE_32F, CUDA_R_32F), ctx);
  auto set = [&](cublasLtMatmulDescAttributes_t attr, const auto &value) -> Status {
    FP8C_CUBLASLT_TRY(cublasLtMatmulDescSetAttribute(d->op, attr, &value, sizeof value), ctx);
    return Status::ok();
  };
  int32_t transA = l.transA, transB = l.transB;
  uint32_t epilogue = l.epilogue;
  for (Status s :
       {set(CUBLASLT_MATMUL_DESC_TRANSA, transA), set(CUBLASLT_MATMUL_DESC_TRANSB, transB),
        set(CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue)})
    if (!s)
      return Error(s.message());
  if (c.isFp8()) {
    // Block128 kernels promote per 128-wide K block by construction: no fast-accum flag.
    if (c.scaleMode != GemmScaleMode::Block128) {
      int8_t fast = c.fastAccum ? 1 : 0;
      if (Status s = set(CUBLASLT_MATMUL_DESC_FAST_ACCUM, fast); !s)
        return Error(s.message());
    }
    if (c.scaleMode != GemmScaleMode::Tensor) {
      if (Status s = set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, l.scaleModeA); !s)
        return Error(s.message());
      if (Status s = set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, l.scaleModeB); !s)
        return Error(s.message());
    }
  }
  if (c.biasType) {
    int32_t biasType = cudaDataTypeOf(*c.biasType);
    if (Status s = set(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, biasType); !s)
      return Error(s.message());
  }
  if (c.auxType) {
    // The aux matrix is laid out as cuBLASLt's D (N x M column-major): our [M, N] row-major.
    int64_t ldAux = c.ldAux;
    if (Status s = set(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, ldAux); !s)
      return Error(s.message());
    if (c.isFp8()) { // the aux type of an FP8 GEMM is its own attribute (default: D's type)
      int32_t auxType = cudaDataTypeOf(*c.auxType);
      if (Status s = set(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, auxType); !s)
        return Error(s.message());
    }
  }
  // For FP8 D, C's type must be the bias type (bf16 when there is none); beta is 0 and C null.
  DType cType = isFloat8(c.dType) ? c.biasType.value_or(DType::BF16) : c.dType;
  FP8C_CUBLASLT_TRY(
      cublasLtMatrixLayoutCreate(&d->a, cudaDataTypeOf(c.bType), l.rowsA, l.colsA, l.ldA), ctx);
  FP8C_CUBLASLT_TRY(
      cublasLtMatrixLayoutCreate(&d->b, cudaDataTypeOf(c.aType), l.rowsB, l.colsB, l.ldB), ctx);
  FP8C_CUBLASLT_TRY(
      cublasLtMatrixLayoutCreate(&d->c, cudaDataTypeOf(cType), l.rowsD, l.colsD, l.ldD), ctx);
  FP8C_CUBLASLT_TRY(
      cublasLtMatrixLayoutCreate(&d->d, cudaDataTypeOf(c.dType), l.rowsD, l.colsD, l.ldD), ctx);
  return d;
}

CublasLtDescriptors::~CublasLtDescriptors() {
  for (cublasLtMatrixLayout_t layout : {a, b, c, d})
    if (layout)
      cublasLtMatrixLayoutDestroy(layout);
  if (op)
    cublasLtMatmulDescDestroy(op);
}

Status CublasLtDescriptors::setPointers(const CublasLtGemmPointers &p) {
  const std::string ctx = config.str();
  auto setPtr = [&](cublasLtMatmulDescAttributes_t attr, const void *ptr) -> Status {
    FP8C_CUBLASLT_TRY(cublasLtMatmulDescSetAttribute(op, attr, &ptr, sizeof ptr), ctx);
    return Status::ok();
  };
  Status s = Status::ok();
  if (config.isFp8()) {
    // cuBLASLt's A is our B (see cublasLtLayout): the scales swap too.
    if (s = setPtr(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, p.invScaleB); !s)
      return s;
    if (s = setPtr(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, p.invScaleA); !s)
      return s;
    if (config.hasScaleD && !(s = setPtr(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, p.scaleD)))
      return s;
    if (config.hasAmaxD && !(s = setPtr(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, p.amaxD)))
      return s;
  }
  if (config.biasType && !(s = setPtr(CUBLASLT_MATMUL_DESC_BIAS_POINTER, p.bias)))
    return s;
  if (config.auxType && !(s = setPtr(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, p.aux)))
    return s;
  return Status::ok();
}

} // namespace fp8c
