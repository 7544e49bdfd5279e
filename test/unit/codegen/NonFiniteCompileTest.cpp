// The output checks' counting kernels (runtime/ExecutableNonFinite.h, codegen/kernels/
// nonfinite.cuh) compile with NVRTC for sm_90a and sm_89 without a GPU: one entry point per
// counted dtype, no spills, no stack frame.
#include "runtime/ExecutableNonFinite.h"
#include "runtime/jit/Nvrtc.h"

#include <gtest/gtest.h>

#include <set>

namespace fp8c {
namespace {

TEST(NonFiniteCompile, CountingKernelsCompileForHopperAndAda) {
  std::set<std::string> want;
  for (DType dt : {DType::F32, DType::F16, DType::BF16, DType::F8E4M3FN, DType::F8E5M2}) {
    const std::string e = nonFiniteCountEntry(dt);
    ASSERT_FALSE(e.empty()) << dtypeName(dt);
    want.insert(e);
  }
  EXPECT_EQ(nonFiniteCountEntry(DType::I32), "");
  for (const char *arch : {"sm_90a", "sm_89"}) {
    NvrtcRequest req;
    req.kernelName = "fp8c_count_nonfinite";
    req.source = nonFiniteCountSource();
    req.arch = arch;
    Expected<NvrtcResult> r = compileWithNvrtc(req);
    ASSERT_TRUE(r) << arch << ": " << (r ? "" : r.error());
    std::set<std::string> got;
    for (const PtxasEntryInfo &e : r->entries) {
      got.insert(e.entry);
      EXPECT_EQ(e.spillStoreBytes + e.spillLoadBytes, 0) << arch << " " << e.entry;
      EXPECT_EQ(e.stackFrameBytes, 0) << arch << " " << e.entry;
    }
    EXPECT_EQ(got, want) << arch;
  }
}

} // namespace
} // namespace fp8c
