// Shared helpers of the GPU tests: skip without a device, run an Executable on host tensors
// with poisoned outputs, compare against the interpreter (Compare.h), and replay work in a CUDA
// graph.
#pragma once

#include "unit/support/Compare.h"

#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "runtime/DeviceTensorIO.h"
#include "driver/Compile.h"
#include "interp/Interpreter.h"
#include "interp/RandomInputs.h"
#include "interp/TensorStats.h"
#include "runtime/cuda/CudaDriver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>

namespace fp8c::gputest {

/// GTEST_SKIP()s the calling test when no CUDA device answers.
#define FP8C_REQUIRE_GPU()                                                                        \
  do {                                                                                            \
    ::fp8c::Expected<::fp8c::CudaDriver *> drv_ = ::fp8c::CudaDriver::get();                      \
    if (!drv_)                                                                                    \
      GTEST_SKIP() << "needs a CUDA GPU: " << drv_.error();                                       \
  } while (0)

/// Runs `exe` on `inputs` (by input name; state inputs are the executable's own) and returns
/// the outputs by name. Output buffers are filled with 0xFF (NaN in every float format) first.
inline std::map<std::string, HostTensor>
runOnDevice(Executable &exe, const std::map<std::string, HostTensor> &inputs, CUstream stream,
            std::map<std::string, DeviceBuffer> *keep = nullptr, Bindings *bindingsOut = nullptr) {
  std::map<std::string, DeviceBuffer> owned;
  Bindings b;
  int64_t m = 0;
  for (const BufferDesc &d : exe.plan().buffers) {
    if (d.role != BufferRole::Input && d.role != BufferRole::Param)
      continue;
    const HostTensor &h = inputs.at(d.name);
    Expected<DeviceBuffer> buf = uploadTensor(h);
    EXPECT_TRUE(buf.hasValue()) << (buf ? "" : buf.error());
    if (!buf)
      return {};
    if (d.type.rank() > 0 && d.type.isDynamicDim(0))
      m = h.shape[0];
    b[d.name] = {buf->data(), h.shape, h.dtype};
    owned.emplace(d.name, buf.take());
  }
  std::vector<std::pair<std::string, std::vector<int64_t>>> outs;
  for (const BufferDesc &d : exe.plan().buffers) {
    if (d.role != BufferRole::Output)
      continue;
    std::vector<int64_t> shape = d.type.shape();
    for (int64_t &x : shape)
      if (x == kDynamic)
        x = (m + d.mDivisor - 1) / d.mDivisor;
    Expected<DeviceBuffer> buf = DeviceBuffer::allocate(
        std::max<size_t>(1, TensorType(shape, d.type.dtype()).numElements() * dtypeBytes(d.type.dtype())));
    EXPECT_TRUE(buf.hasValue());
    if (!buf)
      return {};
    EXPECT_TRUE(buf->fill(0xFF).isOk());
    b[d.name] = {buf->data(), shape, d.type.dtype()};
    outs.push_back({d.name, shape});
    owned.emplace(d.name, buf.take());
  }
  Status st = exe.run(b, stream);
  EXPECT_TRUE(st.isOk()) << st.message();
  CudaDriver *drv = *CudaDriver::get();
  EXPECT_EQ(drv->cuStreamSynchronize(stream), CUDA_SUCCESS);
  std::map<std::string, HostTensor> result;
  for (auto &[name, shape] : outs) {
    Expected<HostTensor> h = downloadTensor(owned.at(name), shape, b.at(name).dtype);
    EXPECT_TRUE(h.hasValue());
    if (h)
      result[name] = h.take();
  }
  if (bindingsOut)
    *bindingsOut = b;
  if (keep)
    *keep = std::move(owned);
  return result;
}

/// Interpreter outputs of `g` by output name (fresh, zero state).
inline std::map<std::string, HostTensor> runOnCpu(const Graph &g,
                                                  const std::map<std::string, HostTensor> &inputs) {
  std::vector<HostTensor> in;
  for (unsigned i = 0; i < g.numInputs(); ++i) {
    auto it = inputs.find(g.input(i)->name());
    in.push_back(it != inputs.end() ? it->second
                                    : HostTensor::make(g.input(i)->type().shape(),
                                                       g.input(i)->type().dtype()));
  }
  Expected<std::vector<HostTensor>> r = interpret(g, in);
  EXPECT_TRUE(r.hasValue()) << (r ? "" : r.error());
  std::map<std::string, HostTensor> out;
  if (!r)
    return out;
  std::vector<Value *> outs = g.outputs();
  for (size_t i = 0; i < outs.size(); ++i)
    out[outs[i]->name()] = (*r)[i];
  return out;
}

/// Random inputs of `exe`'s graph (randomInputs with `seed`, the dynamic dim `m`) by name.
inline std::map<std::string, HostTensor> inputsFor(const Executable &exe, uint64_t seed,
                                                   int64_t m) {
  std::vector<HostTensor> rnd = randomInputs(exe.graph(), seed, m);
  std::map<std::string, HostTensor> in;
  for (unsigned i = 0; i < exe.graph().numInputs(); ++i)
    in[exe.graph().input(i)->name()] = rnd[i];
  return in;
}

/// The generated launches of exe's plan whose source contains every one of `needles`.
inline int launchesWith(const Executable &exe, std::initializer_list<std::string> needles) {
  int n = 0;
  for (const Step &st : exe.plan().steps)
    if (const auto *l = std::get_if<GeneratedLaunch>(&st)) {
      bool all = true;
      for (const std::string &s : needles)
        all = all && l->source.find(s) != std::string::npos;
      n += all;
    }
  return n;
}

/// A graph parsed from text and compiled with the fusion alone (`shape-infer,fuse,dce`): the
/// GPU tests of one launch form (the cast-transposes, the FP8 tables).
struct FusedGraph {
  std::unique_ptr<Module> module;
  CompileOptions options;
  std::unique_ptr<Executable> exe;
  const Graph &graph() const { return *module->graphs()[0]; }
};

/// Parses, verifies and compiles `text` (its first graph) into `out`; a failure carries the
/// diagnostics or the compile error.
inline ::testing::AssertionResult compileFused(const std::string &text, FusedGraph &out) {
  DiagnosticEngine diag;
  out.module = parseModule(text, "<test>", diag);
  if (!out.module || !verifyModule(*out.module, diag))
    return ::testing::AssertionFailure() << diag.str();
  out.options.passes = "shape-infer,fuse,dce";
  Expected<std::unique_ptr<Executable>> exe = compile(out.graph(), out.options);
  if (!exe)
    return ::testing::AssertionFailure() << exe.error();
  out.exe = exe.take();
  return ::testing::AssertionSuccess();
}

/// Compiles `g` again with `o` changed by `change` (a tuning knob turned off), expects no launch
/// source to contain `goneMarker`, runs it on `in` and expects every output but `skip` bit for
/// bit the same as `ref` (the outputs of the default executable on the same inputs); `what`
/// names the form. (Column sums added in another order are the caller's to bound.)
inline void expectSameWithTuning(const Graph &g, CompileOptions o,
                                 const std::function<void(ElementwiseTuning &)> &change,
                                 const std::string &goneMarker, const std::string &what,
                                 const std::map<std::string, HostTensor> &in,
                                 const std::map<std::string, HostTensor> &ref,
                                 const std::string &skip = "") {
  change(o.tuning);
  Expected<std::unique_ptr<Executable>> other = compile(g, o);
  ASSERT_TRUE(other.hasValue()) << other.error();
  EXPECT_EQ(launchesWith(**other, {goneMarker}), 0) << what << " off, yet '" << goneMarker << "'";
  std::map<std::string, HostTensor> out = runOnDevice(**other, in, nullptr);
  for (const std::string &name : (*other)->outputNames()) {
    if (name == skip)
      continue;
    ASSERT_TRUE(out.count(name) && ref.count(name)) << name;
    EXPECT_EQ(countBitMismatches(ref.at(name), out.at(name)), 0)
        << name << ": " << what << "'s result differs from the form without it";
    // Bit for bit takes NaN as equal to NaN: both runs must have written every element.
    EXPECT_TRUE(testcmp::allFinite(ref.at(name))) << name << ", " << what << " on";
    EXPECT_TRUE(testcmp::allFinite(out.at(name))) << name << ", " << what << " off";
  }
}

/// The FP8 tables off (ElementwiseTuning::fp8Tables = 0): no launch reads through a table, and
/// every output but `skip` is bit for bit `tabled`.
inline void expectTablesOffBitForBit(const Graph &g, CompileOptions o,
                                     const std::map<std::string, HostTensor> &in,
                                     const std::map<std::string, HostTensor> &tabled,
                                     const std::string &skip = "") {
  expectSameWithTuning(
      g, std::move(o), [](ElementwiseTuning &t) { t.fp8Tables = 0; }, "kTabIn", "the FP8 table",
      in, tabled, skip);
}

/// Captures what `work` enqueues on `stream` into a CUDA graph (global capture mode),
/// instantiates the graph, launches it once on `stream` and waits for it. Every driver call is
/// checked: an error names the call that failed, or is `work`'s own (the capture is ended
/// either way). The graph and its executable are destroyed on every path.
inline Status replayInCudaGraph(CUstream stream, const std::function<Status()> &work) {
  Expected<CudaDriver *> drvOr = CudaDriver::get();
  if (!drvOr)
    return Error(drvOr.error());
  CudaDriver *drv = *drvOr;
  struct Owned {
    CudaDriver *drv;
    CUgraph graph = nullptr;
    CUgraphExec exec = nullptr;
    ~Owned() {
      if (exec)
        drv->cuGraphExecDestroy(exec);
      if (graph)
        drv->cuGraphDestroy(graph);
    }
  } owned{drv};
  FP8C_CU_TRY(drv, cuStreamBeginCapture, stream, CU_STREAM_CAPTURE_MODE_GLOBAL);
  Status st = work();
  CUresult ended = drv->cuStreamEndCapture(stream, &owned.graph);
  if (!st)
    return st;
  if (ended != CUDA_SUCCESS)
    return Error(drv->errorMessage(ended, "cuStreamEndCapture"));
  FP8C_CU_TRY(drv, cuGraphInstantiateWithFlags, &owned.exec, owned.graph, 0);
  FP8C_CU_TRY(drv, cuGraphLaunch, owned.exec, stream);
  FP8C_CU_TRY(drv, cuStreamSynchronize, stream);
  return Status::ok();
}

} // namespace fp8c::gputest
