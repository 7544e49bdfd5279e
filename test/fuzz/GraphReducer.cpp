// Graph reduction (see GraphReducer.h).
#include "GraphReducer.h"

#include <regex>
#include <sstream>
#include <vector>

namespace fp8c::fuzz {
namespace {

struct Arg {
  std::string name, text; ///< `x`, `%x: tensor<...> {attrs}`
};
struct OpLine {
  std::string result, type, text; ///< `y`, its type, the whole line
};
struct Ret {
  std::string name, type;
};

struct Graph {
  std::vector<std::string> comments;
  std::vector<Arg> args;
  std::vector<OpLine> ops;
  std::vector<Ret> rets;

  std::string str() const {
    std::string s;
    for (const std::string &c : comments)
      s += c + "\n";
    s += "func.func @g(";
    for (size_t i = 0; i < args.size(); ++i)
      s += (i ? ", " : "") + args[i].text;
    s += ") -> (";
    for (size_t i = 0; i < rets.size(); ++i)
      s += (i ? ", " : "") + rets[i].type;
    s += ") {\n";
    for (const OpLine &o : ops)
      s += o.text + "\n";
    s += "  return ";
    for (size_t i = 0; i < rets.size(); ++i)
      s += (i ? ", %" : "%") + rets[i].name;
    s += " : ";
    for (size_t i = 0; i < rets.size(); ++i)
      s += (i ? ", " : "") + rets[i].type;
    return s + "\n}\n";
  }

  bool uses(const std::string &name) const {
    std::regex use("%" + name + "(?![A-Za-z0-9_])");
    for (const OpLine &o : ops) {
      size_t eq = o.text.find(" = ");
      if (std::regex_search(o.text.substr(eq == std::string::npos ? 0 : eq), use))
        return true;
    }
    for (const Ret &r : rets)
      if (r.name == name)
        return true;
    return false;
  }
};

std::vector<std::string> split(const std::string &s, const std::string &sep) {
  std::vector<std::string> v;
  size_t b = 0;
  while (true) {
    size_t e = s.find(sep, b);
    v.push_back(s.substr(b, e - b));
    if (e == std::string::npos)
      return v;
    b = e + sep.size();
  }
}

bool parse(const std::string &text, Graph &g) {
  std::istringstream in(text);
  std::string l;
  static const std::regex head(R"(^func\.func @g\((.*)\) -> \((.*)\) \{$)");
  static const std::regex op(R"(^  %([A-Za-z0-9_]+) = .* -> (tensor<[^>]*>)$)");
  static const std::regex ret(R"(^  return (.*) : (.*)$)");
  bool inBody = false, done = false;
  while (std::getline(in, l)) {
    std::smatch m;
    if (!inBody) {
      if (l.rfind("//", 0) == 0) {
        g.comments.push_back(l);
        continue;
      }
      if (!std::regex_match(l, m, head))
        return false;
      for (const std::string &a : split(m[1], ", %")) {
        std::string t = a[0] == '%' ? a : "%" + a;
        g.args.push_back({t.substr(1, t.find(':') - 1), t});
      }
      inBody = true;
      continue;
    }
    if (std::regex_match(l, m, op)) {
      g.ops.push_back({m[1], m[2], l});
    } else if (std::regex_match(l, m, ret)) {
      std::vector<std::string> names = split(m[1], ", "), types = split(m[2], ", ");
      if (names.size() != types.size())
        return false;
      for (size_t i = 0; i < names.size(); ++i)
        g.rets.push_back({names[i].substr(1), types[i]});
      done = true;
    } else if (l != "}") {
      return false;
    }
  }
  return done;
}

} // namespace

std::string reduceGraph(const std::string &text,
                        const std::function<bool(const std::string &)> &stillFails) {
  Graph g;
  if (!parse(text, g))
    return text;
  bool changed = true;
  while (changed) {
    changed = false;
    // Fewer results.
    for (size_t i = 0; g.rets.size() > 1 && i < g.rets.size(); ++i) {
      Graph c = g;
      c.rets.erase(c.rets.begin() + static_cast<long>(i));
      if (stillFails(c.str())) {
        g = c;
        changed = true;
        --i;
      }
    }
    // Dead ops go at once (with their unused inputs); then each op in turn becomes an input.
    {
      Graph c = g;
      bool dropped = true;
      while (dropped) {
        dropped = false;
        for (size_t i = c.ops.size(); i-- > 0;)
          if (!c.uses(c.ops[i].result)) {
            c.ops.erase(c.ops.begin() + static_cast<long>(i));
            dropped = true;
          }
      }
      for (size_t i = c.args.size(); i-- > 0;)
        if (!c.uses(c.args[i].name))
          c.args.erase(c.args.begin() + static_cast<long>(i));
      if (c.str() != g.str() && stillFails(c.str())) {
        g = c;
        changed = true;
      }
    }
    for (size_t i = 0; i < g.ops.size(); ++i) {
      Graph c = g;
      c.args.push_back({c.ops[i].result, "%" + c.ops[i].result + ": " + c.ops[i].type});
      c.ops.erase(c.ops.begin() + static_cast<long>(i));
      for (size_t j = c.args.size(); j-- > 0;)
        if (!c.uses(c.args[j].name))
          c.args.erase(c.args.begin() + static_cast<long>(j));
      if (stillFails(c.str())) {
        g = c;
        changed = true;
        --i;
      }
    }
  }
  return g.str();
}

} // namespace fp8c::fuzz
