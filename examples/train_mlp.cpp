// train_mlp: trains the two-layer MLP regression of TrainMlp.h for a few hundred steps with
// each FP8 recipe and unquantized, same seed and same data, and prints the loss curves side by
// side (every 10th step, then the last), the time of each run and, per FP8 recipe, the largest
// relative gap to the bf16 curve over the last 50 steps. Exit status 1 when a recipe's gap
// exceeds --max-rel-gap (or anything fails; a bad option prints the error and the usage).
//
//   --device=cpu  (default) the CPU interpreter (MlpStepBackend.h): f32 and bf16 graphs, then
//                 the FP8 recipes on the bf16 graph; host loss and SGD.
//   --device=gpu  compileTraining on GPU 0 (MlpGpuBackend.h): bf16 (recipe none), then the FP8
//                 recipes; loss and SGD on the device, data pool uploaded once.
//
//   train_mlp [--device=cpu|gpu] [--steps=N] [--batch=M] [--accumulate=N] [--in=K] [--hidden=H]
//             [--out=N] [--lr=X] [--seed=S] [--pool=P] [--recipes=tensorwise,delayed,blockwise]
//             [--max-rel-gap=X] [--csv=FILE]
//   (a recipe may carry quantize options after '+': delayed+weights=static casts the weights
//   with their own amax in steps of their own, again every step since SGD updates them)
//
// --accumulate=N: gradient accumulation. Each optimizer step (--steps counts those) runs N
// micro-batches of --batch rows, the next N batches of the pool in turn, computes each one's
// gradient at the same weights and applies one SGD update with their mean gradient (one step
// on the mean of their losses); the loss printed for a step is the mean of its micro-batches'
// losses. With weights=static the first micro-batch of a step casts the weights to FP8
// (WeightCasts::Cast) and the others reuse those copies (WeightCasts::Reuse: TransformerEngine's
// is_first_microbatch=False); the other recipes cast in every forward. N must be an integer
// from 1 to 65536 (else a usage error); default 1.
//
// Defaults: batch 64, 64 -> 128 -> 32, lr 0.1, seed 1, 300 steps on the CPU and 200 on the
// GPU; --pool (batches used in turn) = steps x accumulate on the CPU (a fresh batch every
// micro-batch), 8 on the GPU; --max-rel-gap = kMaxRelGapDefault (0.03, justified in
// MlpStepBackend.h). The option parser is parseTrainMlpArgs (TrainMlp.h).
//
// The real size, the MLP block of examples/mlp.mlir:
//   train_mlp --device=gpu --batch=8192 --in=4096 --hidden=14336 --out=4096 --lr=2
// The loss is a mean over batch x out elements, so each output row's gradient carries 1/out:
// lr 0.1 barely moves it at out = 4096. SGD is stable while lr x the largest curvature < 2;
// that curvature is along each output's mean (b2 and the mean of the gelu outputs, ~0.28):
// about 2 (hidden 0.28^2 + 1.3) / out = 0.56 at the real size, so lr < 3.5. lr 2 (x 0.56 =
// 1.1) and 3 trained stably in a float32 numpy model with the same hidden/out ratio at 1/8 the
// size (batch 1024, 512 -> 1792 -> 512, 40 steps: loss 0.85 -> 0.39 with lr 2).
#include "MlpGpuBackend.h"
#include "MlpStepBackend.h"
#include "TrainMlp.h"

#include "runtime/cuda/CudaDriver.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

using namespace fp8c;
using namespace fp8c::example;

namespace {

int fail(const std::string &msg) {
  std::fprintf(stderr, "train_mlp: error: %s\n", msg.c_str());
  return 1;
}

struct Run {
  std::string label;
  LossCurve curve;
};

} // namespace

int main(int argc, char **argv) {
  Expected<TrainMlpArgs> parsed =
      parseTrainMlpArgs(std::vector<std::string>(argv + 1, argv + argc));
  if (!parsed) {
    fail(parsed.error());
    std::fputs(kTrainMlpUsage, stderr);
    return 1;
  }
  const TrainMlpArgs &args = *parsed;
  const MlpSizes &sizes = args.sizes;
  const int64_t steps = args.steps, pool = args.pool, accumulate = args.accumulate;
  const double lr = args.lr, maxGap = args.maxGap;
  const bool gpu = args.device == "gpu";

  if (gpu) // before generating the data: fail fast where there is no GPU
    if (Expected<CudaDriver *> drv = CudaDriver::get(); !drv)
      return fail(drv.error());
  std::printf("two-layer MLP regression, batch %lld, %lld -> %lld -> %lld, %lld steps, SGD lr %g, "
              "%lld batches in turn, seed %lld\n",
              (long long)sizes.batch, (long long)sizes.in, (long long)sizes.hidden,
              (long long)sizes.out, (long long)steps, lr, (long long)pool, (long long)args.seed);
  if (accumulate > 1)
    std::printf("gradient accumulation: %lld micro-batches of %lld rows per optimizer step "
                "(weights=static recipes reuse the first one's FP8 weights)\n",
                (long long)accumulate, (long long)sizes.batch);
  std::fflush(stdout);
  const MlpProblem problem = makeMlpProblem(sizes, int(pool), uint64_t(args.seed));
  std::vector<Run> runs;
  auto train = [&](MlpStepBackend &b, const std::string &label, const std::string &recipe) {
    Expected<LossCurve> c = runLossCurve(b, recipe, int(steps), float(lr), int(accumulate));
    if (!c)
      return fail(label + ": " + c.error());
    std::printf("%-16s %8.2f s build + %8.2f s for %lld steps (%.2f ms/step)\n", label.c_str(),
                c->beginSeconds, c->stepSeconds, (long long)steps,
                1e3 * c->stepSeconds / double(steps));
    std::fflush(stdout);
    runs.push_back({label, c.take()});
    return 0;
  };
  if (gpu) {
    Expected<std::unique_ptr<MlpStepBackend>> b = makeGpuBackend(problem);
    if (!b)
      return fail(b.error());
    std::printf("device: %s, bf16 graph, loss and SGD on the device\n",
                (*b)->description().c_str());
    if (train(**b, "bf16", "none"))
      return 1;
    for (const std::string &r : args.recipes)
      if (train(**b, "fp8-" + r, r))
        return 1;
  } else {
    std::printf("device: CPU interpreter, loss and SGD on the host; FP8 runs use a bf16 graph\n");
    std::unique_ptr<MlpStepBackend> f32 = makeInterpreterBackend(problem, DType::F32);
    std::unique_ptr<MlpStepBackend> bf16 = makeInterpreterBackend(problem, DType::BF16);
    if (train(*f32, "f32", "none") || train(*bf16, "bf16", "none"))
      return 1;
    for (const std::string &r : args.recipes)
      if (train(*bf16, "fp8-" + r, r))
        return 1;
  }

  std::printf("%6s", "step");
  for (const Run &r : runs)
    std::printf(" %16s", r.label.c_str());
  std::printf("\n");
  for (int64_t s = 0; s < steps; ++s) {
    if (s % 10 != 0 && s != steps - 1)
      continue;
    std::printf("%6lld", (long long)s);
    for (const Run &r : runs)
      std::printf(" %16.6f", r.curve.loss[size_t(s)]);
    std::printf("\n");
  }
  if (!args.csv.empty()) {
    std::ofstream out(args.csv);
    out << "step";
    for (const Run &r : runs)
      out << "," << r.label;
    out << "\n";
    out.precision(9);
    for (int64_t s = 0; s < steps; ++s) {
      out << s;
      for (const Run &r : runs)
        out << "," << r.curve.loss[size_t(s)];
      out << "\n";
    }
    if (!out)
      return fail("cannot write " + args.csv);
  }

  const Run *ref = nullptr;
  for (const Run &r : runs)
    if (r.label == "bf16")
      ref = &r;
  int status = 0;
  for (const Run &r : runs) {
    if (r.label.rfind("fp8-", 0) != 0)
      continue;
    const double gap = maxRelativeGap(r.curve.loss, ref->curve.loss, kGapTail);
    const bool within = gap <= maxGap;
    std::printf("%s vs bf16: max |loss - loss_bf16| / loss_bf16 over the last %zu steps = %.5f "
                "(bound %.3f): %s\n",
                r.label.c_str(), std::min<size_t>(kGapTail, size_t(steps)), gap, maxGap,
                within ? "within" : "EXCEEDS");
    if (!within)
      status = 1;
  }
  return status;
}
