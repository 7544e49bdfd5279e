// Autotuning of the generated Hopper GEMM on the CPU (runtime/gpu/GemmSm90Autotune.h): the
// candidate set per problem (heuristic first, checked, distinct, the base kernel's fields
// carried through), the M buckets, the cache key, the cache file's text round trip, and the
// disk cache: write, read back in a fresh cache, corrupt / truncated / foreign entries ignored
// (nullopt, counted) and replaced by the next store. No GPU needed.
#include "runtime/gpu/GemmSm90Autotune.h"
#include "runtime/jit/Sha256.h"

#include "unit/support/TempFiles.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace fp8c {
namespace {

namespace fs = std::filesystem;

const fs::path kTempRoot = testfiles::tempRoot("fp8c-autotune");
std::string tempDir(const std::string &name) { return testfiles::tempDir("fp8c-autotune", name); }

Device h200() {
  Device d;
  d.name = "NVIDIA H200";
  d.ccMajor = 9;
  d.ccMinor = 0;
  d.arch = "sm_90a";
  d.smCount = 132;
  return d;
}

GemmSm90Problem problem(int64_t m, int64_t n, int64_t k) {
  GemmSm90Problem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.lda = p.ldb = k;
  p.ldd = n;
  return p;
}

std::vector<std::string> namesOf(const std::vector<GemmSm90Spec> &ks) {
  std::vector<std::string> out;
  for (const GemmSm90Spec &k : ks)
    out.push_back(k.name());
  return out;
}

bool contains(const std::vector<std::string> &v, const std::string &s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

GemmSm90Spec tile(const GemmSm90Spec &base, int bm, int bn, int stages, GemmSchedule s) {
  GemmSm90Spec k = base;
  k.bm = bm;
  k.bn = bn;
  k.stages = stages;
  k.schedule = s;
  k.overlap = !k.promotes();
  k.clusterM = 1;
  return k;
}

void expectValidDistinct(const std::vector<GemmSm90Spec> &ks, const GemmSm90Problem &prob) {
  std::set<std::string> seen;
  for (const GemmSm90Spec &k : ks) {
    EXPECT_TRUE(checkGemmSm90(k, prob).isOk())
        << k.name() << ": " << checkGemmSm90(k, prob).message();
    EXPECT_TRUE(seen.insert(k.name()).second) << "duplicate candidate " << k.name();
  }
}

TEST(GemmSm90AutotuneCandidates, LargeProblemHeuristicFirstThenTheFixedSet) {
  const GemmSm90Spec base;
  const GemmSm90Problem prob = problem(8192, 14336, 4096);
  std::vector<GemmSm90Spec> ks = gemmSm90Candidates(base, prob, h200());
  ASSERT_FALSE(ks.empty());
  EXPECT_EQ(ks[0].name(), chooseGemmSm90Tiles(base, prob, h200()).name());
  std::vector<std::string> names = namesOf(ks);
  const auto coop = GemmSchedule::Cooperative, pp = GemmSchedule::PingPong;
  for (const GemmSm90Spec &want : {tile(base, 128, 256, 4, coop), tile(base, 128, 128, 6, pp),
                                     tile(base, 128, 128, 6, coop), tile(base, 128, 128, 7, pp)})
    EXPECT_TRUE(contains(names, want.name())) << want.name();
  // M > 256: no 64-row tiles.
  for (const GemmSm90Spec &k : ks)
    EXPECT_EQ(k.bm, 128) << k.name();
  EXPECT_LE(ks.size(), 5u); // the heuristic's pick (ping-pong 128x128x6 today) and the four
  expectValidDistinct(ks, prob);
}

TEST(GemmSm90AutotuneCandidates, SmallMTriesSixtyFourRowTiles) {
  const GemmSm90Spec base;
  const GemmSm90Problem decode = problem(16, 14336, 4096);
  std::vector<GemmSm90Spec> ks = gemmSm90Candidates(base, decode, h200());
  ASSERT_FALSE(ks.empty());
  EXPECT_EQ(ks[0].name(), chooseGemmSm90Tiles(base, decode, h200()).name());
  EXPECT_EQ(ks[0].bm, 64);
  for (const GemmSm90Spec &k : ks)
    EXPECT_EQ(k.bm, 64) << "M = 16 tries only 64-row tiles: " << k.name();
  EXPECT_TRUE(contains(namesOf(ks), tile(base, 64, 256, 5, GemmSchedule::Cooperative).name()));
  EXPECT_TRUE(contains(namesOf(ks), tile(base, 64, 128, 8, GemmSchedule::PingPong).name()));
  expectValidDistinct(ks, decode);

  // 64 < M <= 256: both tile heights.
  const GemmSm90Problem mid = problem(200, 4096, 4096);
  std::vector<GemmSm90Spec> both = gemmSm90Candidates(base, mid, h200());
  bool has64 = false, has128 = false;
  for (const GemmSm90Spec &k : both) {
    has64 |= k.bm == 64;
    has128 |= k.bm == 128;
  }
  EXPECT_TRUE(has64 && has128);
  expectValidDistinct(both, mid);
}

TEST(GemmSm90AutotuneCandidates, TensorScalePromotionAlsoTriesTheHalvesTile) {
  // Fast accumulation off with tensor scales: 128 x 192 (the heuristic's) and 128 x 256, whose
  // K blocks are promoted in two 128-column halves; ping-pong never.
  GemmSm90Spec base;
  base.fastAccum = false;
  const GemmSm90Problem prob = problem(8192, 4096, 14336);
  std::vector<GemmSm90Spec> ks = gemmSm90Candidates(base, prob, h200());
  ASSERT_FALSE(ks.empty());
  EXPECT_EQ(ks[0].bn, 192);
  bool halves = false;
  for (const GemmSm90Spec &k : ks) {
    EXPECT_EQ(k.schedule, GemmSchedule::Cooperative) << k.name();
    halves |= k.bm == 128 && k.bn == 256;
  }
  EXPECT_TRUE(halves) << "128 x 256 (promoted in halves) is a candidate";
  expectValidDistinct(ks, prob);
}

TEST(GemmSm90AutotuneCandidates, BlockwisePromotionKeepsCooperativeTilesUpTo192) {
  GemmSm90Spec base;
  base.scaleMode = GemmScaleMode::Block128;
  GemmSm90Problem prob = problem(8192, 14336, 4096);
  prob.ldsa = 8192; // the scale grids' pitches (checkGemmSm90 refuses Block128 without)
  prob.ldsb = 4096 / 128;
  {
    GemmSm90Problem noPitches = problem(8192, 14336, 4096);
    EXPECT_TRUE(gemmSm90Candidates(base, noPitches, h200()).empty())
        << "a candidate that fails checkGemmSm90 for the problem must be left out";
  }
  std::vector<GemmSm90Spec> ks = gemmSm90Candidates(base, prob, h200());
  ASSERT_FALSE(ks.empty());
  bool narrow = false, wide = false;
  for (const GemmSm90Spec &k : ks) {
    EXPECT_EQ(k.schedule, GemmSchedule::Cooperative) << k.name();
    EXPECT_LE(k.bn, 192) << k.name() << ": two accumulator sets";
    narrow |= k.bn == 128;
    wide |= k.bn == 192;
  }
  EXPECT_TRUE(narrow && wide) << "128 x 128 and 128 x 192 are candidates";
  expectValidDistinct(ks, prob);
}

TEST(GemmSm90AutotuneCandidates, BaseFieldsCarryThroughAndSharedMemoryFilters) {
  GemmSm90Spec base;
  base.aType = DType::F8E5M2;
  base.dType = DType::F8E4M3FN;
  base.scaleMode = GemmScaleMode::OuterVector;
  base.biasType = DType::BF16;
  base.activation = Activation::GeluTanh;
  base.amaxD = true;
  const GemmSm90Problem prob = problem(4096, 4096, 4096);
  std::vector<GemmSm90Spec> ks = gemmSm90Candidates(base, prob, h200());
  ASSERT_FALSE(ks.empty());
  for (const GemmSm90Spec &k : ks) {
    EXPECT_EQ(k.aType, DType::F8E5M2);
    EXPECT_EQ(k.dType, DType::F8E4M3FN);
    EXPECT_EQ(k.scaleMode, GemmScaleMode::OuterVector);
    EXPECT_EQ(k.biasType, std::optional<DType>(DType::BF16));
    EXPECT_EQ(k.activation, Activation::GeluTanh);
    EXPECT_TRUE(k.amaxD);
  }
  // Ping-pong 128 x 128 x 7 does not fit with the column buffers of row scales and bias.
  const GemmSm90Spec pp7 = tile(base, 128, 128, 7, GemmSchedule::PingPong);
  ASSERT_FALSE(checkGemmSm90Spec(pp7).isOk());
  EXPECT_FALSE(contains(namesOf(ks), pp7.name()));
  expectValidDistinct(ks, prob);
}

TEST(GemmSm90AutotuneBucket, PowersOfTwo) {
  EXPECT_EQ(gemmSm90TuneBucket(0), 1);
  EXPECT_EQ(gemmSm90TuneBucket(1), 1);
  EXPECT_EQ(gemmSm90TuneBucket(2), 2);
  EXPECT_EQ(gemmSm90TuneBucket(3), 4);
  EXPECT_EQ(gemmSm90TuneBucket(4097), 8192);
  EXPECT_EQ(gemmSm90TuneBucket(8192), 8192);
  EXPECT_EQ(gemmSm90TuneBucket(8193), 16384);
}

TEST(GemmSm90AutotuneKey, NamesWhatTheTimesDependOn) {
  GemmSm90Spec base;
  const Device dev = h200();
  const std::string key = gemmSm90TuneKey(base, dev, problem(8192, 14336, 4096));
  EXPECT_EQ(key.rfind("gemm-sm90-tune v2|fp8c_gemm_sm90_e4m3_e4m3_bf16_tensor_", 0), 0u) << key;
  EXPECT_NE(key.find("|NVIDIA H200|sms=132|m8192|n=14336|k=4096|code="), std::string::npos) << key;
  // Same bucket, same key; the base's own tile fields do not enter it.
  EXPECT_EQ(gemmSm90TuneKey(base, dev, problem(5000, 14336, 4096)), key);
  GemmSm90Spec otherTile = tile(base, 64, 128, 8, GemmSchedule::PingPong);
  EXPECT_EQ(gemmSm90TuneKey(otherTile, dev, problem(8192, 14336, 4096)), key);
  // Everything else does.
  EXPECT_NE(gemmSm90TuneKey(base, dev, problem(4096, 14336, 4096)), key);
  EXPECT_NE(gemmSm90TuneKey(base, dev, problem(8192, 4096, 4096)), key);
  EXPECT_NE(gemmSm90TuneKey(base, dev, problem(8192, 14336, 14336)), key);
  Device fewer = dev;
  fewer.smCount = 114;
  EXPECT_NE(gemmSm90TuneKey(base, fewer, problem(8192, 14336, 4096)), key);
  Device other = dev;
  other.name = "NVIDIA H100 80GB HBM3";
  EXPECT_NE(gemmSm90TuneKey(base, other, problem(8192, 14336, 4096)), key);
  GemmSm90Spec gelu = base;
  gelu.activation = Activation::GeluTanh;
  EXPECT_NE(gemmSm90TuneKey(gelu, dev, problem(8192, 14336, 4096)), key);
}

GemmSm90TuneEntry sampleEntry(const GemmSm90Spec &base, const std::string &key) {
  GemmSm90TuneEntry e;
  e.key = key;
  e.winner = tile(base, 128, 256, 4, GemmSchedule::Cooperative);
  e.winnerUs = 612.25;
  e.heuristicUs = 640.5;
  e.candidates = {{tile(base, 128, 128, 6, GemmSchedule::PingPong).name(), 640.5},
                  {e.winner.name(), 612.25}};
  return e;
}

TEST(GemmSm90AutotuneEntry, TextRoundTrip) {
  GemmSm90Spec base;
  base.biasType = DType::F32;
  base.activation = Activation::Relu;
  GemmSm90TuneEntry e = sampleEntry(base, "k|1");
  e.backends = GemmSm90BackendTimes{130100, 612.25, 640.125};
  const std::string text = gemmSm90TuneEntryText(e);
  Expected<GemmSm90TuneEntry> back = parseGemmSm90TuneEntry(text, base);
  ASSERT_TRUE(back.hasValue()) << back.error();
  EXPECT_EQ(back->key, "k|1");
  EXPECT_EQ(back->winner.name(), e.winner.name());
  EXPECT_EQ(back->winner.biasType, std::optional<DType>(DType::F32));
  EXPECT_EQ(back->winnerUs, 612.25);
  EXPECT_EQ(back->heuristicUs, 640.5);
  ASSERT_EQ(back->candidates.size(), 2u);
  EXPECT_EQ(back->candidates[0].name, e.candidates[0].name);
  EXPECT_EQ(back->candidates[0].us, 640.5);
  ASSERT_TRUE(back->backends.has_value());
  EXPECT_EQ(back->backends->cublasLtVersion, 130100);
  EXPECT_EQ(back->backends->generatedUs, 612.25);
  EXPECT_EQ(back->backends->cublasLtUs, 640.125);
  EXPECT_EQ(back->backends->unfusedUs, 0.0); // not measured: no fourth number
  EXPECT_EQ(text.find("backends 130100 612.25 640.125\n") != std::string::npos, true) << text;
  // A step with an unfused form: its time as the fourth number, read back; a zero or
  // negative one is malformed.
  GemmSm90TuneEntry withUnfused = e;
  withUnfused.backends->unfusedUs = 598.5;
  Expected<GemmSm90TuneEntry> back2 =
      parseGemmSm90TuneEntry(gemmSm90TuneEntryText(withUnfused), base);
  ASSERT_TRUE(back2.hasValue()) << back2.error();
  ASSERT_TRUE(back2->backends.has_value());
  EXPECT_EQ(back2->backends->unfusedUs, 598.5);
  EXPECT_EQ(back2->backends->generatedUs, 612.25);
  {
    std::string body = gemmSm90TuneEntryText(withUnfused);
    body = body.substr(0, body.rfind("sha256 "));
    const size_t at = body.find(" 598.5");
    body.replace(at, 6, " -1");
    const std::string bad = body + "sha256 " + Sha256::hexOf(body) + "\n";
    Expected<GemmSm90TuneEntry> neg = parseGemmSm90TuneEntry(bad, base);
    ASSERT_FALSE(neg.hasValue());
    EXPECT_NE(neg.error().find("bad backends line"), std::string::npos) << neg.error();
  }
  // Read back against another base (the key names the base, so this only happens with a
  // mismatched file): the stored winner name no longer matches, and the entry is refused.
  GemmSm90Spec plain;
  Expected<GemmSm90TuneEntry> wrongBase = parseGemmSm90TuneEntry(text, plain);
  ASSERT_FALSE(wrongBase.hasValue());
  EXPECT_NE(wrongBase.error().find("not the stored winner"), std::string::npos)
      << wrongBase.error();
}

// A winner with the offloaded epilogue (a tuned choice among the candidates of an extra-output
// GEMM) comes back with it, from the text and from the cache's memory: the tile line names
// where the epilogue runs, and the base's own epilogueWarps does not decide it.
TEST(GemmSm90AutotuneEntry, OffloadedEpilogueWinnerRoundTrips) {
  GemmSm90Spec base;
  base.aType = DType::F8E5M2;
  base.dType = DType::F8E5M2;
  base.fastAccum = false;
  base.amaxD = true;
  base.transD = true;
  base.geluGradIn = true;
  base.colSumType = DType::BF16;
  GemmSm90TuneEntry e;
  e.key = "k|ew";
  e.winner = tile(base, 128, 128, 4, GemmSchedule::Cooperative);
  e.winner.epilogueWarps = true;
  ASSERT_TRUE(checkGemmSm90Spec(e.winner).isOk()) << checkGemmSm90Spec(e.winner).message();
  e.winnerUs = e.heuristicUs = 900.0;
  const std::string text = gemmSm90TuneEntryText(e);
  EXPECT_NE(text.find("tile 128 128 4 0 cooperative 1 ew\n"), std::string::npos) << text;
  Expected<GemmSm90TuneEntry> back = parseGemmSm90TuneEntry(text, base);
  ASSERT_TRUE(back.hasValue()) << back.error();
  EXPECT_TRUE(back->winner.epilogueWarps);
  EXPECT_EQ(back->winner.name(), e.winner.name());
  EXPECT_NE(back->winner.name().find("_ew"), std::string::npos);
  // A consumer-epilogue winner applied to a base that has the offloaded epilogue set clears it.
  GemmSm90Spec ewBase = base;
  ewBase.epilogueWarps = true;
  GemmSm90Spec plainTile = tile(base, 128, 128, 5, GemmSchedule::Cooperative);
  EXPECT_FALSE(gemmSm90ApplyTile(ewBase, plainTile).epilogueWarps);
  EXPECT_TRUE(gemmSm90ApplyTile(base, e.winner).epilogueWarps);
  // The old six-field tile line is malformed now.
  std::string body = text.substr(0, text.rfind("sha256 "));
  const size_t t = body.find("tile ");
  body.replace(t, body.find('\n', t) - t, "tile 128 128 4 0 cooperative 1");
  Expected<GemmSm90TuneEntry> old =
      parseGemmSm90TuneEntry(body + "sha256 " + Sha256::hexOf(body) + "\n", base);
  ASSERT_FALSE(old.hasValue());
  EXPECT_NE(old.error().find("bad tile line"), std::string::npos) << old.error();
}

TEST(GemmSm90AutotuneEntry, MalformedTextIsAnError) {
  const GemmSm90Spec base;
  const std::string good = gemmSm90TuneEntryText(sampleEntry(base, "k"));
  // Truncated anywhere: the checksum line is missing or does not match.
  for (size_t cut : {size_t(0), size_t(10), good.size() / 2, good.size() - 10})
    EXPECT_FALSE(parseGemmSm90TuneEntry(good.substr(0, cut), base).hasValue()) << cut;
  // One byte flipped.
  std::string flipped = good;
  flipped[good.find("winner_us") + 11] ^= 1;
  Expected<GemmSm90TuneEntry> f = parseGemmSm90TuneEntry(flipped, base);
  ASSERT_FALSE(f.hasValue());
  EXPECT_NE(f.error().find("checksum"), std::string::npos) << f.error();
  // A consistent checksum over a tile the kernel checks refuse (ping-pong 128 x 256).
  std::string body = good.substr(0, good.rfind("sha256 "));
  const size_t t = body.find("tile ");
  body.replace(t, body.find('\n', t) - t, "tile 128 256 4 1 pingpong 1 consumers");
  const size_t w = body.find("winner ");
  GemmSm90Spec bad = tile(base, 128, 256, 4, GemmSchedule::PingPong);
  body.replace(w, body.find('\n', w) - w, "winner " + bad.name());
  Expected<GemmSm90TuneEntry> b =
      parseGemmSm90TuneEntry(body + "sha256 " + Sha256::hexOf(body) + "\n", base);
  ASSERT_FALSE(b.hasValue());
  EXPECT_NE(b.error().find("ping-pong"), std::string::npos) << b.error();
}

TEST(GemmSm90AutotuneCache, DiskRoundTripInAFreshCache) {
  const std::string dir = tempDir("roundtrip");
  GemmSm90Spec base;
  base.amaxD = true;
  const std::string key = gemmSm90TuneKey(base, h200(), problem(8192, 14336, 4096));
  {
    GemmSm90TuneCache cache(dir);
    EXPECT_FALSE(cache.lookUp(key, base).has_value());
    ASSERT_TRUE(cache.store(sampleEntry(base, key)).isOk());
    std::optional<GemmSm90TuneEntry> mem = cache.lookUp(key, base);
    ASSERT_TRUE(mem.has_value());
    EXPECT_EQ(cache.stats().memoryHits, 1u);
  }
  // The file: next to the kernels, named by the key's hash; no temp file left behind.
  std::vector<std::string> files;
  for (const auto &e : fs::directory_iterator(dir))
    files.push_back(e.path().filename().string());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].rfind("gemm-sm90-tune-", 0), 0u) << files[0];
  GemmSm90TuneCache fresh(dir);
  EXPECT_EQ(fs::path(fresh.pathOf(key)).filename().string(), files[0]);
  std::optional<GemmSm90TuneEntry> e = fresh.lookUp(key, base);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(fresh.stats().diskHits, 1u);
  EXPECT_EQ(e->winner.name(), tile(base, 128, 256, 4, GemmSchedule::Cooperative).name());
  EXPECT_TRUE(e->winner.amaxD);
  EXPECT_EQ(e->winnerUs, 612.25);
  // Now in memory too.
  EXPECT_TRUE(fresh.lookUp(key, base).has_value());
  EXPECT_EQ(fresh.stats().memoryHits, 1u);
}

TEST(GemmSm90AutotuneCache, CorruptEntriesAreIgnoredAndReplaced) {
  const std::string dir = tempDir("corrupt");
  const GemmSm90Spec base;
  const std::string key = gemmSm90TuneKey(base, h200(), problem(4096, 4096, 4096));
  const std::string good = gemmSm90TuneEntryText(sampleEntry(base, key));
  GemmSm90TuneCache writer(dir);
  const std::string path = writer.pathOf(key);
  fs::create_directories(dir);
  const std::vector<std::string> bad = {
      "",                                                       // empty
      "garbage\x01\x02\xff",                                    // not text of ours
      good.substr(0, good.size() / 2),                          // truncated
      gemmSm90TuneEntryText(sampleEntry(base, key + "-other")), // another key's (valid) entry
  };
  uint64_t corrupt = 0;
  for (const std::string &content : bad) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
    GemmSm90TuneCache cache(dir);
    EXPECT_FALSE(cache.lookUp(key, base).has_value()) << "content: " << content.substr(0, 40);
    EXPECT_EQ(cache.stats().corruptEntries, 1u);
    ++corrupt;
  }
  EXPECT_EQ(corrupt, bad.size());
  // A directory where the file should be: unreadable, ignored, and store() reports why.
  fs::remove(path);
  fs::create_directories(path);
  {
    GemmSm90TuneCache cache(dir);
    EXPECT_FALSE(cache.lookUp(key, base).has_value());
    Status st = cache.store(sampleEntry(base, key));
    EXPECT_FALSE(st.isOk());
    EXPECT_NE(st.message().find("cannot write the GEMM tune cache entry"), std::string::npos)
        << st.message();
    EXPECT_TRUE(cache.lookUp(key, base).has_value()) << "the memory entry stands";
  }
  fs::remove_all(path);
  // The next store replaces a corrupt file, and a fresh cache reads it.
  std::ofstream(path, std::ios::binary | std::ios::trunc) << "garbage";
  ASSERT_TRUE(writer.store(sampleEntry(base, key)).isOk());
  GemmSm90TuneCache reader(dir);
  EXPECT_TRUE(reader.lookUp(key, base).has_value());
  EXPECT_EQ(reader.stats().corruptEntries, 0u);
}

} // namespace
} // namespace fp8c
