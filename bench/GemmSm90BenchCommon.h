// fp8c-gemm-bench's shared pieces (GemmSm90Bench.cpp: main, the generated GEMM's configs and
// the fused epilogues; GemmSm90CastBench.cpp: the bf16-A prologue): the driver and error exit,
// device buffers of random or given values, the median-of-batches timer, the operands of one
// shape and cuBLASLt's plain e4m3 GEMM on them. Defined in GemmSm90BenchCommon.cpp.
#pragma once

#include "ir/Status.h"
#include "runtime/cuda/CudaDriver.h"
#include "runtime/cuda/DeviceBuffer.h"
#include "runtime/gpu/CublasLtGemm.h"
#include "runtime/gpu/GemmSm90.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fp8c::gemmbench {

/// The CUDA driver, set by main before any section runs.
extern CudaDriver *drv;
/// --dump-cubin: the directory dumpCubin writes to (empty: none).
extern std::string dumpDir;

/// Seconds since the start, printed in section headers (to line them up with clock logs).
double elapsedS();
/// Prints "fp8c-gemm-bench: <m>" to stderr and exits with status 1.
[[noreturn]] void die(const std::string &m);
/// A device buffer of `bytes` bytes (dies on failure).
DeviceBuffer alloc(size_t bytes);
/// Random e4m3 values of a normal distribution (never NaN), as n bytes.
DeviceBuffer randomFp8(size_t n, uint64_t seed);
/// Random bf16 values of a normal distribution, as a device buffer of n elements.
DeviceBuffer randomBf16(size_t n, uint64_t seed);
/// The f32 values `v` (at least 16 bytes).
DeviceBuffer scalars(const std::vector<float> &v);
/// Median milliseconds per call of `work(i)` over batches of `reps` calls.
double timeMs(int reps, const std::function<Status(int)> &work);
/// --soak: `work` back to back for `seconds`, bracketed by Unix times, to line up with a clock
/// and power log (nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw -lms); prints a line
/// naming `name` with the calls, the time per call and the two Unix times.
void soak(const std::string &name, double seconds, const std::function<Status(int)> &work);
/// Compiles and loads `k` (dies on failure) and, with --dump-cubin, writes its CUBIN.
void dumpCubin(GemmSm90Runner &g, const GemmSm90Spec &k);

struct Shape {
  int64_t m, k, n;
};

struct Operands {
  int64_t m, k, n;
  DeviceBuffer a;
  std::vector<DeviceBuffer> b;
  DeviceBuffer d, dRef, sa, sb;
};

/// Random e4m3 A (M x K) and B (N x K, several sets when they would fit in L2), D and its
/// reference, tensor scales 0.5 (A) and 0.25 (B).
Operands makeOperands(const Shape &s, const Device &dev);
/// cuBLASLt's plain e4m3 x e4m3 -> bf16 GEMM of shape `s` (fast accumulation, tensor scales).
CublasLtGemmConfig plainLtConfig(const Shape &s);
/// cuBLASLt's pointers for call i (B set i) into o.dRef, A's inverse scale from `invScaleA`.
CublasLtGemmPointers plainLtPointers(Operands &o, int i, const DeviceBuffer &invScaleA);
/// Launches per timed batch for shape `s` (about 0.2 ms of work or more).
int repsFor(const Shape &s);

/// The bf16-A section at shape `s` (GemmSm90CastBench.cpp); `hbmTBs` is --hbm-tbs, `prologue`
/// false (--no-prologue) leaves out the bf16-A prologue's kernels, `soakS` (--soak) runs the
/// e4m3-A and cast-ahead kernels back to back that many seconds more each.
void benchCastA(GemmSm90Runner &g, CublasLtRunner &lt, const Shape &s, double hbmTBs,
                bool prologue, double soakS);
/// --accum-probe: each GEMM's promotion interval, read from its output
/// (GemmSm90AccumProbe.cpp).
void accumProbe(GemmSm90Runner &g, CublasLtRunner &lt);
/// The gelu_grad dgrad GEMM's forms at shape `s` (GemmSm90GeluGradBench.cpp).
void benchGeluGrad(GemmSm90Runner &g, const Shape &s);

} // namespace fp8c::gemmbench
