// Printer for the text format. Names are chosen once per function, in text order (inputs, then
// each op's results before its region's arguments), so the output is valid MLIR and parses back
// to the same text: a name hint is used when free, else `hint_1`, `hint_2`, ...; values without
// a hint, or whose numeric hint (`%3`) is taken, get `%0`, `%1`, ... (results) or `%arg0`, ...
// (block arguments).
#include "ir/Printer.h"

#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace fp8c {
namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isSsaChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c) || c == '_' || c == '$' ||
         c == '.' || c == '-';
}

/// A hint as a valid MLIR SSA name: `[A-Za-z_$.-][A-Za-z0-9_$.-]*` or all digits.
std::string sanitize(std::string_view hint) {
  bool allDigits = true;
  for (char c : hint)
    allDigits = allDigits && isDigit(c);
  if (allDigits)
    return std::string(hint);
  std::string out;
  if (isDigit(hint[0]))
    out += '_';
  for (char c : hint)
    out += isSsaChar(c) ? c : '_';
  return out;
}

class GraphPrinter {
public:
  GraphPrinter(const Graph &g, std::ostream &os) : g_(g), os_(os) {}
  void print();

private:
  void nameBlock(const Block &b);
  void assign(const Value *v, bool isArg);
  const std::string &nameOf(const Value *v);
  std::string valueList(std::span<Value *const> values);
  static std::string typeList(std::span<Value *const> values);
  static std::string typeList(std::span<const TensorType> types);
  void printBlock(const Block &b, unsigned indent);
  void printOp(const Op &op, unsigned indent);

  const Graph &g_;
  std::ostream &os_;
  std::unordered_map<const Value *, std::string> names_;
  std::unordered_set<std::string> used_;
  std::unordered_map<std::string, unsigned> nextSuffix_;
  unsigned nextResult_ = 0, nextArg_ = 0;
};

void GraphPrinter::assign(const Value *v, bool isArg) {
  std::string name = v->name().empty() ? "" : sanitize(v->name());
  if (!name.empty() && used_.count(name)) {
    if (isDigit(name[0])) {
      // `%0_1` is not one MLIR name (a number ends at its last digit): a taken number is
      // replaced by a fresh one, as an unnamed value would get.
      name.clear();
    } else {
      std::string base = name;
      unsigned &n = nextSuffix_[base];
      do
        name = base + "_" + std::to_string(++n);
      while (used_.count(name));
    }
  }
  if (name.empty()) {
    unsigned &n = isArg ? nextArg_ : nextResult_;
    do
      name = (isArg ? "arg" : "") + std::to_string(n++);
    while (used_.count(name));
  }
  used_.insert(name);
  names_[v] = std::move(name);
}

void GraphPrinter::nameBlock(const Block &b) {
  for (unsigned i = 0; i < b.numArguments(); ++i)
    assign(b.argument(i), /*isArg=*/true);
  for (const auto &op : b.ops()) {
    for (unsigned i = 0; i < op->numResults(); ++i)
      assign(op->result(i), /*isArg=*/false);
    if (op->body())
      nameBlock(*op->body());
  }
}

const std::string &GraphPrinter::nameOf(const Value *v) {
  auto it = names_.find(v);
  if (it == names_.end()) {
    // A value this function does not define (invalid IR): give it a fresh name so the output
    // still shows the use.
    assign(v, v->isBlockArgument());
    it = names_.find(v);
  }
  return it->second;
}

std::string GraphPrinter::valueList(std::span<Value *const> values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? ", %" : "%") + (values[i] ? nameOf(values[i]) : std::string("<<null>>"));
  return out;
}

std::string GraphPrinter::typeList(std::span<Value *const> values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? ", " : "") + (values[i] ? values[i]->type().str() : std::string("<<null>>"));
  return out;
}

std::string GraphPrinter::typeList(std::span<const TensorType> types) {
  std::string out;
  for (size_t i = 0; i < types.size(); ++i)
    out += (i ? ", " : "") + types[i].str();
  return out;
}

void GraphPrinter::printBlock(const Block &b, unsigned indent) {
  for (const auto &op : b.ops())
    printOp(*op, indent);
}

void GraphPrinter::printOp(const Op &op, unsigned indent) {
  const std::string pad(indent, ' ');
  os_ << pad;
  if (op.numResults() > 0) {
    std::vector<Value *> results = op.results();
    os_ << valueList(results) << " = ";
  }
  const OpKind kind = op.kind();
  os_ << (kind == OpKind::Return ? std::string_view("return") : op.name());

  if (op.info().has(kTerminator)) {
    // return %a, %b {attrs} : Ta, Tb
    if (op.numOperands() > 0)
      os_ << " " << valueList(op.operands());
    if (!op.attrs().empty())
      os_ << " " << op.attrs().str();
    if (op.numOperands() > 0)
      os_ << " : " << typeList(op.operands());
  } else {
    std::string attrs;
    if (kind == OpKind::Kernel) {
      // fp8.kernel "kind" (%a, %b) {attrs} : ...   (`kind` prints positionally when a string)
      const Attribute *k = op.attr("kind");
      bool positional = k && k->kind() == AttrKind::String;
      if (positional)
        os_ << " " << k->str();
      os_ << " (" << valueList(op.operands()) << ")";
      attrs = positional ? op.attrs().str({"kind"}) : op.attrs().str();
    } else {
      if (op.numOperands() > 0)
        os_ << " " << valueList(op.operands());
      attrs = op.attrs().str();
    }
    if (!attrs.empty())
      os_ << " " << attrs;
    std::vector<TensorType> resultTypes;
    for (unsigned i = 0; i < op.numResults(); ++i)
      resultTypes.push_back(op.result(i)->type());
    os_ << " : (" << typeList(op.operands()) << ") -> ";
    if (resultTypes.size() == 1)
      os_ << resultTypes[0].str();
    else
      os_ << "(" << typeList(resultTypes) << ")";
  }

  if (const Block *body = op.body()) {
    os_ << " {\n" << pad << "^bb0";
    if (body->numArguments() > 0) {
      os_ << "(";
      for (unsigned i = 0; i < body->numArguments(); ++i)
        os_ << (i ? ", %" : "%") << nameOf(body->argument(i)) << ": "
            << body->argument(i)->type().str();
      os_ << ")";
    }
    os_ << ":\n";
    printBlock(*body, indent + 2);
    os_ << pad << "}";
  }
  os_ << "\n";
}

void GraphPrinter::print() {
  nameBlock(g_.body());
  os_ << "func.func @" << (isBareIdentifier(g_.name()) ? g_.name() : quoteString(g_.name())) << "(";
  for (unsigned i = 0; i < g_.numInputs(); ++i) {
    const Value *in = g_.input(i);
    os_ << (i ? ", %" : "%") << nameOf(in) << ": " << in->type().str();
    if (!g_.inputAttrs(i).empty())
      os_ << " " << g_.inputAttrs(i).str();
  }
  os_ << ")";

  const std::vector<TensorType> &results = g_.resultTypes();
  const std::vector<AttrDict> &resultAttrs = g_.resultAttrs();
  auto attrsOf = [&](size_t i) {
    return i < resultAttrs.size() ? resultAttrs[i].str() : std::string();
  };
  bool anyAttrs = false;
  for (size_t i = 0; i < results.size(); ++i)
    anyAttrs = anyAttrs || !attrsOf(i).empty();
  if (results.size() == 1 && !anyAttrs) {
    os_ << " -> " << results[0].str();
  } else if (!results.empty()) {
    os_ << " -> (";
    for (size_t i = 0; i < results.size(); ++i) {
      os_ << (i ? ", " : "") << results[i].str();
      if (std::string a = attrsOf(i); !a.empty())
        os_ << " " << a;
    }
    os_ << ")";
  }
  os_ << " {\n";
  printBlock(g_.body(), 2);
  os_ << "}\n";
}

} // namespace

void printGraph(const Graph &g, std::ostream &os) { GraphPrinter(g, os).print(); }

void printModule(const Module &m, std::ostream &os) {
  for (size_t i = 0; i < m.graphs().size(); ++i) {
    if (i)
      os << "\n";
    printGraph(*m.graphs()[i], os);
  }
}

std::string toString(const Graph &g) {
  std::ostringstream os;
  printGraph(g, os);
  return os.str();
}

std::string toString(const Module &m) {
  std::ostringstream os;
  printModule(m, os);
  return os.str();
}

} // namespace fp8c
