// Shape file parsing and the per-shape graph text, GEMM list and counts.
#include "bench/Shapes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

namespace fp8c::bench {
namespace {

std::string funcName(const std::string &name) {
  std::string f;
  for (char c : name)
    f += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return f;
}

std::string t2(int64_t a, int64_t b) { return fmt::format("tensor<{}x{}xbf16>", a, b); }
std::string tm(int64_t b) { return fmt::format("tensor<?x{}xbf16>", b); }
std::string t1(int64_t a) { return fmt::format("tensor<{}xbf16>", a); }

} // namespace

std::string Shape::dims() const {
  if (kind == ShapeKind::Linear)
    return fmt::format("M={} K={} N={}", m, k, n);
  return fmt::format("M={} D={} H={}", m, d, h);
}

Expected<std::vector<Shape>> parseShapes(const std::string &text, const std::string &file) {
  std::vector<Shape> out;
  std::istringstream in(text);
  std::string line;
  for (int lineNo = 1; std::getline(in, line); ++lineNo) {
    if (auto hash = line.find('#'); hash != std::string::npos)
      line.resize(hash);
    std::istringstream ls(line);
    std::vector<std::string> tok;
    for (std::string t; ls >> t;)
      tok.push_back(t);
    if (tok.empty())
      continue;
    auto fail = [&](const std::string &msg) {
      return Error(fmt::format("{}:{}: {}", file, lineNo, msg));
    };
    if (tok.size() < 3)
      return fail("expected NAME KIND key=value...");
    Shape s;
    s.name = tok[0];
    if (tok[1] == "linear")
      s.kind = ShapeKind::Linear;
    else if (tok[1] == "mlp")
      s.kind = ShapeKind::Mlp;
    else if (tok[1] == "swiglu")
      s.kind = ShapeKind::Swiglu;
    else
      return fail("unknown kind '" + tok[1] + "' (linear, mlp, swiglu)");
    std::map<std::string, int64_t> kv;
    for (size_t i = 2; i < tok.size(); ++i) {
      const std::string &t = tok[i];
      if (t == "bias") {
        s.bias = true;
        continue;
      }
      if (t == "graph") {
        s.cudaGraph = true;
        continue;
      }
      if (t == "residual") {
        s.residual = true;
        continue;
      }
      auto eq = t.find('=');
      if (eq == std::string::npos)
        return fail("expected key=value or a flag (bias, graph, residual), got '" + t + "'");
      std::string key = t.substr(0, eq);
      char *end = nullptr;
      long long v = std::strtoll(t.c_str() + eq + 1, &end, 10);
      if (*end != '\0' || v <= 0)
        return fail("'" + key + "' needs a positive integer, got '" + t.substr(eq + 1) + "'");
      kv[key] = v;
    }
    std::vector<std::string> need = s.kind == ShapeKind::Linear ? std::vector<std::string>{"M", "K", "N"}
                                                                : std::vector<std::string>{"M", "D", "H"};
    for (const std::string &key : need)
      if (!kv.count(key))
        return fail("shape '" + s.name + "' needs " + key + "=");
    for (const auto &[key, v] : kv)
      if (std::find(need.begin(), need.end(), key) == need.end())
        return fail("unknown key '" + key + "' for kind " + tok[1]);
    if ((s.bias || s.residual) && s.kind != ShapeKind::Linear)
      return fail("the bias and residual flags apply to linear shapes only");
    s.m = kv["M"];
    s.k = kv.count("K") ? kv["K"] : 0;
    s.n = kv.count("N") ? kv["N"] : 0;
    s.d = kv.count("D") ? kv["D"] : 0;
    s.h = kv.count("H") ? kv["H"] : 0;
    for (const Shape &o : out)
      if (o.name == s.name)
        return fail("duplicate shape name '" + s.name + "'");
    out.push_back(s);
  }
  if (out.empty())
    return Error(file + ": no shapes");
  return out;
}

std::string graphText(const Shape &s) {
  std::string f = funcName(s.name);
  switch (s.kind) {
  case ShapeKind::Linear: {
    std::string bArg = s.bias ? fmt::format(", %b: {}", t1(s.n)) : "";
    std::string bUse = s.bias ? ", %b" : "";
    std::string bTy = s.bias ? ", " + t1(s.n) : "";
    std::string rArg = s.residual ? fmt::format(", %r: {}", tm(s.n)) : "";
    std::string out = s.residual ? "%z" : "%y";
    std::string add = s.residual ? fmt::format("  %z = fp8.add %y, %r : ({y}, {y}) -> {y}\n",
                                               fmt::arg("y", tm(s.n)))
                                 : "";
    return fmt::format("func.func @{f}(%x: {x}, %w: {w}{ba}{ra}) -> {y} {{\n"
                       "  %y = fp8.linear %x, %w{bu} : ({x}, {w}{bt}) -> {y}\n"
                       "{add}"
                       "  return {out} : {y}\n}}\n",
                       fmt::arg("f", f), fmt::arg("x", tm(s.k)), fmt::arg("w", t2(s.n, s.k)),
                       fmt::arg("y", tm(s.n)), fmt::arg("ba", bArg), fmt::arg("bu", bUse),
                       fmt::arg("bt", bTy), fmt::arg("ra", rArg), fmt::arg("add", add),
                       fmt::arg("out", out));
  }
  case ShapeKind::Mlp:
    return fmt::format(
        "func.func @{f}(%x: {x}, %w1: {w1}, %b1: {b1}, %w2: {w2}, %b2: {b2}) -> {x} {{\n"
        "  %h = fp8.linear %x, %w1, %b1 : ({x}, {w1}, {b1}) -> {hh}\n"
        "  %g = fp8.gelu %h {{approximate = \"tanh\"}} : ({hh}) -> {hh}\n"
        "  %y = fp8.linear %g, %w2, %b2 : ({hh}, {w2}, {b2}) -> {x}\n"
        "  return %y : {x}\n}}\n",
        fmt::arg("f", f), fmt::arg("x", tm(s.d)), fmt::arg("hh", tm(s.h)),
        fmt::arg("w1", t2(s.h, s.d)), fmt::arg("b1", t1(s.h)), fmt::arg("w2", t2(s.d, s.h)),
        fmt::arg("b2", t1(s.d)));
  case ShapeKind::Swiglu:
    return fmt::format(
        "func.func @{f}(%x: {x}, %w_gate: {w1}, %w_up: {w1}, %w_down: {w2}) -> {x} {{\n"
        "  %gate = fp8.linear %x, %w_gate : ({x}, {w1}) -> {hh}\n"
        "  %up = fp8.linear %x, %w_up : ({x}, {w1}) -> {hh}\n"
        "  %h = fp8.swiglu %gate, %up : ({hh}, {hh}) -> {hh}\n"
        "  %y = fp8.linear %h, %w_down : ({hh}, {w2}) -> {x}\n"
        "  return %y : {x}\n}}\n",
        fmt::arg("f", f), fmt::arg("x", tm(s.d)), fmt::arg("hh", tm(s.h)),
        fmt::arg("w1", t2(s.h, s.d)), fmt::arg("w2", t2(s.d, s.h)));
  }
  return "";
}

std::vector<GemmDims> gemmsOf(const Shape &s) {
  switch (s.kind) {
  case ShapeKind::Linear:
    return {{s.m, s.n, s.k, s.bias}};
  case ShapeKind::Mlp:
    return {{s.m, s.h, s.d, true}, {s.m, s.d, s.h, true}};
  case ShapeKind::Swiglu:
    return {{s.m, s.h, s.d, false}, {s.m, s.h, s.d, false}, {s.m, s.d, s.h, false}};
  }
  return {};
}

double flopsOf(const Shape &s) {
  double f = 0;
  for (const GemmDims &g : gemmsOf(s))
    f += 2.0 * double(g.m) * double(g.n) * double(g.k);
  return f;
}

double ioBytesOf(const Shape &s, int weightBytes) {
  double in = 0, w = 0, bias = 0, out = 0;
  switch (s.kind) {
  case ShapeKind::Linear:
    in = double(s.m) * s.k;
    w = double(s.n) * s.k;
    bias = s.bias ? s.n : 0;
    out = double(s.m) * s.n * (s.residual ? 2 : 1); // r read, z written
    break;
  case ShapeKind::Mlp:
    in = out = double(s.m) * s.d;
    w = 2.0 * s.h * s.d;
    bias = s.h + s.d;
    break;
  case ShapeKind::Swiglu:
    in = out = double(s.m) * s.d;
    w = 3.0 * s.h * s.d;
    break;
  }
  return 2 * in + weightBytes * w + 2 * bias + 2 * out;
}

double fp8GemmBytesOf(const Shape &s) {
  double b = 0;
  for (const GemmDims &g : gemmsOf(s))
    b += double(g.m) * g.k + double(g.n) * g.k + 2.0 * g.m * g.n + (g.bias ? 2.0 * g.n : 0);
  return b;
}

} // namespace fp8c::bench
