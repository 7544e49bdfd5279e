// The spec of one generated Hopper FP8 GEMM (codegen/kernels/gemm_sm90.cuh): tile shape, ring
// stages, cluster, schedule, operand dtypes and layouts, scale mode, epilogue chain and output
// dtype, amax and cast. Its name() is the kernel's entry name, unique per distinct spec; its
// CUDA source is gemmSm90Source (GemmSource.h); checkGemmSm90Spec (GemmSpecCheck.cpp) names
// the errors of a spec alone. The runtime's runner (runtime/gpu/GemmSm90.h) compiles, loads
// and launches it.
//   D[m, n] = act(sum_k A[m, k] B[n, k] * invScaleA * invScaleB + bias[n]), optionally with
//   amaxD = max |D| (before scaleD) and an FP8 D = sat(rne(D * scaleD)).
#pragma once

#include "codegen/LaunchPlan.h"
#include "ir/Activation.h"
#include "ir/DType.h"
#include "ir/Status.h"

#include <cstdint>
#include <optional>
#include <string>

namespace fp8c {

/// How the kernel's two consumer warpgroups share the work (codegen/kernels/gemm_sm90.cuh).
enum class GemmSchedule {
  /// Both on every bm x bn tile (bm = 128: 64 rows each; bm = 64: half the columns each), the
  /// epilogue run by both at once while the tensor cores idle. Every scale mode.
  Cooperative,
  /// Each on whole bm x bn tiles of its own, alternately: one warpgroup's epilogue overlaps the
  /// other's main loop. bm * bn <= 128 * 128 (accumulators in registers); no promotion
  /// (Block128 scales and fastAccum off are cooperative-only).
  PingPong,
};

/// One generated Hopper GEMM config: what selects one compiled kernel (the members of the
/// config struct its generated source instantiates gemm_sm90.cuh's template with: GemmSource.h).
struct GemmSm90Spec {
  DType aType = DType::F8E4M3FN, bType = DType::F8E4M3FN, dType = DType::BF16;
  GemmScaleMode scaleMode = GemmScaleMode::Tensor;
  std::optional<DType> biasType; ///< set iff the epilogue adds bias[n] (bf16, f16 or f32)
  Activation activation = Activation::None;
  bool amaxD = false;
  /// With amaxD: max |D| per row of D into amaxD[M] (a rowwise recipe's current amax of the
  /// GEMM output) instead of one per tensor.
  bool amaxRows = false;
  GemmSchedule schedule = GemmSchedule::Cooperative;
  /// Tile rows: 128 or 64. Cooperative: bm = 128, the consumers split the rows; bm = 64, they
  /// split the columns. PingPong: one consumer's whole tile (bm / 64 wgmmas per k step).
  int bm = 128;
  int bn = 256;         ///< tile columns: 64, 128, 192 or 256 (cooperative bm = 64: 128 or 256)
  int stages = 4;       ///< shared-memory ring depth
  /// Keep one stage's wgmmas in flight while the next is waited for (fast accumulation only;
  /// promotion ignores it: its two consumer warpgroups alternate their K blocks).
  bool overlap = true;
  /// The tensor cores' own FP8 accumulation over all of K (cuBLASLt's fast accumulation); when
  /// false, every 128-wide K block is promoted into f32 registers (always so for Block128).
  /// Promotion holds two accumulator sets, so it needs bn <= 192, or with tensor scales
  /// bn = 256 (bm = 128, cooperative), whose K blocks are promoted in two 128-column halves.
  /// (The 128 of cuBLASLt's own promotion interval: fp8c-gemm-bench --accum-probe.)
  bool fastAccum = true;
  /// Blocks per cluster along M: 1, or 2 for pairs of blocks on vertically adjacent tiles that
  /// share the B tile, each loading half of it and multicasting it to both (TMA multicast:
  /// half the L2 -> shared-memory traffic for B).
  int clusterM = 1;
  /// The bf16-A prologue: A is bf16 in memory and the kernel casts it to aType itself,
  /// q = sat(rne(a * quantScaleA)), with Tensor scales one quantization scale, with OuterVector
  /// scales one per row of A (GemmSm90Pointers::quantScaleA); invScaleA stays the dequantization
  /// factor of the epilogue. The producer warpgroup stages the bf16 tiles in `castSlots` slots
  /// of bm x 128 bf16 (TMA) and writes the FP8 tile into the ring (codegen/kernels/
  /// gemm_sm90_cast.cuh). Single blocks (clusterM = 1); Tensor or OuterVector scales.
  bool castA = false;
  int castSlots = 2;
  /// Cast-ahead A (codegen/kernels/gemm_sm90_cast_ahead.cuh): A is bf16 in memory (pitch lda
  /// elements) and the kernel writes its FP8 copy, q = sat(rne(a * quantScaleA)) (Tensor: one
  /// scale; OuterVector: one per row), to GemmSm90Pointers::aCast (pitch ldaCast bytes), which
  /// its main loop loads by TMA: every warp casts the first wave of tiles' rows at entry, the
  /// producer warpgroup's warps 1-3 the rest while the main loops run, and the loads of a tile
  /// row wait for its rows (counters in GemmSm90Pointers::aReady). Launched cooperatively
  /// (every block resident at once, or the launch fails), so never as a programmatic
  /// dependent. Single blocks, Tensor or OuterVector scales, not with castA or epilogueWarps.
  bool castAhead = false;
  /// A given MN-major: A is stored as its transpose, [K, M] with M contiguous (pitch lda >= M,
  /// in elements), e.g. the untransposed FP8 copy of a gradient read as the A = dY^T of a weight
  /// gradient, so the cast that writes it needs no transposed copy. The consumers read A's
  /// tiles with transposing shared-memory loads into wgmma's register operand (codegen/kernels/
  /// gemm_sm90_atrans.cuh). Cooperative 128-row single blocks, FP8 A, tensor scales, and the
  /// plain TMA-store epilogue (a 16-bit or FP8 D with N and D's pitch in whole 16-byte units; a
  /// tensor amax at most, no extra outputs or dual GEMM).
  bool aTransposed = false;
  /// With castA or castAhead: max |A| over the bf16 values into GemmSm90Pointers::amaxA (NaN
  /// wins), as the delayed recipe records it. amaxA must hold 0 (or a smaller magnitude) before
  /// the call.
  bool amaxA = false;

  /// The epilogue through shared memory and TMA stores (codegen/kernels/gemm_sm90_store.cuh)
  /// where it applies: a 16-bit or FP8 D, whole chunks of 128 bytes of a row per consumer
  /// warpgroup (64 or 128 columns), and room for at least one 64-row chunk buffer per consumer
  /// warpgroup beside the ring. Otherwise (an f32 D), or when D's width or row pitch is not a
  /// multiple of 16 bytes (GemmSm90Runner::run then
  /// launches the same config with tmaStore off: launchedGemmSm90Kernel), the epilogue stores
  /// from registers.
  bool tmaStore = true;

  /// Extra outputs of the TMA-store epilogue of an FP8 D (codegen/kernels/
  /// gemm_sm90_store_aux.cuh): auxOut writes the pre-activation act's input, acc * scales +
  /// bias rounded to bf16, to GemmSm90Pointers::aux (the activation then takes that rounded
  /// value; auxOut alone also beside a bf16 D, see auxBesideBf16D); transD writes D transposed ([N,
  /// M], pitch ldDT >= M rounded up to 16, the pad columns up to there written as zeros) to
  /// GemmSm90Pointers::dT. Either needs tmaStore, N a multiple of 16 and every pitch a whole number
  /// of 16-byte units (there is no register-epilogue form of them).
  bool auxOut = false;
  /// With auxOut: the pre-activation written as its unscaled e4m3 convert (sat(rne(y)), the
  /// training step's saved copy under gelu_saved=e4m3) instead of bf16; aux is then e4m3
  /// [M, N] with a pitch of whole 16-byte units. Not with epilogueWarps.
  bool auxFp8 = false;
  bool transD = false;
  /// The backward's gelu_grad in the epilogue: the value cast to D (and reduced into amaxD) is
  /// v = bf16(bf16(y) * gelu_tanh'(x)), y the GEMM result (scaled, with bias), x the GELU's
  /// saved input (bf16 [M, N], GemmSm90Pointers::epiIn, pitch ldIn): the dgrad GEMM of an
  /// MLP's second layer writes the FP8 gradient of the first layer's pre-activation directly.
  /// Activation None, no auxOut.
  bool geluGradIn = false;
  /// With geluGradIn: x is the GELU input's unscaled e4m3 copy (the training step's saved tensor
  /// under gelu_saved=e4m3; epiIn e4m3 [M, N]) and gelu_tanh'(x) comes from a 256-entry table per
  /// epilogue warp (codegen/kernels/gemm_sm90_offload.cuh): the same values as the bf16 form
  /// over the exact bf16 convert of x. epilogueWarps only.
  bool geluGradInFp8 = false;
  /// A residual add (codegen/kernels/gemm_sm90_residual.cuh): the epilogue's value becomes
  /// z = bf16(bf16(act(y)) + r), r a bf16 [M, N] input (GemmSm90Pointers::epiIn, pitch ldIn, a
  /// multiple of 8 elements, 16-byte aligned), before the amax, FP8 cast and store, which are
  /// then of z: a projection plus the residual stream in one pass. Any D; not with the extra
  /// outputs, geluGradIn or swiglu.
  bool residualIn = false;
  /// Column sums of the value cast to D (v, or act(y)), the bias gradient: written to
  /// GemmSm90Pointers::colSums ([N] of this dtype, bf16 or f32) through f32 partial sums per
  /// 64-row slice (GemmSm90Pointers::colPartials, [ceil(M/64)][N] f32) that a second kernel of
  /// the module adds up in order (deterministic), launched by run() after the GEMM.
  std::optional<DType> colSumType;
  /// The dual GEMM of a SwiGLU MLP (codegen/kernels/gemm_sm90_dual.cuh): B and B2
  /// (GemmSm90Pointers::b2, invScaleB2) are the gate and up weights, both [N, K], and
  /// D[m, n] = swiglu(gate, up) with gate = bf16(A B^T * invScaleA * invScaleB) and up likewise
  /// (the graph's roundings), then amaxD and the FP8 cast as usual. Each tile computes bn / 2
  /// output columns (bn / 2 rows of each weight). Tensor, row (invScaleB2 [N] like invScaleB)
  /// or 128-block scales, no bias, activation None, no extra outputs or bf16-A prologue,
  /// clusterM = 1, whole tiles per consumer warpgroup (not the cooperative bm = 64 split).
  bool swiglu = false;
  /// The 1x128-block FP8 cast of D (a blockwise recipe's next GEMM operand; codegen/kernels/
  /// gemm_sm90_block_cast.cuh): the epilogue's value y (after scales, bias and activation) is
  /// rounded to bf16, each 1x128 block of it gets the scale s = fp8.scale(amax of the block)
  /// (GemmSm90Problem::castMargin, castPow2), and D = sat(rne(y * s)) (an FP8 D; no scaleD or
  /// amaxD); s goes to GemmSm90Pointers::blockScale and 1 / s to blockInv (either may be null).
  /// Each consumer warpgroup's slice must hold whole 128-column blocks (128 x 128 or 64 x 256
  /// cooperative, 128-wide ping-pong tiles); no extra outputs, residual or dual GEMM.
  bool blockCast = false;
  /// The extra-output epilogue (auxOut, transD, geluGradIn, colSumType, with amaxD and the
  /// activation) on the producer warpgroup's three idle warps (codegen/kernels/
  /// gemm_sm90_offload.cuh): the consumers hand each tile over in bf16 through shared memory
  /// and go on with the next tile's main loop, so the epilogue's math overlaps the wgmmas.
  /// Cooperative 128 x 128 tiles, clusterM = 1, no bf16-A prologue, tensor amax only.
  bool epilogueWarps = false;
  /// A side launch (codegen/kernels/gemm_sm90_side.cuh): an independent one-pass cast-transpose
  /// of the plan (GemmStep::side) run by the producer warpgroup's warps 1-3 beside the main
  /// loops. sideSpec is that launch's Spec (GeneratedLaunch::sideSpec: the source without its
  /// entry point), sideBuffers the count of its Args' buffers (GemmSm90Pointers::side). Empty:
  /// none. Not with castA, castAhead or epilogueWarps (they use those warps).
  std::string sideSpec;
  int sideBuffers = 0;
  /// Output columns of one tile: bn, or bn / 2 for the dual GEMM.
  int outCols() const { return swiglu ? bn / 2 : bn; }
  bool extraOutputs() const { return auxOut || transD || geluGradIn || colSumType.has_value(); }
  /// The bf16 pre-activation beside a bf16 D = bf16(act(y)) and no other extra output (amaxD
  /// of the bf16 values): a current-scaling recipe's GELU, cast to FP8 once its amax is known.
  bool auxBesideBf16D() const {
    return auxOut && !auxFp8 && !transD && !geluGradIn && !colSumType && dType == DType::BF16;
  }
  /// Whether D's type allows the extra outputs asked for: an FP8 D, or auxBesideBf16D().
  bool extraOutputsTyped() const { return isFloat8(dType) || auxBesideBf16D(); }
  /// 8 KB chunk buffers per unit of the extra-output epilogue: 2 with auxOut, else 1.
  int extraUnitChunks() const { return auxOut ? 2 : 1; }
  /// The epilogue's XO bits (gemm_sm90_store_aux.cuh: kXoAux | kXoTrans | kXoGeluGrad |
  /// kXoColSum, and kXoResidual).
  int extraOutputBits() const {
    return (auxOut ? 1 : 0) | (transD ? 2 : 0) | (geluGradIn ? 4 : 0) | (colSumType ? 8 : 0) |
           (residualIn ? 16 : 0) | (auxOut && auxFp8 ? 32 : 0) |
           (geluGradIn && geluGradInFp8 ? 64 : 0);
  }

  /// Whether the kernel promotes per K block (Block128 scales or !fastAccum).
  bool promotes() const { return !fastAccum || scaleMode == GemmScaleMode::Block128; }
  /// Chunk buffers per consumer warpgroup of the TMA-store epilogue: 2 where they fit in shared
  /// memory, else 1, or 0 where the epilogue stores from registers (see tmaStore).
  int epilogueBuffers() const;

  /// The kernel's entry name: "fp8c_gemm_sm90_e4m3_e4m3_bf16_tensor_n256_s4_o1", with
  /// "_m64" (bm = 64), "_pp" (ping-pong), "_c2" (clusterM = 2), "_promote" (fastAccum off),
  /// "_bias<dtype>", "_relu" / "_gelutanh" / "_geluerf" / "_silu" and "_amax" ("_amaxrow") when
  /// set, and "_abf16s<castSlots>" (castA) or "_aca" (castAhead) with "_amaxa" (amaxA),
  /// "_tms<buffers>" (TMA-store epilogue), "_aux" (auxOut; "_aux8" with auxFp8), "_dt"
  /// (transD), "_dgelu" (geluGradIn; "_dgelu8" with geluGradInFp8), "_res" (residualIn),
  /// "_colsum<dtype>" (colSumType), "_swiglu" (the dual GEMM), "_bcast" (blockCast), "_ew"
  /// (epilogueWarps), "_at" (aTransposed), "_side<hash of sideSpec>" (a side launch). With
  /// colSumType the module also holds "<name>_colsum", the partial sums' kernel.
  std::string name() const;
  /// Dynamic shared memory of one block.
  int64_t sharedBytes() const;
};

/// The most buffers a side launch (GemmSm90Spec::sideSpec) may take.
constexpr int kGemmSm90MaxSideBuffers = 32;

/// Dynamic shared memory one block may opt into on sm_90.
constexpr int64_t kGemmSm90MaxSharedBytes = 232448;

/// Dynamic shared memory of `k` with `epiBufs` TMA-store chunk buffers per consumer warpgroup
/// (or, with the offloaded epilogue, per epilogue warp).
int64_t gemmSm90SharedBytesWith(const GemmSm90Spec &k, int epiBufs);

/// The errors of a spec alone: dtypes, tile shape, stages and shared memory, scale mode and
/// promotion vs tile and schedule.
Status checkGemmSm90Spec(const GemmSm90Spec &k);

} // namespace fp8c
