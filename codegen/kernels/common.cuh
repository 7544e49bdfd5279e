// fp8c device basics, shared by every generated kernel: element types and their conversions,
// 16-byte vector loads and stores of chunks of elements, the kernel argument struct, NaN-aware
// max reductions (warp, segment, block, grid via atomics), the fp8.scale formula, and a grid
// barrier for cooperative launches.
//
// Numerics are those of the CPU interpreter (interp/, docs/numerics.md), bit for bit:
//   - conversions go through the same PTX instructions the toolkit's cuda_fp8.h / cuda_bf16.h /
//     cuda_fp16.h use on sm_89+ (cvt.rn.satfinite.e4m3x2.f32, cvt.rn.bf16x2.f32, ...), written
//     here as inline asm so that no toolkit header (and no include path) is needed;
//   - every NaN result is the canonical NaN 0x7FFFFFFF (f32) / 0x7FFF (f16, bf16) / 0x7F (FP8);
//   - products, quotients and sums that the interpreter rounds are written with the _rn
//     intrinsics, which the compiler never contracts into FMAs (and fp8c compiles with
//     --fmad=false besides).
// Compiled by NVRTC with --std=c++17 for sm_89 and sm_90a. No host code, no toolkit headers.
#pragma once

namespace fp8c {

using i64 = long long;

/// Compile-time helpers are usable in device code and in constant expressions.
#define FP8C_HD __host__ __device__
using u32 = unsigned int;
using u16 = unsigned short;
using u8 = unsigned char;

/// Threads of every generated block.
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

/// The only kernel parameter: one device pointer per buffer of the launch, then M.
template <int N> struct Args {
  void *buffers[N];
  i64 m;
};

/// A run-time size a * M + b (rows of a tensor whose leading dim is dynamic).
struct Extent {
  i64 perM;
  i64 fixed;
  FP8C_HD constexpr i64 eval(i64 m) const { return perM * m + fixed; }
};

// --- element types ---------------------------------------------------------------------------

enum class Dt : int { F32, F16, BF16, E4M3, E5M2 };

template <Dt D> struct DtInfo;
template <> struct DtInfo<Dt::F32> {
  using Storage = float;
  static constexpr int kBytes = 4;
};
template <> struct DtInfo<Dt::F16> {
  using Storage = u16;
  static constexpr int kBytes = 2;
};
template <> struct DtInfo<Dt::BF16> {
  using Storage = u16;
  static constexpr int kBytes = 2;
};
template <> struct DtInfo<Dt::E4M3> {
  using Storage = u8;
  static constexpr int kBytes = 1;
};
template <> struct DtInfo<Dt::E5M2> {
  using Storage = u8;
  static constexpr int kBytes = 1;
};

FP8C_HD constexpr bool isFp8(Dt d) { return d == Dt::E4M3 || d == Dt::E5M2; }
FP8C_HD constexpr int dtBytes(Dt d) {
  return d == Dt::F32 ? 4 : (d == Dt::F16 || d == Dt::BF16) ? 2 : 1;
}
/// Largest finite value of an FP8 type (the `fmax` of the scale formula).
FP8C_HD constexpr float fp8Max(Dt d) { return d == Dt::E4M3 ? 448.0f : 57344.0f; }

__device__ __forceinline__ float canonicalNaN() { return __int_as_float(0x7FFFFFFF); }
__device__ __forceinline__ bool isNaN(float x) { return x != x; }
/// True for finite values (false for +-inf and NaN).
__device__ __forceinline__ bool isFiniteF(float x) { return fabsf(x) <= 3.402823466e38f; }

// Two f32 -> one packed pair (lo in the low half), round to nearest even.
__device__ __forceinline__ u32 packBf16x2(float lo, float hi) {
  u32 r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
__device__ __forceinline__ u32 packF16x2(float lo, float hi) {
  u32 r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
// Two f32 -> two FP8 bytes, saturating to +-max (the toolkit's __NV_SATFINITE), NaN -> 0x7F.
template <Dt D> __device__ __forceinline__ u16 packFp8x2(float lo, float hi) {
  u16 r;
  if constexpr (D == Dt::E4M3)
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(hi), "f"(lo));
  else
    asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(r) : "f"(hi), "f"(lo));
  return r;
}

__device__ __forceinline__ float bf16ToF32(u16 b) { return __uint_as_float(u32(b) << 16); }
__device__ __forceinline__ float f16ToF32(u16 h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return isNaN(f) ? canonicalNaN() : f;
}
template <Dt D> __device__ __forceinline__ float fp8ToF32(u8 b) {
  // FP8 -> f16 (exact) -> f32 (exact), as __nv_cvt_fp8_to_halfraw + __half2float.
  u32 h2;
  const u16 in = b;
  if constexpr (D == Dt::E4M3)
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h2) : "h"(in));
  else
    asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(h2) : "h"(in));
  return f16ToF32(u16(h2 & 0xFFFFu));
}

/// Storage -> f32 (exact for every type).
template <Dt D> __device__ __forceinline__ float toF32(typename DtInfo<D>::Storage s) {
  if constexpr (D == Dt::F32)
    return s;
  else if constexpr (D == Dt::BF16)
    return bf16ToF32(s);
  else if constexpr (D == Dt::F16)
    return f16ToF32(s);
  else
    return fp8ToF32<D>(s);
}

/// f32 -> storage, rounding once (RNE; FP8 saturating).
template <Dt D> __device__ __forceinline__ typename DtInfo<D>::Storage fromF32(float x) {
  if constexpr (D == Dt::F32)
    return isNaN(x) ? canonicalNaN() : x;
  else if constexpr (D == Dt::BF16)
    return u16(packBf16x2(x, 0.0f) & 0xFFFFu);
  else if constexpr (D == Dt::F16)
    return u16(packF16x2(x, 0.0f) & 0xFFFFu);
  else
    return u8(packFp8x2<D>(x, 0.0f) & 0xFFu);
}

/// The "one rounding to the result dtype" of every op (the interpreter's finish()).
template <Dt D> __device__ __forceinline__ float roundTo(float x) {
  if constexpr (D == Dt::F32) {
    return isNaN(x) ? canonicalNaN() : x;
  } else if constexpr (D == Dt::BF16) {
    // x rounded into the high half, +0 into the low half: the word is the widened bf16 (the
    // same bits as toF32(fromF32(x)), in one instruction instead of two).
    return __uint_as_float(packBf16x2(0.0f, x));
  } else {
    return toF32<D>(fromF32<D>(x));
  }
}

// --- chunks of E consecutive elements: loads and stores ----------------------------------------
// A chunk is E elements of one row. Aligned chunks move as 16-byte (or, when the chunk is
// smaller, 8/4-byte) vectors; a chunk that crosses the end of the valid columns, or a row pitch
// that is not a multiple of 16 bytes, falls back to element accesses.

template <int Bytes> struct Word;
template <> struct Word<16> { using T = uint4; };
template <> struct Word<8> { using T = uint2; };
template <> struct Word<4> { using T = u32; };
template <> struct Word<2> { using T = u16; };
template <> struct Word<1> { using T = u8; };

/// Bytes moved per memory instruction for a chunk of `chunkBytes` bytes.
FP8C_HD constexpr int accessBytes(int chunkBytes) { return chunkBytes >= 16 ? 16 : chunkBytes; }

/// The raw words of one chunk of E elements of type D: what loadWords reads and widenWords
/// turns into f32 (apart, so that a loop can issue the next chunk's loads before it computes).
template <Dt D, int E> struct ChunkWords {
  static constexpr int kBytes = E * DtInfo<D>::kBytes;
  static constexpr int kAccess = accessBytes(kBytes);
  using W = typename Word<kAccess>::T;
  static constexpr int kWords = kBytes / kAccess;
  union {
    W w[kWords];
    typename DtInfo<D>::Storage s[E];
    u32 pair[(kBytes + 3) / 4];
  } u;
};

/// Loads the chunk at p (aligned to min(16, E * size)) into its raw words.
template <Dt D, int E>
__device__ __forceinline__ void loadWords(const void *p, ChunkWords<D, E> &c) {
  using W = typename ChunkWords<D, E>::W;
  const W *src = static_cast<const W *>(p);
#pragma unroll
  for (int i = 0; i < ChunkWords<D, E>::kWords; ++i)
    c.u.w[i] = __ldg(src + i);
}

/// Widens a loaded chunk to f32.
template <Dt D, int E>
__device__ __forceinline__ void widenWords(const ChunkWords<D, E> &c, float (&v)[E]) {
  if constexpr (D == Dt::BF16 && E % 2 == 0) {
    // A bf16 is the high half of its f32: one shift or one mask per element.
#pragma unroll
    for (int e = 0; e < E; e += 2) {
      v[e] = __uint_as_float(c.u.pair[e / 2] << 16);
      v[e + 1] = __uint_as_float(c.u.pair[e / 2] & 0xFFFF0000u);
    }
  } else {
#pragma unroll
    for (int e = 0; e < E; ++e)
      v[e] = toF32<D>(c.u.s[e]);
  }
}

/// Loads E elements at p (which must be aligned to min(16, E * size)) and widens them to f32.
template <Dt D, int E> __device__ __forceinline__ void loadChunk(const void *p, float (&v)[E]) {
  ChunkWords<D, E> c;
  loadWords<D, E>(p, c);
  widenWords<D, E>(c, v);
}

/// Rounds E f32 values to D and stores them at p (aligned to min(16, E * size)).
template <Dt D, int E> __device__ __forceinline__ void storeChunk(void *p, const float (&v)[E]) {
  constexpr int kBytes = E * DtInfo<D>::kBytes;
  constexpr int kAccess = accessBytes(kBytes);
  using W = typename Word<kAccess>::T;
  constexpr int kWords = kBytes / kAccess;
  union {
    W w[kWords];
    u32 u[(kBytes + 3) / 4];
    u16 h[(kBytes + 1) / 2];
    u8 b[kBytes];
    float f[(kBytes + 3) / 4];
  } u;
  if constexpr (D == Dt::F32) {
#pragma unroll
    for (int e = 0; e < E; ++e)
      u.f[e] = fromF32<D>(v[e]);
  } else if constexpr (D == Dt::BF16 || D == Dt::F16) {
    if constexpr (E % 2 == 0) {
#pragma unroll
      for (int e = 0; e < E; e += 2)
        u.u[e / 2] = D == Dt::BF16 ? packBf16x2(v[e], v[e + 1]) : packF16x2(v[e], v[e + 1]);
    } else {
#pragma unroll
      for (int e = 0; e < E; ++e)
        u.h[e] = fromF32<D>(v[e]);
    }
  } else {
    if constexpr (E % 2 == 0) {
#pragma unroll
      for (int e = 0; e < E; e += 2)
        u.h[e / 2] = packFp8x2<D>(v[e], v[e + 1]);
    } else {
#pragma unroll
      for (int e = 0; e < E; ++e)
        u.b[e] = fromF32<D>(v[e]);
    }
  }
  W *dst = static_cast<W *>(p);
#pragma unroll
  for (int i = 0; i < kWords; ++i)
    dst[i] = u.w[i];
}

/// One element load / store (the unaligned and partial-chunk path).
template <Dt D> __device__ __forceinline__ float loadOne(const void *base, i64 index) {
  return toF32<D>(static_cast<const typename DtInfo<D>::Storage *>(base)[index]);
}
template <Dt D> __device__ __forceinline__ void storeOne(void *base, i64 index, float x) {
  static_cast<typename DtInfo<D>::Storage *>(base)[index] = fromF32<D>(x);
}

__device__ __forceinline__ float *f32p(void *p) { return static_cast<float *>(p); }

// --- NaN-aware max of magnitudes ----------------------------------------------------------------
// Magnitudes are non-negative floats or the canonical NaN 0x7FFFFFFF. As signed ints their bit
// patterns sort like their values, and the NaN sorts above +inf, so an integer max is a
// NaN-propagating float max, and atomicMax on the int bits is a grid-wide amax.

/// |x|, with every NaN made canonical.
__device__ __forceinline__ float magnitude(float x) {
  const float a = fabsf(x);
  return isNaN(a) ? canonicalNaN() : a;
}
/// max of two magnitudes; NaN wins.
__device__ __forceinline__ float maxMag(float a, float b) {
  return __int_as_float(max(__float_as_int(a), __float_as_int(b)));
}
/// *addr = max(*addr, v) for magnitudes (*addr starts at +0: the buffer is zero-initialized).
__device__ __forceinline__ void atomicMaxMag(float *addr, float v) {
  atomicMax(reinterpret_cast<int *>(addr), __float_as_int(v));
}

/// Max over groups of `Lanes` consecutive lanes of a warp (Lanes a power of two <= 32); every
/// lane of the group gets the result. All 32 lanes must call it.
template <int Lanes> __device__ __forceinline__ float groupMaxMag(float v) {
#pragma unroll
  for (int d = Lanes / 2; d >= 1; d /= 2)
    v = maxMag(v, __shfl_xor_sync(0xFFFFFFFFu, v, d));
  return v;
}

/// Max over segments of `Seg` consecutive threads of the block (Seg a power of two, <= kThreads);
/// every thread of the segment gets the result. Every thread of the block must call it, and
/// `scratch` must hold kWarps floats that no other thread is using.
template <int Seg> __device__ __forceinline__ float segmentMaxMag(float v, float *scratch) {
  if constexpr (Seg <= 32) {
    return groupMaxMag<Seg>(v);
  } else {
    v = groupMaxMag<32>(v);
    const int warp = threadIdx.x / 32;
    __syncthreads(); // scratch may still be read by an earlier call
    if (threadIdx.x % 32 == 0)
      scratch[warp] = v;
    __syncthreads();
    constexpr int kWarpsPerSeg = Seg / 32;
    const int first = warp / kWarpsPerSeg * kWarpsPerSeg;
    float r = scratch[first];
#pragma unroll
    for (int w = 1; w < kWarpsPerSeg; ++w)
      r = maxMag(r, scratch[first + w]);
    return r;
  }
}

/// Max over the whole block; every thread gets the result.
__device__ __forceinline__ float blockMaxMag(float v, float *scratch) {
  return segmentMaxMag<kThreads>(v, scratch);
}

// --- the scale formula (fp8.scale, fp8.history_scale) -------------------------------------------

/// |s| rounded down to a power of two, sign kept; 0, inf and NaN unchanged.
__device__ __forceinline__ float roundDownPow2(float s) {
  const u32 u = __float_as_uint(s);
  const u32 mag = u & 0x7FFFFFFFu;
  if (mag == 0 || mag >= 0x7F800000u)
    return s;
  const u32 kept = mag >= 0x00800000u ? (mag & 0x7F800000u) : (0x80000000u >> __clz(mag));
  return __uint_as_float((u & 0x80000000u) | kept);
}

/// s = fmax(FP8) / amax / 2^margin: non-finite amax -> NaN; amax == 0 -> 1; the quotient is
/// rounded once (IEEE division), the power of two is exact; inf -> FLT_MAX (sign kept); with
/// pow2, |s| is rounded down to a power of two. Exactly the interpreter's scaleFromAmax.
template <Dt F8> __device__ __forceinline__ float scaleFromAmax(float amax, int margin, bool pow2) {
  if (!isFiniteF(amax))
    return canonicalNaN();
  if (amax == 0.0f)
    return 1.0f;
  float s = ldexpf(__fdiv_rn(fp8Max(F8), amax), -margin);
  if (fabsf(s) > 3.402823466e38f)
    s = copysignf(3.402823466e38f, s);
  return pow2 ? roundDownPow2(s) : s;
}

// --- programmatic dependent launch (sm_90) -----------------------------------------------------

/// Lets the next kernel of the stream, if it was launched as a programmatic dependent
/// (CudaDriver::launch with `dependent`), start its blocks now: it waits in
/// waitForPrerequisiteGrids() until this grid has finished and its writes are visible. A no-op
/// without such a dependent, and before sm_90.
__device__ __forceinline__ void allowDependentLaunch() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
/// Waits until the grids this one depends on (programmatic dependent launch) have completed and
/// their memory operations are visible; returns at once for a kernel launched without it.
__device__ __forceinline__ void waitForPrerequisiteGrids() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// The first statement of every generated launch's entry point: its own dependents (the next
/// launch of the stream, when launched programmatically dependent) may start their blocks now,
/// and this grid's first global read or write waits until the grid before it has finished.
/// Without programmatic dependent launch both return at once.
__device__ __forceinline__ void enterLaunch() {
  allowDependentLaunch();
  waitForPrerequisiteGrids();
}

/// The dequantization factor cuBLASLt multiplies by: 1 / s, correctly rounded.
__device__ __forceinline__ float reciprocal(float s) { return __fdiv_rn(1.0f, s); }

// --- the last block of a reduction -------------------------------------------------------------

/// For a reduction whose last block finishes it: call after this block's threads wrote their
/// partial results (every thread of the block calls it). Returns to every thread whether this
/// block was the last of `arrivals` to count itself in `*counter`; the last block may then read
/// every block's partials (with __ldcg). Thread 0 alone fences, before its count (release) and,
/// in the last block, after it (acquire): the block barrier before orders the other threads'
/// writes before that fence, as in cooperative groups' grid sync. A fence in every thread made
/// every warp wait for its own outstanding loads and stores, among them the next tile's loads
/// (H200, Nsight Compute: 8-10 % of the column-sum cast-transposes' stall samples).
__device__ __forceinline__ bool lastToArrive(u32 *counter, u32 arrivals) {
  __shared__ int last;
  __syncthreads(); // the block's partials are written; the previous call's reads of `last` done
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(counter, 1u) == arrivals - 1;
    if (last)
      __threadfence();
  }
  __syncthreads();
  return last != 0;
}

// --- delayed scaling's history push ------------------------------------------------------------
// fp8.history_push skips a non-finite amax (IR.h): the history stays as it was, so the next
// step's scale is the one this step used, and the skip is counted. A history updated in place
// is persistent state (BufferRole::State), whose buffer holds one u32 after its len f32
// entries: the count of amaxes its pushes skipped since the state was last zeroed
// (MemoryPlan::kStateCounterBytes; Executable::nonFiniteReport reads it). A push into another
// buffer (historyPushTo) skips the same way without counting.

/// The skip counter of the in-place history h[len] (the u32 after its entries).
__device__ __forceinline__ u32 *historySkipCounter(float *h, int len) {
  return reinterpret_cast<u32 *>(h + len);
}

/// fp8.history_push in place by one warp: h = [amax, h[0], ..., h[len - 2]], moved 32 entries
/// at a time from the top, so no entry is overwritten before it is read; a non-finite amax
/// leaves h as it is and counts the skip. Every lane calls it with the same amax.
__device__ __forceinline__ void warpHistoryPush(float *h, int len, float amax, int lane) {
  if (!isFiniteF(amax)) {
    if (lane == 0)
      atomicAdd(historySkipCounter(h, len), 1u);
    __syncwarp();
    return;
  }
  for (int base = (len - 1) / 32 * 32; base >= 0; base -= 32) {
    const int i = base + lane;
    const float keep = i >= 1 && i < len ? h[i - 1] : 0.0f;
    __syncwarp();
    if (i >= 1 && i < len)
      h[i] = keep;
    __syncwarp();
  }
  if (lane == 0)
    h[0] = amax;
  __syncwarp();
}

// --- grid barrier (cooperative launches only) --------------------------------------------------

/// Waits until every block of the grid has arrived; all blocks must be co-resident (cooperative
/// launch). `bar` = {arrived, left} is a persistent pair of counters (BufferRole::Scratch): zero
/// before the launch and zero again after it, so no run has to clear it. Each block's thread 0
/// counts itself in `arrived`, waits for the whole grid, reads `*amax` if given (the value the
/// grid reduced before arriving), then counts itself in `left`; the last block to leave knows
/// that every block has passed the barrier and read `*amax`, so it resets the counters and,
/// with ResetAmax (an amax that is the launch's own scratch), `*amax`. Returns the amax read
/// (0 if none) to every thread of the block. A grid of one block (launched plainly, not
/// cooperatively) touches no counter.
template <bool ResetAmax = false>
__device__ __forceinline__ float gridBarrier(u32 *bar, float *amax = nullptr) {
  __shared__ float seen;
  __syncthreads();
  if (threadIdx.x == 0) {
    // Alone (a plain launch), the block barrier above ordered the block's amax atomics.
    const bool alone = gridDim.x == 1;
    if (!alone) {
      __threadfence();
      atomicAdd(bar, 1u);
      while (atomicAdd(bar, 0u) < gridDim.x) {
        __nanosleep(64);
      }
      __threadfence();
    }
    seen = amax ? __ldcg(amax) : 0.0f;
    if (alone || atomicAdd(bar + 1, 1u) == gridDim.x - 1) {
      if constexpr (ResetAmax)
        atomicExch(amax, 0.0f);
      if (!alone) {
        atomicExch(bar, 0u);
        atomicExch(bar + 1, 0u);
      }
    }
  }
  __syncthreads();
  return seen;
}

} // namespace fp8c
