// Descriptors a generated kernel's Spec uses to say what it reads and writes: inputs (with how
// they broadcast over the [rows, cols] iteration space), the stored value, the amax and the FP8
// cast with its scale source. They are literal types, built with constexpr helpers so that a
// generated Spec reads as a sentence:
//
//   static constexpr fp8c::CastDesc kCast =
//       fp8c::CastDesc::to(2, fp8c::Dt::E4M3, 4096, fp8c::Gran::Block1x128, 32)
//           .localScale(fp8c::Dt::E4M3, /*margin*/ 0, /*pow2*/ true).scaleOut(1);
#pragma once

#include "fp8c/common.cuh"

namespace fp8c {

/// Groups an amax or a scale covers (fp8.amax / fp8.cast granularity).
enum class Gran : int { None, Tensor, Row, Col, Block1x128, Block128x128 };

/// How an input is indexed at element (r, c) of the iteration space.
enum class Bcast : int {
  Full,         ///< x[r * ld + c]
  Scalar,       ///< x[0] (rank 0)
  Row,          ///< x[r]
  Col,          ///< x[c]
  Block1x128,   ///< x[r * groups + c / 128]
  Block128x128, ///< x[(r / 128) * groups + c / 128]
};

/// Where cuBLASLt wants a scale tensor's inverse (a [R, G] grid of f32):
///   RowMajor     the scale's own layout, r * G + g (scalars, [M] / [N] outer vectors);
///   KBlockMajor  a GEMM A operand's 1x128 scales (VEC128_32F): (r, kb) at kb * roundup(R, 4) + r;
///   RowMajorPad4 a GEMM B operand's 128x128 scales (BLK128x128_32F): r * roundup(G, 4) + g.
enum class InvLayout : int { RowMajor, KBlockMajor, RowMajorPad4 };

struct InDesc {
  Dt dt;
  int buf;
  i64 ld; ///< row pitch in elements (Full), or column groups (Block*)
  Bcast bc;
  FP8C_HD static constexpr InDesc full(int buf, Dt dt, i64 ld) {
    return {dt, buf, ld, Bcast::Full};
  }
  FP8C_HD static constexpr InDesc bcast(int buf, Dt dt, Bcast bc, i64 groups = 0) {
    return {dt, buf, groups, bc};
  }
};

/// A stored tensor: buffer, dtype, row pitch (elements; the columns beyond the value's width
/// up to the pitch are written with zeros).
struct OutDesc {
  int buf;
  Dt dt;
  i64 ld;
  FP8C_HD static constexpr OutDesc none() { return {-1, Dt::F32, 0}; }
  FP8C_HD static constexpr OutDesc to(int buf, Dt dt, i64 ld) { return {buf, dt, ld}; }
};

/// An amax of the value at one granularity. Tensor and Col amaxes accumulate with atomics into
/// a zero-initialized buffer; Row, Block1x128 and Block128x128 amaxes are stored directly.
struct AmaxDesc {
  int buf;
  Gran gran;
  i64 groups; ///< ceil(cols / 128) for block granularities
  FP8C_HD static constexpr AmaxDesc none() { return {-1, Gran::None, 0}; }
  FP8C_HD static constexpr AmaxDesc to(int buf, Gran g, i64 groups = 0) { return {buf, g, groups}; }
};

/// Delayed scaling's history update done by the launch that reduces the tensor amax (kAmax):
/// its last block pushes the amax into the history [len] in place (rows.cuh); `counter` is a
/// Scratch u32 the last block is found with and leaves at zero; with resetAmax the amax is
/// Scratch too and put back to zero after the push.
struct PushDesc {
  int history;
  int len;
  int counter;
  bool resetAmax;
  FP8C_HD static constexpr PushDesc none() { return {-1, 0, -1, false}; }
  FP8C_HD static constexpr PushDesc to(int history, int len, int counter, bool resetAmax) {
    return {history, len, counter, resetAmax};
  }
};

enum class ScaleSrc : int {
  None,
  Slot,   ///< a tensor scale computed once per block by Spec::scalars (slot index)
  Buffer, ///< per row / column / block scales read from a buffer (or amaxes, see fromAmax)
  Local,  ///< from this kernel's own amax of the value at the cast's granularity
};

/// The FP8 cast of the value: q = sat(rne(v * s)).
struct CastDesc {
  int buf;
  Dt dt;
  i64 ld;
  Gran gran;
  ScaleSrc src;
  int slot;
  int scaleBuf;  ///< Buffer: the scales (or the amaxes when fromAmax)
  bool fromAmax; ///< Buffer holds amaxes: s = scaleFromAmax(roundTo<amaxRound>(a))
  Dt amaxRound;
  Dt scaleDt; ///< the FP8 type whose max the scale formula uses (fromAmax and Local)
  int margin; ///< the scale formula's margin and pow2 (fromAmax and Local)
  bool pow2;
  int scaleOutBuf; ///< where the scales used are written (Buffer+fromAmax, Local), or -1
  int invOutBuf;   ///< where their inverses (1 / s) are written, or -1
  InvLayout invLayout;
  int amaxOutBuf; ///< Local: where the local amax is written, or -1 (Tensor: atomic target)
  i64 groups;     ///< ceil(cols / 128) for block granularities

  FP8C_HD static constexpr CastDesc none() {
    return {-1, Dt::E4M3, 0,  Gran::None, ScaleSrc::None,      0,  -1, false, Dt::F32, Dt::E4M3,
            0,  false,    -1, -1,         InvLayout::RowMajor, -1, 0};
  }
  FP8C_HD static constexpr CastDesc to(int buf, Dt dt, i64 ld, Gran g, i64 groups = 0) {
    CastDesc c = none();
    c.buf = buf;
    c.dt = dt;
    c.ld = ld;
    c.gran = g;
    c.groups = groups;
    return c;
  }
  FP8C_HD constexpr CastDesc slotScale(int s) const {
    CastDesc c = *this;
    c.src = ScaleSrc::Slot;
    c.slot = s;
    return c;
  }
  FP8C_HD constexpr CastDesc bufferScale(int b) const {
    CastDesc c = *this;
    c.src = ScaleSrc::Buffer;
    c.scaleBuf = b;
    return c;
  }
  FP8C_HD constexpr CastDesc amaxScale(int amaxBuf, Dt round, Dt scaleDt, int margin,
                                       bool pow2) const {
    CastDesc c = *this;
    c.src = ScaleSrc::Buffer;
    c.scaleBuf = amaxBuf;
    c.fromAmax = true;
    c.amaxRound = round;
    c.scaleDt = scaleDt;
    c.margin = margin;
    c.pow2 = pow2;
    return c;
  }
  FP8C_HD constexpr CastDesc localScale(Dt scaleDt, int margin, bool pow2) const {
    CastDesc c = *this;
    c.src = ScaleSrc::Local;
    c.scaleDt = scaleDt;
    c.margin = margin;
    c.pow2 = pow2;
    return c;
  }
  FP8C_HD constexpr CastDesc scaleOut(int b) const {
    CastDesc c = *this;
    c.scaleOutBuf = b;
    return c;
  }
  FP8C_HD constexpr CastDesc invOut(int b, InvLayout l = InvLayout::RowMajor) const {
    CastDesc c = *this;
    c.invOutBuf = b;
    c.invLayout = l;
    return c;
  }
  FP8C_HD constexpr CastDesc amaxOut(int b) const {
    CastDesc c = *this;
    c.amaxOutBuf = b;
    return c;
  }
};

/// Index of the inverse scale of group (r, g) in `layout` (rows = the scale's rows).
__device__ __forceinline__ i64 invIndex(InvLayout layout, i64 r, i64 g, i64 groups, i64 rows) {
  if (layout == InvLayout::KBlockMajor)
    return g * ((rows + 3) / 4 * 4) + r;
  if (layout == InvLayout::RowMajorPad4)
    return r * ((groups + 3) / 4 * 4) + g;
  return r * groups + g;
}

/// Defaults of every Spec: no slots, no store, no amax, no cast.
struct SpecDefaults {
  static constexpr int kNumSlots = 0;
  static constexpr OutDesc kStore = OutDesc::none();
  static constexpr AmaxDesc kAmax = AmaxDesc::none();
  /// Rows launches: the history push of kAmax's tensor amax (PushDesc).
  static constexpr PushDesc kPush = PushDesc::none();
  static constexpr CastDesc kCast = CastDesc::none();
  /// A cooperative launch's grid barrier: {arrived, left}, a Scratch pair the launch leaves at
  /// zero (gridBarrier). kResetAmax: the tensor amax it reduces into is Scratch as well (read
  /// only by itself), so its last block also puts that back to zero.
  static constexpr int kBarrierBuf = -1;
  static constexpr bool kResetAmax = false;
  /// Transposes (transpose.cuh): the cast also written untransposed, and column sums.
  static constexpr int kRowCastBuf = -1;
  static constexpr i64 kRowCastLd = 0;
  /// ... or the input cast untransposed with local per-row (1x128-block) scales of its own.
  static constexpr CastDesc kRowCast = CastDesc::none();
  static constexpr OutDesc kColSum = OutDesc::none();
  static constexpr int kColChunks = 1, kPartialBuf = -1, kCounterBuf = -1;
  /// ... and input kIn[kCopyIn] written untransposed, converted to kCopy.dt (no scale).
  static constexpr int kCopyIn = -1;
  static constexpr OutDesc kCopy = OutDesc::none();
  /// Row mapping: a row is kept in registers when each thread holds at most this many of its
  /// values (else it is read twice, the second time mostly from L1).
  static constexpr int kRowRegElems = 32;
  /// A Full FP8 input read through a table (rows::kTableBytes of dynamic shared memory, filled
  /// at launch start by runScalars): x[kTabIn] is tabulate(the input's value) for its code, a
  /// unary function of one FP8 value having only 256 results (the saved GELU input's
  /// derivative, gelu_saved=e4m3). Bit for bit what evaluating tabulate per element gives.
  static constexpr int kTabIn = -1;
  __device__ static float tabulate(float x) { return x; }
  /// 128x128 tiles: read each tile twice (amax, then cast) instead of holding it in registers.
  static constexpr bool kTileTwoPass = true;
  /// Transposes: the staging tile skewed against bank conflicts (transpose.cuh's Tile).
  static constexpr bool kSkewTile = true;
  /// Transposes: the byte-staged one-pass form (transpose_bytes.cuh; codegen sets it).
  static constexpr bool kByteStaged = false;
  /// The byte-staged form: its loops without bounds checks where every tile lies inside
  /// (false: the checked loops for every tile, ElementwiseTuning::insideTiles = 0).
  static constexpr bool kInsideTiles = true;
  __device__ static void scalars(void *const *, i64, float *, bool) {}
};

} // namespace fp8c
