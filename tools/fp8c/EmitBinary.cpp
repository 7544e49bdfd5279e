// `fp8c --emit=ptx|cubin`: see EmitBinary.h.
#include "EmitBinary.h"
#include "GeneratedGemms.h"
#include "OutputFile.h"

#include "codegen/Lowering.h"
#include "runtime/gpu/GemmSm90.h"
#include "runtime/jit/Nvrtc.h"

#include <filesystem>
#include <set>

namespace fp8c::cli {

namespace {

/// Compiles `req` and prints its PTX or writes its CUBIN (with a line of its registers, stack
/// and spills). False on an error, written to `err`.
bool emitOne(NvrtcRequest req, const std::string &what, const std::string &dir, std::ostream &out,
             std::ostream &err) {
  req.wantPtx = what == "ptx";
  Expected<NvrtcResult> r = compileWithNvrtc(req);
  if (!r) {
    err << "fp8c: error: " << r.error() << "\n";
    return false;
  }
  if (what == "ptx") {
    out << "// ----- " << req.kernelName << " (" << req.arch << ")\n" << r->ptx << "\n";
    return true;
  }
  std::filesystem::path path =
      std::filesystem::path(dir.empty() ? "." : dir) / (req.kernelName + ".cubin");
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (Status st = writeOutputFile(path.string(), std::string_view(r->cubin.data(), r->cubin.size()));
      !st) {
    err << "fp8c: error: " << st.message() << "\n";
    return false;
  }
  out << path.string() << ": " << r->cubin.size() << " bytes";
  for (const PtxasEntryInfo &e : r->entries)
    out << "; " << e.entry << ": " << e.registers << " registers, " << e.stackFrameBytes
        << " bytes stack, " << e.spillStoreBytes << " bytes spill stores";
  out << "\n";
  return true;
}

} // namespace

bool emitBinary(const Module &m, const std::string &what, const std::string &arch,
                int64_t dynamicDim, const std::string &dir,
                std::ostream &out, std::ostream &err) {
  CodegenOptions co;
  co.arch = arch.empty() ? "sm_90a" : arch;
  for (const auto &g : m.graphs()) {
    Expected<LaunchPlan> plan = lowerGraph(*g, co);
    if (!plan) {
      err << plan.error() << "\n";
      return false;
    }
    Expected<std::vector<GeneratedGemmKernel>> gemms =
        generatedGemmKernels(*plan, co.arch, dynamicDim);
    if (!gemms) {
      err << "fp8c: error: " << gemms.error() << "\n";
      return false;
    }
    std::set<std::string> done;
    for (const std::vector<Step> *steps : {&plan->loadSteps, &plan->steps})
      for (const GeneratedLaunch *l : launchesOf(*steps)) {
        if (!done.insert(l->kernelName).second)
          continue;
        NvrtcRequest req;
        req.kernelName = l->kernelName;
        req.source = l->source;
        req.arch = co.arch;
        req.extraOptions = l->nvrtcOptions;
        if (!emitOne(req, what, dir, out, err))
          return false;
      }
    for (const GeneratedGemmKernel &k : *gemms)
      if (done.insert(k.spec.name()).second &&
          !emitOne(gemmSm90Request(k.spec, co.arch), what, dir, out, err))
        return false;
  }
  return true;
}

} // namespace fp8c::cli
