// Liveness-based placement of a LaunchPlan's buffers in one arena: greedy best-fit by size,
// largest first, never overlapping a buffer whose live range intersects.
#include "runtime/MemoryPlan.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace fp8c {
namespace {

constexpr int64_t kAlign = 256;

int64_t alignUp(int64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

bool rangesOverlap(const BufferSlot &a, const BufferSlot &b) {
  return a.firstStep <= b.lastStep && b.firstStep <= a.lastStep;
}

} // namespace

std::vector<int> cublasOnlyBuffersOf(const GemmStep &c) {
  std::set<int> generated;
  for (int b : {c.a, c.b, c.d, c.invScaleA, c.invScaleB, c.bias, c.amaxD, c.scaleD, c.aux, c.transD,
                c.epiIn, c.colSum, c.colPartials, c.b2, c.invScaleB2, c.blockScaleOut,
                c.blockInvOut, c.pushHistory, c.pushCounter})
    generated.insert(b);
  for (const GeneratedLaunch &l : c.side) // both forms run it
    generated.insert(l.buffers.begin(), l.buffers.end());
  for (const GeneratedLaunch &l : c.pushFallback) // at an M without GEMM rows
    generated.insert(l.buffers.begin(), l.buffers.end());
  std::set<int> only;
  auto add = [&](int b) {
    if (b >= 0 && !generated.count(b))
      only.insert(b);
  };
  for (int b : {c.epiD, c.aPadded, c.dPadded, c.gateD, c.upD})
    add(b);
  for (const auto *fallbacks :
       {&c.biasFallback, &c.auxFallback, &c.transFallback, &c.epiFallback, &c.dualFallback})
    for (const GeneratedLaunch &l : *fallbacks)
      for (int b : l.buffers)
        add(b);
  return {only.begin(), only.end()};
}

MemoryPlan planMemory(const LaunchPlan &plan, int64_t maxM, const std::vector<int64_t> &rowsCap) {
  MemoryPlan mp;
  mp.maxM = maxM;
  mp.slots.resize(plan.buffers.size());
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const bool capped = i < rowsCap.size() && rowsCap[i] >= 0 && rowsCap[i] < maxM;
    mp.slots[i].bytes = plan.buffers[i].bytes(capped ? rowsCap[i] : maxM);
    if (plan.buffers[i].role == BufferRole::State)
      mp.slots[i].bytes += kStateCounterBytes;
  }
  // Live ranges over the per-call steps; load-time steps precede step 0.
  for (size_t s = 0; s < plan.steps.size(); ++s)
    for (int b : buffersOf(plan.steps[s])) {
      BufferSlot &slot = mp.slots[b];
      if (slot.firstStep < 0 || static_cast<int>(s) < slot.firstStep)
        slot.firstStep = static_cast<int>(s);
      slot.lastStep = std::max(slot.lastStep, static_cast<int>(s));
    }
  int lastStep = static_cast<int>(plan.steps.size());
  std::vector<bool> atLoad(plan.buffers.size(), false);
  for (const Step &s : plan.loadSteps)
    for (int b : buffersOf(s))
      atLoad[b] = true;
  std::vector<size_t> arenaBuffers, zeroRegion;
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    BufferRole role = plan.buffers[i].role;
    BufferSlot &slot = mp.slots[i];
    if (role == BufferRole::Input || role == BufferRole::Output || role == BufferRole::Param)
      continue;
    slot.arena = true;
    if (role != BufferRole::Temp) {
      // State and constants persist across calls: live for the whole program.
      slot.firstStep = -1;
      slot.lastStep = lastStep;
    } else if (slot.firstStep < 0) {
      slot.firstStep = slot.lastStep = -1; // unused temp
    } else if (plan.buffers[i].zeroInit && !atLoad[i] && slot.bytes <= kZeroRegionMaxBytes &&
               !(i < rowsCap.size() && rowsCap[i] >= 0)) {
      // Small, touched by per-run steps only and not row-capped: zeroed with the region, so
      // live for the whole run (never sharing bytes).
      slot.zeroRegion = true;
      slot.firstStep = -1;
      slot.lastStep = lastStep;
      zeroRegion.push_back(i);
    }
    mp.naiveBytes += alignUp(slot.bytes);
    if (!slot.zeroRegion)
      arenaBuffers.push_back(i);
  }
  // The zero region first, packed in buffer order; every other buffer is placed around it.
  std::vector<size_t> placed;
  for (size_t i : zeroRegion) {
    mp.slots[i].offset = mp.zeroRegionBytes;
    mp.zeroRegionBytes += alignUp(std::max<int64_t>(mp.slots[i].bytes, 1));
    placed.push_back(i);
  }
  mp.arenaBytes = mp.zeroRegionBytes;
  std::sort(arenaBuffers.begin(), arenaBuffers.end(), [&](size_t a, size_t b) {
    if (mp.slots[a].bytes != mp.slots[b].bytes)
      return mp.slots[a].bytes > mp.slots[b].bytes;
    return a < b;
  });
  for (size_t i : arenaBuffers) {
    BufferSlot &slot = mp.slots[i];
    int64_t need = alignUp(std::max<int64_t>(slot.bytes, 1));
    // Occupied intervals of already placed buffers that are live at the same time.
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (size_t j : placed)
      if (rangesOverlap(slot, mp.slots[j]))
        busy.push_back({mp.slots[j].offset, mp.slots[j].offset + alignUp(std::max<int64_t>(mp.slots[j].bytes, 1))});
    std::sort(busy.begin(), busy.end());
    // Best fit: the smallest gap that holds it, else the end.
    int64_t best = -1, bestGap = INT64_MAX, cursor = 0;
    for (const auto &[lo, hi] : busy) {
      if (lo - cursor >= need && lo - cursor < bestGap) {
        best = cursor;
        bestGap = lo - cursor;
      }
      cursor = std::max(cursor, hi);
    }
    slot.offset = best >= 0 ? best : cursor;
    mp.arenaBytes = std::max(mp.arenaBytes, slot.offset + need);
    placed.push_back(i);
  }
  return mp;
}

} // namespace fp8c
