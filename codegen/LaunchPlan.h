// The lowered form of a fused graph: the buffers it needs and the ordered steps that compute
// it, each a generated CUDA kernel launch (source text that NVRTC compiles) or a GEMM (run by
// cuBLASLt or by the generated Hopper GEMM, codegen/gemm/). codegen/ produces it from the graph's fp8.kernel ops; runtime/ plans memory for the
// buffers, compiles the sources and runs the steps. Nothing here includes a CUDA header.
//
// The dynamic leading dim M is known only at run time: every generated kernel takes it as an
// argument, sizes are expressed as affine functions of M, and grids are computed at launch.
#pragma once

#include "ir/Activation.h"
#include "ir/Type.h"
#include "ir/GemmBackend.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace fp8c {

/// a * M + b, with M the run-time size of the dynamic leading dim (ignored when static).
struct AffineM {
  int64_t perM = 0;
  int64_t fixed = 0;
  int64_t eval(int64_t m) const { return perM * m + fixed; }
};

enum class BufferRole {
  Input,    ///< a graph input bound by the caller
  Param,    ///< an input marked fp8.param (weights=static): bound once, at load
  State,    ///< an fp8.state pair: one persistent device buffer, input and output
  Output,   ///< a graph output written into the caller's buffer
  Constant, ///< computed at load from parameters only (quantized static weights)
  Temp,     ///< an intermediate; the memory plan may share its bytes with other temps
  /// Persistent scratch of one launch that the launch leaves as it found it: zero. Zeroed once
  /// when the executable is created (Executable::resetState), never per run: a cooperative
  /// launch's grid-barrier counters and the tensor amax only it reads (gridBarrier).
  Scratch,
};

/// One device buffer. 2-D tensors may be stored with a padded row pitch (`ld` elements per
/// row >= cols) so that FP8 GEMM operands meet cuBLASLt's 16-byte alignment for any K; the
/// pad columns of every padded buffer written by a generated launch hold zeros.
/// "input", "param", "state", "output", "constant" or "temp".
const char *bufferRoleName(BufferRole r);

struct BufferDesc {
  std::string name; ///< the graph value's name (for messages and bindings)
  TensorType type;  ///< logical type; `?` is M
  BufferRole role = BufferRole::Temp;
  /// Row pitch in elements (0 = compact) of a rank-2 tensor, or of a rank > 2 tensor as the
  /// [prod(leading dims), last dim] matrix a GEMM takes.
  int64_t ld = 0;
  /// Rank-2 tensors whose last dim is the dynamic M (transposed activations, and the
  /// K-block-major 1x128 inverse scales cuBLASLt takes for an A operand): the row pitch is
  /// M rounded up to a multiple of ldAlignM (0 = not such a tensor; then `ld` applies).
  int ldAlignM = 0;
  /// The dynamic dim of this buffer is ceil(M / mDivisor), not M: the 128x128-block amaxes and
  /// scales of a tensor with M rows have ceil(M / 128) rows (their type prints that dim as `?`
  /// too). Bind and size such outputs with it.
  int64_t mDivisor = 1;
  /// Rows allocated along the dynamic dim: M rounded up to a multiple of this (an FP8 A
  /// operand and the internal D of a 128-block-scaled GEMM, which cuBLASLt runs with M
  /// rounded up to 4; the pad rows hold whatever was there and only reach pad rows of D).
  int64_t rowsAlignM = 1;
  int graphIndex = -1; ///< input index (Input/Param/State) or output index (Output/State)
  /// Output: the output index (== graphIndex). State: the graph output that returns the new
  /// value (the runtime binds input graphIndex and output outputIndex to this one buffer).
  int outputIndex = -1;
  /// Must be zeroed on every run before the first step (in order) that touches it: that step
  /// writes it (atomic amax targets, grid-barrier counters, FP8 GEMM outputs whose pad columns
  /// must stay zero); later steps read what it wrote, so do not zero it again. Buffers touched
  /// by load steps are zeroed before the first load step that touches them, and Constant
  /// buffers not again on a run (a weight's copy with zero pad rows, made at load).
  bool zeroInit = false;

  /// Row pitch in elements at run-time size m (the last dim when compact); 1 for rank < 1.
  int64_t pitch(int64_t m) const;
  /// Bytes for a given M, with padding.
  int64_t bytes(int64_t m) const;
};

/// How many thread blocks a generated launch uses:
///   blocks = ceil(work.eval(M) / perBlock), capped (persistent) at the number of blocks of
///   `blockThreads` threads and `sharedBytes` that can be co-resident on the device
///   (cuOccupancyMaxActiveBlocksPerMultiprocessor x SMs), and at least 1 (a launch also does
///   fixed work, such as writing a scale, when M is 0). Generated kernels loop grid-stride,
///   so any grid size is correct; cooperative ones need every block co-resident.
struct GridRule {
  AffineM work;             ///< units of work (e.g. 16-byte vectors, rows, tiles)
  int64_t perBlock = 1;     ///< units per block per grid-stride iteration
  bool persistent = true;   ///< cap at the number of co-resident blocks (grid-stride loops)
  bool cooperative = false; ///< needs all blocks co-resident (grid barrier): cooperative launch
};

/// A generated kernel launch. Its entry point takes one argument, a struct laid out as
/// `{ void *buffers[N]; long long m; }` with the buffers listed in `buffers` order.
/// Requirements on the runtime: every buffer pointer 16-byte aligned (device allocations and
/// arena slots are 256-byte aligned; a caller's buffer that is not must be copied); zeroInit
/// buffers zeroed before the launch; NVRTC options `nvrtcOptions` added to the defaults.
struct GeneratedLaunch {
  std::string kernelName; ///< unique within the plan; the NVRTC program's name
  std::string entry;      ///< the `extern "C" __global__` function in `source`
  std::string source;     ///< complete CUDA C++ (includes embedded headers by name)
  std::vector<int> buffers;
  int blockThreads = 256;
  int64_t sharedBytes = 0; ///< dynamic shared memory (the FP8 table of a kTabIn launch, else 0)
  GridRule grid;
  std::string description; ///< the ops it runs, for logs and --emit=cuda comments
  /// Options this source needs beyond compileWithNvrtc's defaults: "--fmad=false" (no FMA
  /// contraction: the interpreter rounds every product and sum).
  std::vector<std::string> nvrtcOptions;
  /// For a one-pass cast-transpose with a tensor scale known before it (and optionally its
  /// untransposed copy, amax, column sums and history push): `source` without its entry point
  /// (the #include and the Spec), which a generated GEMM compiles in to run the launch on its
  /// idle warps (GemmStep::side, codegen/kernels/gemm_sm90_side.cuh). Empty otherwise.
  std::string sideSpec;
};

enum class GemmScaleMode { Tensor, OuterVector, Block128 };
/// DGelu / DGeluBgrad are cuBLASLt's backward GELU epilogues (D = result * gelu'(aux), aux the
/// GELU's input, read; DGeluBgrad also writes the bias gradient, the column sums of D, to the
/// bias pointer). BGradA / BGradB write the bias gradient alone to the bias pointer: the sums of
/// our A over K ([m], cuBLASLt's BGRADB: its operands are ours swapped) / of our B over K ([n]),
/// e.g. a weight-gradient GEMM's dY^T summed over the tokens. Only fp8c-cublaslt-support runs
/// these four: no plan chooses them (in the bf16 MLP training step on the H200 the dgrad GEMM with
/// DGELU took 1773.3 us, the plain GEMM and its gelu_grad launch 1484.2 + 187.1 us).
enum class GemmEpilogue {
  Default,
  Bias,
  Gelu,
  GeluBias,
  Relu,
  ReluBias,
  DGelu,
  DGeluBgrad,
  BGradA,
  BGradB
};
/// What the generated GEMM's epilogue does with its input (GemmStep::epiIn).
enum class EpiInOp { GeluGrad, Residual };

/// D[m, n] = sum_k A[m, k] B[n, k] * invScaleA * invScaleB (+ bias)(activation), optionally
/// with amax(|D|) and FP8 output D * scaleD. A and B are FP8, K-major (TN), or both bf16/f16
/// (unquantized linear / matmul: no scales). Scale buffers hold *inverse* scales
/// (dequantization factors), as cuBLASLt multiplies by them; their layouts by scaleMode:
///   Tensor       one f32 each;
///   OuterVector  invScaleA [M], invScaleB [N];
///   Block128     invScaleA: the 1x128 scales of A as a [ceil(K/128), M] buffer with row pitch
///                roundup(M, 4) (BufferDesc::ldAlignM = 4: M contiguous, K blocks outer);
///                invScaleB: the 128x128 scales of B as [ceil(N/128), ceil(K/128)] with row
///                pitch roundup(ceil(K/128), 4) (BufferDesc::ld).
/// Element types and row pitches are those of the buffers (BufferDesc::type, ld). Padded
/// operand pitches have zero pad columns, so K may be rounded up to the pitch.
/// amaxD is max |D| of the f32 result before any rounding to D's type; consumers that need
/// the amax of the stored tensor round it themselves (monotone rounding: round(max) = max of
/// rounded), which the generated consumers do.
struct GemmStep {
  std::string name;
  int a = -1, b = -1, d = -1;
  int invScaleA = -1, invScaleB = -1; ///< f32 buffers: scalar, [M]/[N], or 128-block grids
  int bias = -1;                      ///< [N], bf16/f16/f32, or -1
  int amaxD = -1;                     ///< f32 scalar receiving max |D|, or -1 (zeroInit)
  bool amaxRows = false;              ///< amaxD is [M]: max |D| per row (generated GEMM only)
  int scaleD = -1;                    ///< f32 scalar for FP8 D, or -1
  /// With a GELU epilogue: the buffer receiving the GELU's input (the GEMM result plus bias,
  /// bf16 [M, N]; cuBLASLt's GELU_AUX): a pre-activation the training step saves, written by
  /// the GEMM instead of read back by a launch. -1 if none.
  int aux = -1;
  /// The FP8 D transposed ([N, M], an operand of the weight-gradient GEMM), or -1. The
  /// generated GEMM writes it in its epilogue (GemmSm90Spec::transD); on cuBLASLt the
  /// `transFallback` launch transposes D after the GEMM.
  int transD = -1;
  /// An input the generated GEMM's epilogue reads (bf16 [M, N], like D), and what it computes
  /// with it (epiInOp), or -1:
  ///   GeluGrad  the backward's gelu_grad: D is the FP8 cast of gelu_grad(GEMM result, x) with
  ///             x = epiIn, the GELU's saved input, and amaxD its amax;
  ///   Residual  a residual add after the bias and activation: D (and amaxD, scaleD) is of
  ///             round(round(act(GEMM result + bias)) + r) with r = epiIn.
  int epiIn = -1;
  EpiInOp epiInOp = EpiInOp::GeluGrad;
  /// The column sums of the epilogue's value (before the FP8 cast; the bias gradient,
  /// fp8.col_sum) into colSum ([N]), through f32 partial sums per 64 rows in colPartials (a
  /// temp of ceil(M/64) x N). Generated GEMM only; -1 if none.
  int colSum = -1, colPartials = -1;
  /// With epiIn: where cuBLASLt (auto's other choice, measured against the fused generated
  /// GEMM) writes the GEMM result (bf16 [M, N], after its bias and activation), which the
  /// `epiFallback` launches then read: gelu_grad, its amax, cast, column sums and transpose
  /// (one cast-transpose), or the residual add with its amax and cast. -1 otherwise.
  int epiD = -1;
  /// A dual GEMM (the gate and up projections of a SwiGLU MLP share A): b2 is the up weight
  /// ([N, K] like b, the gate weight) with its inverse scale invScaleB2 (Tensor scales), and D
  /// is the epilogue (amaxD, the FP8 cast) of h = swiglu(gate, up), gate and up the two GEMM
  /// results rounded to bf16. The generated GEMM computes both in one kernel
  /// (GemmSm90Spec::swiglu); cuBLASLt (auto's other choice, measured against it) runs the two
  /// GEMMs into gateD and upD (bf16 [M, N]) and the `dualFallback` launches compute the
  /// epilogue from them. -1 when not a dual GEMM.
  int b2 = -1, invScaleB2 = -1;
  int gateD = -1, upD = -1;
  /// The 1x128-block FP8 cast of the epilogue's value (a blockwise recipe's activation, the
  /// next GEMM's operand), generated GEMM only: D (FP8) = sat(rne(y * s)), y = blockAct(GEMM
  /// result + bias) in bf16, s = fp8.scale(amax of y's 1x128 block; blockMargin, blockPow2),
  /// with s written to blockScaleOut ([M, ceil(N/128)], where the graph uses the scale beyond
  /// the cast) and 1 / s to blockInvOut ([ceil(N/128), M] K-block-major, the next GEMM's
  /// inverse), each -1 where not needed. cuBLASLt (auto's other choice) writes the bf16 GEMM
  /// result plus bias to epiD and the `epiFallback` launches compute the activation, amaxes,
  /// scales and cast from it. blockCast false: none.
  bool blockCast = false;
  Activation blockAct = Activation::None;
  int blockScaleOut = -1, blockInvOut = -1;
  int64_t blockMargin = 0;
  bool blockPow2 = false;
  /// Delayed scaling's history push of amaxD by this step instead of a state launch at the end
  /// of the run (Lowerer::foldHistoryPushes), or pushHistory -1: amaxD rounded to pushRound is
  /// pushed into the pushLen entries of pushHistory in place, and with pushResetAmax amaxD
  /// (then Scratch) is put back to zero. The generated GEMM's last block pushes (pushCounter, a
  /// Scratch u32); with pushInFallback, the epiFallback or dualFallback launch that reduces
  /// amaxD pushes it where that launch runs (its last block, kPush); otherwise `pushFallback` runs
  /// after cuBLASLt (and its fallbacks) and after the unfused form's launches. At an M where
  /// the GEMM has no rows (the step does not run) pushFallback pushes the amax left at zero.
  int pushHistory = -1, pushCounter = -1;
  int64_t pushLen = 0;
  DType pushRound = DType::F32;
  bool pushResetAmax = false;
  bool pushInFallback = false;
  GemmScaleMode scaleMode = GemmScaleMode::Tensor;
  GemmEpilogue epilogue = GemmEpilogue::Default;
  bool fastAccum = true;
  AffineM m;            ///< rows of A and D
  int64_t n = 0, k = 0; ///< k is the logical K (operand pitch may be padded)
  /// B is [N, K] (K contiguous, TN) when true; [K, N] (N contiguous) for an unquantized
  /// fp8.matmul whose right operand is not transposed, or an unquantized fp8.linear whose
  /// right operand is a transpose read in place (bf16/f16 only).
  bool bKMajor = true;
  /// A is [M, K] when true; [K, M] for an unquantized GEMM whose left operand is a transpose
  /// read in place (bf16/f16 only; M static).
  bool aKMajor = true;
  /// A bf16/f16 GEMM whose K is not a multiple of 8 and whose two K-major operands are padded
  /// copies (zero pad columns up to a 16-byte pitch): the runtime runs cuBLASLt with K rounded
  /// up to 8, the same sums (the extra products are 0 * 0), with its tensor-core kernels (H200,
  /// M 8192 K 4101 N 4096: 3012.7 us at K 4101 without them, 490.6 us for the step rounded up).
  /// FP8 GEMMs always round K up to 16: every padded FP8 operand has zero pad columns.
  bool kPadsZero = false;
  /// An unquantized GEMM whose N is not a multiple of 8: B and the bias are copies with N
  /// rounded up to nPadded and zeros after, D's pitch holds nPadded columns, and the runtime
  /// runs cuBLASLt with N = nPadded (tensor-core kernels; D's pad columns come out zero). 0:
  /// N as it is.
  int64_t nPadded = 0;
  /// Who runs it (GemmBackend): set for FP8 GEMMs from their kernel's gemm_backend
  /// (ir/KernelPlan.h); bf16/f16 GEMMs are always CublasLt. With Generated, the runtime runs it
  /// on the generated Hopper GEMM (GemmCapabilities, passes/GemmCapabilities.h, says what that
  /// takes), never calls cuBLASLt for it, and the fallbacks below are unused.
  GemmBackend backend = GemmBackend::Auto;
  std::string description; ///< the ops it runs, for logs and --emit=cuda comments

  // What the runtime does where cuBLASLt refuses this GEMM at some M (measured on H200 with
  // fp8c-cublaslt-support):
  //   - Block128 needs M % 4 == 0: it runs with M rounded up to 4. A (and D when internal)
  //     have BufferDesc::rowsAlignM = 4 when internal; an A the caller owns is first copied
  //     to `aPadded`, and a D the caller owns is written to `dPadded` ([roundup(M, 4), N] of
  //     D's type) and its first M rows copied out (only at an M that is not a multiple of 4).
  //   - OuterVector with the Bias epilogue has no algorithm for some shapes at small M
  //     (N=4096, K=14336, M <= 256): it runs with the Default epilogue and `biasFallback`
  //     then adds the bias to D in place (D = round(D + bias): two roundings of D's type
  //     instead of one, within the GEMM tolerance).
  //   - GELU_AUX (aux >= 0) has no FP8 algorithm for some shapes (M 1000, N 300, K 208): the
  //     GEMM then writes the GELU input to `aux` as its D (the bias epilogue, no D scale or
  //     amax), and `auxFallback` computes the epilogue's GELU, amax and FP8 cast from it.
  int aPadded = -1, dPadded = -1;
  std::vector<GeneratedLaunch> biasFallback; ///< empty or one launch
  std::vector<GeneratedLaunch> auxFallback;  ///< empty unless aux >= 0 (with transD: D^T too)
  std::vector<GeneratedLaunch> transFallback; ///< transD >= 0: D^T from D, after cuBLASLt
  std::vector<GeneratedLaunch> epiFallback;  ///< epiD >= 0: the epilogue from epiD, after cuBLASLt
  std::vector<GeneratedLaunch> dualFallback;  ///< b2 >= 0: the swiglu epilogue from gateD, upD
  /// A launch of the plan that runs beside this GEMM (codegen/LowerSide.cpp): on the generated
  /// GEMM by the producer warpgroup's idle warps during the main loops (GemmSm90Spec::sideSpec),
  /// on cuBLASLt as its own launch after the GEMM. It shares no buffer with the GEMM, so either
  /// order computes the same. Empty, or one launch with a sideSpec.
  std::vector<GeneratedLaunch> side;
  /// pushHistory >= 0: the history push (and the amax reset) as a one-block launch, run where
  /// neither the generated GEMM nor an epiFallback launch pushes (above). Empty, or one launch.
  std::vector<GeneratedLaunch> pushFallback;
};

using Step = std::variant<GeneratedLaunch, GemmStep>;

/// The buffers a step touches (inputs and outputs alike, with a GEMM step's fallback launches).
std::vector<int> buffersOf(const Step &s);

/// Every generated launch of `steps` in order, the ones a cuBLASLt step may fall back to
/// included (what NVRTC must compile).
std::vector<const GeneratedLaunch *> launchesOf(const std::vector<Step> &steps);

/// The bytes of the distinct buffers `l` takes, at run-time size `m` (BufferDesc::bytes, with
/// padding): what the launch moves through device memory if it reads each input and writes each
/// output once, so the fewest it can move. A launch's time against it over the device's copy
/// rate is its distance from the copy-speed floor (fp8c-train-bench --profile).
int64_t bytesTouched(const std::vector<BufferDesc> &buffers, const GeneratedLaunch &l, int64_t m);

// What the GPU tests of the runtime should check of a plan (host-side expectations):
//   - every generated launch compiles for the device's arch with compileWithNvrtc plus its
//     nvrtcOptions, and its entry `entry` takes exactly {void *buffers[buffers.size()]; long long
//     m;};
//   - grid.cooperative launches (the tensorwise cast with a current amax: "quantize" launches
//     whose CastDesc has .localScale(...) with fp8c::Gran::Tensor, and cast-transposes) go
//     through cuLaunchCooperativeKernel with at most the co-resident number of blocks (one
//     block: a plain launch); their barrier counters are Scratch they leave at zero; every
//     other launch is correct with any number of blocks >= 1 (grid-stride loops);
//   - a launch with grid.persistent == false (state pushes, scalar scale launches) is one block;
//   - casts, amaxes and scales (FP8 outputs, f32 amax/scale outputs, the histories after the
//     state step) equal the interpreter's bit for bit, for any M including 0 and M not a
//     multiple of 4, 16 or 128, with NaN / inf inputs; pointwise ops (erf, tanh, exp) may
//     differ in the last bit of f32 before their rounding; GEMM outputs within tolerance;
//   - pad columns (ld > cols) of generated FP8 operands are zero after the producing step;
//   - the state step updates its buffers in place and is the last step touching them;
//   - amaxD written by cuBLASLt is the max before rounding to D's type: generated readers round
//     it (roundTo<bf16>), so an amax history equals the interpreter's;
//   - bandwidth: the quantize launches of a [16384, 8192] bf16 tensor move (bytes read +
//     written) at >= 90 % of a device-to-device copy for 1x128 and row scales and for a cast
//     with a known scale (delayed); a tensorwise current-scaling cast reads its input twice
//     (amax, grid barrier, cast: the second read from L2 when the tensor fits), so compare its
//     time with 2 reads + 1 write.
struct LaunchPlan {
  std::string graphName;
  std::vector<BufferDesc> buffers;
  std::vector<Step> steps;     ///< run on every call, in order
  std::vector<Step> loadSteps; ///< run once when parameters are bound (weights=static)
};

} // namespace fp8c
