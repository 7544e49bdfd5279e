// trainMlpRegression (TrainMlp.h): the problem (MlpProblem.h) through the interpreter backend
// (MlpStepBackend.h); and train_mlp's command line.
#include "TrainMlp.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>

namespace fp8c::example {

Expected<std::vector<double>> trainMlpRegression(const MlpRegressionConfig &c) {
  if (c.accumulate < 1)
    return Error("accumulate must be >= 1, not " + std::to_string(c.accumulate));
  MlpProblem p = makeMlpProblem({c.batch, c.in, c.hidden, c.out},
                                c.pool > 0 ? c.pool : std::max(c.steps * c.accumulate, 1), c.seed);
  std::unique_ptr<MlpStepBackend> b = makeInterpreterBackend(p, c.dtype);
  Expected<LossCurve> curve = runLossCurve(*b, c.recipe, c.steps, c.lr, c.accumulate);
  if (!curve)
    return Error(curve.error());
  return curve->loss;
}

const char *const kTrainMlpUsage =
    "usage: train_mlp [--device=cpu|gpu] [--steps=N] [--batch=M] [--accumulate=N] [--in=K]\n"
    "                 [--hidden=H] [--out=N] [--lr=X] [--seed=S] [--pool=P]\n"
    "                 [--recipes=tensorwise,delayed,blockwise] [--max-rel-gap=X] [--csv=FILE]\n"
    "  --accumulate=N  micro-batches per optimizer step (gradient accumulation, default 1): N\n"
    "                  batches of --batch rows at the same weights, one SGD step on their mean\n"
    "                  gradient; a step's loss is their mean (see the top of train_mlp.cpp)\n";

namespace {

bool parseInt(const std::string &v, int64_t lo, int64_t &out) {
  char *end = nullptr;
  errno = 0;
  long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno == ERANGE || x < lo)
    return false;
  out = x;
  return true;
}

bool parseDouble(const std::string &v, double &out) {
  char *end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !std::isfinite(x) || x <= 0)
    return false;
  out = x;
  return true;
}

} // namespace

Expected<TrainMlpArgs> parseTrainMlpArgs(const std::vector<std::string> &args) {
  TrainMlpArgs r;
  int64_t steps = -1, pool = -1;
  double lr = -1;
  for (const std::string &a : args) {
    const size_t eq = a.find('=');
    const std::string key = a.substr(0, eq), v = eq == std::string::npos ? "" : a.substr(eq + 1);
    bool ok = true;
    std::string want; // what a good value is, for the error
    auto integer = [&](int64_t lo, int64_t &out) {
      want = "an integer >= " + std::to_string(lo);
      return parseInt(v, lo, out);
    };
    auto positive = [&](double &out) {
      want = "a number > 0";
      return parseDouble(v, out);
    };
    if (eq == std::string::npos)
      return Error("unknown option '" + a + "'");
    if (key == "--device") {
      ok = (r.device = v) == "cpu" || v == "gpu";
      want = "cpu or gpu";
    } else if (key == "--steps") {
      ok = integer(1, steps);
    } else if (key == "--batch") {
      ok = integer(1, r.sizes.batch);
    } else if (key == "--accumulate") {
      ok = integer(1, r.accumulate) && r.accumulate <= kMaxAccumulate;
      want = "the micro-batches per optimizer step, an integer from 1 to " +
             std::to_string(kMaxAccumulate);
    } else if (key == "--in") {
      ok = integer(1, r.sizes.in);
    } else if (key == "--hidden") {
      ok = integer(1, r.sizes.hidden);
    } else if (key == "--out") {
      ok = integer(1, r.sizes.out);
    } else if (key == "--lr") {
      ok = positive(lr);
    } else if (key == "--seed") {
      ok = integer(0, r.seed);
    } else if (key == "--pool") {
      ok = integer(1, pool);
    } else if (key == "--max-rel-gap") {
      ok = positive(r.maxGap);
    } else if (key == "--csv") {
      ok = !(r.csv = v).empty();
      want = "a file name";
    } else if (key == "--recipes") {
      r.recipes.clear();
      for (size_t p = 0, q; p <= v.size(); p = q + 1) {
        q = v.find(',', p);
        if (q == std::string::npos)
          q = v.size();
        if (q > p)
          r.recipes.push_back(v.substr(p, q - p));
      }
    } else {
      return Error("unknown option '" + a + "'");
    }
    if (!ok)
      return Error("bad value in '" + a + "' (" + key + ": " + want + ")");
  }
  const bool gpu = r.device == "gpu";
  r.steps = steps > 0 ? steps : gpu ? 200 : 300;
  if (lr > 0)
    r.lr = lr;
  // The CPU runs draw a fresh batch every micro-batch; the GPU a pool of 8 batches in turn
  // (uploaded once: 8 x 200 MiB at the real size).
  r.pool = pool > 0 ? pool : gpu ? 8 : r.steps * r.accumulate;
  if (r.steps > INT_MAX || r.pool > INT_MAX) // (the loop counts in int)
    return Error("too many " + std::string(r.steps > INT_MAX ? "steps" : "batches in the pool") +
                 " (at most " + std::to_string(INT_MAX) + ")");
  return r;
}

} // namespace fp8c::example
