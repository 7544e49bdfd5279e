// The CUDA driver API, loaded with dlopen("libcuda.so.1") at first use: fp8c links neither
// libcuda nor libcudart, so the compiler, the CPU interpreter and the NVRTC path run on
// machines with no GPU and no driver, and only GPU paths report "no CUDA driver".
//
// Every entry point fp8c uses is listed once in FP8C_CUDA_DRIVER_FUNCTIONS and resolved with
// dlsym under the name cuda.h maps it to (cuMemAlloc -> cuMemAlloc_v2, ...), i.e. the ABI of
// the prototype it is called with. Call them as members: `drv->cuMemAlloc(&p, n)`. Check every
// result: FP8C_CU_TRY(drv, cuMemAlloc, &p, n) returns an Error carrying the call, the result's
// name and cuGetErrorString's text from the enclosing function (Status or Expected<T>).
#pragma once

#include "ir/Status.h"

#include <cuda.h>

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace fp8c {

#define FP8C_CUDA_DRIVER_FUNCTIONS(X)                                                              \
  X(cuInit)                                                                                        \
  X(cuDriverGetVersion)                                                                            \
  X(cuGetErrorName)                                                                                \
  X(cuGetErrorString)                                                                              \
  X(cuDeviceGet)                                                                                   \
  X(cuDeviceGetCount)                                                                              \
  X(cuDeviceGetName)                                                                               \
  X(cuDeviceGetPCIBusId)                                                                           \
  X(cuDeviceGetAttribute)                                                                          \
  X(cuDeviceTotalMem)                                                                              \
  X(cuDevicePrimaryCtxRetain)                                                                      \
  X(cuDevicePrimaryCtxRelease)                                                                     \
  X(cuCtxSetCurrent)                                                                               \
  X(cuCtxGetCurrent)                                                                               \
  X(cuCtxGetDevice)                                                                                \
  X(cuCtxSynchronize)                                                                              \
  X(cuModuleLoadData)                                                                              \
  X(cuModuleUnload)                                                                                \
  X(cuModuleGetFunction)                                                                           \
  X(cuFuncSetAttribute)                                                                            \
  X(cuFuncGetAttribute)                                                                            \
  X(cuTensorMapEncodeTiled)                                                                        \
  X(cuLaunchKernel)                                                                                \
  X(cuLaunchCooperativeKernel)                                                                     \
  X(cuLaunchKernelEx)                                                                              \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                                                   \
  X(cuOccupancyMaxActiveClusters)                                                                  \
  X(cuMemAlloc)                                                                                    \
  X(cuMemFree)                                                                                     \
  X(cuMemGetInfo)                                                                                  \
  X(cuMemAllocHost)                                                                                \
  X(cuMemFreeHost)                                                                                 \
  X(cuMemcpyHtoD)                                                                                  \
  X(cuMemcpyDtoH)                                                                                  \
  X(cuMemcpyDtoDAsync)                                                                             \
  X(cuMemcpyHtoDAsync)                                                                             \
  X(cuMemcpyDtoHAsync)                                                                             \
  X(cuMemsetD8Async)                                                                               \
  X(cuMemsetD32Async)                                                                              \
  X(cuStreamCreate)                                                                                \
  X(cuStreamDestroy)                                                                               \
  X(cuStreamSynchronize)                                                                           \
  X(cuStreamWaitEvent)                                                                             \
  X(cuStreamBeginCapture)                                                                          \
  X(cuStreamEndCapture)                                                                            \
  X(cuStreamIsCapturing)                                                                           \
  X(cuEventCreate)                                                                                 \
  X(cuEventRecord)                                                                                 \
  X(cuEventSynchronize)                                                                            \
  X(cuEventElapsedTime)                                                                            \
  X(cuEventDestroy)                                                                                \
  X(cuGraphInstantiateWithFlags)                                                                   \
  X(cuGraphLaunch)                                                                                 \
  X(cuGraphDestroy)                                                                                \
  X(cuGraphExecDestroy)

/// A GPU as fp8c sees it.
struct Device {
  int ordinal = 0;
  std::string name;             ///< "NVIDIA H200"
  int ccMajor = 0, ccMinor = 0; ///< compute capability
  std::string arch;             ///< NVRTC target: "sm_90a" for 9.0, "sm_89", "sm_100a", ...
  int smCount = 0;
  int64_t l2Bytes = 0;
  int64_t maxSharedPerBlockOptin = 0; ///< dynamic shared memory a kernel may opt in to
  int64_t totalMemoryBytes = 0;
  int maxThreadsPerBlock = 0;
  bool cooperativeLaunch = false;
  int driverVersion = 0; ///< cuDriverGetVersion: 13000 for 13.0
  /// "NVIDIA H200 (sm_90a, 132 SMs, 140 GiB, driver 13.0)"
  std::string str() const;
};

/// The NVRTC arch for a compute capability: the arch-specific "a" targets where the
/// architecture has features only they expose (9.0 -> sm_90a, 10.x -> sm_100a/sm_103a,
/// 12.x -> sm_120a), else plain sm_XY (8.9 -> sm_89).
std::string archForComputeCapability(int major, int minor);

class CudaDriver {
public:
  /// The process-wide driver: libcuda.so.1 loaded, cuInit done, at least one device. The first
  /// call decides; later calls return the same pointer or the same Error.
  static Expected<CudaDriver *> get();
  /// Loads `library` afresh (not cached); what get() does, for tests of the failure paths.
  static Expected<std::unique_ptr<CudaDriver>> open(const std::string &library);
  ~CudaDriver();
  CudaDriver(const CudaDriver &) = delete;
  CudaDriver &operator=(const CudaDriver &) = delete;

#define FP8C_CUDA_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  FP8C_CUDA_DRIVER_FUNCTIONS(FP8C_CUDA_DRIVER_MEMBER)
#undef FP8C_CUDA_DRIVER_MEMBER

  int driverVersion() const { return driverVersion_; }
  int deviceCount() const { return deviceCount_; }
  const std::string &libraryPath() const { return library_; }

  /// "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (invalid argument) [context]".
  std::string errorMessage(CUresult r, std::string_view call, std::string_view context = {}) const;

  Expected<Device> device(int ordinal = 0);
  /// The device of the calling thread's current context; an error naming `who` when no context
  /// is current (CudaDriver::makeCurrent first).
  Expected<Device> currentDevice(std::string_view who);
  /// Retains device `ordinal`'s primary context (once per process) and makes it current on
  /// the calling thread.
  Status makeCurrent(int ordinal = 0);
  Expected<CUcontext> primaryContext(int ordinal = 0);
  /// The ordinal of the device of the calling thread's current context; -1 when none is
  /// current.
  Expected<int> currentOrdinal();

  /// cuLaunchKernel, or cuLaunchCooperativeKernel when `cooperative`, checked. With
  /// `dependent` (not with `cooperative`), cuLaunchKernelEx with programmatic stream
  /// serialization: the kernel's blocks may start before the previous kernel of the stream has
  /// finished, and must wait for it (griddepcontrol.wait, common.cuh's
  /// waitForPrerequisiteGrids) before touching its results.
  Status launch(CUfunction f, unsigned gridX, unsigned blockX, unsigned sharedBytes,
                CUstream stream, void **args, bool cooperative = false,
                std::string_view kernelName = {}, bool dependent = false);

private:
  CudaDriver() = default;
  void *handle_ = nullptr;
  std::string library_;
  int driverVersion_ = 0;
  int deviceCount_ = 0;
  std::mutex mu_;
  std::vector<CUcontext> primary_; ///< per ordinal, retained on first use
};

/// An Error for a failed driver call ("cuLaunchKernel failed: CUDA_ERROR_...: text [context]"),
/// or ok for CUDA_SUCCESS. Uses the process-wide driver for the names when it is loaded.
Status checkCu(CUresult r, const char *call, std::string_view context = {});

/// Makes device `ordinal`'s primary context current on the calling thread for its lifetime,
/// then makes current again the context that was (none included): an executable runs on its
/// own device and leaves the caller's context as it found it.
class ScopedContext {
public:
  static Expected<ScopedContext> enter(CudaDriver *drv, int ordinal);
  ScopedContext(ScopedContext &&o) noexcept
      : drv_(o.drv_), previous_(o.previous_), switched_(o.switched_) {
    o.switched_ = false;
  }
  ScopedContext &operator=(ScopedContext &&) = delete;
  ~ScopedContext();

private:
  ScopedContext(CudaDriver *drv, CUcontext previous, bool switched)
      : drv_(drv), previous_(previous), switched_(switched) {}
  CudaDriver *drv_;
  CUcontext previous_;
  bool switched_;
};

} // namespace fp8c

/// Calls drv->fn(args...) and returns an Error naming fn from the enclosing function when the
/// result is not CUDA_SUCCESS. `drv` is a CudaDriver pointer.
#define FP8C_CU_TRY(drv, fn, ...)                                                                  \
  do {                                                                                             \
    CUresult fp8cCuResult_ = (drv)->fn(__VA_ARGS__);                                               \
    if (fp8cCuResult_ != CUDA_SUCCESS)                                                             \
      return ::fp8c::Error((drv)->errorMessage(fp8cCuResult_, #fn));                               \
  } while (0)
