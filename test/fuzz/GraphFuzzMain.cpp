// fp8c-graph-fuzz: random valid graphs (GraphGenerator) through the whole fp8c compiler, each
// under every setting: each recipe and none, --emit=cuda with each --backend, --emit=ptx,
// --train, and --run=cpu --compare. Runs the fp8c binary as a child process (at most --jobs at
// once, each with a time limit) and judges each run (RunClassifier.h). Findings are written to
// --out as reproducers (the graph with the command line) and summarized by signature.
//
//   fp8c-graph-fuzz [--seed=S] [--count=N] [--time=SECONDS] [--fp8c=PATH] [--out=DIR]
//                   [--skip=FILE] [--jobs=N] [--ptx=one|all|none] [--no-reduce] [--verbose]
//   fp8c-graph-fuzz --print=SEED        # the graph of one seed
//
// Graph i has seed S + i. --count and --time both bound the run (the defaults: 100 graphs, no
// time limit). --skip=FILE: one substring a line ('#' starts a comment); a finding whose
// signature or message holds one is counted as known and does not fail the run. At the end each
// new finding's graph is reduced (GraphReducer.h) unless --no-reduce.
// Exit status: 0 when no finding (other than known ones), 1 when any, 2 for a usage error.
#include "ChildPool.h"
#include "GraphGenerator.h"
#include "GraphReducer.h"
#include "RunClassifier.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace fp8c::fuzz;

namespace {

struct Options {
  uint64_t seed = 1;
  int64_t count = -1;
  double time = 0;
  std::string fp8c;
  std::string out = "graph-fuzz-findings";
  std::string skip;
  int jobs = 2;
  std::string ptx = "one";
  bool verbose = false;
  bool reduce = true;
};

const char *const kRecipes[] = {"", "tensorwise", "delayed", "rowwise", "blockwise"};
const char *const kBackends[] = {"generated", "cublaslt", "auto"};

struct GraphState {
  GeneratedGraph graph;
  std::string path; ///< the graph's file in the work dir
  int pending = 0;  ///< runs not yet judged
};

struct Job {
  std::shared_ptr<GraphState> graph;
  RunSetting setting;
};

struct FindingRecord {
  size_t index = 0;
  std::string signature, message, command, graphText, stderrText;
  uint64_t seed = 0;
  size_t runs = 0;
  std::set<uint64_t> seeds;
  std::set<std::string> settings;
  bool known = false;
  RunSetting setting;
  GeneratedGraph graph;
};

std::string readFile(const std::string &path, size_t limit = 1 << 20) {
  std::ifstream in(path, std::ios::binary);
  std::string s(limit, '\0');
  in.read(s.data(), static_cast<std::streamsize>(limit));
  s.resize(static_cast<size_t>(in.gcount()));
  return s;
}

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string shellQuote(const std::string &s) {
  if (s.find_first_of(" '\"$\\*?{}") == std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// The settings of one graph after it verified.
std::vector<RunSetting> settingsFor(const GeneratedGraph &g, const Options &o) {
  std::vector<RunSetting> v;
  uint64_t h = g.seed * 2654435761u;
  for (const char *recipeName : kRecipes) {
    std::string recipe = recipeName;
    std::vector<std::string> r;
    if (!recipe.empty())
      r.push_back("--recipe=" + recipe);
    RunSetting run{"run", recipe, "", r, 60};
    for (const char *a : {"--run=cpu", "--compare", "--random-inputs=1"})
      run.args.push_back(a);
    run.args.push_back("--dynamic-dim=" + std::to_string(g.dynamicDim));
    v.push_back(run);
    for (const char *backend : kBackends) {
      RunSetting c{"cuda", recipe, backend, r, 60};
      for (const char *a : {"--emit=cuda", "--arch=sm_90a", "--verify-each"})
        c.args.push_back(a);
      c.args.push_back(std::string("--backend=") + backend);
      v.push_back(c);
    }
    std::string backend = kBackends[(h >> 8) % 3];
    RunSetting t{"train", recipe, backend, {"--train", "--recipe=" + (recipe.empty() ? std::string("none") : recipe)}, 60};
    if (g.dynamic)
      t.args.push_back("--tokens=" + std::to_string(g.tokens));
    for (const char *a : {"--emit=cuda", "--arch=sm_90a", "--verify-each"})
      t.args.push_back(a);
    t.args.push_back("--backend=" + backend);
    v.push_back(t);
  }
  for (size_t i = 0; i < std::size(kRecipes); ++i) {
    if (o.ptx == "none" || (o.ptx == "one" && i != 1 + (h >> 4) % 4))
      continue;
    std::string recipe = kRecipes[i];
    std::string backend = kBackends[(h >> 12) % 3];
    RunSetting p{"ptx", recipe, backend, {}, 300};
    if (!recipe.empty())
      p.args.push_back("--recipe=" + recipe);
    for (const char *a : {"--emit=ptx", "--arch=sm_90a"})
      p.args.push_back(a);
    p.args.push_back("--backend=" + backend);
    v.push_back(p);
  }
  return v;
}

int usage(const char *msg) {
  std::fprintf(stderr, "fp8c-graph-fuzz: %s\n", msg);
  std::fprintf(stderr,
               "usage: fp8c-graph-fuzz [--seed=S] [--count=N] [--time=SECONDS] [--fp8c=PATH] "
               "[--out=DIR] [--skip=FILE] [--jobs=N] [--ptx=one|all|none] [--no-reduce] [--verbose]\n"
               "       fp8c-graph-fuzz --print=SEED\n");
  return 2;
}

std::string slug(const std::string &s) {
  std::string r;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      r += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!r.empty() && r.back() != '-')
      r += '-';
    if (r.size() >= 48)
      break;
  }
  while (!r.empty() && r.back() == '-')
    r.pop_back();
  return r;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *name) -> const char * {
      size_t n = std::strlen(name);
      return a.compare(0, n, name) == 0 ? a.c_str() + n : nullptr;
    };
    if (const char *v = value("--print=")) {
      std::cout << generateGraph(std::strtoull(v, nullptr, 10)).text;
      return 0;
    } else if (const char *v = value("--seed=")) {
      o.seed = std::strtoull(v, nullptr, 10);
    } else if (const char *v = value("--count=")) {
      o.count = std::strtoll(v, nullptr, 10);
    } else if (const char *v = value("--time=")) {
      o.time = std::strtod(v, nullptr);
    } else if (const char *v = value("--fp8c=")) {
      o.fp8c = v;
    } else if (const char *v = value("--out=")) {
      o.out = v;
    } else if (const char *v = value("--skip=")) {
      o.skip = v;
    } else if (const char *v = value("--jobs=")) {
      o.jobs = std::max(1, std::atoi(v));
    } else if (const char *v = value("--ptx=")) {
      o.ptx = v;
      if (o.ptx != "one" && o.ptx != "all" && o.ptx != "none")
        return usage("--ptx takes one, all or none");
    } else if (a == "--no-reduce") {
      o.reduce = false;
    } else if (a == "--verbose") {
      o.verbose = true;
    } else if (a == "--help" || a == "-h") {
      usage("random valid graphs through fp8c");
      return 0;
    } else {
      return usage(("unknown option " + a).c_str());
    }
  }
  if (o.count < 0)
    o.count = o.time > 0 ? INT64_MAX : 100;
  if (o.fp8c.empty()) {
    std::error_code ec;
    fs::path self = fs::canonical("/proc/self/exe", ec);
    o.fp8c = (ec ? fs::path(argv[0]) : self).parent_path() / "fp8c";
  }
  if (access(o.fp8c.c_str(), X_OK) != 0)
    return usage(("cannot run fp8c at " + o.fp8c).c_str());
  std::vector<std::string> known;
  if (!o.skip.empty()) {
    std::ifstream in(o.skip);
    if (!in)
      return usage(("cannot read " + o.skip).c_str());
    for (std::string l; std::getline(in, l);) {
      while (!l.empty() && std::isspace(static_cast<unsigned char>(l.back())))
        l.pop_back();
      size_t b = l.find_first_not_of(" \t");
      if (b == std::string::npos || l[b] == '#')
        continue;
      known.push_back(l.substr(b));
    }
  }
  std::error_code ec;
  fs::create_directories(o.out, ec);
  char tmpl[] = "/tmp/fp8c-graph-fuzz-XXXXXX";
  if (!mkdtemp(tmpl))
    return usage("cannot create a work directory in /tmp");
  const std::string work = tmpl;

  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  ChildPool pool;
  std::deque<Job> queue;
  std::map<uint64_t, Job> runningJobs;
  uint64_t nextTag = 0;
  int64_t generated = 0;
  size_t runs = 0, ok = 0, rejected = 0, knownRuns = 0, findingRuns = 0;
  std::map<std::string, size_t> rejections;
  std::map<std::string, FindingRecord> findings;
  std::map<std::string, size_t> perMode;

  auto record = [&](const Job &job, const Verdict &v, const std::string &err) {
    bool isKnown = false;
    for (const std::string &k : known)
      if (v.signature.find(k) != std::string::npos || v.message.find(k) != std::string::npos)
        isKnown = true;
    (isKnown ? knownRuns : findingRuns) += 1;
    FindingRecord &f = findings[v.signature];
    bool fresh = f.runs == 0;
    ++f.runs;
    f.known = isKnown;
    f.seeds.insert(job.graph->graph.seed);
    f.settings.insert(job.setting.label());
    if (fresh)
      f.index = findings.size();
    if (fresh || job.graph->graph.text.size() < f.graphText.size()) {
      f.signature = v.signature;
      f.message = v.message;
      f.graphText = job.graph->graph.text;
      f.graph = job.graph->graph;
      f.setting = job.setting;
      f.seed = job.graph->graph.seed;
      f.stderrText = err.substr(0, 4000);
      std::string cmd = "fp8c graph.mlir";
      for (const std::string &a : job.setting.args)
        cmd += " " + shellQuote(a);
      f.command = cmd;
      if (!isKnown) {
        char name[16];
        std::snprintf(name, sizeof name, "%03zu-", f.index);
        fs::path dir = fs::path(o.out) / (name + slug(v.signature));
        fs::create_directories(dir, ec);
        writeFile(dir / "graph.mlir", "// " + v.signature + "\n// " + cmd + "\n" + f.graphText);
        writeFile(dir / "command", cmd + "\n");
        writeFile(dir / "stderr", f.stderrText);
      }
    }
  };

  auto startJob = [&](Job job) {
    uint64_t tag = nextTag++;
    std::vector<std::string> argv = {o.fp8c, job.graph->path};
    for (const std::string &a : job.setting.args)
      argv.push_back(a);
    std::string base = work + "/" + std::to_string(tag);
    // The emitted CUDA / PTX is not judged: only `run` and `verify` keep stdout.
    bool keepOut = job.setting.mode == "run";
    if (!pool.start(tag, argv, keepOut ? base + ".out" : "/dev/null", base + ".err",
                    job.setting.timeout)) {
      std::fprintf(stderr, "fp8c-graph-fuzz: cannot start %s: %s\n", o.fp8c.c_str(),
                   std::strerror(errno));
      std::exit(2);
    }
    runningJobs.emplace(tag, std::move(job));
  };

  auto generateNext = [&] {
    auto gs = std::make_shared<GraphState>();
    gs->graph = generateGraph(o.seed + static_cast<uint64_t>(generated));
    gs->path = work + "/g" + std::to_string(gs->graph.seed) + ".mlir";
    writeFile(gs->path, gs->graph.text);
    ++generated;
    queue.push_front({gs, RunSetting{"verify", "", "", {"--verify-each"}, 60}});
  };

  bool stopping = false;
  while (true) {
    if (!stopping && o.time > 0 && elapsed() > o.time) {
      stopping = true;
      queue.clear();
    }
    // Keep the queue fed: the next graph's verification runs first.
    while (!stopping && queue.size() < static_cast<size_t>(o.jobs) && generated < o.count)
      generateNext();
    while (pool.running() < static_cast<size_t>(o.jobs) && !queue.empty()) {
      Job j = std::move(queue.front());
      queue.pop_front();
      startJob(std::move(j));
    }
    if (pool.running() == 0)
      break;
    std::optional<ChildResult> r = pool.waitAny();
    if (!r)
      break;
    Job job = std::move(runningJobs.at(r->tag));
    runningJobs.erase(r->tag);
    std::string base = work + "/" + std::to_string(r->tag);
    std::string out = job.setting.mode == "run" ? readFile(base + ".out") : "";
    std::string err = readFile(base + ".err", 1 << 16);
    fs::remove(base + ".out", ec);
    fs::remove(base + ".err", ec);
    ++runs;
    ++perMode[job.setting.mode];
    Verdict v = classify(job.setting, *r, out, err, job.graph->graph);
    if (o.verbose)
      std::printf("[%.1fs] seed %llu %s: exit %d%s (%.2fs) %s\n", elapsed(),
                  static_cast<unsigned long long>(job.graph->graph.seed),
                  job.setting.label().c_str(), r->exitCode, r->signal ? " signal" : "",
                  r->seconds, v.kind == Verdict::Ok ? "ok" : v.signature.c_str());
    if (v.kind == Verdict::Ok) {
      ++ok;
    } else if (v.kind == Verdict::Rejected) {
      ++rejected;
      ++rejections[job.setting.mode + ": " + v.signature];
    } else {
      record(job, v, err);
    }
    if (job.setting.mode == "verify" && v.kind == Verdict::Ok && !stopping) {
      // Behind the graphs already queued, so that the runs of one graph go together.
      for (RunSetting &s : settingsFor(job.graph->graph, o))
        queue.push_back({job.graph, std::move(s)});
    }
  }
  pool.killAll();

  // Each new finding's graph, reduced to what still gives the same signature (not for
  // --compare bounds: the bound of an output depends on the whole graph).
  if (o.reduce)
    for (auto &[sig, f] : findings) {
      if (f.known || sig.find("relative error") != std::string::npos)
        continue;
      size_t tries = 0;
      std::string path = work + "/reduce.mlir";
      auto stillFails = [&](const std::string &text) {
        if (++tries > 300)
          return false;
        writeFile(path, text);
        std::vector<std::string> argv = {o.fp8c, path};
        for (const std::string &a : f.setting.args)
          argv.push_back(a);
        if (!pool.start(0, argv, "/dev/null", work + "/reduce.err", f.setting.timeout))
          return false;
        std::optional<ChildResult> r = pool.waitAny();
        if (!r)
          return false;
        std::string err = readFile(work + "/reduce.err", 1 << 16);
        Verdict v = classify(f.setting, *r, "", err, f.graph);
        if (v.signature != f.signature)
          return false;
        f.message = v.message;
        f.stderrText = err.substr(0, 4000);
        return true;
      };
      std::string reduced = reduceGraph(f.graphText, stillFails);
      if (reduced == f.graphText)
        continue;
      f.graphText = reduced;
      char name[16];
      std::snprintf(name, sizeof name, "%03zu-", f.index);
      fs::path dir = fs::path(o.out) / (name + slug(f.signature));
      writeFile(dir / "graph.mlir", "// " + f.signature + "\n// " + f.command + "\n" + reduced);
      writeFile(dir / "stderr", f.stderrText);
    }
  fs::remove_all(work, ec);

  double secs = elapsed();
  std::printf("fp8c-graph-fuzz: %lld graphs (seeds %llu..%llu), %zu fp8c runs in %.1f s\n",
              static_cast<long long>(generated), static_cast<unsigned long long>(o.seed),
              static_cast<unsigned long long>(o.seed + generated - 1), runs, secs);
  std::string modes;
  for (auto &[m, n] : perMode)
    modes += (modes.empty() ? "" : ", ") + m + " " + std::to_string(n);
  std::printf("  runs by mode: %s\n", modes.c_str());
  std::printf("  ok %zu, rejected with a located error %zu, known %zu, findings %zu\n", ok,
              rejected, knownRuns, findingRuns);
  if (o.verbose)
    for (auto &[sig, n] : rejections)
      std::printf("  rejected %zux: %s\n", n, sig.c_str());
  std::vector<const FindingRecord *> sorted;
  for (auto &[sig, f] : findings)
    sorted.push_back(&f);
  std::sort(sorted.begin(), sorted.end(),
            [](const FindingRecord *a, const FindingRecord *b) { return a->index < b->index; });
  size_t newFindings = 0;
  for (const FindingRecord *f : sorted) {
    newFindings += !f->known;
    std::string settings;
    size_t shown = 0;
    for (const std::string &s : f->settings)
      if (shown++ < 6)
        settings += (settings.empty() ? "" : ", ") + s;
    if (f->settings.size() > 6)
      settings += ", ...";
    std::string message = f->message;
    size_t at = message.find(": error: ");
    if (at != std::string::npos)
      message = "graph.mlir" + message.substr(message.rfind(':', message.rfind(':', at - 1) - 1));
    std::printf("%s %zu: %s\n  %zu runs, %zu graphs; settings: %s\n  %s\n",
                f->known ? "known" : "FINDING", f->index, f->signature.c_str(), f->runs,
                f->seeds.size(), settings.c_str(), message.c_str());
    if (!f->known)
      std::printf("  reproducer (seed %llu): %s/%03zu-%s/graph.mlir\n  %s\n",
                  static_cast<unsigned long long>(f->seed), o.out.c_str(), f->index,
                  slug(f->signature).c_str(), f->command.c_str());
  }
  std::printf("fp8c-graph-fuzz: %zu distinct finding%s (%zu known)\n", newFindings,
              newFindings == 1 ? "" : "s", sorted.size() - newFindings);
  return newFindings ? 1 : 0;
}
