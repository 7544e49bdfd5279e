// GemmSm90 (GemmSm90.h): the host-side checks and the launch of the generated Hopper FP8 GEMM
// (the tile heuristic: GemmSm90Tiles.cpp; tensor maps: GemmSm90Maps.cpp; the spec, its name,
// shared memory and source: codegen/gemm/).
#include "runtime/gpu/GemmSm90.h"

#include "passes/GemmCapabilities.h"
#include "runtime/cuda/LoadedModules.h"
#include "runtime/gpu/GemmSm90Maps.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace fp8c {
namespace {

constexpr int kBK = 128, kThreads = 384;

// The device's GemmParams (gemm_sm90.cuh), field for field: passed by value to the kernel.
struct DeviceParams {
  void *d;
  const float *scaleA;
  const float *scaleB;
  const void *bias;
  float *amax;
  const float *scaleD;
  const float *quantA;
  float *amaxA;
  const void *epiIn;
  float *colPart;
  const float *scaleB2;
  float *blockScale;
  float *blockInv;
  int64_t ldd, ldIn, ldsa, ldsb, ldbs, ldbi;
  int32_t m, n, k;
  int32_t tilesM, tilesN, kBlocks;
  int32_t groupM;
  int32_t castMargin, castPow2;
  const void *aSrc;
  uint8_t *aCast;
  uint32_t *aReady;
  int64_t ldaSrc, ldaCast;
  float *pushHistory;
  uint32_t *pushCounter;
  int32_t pushLen, pushRound, pushResetAmax, pushPad;
};
static_assert(sizeof(DeviceParams) == 264, "DeviceParams must match sm90::GemmParams");

bool isFp8(DType t) { return t == DType::F8E4M3FN || t == DType::F8E5M2; }

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool aligned(const void *p, uintptr_t bytes) {
  return (reinterpret_cast<uintptr_t>(p) & (bytes - 1)) == 0;
}

} // namespace

NvrtcRequest gemmSm90Request(const GemmSm90Spec &k, const std::string &arch) {
  NvrtcRequest r;
  r.kernelName = k.name();
  r.source = gemmSm90Source(k);
  r.arch = arch;
  return r;
}

Status checkGemmSm90(const GemmSm90Spec &k, const GemmSm90Problem &prob,
                     const GemmSm90Pointers *p) {
  if (Status st = checkGemmSm90Spec(k); !st)
    return st;
  auto fail = [&](const std::string &m) { return Error("generated sm90 GEMM " + k.name() + ": " + m); };
  if (prob.m < 1 || prob.n < 1 || prob.k < 1)
    return fail("M, N and K must be at least 1 (got " + std::to_string(prob.m) + ", " +
                std::to_string(prob.n) + ", " + std::to_string(prob.k) + ")");
  if (prob.m > INT32_MAX || prob.n > INT32_MAX || prob.k > INT32_MAX)
    return fail("M, N and K must be below 2^31");
  if (prob.lda < (k.aTransposed ? prob.m : prob.k) || prob.ldb < prob.k || prob.ldd < prob.n)
    return fail(k.aTransposed ? "row pitches must be at least M (A^T, [K, M]), K (B) and N (D)"
                              : "row pitches must be at least K (A, B) and N (D)");
  // (The launch turns TMA stores off where D's width or pitch is not whole 16-byte units.)
  if (k.aTransposed && launchedGemmSm90Kernel(k, prob).epilogueBuffers() == 0)
    return fail("A MN-major (aTransposed) stores D by TMA only: N and D's pitch must be whole "
                "16-byte units (N " +
                std::to_string(prob.n) + ", pitch " + std::to_string(prob.ldd) + " elements)");
  const bool bf16A = k.castA || k.castAhead;
  if ((bf16A ? prob.lda * 2 : prob.lda) % 16 != 0 || prob.ldb % 16 != 0)
    return fail(std::string("A and B row pitches must be multiples of 16 bytes (got ") +
                (bf16A ? "bf16 A " : "") + std::to_string(prob.lda) + ", " +
                std::to_string(prob.ldb) +
                " elements); pad the operands (the producing cast writes a padded layout)");
  if (k.castAhead && (prob.ldaCast < prob.k || prob.ldaCast % 16 != 0))
    return fail("cast-ahead A: the FP8 copy's pitch (ldaCast, bytes) must be at least K and a "
                "multiple of 16 (got " + std::to_string(prob.ldaCast) + ")");
  if (k.extraOutputs()) {
    // TMA writes whole 16-byte units (see launchedGemmSm90Kernel): no partial unit may cross N
    // or a pitch.
    if (prob.n % 16 != 0 || prob.ldd % 16 != 0 ||
        (k.auxOut && prob.ldAux % (k.auxFp8 ? 16 : 8) != 0) || (k.transD && prob.ldDT % 16 != 0))
      return fail("the pre-activation and transposed outputs need N and every pitch in whole "
                  "16-byte units (N " + std::to_string(prob.n) + ", pitches D " +
                  std::to_string(prob.ldd) + ", aux " + std::to_string(prob.ldAux) + ", D^T " +
                  std::to_string(prob.ldDT) + " elements)");
    if ((k.auxOut && prob.ldAux < prob.n) || (k.transD && prob.ldDT < ceilDiv(prob.m, 16) * 16))
      return fail("the aux pitch must be at least N and the D^T pitch at least M rounded up to "
                  "16 (its pad columns are written as zeros)");
  }
  if (k.blockCast && (prob.ldBlockScale < ceilDiv(prob.n, 128) || prob.ldBlockInv < prob.m))
    return fail("the 1x128-block cast's scale pitches must be at least ceil(N / 128) (scales, "
                "[M, N/128]) and M (inverses, [N/128, M]); got " +
                std::to_string(prob.ldBlockScale) + ", " + std::to_string(prob.ldBlockInv));
  if ((k.geluGradIn || k.residualIn) &&
      (prob.ldIn < prob.n || prob.ldIn % (k.geluGradInFp8 ? 16 : 8) != 0))
    return fail(std::string("the ") + (k.geluGradIn ? "gelu_grad" : "residual") +
                " input's pitch must be at least N and a multiple of " +
                (k.geluGradInFp8 ? "16" : "8") + " elements (got " + std::to_string(prob.ldIn) +
                ")");
  if (k.scaleMode == GemmScaleMode::Block128) {
    if (prob.ldsa < prob.m)
      return fail("Block128: ldsa must be at least M");
    if (prob.ldsb < ceilDiv(prob.k, 128))
      return fail("Block128: ldsb must be at least ceil(K / 128)");
    // The kernel loads the scale grids by TMA: 16-byte row pitches.
    if (prob.ldsa % 4 != 0 || prob.ldsb % 4 != 0)
      return fail("Block128: ldsa and ldsb must be multiples of 4 (16-byte rows; got " +
                  std::to_string(prob.ldsa) + ", " + std::to_string(prob.ldsb) + ")");
  }
  if (!p)
    return Status::ok();
  if (!p->a || !p->b || !p->d || !p->invScaleA || !p->invScaleB)
    return fail("A, B, D and both scale pointers are required");
  if (k.swiglu && (!p->b2 || !p->invScaleB2 || !aligned(p->b2, 16)))
    return fail("the dual GEMM (swiglu) needs the up weight (b2, 16-byte aligned) and its scale "
                "(invScaleB2)");
  if (!aligned(p->a, 16) || !aligned(p->b, 16) || !aligned(p->d, 16))
    return fail("A, B and D must be 16-byte aligned");
  if (k.scaleMode == GemmScaleMode::Block128 &&
      (!aligned(p->invScaleA, 16) || !aligned(p->invScaleB, 16) ||
       (k.swiglu && !aligned(p->invScaleB2, 16))))
    return fail("Block128: the scale grids must be 16-byte aligned (the kernel loads them by "
                "TMA)");
  if (k.biasType && !p->bias)
    return fail("the kernel adds a bias but no bias pointer was given");
  if (k.amaxD && !p->amaxD)
    return fail("the kernel writes amax but no amaxD pointer was given");
  if (isFp8(k.dType) && !k.blockCast && !p->scaleD)
    return fail("an FP8 D needs scaleD");
  if (k.castA && !p->quantScaleA)
    return fail("the bf16-A prologue needs A's quantization scale (quantScaleA)");
  if (k.castAhead &&
      (!p->quantScaleA || !p->aCast || !aligned(p->aCast, 16) || !p->aReady || !aligned(p->aReady, 4)))
    return fail("cast-ahead A needs A's quantization scale (quantScaleA), the FP8 copy's buffer "
                "(aCast, 16-byte aligned) and its zeroed counters (aReady, "
                "gemmSm90CastAheadCounters(M) u32)");
  if (k.amaxA && !p->amaxA)
    return fail("the kernel writes the amax of A but no amaxA pointer was given");
  if ((k.auxOut && (!p->aux || !aligned(p->aux, 16))) || (k.transD && (!p->dT || !aligned(p->dT, 16))))
    return fail("the aux and D^T outputs need 16-byte aligned pointers");
  if (k.geluGradIn && (!p->epiIn || !aligned(p->epiIn, 16)))
    return fail("the gelu_grad epilogue needs the GELU's saved input (epiIn), 16-byte aligned");
  if (k.residualIn && (!p->epiIn || !aligned(p->epiIn, 16)))
    return fail("the residual add needs its input r (epiIn), 16-byte aligned");
  if (k.colSumType && (!p->colSums || !p->colPartials || !aligned(p->colPartials, 8)))
    return fail("the column sums need their output (colSums) and an 8-byte aligned f32 "
                "workspace of ceil(M/64) x N (colPartials)");
  if (p->pushHistory) {
    if (!k.amaxD || k.amaxRows || k.blockCast || !p->amaxD)
      return fail("a history push takes the kernel's tensor amax (amaxD, not per-row or "
                  "per-block amaxes)");
    if (!p->pushCounter || !aligned(p->pushCounter, 4) || p->pushLen < 1 || p->pushLen > INT32_MAX)
      return fail("a history push needs its zeroed u32 counter (pushCounter) and a history "
                  "length of at least 1");
    if (p->pushRound != DType::F32 && p->pushRound != DType::BF16 && p->pushRound != DType::F16)
      return fail("a history push rounds the amax to f32, bf16 or f16");
  }
  return Status::ok();
}

Expected<std::unique_ptr<GemmSm90Runner>> GemmSm90Runner::create(KernelCache *cache) {
  Expected<CudaDriver *> drvOr = CudaDriver::get();
  if (!drvOr)
    return Error(drvOr.error());
  Expected<Device> device = (*drvOr)->currentDevice("generated sm90 GEMM");
  if (!device)
    return Error(device.error());
  if (!GemmCapabilities::generatedRunsOn(device->ccMajor, device->ccMinor))
    return Error("generated sm90 GEMM needs a Hopper GPU (compute capability 9.0); " +
                 device->str() + " has " + std::to_string(device->ccMajor) + "." +
                 std::to_string(device->ccMinor) + ": use the cuBLASLt backend");
  std::unique_ptr<GemmSm90Runner> r(new GemmSm90Runner());
  r->cache_ = cache ? cache : &KernelCache::global();
  r->device_ = *device;
  return r;
}

Expected<GemmSm90Runner::Loaded> GemmSm90Runner::load(const GemmSm90Spec &k) {
  if (Status st = checkGemmSm90Spec(k); !st)
    return Error(st.message());
  const std::string name = k.name();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = loaded_.find(name); it != loaded_.end())
      return it->second;
  }
  Expected<std::shared_ptr<const CachedKernel>> ck = cache_->get(gemmSm90Request(k, device_.arch));
  if (!ck)
    return Error(ck.error());
  Expected<CUfunction> fn = LoadedModules::global().function(**ck, name);
  if (!fn)
    return Error(fn.error());
  if (Status st = setMaxDynamicSharedBytes(*fn, k.sharedBytes(), name); !st)
    return Error(st.message());
  Loaded l{*fn, nullptr, *ck, 0};
  if (k.colSumType) {
    Expected<CUfunction> sumFn = LoadedModules::global().function(**ck, name + "_colsum");
    if (!sumFn)
      return Error(sumFn.error());
    l.colSumFn = *sumFn;
  }
  if (k.clusterM > 1) {
    // How many clusters fit at once (a cluster's blocks share one GPC, so it can be fewer than
    // SMs / clusterM); the grid never asks for more.
    CudaDriver *drv = *CudaDriver::get();
    CUlaunchConfig cfg{};
    cfg.gridDimX = unsigned(std::max(k.clusterM, device_.smCount / k.clusterM * k.clusterM));
    cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = kThreads;
    cfg.blockDimY = cfg.blockDimZ = 1;
    cfg.sharedMemBytes = unsigned(k.sharedBytes());
    CUresult r = drv->cuOccupancyMaxActiveClusters(&l.maxClusters, *fn, &cfg);
    if (r != CUDA_SUCCESS)
      return Error(drv->errorMessage(r, "cuOccupancyMaxActiveClusters", name));
    if (l.maxClusters < 1)
      return Error("generated sm90 GEMM " + name + ": no cluster of " +
                   std::to_string(k.clusterM) + " blocks fits on " + device_.str());
  }
  std::lock_guard<std::mutex> lock(mu_);
  loaded_[name] = l;
  return l;
}

Expected<std::shared_ptr<const CachedKernel>> GemmSm90Runner::prepare(const GemmSm90Spec &k) {
  Expected<Loaded> l = load(k);
  if (!l)
    return Error(l.error());
  return l->kernel;
}

Expected<int> GemmSm90Runner::maxResidentBlocks(const GemmSm90Spec &k) {
  Expected<Loaded> l = load(k);
  if (!l)
    return Error(l.error());
  return k.clusterM > 1 ? l->maxClusters * k.clusterM : device_.smCount;
}

Status GemmSm90Runner::run(const GemmSm90Spec &config, const GemmSm90Problem &prob,
                           const GemmSm90Pointers &p, CUstream stream, int groupM,
                           int maxBlocks, bool dependent) {
  if (Status st = checkGemmSm90(config, prob, &p); !st)
    return st;
  const GemmSm90Spec k = launchedGemmSm90Kernel(config, prob);
  Expected<Loaded> l = load(k);
  if (!l)
    return Error(l.error());
  CudaDriver *drv = *CudaDriver::get();
  CUtensorMap mapA, mapB; // the type carries the alignment cuTensorMapEncodeTiled needs
  // Cast-ahead A: the main loop loads the FP8 copy the kernel writes.
  // A MN-major: tiles of 128 K rows by bm = 128 bytes of M from A^T [K, M].
  if (Status st = k.castAhead ? encodeOperandMap(drv, &mapA, p.aCast, prob.m, prob.k, prob.ldaCast,
                                                 k.bm, "A's FP8 copy", 1)
                  : k.aTransposed
                      ? encodeOperandMap(drv, &mapA, p.a, prob.k, prob.m, prob.lda, kBK, "A^T", 1)
                      : encodeOperandMap(drv, &mapA, p.a, prob.m, prob.k, prob.lda, k.bm,
                                         k.castA ? "bf16 A" : "A", k.castA ? 2 : 1);
      !st)
    return st;
  // With a cluster, each block loads (and multicasts) 1 / clusterM of the B tile; the dual
  // GEMM half of it from each weight.
  CUtensorMap mapB2{};
  if (Status st = encodeOperandMap(drv, &mapB, p.b, prob.n, prob.k, prob.ldb,
                            k.swiglu ? k.bn / 2 : k.bn / k.clusterM, k.swiglu ? "gate B" : "B");
      !st)
    return st;
  if (k.swiglu)
    if (Status st = encodeOperandMap(drv, &mapB2, p.b2, prob.n, prob.k, prob.ldb, k.bn / 2, "up B2"); !st)
      return st;
  // D in boxes of 64 rows x 128 bytes, 128-byte swizzle: the layout the epilogue writes its
  // chunks in; unused by the register epilogue.
  // With extra outputs, units of 64 x 64: an FP8 D and D^T in boxes of 64 rows x 64 bytes at
  // the 64-byte swizzle, the bf16 pre-activation (and a bf16 D) in 64 x 128 bytes at the
  // 128-byte swizzle.
  CUtensorMap mapD{}, mapAux{}, mapDT{};
  if (k.epilogueBuffers() > 0)
    if (Status st =
            encodeStoreMap(drv, &mapD, p.d, prob.m, prob.n, prob.ldd, isFp8(k.dType) ? 1 : 2,
                           k.extraOutputs() && isFp8(k.dType) ? 64 : 128);
        !st)
      return st;
  if (k.auxOut)
    if (Status st = encodeStoreMap(drv, &mapAux, p.aux, prob.m, prob.n, prob.ldAux,
                                   k.auxFp8 ? 1 : 2, k.auxFp8 ? 64 : 128, "aux");
        !st)
      return st;
  // D^T's columns run to M rounded up to 16 (within its pitch): the epilogue stages zeros for
  // rows >= M, so the pad columns of the transposed operand are written as zeros.
  if (k.transD)
    if (Status st = encodeStoreMap(drv, &mapDT, p.dT, prob.n, ceilDiv(prob.m, 16) * 16, prob.ldDT,
                                   1, 64, "D^T");
        !st)
      return st;
  CUtensorMap mapSA{}, mapSB{}, mapSB2{};
  if (k.scaleMode == GemmScaleMode::Block128) {
    const int64_t kBlocks = ceilDiv(prob.k, kBK), nBlocks = ceilDiv(prob.n, 128);
    if (Status st = encodeScaleMap(drv, &mapSA, p.invScaleA, kBlocks, prob.m, prob.ldsa, k.bm, 1,
                                   "A's 1x128 scales");
        !st)
      return st;
    if (Status st = encodeScaleMap(drv, &mapSB, p.invScaleB, nBlocks, kBlocks, prob.ldsb, 4, 2,
                                   "B's 128x128 scales");
        !st)
      return st;
    if (k.swiglu) // the up weight's grid: the same shape as the gate weight's
      if (Status st = encodeScaleMap(drv, &mapSB2, p.invScaleB2, nBlocks, kBlocks, prob.ldsb, 4,
                                     2, "B2's 128x128 scales");
          !st)
        return st;
  }
  DeviceParams dp{};
  dp.d = p.d;
  dp.scaleA = p.invScaleA;
  dp.scaleB = p.invScaleB;
  dp.bias = p.bias;
  dp.amax = p.amaxD;
  dp.scaleD = p.scaleD;
  dp.quantA = p.quantScaleA;
  dp.amaxA = p.amaxA;
  dp.epiIn = p.epiIn;
  dp.colPart = p.colPartials;
  dp.scaleB2 = p.invScaleB2;
  dp.blockScale = p.blockScale;
  dp.blockInv = p.blockInv;
  dp.ldbs = prob.ldBlockScale;
  dp.ldbi = prob.ldBlockInv;
  dp.castMargin = prob.castMargin;
  dp.castPow2 = prob.castPow2 ? 1 : 0;
  if (p.pushHistory) {
    dp.pushHistory = p.pushHistory;
    dp.pushCounter = p.pushCounter;
    dp.pushLen = int32_t(p.pushLen);
    dp.pushRound = p.pushRound == DType::BF16 ? 2 : p.pushRound == DType::F16 ? 1 : 0; // Dt
    dp.pushResetAmax = p.pushResetAmax ? 1 : 0;
  }
  if (k.castAhead) {
    dp.aSrc = p.a;
    dp.aCast = static_cast<uint8_t *>(p.aCast);
    dp.aReady = p.aReady;
    dp.ldaSrc = prob.lda;
    dp.ldaCast = prob.ldaCast;
  }
  dp.ldd = prob.ldd;
  dp.ldIn = prob.ldIn;
  dp.ldsa = prob.ldsa;
  dp.ldsb = prob.ldsb;
  dp.m = int32_t(prob.m);
  dp.n = int32_t(prob.n);
  dp.k = int32_t(prob.k);
  dp.tilesM = int32_t(ceilDiv(prob.m, k.bm));
  dp.tilesN = int32_t(ceilDiv(prob.n, k.outCols()));
  dp.kBlocks = int32_t(ceilDiv(prob.k, kBK));
  // The kernel walks units of clusterM vertically adjacent tiles; groupM counts unit rows.
  const int cm = k.clusterM;
  const int64_t unitsM = ceilDiv(dp.tilesM, cm);
  const int gm = groupM > 0 ? std::min(groupM, dp.tilesM) : gemmSm90GroupM(k, prob, device_);
  dp.groupM = int32_t(std::clamp<int64_t>(gm / cm, 1, unitsM));
  const int64_t units = unitsM * dp.tilesN;
  if (units * cm > INT32_MAX)
    return Error("generated sm90 GEMM " + k.name() + ": too many tiles");
  int64_t clusters = std::min<int64_t>(units, cm > 1 ? l->maxClusters : device_.smCount);
  if (maxBlocks > 0)
    clusters = std::min<int64_t>(clusters, std::max(1, maxBlocks / cm));
  const int blocks = int(clusters * cm);
  // The side launch's Args<sideBuffers>: its buffers, then its M (codegen/kernels/common.cuh).
  std::array<unsigned char, (kGemmSm90MaxSideBuffers + 1) * 8> side{};
  if (!k.sideSpec.empty()) {
    std::memcpy(side.data(), p.side.data(), size_t(k.sideBuffers) * sizeof(void *));
    const long long sm = p.sideM;
    std::memcpy(side.data() + size_t(k.sideBuffers) * sizeof(void *), &sm, sizeof sm);
  }
  void *args[] = {&mapA,  &mapB,  &mapB2,  &mapD, &mapAux,    &mapDT,
                  &mapSA, &mapSB, &mapSB2, &dp,   side.data()};
  // (A cluster kernel's launch carries its cluster shape in the binary; the programmatic
  // attribute is for single blocks, the decode tiles it helps.) Cast-ahead A's producers wait
  // for rows that other blocks cast: a cooperative launch, so that every block is resident at
  // once or the launch fails (a GPU whose SMs are shared, MPS) instead of hanging.
  const bool coop = k.castAhead;
  if (Status st = drv->launch(l->fn, unsigned(blocks), kThreads, unsigned(k.sharedBytes()),
                              stream, args, coop, k.name(),
                              dependent && k.clusterM == 1 && !coop);
      !st || !k.colSumType)
    return st;
  // The column sums: the partial sums of the ceil(M/64) slices added up in order.
  const float *part = p.colPartials;
  int slices = int(ceilDiv(prob.m, 64)), n = dp.n;
  void *out = p.colSums;
  void *sumArgs[] = {&part, &slices, &n, &out};
  return drv->launch(l->colSumFn, unsigned(ceilDiv(prob.n, 256)), 256, 0, stream, sumArgs, false,
                     k.name() + "_colsum");
}

} // namespace fp8c
