// On a GPU: the fused cast-transpose launch (transpose.cuh) against the interpreter, bit for
// bit, at row and column counts around its 64 x 64 tiles and 16-element chunks (1, 7, 17, 200,
// 255, 257, 1000, 4099 rows; 4, 6, 63, 64, 96, 100, 130, 200, 300, 1000 columns). Five forms:
// the backward's gelu_grad with a current tensor scale (cooperative), its FP8 copy, the
// transpose and the bias gradient's column sums; a cast with a scale from a given amax (a
// slot, as delayed scaling's history gives it), both copies (kRowCastBuf); the transposed copy
// alone (the cast inlined into a plain transpose); and (rowwise and blockwise training) a
// derivative-like product cast with scales per row or 1x128 block of its own beside the
// transposed copy's, with the column sums: one cooperative launch for both copies (kRowCast),
// also with M a dynamic dim; and delayed's gelu_grad of a saved e4m3 input, whose derivative
// the launch reads from a 256-entry table (rows.cuh), also against the same launch with the
// tables off, bit for bit. The given-scale forms with whole 8-column chunks run the
// byte-staged form (transpose_bytes.cuh): checked against the interpreter and, bit for bit,
// against the general form (also with M dynamic, both FP8 types and the column sums). FP8 outputs,
// amax and scale must match exactly; column sums (f32 in another order, then bf16) within a bound
// stated below. Outputs are poisoned, so an unwritten element fails; a mismatch names its first
// elements and their inputs.
#include "unit/runtime/GpuTestSupport.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <iostream>

namespace fp8c {
namespace {

using namespace gputest;

enum class Form {
  GeluGradColSum,
  GivenScaleBothCopies,
  GivenScaleColSum, ///< both copies and the column sums (delayed's dY with the bias gradient)
  TransposeOnly,
  RowPair,
  BlockPair,
  GeluGradE4m3 ///< delayed's MLP backward: gelu_grad of a saved e4m3 input (the FP8 table)
};

struct CtCase {
  Form form;
  int64_t m, n;
  bool dynamicM =
      false; ///< M a dynamic dim ('?'), m given at run time (pair and given-scale forms)
  const char *fp8 = "f8E5M2"; ///< the given-scale forms' FP8 type
};

/// The given-scale forms with whole 8-column chunks run the byte-staged cast-transpose
/// (transpose_bytes.cuh); the others the general form (TransposeOnly inlines the cast into a
/// plain transpose's stored value; the current-scale forms are cooperative).
bool byteStaged(const CtCase &c) {
  return (c.form == Form::GivenScaleBothCopies || c.form == Form::GivenScaleColSum ||
          c.form == Form::GeluGradE4m3) &&
         c.n % 8 == 0;
}

std::string graphText(const CtCase &c) {
  const std::string x = fmt::format("tensor<{}x{}xbf16>", c.m, c.n);
  const std::string q = fmt::format("tensor<{}x{}xf8E5M2>", c.m, c.n);
  const std::string t = fmt::format("tensor<{}x{}xf8E5M2>", c.n, c.m);
  if (c.form == Form::GeluGradColSum)
    return fmt::format(R"(
func.func @ct(%dy: {x}, %h: {x}) -> (tensor<f32>, tensor<f32>, {q}, {t}, tensor<{n}xbf16>) {{
  %g = fp8.gelu_grad %dy, %h {{approximate = "tanh"}} : ({x}, {x}) -> {x}
  %a = fp8.amax %g {{granularity = "tensor"}} : ({x}) -> tensor<f32>
  %s = fp8.scale %a {{dtype = f8E5M2}} : (tensor<f32>) -> tensor<f32>
  %q = fp8.cast %g, %s {{granularity = "tensor"}} : ({x}, tensor<f32>) -> {q}
  %t = fp8.transpose %q : ({q}) -> {t}
  %b = fp8.col_sum %g : ({x}) -> tensor<{n}xbf16>
  return %a, %s, %q, %t, %b : tensor<f32>, tensor<f32>, {q}, {t}, tensor<{n}xbf16>
}}
)",
                       fmt::arg("x", x), fmt::arg("q", q), fmt::arg("t", t), fmt::arg("n", c.n));
  if (c.form == Form::GeluGradE4m3)
    return fmt::format(R"(
func.func @ct(%dy: {x}, %h8: {h8}, %am: tensor<f32>) -> (tensor<f32>, {q}, {t}, tensor<{n}xbf16>) {{
  %h = fp8.convert %h8 : ({h8}) -> {x}
  %g = fp8.gelu_grad %dy, %h {{approximate = "tanh"}} : ({x}, {x}) -> {x}
  %a = fp8.amax %g {{granularity = "tensor"}} : ({x}) -> tensor<f32>
  %s = fp8.scale %am {{dtype = f8E5M2}} : (tensor<f32>) -> tensor<f32>
  %q = fp8.cast %g, %s {{granularity = "tensor"}} : ({x}, tensor<f32>) -> {q}
  %t = fp8.transpose %q : ({q}) -> {t}
  %b = fp8.col_sum %g : ({x}) -> tensor<{n}xbf16>
  return %a, %q, %t, %b : tensor<f32>, {q}, {t}, tensor<{n}xbf16>
}}
)",
                       fmt::arg("x", x), fmt::arg("q", q), fmt::arg("t", t), fmt::arg("n", c.n),
                       fmt::arg("h8", fmt::format("tensor<{}x{}xf8E4M3FN>", c.m, c.n)));
  if (c.form == Form::RowPair || c.form == Form::BlockPair) {
    // Each copy with local scales of its own: per row (block) of g, per row (block) of g^T.
    // g = dy * h, computed inline like an activation's derivative, and exactly rounded on both
    // sides (the tanh GELU's derivative may differ from the interpreter's in its last bit,
    // ops.cuh, which moves an FP8 value across a rounding boundary now and then: seen at
    // 4099 x 200 with row scales).
    const bool blocks = c.form == Form::BlockPair;
    const std::string gran = blocks ? "block_1x128" : "row";
    const std::string m = c.dynamicM ? "?" : std::to_string(c.m);
    const std::string x = fmt::format("tensor<{}x{}xbf16>", m, c.n);
    const std::string q = fmt::format("tensor<{}x{}xf8E5M2>", m, c.n);
    const std::string t = fmt::format("tensor<{}x{}xf8E5M2>", c.n, m);
    const std::string sq = blocks ? fmt::format("tensor<{}x{}xf32>", m, (c.n + 127) / 128)
                                  : fmt::format("tensor<{}xf32>", m);
    const std::string st = blocks ? fmt::format("tensor<{}x{}xf32>", c.n, (c.m + 127) / 128)
                                  : fmt::format("tensor<{}xf32>", c.n);
    const std::string xt = fmt::format("tensor<{}x{}xbf16>", c.n, m);
    return fmt::format(R"(
func.func @ct(%dy: {x}, %h: {x}) -> ({sq}, {q}, {st}, {t}, tensor<{n}xbf16>) {{
  %g = fp8.mul %dy, %h : ({x}, {x}) -> {x}
  %a = fp8.amax %g {{granularity = "{gran}"}} : ({x}) -> {sq}
  %s = fp8.scale %a {{dtype = f8E5M2}} : ({sq}) -> {sq}
  %q = fp8.cast %g, %s {{granularity = "{gran}"}} : ({x}, {sq}) -> {q}
  %gt = fp8.transpose %g : ({x}) -> {xt}
  %at = fp8.amax %gt {{granularity = "{gran}"}} : ({xt}) -> {st}
  %st = fp8.scale %at {{dtype = f8E5M2}} : ({st}) -> {st}
  %t = fp8.cast %gt, %st {{granularity = "{gran}"}} : ({xt}, {st}) -> {t}
  %b = fp8.col_sum %g : ({x}) -> tensor<{n}xbf16>
  return %s, %q, %st, %t, %b : {sq}, {q}, {st}, {t}, tensor<{n}xbf16>
}}
)",
                       fmt::arg("x", x), fmt::arg("q", q), fmt::arg("t", t), fmt::arg("n", c.n),
                       fmt::arg("gran", gran), fmt::arg("sq", sq), fmt::arg("st", st),
                       fmt::arg("xt", xt));
  }
  // A scale from a given amax (as delayed scaling's history gives it): a slot of the launch.
  // With only the transposed copy used, the cast is inlined into a plain transpose.
  const std::string m = c.dynamicM ? "?" : std::to_string(c.m);
  const std::string xg = fmt::format("tensor<{}x{}xbf16>", m, c.n);
  const std::string qg = fmt::format("tensor<{}x{}x{}>", m, c.n, c.fp8);
  const std::string tg = fmt::format("tensor<{}x{}x{}>", c.n, m, c.fp8);
  const bool sums = c.form == Form::GivenScaleColSum;
  const std::string bg = fmt::format("tensor<{}xbf16>", c.n);
  const std::string outs = c.form == Form::TransposeOnly ? tg
                           : sums                        ? qg + ", " + tg + ", " + bg
                                                         : qg + ", " + tg;
  const std::string rets = c.form == Form::TransposeOnly ? "%t" : sums ? "%q, %t, %b" : "%q, %t";
  const std::string colSum =
      sums ? fmt::format("  %b = fp8.col_sum %x : ({}) -> {}\n", xg, bg) : std::string();
  return fmt::format(R"(
func.func @ct(%x: {x}, %am: tensor<f32>) -> (tensor<f32>, {outs}) {{
  %a = fp8.amax %x {{granularity = "tensor"}} : ({x}) -> tensor<f32>
  %s = fp8.scale %am {{dtype = {fp8}}} : (tensor<f32>) -> tensor<f32>
  %q = fp8.cast %x, %s {{granularity = "tensor"}} : ({x}, tensor<f32>) -> {q}
  %t = fp8.transpose %q : ({q}) -> {t}
{colsum}  return %a, {rets} : tensor<f32>, {outs}
}}
)",
                     fmt::arg("x", xg), fmt::arg("q", qg), fmt::arg("t", tg),
                     fmt::arg("outs", outs), fmt::arg("rets", rets), fmt::arg("fp8", c.fp8),
                     fmt::arg("colsum", colSum));
}

class GpuCastTransposeTest : public ::testing::TestWithParam<CtCase> {};

TEST_P(GpuCastTransposeTest, MatchesInterpreterBitForBit) {
  FP8C_REQUIRE_GPU();
  const CtCase c = GetParam();
  FusedGraph fused;
  ASSERT_TRUE(compileFused(graphText(c), fused));
  Executable *exe = fused.exe.get();
  // One launch does it all: the cast-transpose, not a cast followed by a transpose.
  EXPECT_EQ(launchesWith(*exe, {"fp8c::transposeKernel<"}), 1)
      << "the plan should fuse the cast into the transpose";
  if (c.form != Form::TransposeOnly) // (there the amax is a launch of its own)
    EXPECT_EQ(launchesWith(*exe, {"fp8c::rowsKernel<"}), 0) << "no separate cast launch";
  std::map<std::string, HostTensor> in = inputsFor(*exe, 17, c.m);
  if (in.count("am")) // s = fmax / 2: values beyond 2 in magnitude saturate
    in["am"] = HostTensor::fromValues({}, DType::F32, {2.0f});
  std::map<std::string, HostTensor> gpu = runOnDevice(*exe, in, nullptr);
  std::map<std::string, HostTensor> cpu = runOnCpu(exe->graph(), in);
  // The byte-staged form where it applies, and bit for bit the general form's outputs.
  EXPECT_EQ(launchesWith(*exe, {"kByteStaged = true"}), byteStaged(c) ? 1 : 0);
  if (byteStaged(c)) { // (the column sums, added in another order, are bounded below)
    expectSameWithTuning(
        fused.graph(), fused.options, [](ElementwiseTuning &t) { t.byteStagedTranspose = 0; },
        "kByteStaged = true", "the byte-staged cast-transpose", in, gpu, "b");
    // Its loops with the bounds checks on every tile (ElementwiseTuning::insideTiles = 0): every
    // output bit for bit, the column sums too (the same tiles and units, in the same order).
    CompileOptions checked = fused.options;
    checked.tuning.insideTiles = 0;
    Expected<std::unique_ptr<Executable>> other = compile(fused.graph(), checked);
    ASSERT_TRUE(other.hasValue()) << other.error();
    EXPECT_EQ(launchesWith(**other, {"kInsideTiles = false"}), 1);
    std::map<std::string, HostTensor> out = runOnDevice(**other, in, nullptr);
    for (const std::string &name : (*other)->outputNames()) {
      EXPECT_EQ(countBitMismatches(gpu.at(name), out.at(name)), 0)
          << name << ": the checked loops' result differs (" << c.m << " x " << c.n << ")";
      // Bit for bit takes NaN as equal to NaN: the checked run must write every element too.
      EXPECT_TRUE(testcmp::allFinite(out.at(name))) << name << ": the checked loops' result";
    }
  }
  if (c.form == Form::GeluGradE4m3) {
    // The derivative of the e4m3 input comes from the FP8 table; with the tables off, from
    // its per-element evaluation: the two launches must agree on every bit of every output.
    int tables = 0;
    for (const Step &st : exe->plan().steps)
      if (const auto *l = std::get_if<GeneratedLaunch>(&st))
        tables += l->source.find("kTabIn") != std::string::npos && l->sharedBytes == 32768;
    EXPECT_EQ(tables, 1) << "the gelu_grad launch reads its e4m3 input through a table";
    // (Without the table the launch takes the general form, whose column sums add in another
    // order than the byte-staged one's.)
    expectTablesOffBitForBit(fused.graph(), fused.options, in, gpu, byteStaged(c) ? "b" : "");
  }
  for (const std::string &name : exe->outputNames()) {
    ASSERT_TRUE(gpu.count(name) && cpu.count(name)) << name;
    if (name != "b") {
      const int64_t bad = countBitMismatches(gpu[name], cpu[name]);
      EXPECT_EQ(bad, 0) << name << " differs from the interpreter (" << c.m << " x " << c.n << ")";
      // Name the first elements that differ, with the inputs of g there (q: [m, n] as the
      // inputs; t: transposed).
      for (size_t i = 0, shown = 0; bad > 0 && i < cpu[name].data.size() && shown < 3; ++i) {
        const float want = cpu[name].data[i], got = gpu[name].data[i];
        if (std::memcmp(&want, &got, sizeof want) == 0)
          continue;
        ++shown;
        const size_t cols = size_t(cpu[name].shape.back());
        const size_t at = name == "t" ? (i % cols) * size_t(c.n) + i / cols : i;
        std::cout << "  " << name << "[" << i / cols << ", " << i % cols << "]: gpu " << got
                  << ", interpreter " << want;
        for (const char *input : {"dy", "h", "h8", "x"})
          if (in.count(input) && at < in.at(input).data.size())
            std::cout << ", " << input << " " << in.at(input).data[at];
        std::cout << "\n";
      }
      continue;
    }
    // Column sums: the launch adds each column's m values in f32 in another order than the
    // interpreter; two orders differ by at most m * 2^-24 * sum |g| <= m^2 * 2^-24 * amax
    // before the one rounding to bf16, which may then land one bf16 step (2^-8 relative)
    // apart. (The pair forms return no amax: the largest magnitude of g's FP8 copy, scaled
    // back, bounds it within e5m2's rounding, 2^-3.)
    float amax = 0.0f;
    if (cpu.count("a")) {
      amax = cpu.at("a").data[0];
    } else {
      const HostTensor &qv = cpu.at("q"), &sv = cpu.at("s");
      const size_t perRow = sv.data.size() / size_t(c.m),
                   groupCols = c.form == Form::BlockPair ? 128 : size_t(c.n);
      for (size_t i = 0; i < qv.data.size(); ++i) {
        const size_t r = i / size_t(c.n), col = i % size_t(c.n);
        amax =
            std::max(amax, std::fabs(qv.data[i] / sv.data[r * perRow + col / groupCols]) * 1.25f);
      }
    }
    const double f32Bound = double(c.m) * double(c.m) * std::ldexp(1.0, -24) * amax;
    int64_t bad = 0;
    double worst = 0.0;
    for (size_t i = 0; i < cpu[name].data.size(); ++i) {
      const double want = cpu[name].data[i], got = gpu[name].data[i];
      const double err = std::fabs(got - want);
      const double bound = std::ldexp(std::fabs(want), -8) + f32Bound;
      worst = std::max(worst, err / bound);
      bad += !(err <= bound); // NaN (unwritten) fails
    }
    EXPECT_EQ(bad, 0) << "column sums beyond the bound (" << c.m << " x " << c.n << ")";
    std::cout << "[ cast-transpose ] " << c.m << " x " << c.n << ": column sums within " << worst
              << " of the bound\n";
  }
}

std::string caseName(const ::testing::TestParamInfo<CtCase> &info) {
  const char *form = info.param.form == Form::GeluGradColSum         ? "gelu_grad_colsum"
                     : info.param.form == Form::GivenScaleBothCopies ? "both_copies"
                     : info.param.form == Form::GivenScaleColSum     ? "col_sum"
                     : info.param.form == Form::TransposeOnly        ? "transpose_only"
                     : info.param.form == Form::RowPair              ? "row_pair"
                     : info.param.form == Form::GeluGradE4m3         ? "gelu_grad_e4m3"
                                                                     : "block_pair";
  return fmt::format("{}_{}x{}{}{}", form, info.param.m, info.param.n,
                     info.param.dynamicM ? "_dynamic_m" : "",
                     std::string(info.param.fp8) == "f8E4M3FN" ? "_e4m3" : "");
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GpuCastTransposeTest,
    ::testing::Values(
        CtCase{Form::GeluGradColSum, 1, 4}, CtCase{Form::GeluGradColSum, 7, 6},
        CtCase{Form::GeluGradColSum, 17, 63}, CtCase{Form::GeluGradColSum, 255, 100},
        CtCase{Form::GeluGradColSum, 257, 1000}, CtCase{Form::GeluGradColSum, 1000, 64},
        CtCase{Form::GeluGradColSum, 4099, 1000}, CtCase{Form::GivenScaleBothCopies, 7, 6},
        CtCase{Form::GivenScaleBothCopies, 257, 100},
        CtCase{Form::GivenScaleBothCopies, 1000, 1000}, CtCase{Form::TransposeOnly, 17, 63},
        CtCase{Form::TransposeOnly, 1000, 1000}, CtCase{Form::RowPair, 1, 4},
        CtCase{Form::RowPair, 7, 6}, CtCase{Form::RowPair, 257, 100},
        CtCase{Form::RowPair, 1000, 1000}, CtCase{Form::RowPair, 4099, 1000},
        CtCase{Form::BlockPair, 7, 130}, CtCase{Form::BlockPair, 257, 300},
        CtCase{Form::BlockPair, 1000, 1000}, CtCase{Form::RowPair, 1, 96, true},
        CtCase{Form::RowPair, 300, 96, true}, CtCase{Form::RowPair, 4099, 200, true},
        CtCase{Form::RowPair, 4099, 200}, CtCase{Form::GeluGradColSum, 4099, 200},
        CtCase{Form::GeluGradE4m3, 7, 6}, CtCase{Form::GeluGradE4m3, 257, 100},
        CtCase{Form::GeluGradE4m3, 4099, 1000},
        // The byte-staged form: tile tails in both dims (128 x 64 tiles), one row,
        // a padded output pitch (dynamic M), both FP8 types.
        CtCase{Form::GivenScaleBothCopies, 1, 8},
        CtCase{Form::GivenScaleBothCopies, 7, 64, false, "f8E4M3FN"},
        CtCase{Form::GivenScaleBothCopies, 129, 72},
        CtCase{Form::GivenScaleBothCopies, 4099, 136, false, "f8E4M3FN"},
        CtCase{Form::GivenScaleBothCopies, 300, 96, true},
        CtCase{Form::GivenScaleBothCopies, 1000, 200, true, "f8E4M3FN"},
        CtCase{Form::TransposeOnly, 130, 64, true},
        // The byte-staged form with a given scale and the column sums (delayed's
        // dY) and the gelu_grad of a saved e4m3 input with them (units of several
        // 128-row tiles, empty units past the rows).
        CtCase{Form::GivenScaleColSum, 1, 8}, CtCase{Form::GivenScaleColSum, 257, 72},
        CtCase{Form::GivenScaleColSum, 4099, 200, false, "f8E4M3FN"},
        CtCase{Form::GivenScaleColSum, 1000, 136, true}, CtCase{Form::GivenScaleColSum, 8192, 64},
        CtCase{Form::GeluGradE4m3, 1, 8}, CtCase{Form::GeluGradE4m3, 130, 64},
        CtCase{Form::GeluGradE4m3, 1000, 200},
        // Every tile inside (rows a multiple of 128, columns of 64, the transposed
        // copy's pitch its row count): the form without bounds checks, as the
        // training step's tensors take it (8192 x 64 above too).
        CtCase{Form::GivenScaleBothCopies, 256, 128}, CtCase{Form::GeluGradE4m3, 384, 192}),
    caseName);

} // namespace
} // namespace fp8c
