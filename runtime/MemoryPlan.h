// The memory plan: device bytes for a LaunchPlan, decided at compile time so that
// Executable::run allocates nothing. Temporaries whose live ranges (first to last step that
// touches them) do not overlap share bytes; everything is sized for the largest M the
// executable accepts (CompileOptions::maxTokens). Parameters, state and constants get their
// own persistent slots; inputs and outputs are the caller's. The small temps a run needs zeroed
// (zeroInit: atomic amaxes, column-sum counters) sit together at the arena's start, so that a
// run zeroes them with one memset instead of one per buffer.
#pragma once

#include "codegen/LaunchPlan.h"

#include <cstdint>
#include <vector>

namespace fp8c {

struct BufferSlot {
  bool arena = false;   ///< lives in the arena at `offset` (temps, state, constants)
  int64_t offset = 0;   ///< bytes from the arena start (256-byte aligned)
  int64_t bytes = 0;    ///< at maxM (State: and kStateCounterBytes after the buffer's)
  int firstStep = -1;   ///< live range over LaunchPlan::steps (load steps count as -1)
  int lastStep = -1;
  bool zeroRegion = false; ///< in [0, MemoryPlan::zeroRegionBytes): zeroed once at a run's start
};

struct MemoryPlan {
  std::vector<BufferSlot> slots; ///< one per LaunchPlan::buffers entry
  int64_t arenaBytes = 0;
  int64_t naiveBytes = 0;        ///< what one allocation per temp would take
  int64_t maxM = 0;
  /// Bytes at the arena's start holding the zeroRegion slots (one memset per run zeroes them).
  int64_t zeroRegionBytes = 0;
};

/// Bytes every State slot holds after its buffer's bytes: a history pushed in place keeps there,
/// as a u32, the count of non-finite amaxes its pushes skipped (codegen/kernels/common.cuh,
/// historySkipCounter; Executable::nonFiniteReport). Zeroed with the state (resetState).
constexpr int64_t kStateCounterBytes = 16;

/// The largest zeroInit temp (bytes at maxM) that goes into the zero region; a larger one (a
/// padded FP8 operand with zero pad columns) keeps its own memset before its first step and
/// shares bytes by its live range.
constexpr int64_t kZeroRegionMaxBytes = int64_t(1) << 20;

/// The buffers only a GEMM step's cuBLASLt form touches: its results for the launches that
/// finish the epilogue (epiD, gateD, upD), its padded copies and its fallback launches' buffers,
/// less every buffer the generated GEMM reads or writes.
std::vector<int> cublasOnlyBuffersOf(const GemmStep &g);

/// Plans the arena for M up to `maxM`. Where `rowsCap[i] >= 0`, buffer i is sized for M up to
/// rowsCap[i] instead: the executable touches it at no larger M (see Executable.cpp).
MemoryPlan planMemory(const LaunchPlan &plan, int64_t maxM,
                      const std::vector<int64_t> &rowsCap = {});

} // namespace fp8c
