// NonFiniteReport (NonFiniteReport.h): the warning lines and the sums of reports.
#include "interp/NonFiniteReport.h"

#include <algorithm>
#include <cmath>

namespace fp8c {

bool NonFiniteReport::clean() const {
  for (const Output &o : outputs)
    if (o.count > 0)
      return false;
  for (const History &h : histories)
    if (h.skipped > 0)
      return false;
  return true;
}

std::vector<std::string> NonFiniteReport::warnings() const {
  std::vector<std::string> out;
  for (const Output &o : outputs)
    if (o.count > 0)
      out.push_back("warning: output '" + o.name + "' has " + std::to_string(o.count) +
                    " non-finite value" + (o.count == 1 ? "" : "s"));
  for (const History &h : histories) {
    if (h.skipped == 1)
      out.push_back("warning: history '" + h.key +
                    "': non-finite amax skipped at this step, previous scale kept");
    else if (h.skipped > 1)
      out.push_back("warning: history '" + h.key + "': " + std::to_string(h.skipped) +
                    " non-finite amaxes skipped, previous scales kept");
  }
  return out;
}

int64_t NonFiniteReport::skippedOf(const std::string &key) const {
  for (const History &h : histories)
    if (h.key == key)
      return h.skipped;
  return 0;
}

void NonFiniteReport::add(const NonFiniteReport &other) {
  for (const Output &o : other.outputs) {
    Output *mine = nullptr;
    for (Output &m : outputs)
      if (m.name == o.name)
        mine = &m;
    if (!mine)
      outputs.push_back(o);
    else if (mine->count < 0 || o.count < 0)
      mine->count = std::max(mine->count, o.count);
    else
      mine->count += o.count;
  }
  for (const History &h : other.histories) {
    History *mine = nullptr;
    for (History &m : histories)
      if (m.key == h.key)
        mine = &m;
    if (mine)
      mine->skipped += h.skipped;
    else
      histories.push_back(h);
  }
}

int64_t countNonFinite(const HostTensor &t) {
  int64_t n = 0;
  for (float v : t.data)
    n += !std::isfinite(v);
  return n;
}

} // namespace fp8c
