// train_mlp: trains the two-layer MLP regression of TrainMlp.h for a few hundred steps with
// each FP8 recipe and unquantized (f32 and bf16 graphs), same seed and data, on the CPU
// interpreter, and prints the loss curves side by side (every 10th step, then the last).
//
//   train_mlp [--steps=N] [--batch=M] [--hidden=H] [--recipes=tensorwise,delayed,blockwise]
#include "TrainMlp.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  fp8c::example::MlpRegressionConfig base;
  std::vector<std::string> recipes = {"tensorwise", "delayed", "blockwise"};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&](const char *p) { return a.rfind(p, 0) == 0 ? a.substr(std::strlen(p)) : ""; };
    if (auto v = val("--steps="); !v.empty())
      base.steps = std::atoi(v.c_str());
    else if (auto v = val("--batch="); !v.empty())
      base.batch = std::atoll(v.c_str());
    else if (auto v = val("--hidden="); !v.empty())
      base.hidden = std::atoll(v.c_str());
    else if (auto v = val("--recipes="); !v.empty()) {
      recipes.clear();
      for (size_t p = 0, q; p <= v.size(); p = q + 1) {
        q = v.find(',', p);
        if (q == std::string::npos)
          q = v.size();
        recipes.push_back(v.substr(p, q - p));
      }
    } else {
      std::fprintf(stderr, "train_mlp: unknown option '%s'\n", a.c_str());
      return 1;
    }
  }
  struct Run {
    std::string label;
    std::vector<double> loss;
  };
  std::vector<Run> runs;
  auto add = [&](std::string label, std::string recipe, fp8c::DType dt) {
    fp8c::example::MlpRegressionConfig c = base;
    c.recipe = recipe;
    c.dtype = dt;
    auto l = fp8c::example::trainMlpRegression(c);
    if (!l) {
      std::fprintf(stderr, "train_mlp: %s: %s\n", label.c_str(), l.error().c_str());
      std::exit(1);
    }
    runs.push_back({label, *l});
  };
  add("f32", "none", fp8c::DType::F32);
  add("bf16", "none", fp8c::DType::BF16);
  for (const std::string &r : recipes)
    add("fp8-" + r, r, fp8c::DType::BF16);
  std::printf("two-layer MLP regression, batch %lld, %lld -> %lld -> %lld, %d steps, SGD lr %g "
              "(host), CPU interpreter; FP8 runs use a bf16 graph\n",
              (long long)base.batch, (long long)base.in, (long long)base.hidden,
              (long long)base.out, base.steps, base.lr);
  std::printf("%6s", "step");
  for (const Run &r : runs)
    std::printf(" %14s", r.label.c_str());
  std::printf("\n");
  for (int s = 0; s < base.steps; ++s) {
    if (s % 10 != 0 && s != base.steps - 1)
      continue;
    std::printf("%6d", s);
    for (const Run &r : runs)
      std::printf(" %14.6f", r.loss[s]);
    std::printf("\n");
  }
  return 0;
}
