// fp8c-overlap-probe: on a power-capped GPU, does a memory-bound launch cost less beside a GEMM
// that leaves it a few SMs than after a GEMM on all of them? The training step runs its casts
// between its GEMMs at the GEMMs' capped clock, where a memory-bound launch draws less than the
// cap; side by side, the two would share the power budget instead. This measures it, with no
// change to the runtime: a promoting FP8 GEMM (M 8192 K 14336 N 4096, the Linear's dgrad,
// cooperative 128 x 192 x 5) and a gelu_grad-like pass (read 8192 x 14336 bf16 and e4m3, write
// two e4m3 copies: 587 MB), each iteration either
//   sequential:    the GEMM on every SM, then the pass on every SM (one stream), or
//   overlapped S:  the GEMM on SMs - S persistent blocks and the pass on S blocks of one SM each
//                  (second stream, joined by events every iteration),
// back to back for --seconds per mode, modes in rounds (--rounds), median time per iteration.
// Random operands (bench/DeviceFill.h). The pass's blocks take 1024 threads and 160 KB of shared
// memory, so a GEMM block and a pass block never share an SM.
//
//   fp8c-overlap-probe [--seconds S] [--rounds R] [--sms 8,16,...]
#include "bench/DeviceFill.h"

#include "runtime/cuda/CudaDriver.h"
#include "runtime/cuda/DeviceBuffer.h"
#include "runtime/gpu/GemmSm90.h"
#include "runtime/jit/Nvrtc.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace fp8c;

namespace {

[[noreturn]] void die(const std::string &m) {
  std::fprintf(stderr, "fp8c-overlap-probe: %s\n", m.c_str());
  std::exit(1);
}
void check(const Status &st) {
  if (!st)
    die(st.message());
}
CudaDriver *drv = nullptr;
void cu(CUresult r, const char *what) {
  if (r != CUDA_SUCCESS)
    die(drv->errorMessage(r, what));
}

constexpr int64_t kM = 8192, kK = 14336, kN = 4096; // the GEMM
constexpr int64_t kRows = 8192, kCols = 14336;      // the pass
constexpr int kPassThreads = 1024, kPassShared = 160 * 1024;

const char *kPassSource = R"(
typedef unsigned short u16;
typedef unsigned int u32;
__device__ __forceinline__ float bf(u32 w, int hi) { return __uint_as_float(hi ? (w & 0xFFFF0000u) : (w << 16)); }
__device__ __forceinline__ u32 e4m3x2(float lo, float hi) {
  unsigned short r;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(hi), "f"(lo));
  return r;
}
__device__ __forceinline__ void e4m3x2ToF(u32 two, float &lo, float &hi) {
  u32 h2;
  asm("{.reg .b16 t; mov.b16 t, %1; cvt.rn.f16x2.e4m3x2 %0, t;}" : "=r"(h2) : "h"((u16)two));
  asm("{.reg .b16 a, b; mov.b32 {a, b}, %2; cvt.f32.f16 %0, a; cvt.f32.f16 %1, b;}" : "=f"(lo), "=f"(hi) : "r"(h2));
}
extern "C" __global__ void __launch_bounds__(1024, 1)
pass(const uint4 *a, const uint2 *b, uint2 *c, uint2 *d, long n8, float s) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n8; i += (long)gridDim.x * blockDim.x) {
    const uint4 x = a[i];
    const uint2 y = b[i];
    const u32 xs[4] = {x.x, x.y, x.z, x.w};
    const u32 ys[2] = {y.x, y.y};
    u32 co[2] = {0, 0}, dout[2] = {0, 0};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      float g0, g1;
      e4m3x2ToF(ys[j / 2] >> (16 * (j % 2)), g0, g1);
      const float v0 = bf(xs[j], 0) * s, v1 = bf(xs[j], 1) * s;
      co[j / 2] |= e4m3x2(v0, v1) << (16 * (j % 2));
      dout[j / 2] |= e4m3x2(v0 * g0, v1 * g1) << (16 * (j % 2));
    }
    c[i] = make_uint2(co[0], co[1]);
    d[i] = make_uint2(dout[0], dout[1]);
  }
}
)";

} // namespace

int main(int argc, char **argv) {
  double seconds = 1.5;
  int rounds = 3;
  std::vector<int> sms{8, 16, 24, 32};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seconds" && i + 1 < argc)
      seconds = std::atof(argv[++i]);
    else if (a == "--rounds" && i + 1 < argc)
      rounds = std::atoi(argv[++i]);
    else if (a == "--sms" && i + 1 < argc) {
      sms.clear();
      std::stringstream ss(argv[++i]);
      for (std::string t; std::getline(ss, t, ',');)
        sms.push_back(std::atoi(t.c_str()));
    } else
      die("unknown argument " + a +
          " (usage: fp8c-overlap-probe [--seconds S] [--rounds R] "
          "[--sms 8,16,...])");
  }
  Expected<CudaDriver *> d = CudaDriver::get();
  if (!d)
    die(d.error());
  drv = *d;
  check(drv->makeCurrent(0));
  Expected<std::unique_ptr<GemmSm90Runner>> g = GemmSm90Runner::create();
  if (!g)
    die(g.error());
  const int smCount = (*g)->device().smCount;
  std::printf("device: %s\n", (*g)->device().str().c_str());

  // The pass: compile, load, allow its shared memory.
  NvrtcRequest req;
  req.kernelName = "pass";
  req.source = kPassSource;
  req.arch = (*g)->device().arch;
  Expected<NvrtcResult> cr = compileWithNvrtc(req);
  if (!cr)
    die(cr.error());
  CUmodule mod;
  CUfunction pass;
  cu(drv->cuModuleLoadData(&mod, cr->cubin.data()), "cuModuleLoadData");
  cu(drv->cuModuleGetFunction(&pass, mod, "pass"), "cuModuleGetFunction");
  cu(drv->cuFuncSetAttribute(pass, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, kPassShared),
     "cuFuncSetAttribute");

  auto buffer = [](size_t bytes, const char *what) {
    Expected<DeviceBuffer> b = bench::allocateFor(bytes, what);
    if (!b)
      die(b.error());
    return b.take();
  };
  DeviceBuffer A = buffer(size_t(kM * kK), "A"), B = buffer(size_t(kN * kK), "B"),
               D = buffer(size_t(kM * kN * 2), "D"), one = buffer(16, "scale");
  DeviceBuffer pa = buffer(size_t(kRows * kCols * 2), "pass in"),
               pb = buffer(size_t(kRows * kCols), "pass saved"),
               pc = buffer(size_t(kRows * kCols), "pass out"),
               pd = buffer(size_t(kRows * kCols), "pass out 2");
  check(bench::fillRandom(A, kM * kK, DType::F8E4M3FN, 1.0, 1));
  check(bench::fillRandom(B, kN * kK, DType::F8E4M3FN, 1.0, 2));
  check(bench::fillRandom(pa, kRows * kCols, DType::BF16, 1.0, 3));
  check(bench::fillRandom(pb, kRows * kCols, DType::F8E4M3FN, 1.0, 4));
  check(bench::fillF32(one, 4, 1.0f, nullptr));

  GemmSm90Kernel k;
  k.fastAccum = false;
  k.bn = 192;
  k.stages = 5;
  k.overlap = false;
  const GemmSm90Problem prob{kM, kN, kK, kK, kK, kN};
  GemmSm90Pointers gp;
  gp.a = A.data();
  gp.b = B.data();
  gp.d = D.data();
  gp.invScaleA = gp.invScaleB = static_cast<const float *>(one.data());
  if (Expected<std::shared_ptr<const CachedKernel>> ck = (*g)->prepare(k); !ck)
    die(ck.error());

  CUstream s1, s2;
  cu(drv->cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  cu(drv->cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  CUevent fork, join, t0, t1;
  for (CUevent *e : {&fork, &join})
    cu(drv->cuEventCreate(e, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  for (CUevent *e : {&t0, &t1})
    cu(drv->cuEventCreate(e, CU_EVENT_DEFAULT), "cuEventCreate");

  const long n8 = long(kRows * kCols / 8);
  float scale = 0.5f;
  auto launchPass = [&](CUstream st, unsigned blocks) {
    const void *a = pa.data(), *b = pb.data();
    void *c = pc.data(), *dd = pd.data();
    void *args[] = {&a, &b, &c, &dd, const_cast<long *>(&n8), &scale};
    check(drv->launch(pass, blocks, kPassThreads, kPassShared, st, args, false, "pass"));
  };
  // One iteration of a mode: S = 0 sequential, -1 the GEMM alone, -2 the pass alone.
  auto iteration = [&](int S) {
    if (S == -2) {
      launchPass(s1, unsigned(smCount));
    } else if (S <= 0) {
      check((*g)->run(k, prob, gp, s1));
      if (S == 0)
        launchPass(s1, unsigned(smCount));
    } else {
      cu(drv->cuEventRecord(fork, s1), "cuEventRecord");
      cu(drv->cuStreamWaitEvent(s2, fork, 0), "cuStreamWaitEvent");
      check((*g)->run(k, prob, gp, s1, 0, smCount - S));
      launchPass(s2, unsigned(S));
      cu(drv->cuEventRecord(join, s2), "cuEventRecord");
      cu(drv->cuStreamWaitEvent(s1, join, 0), "cuStreamWaitEvent");
    }
  };
  std::vector<int> modes{-1, -2, 0};
  modes.insert(modes.end(), sms.begin(), sms.end());
  std::map<int, std::vector<double>> us;
  for (int r = 0; r < rounds; ++r)
    for (int S : modes) {
      // Back to back for `seconds`, in batches of 20 iterations timed by events on s1.
      const auto start = std::chrono::steady_clock::now();
      double totalMs = 0;
      long iters = 0;
      while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
             seconds) {
        cu(drv->cuEventRecord(t0, s1), "cuEventRecord");
        for (int i = 0; i < 20; ++i)
          iteration(S);
        cu(drv->cuEventRecord(t1, s1), "cuEventRecord");
        cu(drv->cuEventSynchronize(t1), "cuEventSynchronize");
        float ms = 0;
        cu(drv->cuEventElapsedTime(&ms, t0, t1), "cuEventElapsedTime");
        // The first third of the block warms the clock down to its capped level.
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
            seconds / 3) {
          totalMs += ms;
          iters += 20;
        }
      }
      us[S].push_back(iters ? totalMs * 1e3 / double(iters) : 0);
    }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double gemm = median(us[-1]), passUs = median(us[-2]), seq = median(us[0]);
  std::printf("GEMM alone (%d blocks): %.1f us; pass alone (%d blocks): %.1f us (%.2f TB/s)\n",
              smCount, gemm, smCount, passUs, double(kRows * kCols * 5) / passUs / 1e6);
  std::printf("sequential: %.1f us per iteration\n", seq);
  for (int S : sms)
    std::printf("overlapped, pass on %2d SMs, GEMM on %3d: %.1f us per iteration (%.3fx the "
                "sequential time)\n",
                S, smCount - S, median(us[S]), median(us[S]) / seq);
  std::printf("(medians over %d rounds of %.1f s per mode, the last two thirds of each timed)\n",
              rounds, seconds);
  return 0;
}
