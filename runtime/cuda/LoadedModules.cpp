// LoadedModules (LoadedModules.h).
#include "runtime/cuda/LoadedModules.h"

namespace fp8c {

LoadedModules &LoadedModules::global() {
  static LoadedModules *modules = new LoadedModules(); // never destroyed, like the driver
  return *modules;
}

Expected<CUfunction> LoadedModules::function(const CachedKernel &kernel, const std::string &entry) {
  Expected<CudaDriver *> drvOr = CudaDriver::get();
  if (!drvOr)
    return Error(drvOr.error());
  CudaDriver *drv = *drvOr;
  CUcontext ctx = nullptr;
  FP8C_CU_TRY(drv, cuCtxGetCurrent, &ctx);
  if (!ctx)
    return Error("loading kernel '" + kernel.kernelName +
                 "': no current CUDA context (CudaDriver::makeCurrent first)");

  std::lock_guard<std::mutex> lock(mu_);
  CUmodule &module = modules_[{ctx, kernel.key}];
  if (!module) {
    CUresult r = drv->cuModuleLoadData(&module, kernel.cubin.data());
    if (r != CUDA_SUCCESS) {
      modules_.erase({ctx, kernel.key});
      std::string context = "kernel '" + kernel.kernelName + "', CUBIN for " + kernel.arch;
      if (r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_IMAGE ||
          r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
        context += "; a CUBIN runs only on the arch it was built for, with a driver at least "
                   "as new as NVRTC " +
                   nvrtcVersionString() + ": compile for Device::arch";
      return Error(drv->errorMessage(r, "cuModuleLoadData", context));
    }
  }
  auto [it, inserted] = functions_.try_emplace({module, entry}, nullptr);
  if (inserted) {
    CUresult r = drv->cuModuleGetFunction(&it->second, module, entry.c_str());
    if (r != CUDA_SUCCESS) {
      functions_.erase(it);
      return Error(drv->errorMessage(
          r, "cuModuleGetFunction", "entry '" + entry + "' of kernel '" + kernel.kernelName + "'"));
    }
  }
  return it->second;
}

Status LoadedModules::unloadAll() {
  Expected<CudaDriver *> drv = CudaDriver::get();
  if (!drv)
    return Error(drv.error());
  std::lock_guard<std::mutex> lock(mu_);
  std::string failures;
  for (auto &[key, module] : modules_) {
    CUresult r = (*drv)->cuModuleUnload(module);
    if (r != CUDA_SUCCESS)
      failures += (failures.empty() ? "" : "; ") + (*drv)->errorMessage(r, "cuModuleUnload");
  }
  modules_.clear();
  functions_.clear();
  if (!failures.empty())
    return Error(failures);
  return Status::ok();
}

size_t LoadedModules::moduleCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return modules_.size();
}

Status setMaxDynamicSharedBytes(CUfunction f, int64_t bytes, std::string_view kernelName) {
  Expected<CudaDriver *> drv = CudaDriver::get();
  if (!drv)
    return Error(drv.error());
  CUresult r = (*drv)->cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                          static_cast<int>(bytes));
  if (r != CUDA_SUCCESS)
    return Error((*drv)->errorMessage(r, "cuFuncSetAttribute",
                                      std::string(kernelName) + " max dynamic shared " +
                                          std::to_string(bytes) + " bytes"));
  return Status::ok();
}

Expected<int> maxActiveBlocksPerSM(CUfunction f, int blockThreads, int64_t dynamicSharedBytes) {
  Expected<CudaDriver *> drv = CudaDriver::get();
  if (!drv)
    return Error(drv.error());
  int blocks = 0;
  FP8C_CU_TRY(*drv, cuOccupancyMaxActiveBlocksPerMultiprocessor, &blocks, f, blockThreads,
              static_cast<size_t>(dynamicSharedBytes));
  return blocks;
}

} // namespace fp8c
