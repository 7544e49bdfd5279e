// Ops.def's op classes and device-function names against their implementations: every pointwise
// op (and every attribute variant of its device function) runs in the CPU interpreter, lowers
// to a launch that calls its ops.cuh function and compiles with NVRTC for sm_90a; the flag
// classes nest as the fusion planner assumes; the host Activation enum (ir/Activation.h) has the
// device Act enum's enumerators and values (codegen/kernels/gemm_sm90_defs.cuh).
#include "codegen/EmbeddedHeaders.h"
#include "codegen/Lowering.h"
#include "ir/Activation.h"
#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "passes/PassManager.h"
#include "interp/Interpreter.h"
#include "runtime/jit/Nvrtc.h"
#include "unit/codegen/NvrtcTestSupport.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

namespace fp8c {
namespace {

constexpr const char *kShape = "4x256";

std::string_view embedded(std::string_view name) {
  for (const EmbeddedHeader &h : embeddedHeaders())
    if (h.name == name)
      return h.contents;
  ADD_FAILURE() << "no embedded header " << name;
  return {};
}

// One op of a pointwise kind, written as a one-op graph: its operand and result dtypes and its
// attributes.
struct OneOp {
  OpKind kind;
  std::vector<DType> operands;
  DType result;
  std::vector<std::pair<std::string, std::string>> attrs; ///< name, value (strings)
  std::string label;
};

std::string tensorType(DType dt, bool scalar) {
  return scalar ? "tensor<" + std::string(dtypeName(dt)) + ">"
                : "tensor<" + std::string(kShape) + "x" + std::string(dtypeName(dt)) + ">";
}

std::string graphText(const OneOp &o) {
  const bool dequant = o.kind == OpKind::Dequant;
  std::string args, operands, types;
  for (size_t i = 0; i < o.operands.size(); ++i) {
    const bool scalar = dequant && i == 1; // the tensor scale
    const std::string t = tensorType(o.operands[i], scalar);
    args += (i ? ", " : "") + std::string("%a") + std::to_string(i) + ": " + t;
    operands += (i ? ", " : "") + std::string("%a") + std::to_string(i);
    types += (i ? ", " : "") + t;
  }
  std::string attrs;
  for (const auto &[n, v] : o.attrs)
    attrs += (attrs.empty() ? "" : ", ") + n + " = \"" + v + "\"";
  const std::string r = tensorType(o.result, false);
  return "func.func @f(" + args + ") -> " + r + " {\n  %y = " + std::string(opName(o.kind)) + " " +
         operands + (attrs.empty() ? "" : " {" + attrs + "}") + " : (" + types + ") -> " + r +
         "\n  return %y : " + r + "\n}\n";
}

// Every pointwise op of Ops.def, once per device-function variant (FP8C_DEVICE_FN rows), with
// its required string attributes set to their first allowed value.
std::vector<OneOp> pointwiseOps() {
  std::vector<OneOp> out;
  for (const OpInfo &info : allOpInfos()) {
    if (!info.has(kPointwise))
      continue;
    OneOp base{info.kind, {}, DType::BF16, {}, std::string(info.name)};
    for (int i = 0; i < info.minOperands; ++i)
      base.operands.push_back(DType::BF16);
    if (info.kind == OpKind::Dequant)
      base.operands = {DType::F8E4M3FN, DType::F32};
    if (info.kind == OpKind::Convert)
      base.result = DType::F16;
    for (const AttrSpec &a : info.attrs)
      if (a.required && a.kind == AttrKind::String)
        base.attrs.push_back(
            {std::string(a.name), std::string(a.allowed.substr(0, a.allowed.find('|')))});
    out.push_back(base);
    for (const DeviceFnSpec &v : info.deviceFnVariants) {
      OneOp o = base;
      std::erase_if(o.attrs, [&](const auto &a) { return a.first == v.attr; });
      o.attrs.push_back({std::string(v.attr), std::string(v.value)});
      o.label += " {" + std::string(v.attr) + " = " + std::string(v.value) + "}";
      out.push_back(o);
    }
  }
  return out;
}

std::unique_ptr<Module> parse(const OneOp &o) {
  DiagnosticEngine diag;
  std::unique_ptr<Module> m = parseModule(graphText(o), "op.mlir", diag);
  EXPECT_TRUE(m && verifyModule(*m, diag)) << graphText(o) << diag.str();
  return m;
}

const Op &theOp(const Module &m) { return *m.graphs()[0]->body().ops().front(); }

TEST(OpTable, FlagClassesNest) {
  for (const OpInfo &info : allOpInfos()) {
    SCOPED_TRACE(std::string(info.name));
    if (info.has(kEpilogue) || info.has(kActivationGrad))
      EXPECT_TRUE(info.has(kPointwise));
    EXPECT_FALSE(info.has(kEpilogue) && info.has(kActivationGrad));
    if (info.has(kScaleOp))
      EXPECT_FALSE(info.has(kPointwise));
    for (const DeviceFnSpec &v : info.deviceFnVariants)
      EXPECT_NE(info.findAttr(v.attr), nullptr)
          << "device-function variant of no attribute " << v.attr;
  }
}

// Every device function Ops.def names is defined in ops.cuh.
TEST(OpTable, DeviceFunctionsAreInOpsCuh) {
  const std::string ops(embedded("fp8c/ops.cuh"));
  ASSERT_FALSE(ops.empty());
  int names = 0;
  for (const OpInfo &info : allOpInfos()) {
    std::vector<std::string_view> fns;
    if (!info.deviceFn.empty())
      fns.push_back(info.deviceFn);
    for (const DeviceFnSpec &v : info.deviceFnVariants)
      fns.push_back(v.deviceFn);
    for (std::string_view fn : fns) {
      ++names;
      const std::regex def("__device__ __forceinline__ float " + std::string(fn) + "\\(");
      EXPECT_TRUE(std::regex_search(ops, def)) << info.name << ": no " << fn << " in ops.cuh";
    }
    // Every pointwise op has a device function, but fp8.convert (the result's rounding alone).
    if (info.has(kPointwise) && info.kind != OpKind::Convert)
      EXPECT_FALSE(info.deviceFn.empty()) << info.name;
  }
  EXPECT_GE(names, 16);
}

// Every pointwise op runs in the interpreter: no "cannot run this op" nor an internal error.
TEST(OpTable, EveryPointwiseOpRunsInTheInterpreter) {
  int ran = 0;
  for (const OneOp &o : pointwiseOps()) {
    SCOPED_TRACE(o.label);
    std::unique_ptr<Module> m = parse(o);
    ASSERT_TRUE(m);
    std::vector<HostTensor> inputs;
    for (size_t i = 0; i < o.operands.size(); ++i) {
      const bool scalar = o.kind == OpKind::Dequant && i == 1;
      HostTensor t = HostTensor::make(
          scalar ? std::vector<int64_t>{} : std::vector<int64_t>{4, 256}, o.operands[i]);
      for (size_t k = 0; k < t.data.size(); ++k)
        t.data[k] = scalar ? 2.0f : 0.25f * static_cast<float>(static_cast<int>(k % 9) - 4);
      inputs.push_back(std::move(t));
    }
    Expected<std::vector<HostTensor>> r = interpret(*m->graphs()[0], inputs);
    ASSERT_TRUE(r.hasValue()) << r.error();
    ASSERT_EQ(r->size(), 1u);
    EXPECT_EQ((*r)[0].dtype, o.result);
    ++ran;
  }
  EXPECT_GE(ran, 15);
}

// Every pointwise op lowers to a launch that calls its device function (Op::deviceFn), and the
// launch compiles for sm_90a.
TEST(OpTable, EveryPointwiseOpCompilesForSm90a) {
  int compiled = 0;
  for (const OneOp &o : pointwiseOps()) {
    SCOPED_TRACE(o.label);
    std::unique_ptr<Module> m = parse(o);
    ASSERT_TRUE(m);
    const std::string fn(theOp(*m).deviceFn());
    DiagnosticEngine diag;
    PassManager pm;
    ASSERT_TRUE(pm.parsePipeline("shape-infer,canonicalize,fuse,dce").isOk());
    ASSERT_TRUE(pm.run(*m, diag)) << diag.str();
    CodegenOptions opts;
    opts.arch = "sm_90a";
    Expected<LaunchPlan> plan = lowerGraph(*m->graphs()[0], opts);
    ASSERT_TRUE(plan.hasValue()) << plan.error();
    int launches = 0;
    bool calls = fn.empty();
    for (const Step &s : plan->steps) {
      const auto *l = std::get_if<GeneratedLaunch>(&s);
      if (!l)
        continue;
      ++launches;
      calls |= l->source.find("fp8c::op::" + fn + "(") != std::string::npos;
      Expected<NvrtcResult> r = compileLaunchForSm90a(*l);
      ASSERT_TRUE(r.hasValue()) << l->kernelName << ": " << r.error();
      ++compiled;
    }
    EXPECT_GE(launches, 1);
    EXPECT_TRUE(calls) << "no launch calls fp8c::op::" << fn;
  }
  EXPECT_GE(compiled, 15);
}

// The host enum and the device enum: the same enumerators, in the same order, with the same
// values.
TEST(OpTable, ActivationEnumMatchesTheDevice) {
  const std::string defs(embedded("fp8c/gemm_sm90_defs.cuh"));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(defs, m, std::regex(R"(enum class Act : int \{([^}]*)\})")));
  std::string host;
  for (Activation a : allActivations())
    host += (host.empty() ? " " : ", ") + std::string(activationEnumerator(a)) + " = " +
            std::to_string(static_cast<int>(a));
  EXPECT_EQ(m[1].str(), host + " ");
  EXPECT_STREQ(activationName(Activation::GeluTanh), "gelu_tanh");
}

} // namespace
} // namespace fp8c
