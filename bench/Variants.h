// What fp8c-bench runs on each shape: the variants (fp8c configurations and the peers it is
// compared with), each prepared on one shape's inputs into something that runs one input set
// on a stream.
//
// Graph variants compile the shape's graph through fp8c (runtime/Executable.h), so the bf16
// peer, the unfused peer and every fp8c configuration share the input buffers, bindings and
// CUDA-graph capture. They are one table, kGraphVariants in Variants.cpp: a new fp8c variant
// (another backend, another pipeline option) is one line there. The cuBLASLt FP8 GEMM peer
// calls CublasLtRunner directly on pre-quantized operands (GemmOnly.cpp).
#pragma once

#include "bench/Shapes.h"
#include "ir/DType.h"
#include "runtime/Executable.h"
#include "runtime/cuda/DeviceBuffer.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fp8c::bench {

/// A shape's graph inputs on the device: `sets` copies of every input (random, never zero),
/// rotated so the working set exceeds L2. Shared by every graph variant of the shape.
struct ShapeInputs {
  int sets = 1;
  int64_t l2Bytes = 0; ///< the device's L2 (peers that allocate their own inputs rotate too)
  std::vector<std::string> names;                 ///< graph input names, in order
  std::vector<std::vector<int64_t>> shapes;       ///< concrete shapes (M substituted)
  std::vector<std::vector<DeviceBuffer>> buffers; ///< [set][input]
};

/// The shape's graph (graphText parsed).
Expected<std::unique_ptr<Graph>> shapeGraph(const Shape &s);

/// Allocates and fills the inputs of `g` at token count m; `l2Bytes` sets the rotation.
Expected<ShapeInputs> makeInputs(const Graph &g, int64_t m, int64_t l2Bytes);

/// A variant prepared on one shape and recipe.
class Prepared {
public:
  virtual ~Prepared() = default;
  /// Enqueues one run with input set `set` on `stream` (no host sync; graph-capturable).
  virtual Status run(int set, CUstream stream) = 0;
  /// Input sets it rotates through.
  virtual int sets() const = 0;
  /// Launches per run (generated kernels + cuBLASLt calls).
  virtual int launches() const = 0;
  /// The bytes its floor counts (see Shapes.h: ioBytesOf, fp8GemmBytesOf).
  virtual double floorBytes() const = 0;
  /// The first `rows` rows of its output after a run of set 0 (bf16 values widened); empty
  /// when the output is not comparable with the others' (different inputs).
  virtual Expected<std::vector<float>> outputRows(int64_t rows, CUstream stream) = 0;
  /// fp8c-bench --profile: each step's median time over a few profiled runs of set 0 (an event
  /// after every launch), one line per step with what it ran (a GEMM: its backend and the
  /// measured choice behind it); empty where the variant is not an fp8c executable.
  virtual Expected<std::vector<std::string>> profileLines(CUstream) {
    return std::vector<std::string>{};
  }
};

/// A variant: its name in tables, whether it depends on the recipe (bf16 does not), what it
/// runs (for the README and the JSON), and how to prepare it.
struct Variant {
  std::string name;
  bool perRecipe = true;
  std::string description;
  std::function<Expected<std::unique_ptr<Prepared>>(const Shape &, const std::string &recipe,
                                                    ShapeInputs &inputs)>
      prepare;
  /// Graph variants: passes and lowering only (no GPU): the plan's description ("3 launches:
  /// ..."), or why it does not lower. Null for the cuBLASLt peer.
  std::function<Expected<std::string>(const Shape &, const std::string &recipe)> lower;
};

/// Every variant, in table order: bf16, fp8-gemm (cuBLASLt alone), unfused, fp8c variants.
const std::vector<Variant> &allVariants();

/// The FP8 cuBLASLt GEMMs of `s` alone on pre-quantized random operands, with the scale mode
/// of `recipe` (tensor, outer-vector for rowwise, 128-block for blockwise). `l2Bytes` sets the
/// rotation. Also used to measure the FP8 peak (8192^3, tensorwise).
Expected<std::unique_ptr<Prepared>> prepareGemmOnly(const Shape &s, const std::string &recipe,
                                                    int64_t l2Bytes);

} // namespace fp8c::bench
