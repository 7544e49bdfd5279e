// Counting the NaN and +-inf elements of a tensor: the output checks an Executable runs after
// its steps when CompileOptions::countNonFinite is on (docs/numerics.md, "Reporting"). One
// launch per output reads it once, 16 bytes per thread per step (grid-stride), tests each
// element's exponent bits (all ones: NaN or inf; e4m3fn has no inf, its NaN is S.1111.111) and
// adds each warp's count to *count with one atomic where it is not zero: a clean tensor costs
// its bytes at the device's read rate and no atomic.
#pragma once

#include "fp8c/common.cuh"

namespace fp8c {

/// Whether the element with these storage bits is NaN or +-inf.
template <Dt D> __device__ __forceinline__ bool nonFiniteBits(u32 bits) {
  if constexpr (D == Dt::F32)
    return (bits & 0x7F800000u) == 0x7F800000u;
  else if constexpr (D == Dt::F16)
    return (bits & 0x7C00u) == 0x7C00u;
  else if constexpr (D == Dt::BF16)
    return (bits & 0x7F80u) == 0x7F80u;
  else if constexpr (D == Dt::E4M3)
    return (bits & 0x7Fu) == 0x7Fu;
  else
    return (bits & 0x7Cu) == 0x7Cu;
}

/// The storage of a D element as an unsigned integer of its width.
template <Dt D> struct BitsOf { using T = typename DtInfo<D>::Storage; };
template <> struct BitsOf<Dt::F32> { using T = u32; };

/// Non-finite elements among the 16 / sizeof(element) in one 16-byte word.
template <Dt D> __device__ __forceinline__ int nonFiniteIn16(const uint4 &v) {
  constexpr int kBits = DtInfo<D>::kBytes * 8;
  constexpr u32 kMask = kBits == 32 ? 0xFFFFFFFFu : (1u << kBits) - 1u;
  const u32 w[4] = {v.x, v.y, v.z, v.w};
  int n = 0;
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int s = 0; s < 32; s += kBits)
      n += nonFiniteBits<D>((w[i] >> s) & kMask);
  return n;
}

/// *count += the NaN / +-inf elements of the n elements of type D at `base`. Every thread of the
/// grid calls it; `base` 16-byte aligned takes the vector path, any other the element path.
template <Dt D>
__device__ __forceinline__ void countNonFinite(const void *base, i64 n, unsigned long long *count) {
  using B = typename BitsOf<D>::T;
  constexpr int kPer = 16 / DtInfo<D>::kBytes;
  const i64 tid = i64(blockIdx.x) * blockDim.x + threadIdx.x;
  const i64 stride = i64(gridDim.x) * blockDim.x;
  int found = 0;
  i64 done = 0; // elements taken by the vector path
  if (reinterpret_cast<unsigned long long>(base) % 16 == 0) {
    const i64 words = n / kPer;
    const uint4 *v = static_cast<const uint4 *>(base);
    for (i64 i = tid; i < words; i += stride)
      found += nonFiniteIn16<D>(__ldcs(v + i));
    done = words * kPer;
  }
  const B *e = static_cast<const B *>(base);
  for (i64 i = done + tid; i < n; i += stride)
    found += nonFiniteBits<D>(u32(e[i]));
  const int warpFound = __reduce_add_sync(0xFFFFFFFFu, found);
  if (threadIdx.x % 32 == 0 && warpFound != 0)
    atomicAdd(count, static_cast<unsigned long long>(warpFound));
}

} // namespace fp8c
