// The training step on the GPU (docs/architecture.md, "Training"): compileTraining runs the
// training pipeline (passes/TrainingPipeline.h) and compiles its forward and backward graphs
// into two Executables that share the saved tensors (device buffers owned here: the forward
// writes them, the backward reads them) and keep their scaling state (amax histories) on the
// device across steps; nothing synchronizes with the host.
//
//   fp8c::TrainingOptions o;             // recipe, tokens (the graph's dynamic dim)
//   auto step = fp8c::compileTraining(graph, o);
//   (*step)->forward({{"x", x}, {"w1", w1}, ...}, {{"y", y}}, stream);   // by name
//   (*step)->backward({{"y", dy}}, {{"x", dx}, {"w1", dw1}, ...}, stream);
//
// Names are those of InterpretedTraining (training/Training.h), the CPU reference: forward
// inputs by input name, outputs by output name, gradients by the fp8.grad key (the output's
// name for an output gradient, the input's name for an input gradient). The backward reads
// the forward inputs it needs (weights) from the last forward's bindings, so they must stay
// alive and unchanged until backward() has been enqueued.
#pragma once

#include "driver/Compile.h"
#include "training/Training.h"
#include "runtime/cuda/DeviceBuffer.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fp8c {

class GpuTraining {
public:
  const TrainingGraphs &graphs() const { return graphs_; }
  Executable &forwardExecutable() { return *fwd_; }
  Executable &backwardExecutable() { return *bwd_; }
  /// Names forward() binds (inputs, outputs) and backward() binds (output gradients, input
  /// gradients), each with its static type.
  const std::map<std::string, TensorType> &forwardInputs() const { return fwdIn_; }
  const std::map<std::string, TensorType> &forwardOutputs() const { return fwdOut_; }
  const std::map<std::string, TensorType> &outputGrads() const { return gradIn_; }
  const std::map<std::string, TensorType> &inputGrads() const { return gradOut_; }

  /// Enqueues the forward on `stream`: writes the outputs and the saved tensors, advances the
  /// forward's state. No host synchronization. With weights=static, Cast (the default)
  /// quantizes the bound weights first, and Reuse keeps the FP8 copies of the last Cast
  /// forward (WeightCasts in training/Training.h: gradient accumulation's later micro-batches;
  /// the weights must be bound to the same buffers as at that cast).
  Status forward(const Bindings &inputs, const Bindings &outputs, CUstream stream,
                 WeightCasts casts = WeightCasts::Cast);
  /// Enqueues the backward of the last forward: writes the input gradients, advances the
  /// backward's state (the gradients' histories).
  Status backward(const Bindings &outputGrads, const Bindings &inputGrads, CUstream stream);
  /// Zeroes every state buffer of both halves (fresh histories).
  Status resetState(CUstream stream);
  /// A state buffer (an amax history) by fp8.state key; synchronizes `stream`.
  Expected<std::vector<float>> readState(const std::string &key, CUstream stream);
  /// Enqueues on `stream` the copy of both halves' non-finite counters (Executable.h); no
  /// synchronization.
  Status enqueueNonFiniteReport(CUstream stream);
  /// The counters the last enqueueNonFiniteReport copied, once `stream` has reached it: per
  /// amax history (fp8.state key) the non-finite amaxes its pushes skipped since compile or
  /// resetState, the history and its scale kept; per forward output (by name) and input
  /// gradient (by fp8.grad key) the NaN / +-inf elements of the last forward and backward
  /// (-1 without TrainingOptions::countNonFinite). InterpretedTraining::nonFiniteReport is the
  /// interpreter's.
  NonFiniteReport nonFiniteReport() const;
  std::vector<std::string> stateKeys() const;
  /// Bytes of the saved-tensor buffers.
  int64_t savedBytes() const;

private:
  friend Expected<std::unique_ptr<GpuTraining>> compileTraining(const Graph &,
                                                               const TrainingOptions &);
  GpuTraining() = default;

  TrainingGraphs graphs_;
  std::unique_ptr<Executable> fwd_, bwd_;
  std::map<std::string, DeviceBuffer> saved_; ///< by fp8.saved key
  std::map<std::string, TensorType> fwdIn_, fwdOut_, gradIn_, gradOut_;
  /// Per plan buffer of each half (Input/Param/Output roles only): the name it binds by, and
  /// where from.
  /// Forward inputs and input gradients share names ("x" is both), so each slot records
  /// which map it binds from.
  enum class From { Saved, Input, Output, OutputGrad, InputGrad };
  struct Slot {
    std::string planName, key;
    From from = From::Input;
  };
  std::vector<Slot> fwdSlots_, bwdSlots_;
  Bindings lastInputs_; ///< the last forward's inputs, by input name
  /// Weights (Param buffers of the forward) by input name, and the pointers the last Cast
  /// forward quantized them from.
  std::vector<std::string> params_;
  std::map<std::string, void *> castParams_;
  /// A weight that a per-run step of the forward, or the backward, reads besides the forward's
  /// load steps ("" if none): Reuse would then see the bound weight there and the cast one
  /// elsewhere, so it is refused.
  std::string paramReadPerRun_;
  DeviceTensor savedTensor(const std::string &key) const;
  Status bindSlots(const std::vector<Slot> &slots, const Bindings *inputs,
                   const Bindings *outputs, const Bindings *outputGrads,
                   const Bindings *inputGrads, const char *half, Bindings &b) const;
  bool forwardRan_ = false;
};

/// How compileTraining compiles each (already fused) half: no passes but `dce`, then lowering,
/// with the FP8 GEMM backend the halves were fused for (TrainingOptions::gemmBackend).
CompileOptions trainingCompileOptions(int64_t tokens, GemmBackend gemmBackend = GemmBackend::Auto);

/// Builds the training graphs of `g` (recipe, tokens: o.fuse is ignored, both halves are
/// fused) and compiles both halves for device 0. The graph must have static shapes after
/// o.tokens is applied.
Expected<std::unique_ptr<GpuTraining>> compileTraining(const Graph &g, const TrainingOptions &o);

} // namespace fp8c
