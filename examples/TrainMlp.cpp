// trainMlpRegression (TrainMlp.h): the problem (MlpProblem.h) through the interpreter backend
// (MlpStepBackend.h).
#include "TrainMlp.h"

#include "MlpStepBackend.h"

namespace fp8c::example {

Expected<std::vector<double>> trainMlpRegression(const MlpRegressionConfig &c) {
  MlpProblem p = makeMlpProblem({c.batch, c.in, c.hidden, c.out},
                                c.pool > 0 ? c.pool : std::max(c.steps, 1), c.seed);
  std::unique_ptr<MlpStepBackend> b = makeInterpreterBackend(p, c.dtype);
  Expected<LossCurve> curve = runLossCurve(*b, c.recipe, c.steps, c.lr);
  if (!curve)
    return Error(curve.error());
  return curve->loss;
}

} // namespace fp8c::example
