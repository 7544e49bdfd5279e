// Sizes of LaunchPlan buffers (the logical shape with M substituted, with padded row pitches) and
// of the buffers a launch takes; the steps' buffers and launches.
#include "codegen/LaunchPlan.h"

#include <algorithm>

namespace fp8c {

int64_t BufferDesc::pitch(int64_t m) const {
  m = (m + mDivisor - 1) / mDivisor;
  if (type.rank() < 1)
    return 1;
  if (type.rank() == 2 && ldAlignM > 0)
    return (m + ldAlignM - 1) / ldAlignM * ldAlignM;
  if (type.rank() >= 2 && ld > 0) // rank > 2: a [prod(leading dims), last] matrix
    return ld;
  int64_t last = type.dim(type.rank() - 1);
  return last == kDynamic ? m : last;
}

const char *bufferRoleName(BufferRole r) {
  switch (r) {
  case BufferRole::Input:
    return "input";
  case BufferRole::Param:
    return "param";
  case BufferRole::State:
    return "state";
  case BufferRole::Output:
    return "output";
  case BufferRole::Constant:
    return "constant";
  case BufferRole::Temp:
    return "temp";
  case BufferRole::Scratch:
    return "scratch";
  }
  return "?";
}

int64_t BufferDesc::bytes(int64_t m) const {
  const int64_t md = ((m + mDivisor - 1) / mDivisor + rowsAlignM - 1) / rowsAlignM * rowsAlignM;
  int64_t rows = 1;
  for (int64_t i = 0; i + 1 < type.rank(); ++i)
    rows *= type.isDynamicDim(i) ? md : type.dim(i);
  return rows * pitch(m) * dtypeBytes(type.dtype());
}

std::vector<const GeneratedLaunch *> launchesOf(const std::vector<Step> &steps) {
  std::vector<const GeneratedLaunch *> out;
  for (const Step &s : steps) {
    if (const auto *g = std::get_if<GeneratedLaunch>(&s))
      out.push_back(g);
    else
      for (const auto *fallbacks :
           {&std::get<GemmStep>(s).biasFallback, &std::get<GemmStep>(s).auxFallback,
            &std::get<GemmStep>(s).transFallback, &std::get<GemmStep>(s).epiFallback,
            &std::get<GemmStep>(s).dualFallback, &std::get<GemmStep>(s).side,
            &std::get<GemmStep>(s).pushFallback})
        for (const GeneratedLaunch &f : *fallbacks)
          out.push_back(&f);
  }
  return out;
}

std::vector<int> buffersOf(const Step &s) {
  if (const auto *g = std::get_if<GeneratedLaunch>(&s))
    return g->buffers;
  const auto &c = std::get<GemmStep>(s);
  std::vector<int> out;
  for (int b : {c.a,           c.b,           c.d,
                c.invScaleA,   c.invScaleB,   c.bias,
                c.amaxD,       c.scaleD,      c.aux,
                c.transD,      c.epiIn,       c.colSum,
                c.colPartials, c.epiD,        c.aPadded,
                c.dPadded,     c.b2,          c.invScaleB2,
                c.gateD,       c.upD,         c.blockScaleOut,
                c.blockInvOut, c.pushHistory, c.pushCounter})
    if (b >= 0)
      out.push_back(b);
  // The launches the step may run after the GEMM (or instead of part of its epilogue), and the
  // side launch that runs beside it.
  for (const auto *fallbacks : {&c.biasFallback, &c.auxFallback, &c.transFallback, &c.epiFallback,
                                &c.dualFallback, &c.side, &c.pushFallback})
    for (const GeneratedLaunch &l : *fallbacks)
      out.insert(out.end(), l.buffers.begin(), l.buffers.end());
  return out;
}

int64_t bytesTouched(const std::vector<BufferDesc> &buffers, const GeneratedLaunch &l, int64_t m) {
  std::vector<int> ids = l.buffers;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  int64_t bytes = 0;
  for (int b : ids)
    bytes += buffers.at(size_t(b)).bytes(m);
  return bytes;
}

} // namespace fp8c
