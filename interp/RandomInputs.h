// Seeded random inputs for running a graph without data files (`fp8c --run=cpu
// --random-inputs=SEED`, the differential tests). Deterministic: values come from
// std::mt19937_64 (whose output the standard fixes) through a hand-written Box-Muller
// transform, never from std::*_distribution (whose algorithms differ between standard
// libraries). Only libm's last-bit rounding of logf / sinf / cosf could differ between
// platforms, and the rounding to the input's dtype hides that almost always.
#pragma once

#include "ir/IR.h"
#include "ir/Status.h"
#include "interp/HostTensor.h"

#include <cstdint>
#include <vector>

namespace fp8c {

/// One tensor per input of `g`, in order. Input i's values come from generators seeded from
/// (seed, i) and the index of each 65536-element chunk (so large inputs fill in parallel; the
/// values do not depend on the thread count).
///  - inputs with an `fp8.state` attribute (amax histories) are zeros: a fresh history;
///  - rank-2 inputs with static dims (weights [N, K]) ~ N(0, 1/K);
///  - rank-1 inputs (biases) ~ 0.1 * N(0, 1);
///  - everything else ~ N(0, 1);
/// then rounded to the input's dtype. Dynamic (`?`) dims take `dynamicDim`.
/// Every input's shape must be within kMaxHostTensorElements (checkRandomInputs).
std::vector<HostTensor> randomInputs(const Graph &g, uint64_t seed, int64_t dynamicDim);

/// The shapes randomInputs would allocate for `g`, checked with hostTensorSizeError: an Error
/// located at the function, naming the first input too large to hold and its size.
Status checkRandomInputs(const Graph &g, int64_t dynamicDim);

/// A tensor of static `shape` with values ~ N(0, stddev^2) rounded to `dtype`. With
/// `heavyTailed`, values are stddev * t / sqrt(3) with t Student-t distributed with 3 degrees of
/// freedom (variance stddev^2, but with rare values many sigmas out, as real activations have).
HostTensor randomTensor(const std::vector<int64_t> &shape, DType dtype, uint64_t seed,
                        double stddev, bool heavyTailed = false);

} // namespace fp8c
