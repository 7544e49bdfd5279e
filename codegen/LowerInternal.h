// Internal to codegen/: the state of one lowering (the Lowerer) and the launch descriptions
// (LaunchDesc) the kernel lowerings build and EmitLaunch.cpp renders to CUDA C++ text.
//
// The flow (Lowering.cpp): BufferAssignment.cpp gives every graph input, output and kernel
// result a buffer and works out, before any code is emitted, which tensors need a padded row
// pitch (GEMM operands and outputs) and which scales cuBLASLt needs inverted. Then each
// fp8.kernel in order: LowerGemm.cpp for gemm kernels (prologue launch, cuBLASLt steps,
// epilogue launch), LaunchBuilder.cpp for the ops of the others and for the prologue and
// epilogue ops of gemm kernels.
#pragma once

#include "codegen/LaunchPlan.h"
#include "codegen/Lowering.h"
#include "ir/IR.h"
#include "ir/KernelPlan.h"
#include "ir/TypeRules.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fp8c::codegen {

/// a / b rounded up (a >= 0, b > 0): tile and chunk counts.
inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Columns per block of a ColSum launch (colsum.cuh: 16 column groups of kE = 8).
constexpr int64_t kColSumSlabCols = 128;

/// Where a GEMM wants the inverse of a scale (cuBLASLt's layouts; see GemmStep).
enum class InvLayout { RowMajor, KBlockMajor, RowMajorPad4 };

/// How an input of a launch is indexed at element (r, c) (layout.cuh's Bcast).
enum class Bcast { Full, Scalar, Row, Col, Block1x128, Block128x128 };

struct LaunchInput {
  int buf = -1;
  DType dt = DType::F32;
  int64_t ld = 0; ///< row pitch (Full) or column groups (Block*)
  Bcast bc = Bcast::Full;
};

/// The FP8 cast of a launch's value (layout.cuh's CastDesc).
struct CastInfo {
  enum class Src { Slot, Buffer, Local };
  int buf = -1;
  DType dt = DType::F8E4M3FN;
  int64_t ld = 0;
  Granularity gran = Granularity::Tensor;
  int64_t groups = 0;
  Src src = Src::Slot;
  int slot = 0;
  int scaleBuf = -1;
  bool fromAmax = false;
  DType amaxRound = DType::F32;
  DType scaleDt = DType::F8E4M3FN; ///< the FP8 type whose max the scale formula uses
  int64_t margin = 0;
  bool pow2 = false;
  int scaleOut = -1, invOut = -1, amaxOut = -1;
  InvLayout invLayout = InvLayout::RowMajor;
};

/// CompactCopy: an output copy into compact rows that are not 16-byte multiples
/// (copy_compact.cuh); its one input is the padded source, storeBuf the output.
enum class LaunchKind { Rows, Tiles, Transpose, Small, Inverse, ColSum, CompactCopy };

/// One generated launch before rendering. Buffer numbers are LaunchPlan buffer indices; the
/// renderer maps them to the launch's own argument slots.
struct LaunchDesc {
  LaunchKind kind = LaunchKind::Rows;
  std::string suffix;      ///< kernel name suffix: "quantize", "epilogue", ...
  std::string description; ///< the ops it runs
  AffineM rows;            ///< iteration space rows (input rows for a transpose)
  int64_t cols = 1;
  std::vector<LaunchInput> inputs;
  std::vector<std::string> body; ///< statements of value(const float *x)
  std::string result;            ///< the expression value() returns
  /// Input tabIn (a Full FP8 input) is read through a table of tabFn (the body of
  /// tabulate(float x)) over its 256 codes (rows.cuh, "FP8 tables").
  int tabIn = -1;
  std::string tabFn;
  DType valueDt = DType::F32;
  int storeBuf = -1;
  DType storeDt = DType::F32;
  int64_t storeLd = 0;
  int amaxBuf = -1;
  Granularity amaxGran = Granularity::Tensor;
  int64_t amaxGroups = 0;
  std::optional<CastInfo> cast;
  std::vector<std::string> scalarLines; ///< body of scalars(buf, m, slot, leader)
  int numSlots = 0;
  int barrierBuf = -1;    ///< Scratch {arrived, left} of a cooperative launch's grid barrier
  bool resetAmax = false; ///< its cast's tensor amax is Scratch too: the launch resets it
  // Rows: delayed scaling's history push of the launch's tensor amax (amaxBuf) into
  // pushHistory [pushLen] in place by its last block, found with the Scratch counter
  // pushCounter; with pushResetAmax the amax is Scratch and put back to zero.
  int pushHistory = -1;
  int64_t pushLen = 0;
  int pushCounter = -1;
  bool pushResetAmax = false;
  int outLdAlignM = 0;                 ///< transpose: output pitch roundup(M, this), or
  int64_t outLd = 0;                   ///< a static output pitch
  std::vector<std::string> smallLines; ///< Small: body of run(buf, m)
  // A Small launch of a GEMM prologue's scalar jobs alone (the history scale of its FP8 D): the
  // jobs' lines for a leader thread with `float slot[leaderSlots]` (Lowerer::foldScalarLaunch
  // moves them into the launch before it).
  std::vector<std::string> leaderLines;
  int leaderSlots = 0;
  // ColSum: store[c] = sum over rows of value (colsum.cuh), through partial sums; a
  // Transpose may compute one too (into colSumBuf).
  int colSumChunks = 0, partialBuf = -1, counterBuf = -1;
  int colSumBuf = -1;
  DType colSumDt = DType::F32;
  // Transpose with a cast: the cast also written untransposed, with this pitch.
  int rowCastBuf = -1;
  int64_t rowCastLd = 0;
  // Transpose: input copyIn (a Full input) also written untransposed, converted to copyDt
  // (unscaled, saturating), into copyBuf with pitch copyLd.
  int copyIn = -1, copyBuf = -1;
  DType copyDt = DType::F8E4M3FN;
  int64_t copyLd = 0;
  // Transpose with a per-output-row local cast: the input also cast untransposed with local
  // per-row (1x128-block) scales of its own (transpose.cuh's kRowCast).
  std::optional<CastInfo> rowCast;
  // Inverse: out[layout] = 1 / in over a [rows, cols] grid.
  int invIn = -1, invOutBuf = -1;
  InvLayout invLayout = InvLayout::RowMajor;
};

/// The lowering of one graph.
class Lowerer {
public:
  Lowerer(const Graph &g, const CodegenOptions &opts);
  Expected<LaunchPlan> run();

  // --- buffers (BufferAssignment.cpp) --------------------------------------------------------
  /// The value a region value stands for at the top level: a block argument's kernel operand,
  /// a yielded value's kernel result; other region values are their own.
  const Value *canon(const Value *v) const;
  /// The buffer holding v (created as a Temp on first use).
  int bufferOf(const Value *v);
  /// Requires v's rows to be 16-byte aligned (v is written by cuBLASLt); before buffers exist.
  void requirePitch(const Value *v);
  /// A new temporary buffer.
  int newTemp(const std::string &name, TensorType type, int64_t ld = 0, bool zeroInit = false);
  /// A new Scratch buffer (zero when the executable is created, left at zero by its launch).
  int newScratch(const std::string &name, TensorType type);
  /// The {arrived, left} counters of a cooperative launch's grid barrier (Scratch).
  int newGridBarrier() { return newScratch("grid_barrier", TensorType({2}, DType::I32)); }
  /// The buffer a GEMM reads v from: bufferOf(v) when its pitch is right, else a padded copy.
  int gemmOperandBuffer(const Value *v);
  /// True for a buffer gemmOperandBuffer or rowPaddedCopy made: a padded copy whose pad
  /// columns (and rows) are zero.
  bool isPaddedCopy(int b) const;
  /// A copy of v (a bf16/f16 [N, K] GEMM operand, or an [N] bias) with `rows` >= N rows
  /// (elements), the rows past N zero, at the pitch a GEMM operand needs: what lets cuBLASLt
  /// run an unquantized GEMM with N rounded up (GemmStep::nPadded).
  int rowPaddedCopy(const Value *v, int64_t rows);
  /// The launch both copies share: v into a new temporary of `type` (pitch ld, zeroed first
  /// when zeroInit), stored with pitch storeLd (zeros past v's columns), at load when v
  /// depends on parameters only; `what` ends the description "copy of %v ...".
  int padCopy(const Value *v, TensorType type, int64_t ld, bool zeroInit, int64_t storeLd,
              const std::string &what);
  /// The buffer receiving the inverse of scale value v in `layout`, if a GEMM needs it.
  std::optional<int> inverseBuffer(const Value *v, InvLayout layout);
  /// Inverse scales a GEMM needs of v that no launch has written yet, in what layout.
  std::vector<InvLayout> pendingInverses(const Value *v) const;
  void markInverseWritten(const Value *v, InvLayout layout);
  /// Marks an amax buffer written by cuBLASLt (pre-rounding): readers round it to `dt`.
  void setAmaxRound(int buf, DType dt) { amaxRound_[buf] = dt; }
  DType amaxRound(int buf) const;
  /// 128 when v's dynamic dim is ceil(M / 128) (see BufferDesc::mDivisor), else 1.
  int64_t mDivisor(const Value *v) const;
  /// Row pitch of buffer b in elements (its last dim when compact).
  int64_t ldOf(int buf) const;
  BufferDesc &desc(int buf) { return plan_.buffers[static_cast<size_t>(buf)]; }

  // --- steps ---------------------------------------------------------------------------------
  /// Renders and appends a launch of kernel `kernelIndex`.
  void addLaunch(const LaunchDesc &d, int kernelIndex);
  /// Renders a launch of kernel `kernelIndex` under a unique name without appending it.
  GeneratedLaunch renderNamed(const LaunchDesc &d, int kernelIndex);
  /// Renders a launch under `name` (the NVRTC options of every generated launch).
  GeneratedLaunch render(const LaunchDesc &d, const std::string &name) const;
  void addGemm(GemmStep g);
  /// The number of steps so far, and the generated launches appended after `mark` taken out
  /// of the plan (to become a GEMM step's fallback launches).
  size_t stepCount() const { return (loadTime_ ? plan_.loadSteps : plan_.steps).size(); }
  std::vector<GeneratedLaunch> takeLaunchesSince(size_t mark);
  /// True while lowering a kernel that runs at load time (parameters only).
  bool loadTime() const { return loadTime_; }
  const CodegenOptions &options() const { return opts_; }
  const Graph &graph() const { return g_; }
  /// The rows of tensor t as an AffineM (all dims but the last; 1 for rank <= 1).
  static AffineM rowsOf(const TensorType &t);
  static int64_t colsOf(const TensorType &t);

  /// Writes an error (first one wins).
  void fail(const Op &op, const std::string &why);
  bool failed() const { return !error_.empty(); }

private:
  // BufferAssignment.cpp
  void assignGraphBuffers();
  void planPadding();
  void planInverses();
  void planLoadTime();
  void planDivisors();
  /// Copies values that could not be written into their Output / State buffers in place.
  void emitOutputCopies(const std::vector<const Value *> &values, int kernelIndex);
  int createBuffer(const Value *v, BufferRole role, int graphIndex);
  // Lowering.cpp
  void lowerKernel(const Op &kernel, int index);
  void lowerStateKernel(const Op &kernel, int index);
  bool foldHistoryPushes(const Op &kernel);
  std::string historyPushLine(int out, int in, int amax, int64_t len) const;
  bool foldScalarLaunch(const LaunchDesc &d);

  const Graph &g_;
  CodegenOptions opts_;
  LaunchPlan plan_;
  std::string error_;
  bool loadTime_ = false;
  std::map<const Value *, int> buf_;
  std::map<const Value *, const Value *> alias_; ///< region value -> canonical value
  std::map<const Value *, int64_t> requiredLd_;
  std::map<const Value *, int> dynamicAlign_; ///< trailing-M tensors read by a GEMM
  std::map<const Value *, int64_t> mDivisor_;
  std::map<const Value *, int> paddedCopy_;
  std::map<std::pair<const Value *, int64_t>, int> rowPadded_; ///< (value, rows) -> copy
  std::map<std::pair<const Value *, InvLayout>, int> inverse_;
  std::set<std::pair<const Value *, InvLayout>> inverseWritten_;
  std::map<int, DType> amaxRound_;
  std::set<const Value *> loadTimeValues_;
  std::map<const Value *, std::vector<int>> outputCopies_; ///< value -> Output buffers to fill
  std::map<const Value *, int> stateTarget_;               ///< history_push result -> state buffer
  std::map<std::string, int> nameCount_;
  int currentKernel_ = 0;
  std::vector<int> stateWrites_; ///< state buffers updated in place
  int stateStep_ = -1;           ///< the step that updates them
  std::set<std::string> kernelNames_;
  std::map<std::string, LaunchDesc> rendered_; ///< per-run launches by name, as described
  friend class LaunchBuilder;
};

/// How a gemm kernel splits between launches and cuBLASLt (LowerGemm.cpp).
struct GemmAnalysis {
  /// Who runs the FP8 GEMMs: the kernel's gemm_backend (ir/KernelPlan.h).
  GemmBackend backend = GemmBackend::Auto;
  /// The `main` ops: scaled_matmul / linear / matmul (two for a dual GEMM).
  std::vector<Op *> mains;
  std::vector<Op *> pre;   ///< the `prologue` ops, before the GEMM: the prologue launch
  std::vector<Op *> fused; ///< epilogue ops cuBLASLt performs
  std::vector<Op *> post;  ///< epilogue ops left to the epilogue launch
  GemmEpilogue epilogue = GemmEpilogue::Default;
  Op *amaxD = nullptr;                ///< the tensor amax cuBLASLt computes (AMAX_D)
  Op *castD = nullptr;                ///< the FP8 cast cuBLASLt performs (scaleD)
  const Value *aux = nullptr;         ///< the GELU input written as aux (GELU_AUX)
  /// gelu_saved=e4m3: the unscaled e4m3 convert of the GELU input, written as an FP8 aux by
  /// the generated GEMM (aux is its result)
  const Op *auxCopy = nullptr;
  Op *transD = nullptr;               ///< the transpose of the FP8 D written beside it
  bool amaxRows = false;              ///< amaxD is per row of D (the generated GEMM only)
  /// The backward's tanh gelu_grad of the result (an MLP's second dgrad GEMM), its saved input
  /// read in the epilogue (epiIn), the FP8 cast of it (castD), its amax (amaxD) and its column
  /// sums (colSum, the bias gradient) in the generated GEMM's epilogue.
  Op *geluGrad = nullptr;
  const Value *epiIn = nullptr;
  /// A residual add of the (activated) result and epiIn, a bf16 [M, N] tensor, read in the
  /// generated GEMM's epilogue; its amax and FP8 cast follow it into the epilogue (amaxD, castD).
  Op *residual = nullptr;
  /// With epiIn: the value cuBLASLt writes (GemmStep::epiD) when it runs the step, and the
  /// first op of `fused` that the fallback launches compute from it.
  const Value *epiResult = nullptr;
  Op *epiFirst = nullptr;
  Op *colSum = nullptr;
  /// The dual GEMM fused in one generated step (LowerDualGemm.cpp): this swiglu of the two
  /// results (mains[0] the gate, mains[1] the up projection) is the epilogue, with its tensor
  /// amax (amaxD) and FP8 cast (castD) where they follow it.
  Op *swiglu = nullptr;
  /// The epilogue holds what only the generated GEMM computes (row scales with an activation
  /// or an amax, a per-row amax): the step runs on it (GemmStep::backend Generated).
  bool needsGenerated = false;
  /// The 1x128-block FP8 cast of the (activated) result in the generated GEMM's epilogue
  /// (LowerGemmBlockCast.cpp): the optional activation, the block amax, its scale and the cast.
  Op *blockAct = nullptr, *blockAmax = nullptr, *blockScale = nullptr, *blockCast = nullptr;
  std::vector<const Value *> written; ///< per main, the value cuBLASLt writes as D
};

// --- a GEMM op's operands (LowerGemmOperands.cpp) -------------------------------------------
/// The bias operand of a GEMM op (scaled_matmul, linear), or null.
const Value *biasOf(const Op *main);
/// True when cuBLASLt takes the bias of `main` as it is (or there is none).
bool biasFusable(const Op *main);
/// The scale mode of a scaled_matmul from its scales' rank (Tensor for an unquantized GEMM).
GemmScaleMode scaleModeOf(const Op *main);
/// The N cuBLASLt should run the GEMM `main` of `a` with (GemmStep::nPadded), or 0.
int64_t roundedN(Lowerer &lw, const GemmAnalysis &a, const Op *main, bool bTransposed);
/// How a gemm kernel splits, from its fusion plan (ir/KernelPlan.h): the `prologue`, `main`
/// and `epilogue` ops (the verifier checked the roles against the region's dependences) and
/// who runs its FP8 GEMMs (gemm_backend). A GELU whose input is also an output is fused with
/// that input written as a second output (cuBLASLt's GELU_AUX, the generated GEMM's auxOut),
/// and the transpose of an FP8 D as a third (the generated GEMM's transD, a launch after
/// cuBLASLt). With gemm_backend generated they need N in whole 16-byte units, which the
/// generated GEMM's TMA-store epilogue writes them in; otherwise they are launches after the
/// GEMM. Where the generated GEMM may run (gemm_backend auto or generated, and `arch` sm_90a):
/// epilogues only the generated GEMM computes are fused: row-scaled activations and amaxes
/// (GemmAnalysis::needsGenerated), the backward's gelu_grad with its cast, amax, column sums
/// and transpose, and a residual add with its amax and cast (on cuBLASLt the result goes to
/// GemmStep::epiD and launches compute the epilogue).
GemmAnalysis analyzeGemm(const Op &kernel, std::string_view arch);
/// True when `v` is computed (within the region) from one of `roots`.
bool dependsOnAny(const Value *v, const std::set<const Op *> &roots);
/// True when a yield of the kernel returns `v`.
bool isYielded(const Value *v);
/// The FP8 cast of `v` with a per-tensor scale known before the GEMM (not computed from
/// `mains`) and the tensor amax of `v`, when those are exactly v's users and v is not yielded;
/// nulls otherwise.
std::pair<Op *, Op *> knownScaleCastOf(const Value *v, const std::set<const Op *> &mains);
/// The buffer of 1 / `v` in `layout` for a GEMM step into *slot, with a launch that inverts it
/// where nothing computed it yet.
Status inverseScaleInto(Lowerer &lw, const Value *v, InvLayout layout, int kernelIndex,
                        int *slot);
/// The dual-GEMM analysis of a kernel with two GEMMs sharing A (fills `a`, whose mains,
/// pre and written are set): when the generated GEMM may run it (`generatedCapable`) and both
/// are FP8 with tensor scales (or both with row scales, A's shared), no bias and bf16 results
/// used only by one swiglu, `a.swiglu` is set, mains ordered (gate, up), and the swiglu with
/// the amax (tensor, or per row with row scales) and the known-scale FP8 cast that follow it
/// fused; otherwise every op after the GEMMs is left to the epilogue launch.
void analyzeDualGemm(const Op &kernel, bool generatedCapable, std::vector<Op *> epi,
                     GemmAnalysis &a);
/// The blockwise analysis of a one-GEMM kernel with 128-block scales (LowerGemmBlockCast.cpp):
/// where the bf16 result (after its bias) feeds, through an optional relu / gelu / silu, only a
/// 1x128 amax and the block cast by the scale computed from it, those ops join `a.fused`
/// (a.blockAct .. a.blockCast; epiResult the result, epiFirst the first fused op) and the cast's
/// FP8 output becomes the value written.
void analyzeBlockCast(const Op &kernel, GemmAnalysis &a);
/// The gelu_grad epilogue analysis of a one-GEMM kernel (LowerGemmGeluGrad.cpp): where the
/// result `tail` (FP8 tensor scales, the generated GEMM allowed, N whole 16-byte units) feeds
/// only a tanh gelu_grad whose saved input is a bf16 kernel input or the kernel's convert of an
/// e4m3 one, and that feeds a known-scale tensor cast (with its amax, column sums and the cast's
/// transpose), those ops join `a.fused` (a.geluGrad, epiIn, epiResult, epiFirst, castD, amaxD,
/// colSum, transD) and the cast's output is returned as the value written; otherwise `tail`.
const Value *analyzeGeluGradEpilogue(const Op &kernel, const std::set<const Op *> &mains,
                                     const Value *tail, GemmAnalysis &a,
                                     std::set<const Op *> &fused);
/// Fills the block cast of step `g` from `a` (GemmStep::blockCast): the scale and inverse
/// outputs, and, unless the step is the generated GEMM's alone, cuBLASLt's result buffer and the
/// launches that compute the epilogue from it.
Status lowerBlockCast(Lowerer &lw, const Op &kernel, int kernelIndex, const GemmAnalysis &a,
                      GemmStep &g);
/// Lowers a kernel that analyzeDualGemm fused: one GEMM step for both weights.
Status lowerDualGemm(Lowerer &lw, const Op &kernel, int kernelIndex, const GemmAnalysis &a);
/// The transpose feeding operand `i` (0 = A, 1 = B) of an unquantized GEMM op that cuBLASLt
/// reads in place, in the other layout; null when there is none.
const Op *inPlaceTranspose(const Op *main, int i);
/// Lowers one gemm kernel.
Status lowerGemmKernel(Lowerer &lw, const Op &kernel, int kernelIndex);

/// Moves each cast-transpose launch that can run on a generated GEMM's idle warps
/// (GeneratedLaunch::sideSpec) and shares no buffer with the FP8 GEMM step right before it into
/// that step (GemmStep::side; LowerSide.cpp).
void attachSideLaunches(std::vector<Step> &steps, const std::vector<BufferDesc> &buffers);

/// The chunks of tile rows a cast-transpose's column sums are split into (units: a chunk of one
/// 64-wide tile column) for tiles `tileHeight` rows high and `blocksPerSm` resident blocks:
/// transpose.cuh's general form 64 and 8 (nominal), the byte-staged one 128 and 4 (its 60-80
/// registers hold 3-4 blocks per SM). LaunchGroup.cpp, beside the rule's measurements.
int64_t colSumUnitChunks(const AffineM &rows, int64_t cols, int64_t tileHeight,
                         int64_t blocksPerSm);

/// Renders a launch to a GeneratedLaunch (EmitLaunch.cpp); `buffers` are the plan's.
GeneratedLaunch renderLaunch(const LaunchDesc &d, const std::string &kernelName,
                             const std::vector<BufferDesc> &buffers, const ElementwiseTuning &t);

/// C++ spellings used in generated code.
std::string dtName(DType t);         ///< "fp8c::Dt::BF16"
std::string granName(Granularity g); ///< "fp8c::Gran::Row"

/// The buffers read and written by the ops of one region, lowered to generated launches
/// (LaunchBuilder.cpp). `ops` are region ops in order; values they use that are computed
/// outside `ops` are read from buffers.
Status buildLaunches(Lowerer &lw, const Op &kernel, int kernelIndex, const std::vector<Op *> &ops,
                     const std::string &role);

} // namespace fp8c::codegen
