// Implementation of `fp8c --run=cpu`. After the outputs it prints a warning per output holding
// NaN / inf values and per amax history whose push skipped a non-finite amax (the interpreter's
// NonFiniteReport); with --check such a run fails (exit 1).
#include "RunCommand.h"
#include "RunGpu.h"

#include "interp/HostTensor.h"
#include "interp/Interpreter.h"
#include "interp/NonFiniteReport.h"
#include "interp/Npy.h"
#include "interp/RandomInputs.h"
#include "interp/TensorStats.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace fp8c::cli {
namespace {

const Graph *selectGraph(const Options &o, const Module &m) {
  if (!o.funcName.empty()) {
    const Graph *g = m.lookup(o.funcName);
    if (!g)
      std::cerr << "fp8c: error: no function named '@" << o.funcName << "'\n";
    return g;
  }
  if (m.graphs().size() == 1)
    return m.graphs().front().get();
  std::cerr << "fp8c: error: --run needs exactly one function, the file has "
            << m.graphs().size() << (m.graphs().empty() ? "" : "; choose one with --func NAME")
            << "\n";
  return nullptr;
}

std::string formatValue(float v) {
  if (std::isnan(v))
    return "nan";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  return buf;
}

// Nested-bracket rendering of a tensor: [[1, 2], [3, 4]].
void printValues(const HostTensor &t, std::ostream &out) {
  if (t.shape.empty()) {
    out << formatValue(t.data.at(0));
    return;
  }
  std::vector<int64_t> strides(t.shape.size(), 1);
  for (size_t d = t.shape.size() - 1; d > 0; --d)
    strides[d - 1] = strides[d] * t.shape[d];
  auto rec = [&](auto &self, size_t dim, int64_t offset) -> void {
    out << "[";
    for (int64_t i = 0; i < t.shape[dim]; ++i) {
      if (i)
        out << ", ";
      if (dim + 1 == t.shape.size())
        out << formatValue(t.data[offset + i]);
      else
        self(self, dim + 1, offset + i * strides[dim]);
    }
    out << "]";
  };
  rec(rec, 0, 0);
}

// Messages that already carry `file:line:col: error:` print as they are.
std::string errorLine(const std::string &msg) {
  if (msg.find(": error: ") != std::string::npos)
    return msg;
  return "fp8c: error: " + msg;
}

std::string typeOf(const HostTensor &t) { return TensorType(t.shape, t.dtype).str(); }

// Output names: the returned value's name, else output<i>; made unique.
std::vector<std::string> outputNames(const Graph &g) {
  std::vector<std::string> names;
  std::set<std::string> used;
  std::vector<Value *> outs = g.outputs();
  for (size_t i = 0; i < outs.size(); ++i) {
    std::string n = outs[i]->name().empty() ? "output" + std::to_string(i) : outs[i]->name();
    if (used.count(n))
      n += "_" + std::to_string(i);
    used.insert(n);
    names.push_back(n);
  }
  return names;
}

} // namespace

bool runOnCpu(const Options &o, const Module &m, const Module *reference, std::ostream &out) {
  const Graph *g = selectGraph(o, m);
  if (!g)
    return false;
  const Graph *ref = nullptr;
  if (reference) {
    ref = reference->lookup(g->name());
    if (!ref) {
      std::cerr << "fp8c: error: --compare: no function '@" << g->name() << "' before the passes\n";
      return false;
    }
  }

  std::map<std::string, std::string> files(o.inputs.begin(), o.inputs.end());
  for (const auto &[name, path] : files) {
    bool known = false;
    for (unsigned i = 0; i < g->numInputs(); ++i)
      known |= g->input(i)->name() == name;
    if (!known) {
      std::cerr << "fp8c: error: --input " << name << ": '@" << g->name()
                << "' has no input named '" << name << "'\n";
      return false;
    }
  }

  std::vector<HostTensor> random;
  if (o.randomSeed) {
    if (Status s = checkRandomInputs(*g, o.dynamicDim); !s) {
      std::cerr << errorLine(s.message()) << "\n";
      return false;
    }
    random = randomInputs(*g, *o.randomSeed, o.dynamicDim);
  }
  std::vector<HostTensor> inputs;
  for (unsigned i = 0; i < g->numInputs(); ++i) {
    const Value *in = g->input(i);
    auto it = files.find(in->name());
    if (it != files.end()) {
      Expected<HostTensor> t = readNpy(it->second, in->type(), in->name());
      if (!t) {
        std::cerr << "fp8c: error: " << t.error() << "\n";
        return false;
      }
      inputs.push_back(t.take());
    } else if (o.randomSeed) {
      inputs.push_back(random[i]);
    } else {
      std::cerr << "fp8c: error: input '" << in->name() << "' of '@" << g->name()
                << "' has no value: give --input " << in->name()
                << "=FILE.npy or --random-inputs=SEED\n";
      return false;
    }
  }

  if (o.run == "gpu")
    return runOnGpu(o, *g, inputs, out);
  NonFiniteReport nonFinite;
  InterpretOptions io;
  io.report = &nonFinite;
  Expected<std::vector<HostTensor>> results = interpret(*g, inputs, io);
  if (!results) {
    std::cerr << errorLine(results.error()) << "\n";
    return false;
  }
  std::optional<std::vector<HostTensor>> refResults;
  if (ref) {
    std::vector<HostTensor> refInputs;
    for (unsigned i = 0; i < ref->numInputs(); ++i) {
      const std::string &n = ref->input(i)->name();
      bool found = false;
      for (unsigned j = 0; j < g->numInputs() && !found; ++j)
        if (g->input(j)->name() == n) {
          refInputs.push_back(inputs[j]);
          found = true;
        }
      if (!found) {
        std::cerr << "fp8c: error: --compare: input '" << n << "' disappeared in the passes\n";
        return false;
      }
    }
    Expected<std::vector<HostTensor>> r = interpret(*ref, refInputs);
    if (!r) {
      std::cerr << errorLine(r.error()) << " (running the graph before the passes)\n";
      return false;
    }
    refResults = r.take();
  }

  std::vector<std::string> names = outputNames(*g);
  if (!o.outputDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.outputDir, ec);
    if (ec) {
      std::cerr << "fp8c: error: cannot create '" << o.outputDir << "': " << ec.message() << "\n";
      return false;
    }
  }
  out << "// ran @" << g->name() << " on the CPU interpreter";
  if (o.randomSeed)
    out << " (random inputs, seed " << *o.randomSeed << ", dynamic dims " << o.dynamicDim << ")";
  out << "\n";
  for (size_t i = 0; i < results->size(); ++i) {
    const HostTensor &t = (*results)[i];
    out << "output #" << i << " '" << names[i] << "' " << typeOf(t);
    if (o.printOutputs) {
      out << " = ";
      printValues(t, out);
      out << "\n";
    } else {
      TensorStats s = computeStats(t);
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    ": mean=%.6g std=%.6g min=%.6g max=%.6g absmax=%.6g nan=%lld inf=%lld\n",
                    s.mean, s.stddev, s.min, s.max, s.absMax, static_cast<long long>(s.nanCount),
                    static_cast<long long>(s.infCount));
      out << buf;
    }
    if (refResults && i < refResults->size())
      out << "  vs the graph before the passes: relative Frobenius error "
          << relativeFrobeniusError(t, (*refResults)[i]) << "\n";
    if (!o.outputDir.empty()) {
      std::string path = (std::filesystem::path(o.outputDir) / (names[i] + ".npy")).string();
      Status st = writeNpy(path, t);
      if (!st) {
        std::cerr << "fp8c: error: " << st.message() << "\n";
        return false;
      }
    }
  }
  for (size_t i = 0; i < nonFinite.outputs.size() && i < names.size(); ++i)
    nonFinite.outputs[i].name = names[i];
  return reportNonFinite(nonFinite, o.check);
}

bool reportNonFinite(const NonFiniteReport &r, bool check) {
  for (const std::string &w : r.warnings())
    std::cerr << "fp8c: " << w << "\n";
  if (!check || r.clean())
    return true;
  int outputs = 0, histories = 0;
  for (const NonFiniteReport::Output &o : r.outputs)
    outputs += o.count > 0;
  for (const NonFiniteReport::History &h : r.histories)
    histories += h.skipped > 0;
  std::cerr << "fp8c: error: --check: non-finite values in " << outputs << " output"
            << (outputs == 1 ? "" : "s") << " and " << histories << " amax histor"
            << (histories == 1 ? "y" : "ies") << "\n";
  return false;
}

} // namespace fp8c::cli
