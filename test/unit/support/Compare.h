// Comparison of a computed tensor with its reference, as the correctness tests hold results: the
// relative Frobenius error, the largest element error relative to the reference's largest
// magnitude, and the elements that are NaN or infinite. The Frobenius norm bounds an error spread
// over the whole tensor but dilutes a local one by the square root of the element count (one
// wrong column of a 64 x 14336 output is 1 / sqrt(14336) = 0.8 % of it); the max-element error
// does not. Device outputs are poisoned with NaN before a run, so a NaN is an element never
// written: any non-finite element on either side fails a comparison.
#pragma once

#include "ir/DType.h"
#include "interp/HostTensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace fp8c::testcmp {

/// Bounds of one comparison: relFrobenius on ||got - ref||_F / ||ref||_F, maxElement on
/// max_i |got_i - ref_i| / max_i |ref_i|.
struct Bounds {
  double relFrobenius;
  double maxElement;
};

/// Half the spacing of dt's values next to a normal value x, relative to |x|, at most:
/// 2^-(m + 1) for m explicit mantissa bits (e4m3 2^-4, e5m2 2^-3, bf16 2^-8, f16 2^-11,
/// f32 2^-24). The most one correct rounding to dt moves a value, relative to it.
inline double halfStep(DType dt) { return std::ldexp(1.0, -(dtypeInfo(dt).mantissaBits + 1)); }

/// One spacing of dt's values relative to the value, at most (2 halfStep): how far apart two
/// roundings land when the values they round differ slightly and straddle a rounding boundary.
inline double fullStep(DType dt) { return 2.0 * halfStep(dt); }

// --- Bounds shared by the GPU tests -------------------------------------------------------------
//
// Each max-element bound is in units of the reference's largest magnitude. A correct result's
// elements differ from the reference's by roundings that landed one step apart; each such step
// is relative to the element (at most that of max|ref|), or reaches the output through a product
// with other values, which weighs it down. A wrong or missed column, row or tile, a wrong index
// or a missed scale moves an element by O(max|ref|) (a zeroed column of Gaussian-like values by
// about half of it), far beyond any of these bounds.

/// A bf16 graph without quantization on the GPU against the interpreter. The GPU adds each GEMM's
/// f32 products in another order (a difference of about sqrt(K) * 2^-24 of the sum of
/// magnitudes, under 2^-12 of an element for K < 10^4), so the one bf16 rounding of an output may
/// land one bf16 step away: at most 2^-7 of the element. Bound: two bf16 steps, 2^-6.
inline constexpr Bounds kBf16VsInterpreter = {4e-3, 0x1p-6};

/// An FP8 recipe's graph (tensorwise, delayed, rowwise, blockwise; bf16 outputs) on the GPU
/// against the interpreter, or against another GPU backend on the same inputs. Beyond the bf16
/// output's own step (2^-7, above), a value computed on the device and cast to e4m3 (the MLP's
/// hidden activation) may round one e4m3 step away (at most 2^-3 of itself) where the GEMM
/// before it summed in another order. A flipped element h_k reaches y_j through one product,
/// |dy_j| <= 2^-3 |h_k| |w_jk|, while max|y| grows with sqrt(K) |h| |w| (K >= 200 here): one
/// flip at two of the largest operands is under 2^-5 of max|y|, and flips are rare and of
/// either sign. A per-row or per-block scale taken from a device amax moves every element of its
/// row a little, but the dequantization divides by the same scale, so only flips remain. Bound:
/// half an e4m3 step at the output's full scale, 2^-4.
inline constexpr Bounds kFp8VsInterpreter = {2e-2, 0x1p-4};

/// An error spread over every element of a GEMM (the accumulation's, against an f64 reference)
/// has its largest element at a few times its RMS, as the reference's largest magnitude is a few
/// times the reference's RMS (both thousands of Gaussian-like values): its max-element error is
/// about its relative Frobenius one. Four times a Frobenius bound of the accumulation leaves room
/// for a heavier tail (fast accumulation's error grows with an element's sum of magnitudes).
inline constexpr double kAccumulationTail = 4.0;

/// A GEMM against the f64 product of its dequantized operands, D of dtype `d`, whose
/// accumulation is held to `accumulation` relative Frobenius error: D's own rounding (half a step
/// of d, relative to the element) plus kAccumulationTail times the accumulation's bound.
/// `relFrobenius` is the comparison's Frobenius bound (rounding included).
inline Bounds gemmVsExact(DType d, double relFrobenius, double accumulation) {
  return {relFrobenius, halfStep(d) + kAccumulationTail * accumulation};
}

// --- The comparison ---------------------------------------------------------------------------

/// "[i, j]" of flat index `flat` in a row-major tensor of `shape` (just "[flat]" when the shape
/// does not hold it).
inline std::string indexString(int64_t flat, std::span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  if (shape.empty() || flat < 0 || flat >= n)
    return "[" + std::to_string(flat) + "]";
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d)
    s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

/// The errors of `got` against `ref` (both row-major of `shape`), in double.
class Comparison {
public:
  template <typename G, typename R>
  Comparison(std::span<const G> got, std::span<const R> ref, std::vector<int64_t> shape)
      : shape_(std::move(shape)) {
    count_ = static_cast<int64_t>(got.size());
    if (got.size() != ref.size()) {
      sizeMismatch_ = true;
      refCount_ = static_cast<int64_t>(ref.size());
      return;
    }
    double diff2 = 0, ref2 = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const double g = static_cast<double>(got[i]), r = static_cast<double>(ref[i]);
      if (!std::isfinite(g) || !std::isfinite(r)) {
        if (nonFinite_++ == 0) {
          firstNonFinite_ = static_cast<int64_t>(i);
          nonFiniteGot_ = g;
          nonFiniteRef_ = r;
        }
        continue;
      }
      const double d = std::fabs(g - r);
      diff2 += d * d;
      ref2 += r * r;
      refMax_ = std::max(refMax_, std::fabs(r));
      if (worst_ < 0 || d > worstDiff_) {
        worst_ = static_cast<int64_t>(i);
        worstDiff_ = d;
        worstGot_ = g;
        worstRef_ = r;
      }
    }
    relFrobenius_ = ratio(std::sqrt(diff2), std::sqrt(ref2));
    maxElement_ = ratio(worstDiff_, refMax_);
  }

  /// `got` against `ref` (shapes must agree).
  Comparison(const HostTensor &got, const HostTensor &ref)
      : Comparison(std::span<const float>(got.data), std::span<const float>(ref.data), ref.shape) {
    if (got.shape != ref.shape) {
      sizeMismatch_ = true;
      refCount_ = static_cast<int64_t>(ref.data.size());
    }
  }

  /// ||got - ref||_F / ||ref||_F over the finite pairs; NaN when any element is not finite or
  /// the sizes differ (0 when both are all zero, inf when only ref is).
  double relFrobenius() const { return ok() ? relFrobenius_ : kNaN; }
  /// max |got - ref| / max |ref| over the finite pairs; NaN as relFrobenius.
  double maxElement() const { return ok() ? maxElement_ : kNaN; }
  /// Elements where got or ref is NaN or infinite.
  int64_t nonFinite() const { return nonFinite_; }
  /// Flat index of the largest |got - ref| (-1 when there is no finite pair).
  int64_t worstIndex() const { return worst_; }

  /// Success when every element on both sides is finite, the sizes agree and both errors are
  /// within `b`; otherwise a message with both errors, the worst element (index, got, want) and
  /// the first non-finite one.
  ::testing::AssertionResult within(Bounds b) const {
    const bool pass = ok() && relFrobenius_ <= b.relFrobenius && maxElement_ <= b.maxElement;
    ::testing::AssertionResult r =
        pass ? ::testing::AssertionSuccess() : ::testing::AssertionFailure();
    return r << describe(&b);
  }

  /// Both errors, the worst element and any non-finite one, in one line.
  std::string describe(const Bounds *b = nullptr) const {
    std::ostringstream os;
    os.precision(3);
    if (sizeMismatch_) {
      os << "shapes differ: " << count_ << " computed elements against " << refCount_
         << " reference elements";
      return os.str();
    }
    os << "relative Frobenius error " << relFrobenius_;
    if (b)
      os << " (bound " << b->relFrobenius << (relFrobenius_ <= b->relFrobenius ? "" : ", FAILS")
         << ")";
    os << "; max-element error " << maxElement_ << " of max|ref| " << refMax_;
    if (b)
      os << " (bound " << b->maxElement << (maxElement_ <= b->maxElement ? "" : ", FAILS") << ")";
    if (worst_ >= 0)
      os << ", worst at " << indexString(worst_, shape_) << ": got " << worstGot_ << ", want "
         << worstRef_;
    os << "; " << nonFinite_ << " of " << count_ << " elements NaN or infinite";
    if (nonFinite_ > 0)
      os << " (FAILS; first at " << indexString(firstNonFinite_, shape_) << ": got "
         << nonFiniteGot_ << ", want " << nonFiniteRef_
         << "; a NaN in a poisoned output is an element never written)";
    return os.str();
  }

private:
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  static double ratio(double num, double den) {
    if (den == 0)
      return num == 0 ? 0.0 : std::numeric_limits<double>::infinity();
    return num / den;
  }
  bool ok() const { return !sizeMismatch_ && nonFinite_ == 0; }

  std::vector<int64_t> shape_;
  int64_t count_ = 0, refCount_ = 0;
  bool sizeMismatch_ = false;
  double relFrobenius_ = 0, maxElement_ = 0, refMax_ = 0;
  int64_t worst_ = -1;
  double worstDiff_ = 0, worstGot_ = 0, worstRef_ = 0;
  int64_t nonFinite_ = 0, firstNonFinite_ = -1;
  double nonFiniteGot_ = 0, nonFiniteRef_ = 0;
};

/// Comparison of two vectors of doubles holding row-major tensors of `shape`.
inline Comparison compare(const std::vector<double> &got, const std::vector<double> &ref,
                          std::vector<int64_t> shape) {
  return Comparison(std::span<const double>(got), std::span<const double>(ref), std::move(shape));
}
inline Comparison compare(const HostTensor &got, const HostTensor &ref) {
  return Comparison(got, ref);
}

/// Success when every element of `t` is finite. For run-against-run checks of outputs poisoned
/// with NaN before each run: bit-for-bit comparisons take NaN as equal to NaN, so an element
/// neither run wrote would pass them.
inline ::testing::AssertionResult allFinite(const HostTensor &t) {
  int64_t bad = 0, first = -1;
  for (size_t i = 0; i < t.data.size(); ++i)
    if (!std::isfinite(t.data[i]) && bad++ == 0)
      first = static_cast<int64_t>(i);
  if (bad == 0)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << t.data.size() << " elements NaN or infinite, first at "
         << indexString(first, t.shape) << " (" << t.data[size_t(first)]
         << "): a NaN in a poisoned output is an element never written";
}

} // namespace fp8c::testcmp
