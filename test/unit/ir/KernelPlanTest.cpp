// The fusion plan's vocabulary (ir/KernelPlan.h): each enum's names round-trip through its name
// and parse functions, unknown names are refused, and the readers of a kernel give the plan
// `fuse` wrote (or what an absent attribute means).
#include "ir/KernelPlan.h"

#include "ir/Parser.h"
#include "ir/Verifier.h"

#include <gtest/gtest.h>

namespace fp8c {
namespace {

TEST(KernelPlan, NamesRoundTripAndUnknownNamesAreRefused) {
  for (KernelKind k : {KernelKind::Gemm, KernelKind::Pointwise, KernelKind::Reduce})
    EXPECT_EQ(parseKernelKind(kernelKindName(k)), k);
  for (OpRole r : {OpRole::Prologue, OpRole::Main, OpRole::Epilogue, OpRole::Body})
    EXPECT_EQ(parseOpRole(opRoleName(r)), r);
  for (KernelBackend b : {KernelBackend::Generated, KernelBackend::CublasLt})
    EXPECT_EQ(parseKernelBackend(kernelBackendName(b)), b);
  EXPECT_FALSE(parseKernelKind("fused").has_value());
  EXPECT_FALSE(parseOpRole("middle").has_value());
  EXPECT_FALSE(parseKernelBackend("auto").has_value());
  EXPECT_FALSE(parseOpRole("").has_value());
}

TEST(KernelPlan, ReadersGiveTheKernelsPlan) {
  const char *text = R"(func.func @f(%a: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> (tensor<4x16xf32>, tensor<4x8xf32>) {
  %y = fp8.kernel "gemm" (%a, %w) {backend = "generated", gemm_backend = "cublaslt"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32> {
  ^bb0(%x: tensor<4x8xf32>, %b: tensor<16x8xf32>):
    %r = fp8.relu %x {fp8.role = "prologue"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %h = fp8.linear %r, %b {fp8.role = "main"} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    %g = fp8.relu %h {fp8.role = "epilogue"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    fp8.yield %g : tensor<4x16xf32>
  }
  %p = fp8.kernel "pointwise" (%a) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%z: tensor<4x8xf32>):
    %s = fp8.relu %z : (tensor<4x8xf32>) -> tensor<4x8xf32>
    fp8.yield %s : tensor<4x8xf32>
  }
  return %y, %p : tensor<4x16xf32>, tensor<4x8xf32>
}
)";
  DiagnosticEngine diag;
  std::unique_ptr<Module> m = parseModule(text, "t.mlir", diag);
  ASSERT_TRUE(m && verifyModule(*m, diag)) << diag.str();
  const Block &body = m->graphs()[0]->body();
  const Op &gemm = *body.ops()[0], &pointwise = *body.ops()[1];
  EXPECT_EQ(kernelKindOf(gemm), KernelKind::Gemm);
  EXPECT_EQ(kernelBackendOf(gemm), KernelBackend::Generated);
  EXPECT_EQ(kernelGemmBackendOf(gemm), GemmBackend::CublasLt);
  std::vector<OpRole> roles;
  for (const auto &op : gemm.body()->ops())
    if (op->kind() != OpKind::Yield)
      roles.push_back(opRoleOf(*op));
  EXPECT_EQ(roles, (std::vector<OpRole>{OpRole::Prologue, OpRole::Main, OpRole::Epilogue}));
  // A pointwise kernel written without the attributes: generated, auto, its ops the body.
  EXPECT_EQ(kernelKindOf(pointwise), KernelKind::Pointwise);
  EXPECT_EQ(kernelBackendOf(pointwise), KernelBackend::Generated);
  EXPECT_EQ(kernelGemmBackendOf(pointwise), GemmBackend::Auto);
  EXPECT_EQ(opRoleOf(*pointwise.body()->ops()[0]), OpRole::Body);
}

} // namespace
} // namespace fp8c
