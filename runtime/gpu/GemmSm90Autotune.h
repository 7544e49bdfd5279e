// Autotuning of the generated Hopper FP8 GEMM (GemmSm90.h) at compile time: a small set of
// candidate tile configs for one problem, timed against each other on the GPU under a sustained
// load (timeGpuCallsSustainedUs: a soak, then rounds of batches of each in turn), the fastest
// kept (the heuristic's config unless another is at least 1 % faster). Winners are cached in memory
// and on disk next to the kernels (a small text file per key in the KernelCache directory), so
// a later compile of the same GEMM reads the winner instead of timing again. The file also
// keeps, where Executable's `auto` backend measured one, the generated-vs-cuBLASLt comparison.
//
// M bucketing: a winner stands for a power-of-two bucket of M, (B/2, B] with B = the smallest
// power of two >= M (gemmSm90TuneBucket); the first M tuned in a bucket decides for it.
// Executable tunes each GEMM step once, at its largest M (CompileOptions::maxTokens) when that
// has at least kGemmSm90TuneMinRows rows, and runs the winner for every M in that bucket; a
// smaller M keeps chooseGemmSm90Tiles' pick (for backend auto, a step below that size is still
// timed against cuBLASLt, with that pick, under the key's "|untuned" form). All tuning happens in compile(): run() only looks
// the choice up, so it stays capturable in a CUDA graph.
//
// Host-only pieces (candidates, key, cache) need no GPU and are unit-tested on the CPU.
#pragma once

#include "ir/Status.h"
#include "runtime/gpu/GemmSm90.h"

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace fp8c {

/// Steps with fewer rows than this at their largest M are not tuned (Executable): a handful of
/// tiles, launch-bound, where the heuristic's measured choices stand (docs/gemm.md).
constexpr int64_t kGemmSm90TuneMinRows = 256;

/// The bucket of M: the smallest power of two >= max(m, 1).
int64_t gemmSm90TuneBucket(int64_t m);

/// The candidates for `prob` on `dev`, the heuristic's pick (chooseGemmSm90Tiles) first, then
/// (each a copy of it with only the tile fields changed, so every other field of `base`
/// carries through): for M > 64 cooperative 128x256x4, ping-pong 128x128x6, cooperative
/// 128x128x6, ping-pong 128x128x7; for M <= 256 also cooperative 64x128x8, cooperative
/// 64x256x5 and ping-pong 64x128x8; with the 1x128-block cast for M > 64 also cooperative
/// 128x128x5 and 64x256x5 (with a side launch, each with as many stages as fit beside its
/// shared memory, at least 3). Only configs that checkGemmSm90 accepts for `prob`
/// (promotion: cooperative, bn up to 192, also 128x192x4), distinct by name.
std::vector<GemmSm90Spec> gemmSm90Candidates(const GemmSm90Spec &base,
                                               const GemmSm90Problem &prob, const Device &dev);

/// The cache key: "gemm-sm90-tune v2|<base kernel name, tile fields normalized>|<device name>|
/// sms=<SM count>|m<bucket>|n=<N>|k=<K>|code=<hash of fp8c's version and the embedded kernel
/// headers>" (the code hash makes an edited kernel template re-tune).
std::string gemmSm90TuneKey(const GemmSm90Spec &base, const Device &dev,
                            const GemmSm90Problem &prob);

/// One candidate's median time.
struct GemmSm90CandidateTime {
  std::string name; ///< GemmSm90Spec::name()
  double us = 0;    ///< microseconds per call
};

/// A generated-vs-cuBLASLt measurement of one GEMM (Executable's auto backend), side by side.
struct GemmSm90BackendTimes {
  int64_t cublasLtVersion = 0; ///< cublasLtGetVersion() of the measurement
  double generatedUs = 0;      ///< the winner
  double cublasLtUs = 0;
  /// A step whose fused epilogue has an unfused form (GemmSm90Step.h's unfusedGemmOf): the
  /// generated GEMM writing the plain result plus the launches after it; 0 where not measured.
  double unfusedUs = 0;
};

/// A cache entry: the winner and what was measured.
struct GemmSm90TuneEntry {
  std::string key;
  /// The winner's tile fields (bm, bn, stages, overlap, schedule, clusterM, epilogueWarps) and
  /// name; applied to a copy of the base kernel when read back (gemmSm90ApplyTile).
  GemmSm90Spec winner;
  double winnerUs = 0;
  double heuristicUs = 0; ///< the heuristic's pick (0 where it does not take the problem)
  std::vector<GemmSm90CandidateTime> candidates; ///< every candidate timed, in order
  std::optional<GemmSm90BackendTimes> backends;
};

/// `base` with `tile`'s tile fields (bm, bn, stages, overlap, schedule, clusterM, and
/// epilogueWarps: where the extra-output epilogue runs is tuned too).
GemmSm90Spec gemmSm90ApplyTile(const GemmSm90Spec &base, const GemmSm90Spec &tile);

/// The text a cache file holds for `e`, and its parse: an error for anything malformed,
/// truncated (the last line is a SHA-256 of the rest), or a winner whose tile fields, applied
/// to `base`, do not give the stored name or fail checkGemmSm90Spec.
std::string gemmSm90TuneEntryText(const GemmSm90TuneEntry &e);
Expected<GemmSm90TuneEntry> parseGemmSm90TuneEntry(const std::string &text,
                                                   const GemmSm90Spec &base);

/// What a tune cache did since it was made (corrupt entries are counted and re-tuned).
struct GemmSm90TuneCacheStats {
  uint64_t memoryHits = 0, diskHits = 0, misses = 0, corruptEntries = 0, writes = 0;
};

/// Winners in memory and on disk: <dir>/gemm-sm90-tune-<first 32 hex of SHA-256(key)>.txt,
/// written to a temp file and renamed. Thread-safe.
class GemmSm90TuneCache {
public:
  /// The process-wide cache in KernelCache::global().dir().
  static GemmSm90TuneCache &global();
  explicit GemmSm90TuneCache(std::string dir);

  /// The entry of `key` (memory, then disk); nullopt when absent, unreadable or corrupt (the
  /// caller re-tunes and store() replaces the file). `base` is what the winner applies to.
  std::optional<GemmSm90TuneEntry> lookUp(const std::string &key, const GemmSm90Spec &base);
  /// Keeps `e` in memory, and on disk (an error when the file cannot be written; the memory
  /// entry stands either way).
  Status store(const GemmSm90TuneEntry &e);
  std::string pathOf(const std::string &key) const;
  const std::string &dir() const { return dir_; }
  void clearMemory();
  GemmSm90TuneCacheStats stats() const;

private:
  std::string dir_;
  mutable std::mutex mu_;
  std::map<std::string, GemmSm90TuneEntry> memory_;
  GemmSm90TuneCacheStats stats_;
};

/// How autotuning times its candidates against each other: at the clock a sustained load runs
/// at, not at the boost clock of a short burst. After one untimed call each, the first call
/// runs back to back for `soakMs`; then `rounds` rounds time a batch of about `batchUs` of
/// each call in turn, with no host synchronization in between, and each call's time is its
/// median per-call time over the rounds. (On an H200 at its 700 W cap, a training step ran its
/// GEMMs 12-20 % slower than alone, and the tile config that won short bursts by 1 % took 13 %
/// longer in the step.)
struct GemmSm90SustainedTiming {
  double soakMs = 150;
  double batchUs = 1500;
  int rounds = 7;
};

/// Median microseconds per call of each of `calls` (see GemmSm90SustainedTiming); calls from
/// several threads of a process are serialized, so none times against another's load (a call
/// may time in turn, on the same thread: it does so inside its untimed first call). An
/// error when
/// a call fails, a CUDA call fails, `rounds` is below 1, or `stream` is being captured into a
/// CUDA graph.
Expected<std::vector<double>>
timeGpuCallsSustainedUs(const std::vector<std::function<Status()>> &calls, CUstream stream,
                        const GemmSm90SustainedTiming &opts = {});

/// The outcome of autotuneGemmSm90.
struct GemmSm90TuneResult {
  GemmSm90Spec winner;       ///< a copy of `base` with the winning tile fields
  GemmSm90TuneEntry entry;     ///< what the cache holds (every candidate's time)
  bool fromCache = false;      ///< read back (memory or disk): nothing was timed
  std::string cacheWriteError; ///< set when the entry could not be written to disk
  double jitSeconds = 0;       ///< spent compiling or loading candidates (KernelCache lookups)
  int coldCompiles = 0;        ///< candidates NVRTC compiled (not found in the kernel cache)
};

/// Tunes `base` (dtypes and epilogue, e.g. from gemmSm90KernelOf; its tile fields are
/// ignored) for `prob`, or reads the winner of gemmSm90TuneKey from `cache`. The candidates are
/// timed against each other with timeGpuCallsSustainedUs(`timing`). `p` points at
/// operands the candidates may read and write (scratch: D and amaxD are overwritten, scales
/// should hold finite values). Every candidate is compiled (runner.prepare) before it is timed;
/// a candidate that fails to compile or run is an error naming it. Not while `stream` is being
/// captured.
Expected<GemmSm90TuneResult>
autotuneGemmSm90(GemmSm90Runner &runner, const GemmSm90Spec &base, const GemmSm90Problem &prob,
                 const GemmSm90Pointers &p, CUstream stream,
                 GemmSm90TuneCache &cache = GemmSm90TuneCache::global(),
                 const GemmSm90SustainedTiming &timing = {});

} // namespace fp8c
