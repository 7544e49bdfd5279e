// The sustained timing of the benches (bench/SustainedTiming.h) and its NVML power monitor
// (bench/PowerMonitor.h) on the GPU: a block of memset steps keeps its last two thirds, times
// them like back-to-back events do, and (with NVML) gives an energy per step and a power that a
// board can draw. Skips without a GPU.
#include "bench/BenchDevice.h"
#include "bench/DeviceFill.h"
#include "bench/SustainedTiming.h"

#include <gtest/gtest.h>

namespace fp8c::bench {
namespace {

TEST(SustainedTimingGpu, KeepsTheLastTwoThirdsAndMeasuresEnergy) {
  Expected<CudaDriver *> d = CudaDriver::get();
  if (!d)
    GTEST_SKIP() << "needs a GPU: " << d.error();
  Expected<BenchDevice> bd = openBenchDevice();
  ASSERT_TRUE(bd) << bd.error();
  const size_t bytes = size_t(1) << 30;
  Expected<DeviceBuffer> buf = allocateFor(bytes, "memset target");
  ASSERT_TRUE(buf) << buf.error();
  int calls = 0;
  RunFn step = [&](int) -> Status {
    ++calls;
    FP8C_CU_TRY(bd->drv, cuMemsetD8Async, CUdeviceptr(buf->data()), uint8_t(calls), bytes,
                bd->stream);
    return Status::ok();
  };
  Expected<std::unique_ptr<PowerMonitor>> monitor = PowerMonitor::open(bd->drv, bd->dev.ordinal);
  if (!monitor)
    std::printf("NVML not there (%s): times only\n", monitor.error().c_str());
  // 1 GiB written per step: a few hundred microseconds on a current board.
  SustainedOptions so;
  so.blockMs = 400;
  Expected<SustainedBlock> b =
      timeSustained(bd->drv, bd->stream, step, 300.0, so, monitor ? monitor->get() : nullptr);
  ASSERT_TRUE(b) << b.error();
  EXPECT_EQ(calls, b->steps);
  EXPECT_EQ(b->kept.reps, b->steps - b->steps / 3);
  EXPECT_GT(b->kept.medianUs, 0);
  EXPECT_LE(b->kept.p10Us, b->kept.medianUs);
  // Write bandwidth implied by the median: under 20 TB/s (no board writes faster) and above
  // 0.1 TB/s.
  const double tbs = double(bytes) / (b->kept.medianUs * 1e-6) / 1e12;
  EXPECT_LT(tbs, 20.0);
  EXPECT_GT(tbs, 0.1);
  std::printf("%d steps, median %.1f us (%.2f TB/s)", b->steps, b->kept.medianUs, tbs);
  if (monitor) {
    EXPECT_GT(b->joulesPerStep, 0);
    EXPECT_GT(b->meanWatts, 20.0);
    EXPECT_LT(b->meanWatts, 2000.0);
    EXPECT_GT(b->samples, 0);
    EXPECT_GT(b->sampledSmMhz, 100.0);
    std::printf(", %.4f J/step, %.0f W, SM %.0f MHz over %d samples", b->joulesPerStep,
                b->meanWatts, b->sampledSmMhz, b->samples);
  }
  std::printf("\n");
}

} // namespace
} // namespace fp8c::bench
