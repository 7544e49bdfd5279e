// CudaDriver (CudaDriver.h): dlopen, cuGetProcAddress for every listed entry point, cuInit,
// device queries and primary contexts.
#include "runtime/cuda/CudaDriver.h"

#include <algorithm>
#include <cstdio>

#include <dlfcn.h>

namespace fp8c {
namespace {

std::string versionString(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

// Without a loaded driver there are no names; the number still identifies the error.
std::string resultNames(const CudaDriver *drv, CUresult r) {
  const char *name = nullptr, *text = nullptr;
  if (drv && drv->cuGetErrorName)
    drv->cuGetErrorName(r, &name);
  if (drv && drv->cuGetErrorString)
    drv->cuGetErrorString(r, &text);
  std::string s = name ? name : "CUresult " + std::to_string(static_cast<int>(r));
  if (text)
    s += std::string(" (") + text + ")";
  return s;
}

} // namespace

std::string archForComputeCapability(int major, int minor) {
  std::string base = "sm_" + std::to_string(major) + std::to_string(minor);
  // The arch-specific targets: wgmma/setmaxnreg on 9.0, tcgen05 on 10.x, and so on.
  if ((major == 9 && minor == 0) || major >= 10)
    return base + "a";
  return base;
}

std::string Device::str() const {
  char mem[32];
  std::snprintf(mem, sizeof mem, "%.0f GiB", double(totalMemoryBytes) / double(1ull << 30));
  return name + " (" + arch + ", " + std::to_string(smCount) + " SMs, " + mem + ", driver " +
         versionString(driverVersion) + ")";
}

Expected<std::unique_ptr<CudaDriver>> CudaDriver::open(const std::string &library) {
  const std::string unaffected =
      "; GPU paths need an NVIDIA driver; CPU paths (--run=cpu) are unaffected";
  void *handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = ::dlerror();
    return Error("no CUDA driver: " + library + " not found (" + (why ? why : "dlopen failed") +
                 ")" + unaffected);
  }
  std::unique_ptr<CudaDriver> drv(new CudaDriver());
  drv->handle_ = handle;
  drv->library_ = library;

  // Each entry point is looked up under the symbol name cuda.h maps it to (cuMemAlloc ->
  // cuMemAlloc_v2), which is the ABI of the prototype we call it with: exactly what linking
  // against libcuda would bind. (cuGetProcAddress with the toolkit's CUDA_VERSION would not:
  // for 13.0 it returns cuCtxSynchronize_v2(CUcontext) for cuCtxSynchronize(void).)
  std::string missing;
#define FP8C_STRINGIFY_(x) #x
#define FP8C_STRINGIFY(x) FP8C_STRINGIFY_(x)
#define FP8C_RESOLVE(name)                                                                         \
  drv->name = reinterpret_cast<decltype(drv->name)>(::dlsym(handle, FP8C_STRINGIFY(name)));        \
  if (!drv->name)                                                                                  \
    missing += std::string(missing.empty() ? "" : ", ") + FP8C_STRINGIFY(name);
  FP8C_CUDA_DRIVER_FUNCTIONS(FP8C_RESOLVE)
#undef FP8C_RESOLVE
#undef FP8C_STRINGIFY
#undef FP8C_STRINGIFY_
  if (!drv->cuDriverGetVersion || drv->cuDriverGetVersion(&drv->driverVersion_) != CUDA_SUCCESS)
    return Error("no usable CUDA driver: cuDriverGetVersion failed in " + library + unaffected);
  if (!missing.empty())
    return Error("CUDA driver " + versionString(drv->driverVersion_) + " (" + library +
                 ") lacks entry points fp8c needs: " + missing + "; update the NVIDIA driver" +
                 unaffected);

  CUresult r = drv->cuInit(0);
  if (r != CUDA_SUCCESS)
    return Error("no CUDA device: cuInit failed: " + resultNames(drv.get(), r) + " (driver " +
                 versionString(drv->driverVersion_) + ")" + unaffected);
  r = drv->cuDeviceGetCount(&drv->deviceCount_);
  if (r != CUDA_SUCCESS)
    return Error(drv->errorMessage(r, "cuDeviceGetCount"));
  if (drv->deviceCount_ <= 0)
    return Error("no CUDA device: the driver (" + versionString(drv->driverVersion_) +
                 ") reports none" + unaffected);
  drv->primary_.assign(static_cast<size_t>(drv->deviceCount_), nullptr);
  return drv;
}

Expected<CudaDriver *> CudaDriver::get() {
  // Loaded once and never unloaded: modules, buffers and cuBLASLt outlive any scope.
  static Expected<CudaDriver *> driver = []() -> Expected<CudaDriver *> {
    Expected<std::unique_ptr<CudaDriver>> d = open("libcuda.so.1");
    if (!d)
      return Error(d.error());
    return d->release();
  }();
  return driver;
}

CudaDriver::~CudaDriver() {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < primary_.size(); ++i)
    if (primary_[i] && cuDevicePrimaryCtxRelease)
      cuDevicePrimaryCtxRelease(static_cast<CUdevice>(i));
  if (handle_)
    ::dlclose(handle_);
}

std::string CudaDriver::errorMessage(CUresult r, std::string_view call,
                                     std::string_view context) const {
  std::string s = std::string(call) + " failed: " + resultNames(this, r);
  if (!context.empty())
    s += " [" + std::string(context) + "]";
  return s;
}

Expected<Device> CudaDriver::currentDevice(std::string_view who) {
  CUcontext ctx = nullptr;
  if (CUresult r = cuCtxGetCurrent(&ctx); r != CUDA_SUCCESS)
    return Error(errorMessage(r, "cuCtxGetCurrent", who));
  if (!ctx)
    return Error(std::string(who) + ": no current CUDA context (CudaDriver::makeCurrent first)");
  CUdevice dev = 0;
  if (CUresult r = cuCtxGetDevice(&dev); r != CUDA_SUCCESS)
    return Error(errorMessage(r, "cuCtxGetDevice", who));
  return device(static_cast<int>(dev));
}

Expected<Device> CudaDriver::device(int ordinal) {
  if (ordinal < 0 || ordinal >= deviceCount_)
    return Error("no CUDA device " + std::to_string(ordinal) + ": the driver reports " +
                 std::to_string(deviceCount_));
  CUdevice dev;
  FP8C_CU_TRY(this, cuDeviceGet, &dev, ordinal);
  Device d;
  d.ordinal = ordinal;
  d.driverVersion = driverVersion_;
  char name[256] = {};
  FP8C_CU_TRY(this, cuDeviceGetName, name, sizeof name - 1, dev);
  d.name = name;
  auto attr = [&](CUdevice_attribute a, int &out) -> Status {
    FP8C_CU_TRY(this, cuDeviceGetAttribute, &out, a, dev);
    return Status::ok();
  };
  int l2 = 0, smem = 0, coop = 0;
  for (auto [a, out] : {std::pair{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &d.ccMajor},
                        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &d.ccMinor},
                        {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &d.smCount},
                        {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &l2},
                        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &smem},
                        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &d.maxThreadsPerBlock},
                        {CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, &coop}})
    if (Status s = attr(a, *out); !s)
      return Error(s.message());
  d.l2Bytes = l2;
  d.maxSharedPerBlockOptin = smem;
  d.cooperativeLaunch = coop != 0;
  size_t total = 0;
  FP8C_CU_TRY(this, cuDeviceTotalMem, &total, dev);
  d.totalMemoryBytes = static_cast<int64_t>(total);
  d.arch = archForComputeCapability(d.ccMajor, d.ccMinor);
  return d;
}

Expected<CUcontext> CudaDriver::primaryContext(int ordinal) {
  if (ordinal < 0 || ordinal >= deviceCount_)
    return Error("no CUDA device " + std::to_string(ordinal) + ": the driver reports " +
                 std::to_string(deviceCount_));
  std::lock_guard<std::mutex> lock(mu_);
  CUcontext &ctx = primary_[static_cast<size_t>(ordinal)];
  if (!ctx) {
    CUdevice dev;
    FP8C_CU_TRY(this, cuDeviceGet, &dev, ordinal);
    FP8C_CU_TRY(this, cuDevicePrimaryCtxRetain, &ctx, dev);
  }
  return ctx;
}

Expected<int> CudaDriver::currentOrdinal() {
  CUcontext ctx = nullptr;
  FP8C_CU_TRY(this, cuCtxGetCurrent, &ctx);
  if (!ctx)
    return -1;
  CUdevice dev = 0;
  FP8C_CU_TRY(this, cuCtxGetDevice, &dev);
  return static_cast<int>(dev);
}

Expected<ScopedContext> ScopedContext::enter(CudaDriver *drv, int ordinal) {
  Expected<CUcontext> ctx = drv->primaryContext(ordinal);
  if (!ctx)
    return Error(ctx.error());
  CUcontext previous = nullptr;
  FP8C_CU_TRY(drv, cuCtxGetCurrent, &previous);
  if (previous == *ctx)
    return ScopedContext(drv, previous, false);
  FP8C_CU_TRY(drv, cuCtxSetCurrent, *ctx);
  return ScopedContext(drv, previous, true);
}

ScopedContext::~ScopedContext() {
  // Restoring a context that was current cannot fail but for a destroyed context, which is
  // the caller's to have destroyed: nothing to report from a destructor.
  if (switched_)
    drv_->cuCtxSetCurrent(previous_);
}

Status CudaDriver::makeCurrent(int ordinal) {
  Expected<CUcontext> ctx = primaryContext(ordinal);
  if (!ctx)
    return Error(ctx.error());
  FP8C_CU_TRY(this, cuCtxSetCurrent, *ctx);
  return Status::ok();
}

Status CudaDriver::launch(CUfunction f, unsigned gridX, unsigned blockX, unsigned sharedBytes,
                          CUstream stream, void **args, bool cooperative,
                          std::string_view kernelName, bool dependent) {
  CUresult r;
  if (dependent && !cooperative) {
    CUlaunchAttribute attr{};
    attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attr.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig cfg{};
    cfg.gridDimX = gridX;
    cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = blockX;
    cfg.blockDimY = cfg.blockDimZ = 1;
    cfg.sharedMemBytes = sharedBytes;
    cfg.hStream = stream;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    r = cuLaunchKernelEx(&cfg, f, args, nullptr);
  } else {
    r = cooperative
            ? cuLaunchCooperativeKernel(f, gridX, 1, 1, blockX, 1, 1, sharedBytes, stream, args)
            : cuLaunchKernel(f, gridX, 1, 1, blockX, 1, 1, sharedBytes, stream, args, nullptr);
  }
  if (r != CUDA_SUCCESS)
    return Error(errorMessage(r, dependent && !cooperative ? "cuLaunchKernelEx"
                                 : cooperative             ? "cuLaunchCooperativeKernel"
                                                           : "cuLaunchKernel",
                              std::string(kernelName) + " grid " + std::to_string(gridX) +
                                  " block " + std::to_string(blockX) + " smem " +
                                  std::to_string(sharedBytes)));
  return Status::ok();
}

Status checkCu(CUresult r, const char *call, std::string_view context) {
  if (r == CUDA_SUCCESS)
    return Status::ok();
  Expected<CudaDriver *> drv = CudaDriver::get();
  if (drv)
    return Error((*drv)->errorMessage(r, call, context));
  std::string s = std::string(call) + " failed: CUresult " + std::to_string(static_cast<int>(r));
  if (!context.empty())
    s += " [" + std::string(context) + "]";
  return Error(s);
}

} // namespace fp8c
