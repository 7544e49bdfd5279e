// Random valid fp8c graphs (see GraphGenerator.h).
#include "GraphGenerator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <random>

namespace fp8c::fuzz {
namespace {

constexpr int64_t kDyn = -1;
constexpr int64_t kSizes[] = {1, 3, 17, 100, 129, 256, 4097};
/// Multiply-adds of one GEMM at the --run=cpu size of its dynamic dims (the interpreter runs
/// the graph twice under --compare, so each run stays well under a second).
constexpr int64_t kGemmBudget = int64_t(1) << 21;
/// Elements of one activation or weight.
constexpr int64_t kTensorBudget = int64_t(1) << 18;
/// Magnitudes a value may take: no overflow of f16, no flush of small values.
constexpr double kMinMag = 0.005, kMaxMag = 50;
/// Magnitudes a GEMM operand may have for the first step of `delayed` (scale 1) to represent
/// it in e4m3. Below twice the smallest normal (2^-6) the absolute rounding step 2^-9 grows
/// against the operand, and a GEMM output that cancels (one 1x1 output of K = 4097 at
/// magnitude 2^-6: 70 % error against 10 % under tensorwise) leaves the bound; above, 4 sigma
/// saturate at 448.
constexpr double kDelayedMinMag = 0.03125, kDelayedMaxMag = 100;

struct Val {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype;
  double mag = 1;
  double err = 0;
  bool delayedOk = true;
  /// Rank 1, u v^T (a GEMM over K = 1, an outer product, or a GEMM of such rows, or a
  /// one-operand op of such a value): its relative error is that of u and v.
  bool rank1 = false;
  bool input = false;
  bool param = false;  ///< a weight, bias or rank-0 input: not an activation
  bool terminal = false; ///< an FP8 value: only returned
  unsigned uses = 0;
};

std::string typeStr(const std::vector<int64_t> &shape, const std::string &dtype) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += (d == kDyn ? std::string("?") : std::to_string(d)) + "x";
  return s + dtype + ">";
}

class Generator {
public:
  explicit Generator(uint64_t seed) : rng_(seed * 0x9E3779B97F4A7C15ull + 1) { g_.seed = seed; }

  GeneratedGraph run() {
    dtype_ = pickWeighted<std::string>({{"bf16", 55}, {"f16", 25}, {"f32", 20}});
    g_.dynamicDim = pick<int64_t>({1, 3, 4, 17});
    g_.tokens = pick<int64_t>({1, 3, 17, 100, 129});
    bool dynamic = chance(0.4);
    int64_t m = dynamic ? kDyn : pickSize([](int64_t s) { return s <= 256; });
    bool rank3 = chance(0.08);
    int64_t k0 = pickSize([&](int64_t s) { return rows({m}) * s <= kTensorBudget; });
    if (rank3) {
      int64_t b = dynamic ? kDyn : pick<int64_t>({2, 3});
      int64_t s = pick<int64_t>({1, 3, 17});
      addActivationInput({b, s, k0});
    } else {
      addActivationInput({m, k0});
    }
    if (chance(0.35)) {
      int64_t k1 = pickSize([&](int64_t s) { return rows({m}) * s <= kTensorBudget; });
      addActivationInput({m, k1});
    }
    unsigned target = 1 + static_cast<unsigned>(rng_() % 7);
    for (unsigned tries = 0; g_.numOps < target && tries < 200; ++tries)
      step();
    if (g_.numOps == 0)
      emitUnary("fp8.relu", "relu", activations([](const Val &) { return true; }).front(), "");
    finish();
    return std::move(g_);
  }

private:
  // ---- randomness
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <class T> T pick(std::initializer_list<T> xs) {
    return *(xs.begin() + rng_() % xs.size());
  }
  template <class T> T pickWeighted(std::initializer_list<std::pair<T, int>> xs) {
    int total = 0;
    for (auto &x : xs)
      total += x.second;
    int r = static_cast<int>(rng_() % total);
    for (auto &x : xs)
      if ((r -= x.second) < 0)
        return x.first;
    return xs.begin()->first;
  }
  /// A size of kSizes that `ok` accepts (1 when none does).
  int64_t pickSize(const std::function<bool(int64_t)> &ok) {
    std::vector<int64_t> c;
    for (int64_t s : kSizes)
      if (ok(s))
        c.push_back(s);
    return c.empty() ? 1 : c[rng_() % c.size()];
  }
  int pickIndex(const std::vector<int> &c) {
    // Recent values more often: chains, with values used again now and then.
    if (chance(0.5))
      return c.back();
    return c[rng_() % c.size()];
  }

  // ---- sizes
  int64_t dimAtRun(int64_t d) const { return d == kDyn ? g_.dynamicDim : d; }
  int64_t rows(const std::vector<int64_t> &leading) const {
    int64_t r = 1;
    for (int64_t d : leading)
      r *= dimAtRun(d);
    return r;
  }
  int64_t rowsOf(const Val &v) const {
    return rows(std::vector<int64_t>(v.shape.begin(), v.shape.end() - 1));
  }
  static bool onlyLeadingDynamic(const std::vector<int64_t> &s) {
    for (size_t i = 1; i < s.size(); ++i)
      if (s[i] == kDyn)
        return false;
    return true;
  }

  // ---- values
  std::string freshName(const std::string &prefix) {
    int &n = names_[prefix];
    return n++ == 0 ? prefix : prefix + std::to_string(n - 1);
  }
  /// --random-inputs: static rank-2 inputs ~ N(0, 1/dim1), rank-1 ~ 0.1 N(0, 1), others N(0, 1).
  static double inputMag(const std::vector<int64_t> &s) {
    if (s.size() == 2 && s[0] != kDyn && s[1] != kDyn)
      return 1 / std::sqrt(static_cast<double>(s[1]));
    if (s.size() == 1)
      return 0.1;
    return 1;
  }
  int addInput(const std::string &prefix, std::vector<int64_t> shape, const std::string &dtype,
               bool param) {
    Val v;
    v.name = freshName(prefix);
    v.shape = std::move(shape);
    v.dtype = dtype;
    v.mag = inputMag(v.shape);
    v.input = true;
    v.param = param;
    if (v.shape.size() > 0 && v.shape[0] == kDyn)
      g_.dynamic = true;
    std::string arg = "%" + v.name + ": " + typeStr(v.shape, v.dtype);
    if (param && v.shape.size() == 2 && chance(0.2))
      arg += " {fp8.param = true}";
    args_.push_back(arg);
    vals_.push_back(std::move(v));
    return static_cast<int>(vals_.size()) - 1;
  }
  int addActivationInput(std::vector<int64_t> shape) { return addInput("x", shape, dtype_, false); }

  std::vector<int> activations(const std::function<bool(const Val &)> &ok) const {
    std::vector<int> c;
    for (size_t i = 0; i < vals_.size(); ++i)
      if (!vals_[i].param && !vals_[i].terminal && ok(vals_[i]))
        c.push_back(static_cast<int>(i));
    return c;
  }

  /// Emits `%r = op operands {attrs} : (types) -> type` and records the result.
  int emit(const std::string &op, const std::string &prefix, const std::vector<int> &operands,
           const std::string &attrs, std::vector<int64_t> shape, const std::string &dtype,
           double mag, double err, bool delayedOk) {
    Val r;
    r.name = freshName(prefix);
    r.shape = std::move(shape);
    r.dtype = dtype;
    r.mag = mag;
    r.err = err;
    r.delayedOk = delayedOk;
    if (operands.size() == 1)
      r.rank1 = vals_[operands[0]].rank1;
    std::string line = "  %" + r.name + " = " + op + " ";
    std::string types;
    for (size_t i = 0; i < operands.size(); ++i) {
      Val &o = vals_[operands[i]];
      ++o.uses;
      line += (i ? ", %" : "%") + o.name;
      types += (i ? ", " : "") + typeStr(o.shape, o.dtype);
    }
    if (!attrs.empty())
      line += " {" + attrs + "}";
    line += " : (" + types + ") -> " + typeStr(r.shape, r.dtype);
    body_.push_back(line);
    vals_.push_back(std::move(r));
    ++g_.numOps;
    return static_cast<int>(vals_.size()) - 1;
  }
  bool magOk(double m) const { return m >= kMinMag && m <= kMaxMag; }
  static bool delayedMagOk(double m) { return m >= kDelayedMinMag && m <= kDelayedMaxMag; }

  // ---- ops
  void step() {
    switch (pickWeighted<int>({{0, 30}, {1, 7}, {2, 10}, {3, 8}, {4, 6}, {5, 8}, {6, 6},
                               {7, 6}, {8, 5}, {9, 5}, {10, 4}})) {
    case 0:
      linear();
      break;
    case 1:
      matmul();
      break;
    case 2:
      binary("fp8.add", "sum");
      break;
    case 3:
      binary("fp8.mul", "prod");
      break;
    case 4:
      unary("fp8.relu", "relu");
      break;
    case 5:
      unary("fp8.gelu", "gelu");
      break;
    case 6:
      unary("fp8.silu", "silu");
      break;
    case 7:
      swiglu();
      break;
    case 8:
      siluMul();
      break;
    case 9:
      convert();
      break;
    case 10:
      transpose();
      break;
    }
  }

  bool linear() {
    std::vector<int> c = activations([&](const Val &v) {
      return v.shape.size() >= 2 && v.shape.back() != kDyn && onlyLeadingDynamic(v.shape);
    });
    if (c.empty())
      return false;
    const int x = pickIndex(c);
    const int64_t k = vals_[x].shape.back(), rws = rowsOf(vals_[x]);
    const std::string dt = vals_[x].dtype;
    auto fits = [&](int64_t n) { return rws * n * k <= kGemmBudget && n * k <= kTensorBudget; };
    int w = -1;
    std::vector<int> shared;
    for (auto &[key, idx] : weights_)
      if (vals_[idx].shape[1] == k && vals_[idx].dtype == dt && fits(vals_[idx].shape[0]))
        shared.push_back(idx);
    if (!shared.empty() && chance(0.5)) {
      w = shared[rng_() % shared.size()];
    } else {
      if (!fits(1))
        return false;
      int64_t n = pickSize(fits);
      w = addInput("w", {n, k}, dt, true);
      weights_.push_back({n, w});
    }
    const int64_t n = vals_[w].shape[0];
    std::vector<int> operands = {x, w};
    double mag = vals_[x].mag * vals_[w].mag * std::sqrt(static_cast<double>(k));
    if (chance(0.5)) {
      int b = -1;
      for (int idx : biases_)
        if (vals_[idx].shape[0] == n && vals_[idx].dtype == dt && chance(0.6))
          b = idx;
      if (b < 0) {
        b = addInput("b", {n}, dt, true);
        biases_.push_back(b);
      }
      operands.push_back(b);
      mag = std::sqrt(mag * mag + 0.01);
    }
    if (!magOk(mag))
      return false;
    std::vector<int64_t> shape = vals_[x].shape;
    shape.back() = n;
    if (shape.size() > 2)
      g_.rank3 = true;
    bool dok = vals_[x].delayedOk && delayedMagOk(vals_[x].mag) && delayedMagOk(vals_[w].mag);
    const bool rank1 = k == 1 || vals_[x].rank1;
    int y = emit("fp8.linear", "y", operands, "", shape, dt, mag, vals_[x].err + 1, dok);
    vals_[y].rank1 = rank1;
    return true;
  }

  bool matmul() {
    std::vector<int> c = activations([](const Val &v) { return v.shape.size() == 2; });
    if (c.empty())
      return false;
    const int a = pickIndex(c);
    const Val av = vals_[a];
    const int64_t k = av.shape[1], rws = dimAtRun(av.shape[0]);
    auto fits = [&](int64_t n) {
      return rws * n * dimAtRun(k) <= kGemmBudget && n * dimAtRun(k) <= kTensorBudget;
    };
    int b = -1;
    int choice = static_cast<int>(rng_() % 3);
    if (choice == 2) { // an activation [K, N]: e.g. a transposed one
      std::vector<int> bs = activations([&](const Val &v) {
        return v.shape.size() == 2 && v.shape[0] == k && v.dtype == av.dtype &&
               v.shape[1] != kDyn && fits(v.shape[1]);
      });
      if (!bs.empty())
        b = bs[rng_() % bs.size()];
      else
        choice = 0;
    }
    if (choice == 1) { // a weight [N, K] transposed
      std::vector<int> ws;
      for (auto &[key, idx] : weights_)
        if (vals_[idx].shape[1] == k && vals_[idx].dtype == av.dtype && fits(vals_[idx].shape[0]))
          ws.push_back(idx);
      if (ws.empty()) {
        choice = 0;
      } else {
        int w = ws[rng_() % ws.size()];
        const Val wv = vals_[w];
        b = emit("fp8.transpose", "wt", {w}, "", {wv.shape[1], wv.shape[0]}, wv.dtype, wv.mag,
                 wv.err, wv.delayedOk);
      }
    }
    if (choice == 0) { // a new [K, N] input
      if (k == kDyn || !fits(1))
        return false;
      int64_t n = pickSize(fits);
      b = addInput("rhs", {k, n}, av.dtype, true);
    }
    const Val bv = vals_[b];
    double mag = av.mag * bv.mag * std::sqrt(static_cast<double>(dimAtRun(k)));
    if (!magOk(mag))
      return false;
    bool dok = av.delayedOk && bv.delayedOk && delayedMagOk(av.mag) && delayedMagOk(bv.mag);
    const bool rank1 = k == 1 || av.rank1;
    int mm = emit("fp8.matmul", "mm", {a, b}, "", {av.shape[0], bv.shape[1]}, av.dtype, mag,
         av.err + bv.err + 1, dok);
    vals_[mm].rank1 = rank1;
    return true;
  }

  /// A second operand of the same type as `a`: an existing value (maybe `a` itself) or a new
  /// input; -1 when neither is possible.
  int partnerOf(int a, bool allowNew) {
    const Val av = vals_[a];
    std::vector<int> c = activations([&](const Val &v) {
      return v.shape == av.shape && v.dtype == av.dtype;
    });
    if (allowNew && onlyLeadingDynamic(av.shape) && av.shape.size() >= 1 &&
        (c.size() == 1 || chance(0.4)))
      return addInput("r", av.shape, av.dtype, false);
    return c[rng_() % c.size()];
  }

  bool binary(const std::string &op, const std::string &prefix) {
    std::vector<int> c = activations([](const Val &v) { return !v.shape.empty(); });
    if (c.empty())
      return false;
    int a = pickIndex(c);
    int b;
    if (chance(0.08)) {
      b = -1;
      for (int idx : scalars_)
        if (vals_[idx].dtype == vals_[a].dtype)
          b = idx;
      if (b < 0 || chance(0.5)) {
        b = addInput("s", {}, vals_[a].dtype, true);
        scalars_.push_back(b);
      }
    } else {
      b = partnerOf(a, true);
    }
    if (chance(0.5))
      std::swap(a, b);
    const Val av = vals_[a], bv = vals_[b];
    bool isAdd = op == "fp8.add";
    double mag = isAdd ? std::sqrt(av.mag * av.mag + bv.mag * bv.mag) : av.mag * bv.mag;
    if (!magOk(mag))
      return false;
    double err = isAdd ? std::max(av.err, bv.err) : av.err + bv.err;
    const Val &shaped = av.shape.empty() ? bv : av;
    emit(op, prefix, {a, b}, "", shaped.shape, shaped.dtype, mag, err,
         av.delayedOk && bv.delayedOk);
    return true;
  }

  int emitUnary(const std::string &op, const std::string &prefix, int a, const std::string &attrs) {
    const Val av = vals_[a];
    return emit(op, prefix, {a}, attrs, av.shape, av.dtype, std::max(av.mag * 0.6, kMinMag),
                av.err, av.delayedOk);
  }

  bool unary(const std::string &op, const std::string &prefix) {
    std::vector<int> c = activations([](const Val &v) { return !v.shape.empty(); });
    if (c.empty())
      return false;
    std::string attrs;
    if (op == "fp8.gelu")
      attrs = pick<std::string>({"", "approximate = \"none\"", "approximate = \"tanh\"",
                                 "approximate = \"tanh\""});
    emitUnary(op, prefix, pickIndex(c), attrs);
    return true;
  }

  bool swiglu() {
    std::vector<int> c = activations([](const Val &v) { return !v.shape.empty(); });
    if (c.empty())
      return false;
    int a = pickIndex(c);
    int b = partnerOf(a, true);
    const Val av = vals_[a], bv = vals_[b];
    double mag = 0.5 * av.mag * bv.mag;
    if (!magOk(mag))
      return false;
    emit("fp8.swiglu", "act", {a, b}, "", av.shape, av.dtype, mag, av.err + bv.err,
         av.delayedOk && bv.delayedOk);
    return true;
  }

  /// The SwiGLU written out: silu(gate) * up.
  bool siluMul() {
    std::vector<int> c = activations([](const Val &v) { return !v.shape.empty(); });
    if (c.empty())
      return false;
    int a = pickIndex(c);
    int b = partnerOf(a, true);
    const Val av = vals_[a], bv = vals_[b];
    double mag = 0.5 * av.mag * bv.mag;
    if (!magOk(mag) || !magOk(av.mag * 0.6))
      return false;
    int s = emitUnary("fp8.silu", "gate", a, "");
    emit("fp8.mul", "act", {s, b}, "", av.shape, av.dtype, mag, av.err + bv.err,
         av.delayedOk && bv.delayedOk);
    return true;
  }

  bool convert() {
    std::vector<int> c = activations([](const Val &v) { return !v.shape.empty(); });
    if (c.empty())
      return false;
    int a = pickIndex(c);
    const Val av = vals_[a];
    std::string to;
    bool fp8 = chance(0.1) && av.mag >= 0.05 && av.mag * 4 < 448;
    if (fp8) {
      to = pick<std::string>({"f8E4M3FN", "f8E5M2"});
    } else {
      std::vector<std::string> others;
      for (const char *d : {"bf16", "f16", "f32"})
        if (av.dtype != d)
          others.push_back(d);
      to = others[rng_() % others.size()];
    }
    int r = emit("fp8.convert", "cvt", {a}, "", av.shape, to, av.mag, av.err, av.delayedOk);
    vals_[r].terminal = fp8;
    return true;
  }

  bool transpose() {
    std::vector<int> c = activations([](const Val &v) { return v.shape.size() == 2; });
    if (c.empty())
      return false;
    int a = pickIndex(c);
    const Val av = vals_[a];
    emit("fp8.transpose", "t", {a}, "", {av.shape[1], av.shape[0]}, av.dtype, av.mag, av.err,
         av.delayedOk);
    return true;
  }

  // ---- the function
  void finish() {
    std::vector<int> outs;
    std::vector<int> unused;
    for (size_t i = 0; i < vals_.size(); ++i)
      if (!vals_[i].input && vals_[i].uses == 0)
        unused.push_back(static_cast<int>(i));
    // Now and then a dead value (not returned): dce removes it.
    for (size_t j = 0; j < unused.size(); ++j)
      if (!(j + 1 < unused.size() && !vals_[unused[j]].terminal && chance(0.05)))
        outs.push_back(unused[j]);
    if (chance(0.3)) { // a value used by later ops, returned as well
      std::vector<int> used;
      for (size_t i = 0; i < vals_.size(); ++i)
        if (!vals_[i].input && vals_[i].uses > 0)
          used.push_back(static_cast<int>(i));
      if (!used.empty())
        outs.insert(outs.begin() + static_cast<long>(rng_() % (outs.size() + 1)),
                    used[rng_() % used.size()]);
    }
    if (chance(0.05)) // the same value returned twice
      outs.push_back(outs[rng_() % outs.size()]);
    if (chance(0.03)) // an input returned as it is
      outs.push_back(0);

    std::string results, retNames, retTypes;
    for (size_t i = 0; i < outs.size(); ++i) {
      const Val &v = vals_[outs[i]];
      results += (i ? ", " : "") + typeStr(v.shape, v.dtype);
      retNames += (i ? ", %" : "%") + v.name;
      retTypes += (i ? ", " : "") + typeStr(v.shape, v.dtype);
      GeneratedOutput o;
      o.name = v.name;
      o.errorWeight = v.err;
      o.delayedComparable = v.delayedOk;
      o.fp8 = v.terminal;
      for (int64_t d : v.shape)
        o.elements *= dimAtRun(d);
      if (v.rank1 && !v.shape.empty()) { // u v^T: as good as the shorter of u and v
        const int64_t cols = dimAtRun(v.shape.back());
        o.elements = std::min(cols, o.elements / std::max<int64_t>(cols, 1));
      }
      g_.outputs.push_back(o);
    }
    std::string text = "// fp8c-graph-fuzz seed " + std::to_string(g_.seed) + "\n";
    text += "func.func @g(";
    for (size_t i = 0; i < args_.size(); ++i)
      text += (i ? ", " : "") + args_[i];
    text += ") -> (" + results + ") {\n";
    for (const std::string &l : body_)
      text += l + "\n";
    text += "  return " + retNames + " : " + retTypes + "\n}\n";
    g_.text = std::move(text);
  }

  std::mt19937_64 rng_;
  GeneratedGraph g_;
  std::string dtype_;
  std::vector<Val> vals_;
  std::vector<std::string> args_, body_;
  std::vector<std::pair<int64_t, int>> weights_; ///< (N, value) of each weight input
  std::vector<int> biases_, scalars_;
  std::map<std::string, int> names_;
};

} // namespace

GeneratedGraph generateGraph(uint64_t seed) { return Generator(seed).run(); }

} // namespace fp8c::fuzz
