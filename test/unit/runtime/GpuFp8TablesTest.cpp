// On a GPU: a row launch (rows.cuh) whose gelu_grad reads the derivative of an e4m3 input from
// the FP8 table, beside a plain read of the same e4m3 values, at column counts with and without a
// tail (the table's vector and per-element lookups). Bit for bit the same launch with the tables
// off, and within one bf16 step of the interpreter (the tanh GELU's derivative may differ in its
// last f32 bit, ops.cuh). The transposes' tables: GpuCastTransposeTest's gelu_grad_e4m3 cases.
#include "unit/runtime/GpuTestSupport.h"

#include <fmt/format.h>

#include <cmath>

namespace fp8c {
namespace {

using namespace gputest;

struct TableCase {
  int64_t m, n;
};

std::string graphText(const TableCase &c) {
  return fmt::format(R"(
func.func @t(%dy: {x}, %h8: {x8}) -> {x} {{
  %h = fp8.convert %h8 : ({x8}) -> {x}
  %g = fp8.gelu_grad %dy, %h {{approximate = "tanh"}} : ({x}, {x}) -> {x}
  %h2 = fp8.convert %h8 : ({x8}) -> {x}
  %r = fp8.add %g, %h2 : ({x}, {x}) -> {x}
  return %r : {x}
}}
)",
                     fmt::arg("x", fmt::format("tensor<{}x{}xbf16>", c.m, c.n)),
                     fmt::arg("x8", fmt::format("tensor<{}x{}xf8E4M3FN>", c.m, c.n)));
}

class GpuFp8TablesTest : public ::testing::TestWithParam<TableCase> {};

TEST_P(GpuFp8TablesTest, RowLaunchMatchesTheTablesOffBitForBit) {
  FP8C_REQUIRE_GPU();
  const TableCase c = GetParam();
  FusedGraph tabled;
  ASSERT_TRUE(compileFused(graphText(c), tabled));
  EXPECT_EQ(launchesWith(*tabled.exe, {"fp8c::rowsKernel<", "kTabIn"}), 1)
      << "the gelu_grad row launch reads %h8 through a table";
  std::map<std::string, HostTensor> in = inputsFor(*tabled.exe, 29, c.m);
  std::map<std::string, HostTensor> gpu = runOnDevice(*tabled.exe, in, nullptr);
  std::map<std::string, HostTensor> cpu = runOnCpu(tabled.exe->graph(), in);
  ASSERT_TRUE(gpu.count("r") && cpu.count("r"));
  expectTablesOffBitForBit(tabled.graph(), tabled.options, in, gpu);
  int64_t beyond = 0;
  for (size_t i = 0; i < cpu["r"].data.size(); ++i) {
    const double want = cpu["r"].data[i], got = gpu["r"].data[i];
    beyond += !(std::fabs(got - want) <= std::ldexp(std::fabs(want), -8)); // NaN fails
  }
  EXPECT_EQ(beyond, 0) << "elements more than one bf16 step from the interpreter";
}

INSTANTIATE_TEST_SUITE_P(Shapes, GpuFp8TablesTest,
                         ::testing::Values(TableCase{1, 4}, TableCase{37, 100},
                                           TableCase{1000, 1000}, TableCase{4099, 256}),
                         [](const ::testing::TestParamInfo<TableCase> &info) {
                           return fmt::format("{}x{}", info.param.m, info.param.n);
                         });

} // namespace
} // namespace fp8c
