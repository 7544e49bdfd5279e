// The data of the MLP regression (TrainMlp.h): a fixed random teacher MLP, the student's initial
// f32 weights and a pool of batches (inputs and the teacher's targets), generated once, in
// parallel and deterministically from the seed (the values do not depend on the number of
// threads), so that every recipe and every step backend (MlpStepBackend.h) sees the same data.
//
//   teacher: t = gelu_tanh(x A^T) B^T, A [32, in] ~ N(0, 1/in), B [out, 32] ~ N(0, 1/32), in f32
//   student: w1 [hidden, in] ~ N(0, 1/in), w2 [out, hidden] ~ N(0, 1/hidden), b1 = b2 = 0
//   inputs:  x [batch, in] ~ N(0, 1), one per pool entry
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace fp8c::example {

/// The teacher's hidden width.
inline constexpr int64_t kTeacherHidden = 32;

struct MlpSizes {
  int64_t batch = 64, in = 64, hidden = 128, out = 32;
};

/// One pool entry: x [batch, in] and the teacher's t [batch, out], row-major f32.
struct MlpBatch {
  std::vector<float> x, t;
};

struct MlpProblem {
  MlpSizes sizes;
  /// The student's initial weights (f32 master copies), row-major: w1 [hidden, in], b1
  /// [hidden], w2 [out, hidden], b2 [out].
  std::vector<float> w1, b1, w2, b2;
  /// The teacher: A [32, in], B [out, 32].
  std::vector<float> teacherA, teacherB;
  std::vector<MlpBatch> pool;
};

/// Generates the problem: `poolSize` batches (>= 1), from `seed`.
MlpProblem makeMlpProblem(const MlpSizes &sizes, int poolSize, uint64_t seed);

/// The teacher's targets for x [rows, in] (threaded over rows).
std::vector<float> teacherTargets(const std::vector<float> &x, const std::vector<float> &a,
                                  const std::vector<float> &b, const MlpSizes &s);

/// Calls body(begin, end) over [0, n) split into contiguous pieces on up to 16 threads (the
/// host's cores); inline when n is small.
void parallelFor(int64_t n, const std::function<void(int64_t, int64_t)> &body);

} // namespace fp8c::example
