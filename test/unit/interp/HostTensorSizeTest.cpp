// The host tensor size limit (interp/HostTensor.h, hostTensorSizeError) and the places that
// check it before allocating: random inputs and the interpreter's results.
#include "ir/Builder.h"
#include "interp/HostTensor.h"
#include "interp/Interpreter.h"
#include "interp/RandomInputs.h"

#include <gtest/gtest.h>

#include <limits>

namespace fp8c {
namespace {

TEST(HostTensorSize, LimitOverflowAndEmptyShapes) {
  EXPECT_EQ(hostTensorSizeError({}), "");
  EXPECT_EQ(hostTensorSizeError({kMaxHostTensorElements}), "");
  EXPECT_EQ(hostTensorSizeError({1024, 1024, 1024}), "");
  EXPECT_EQ(hostTensorSizeError({kMaxHostTensorElements + 1}),
            "has shape [1073741825] with 1073741825 elements (4 GiB as f32), more than the "
            "1073741824 elements (4 GiB as f32) a host tensor may hold");
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(hostTensorSizeError({big, big, 2}),
            "has shape [9223372036854775807, 9223372036854775807, 2], whose element count "
            "overflows 64 bits: more than the 1073741824 elements (4 GiB as f32) a host tensor "
            "may hold");
  // A zero dim makes the tensor empty, even after dims whose product overflows.
  EXPECT_EQ(hostTensorSizeError({big, big, 0}), "");
  EXPECT_EQ(hostTensorSizeError({kDynamic, 4}), "has the dynamic shape [?, 4]");
}

TEST(HostTensorSize, RandomInputsAreCheckedBeforeAllocating) {
  GraphBuilder b("f");
  Value *x = b.input("x", {{kDynamic, 1 << 20}, DType::BF16});
  b.output(b.relu(x));
  Expected<std::unique_ptr<Graph>> g = b.finish();
  ASSERT_TRUE(g) << g.error();
  EXPECT_TRUE(checkRandomInputs(**g, 1024));
  Status s = checkRandomInputs(**g, 1025);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(": error: random input %x of '@f' has shape [1025, 1048576] with "
                             "1074790400 elements"),
            std::string::npos)
      << s.message();
}

TEST(HostTensorSize, InterpreterResultsAreCheckedBeforeRunning) {
  GraphBuilder b("outer");
  Value *a = b.input("a", {{65536, 1}, DType::BF16});
  Value *c = b.input("c", {{1, 65536}, DType::BF16});
  b.output(b.matmul(a, c));
  Expected<std::unique_ptr<Graph>> g = b.finish();
  ASSERT_TRUE(g) << g.error();
  std::vector<HostTensor> in = {HostTensor::make({65536, 1}, DType::BF16),
                                HostTensor::make({1, 65536}, DType::BF16)};
  Expected<std::vector<HostTensor>> r = interpret(**g, in);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("error: 'fp8.matmul' op "), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("has shape [65536, 65536] with 4294967296 elements (16 GiB as f32), "
                           "more than the 1073741824 elements"),
            std::string::npos)
      << r.error();
}

} // namespace
} // namespace fp8c
