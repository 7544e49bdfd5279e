// Helpers shared by the interpreter's unit tests: finishing a captured graph (verified) and
// building a tensor from literal values that must be exact in its dtype.
#pragma once

#include "ir/Builder.h"
#include "ir/Verifier.h"
#include "interp/HostTensor.h"

#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <vector>

namespace fp8c::interptest {

inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
inline constexpr float kInf = std::numeric_limits<float>::infinity();

/// The builder's graph, verified; null (with a test failure) when either step fails.
inline std::unique_ptr<Graph> finish(GraphBuilder &b) {
  Expected<std::unique_ptr<Graph>> g = b.finish();
  EXPECT_TRUE(g) << g.error();
  if (!g)
    return nullptr;
  DiagnosticEngine diag;
  EXPECT_TRUE(verifyGraph(**g, diag)) << diag.str();
  return g.take();
}

/// A tensor of exactly these values (each must be representable in dt).
inline HostTensor tensor(std::vector<int64_t> shape, DType dt, std::vector<float> values) {
  for (float v : values)
    EXPECT_TRUE(isRepresentable(v, dt)) << v << " is not a " << dtypeName(dt) << " value";
  HostTensor t = HostTensor::make(std::move(shape), dt);
  t.data = std::move(values);
  return t;
}

} // namespace fp8c::interptest
