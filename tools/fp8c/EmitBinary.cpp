// `fp8c --emit=ptx|cubin`: see EmitBinary.h.
#include "EmitBinary.h"
#include "OutputFile.h"

#include "codegen/Lowering.h"
#include "runtime/jit/Nvrtc.h"

#include <filesystem>
#include <set>

namespace fp8c::cli {

bool emitBinary(const Module &m, const std::string &what, const std::string &arch,
                const std::string &dir, std::ostream &out, std::ostream &err) {
  CodegenOptions co;
  co.arch = arch.empty() ? "sm_90a" : arch;
  for (const auto &g : m.graphs()) {
    Expected<LaunchPlan> plan = lowerGraph(*g, co);
    if (!plan) {
      err << plan.error() << "\n";
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
        req.wantPtx = what == "ptx";
        req.extraOptions = l->nvrtcOptions;
        Expected<NvrtcResult> r = compileWithNvrtc(req);
        if (!r) {
          err << "fp8c: error: " << r.error() << "\n";
          return false;
        }
        if (what == "ptx") {
          out << "// ----- " << l->kernelName << " (" << co.arch << ")\n" << r->ptx << "\n";
          continue;
        }
        std::filesystem::path path =
            std::filesystem::path(dir.empty() ? "." : dir) / (l->kernelName + ".cubin");
        std::error_code ec;
        std::filesystem::create_directories(path.parent_path(), ec);
        if (Status st =
                writeOutputFile(path.string(), std::string_view(r->cubin.data(), r->cubin.size()));
            !st) {
          err << "fp8c: error: " << st.message() << "\n";
          return false;
        }
        out << path.string() << ": " << r->cubin.size() << " bytes";
        for (const PtxasEntryInfo &e : r->entries)
          out << "; " << e.entry << ": " << e.registers << " registers, " << e.stackFrameBytes
              << " bytes stack, " << e.spillStoreBytes << " bytes spill stores";
        out << "\n";
      }
  }
  return true;
}

} // namespace fp8c::cli
