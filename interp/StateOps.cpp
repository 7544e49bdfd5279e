// Delayed-scaling state ops of the CPU interpreter: fp8.history_scale (a scale from an amax
// history) and fp8.history_push (the history shifted by one, newest amax first; a non-finite
// amax is skipped: the history stays as it was, docs/numerics.md).
#include "interp/InterpOps.h"

namespace fp8c::interp {

Expected<HostTensor> runHistoryScale(const OpContext &c) {
  const HostTensor &h = *c.args[0];
  if (h.data.empty())
    return Error("fp8.history_scale: the history is empty");
  const std::string algo = c.op.strAttr("algo");
  float amax;
  if (algo == "most_recent") {
    amax = h.data[0];
  } else if (algo == "max") {
    // max(h), NaN-propagating.
    amax = h.data[0];
    for (float v : h.data) {
      if (v != v) {
        amax = v;
        break;
      }
      if (v > amax)
        amax = v;
    }
  } else {
    return Error("fp8.history_scale: unknown algo \"" + algo + "\"");
  }
  const DType fp8 = c.op.dtypeAttr("dtype");
  if (!isFloat8(fp8))
    return Error("fp8.history_scale: dtype must be f8E4M3FN or f8E5M2");
  HostTensor y = HostTensor::make({}, DType::F32);
  y.data[0] = scaleFromAmax(amax, fp8, c.op.intAttr("margin"), c.op.boolAttr("pow2"));
  return y;
}

Expected<HostTensor> runHistoryPush(const OpContext &c) {
  const HostTensor &h = *c.args[0], &amax = *c.args[1];
  HostTensor y = HostTensor::make(h.shape, DType::F32);
  if (y.data.empty())
    return y;
  if (!std::isfinite(amax.data[0])) {
    y.data = h.data; // skipped: the next history_scale sees the scale this step used
    return y;
  }
  y.data[0] = amax.data[0];
  for (size_t i = 1; i < y.data.size(); ++i)
    y.data[i] = h.data[i - 1];
  return y;
}

} // namespace fp8c::interp
