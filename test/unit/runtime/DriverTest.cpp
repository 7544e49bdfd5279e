// The CUDA driver layer (runtime/cuda/): without a driver, CudaDriver::get() returns the clear
// error and nothing else breaks; with one, it returns a device, and a kernel compiled by NVRTC
// is loaded, launched (directly and replayed from a CUDA graph) and checked. Which branch runs
// is decided by whether libcuda.so.1 can be dlopened here, not by the test's own build.
#include "runtime/cuda/CudaDriver.h"
#include "runtime/cuda/DeviceBuffer.h"
#include "runtime/cuda/LoadedModules.h"
#include "runtime/jit/KernelCache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include <dlfcn.h>
#include <unistd.h>

namespace fp8c {
namespace {

bool libcudaLoads() {
  void *h = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h)
    ::dlclose(h);
  return h != nullptr;
}

TEST(Driver, ArchForComputeCapability) {
  EXPECT_EQ(archForComputeCapability(9, 0), "sm_90a");
  EXPECT_EQ(archForComputeCapability(8, 9), "sm_89");
  EXPECT_EQ(archForComputeCapability(8, 0), "sm_80");
  EXPECT_EQ(archForComputeCapability(10, 0), "sm_100a");
  EXPECT_EQ(archForComputeCapability(10, 3), "sm_103a");
  EXPECT_EQ(archForComputeCapability(12, 0), "sm_120a");
}

TEST(Driver, MissingLibraryIsAClearError) {
  auto d = CudaDriver::open("libfp8c-no-such-driver.so.1");
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().find("no CUDA driver: libfp8c-no-such-driver.so.1 not found ("),
            std::string::npos)
      << d.error();
  EXPECT_NE(d.error().find("GPU paths need an NVIDIA driver; CPU paths (--run=cpu) are "
                           "unaffected"),
            std::string::npos)
      << d.error();
}

TEST(Driver, GetReportsTheDriverOrItsAbsence) {
  Expected<CudaDriver *> drv = CudaDriver::get();
  if (!libcudaLoads()) {
    ASSERT_FALSE(drv) << "no libcuda.so.1 here, yet the driver loaded";
    EXPECT_EQ(drv.error().rfind("no CUDA driver: libcuda.so.1 not found (", 0), 0u) << drv.error();
    EXPECT_NE(drv.error().find("CPU paths (--run=cpu) are unaffected"), std::string::npos);
    // The failure is remembered, not retried with a different answer.
    EXPECT_EQ(CudaDriver::get().error(), drv.error());
    std::printf("[ DRIVER   ] %s\n", drv.error().c_str());
    return;
  }
  if (!drv) {
    // A driver without a usable GPU (a container without the device nodes, say).
    EXPECT_NE(drv.error().find("no CUDA device"), std::string::npos) << drv.error();
    GTEST_SKIP() << "libcuda.so.1 loads but: " << drv.error();
  }
  ASSERT_GT((*drv)->deviceCount(), 0);
  Expected<Device> dev = (*drv)->device(0);
  ASSERT_TRUE(dev) << dev.error();
  EXPECT_FALSE(dev->name.empty());
  EXPECT_GT(dev->smCount, 0);
  EXPECT_GT(dev->l2Bytes, 0);
  EXPECT_GT(dev->maxSharedPerBlockOptin, 48 * 1024 - 1);
  EXPECT_EQ(dev->arch, archForComputeCapability(dev->ccMajor, dev->ccMinor));
  EXPECT_GT(dev->driverVersion, 0);
  std::printf("[ DRIVER   ] %s\n", dev->str().c_str());
  EXPECT_FALSE((*drv)->device((*drv)->deviceCount()));
}

TEST(Driver, CheckCuNamesTheCallAndTheError) {
  EXPECT_TRUE(checkCu(CUDA_SUCCESS, "cuInit"));
  Status s = checkCu(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel", "kernel k");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message().rfind("cuLaunchKernel failed: ", 0), 0u) << s.message();
  EXPECT_NE(s.message().find("[kernel k]"), std::string::npos) << s.message();
  if (CudaDriver::get()) {
    EXPECT_NE(s.message().find("CUDA_ERROR_INVALID_VALUE"), std::string::npos) << s.message();
  }
}

TEST(Driver, GpuPathsFailCleanlyWithoutADriver) {
  if (CudaDriver::get())
    GTEST_SKIP() << "a driver is present";
  auto buf = DeviceBuffer::allocate(1024);
  ASSERT_FALSE(buf);
  EXPECT_NE(buf.error().find("no CUDA driver"), std::string::npos) << buf.error();
  CachedKernel k;
  auto f = LoadedModules::global().function(k, "entry");
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().find("no CUDA driver"), std::string::npos) << f.error();
}

// --- on a GPU ------------------------------------------------------------------------------

class DriverGpu : public testing::Test {
protected:
  void SetUp() override {
    Expected<CudaDriver *> d = CudaDriver::get();
    if (!d)
      GTEST_SKIP() << "needs a GPU: " << d.error();
    drv = *d;
    ASSERT_TRUE(drv->makeCurrent(0));
    Expected<Device> dv = drv->device(0);
    ASSERT_TRUE(dv) << dv.error();
    dev = *dv;
  }
  CudaDriver *drv = nullptr;
  Device dev;
};

const char *kAxpy = R"(
extern "C" __global__ void fp8c_driver_axpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] += a * x[i];
}
)";

TEST_F(DriverGpu, CompileLoadLaunchAndGraphReplay) {
  NvrtcRequest req;
  req.kernelName = "fp8c_driver_axpy";
  req.source = kAxpy;
  req.arch = dev.arch;
  const std::string dir = testing::TempDir() + "fp8c-driver-" + std::to_string(::getpid());
  KernelCache cache(dir);
  auto kernel = cache.get(req);
  ASSERT_TRUE(kernel) << kernel.error();
  auto f = LoadedModules::global().function(**kernel, "fp8c_driver_axpy");
  ASSERT_TRUE(f) << f.error();
  auto again = LoadedModules::global().function(**kernel, "fp8c_driver_axpy");
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, *f) << "loaded once";
  auto missing = LoadedModules::global().function(**kernel, "no_such_entry");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("cuModuleGetFunction failed"), std::string::npos);

  const int n = 1000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i);
    y[i] = 1.0f;
  }
  auto dx = DeviceBuffer::allocate(n * sizeof(float));
  auto dy = DeviceBuffer::allocate(n * sizeof(float));
  ASSERT_TRUE(dx && dy);
  ASSERT_TRUE(dx->upload(x.data(), n * sizeof(float)));
  ASSERT_TRUE(dy->upload(y.data(), n * sizeof(float)));
  CUstream stream = nullptr;
  ASSERT_TRUE(checkCu(drv->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"));
  CUdeviceptr py = dy->ptr(), px = dx->ptr();
  float a = 2.0f;
  int count = n;
  void *args[] = {&py, &px, &a, &count};
  ASSERT_TRUE(drv->launch(*f, (n + 255) / 256, 256, 0, stream, args, false, "axpy"));

  // The same launch captured into a graph and replayed twice.
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  ASSERT_TRUE(checkCu(drv->cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                      "cuStreamBeginCapture"));
  ASSERT_TRUE(drv->launch(*f, (n + 255) / 256, 256, 0, stream, args, false, "axpy"));
  ASSERT_TRUE(checkCu(drv->cuStreamEndCapture(stream, &graph), "cuStreamEndCapture"));
  ASSERT_TRUE(checkCu(drv->cuGraphInstantiateWithFlags(&exec, graph, 0), "cuGraphInstantiate"));
  CUevent start, stop;
  ASSERT_TRUE(checkCu(drv->cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate"));
  ASSERT_TRUE(checkCu(drv->cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate"));
  ASSERT_TRUE(checkCu(drv->cuEventRecord(start, stream), "cuEventRecord"));
  ASSERT_TRUE(checkCu(drv->cuGraphLaunch(exec, stream), "cuGraphLaunch"));
  ASSERT_TRUE(checkCu(drv->cuGraphLaunch(exec, stream), "cuGraphLaunch"));
  ASSERT_TRUE(checkCu(drv->cuEventRecord(stop, stream), "cuEventRecord"));
  ASSERT_TRUE(checkCu(drv->cuStreamSynchronize(stream), "cuStreamSynchronize"));
  float ms = -1;
  ASSERT_TRUE(checkCu(drv->cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime"));
  EXPECT_GE(ms, 0.0f);
  ASSERT_TRUE(dy->download(y.data(), n * sizeof(float)));
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(y[i], 1.0f + 3 * 2.0f * float(i)) << i; // three launches of y += 2x
  drv->cuEventDestroy(start);
  drv->cuEventDestroy(stop);
  drv->cuGraphExecDestroy(exec);
  drv->cuGraphDestroy(graph);
  drv->cuStreamDestroy(stream);

  std::filesystem::remove_all(dir);
  auto blocks = maxActiveBlocksPerSM(*f, 256, 0);
  ASSERT_TRUE(blocks) << blocks.error();
  EXPECT_GT(*blocks, 0);
  EXPECT_TRUE(setMaxDynamicSharedBytes(*f, 64 * 1024, "axpy"));
}

TEST_F(DriverGpu, LaunchErrorsNameTheKernel) {
  NvrtcRequest req;
  req.kernelName = "fp8c_driver_axpy";
  req.source = kAxpy;
  req.arch = dev.arch;
  const std::string dir = testing::TempDir() + "fp8c-driver-err-" + std::to_string(::getpid());
  auto kernel = KernelCache(dir).get(req);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(kernel) << kernel.error();
  auto f = LoadedModules::global().function(**kernel, "fp8c_driver_axpy");
  ASSERT_TRUE(f) << f.error();
  Status s = drv->launch(*f, 1, 4096, 0, nullptr, nullptr, false, "axpy");
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("axpy grid 1 block 4096"), std::string::npos) << s.message();
}

TEST_F(DriverGpu, WrongArchCubinIsAClearError) {
  NvrtcRequest req;
  req.kernelName = "fp8c_driver_wrong_arch";
  req.source = kAxpy;
  req.arch = dev.arch == "sm_89" ? "sm_90a" : "sm_89";
  const std::string dir = testing::TempDir() + "fp8c-driver-arch-" + std::to_string(::getpid());
  auto kernel = KernelCache(dir).get(req);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(kernel) << kernel.error();
  auto f = LoadedModules::global().function(**kernel, "fp8c_driver_axpy");
  if (f)
    GTEST_SKIP() << "the driver ran a " << req.arch << " CUBIN on " << dev.arch;
  EXPECT_NE(f.error().find("cuModuleLoadData failed"), std::string::npos) << f.error();
  EXPECT_NE(f.error().find("CUBIN for " + req.arch), std::string::npos) << f.error();
}

TEST_F(DriverGpu, DeviceBufferBounds) {
  auto b = DeviceBuffer::allocate(64);
  ASSERT_TRUE(b) << b.error();
  char host[128] = {};
  EXPECT_FALSE(b->upload(host, 128));
  EXPECT_TRUE(b->fill(0x5a));
  ASSERT_TRUE(checkCu(drv->cuCtxSynchronize(), "cuCtxSynchronize"));
  ASSERT_TRUE(b->download(host, 64));
  EXPECT_EQ(host[0], 0x5a);
  EXPECT_EQ(host[63], 0x5a);
  DeviceBuffer moved = b.take();
  EXPECT_EQ(moved.bytes(), 64u);
  auto empty = DeviceBuffer::allocate(0);
  ASSERT_TRUE(empty);
  EXPECT_FALSE(*empty);
}

} // namespace
} // namespace fp8c
