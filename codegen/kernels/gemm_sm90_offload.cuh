// The Hopper FP8 GEMM's extra-output epilogue on the producer warpgroup's idle warps
// (gemm_sm90.cuh with EW): the consumer warpgroups only scale their accumulators, round them to
// bf16 and write them into a tile slot in shared memory, then go on to the next tile's main
// loop; warps 1-3 of the producer warpgroup (warp 0 issues the TMA loads) read the slot and do
// the rest of gemm_sm90_store_aux.cuh's epilogue: the activation or the backward's gelu_grad with
// the saved input read from global memory, the amax, the FP8 cast, D and D^T through shared
// memory and TMA stores, the column sums. So that math, which on the consumer warps kept the
// tensor cores idle (docs/gemm.md),
// runs beside the next tile's wgmmas.
//
// Cooperative 128 x 128 tiles, single blocks. Shared memory beside the ring:
//   two tile slots of 128 x 128 bf16 (32 KB each): consumer warpgroup cw's 64 rows at
//     cw * 16 KB, as two 64 x 64 chunks of 64 rows x 128 bytes at the 128-byte swizzle, written
//     with stmatrix in the wgmma accumulator layout (stmatrixChunk), so that ldmatrix with the
//     same addresses hands an epilogue warp the registers consumer warp g held;
//   one 8 KB unit buffer per epilogue warp (D, then D^T, 64 x 64 bytes each; store_aux's unit).
// Two mbarriers per slot: yFull (256 arrivals: every consumer thread after its stmatrix) and
// yEmpty (4 arrivals: one per 64 x 64 unit, by the warp that read it). Tile i of the block uses
// slot i % 2 in phase (i / 2) % 2. A tile's four units (rows 64 h.., columns 64 c..; unit
// 2 h + c) go to the epilogue warps round robin over the block's units (unit 4 i + u to warp
// (4 i + u) % 3), so each warp has at least one unit of every tile and waits on every yFull
// phase in order, and the slot cannot be refilled before every warp has read its units. One warp
// handles a whole unit, its four 16-row groups in turn, so the column sums of its 64 rows are
// summed in the warp (14 shuffles per unit) and written as that 64-row slice's partial sums,
// in a fixed order (deterministic). With the pre-activation output (kXoAux) a unit's chunk is
// itself that output's TMA-store box: the warp stores it first and releases the slot once the
// store has read it.
//
// With kXoGeluGradFp8 the saved input is the GELU input's e4m3 copy (gelu_saved=e4m3): each
// epilogue warp first fills a 256-entry f32 table of gelu_tanh' over the e4m3 codes (1 KB per
// warp at the end of the dynamic shared memory, kEpilogueTableBytes), and an element's
// derivative is one shared load by its code instead of the derivative's evaluation (bit for bit
// the same value: the e4m3 -> bf16 convert is exact), as the standalone cast-transpose's FP8
// tables do (codegen/kernels/rows.cuh).
//
// Measured on the H200 (the delayed MLP's dgrad GEMM, fp8c-gemm-bench alone: the e4m3 form
// 897.4 us, the bf16 form 940.5 us, the plain 128 x 128 GEMM 715.6 us): these are the fastest
// fused forms, but the epilogue warps' work slows the main loop beside it, so in the training
// step the unfused form (the plain GEMM, then the cast-transpose launch) stays faster.
#pragma once

#include "fp8c/gemm_sm90_ring.cuh"
#include "fp8c/gemm_sm90_store_aux.cuh"

namespace fp8c {
namespace sm90 {

/// max of two non-negative floats as their bit patterns (a NaN with its sign cleared sorts above
/// +inf): the amax without a NaN test per element; magnitude() makes the result canonical.
__device__ __forceinline__ float fmaxBits(float a, float b) {
  return __int_as_float(max(__float_as_int(a), __float_as_int(b)));
}

/// Warps of the producer warpgroup that run the offloaded epilogue (its warps 1-3).
constexpr int kEpilogueWarps = 3;

/// Bytes of one tile slot: a 128 x 128 bf16 tile.
constexpr u32 kTileSlotBytes = 128u * 128u * 2u;

/// With kXoGeluGradFp8: the epilogue warps' derivative tables (256 f32 each) at the end of the
/// dynamic shared memory (GemmSm90Spec::sharedBytes counts them).
constexpr u32 kEpilogueTableBytes = kEpilogueWarps * 256u * 4u;

__device__ __forceinline__ void stsF32(u32 addr, float v) {
  asm volatile("st.shared.f32 [%0], %1;" ::"r"(addr), "f"(v) : "memory");
}
/// A table entry: volatile (ordered after the table's fill, which is volatile too) but without
/// a memory clobber, so the surrounding math schedules around it.
__device__ __forceinline__ float ldsTable(u32 addr) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(addr));
  return v;
}

/// The derivatives of a 16-row group's e4m3 pairs `x` (low byte first), looked up in `table`
/// (byte address of the warp's 256 f32) all at once, before the group's math and stores: the
/// stores are asm with memory clobbers, so lookups interleaved with them would each wait for the
/// previous pair's chain.
__device__ __forceinline__ void lookUpDerivatives(const u32 (&x)[8][2], u32 table,
                                                  float (&d)[8][2][2]) {
#pragma unroll
  for (int jl = 0; jl < 8; ++jl)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      d[jl][h][0] = ldsTable(table + ((x[jl][h] & 0xFFu) << 2));
      d[jl][h][1] = ldsTable(table + ((x[jl][h] >> 6) & 0x3FCu));
    }
}

/// The gelu_grad pair from a bf16 pair `y` of the result (low half first) and the derivatives of
/// the saved input's pair: bf16(y * gelu_tanh'(x)), castValues' kXoGeluGrad value bit for bit.
__device__ __forceinline__ void gradFromTable(u32 y, const float (&d)[2], float &v0, float &v1) {
  const u32 g = packBf16x2(__fmul_rn(__uint_as_float(y << 16), d[0]),
                           __fmul_rn(__uint_as_float(y & 0xFFFF0000u), d[1]));
  v0 = __uint_as_float(g << 16);
  v1 = __uint_as_float(g & 0xFFFF0000u);
}

__device__ __forceinline__ void ldmatrix4(u32 addr, u32 &r0, u32 &r1, u32 &r2, u32 &r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr)
               : "memory");
}

/// Consumer side: y = acc * scales + bias of one consumer warpgroup's 64 x WN slice, rounded to
/// bf16, into its part of a tile slot (`slot`: WN / 64 chunks of 8 KB). With Aux the chunks are
/// also the pre-activation output's TMA-store source: fenced for the async proxy.
template <int WN, Scale S, bool HasBias, bool Aux>
__device__ __forceinline__ void stageSliceY(const float (&acc)[WN / 2], u32 slot,
                                            const float (&sa)[2], const float4 *cols,
                                            float tensorScale) {
  constexpr bool kColInputs = S == Scale::Row || HasBias;
  const int t = threadIdx.x % 128, lane = t % 32, warp = t / 32;
  const int mi = lane / 8;
  const int chunkRow = warp * 16 + 8 * (mi & 1) + lane % 8;
  const u32 rowOff = u32(chunkRow) * 128u, swz = u32(chunkRow & 7);
#pragma unroll
  for (int c = 0; c < WN / 64; ++c) {
    u32 packed[8][2];
#pragma unroll
    for (int jl = 0; jl < 8; ++jl) {
      const int j = 8 * c + jl;
      float4 cv = make_float4(1.0f, 1.0f, 0.0f, 0.0f);
      if constexpr (kColInputs)
        cv = cols[4 * j + t % 4];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float v0 = acc[4 * j + 2 * h], v1 = acc[4 * j + 2 * h + 1];
        finishPair<S, HasBias, Act::None>(v0, v1, tensorScale, sa[h], cv);
        packed[jl][h] = packBf16x2(v0, v1);
      }
    }
    stmatrixChunk(slot + u32(c) * kEpiChunkBytes, rowOff, swz, mi, packed);
  }
  if constexpr (Aux)
    fenceProxyAsyncShared();
}

/// The saved input's pairs at the positions a consumer thread of 16-row group `group` held in a
/// unit at (rowBase, colBase): rows + lane / 4 (+ 8), columns 8 jl + 2 (lane % 4); bf16 pairs
/// (4 bytes), or e4m3 pairs (2 bytes) with Fp8. Full: the unit lies inside [M, N] (no bounds
/// checks).
template <bool Full, bool Fp8>
__device__ __forceinline__ void loadUnitInput(const GemmParams &p, int rowBase, int colBase,
                                              int group, u32 (&dst)[8][2]) {
  const int lane = threadIdx.x % 32;
  const u8 *in = static_cast<const u8 *>(p.epiIn);
#pragma unroll
  for (int jl = 0; jl < 8; ++jl)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = rowBase + 16 * group + 8 * h + lane / 4;
      const int col = colBase + 8 * jl + 2 * (lane % 4);
      const u8 *at = in + (i64(row) * p.ldIn + col) * (Fp8 ? 1 : 2);
      u32 v = 0u;
      if (Full || (row < p.m && col < p.n)) {
        if constexpr (Fp8)
          v = __ldg(reinterpret_cast<const unsigned short *>(at));
        else
          v = __ldg(reinterpret_cast<const unsigned *>(at));
      }
      dst[jl][h] = v;
    }
}

/// Prefetches the saved input of the 64 x 64 unit at (rowBase, colBase) into L2: a row's 128
/// bytes (bf16) or 64 bytes (e4m3, Fp8) per lane and row, two rows per lane.
template <bool Fp8>
__device__ __forceinline__ void prefetchUnitInput(const GemmParams &p, int rowBase, int colBase) {
  const int lane = threadIdx.x % 32;
  const u8 *in = static_cast<const u8 *>(p.epiIn);
#pragma unroll
  for (int r = lane; r < 64; r += 32)
    if (rowBase + r < p.m && colBase < p.n)
      prefetchL2(in + (i64(rowBase + r) * p.ldIn + colBase) * (Fp8 ? 1 : 2));
}

/// One epilogue warp's 64 x 64 unit at (rowBase, colBase) of the tile slot chunk `chunk`: the
/// values, amax (into `mag`: max |v| as bits, NaN above +inf, made canonical at the end), FP8
/// cast, D and D^T through `unitBuf`, column sums. Releases the chunk on `yEmpty` once it has
/// read it. Full: the unit lies inside [M, N] (no bounds checks). `table`: the warp's derivative
/// table (kXoGeluGradFp8).
template <Dt TD, Act A, int Amax, int XO, bool Full>
__device__ __forceinline__ void offloadedUnit(const GemmParams &p, const TmaDesc &mapD,
                                              const TmaDesc &mapAux, const TmaDesc &mapDT,
                                              u32 chunk, u32 unitBuf, u32 table,
                                              u32 yEmpty, int rowBase, int colBase, float scaleD,
                                              float &mag) {
  constexpr bool kTrans = (XO & kXoTrans) != 0, kGrad = (XO & kXoGeluGrad) != 0;
  constexpr bool kTab = kGrad && (XO & kXoGeluGradFp8) != 0;
  constexpr bool kColSum = (XO & kXoColSum) != 0, kAux = (XO & kXoAux) != 0;
  static_assert((XO & kXoAuxFp8) == 0, "the offloaded epilogue writes the pre-activation in bf16");
  const int lane = threadIdx.x % 32, q = lane % 4, mi = lane / 8;
  const u32 bufD = unitBuf, bufT = unitBuf + kEpiChunkBytes / 2;
  // The unit buffer is rewritten once the stores that last read it are done with it.
  if (lane == 0) {
    bulkWaitRead<0>();
    // The pre-activation leaves straight from the chunk (its layout is the aux map's box).
    if constexpr (kAux) {
      tmaStore2d(&mapAux, chunk, colBase, rowBase);
      bulkCommit();
    }
  }
  __syncwarp();
  float cs[16];
  float magLo = 0.0f; // the low halves' amax: two chains of maxima instead of one
#pragma unroll
  for (int i = 0; i < 16; ++i)
    cs[i] = 0.0f;
  // Shared addresses with the swizzles' lane-dependent parts taken out of the loops, so every
  // access in a group is a base register plus an immediate:
  //   ldmatrix (the chunk's 128-byte swizzle, stmatrixChunk's addresses): row 16 g + 8 (mi & 1)
  //     + lane % 8, unit (2 k + mi / 2) ^ (lane % 8) for column groups 2 k, 2 k + 1;
  //   D (swz64 of row 16 g + 8 h + lane / 4, byte 8 jl + 2 q): 1024 g + 512 h + 64 (lane / 4)
  //     + 16 ((jl / 2) ^ ((lane / 8) % 4)) + 8 (jl % 2) + 2 q;
  //   D^T (swz64 of row 8 jl + 2 q + e, byte 16 g + 8 h + lane / 4): 512 jl + 128 q + 64 e
  //     + 16 ((g ^ q) % 4) + 8 h + lane / 4.
  const u32 l8 = u32(lane % 8), l4 = u32(lane / 4);
  u32 ldBase[4], dBase[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    ldBase[k] = chunk + (8u * u32(mi & 1) + l8) * 128u + (((2u * k + u32(mi >> 1)) ^ l8) << 4);
    dBase[k] = bufD + 64u * l4 + 2u * u32(q) + 16u * ((u32(k) ^ (l4 >> 1)) & 3u);
  }
  const u32 tLane = bufT + 128u * u32(q) + l4;
  // The saved input of the group in work (xin) and of the next one (xnext), loaded while this
  // group's math runs. (Groups are not unrolled: four groups' loads hoisted together spilled.)
  u32 xin[8][2], xnext[8][2];
  if constexpr (kGrad)
    loadUnitInput<Full, kTab>(p, rowBase, colBase, 0, xnext);
#pragma unroll 1
  for (int g = 0; g < 4; ++g) {
    if constexpr (kGrad) {
#pragma unroll
      for (int jl = 0; jl < 8; ++jl)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          xin[jl][h] = xnext[jl][h];
      if (g < 3)
        loadUnitInput<Full, kTab>(p, rowBase, colBase, g + 1, xnext);
    }
    u32 packedY[8][2];
#pragma unroll
    for (int jl = 0; jl < 8; jl += 2)
      ldmatrix4(ldBase[jl / 2] + 2048u * u32(g), packedY[jl][0], packedY[jl][1],
                packedY[jl + 1][0], packedY[jl + 1][1]);
    float deriv[8][2][2]; // kTab: the group's derivatives, looked up before its stores
    if constexpr (kTab)
      lookUpDerivatives(xin, table, deriv);
    const u32 tG = tLane + 16u * ((u32(g) ^ u32(q)) & 3u);
    if (g == 3) {
      // Every lane's reads of the chunk are done (and with the pre-activation, its store's):
      // hand it back to the consumers.
      __syncwarp();
      if (lane == 0) {
        if constexpr (kAux)
          bulkWaitRead<0>();
        mbarArrive(yEmpty);
      }
    }
#pragma unroll
    for (int jl = 0; jl < 8; ++jl) {
      const int col = colBase + 8 * jl + 2 * q;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = rowBase + 16 * g + 8 * h + lane / 4;
        float v0, v1;
        if constexpr (kTab)
          gradFromTable(packedY[jl][h], deriv[jl][h], v0, v1);
        else
          castValues<XO, A>(packedY[jl][h], kGrad ? xin[jl][h] : 0u, v0, v1);
        const bool rowOk = Full || row < p.m;
        if constexpr (Amax != kAmaxNone) {
          if (Full || (rowOk && col < p.n))
            magLo = fmaxBits(magLo, fabsf(v0));
          if (Full || (rowOk && col + 1 < p.n))
            mag = fmaxBits(mag, fabsf(v1));
        }
        if constexpr (kColSum) {
          cs[2 * jl] += rowOk ? v0 : 0.0f;
          cs[2 * jl + 1] += rowOk ? v1 : 0.0f;
        }
        const u32 d = packFp8x2<TD>(__fmul_rn(v0, scaleD), __fmul_rn(v1, scaleD));
        const u32 dv = rowOk ? d : 0u;
        stsU16(dBase[jl / 2] + 1024u * u32(g) + 512u * h + 8u * (jl % 2), dv);
        if constexpr (kTrans) {
          stsU8(tG + 512u * jl + 8u * h, dv);
          stsU8(tG + 512u * jl + 64u + 8u * h, dv >> 8);
        }
      }
    }
  }
  mag = fmaxBits(mag, magLo);
  fenceProxyAsyncShared();
  __syncwarp();
  if (lane == 0) {
    tmaStore2d(&mapD, bufD, colBase, rowBase);
    if constexpr (kTrans)
      tmaStore2d(&mapDT, bufT, rowBase, colBase);
    bulkCommit();
  }
  if constexpr (kColSum) {
    // The lane's columns 2 lane, 2 lane + 1 summed over the unit's 64 rows: the slice's
    // partial sums (N is whole 16-byte units: a pair is in or out; a slice at or past M has no
    // row in the workspace).
    const float2 sum = warpColumnSums(cs);
    if (rowBase < p.m && colBase + 2 * lane < p.n)
      *reinterpret_cast<float2 *>(p.colPart + i64(rowBase / 64) * p.n + colBase + 2 * lane) = sum;
  }
}

/// Epilogue warp ew (0..2) of the producer warpgroup: every tile of the block in the order the
/// consumers finish them, its units of each (see the file comment). `tables`: the shared address
/// of the kEpilogueTableBytes at the end of the dynamic shared memory (used with
/// kXoGeluGradFp8).
template <int BM, int BN, int Stages, Dt TD, Act A, int Amax, int XO>
__device__ __forceinline__ void offloadedEpilogue(const GemmParams &p,
                                                  const Ring<BM, BN, Stages> &ring,
                                                  const TmaDesc &mapD, const TmaDesc &mapAux,
                                                  const TmaDesc &mapDT, u32 tables, int ew) {
  static_assert(BM == 128 && BN == 128, "the offloaded epilogue: 128 x 128 tiles");
  static_assert(Amax == kAmaxNone || Amax == kAmaxTensor,
                "the offloaded epilogue: no amax or a tensor amax");
  constexpr bool kTab = (XO & kXoGeluGrad) != 0 && (XO & kXoGeluGradFp8) != 0;
  const float scaleD = p.scaleD[0];
  const u32 unitBuf = ring.unitBuffer(ew);
  // The warp's derivative table: gelu_tanh' of each e4m3 code, filled once (8 entries a lane).
  const u32 table = tables + u32(ew) * 1024u;
  if constexpr (kTab) {
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int j = 0; j < 8; ++j)
      stsF32(table + 4u * u32(lane + 32 * j),
             op::geluTanhDeriv(fp8ToF32<Dt::E4M3>(u8(lane + 32 * j))));
    __syncwarp();
  }
  const TileWalk<1> walk(p);
  float mag = 0.0f;
  int i = 0; // the block's tile sequence
  for (int u = walk.first; u < walk.units; u += walk.stride, ++i) {
    int tm, tn;
    walk.coords(u, p, tm, tn);
    const int slot = i & 1;
    mbarWait(ring.yFull(slot), u32(i >> 1) & 1u);
#pragma unroll 1
    for (int unit = 0; unit < 4; ++unit) {
      if ((4 * i + unit) % kEpilogueWarps != ew)
        continue;
      const int h = unit / 2, c = unit % 2;
      const int rowBase = tm * BM + 64 * h, colBase = tn * BN + 64 * c;
      if constexpr ((XO & kXoGeluGrad) != 0) {
        // This warp's next unit, 3 units on (in this tile or the next of the block): its saved
        // input into L2 now, about a unit's work ahead of its loads.
        const int next = 4 * i + unit + kEpilogueWarps;
        const int un = u + (next / 4 - i) * walk.stride;
        if (un < walk.units) {
          int tm2, tn2;
          walk.coords(un, p, tm2, tn2);
          prefetchUnitInput<kTab>(p, tm2 * BM + 64 * ((next % 4) / 2), tn2 * BN + 64 * (next % 2));
        }
      }
      const u32 chunk = ring.tileSlot(slot) + u32(h) * (kTileSlotBytes / 2) + u32(c) * kEpiChunkBytes;
      if (rowBase + 64 <= p.m && colBase + 64 <= p.n)
        offloadedUnit<TD, A, Amax, XO, true>(p, mapD, mapAux, mapDT, chunk, unitBuf, table,
                                             ring.yEmpty(slot), rowBase, colBase, scaleD, mag);
      else
        offloadedUnit<TD, A, Amax, XO, false>(p, mapD, mapAux, mapDT, chunk, unitBuf, table,
                                              ring.yEmpty(slot), rowBase, colBase, scaleD, mag);
    }
  }
  if constexpr (Amax == kAmaxTensor) {
    mag = groupMaxMag<32>(magnitude(mag));
    if (threadIdx.x % 32 == 0)
      atomicMaxMag(p.amax, mag);
  }
  if (threadIdx.x % 32 == 0)
    bulkWaitAll(); // the unit buffer lives in shared memory: no exit before the stores read it
}

} // namespace sm90
} // namespace fp8c
