// Renders a LaunchDesc as CUDA C++: a comment naming the kernel, its ops and its buffers, one
// #include of the template header, a `Spec` struct of constants (and the value() / scalars()
// functions), and the `extern "C" __global__` entry point that instantiates the template with
// it. Also picks the chunk size and unrolling, and the grid rule that matches the template's
// mapping (rows.cuh). The text depends only on the LaunchDesc: same graph, same source.
#include "codegen/LowerInternal.h"

#include <algorithm>
#include <sstream>

namespace fp8c::codegen {
namespace {

int pow2Ceil(int64_t x) {
  int p = 1;
  while (p < x && p < 256)
    p *= 2;
  return p;
}

AffineM scaled(AffineM a, int64_t k) { return {a.perM * k, a.fixed * k}; }

std::string extentStr(AffineM a) {
  return "{" + std::to_string(a.perM) + ", " + std::to_string(a.fixed) + "}";
}

std::string bcastName(Bcast b) {
  switch (b) {
  case Bcast::Full:
    return "fp8c::Bcast::Full";
  case Bcast::Scalar:
    return "fp8c::Bcast::Scalar";
  case Bcast::Row:
    return "fp8c::Bcast::Row";
  case Bcast::Col:
    return "fp8c::Bcast::Col";
  case Bcast::Block1x128:
    return "fp8c::Bcast::Block1x128";
  case Bcast::Block128x128:
    return "fp8c::Bcast::Block128x128";
  }
  return "";
}

std::string layoutName(InvLayout l) {
  switch (l) {
  case InvLayout::RowMajor:
    return "fp8c::InvLayout::RowMajor";
  case InvLayout::KBlockMajor:
    return "fp8c::InvLayout::KBlockMajor";
  case InvLayout::RowMajorPad4:
    return "fp8c::InvLayout::RowMajorPad4";
  }
  return "";
}


/// The launch's buffers in order of first use, and the map from plan buffers to them.
class Slots {
public:
  int operator()(int b) {
    if (b < 0)
      return -1;
    auto it = local_.find(b);
    if (it != local_.end())
      return it->second;
    order_.push_back(b);
    return local_[b] = static_cast<int>(order_.size()) - 1;
  }
  /// Replaces every @N@ (plan buffer N) by buf[local].
  std::string subst(const std::string &line) {
    std::string out;
    for (size_t i = 0; i < line.size(); ++i) {
      size_t end = line[i] == '@' ? line.find('@', i + 1) : std::string::npos;
      if (end == std::string::npos) {
        out += line[i];
        continue;
      }
      out += "buf[" + std::to_string((*this)(std::stoi(line.substr(i + 1, end - i - 1)))) + "]";
      i = end;
    }
    return out;
  }
  const std::vector<int> &order() const { return order_; }

private:
  std::map<int, int> local_;
  std::vector<int> order_;
};

std::string castDescStr(const CastInfo &c, Slots &slot) {
  std::ostringstream s;
  s << "fp8c::CastDesc::to(" << slot(c.buf) << ", " << dtName(c.dt) << ", " << c.ld << ", "
    << granName(c.gran) << ", " << c.groups << ")";
  switch (c.src) {
  case CastInfo::Src::Slot:
    s << "\n          .slotScale(" << c.slot << ")";
    break;
  case CastInfo::Src::Buffer:
    if (c.fromAmax)
      s << "\n          .amaxScale(" << slot(c.scaleBuf) << ", " << dtName(c.amaxRound) << ", "
        << dtName(c.scaleDt) << ", " << c.margin << ", " << (c.pow2 ? "true" : "false") << ")";
    else
      s << "\n          .bufferScale(" << slot(c.scaleBuf) << ")";
    break;
  case CastInfo::Src::Local:
    s << "\n          .localScale(" << dtName(c.scaleDt) << ", " << c.margin << ", "
      << (c.pow2 ? "true" : "false") << ")";
    break;
  }
  if (c.scaleOut >= 0)
    s << ".scaleOut(" << slot(c.scaleOut) << ")";
  if (c.invOut >= 0)
    s << ".invOut(" << slot(c.invOut) << ", " << layoutName(c.invLayout) << ")";
  if (c.amaxOut >= 0)
    s << ".amaxOut(" << slot(c.amaxOut) << ")";
  return s.str();
}

void wrapComment(std::ostringstream &os, const std::string &text) {
  std::string line = "//";
  std::istringstream words(text);
  std::string w;
  while (words >> w) {
    if (line.size() + 1 + w.size() > 100 && line != "//") {
      os << line << "\n";
      line = "//   ";
    }
    line += " " + w;
  }
  os << line << "\n";
}

} // namespace

std::string dtName(DType t) {
  switch (t) {
  case DType::F32:
    return "fp8c::Dt::F32";
  case DType::F16:
    return "fp8c::Dt::F16";
  case DType::BF16:
    return "fp8c::Dt::BF16";
  case DType::F8E4M3FN:
    return "fp8c::Dt::E4M3";
  case DType::F8E5M2:
    return "fp8c::Dt::E5M2";
  case DType::I32:
    break;
  }
  return "fp8c::Dt::F32";
}

std::string granName(Granularity g) {
  return "fp8c::Gran::" + std::string(g == Granularity::Tensor       ? "Tensor"
                                      : g == Granularity::Row        ? "Row"
                                      : g == Granularity::Col        ? "Col"
                                      : g == Granularity::Block1x128 ? "Block1x128"
                                                                     : "Block128x128");
}

/// A one-pass cast-transpose that transpose_bytes.cuh's byte-staged form runs (its bytes::fits):
/// one bf16 full input, or two where one is FP8 read through the FP8 table, optionally with
/// column sums; rows 8-element aligned; a tensor scale known before the launch; the FP8 copies
/// as outputs, and optionally the tensor amax and the history push.
bool byteStagedFits(const LaunchDesc &d) {
  // Measured (H200, the two kernels timed alternately in one process after a GEMM, the delayed
  // steps at 8192 tokens; docs/gemm.md): x 8 % and W 4 % faster than the general form, the
  // gelu_grad of the saved e4m3 input 24 %, dY with the bias gradient's column sums 4 % (the
  // Linear) and 8 % (the MLP); two bf16 inputs spilled at 80 registers.
  bool inputs = d.inputs.size() == 1 || (d.inputs.size() == 2 && d.tabIn >= 0);
  for (size_t i = 0; i < d.inputs.size(); ++i) {
    const LaunchInput &in = d.inputs[i];
    inputs = inputs && in.bc == Bcast::Full && in.ld % 8 == 0 &&
             (in.dt == DType::BF16 || (isFloat8(in.dt) && d.tabIn == static_cast<int>(i)));
  }
  const bool knownTensorScale = d.cast && isFloat8(d.cast->dt) &&
                                d.cast->gran == Granularity::Tensor &&
                                d.cast->src != CastInfo::Src::Local;
  return d.kind == LaunchKind::Transpose && inputs && knownTensorScale && d.cols % 8 == 0 &&
         (d.rowCastBuf < 0 || d.rowCastLd % 8 == 0) && !d.rowCast && d.copyBuf < 0 &&
         d.storeBuf < 0 && d.barrierBuf < 0 && (d.amaxBuf < 0 || d.amaxGran == Granularity::Tensor);
}

GeneratedLaunch renderLaunch(const LaunchDesc &d, const std::string &name,
                             const std::vector<BufferDesc> &buffers, const ElementwiseTuning &t) {
  GeneratedLaunch gl;
  gl.kernelName = gl.entry = name;
  gl.description = d.description;
  Slots slot;
  std::ostringstream spec; // the Spec's members
  const char *header = "fp8c/rows.cuh";
  std::string body = "fp8c::rowsKernel<Spec>(args);";
  std::string base = " : fp8c::SpecDefaults";
  const bool hasValue = d.kind == LaunchKind::Rows || d.kind == LaunchKind::Tiles ||
                        d.kind == LaunchKind::Transpose || d.kind == LaunchKind::ColSum;
  int nFull = 0;
  for (const LaunchInput &in : d.inputs)
    nFull += in.bc == Bcast::Full;
  // Chunks of 16 elements (16-byte FP8 stores, two 16-byte bf16 loads); two chunks per thread
  // per step when registers allow (measured on H200: more unrolling lowers occupancy more than
  // it adds loads in flight). A cooperative launch keeps one (phase 2 re-reads from L2).
  const bool coop =
      d.cast && d.cast->src == CastInfo::Src::Local && d.cast->gran == Granularity::Tensor;
  // 1x128 groups: one chunk per step (H200 sweep: 88 % of copy against 85 % with two).
  const bool groups1x128 = (d.amaxBuf >= 0 && d.amaxGran == Granularity::Block1x128) ||
                           (d.cast && d.cast->gran == Granularity::Block1x128);
  // A plain copy (an output copy) takes one chunk too: 32 registers, so every thread slot of an
  // SM is used; with two chunks ptxas spilled 8 bytes at every static M tried (48 registers).
  const bool plainCopy = d.kind == LaunchKind::Rows && d.inputs.size() == 1 &&
                         d.body.empty() && d.result == "x[0]" && d.amaxBuf < 0 && !d.cast;
  int E = d.kind == LaunchKind::Rows ? (nFull <= 2 ? 16 : 8) : 16;
  int U = nFull <= 1 && !coop && !groups1x128 && !plainCopy ? 2 : 1;
  if (d.kind == LaunchKind::Rows && t.chunk > 0)
    E = t.chunk;
  if (d.kind == LaunchKind::Rows && t.unroll > 0)
    U = t.unroll;
  const bool outRowScales = d.kind == LaunchKind::Transpose && d.cast &&
                            d.cast->src == CastInfo::Src::Local &&
                            d.cast->gran != Granularity::Tensor;
  const bool byteStaged = t.byteStagedTranspose != 0 && byteStagedFits(d);
  // The column-sum units' chunks of tile rows: the byte-staged form's tiles are 128 rows high,
  // so it takes fewer (at most the general form's, which the partial sums are sized for).
  const int64_t colChunks =
      byteStaged && d.colSumBuf >= 0
          ? std::min<int64_t>(colSumUnitChunks(d.rows, d.cols, 128, 4), d.colSumChunks)
          : d.colSumChunks;
  if (hasValue) {
    spec << "  static constexpr fp8c::Extent kRows = " << extentStr(d.rows) << ";\n";
    spec << "  static constexpr long long kCols = " << d.cols << ";\n";
    if (d.kind == LaunchKind::Rows)
      spec << "  static constexpr int kE = " << E << ", kUnroll = " << U << ";\n";
    else if (d.kind == LaunchKind::Tiles)
      spec << "  static constexpr int kE = " << E << ";\n";
    else if (d.kind == LaunchKind::ColSum)
      spec << "  static constexpr int kE = 8, kChunks = " << d.colSumChunks << ";\n";
    spec << "  static constexpr int kNumIn = " << d.inputs.size() << ";\n";
    spec << "  static constexpr fp8c::InDesc kIn[] = {\n";
    for (const LaunchInput &in : d.inputs) {
      const std::string &vname = buffers[static_cast<size_t>(in.buf)].name;
      if (in.bc == Bcast::Full)
        spec << "      fp8c::InDesc::full(" << slot(in.buf) << ", " << dtName(in.dt) << ", "
             << in.ld << "), // %" << vname << "\n";
      else
        spec << "      fp8c::InDesc::bcast(" << slot(in.buf) << ", " << dtName(in.dt) << ", "
             << bcastName(in.bc) << ", " << in.ld << "), // %" << vname << "\n";
    }
    spec << "  };\n";
    spec << "  __device__ static float value(const float *x, const float *slot) {\n";
    for (const std::string &l : d.body)
      spec << "    " << l << "\n";
    spec << "    return " << d.result << ";\n  }\n";
    if (d.tabIn >= 0)
      spec << "  static constexpr int kTabIn = " << d.tabIn
           << ";\n  __device__ static float tabulate(float x) { return " << d.tabFn << "; }\n";
    if (d.storeBuf >= 0)
      spec << "  static constexpr fp8c::OutDesc kStore = fp8c::OutDesc::to(" << slot(d.storeBuf)
           << ", " << dtName(d.storeDt) << ", " << d.storeLd << ");\n";
    if (d.amaxBuf >= 0)
      spec << "  static constexpr fp8c::AmaxDesc kAmax = fp8c::AmaxDesc::to(" << slot(d.amaxBuf)
           << ", " << granName(d.amaxGran) << ", " << d.amaxGroups << ");\n";
    if (d.cast)
      spec << "  static constexpr fp8c::CastDesc kCast =\n      " << castDescStr(*d.cast, slot)
           << ";\n";
    if (d.kind == LaunchKind::Tiles && t.tileTwoPass >= 0)
      spec << "  static constexpr bool kTileTwoPass = " << (t.tileTwoPass ? "true" : "false")
           << ";\n";
    if (d.kind == LaunchKind::ColSum)
      spec << "  static constexpr int kPartialBuf = " << slot(d.partialBuf)
           << ", kCounterBuf = " << slot(d.counterBuf) << ";\n";
    if (d.barrierBuf >= 0)
      spec << "  static constexpr int kBarrierBuf = " << slot(d.barrierBuf) << ";\n";
    if (d.resetAmax)
      spec << "  static constexpr bool kResetAmax = true;\n";
    if (d.pushHistory >= 0)
      spec << "  static constexpr fp8c::PushDesc kPush = fp8c::PushDesc::to(" << slot(d.pushHistory)
           << ", " << d.pushLen << ", " << slot(d.pushCounter) << ", "
           << (d.pushResetAmax ? "true" : "false") << ");\n";
    if (d.rowCast)
      spec << "  static constexpr fp8c::CastDesc kRowCast =\n      "
           << castDescStr(*d.rowCast, slot) << ";\n";
    if (d.rowCastBuf >= 0)
      spec << "  static constexpr int kRowCastBuf = " << slot(d.rowCastBuf)
           << ";\n  static constexpr long long kRowCastLd = " << d.rowCastLd << ";\n";
    if (d.copyBuf >= 0)
      spec << "  static constexpr int kCopyIn = " << d.copyIn
           << ";\n  static constexpr fp8c::OutDesc kCopy = fp8c::OutDesc::to(" << slot(d.copyBuf)
           << ", " << dtName(d.copyDt) << ", " << d.copyLd << ");\n";
    if (d.kind == LaunchKind::Transpose && d.colSumBuf >= 0)
      spec << "  static constexpr fp8c::OutDesc kColSum = fp8c::OutDesc::to(" << slot(d.colSumBuf)
           << ", " << dtName(d.colSumDt)
           << ", 0);\n  static constexpr int kColChunks = " << colChunks
           << ", kPartialBuf = " << slot(d.partialBuf) << ", kCounterBuf = " << slot(d.counterBuf)
           << ";\n";
    // A cast-transpose with per-output-row local scales (rowwise, blockwise) keeps the unskewed
    // tile: ptxas holds those launches at 64 registers (below), where the skewed tile's
    // addresses made it spill 4-28 bytes (the rowwise MLP's GELU and gelu_grad launches at 256
    // tokens); at 80 registers (3 blocks) the gelu_grad one took 9 % longer than unskewed
    // (H200, the two kernels timed alternately in one process: 451.0 against 422.3 us).
    if (outRowScales)
      spec << "  static constexpr bool kSkewTile = false;\n";
    if (byteStaged)
      spec << "  static constexpr bool kByteStaged = true;\n";
    if (byteStaged && t.insideTiles == 0)
      spec << "  static constexpr bool kInsideTiles = false;\n";
    if (d.kind == LaunchKind::Transpose) {
      spec << "  __device__ static long long outLd(long long m) { return ";
      if (d.outLdAlignM > 0)
        spec << "(m + " << d.outLdAlignM - 1 << ") / " << d.outLdAlignM << " * " << d.outLdAlignM;
      else
        spec << d.outLd;
      spec << "; }\n";
    }
    if (d.numSlots > 0)
      spec << "  static constexpr int kNumSlots = " << d.numSlots << ";\n";
    if (!d.scalarLines.empty()) {
      spec << "  __device__ static void scalars(void *const *buf, long long m, float *slot, bool "
              "leader) {\n";
      for (const std::string &l : d.scalarLines)
        spec << "    " << slot.subst(l) << "\n";
      spec << "  }\n";
    }
  }

  // The grid, as the template maps work to blocks.
  const int64_t width =
      std::max({d.cols, d.storeBuf >= 0 ? d.storeLd : 0, d.cast ? d.cast->ld : 0});
  switch (d.kind) {
  case LaunchKind::Rows: {
    const bool blockGroups = (d.amaxBuf >= 0 && d.amaxGran == Granularity::Block1x128) ||
                             (d.cast && d.cast->gran == Granularity::Block1x128);
    int64_t chunks = ceilDiv(width, E);
    if (blockGroups)
      chunks = ceilDiv(chunks, 128 / E) * (128 / E);
    const bool rowMode =
        (d.amaxBuf >= 0 && d.amaxGran == Granularity::Row) ||
        (d.cast && d.cast->src == CastInfo::Src::Local && d.cast->gran == Granularity::Row);
    if (rowMode)
      gl.grid = GridRule{d.rows, 256 / pow2Ceil(chunks), true, false};
    else
      gl.grid = GridRule{scaled(d.rows, chunks), 256 * U, true, false};
    gl.grid.cooperative =
        d.cast && d.cast->src == CastInfo::Src::Local && d.cast->gran == Granularity::Tensor;
    break;
  }
  case LaunchKind::Tiles:
    header = "fp8c/tiles.cuh";
    body = "fp8c::tilesKernel<Spec>(args);";
    gl.grid = GridRule{scaled(d.rows, ceilDiv(width, 128)), 128, true, false};
    break;
  case LaunchKind::Transpose:
    header = "fp8c/transpose.cuh";
    body = "fp8c::transposeKernel<Spec>(args);";
    // Tiles of 64 x 64 (of 128 x 64 byte-staged), or column-sum units.
    gl.grid =
        d.colSumBuf >= 0
            ? GridRule{AffineM{0, ceilDiv(d.cols, 64) * colChunks}, 1, true, false}
            : GridRule{scaled(d.rows, ceilDiv(d.cols, 64)), byteStaged ? 128 : 64, true, false};
    gl.grid.cooperative = d.cast && d.cast->src == CastInfo::Src::Local;
    break;
  case LaunchKind::ColSum:
    header = "fp8c/colsum.cuh";
    body = "fp8c::colSumKernel<Spec>(args);";
    gl.grid =
        GridRule{AffineM{0, ceilDiv(d.cols, kColSumSlabCols) * d.colSumChunks}, 1, true, false};
    break;
  case LaunchKind::CompactCopy:
    header = "fp8c/copy_compact.cuh";
    body = "fp8c::compactCopyKernel<Spec>(args);";
    base = "";
    spec << "  static constexpr fp8c::Extent kRows = " << extentStr(d.rows) << ";\n";
    spec << "  static constexpr long long kCols = " << d.cols << ", kInLd = " << d.inputs[0].ld
         << ";\n";
    spec << "  static constexpr fp8c::Dt kDt = " << dtName(d.storeDt) << ";\n";
    spec << "  static constexpr int kIn = " << slot(d.inputs[0].buf) << ", kOut = "
         << slot(d.storeBuf) << ";\n";
    // Elements in 16-byte chunks, one chunk per thread per step.
    gl.grid = GridRule{scaled(d.rows, d.cols), 256 * (16 / dtypeBytes(d.storeDt)), true, false};
    break;
  case LaunchKind::Small:
    header = "fp8c/small.cuh";
    body = "fp8c::smallKernel<Spec>(args);";
    base = "";
    spec << "  __device__ static void run(void *const *buf, long long m) {\n";
    for (const std::string &l : d.smallLines)
      spec << "    " << slot.subst(l) << "\n";
    spec << "  }\n";
    gl.grid = GridRule{AffineM{0, 1}, 1, false, false};
    break;
  case LaunchKind::Inverse:
    header = "fp8c/small.cuh";
    body = "fp8c::inverseKernel<Spec>(args);";
    base = "";
    spec << "  static constexpr fp8c::Extent kRows = " << extentStr(d.rows) << ";\n";
    spec << "  static constexpr long long kGroups = " << d.cols << ";\n";
    spec << "  static constexpr int kIn = " << slot(d.invIn) << ", kOut = " << slot(d.invOutBuf)
         << ";\n";
    spec << "  static constexpr fp8c::InvLayout kLayout = " << layoutName(d.invLayout) << ";\n";
    gl.grid = GridRule{scaled(d.rows, d.cols), 256, true, false};
    break;
  }

  std::ostringstream os;
  wrapComment(os, name + ": " + (d.description.empty() ? "copy" : d.description));
  os << "// buffers:";
  for (size_t i = 0; i < slot.order().size(); ++i) {
    const BufferDesc &b = buffers[static_cast<size_t>(slot.order()[i])];
    os << (i % 3 == 0 ? "\n//  " : ";") << " " << i << " %" << b.name << " " << b.type.str();
    if (b.ld > 0 || b.ldAlignM > 0)
      os << (b.ldAlignM ? " pitch roundup(M, " + std::to_string(b.ldAlignM) + ")"
                        : " pitch " + std::to_string(b.ld));
    os << " (" << bufferRoleName(b.role) << (b.zeroInit ? ", zeroed" : "") << ")";
  }
  os << "\n#include \"" << header << "\"\n\nnamespace {\nstruct Spec" << base << " {\n"
     << spec.str() << "};\n} // namespace\n\n";
  const int n = std::max<int>(1, static_cast<int>(slot.order().size()));
  // A cast-transpose with per-output-row local scales asks for 4 resident blocks: left to its
  // own heuristics, ptxas 13.0 chose 48 registers and spilled 4-8 bytes in some of them.
  // With the input's own row cast as well (kRowCast) and three inputs (the SwiGLU's
  // derivatives), ptxas spilled 28-40 bytes at 64 registers: 3 blocks (80 registers) there.
  // A cooperative (tensorwise) cast-transpose asks for resident blocks as well. Of one input
  // (dY, x, W): 4; left alone, ptxas chose 64 registers and spilled 8 bytes in the Linear's dY
  // launch, and told, it fits 63 (H200, the two kernels timed alternately in one process: 204.1
  // against 208.6 us). Of more (the MLP's gelu_grad of dY and the GELU input): 3; left alone, ptxas
  // took 104-125 registers (2 blocks), and at 64 it spilled 52-60 bytes and ran 27 % longer (353.2
  // against 278.4 us at 79).
  const bool coopTranspose = d.kind == LaunchKind::Transpose && coop;
  // A byte-staged cast-transpose of two inputs (the delayed MLP's gelu_grad: the saved FP8
  // input through the table, the bf16 gradient) asks for 3 resident blocks: left alone, ptxas
  // took 127 registers (one block per SM).
  const char *bounds = outRowScales               ? (d.rowCast && nFull >= 3 ? "256, 3" : "256, 4")
                       : byteStaged && nFull == 2 ? "256, 3"
                       : !coopTranspose           ? "256"
                       : nFull == 1               ? "256, 4"
                                                  : "256, 3";
  // The (cast-)transposes take their Args as a __grid_constant__ parameter. The form of the entry
  // changes ptxas's choices for the same body (H200, the two kernels timed alternately in one
  // process after a GEMM, the delayed MLP at 8192 tokens): the gelu_grad cast-transpose got 76
  // registers instead of 62 and took 192.4 us instead of 242.4 (3 resident blocks instead of 4: the
  // registers buy loads in flight), and W2's 32 instead of 40 (67.7 against 71.3 us); the other
  // launches measured the same. Not the per-output-row ones (rowwise, blockwise): held to 64
  // registers, they spilled 4-32 bytes.
  const bool gridConstant = d.kind == LaunchKind::Transpose && !outRowScales;
  // A one-pass cast-transpose whose tensor scale is known before it can run on a generated
  // GEMM's idle warps (codegen/kernels/gemm_sm90_side.cuh): its Spec, without the entry.
  const bool sideRunnable = d.kind == LaunchKind::Transpose && d.cast &&
                            d.cast->src != CastInfo::Src::Local &&
                            d.cast->gran == Granularity::Tensor && !d.rowCast && d.copyBuf < 0 &&
                            d.storeBuf < 0 && d.numSlots < 16;
  if (sideRunnable)
    gl.sideSpec = os.str();
  os << "extern \"C\" __global__ void __launch_bounds__(" << bounds << ") " << name << "("
     << (gridConstant ? "const __grid_constant__ " : "") << "fp8c::Args<" << n << "> args) {\n  "
     << "fp8c::enterLaunch(); " << body << "\n}\n";
  gl.source = os.str();
  gl.buffers = slot.order();
  gl.blockThreads = 256;
  // The FP8 table: rows.cuh's kTableBytes, 256 codes x 32 copies x 4 bytes.
  constexpr int64_t kFp8TableBytes = 256 * 32 * 4;
  gl.sharedBytes = d.tabIn >= 0 ? kFp8TableBytes : 0;
  return gl;
}

} // namespace fp8c::codegen
