// fp8c-quant-bw: bandwidth of fp8c's fused amax + scale + cast kernels (bf16 -> e4m3, every
// granularity) against a device-to-device copy measured in the same run. Bytes counted: each
// input read once, each output written once (2 bytes in, 1 byte out per element, plus scales);
// the copy moves 2 x its size. Input sets rotate across three buffers larger than L2 where the
// tensor is small, so repeated runs do not measure the cache. CUDA events, 5 warm-up runs
// excluded, median of 50. A tensorwise cast whose input does not fit in L2 must read it twice
// (amax, grid barrier, cast): its "DRAM GB/s" column counts that second read.
// `fp8c-quant-bw --sweep` also runs every case under other elementwise tunings (chunk size,
// unroll, tile passes) to pick codegen's defaults.
#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "runtime/DeviceTensorIO.h"
#include "driver/Compile.h"
#include "interp/RandomInputs.h"
#include "runtime/cuda/CudaDriver.h"
#include "runtime/cuda/CudaEvents.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <functional>

using namespace fp8c;

namespace {

// Median milliseconds of `work(i)` over 50 runs after 5 warm-up runs, each between two events.
Expected<double> medianMs(CudaDriver *drv, const std::function<Status(int)> &work) {
  Expected<CudaEvents> ev = CudaEvents::create(drv, 2);
  if (!ev)
    return Error(ev.error());
  for (int i = 0; i < 5; ++i)
    if (Status st = work(i); !st)
      return Error(st.message());
  std::vector<float> t;
  for (int i = 0; i < 50; ++i) {
    FP8C_CU_TRY(drv, cuEventRecord, (*ev)[0], nullptr);
    if (Status st = work(i); !st)
      return Error(st.message());
    FP8C_CU_TRY(drv, cuEventRecord, (*ev)[1], nullptr);
    FP8C_CU_TRY(drv, cuEventSynchronize, (*ev)[1]);
    Expected<float> ms = ev->elapsedMs(0, 1);
    if (!ms)
      return Error(ms.error());
    t.push_back(*ms);
  }
  std::sort(t.begin(), t.end());
  return double(t[t.size() / 2]);
}

DeviceBuffer mustAllocate(size_t bytes) {
  Expected<DeviceBuffer> b = DeviceBuffer::allocate(bytes);
  if (!b) {
    std::fprintf(stderr, "fp8c-quant-bw: %s\n", b.error().c_str());
    std::exit(1);
  }
  return b.take();
}

DeviceBuffer mustUpload(const HostTensor &h) {
  Expected<DeviceBuffer> b = uploadTensor(h);
  if (!b) {
    std::fprintf(stderr, "fp8c-quant-bw: %s\n", b.error().c_str());
    std::exit(1);
  }
  return b.take();
}

struct Case {
  const char *gran;
  int64_t m, k;
};

int64_t scaleElemsOf(const Case &c) {
  const std::string g = c.gran;
  const int64_t scaleRows = g == "block_128x128" ? (c.m + 127) / 128 : c.m;
  return g == "tensor" ? 1 : g == "row" ? c.m : scaleRows * ((c.k + 127) / 128);
}

// Median time of one amax + scale + cast launch set of case `c` under tuning `t`.
Expected<double> measureCase(CudaDriver *drv, const Device &dev, const Case &c,
                             const ElementwiseTuning &t) {
  std::string g = c.gran;
  std::string st = g == "tensor" ? "tensor<f32>"
                   : g == "row"  ? "tensor<?xf32>"
                                 : fmt::format("tensor<?x{}xf32>", (c.k + 127) / 128);
  std::string text = fmt::format(R"(
func.func @q(%x: tensor<?x{k}xbf16>) -> ({st}, tensor<?x{k}xf8E4M3FN>) {{
  %a = fp8.amax %x {{granularity = "{g}"}} : (tensor<?x{k}xbf16>) -> {st}
  %s = fp8.scale %a {{dtype = f8E4M3FN}} : ({st}) -> {st}
  %q = fp8.cast %x, %s {{granularity = "{g}"}} : (tensor<?x{k}xbf16>, {st}) -> tensor<?x{k}xf8E4M3FN>
  return %s, %q : {st}, tensor<?x{k}xf8E4M3FN>
}}
)",
                                 fmt::arg("k", c.k), fmt::arg("g", g), fmt::arg("st", st));
  DiagnosticEngine diag;
  std::unique_ptr<Module> mod = parseModule(text, "<bench>", diag);
  if (!mod || !verifyModule(*mod, diag))
    return Error(diag.str());
  CompileOptions o;
  o.passes = "shape-infer,fuse,dce";
  o.load.maxTokens = c.m;
  o.tuning = t;
  Expected<std::unique_ptr<Executable>> exe = compile(*mod->graphs()[0], o);
  if (!exe)
    return Error("compile failed: " + exe.error());
  // Input sets rotated so that together they exceed L2, random bf16 (never zero).
  const int64_t elems = c.m * c.k;
  HostTensor h = randomTensor({c.m, c.k}, DType::BF16, 3, 2.0);
  for (float &v : h.data)
    if (v == 0)
      v = 0.5f;
  std::vector<DeviceBuffer> xs;
  const int sets = elems * 2 < 3 * dev.l2Bytes ? 3 : 1;
  for (int i = 0; i < sets; ++i)
    xs.push_back(mustUpload(h));
  const int64_t scaleRows = g == "block_128x128" ? (c.m + 127) / 128 : c.m;
  DeviceBuffer q = mustAllocate(elems), s = mustAllocate(scaleElemsOf(c) * 4);
  std::vector<Bindings> bs(sets);
  for (int i = 0; i < sets; ++i) {
    std::vector<int64_t> sshape = g == "tensor" ? std::vector<int64_t>{}
                                  : g == "row"  ? std::vector<int64_t>{c.m}
                                                : std::vector<int64_t>{scaleRows, (c.k + 127) / 128};
    bs[i] = {{"x", {xs[i].data(), {c.m, c.k}, DType::BF16}},
             {"q", {q.data(), {c.m, c.k}, DType::F8E4M3FN}},
             {"s", {s.data(), sshape, DType::F32}}};
  }
  Expected<double> ms = medianMs(drv, [&](int i) { return (*exe)->run(bs[i % sets], nullptr); });
  if (!ms)
    return Error("run failed: " + ms.error());
  return *ms;
}

} // namespace

int main(int argc, char **argv) {
  const bool sweep = argc > 1 && std::string(argv[1]) == "--sweep";
  Expected<CudaDriver *> drvOr = CudaDriver::get();
  if (!drvOr) {
    std::fprintf(stderr, "fp8c-quant-bw: %s\n", drvOr.error().c_str());
    return 1;
  }
  CudaDriver *drv = *drvOr;
  if (Status st = drv->makeCurrent(0); !st) {
    std::fprintf(stderr, "fp8c-quant-bw: %s\n", st.message().c_str());
    return 1;
  }
  Device dev = *drv->device(0);
  std::printf("device: %s\n", dev.str().c_str());

  // Copy bandwidth: 1 GiB device to device.
  const size_t copyBytes = size_t(1) << 30;
  DeviceBuffer src = mustAllocate(copyBytes), dst = mustAllocate(copyBytes);
  Expected<double> copyMs = medianMs(drv, [&](int) -> Status {
    FP8C_CU_TRY(drv, cuMemcpyDtoDAsync, dst.ptr(), src.ptr(), copyBytes, nullptr);
    return Status::ok();
  });
  if (!copyMs) {
    std::fprintf(stderr, "fp8c-quant-bw: the copy: %s\n", copyMs.error().c_str());
    return 1;
  }
  double copyGBs = 2.0 * copyBytes / (*copyMs * 1e-3) / 1e9;
  std::printf("device-to-device copy: %.0f GB/s (read + write, 1 GiB)\n\n", copyGBs);
  std::printf("%-14s %-12s %-30s %10s %10s %8s %10s %8s\n", "granularity", "shape", "tuning",
              "time (us)", "GB/s", "vs copy", "DRAM GB/s", "vs copy");

  const Case cases[] = {{"tensor", 8192, 8192},      {"tensor", 4096, 4096},
                        {"tensor", 16384, 14336},    {"row", 8192, 8192},
                        {"row", 8192, 4096},         {"block_1x128", 8192, 8192},
                        {"block_1x128", 8192, 4096}, {"block_128x128", 8192, 8192},
                        {"block_128x128", 14336, 4096}};
  // --sweep: every case under each elementwise tuning below as well as the default; the
  // default's row is marked. What the defaults in codegen/EmitLaunch.cpp were chosen from.
  std::vector<ElementwiseTuning> variants{ElementwiseTuning{}};
  if (sweep)
    for (int chunk : {8, 16, 32})
      for (int unroll : {1, 2, 4})
        variants.push_back(ElementwiseTuning{chunk, unroll, -1});
  if (sweep)
    for (int two : {0, 1})
      variants.push_back(ElementwiseTuning{0, 0, two});
  int failures = 0;
  for (const Case &c : cases) {
    for (const ElementwiseTuning &t : variants) {
      const bool tiles = std::string(c.gran) == "block_128x128";
      if (!t.isDefault() && (tiles != (t.tileTwoPass >= 0)))
        continue; // row knobs do not apply to tile launches and the reverse
      Expected<double> ms = measureCase(drv, dev, c, t);
      const std::string label = t.isDefault() ? "default" : t.str();
      if (!ms) {
        std::printf("%-14s %-12s %s: %s\n", c.gran, label.c_str(), "failed", ms.error().c_str());
        ++failures;
        continue;
      }
      const double elems = double(c.m) * c.k;
      const double bytes = 3.0 * elems + 4.0 * scaleElemsOf(c);
      const double gbs = bytes / (*ms * 1e-3) / 1e9;
      // DRAM traffic of a tensorwise cast that cannot keep its input in L2: two reads.
      const bool twoReads = std::string(c.gran) == "tensor" && 2.0 * elems > 0.8 * dev.l2Bytes;
      const double dramGbs = twoReads ? (5.0 * elems) / (*ms * 1e-3) / 1e9 : gbs;
      std::printf("%-14s %-12s %-30s %10.1f %10.0f %7.1f%% %10.0f %7.1f%%\n", c.gran,
                  fmt::format("{}x{}", c.m, c.k).c_str(), label.c_str(), *ms * 1e3, gbs,
                  100.0 * gbs / copyGBs, dramGbs, 100.0 * dramGbs / copyGBs);
    }
  }
  return failures ? 1 : 0;
}
