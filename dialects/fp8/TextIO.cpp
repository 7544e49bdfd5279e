// fp8c's text form through MLIR (TextIO.h) and `fp8c --frontend=mlir` (MlirFrontend.h).
#include "dialects/fp8/TextIO.h"

#include "dialects/fp8/Fp8Dialect.h"
#include "dialects/fp8/Import.h"
#include "dialects/fp8/MlirFrontend.h"
#include "dialects/fp8/Translate.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <iterator>
#include <unordered_map>
#include <unordered_set>

namespace fp8c::fp8 {
namespace {

bool isSsaChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c == '.' || c == '-';
}

// --- names from the source text ------------------------------------------------------------

class SourceText {
public:
  SourceText(llvm::StringRef text, llvm::StringRef name) : text_(text), name_(name) {
    lineStarts_.push_back(0);
    for (size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n')
        lineStarts_.push_back(i + 1);
  }

  /// Offset of `loc` in the text, if it is a position of this buffer.
  std::optional<size_t> offset(mlir::Location loc) const {
    auto f = llvm::dyn_cast<mlir::FileLineColLoc>(stripNames(loc));
    if (!f || f.getFilename() != name_ || f.getLine() == 0 || f.getLine() > lineStarts_.size() ||
        f.getColumn() == 0)
      return std::nullopt;
    size_t at = lineStarts_[f.getLine() - 1] + f.getColumn() - 1;
    return at < text_.size() ? std::optional<size_t>(at) : std::nullopt;
  }

  /// The name of `%name` at `at`, or "".
  llvm::StringRef nameAt(size_t at) const {
    if (text_[at] != '%')
      return "";
    size_t end = at + 1;
    while (end < text_.size() && isSsaChar(text_[end]))
      ++end;
    return text_.slice(at + 1, end);
  }

  /// The name of `%name = ` written just before `at` on its line (an op's name token), or "".
  llvm::StringRef resultNameBefore(size_t at) const {
    size_t i = at;
    auto skipSpaces = [&] {
      while (i > 0 && (text_[i - 1] == ' ' || text_[i - 1] == '\t'))
        --i;
    };
    skipSpaces();
    if (i == 0 || text_[i - 1] != '=')
      return "";
    --i;
    skipSpaces();
    size_t end = i;
    while (i > 0 && isSsaChar(text_[i - 1]))
      --i;
    if (i == 0 || i == end || text_[i - 1] != '%')
      return "";
    return text_.slice(i, end);
  }

private:
  llvm::StringRef text_, name_;
  std::vector<size_t> lineStarts_;
};

// --- fp8c's names (ir/Printer.cpp, GraphPrinter::assign) ------------------------------------

/// A hint as a valid MLIR SSA name: `[A-Za-z_$.-][A-Za-z0-9_$.-]*` or all digits.
std::string sanitize(llvm::StringRef hint) {
  if (llvm::all_of(hint, [](char c) { return c >= '0' && c <= '9'; }))
    return hint.str();
  std::string out;
  if (hint[0] >= '0' && hint[0] <= '9')
    out += '_';
  for (char c : hint)
    out += isSsaChar(c) ? c : '_';
  return out;
}

/// The names fp8c's printer gives the values of one function: chosen in text order (inputs,
/// then each op's results before its regions' arguments); a hint when free, else `hint_1`,
/// ...; `%0`, `%1`, ... for unnamed results and `%arg0`, ... for unnamed arguments.
class FunctionNames {
public:
  explicit FunctionNames(mlir::func::FuncOp func) {
    if (!func.getBody().empty())
      nameBlock(func.getBody().front());
  }
  const llvm::DenseMap<mlir::Value, std::string> &names() const { return names_; }

private:
  void assign(mlir::Value v, bool isArg) {
    std::string hint = getValueName(v), name;
    if (!hint.empty()) {
      std::string base = sanitize(hint);
      name = base;
      if (used_.count(name)) {
        unsigned &n = nextSuffix_[base];
        do
          name = base + "_" + std::to_string(++n);
        while (used_.count(name));
      }
    } else {
      unsigned &n = isArg ? nextArg_ : nextResult_;
      do
        name = (isArg ? "arg" : "") + std::to_string(n++);
      while (used_.count(name));
    }
    used_.insert(name);
    names_[v] = std::move(name);
  }

  void nameBlock(mlir::Block &b) {
    for (mlir::BlockArgument arg : b.getArguments())
      assign(arg, /*isArg=*/true);
    for (mlir::Operation &op : b) {
      for (mlir::Value r : op.getResults())
        assign(r, /*isArg=*/false);
      for (mlir::Region &region : op.getRegions())
        for (mlir::Block &inner : region)
          nameBlock(inner);
    }
  }

  llvm::DenseMap<mlir::Value, std::string> names_;
  std::unordered_set<std::string> used_;
  std::unordered_map<std::string, unsigned> nextSuffix_;
  unsigned nextResult_ = 0, nextArg_ = 0;
};

/// Rewrites every `%id` outside string literals whose id `renames` holds.
std::string renameSsaIds(llvm::StringRef text,
                         const std::unordered_map<std::string, std::string> &renames) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c == '"') {
      size_t j = i + 1;
      while (j < text.size() && text[j] != '"')
        j += text[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, text.size());
      out.append(text.data() + i, j - i);
      i = j;
    } else if (c == '%') {
      size_t j = i + 1;
      while (j < text.size() && isSsaChar(text[j]))
        ++j;
      auto it = renames.find(text.slice(i + 1, j).str());
      out += '%';
      out += it == renames.end() ? text.slice(i + 1, j).str() : it->second;
      i = j;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

constexpr llvm::StringLiteral kPlaceholder = "fp8cv";
constexpr llvm::StringLiteral kNoArgs = "fp8cnoargs";

/// True when every op in `func` is an fp8 op or func.return: what fp8c's text form covers.
bool isFp8cFunction(mlir::func::FuncOp func) {
  bool all = true;
  func.walk([&](mlir::Operation *op) {
    if (op != func.getOperation() && !opKindOf(op))
      all = false;
  });
  return all;
}

std::string printFunction(mlir::func::FuncOp func) {
  if (!isFp8cFunction(func)) {
    // Upstream ops (before --fp8c-import): MLIR's own output, which MLIR reads back.
    std::string text;
    llvm::raw_string_ostream os(text);
    mlir::OpPrintingFlags flags;
    flags.enableDebugInfo(false).assumeVerified();
    func->print(os, flags);
    return llvm::StringRef(text).rtrim('\n').str();
  }
  FunctionNames names(func);
  // Print a copy in which every value but the function's arguments carries a unique
  // placeholder name; then put fp8c's names in place of the placeholders and of %argN.
  mlir::IRMapping map;
  mlir::OwningOpRef<mlir::Operation *> copy = func->clone(map);
  std::unordered_map<std::string, std::string> renames;
  mlir::Block *entry = func.getBody().empty() ? nullptr : &func.getBody().front();
  unsigned next = 0;
  for (const auto &[value, name] : names.names()) {
    auto arg = llvm::dyn_cast<mlir::BlockArgument>(value);
    if (arg && arg.getOwner() == entry) {
      renames["arg" + std::to_string(arg.getArgNumber())] = name;
      continue;
    }
    std::string placeholder = kPlaceholder.str() + std::to_string(next++);
    setValueName(map.lookup(value), placeholder);
    renames[placeholder] = name;
  }
  // A kernel region without arguments gets a dummy one, so that MLIR prints its `^bb0` header.
  mlir::MLIRContext *ctx = func.getContext();
  copy.get()->walk([&](KernelOp k) {
    mlir::Region &r = k.getBody();
    if (!r.empty() && r.front().getNumArguments() == 0)
      setValueName(r.front().addArgument(mlir::IntegerType::get(ctx, 1), k.getLoc()), kNoArgs);
  });
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::OpPrintingFlags flags;
  flags.enableDebugInfo(false).printGenericOpForm(false).assumeVerified();
  copy.get()->print(os, flags);
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  std::string out = renameSsaIds(text, renames);
  const std::string dummy = "^bb0(%" + kNoArgs.str() + ": i1):";
  for (size_t at; (at = out.find(dummy)) != std::string::npos;)
    out.replace(at, dummy.size(), "^bb0:");
  return out;
}

} // namespace

void recordNamesFromSource(mlir::Operation *root, llvm::StringRef text,
                           llvm::StringRef bufferName) {
  SourceText source(text, bufferName);
  root->walk([&](mlir::Operation *op) {
    for (mlir::Region &region : op->getRegions())
      for (mlir::Block &block : region)
        for (mlir::BlockArgument arg : block.getArguments())
          if (getValueName(arg).empty())
            if (std::optional<size_t> at = source.offset(arg.getLoc()))
              if (llvm::StringRef name = source.nameAt(*at); !name.empty())
                setValueName(arg, name);
    if (op->getNumResults() != 1 || !getValueName(op->getResult(0)).empty())
      return;
    if (std::optional<size_t> at = source.offset(op->getLoc()))
      if (llvm::StringRef name = source.resultNameBefore(*at); !name.empty())
        setValueName(op->getResult(0), name);
  });
}

void printFp8cText(mlir::ModuleOp module, llvm::raw_ostream &os) {
  bool first = true;
  for (mlir::Operation &op : module.getBody()->getOperations()) {
    if (!first)
      os << "\n";
    first = false;
    if (auto func = llvm::dyn_cast<mlir::func::FuncOp>(op)) {
      os << printFunction(func) << "\n";
      continue;
    }
    mlir::OpPrintingFlags flags;
    flags.enableDebugInfo(false).assumeVerified();
    std::string text;
    llvm::raw_string_ostream opOs(text);
    op.print(opOs, flags);
    os << llvm::StringRef(text).rtrim('\n') << "\n";
  }
}

std::optional<NestingError> findExcessiveNesting(std::string_view text) {
  std::vector<char> open; // the open brackets, innermost last
  unsigned line = 1, col = 1;
  for (size_t i = 0; i < text.size(); ++i, ++col) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      col = 0;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n') // to the end of the line
        ++i;
    } else if (c == '"') { // a string literal: to its closing quote or the end of the line
      while (i + 1 < text.size() && text[i + 1] != '"' && text[i + 1] != '\n') {
        const size_t step =
            text[i + 1] == '\\' && i + 2 < text.size() && text[i + 2] != '\n' ? 2 : 1;
        i += step;
        col += static_cast<unsigned>(step);
      }
      if (i + 1 < text.size() && text[i + 1] == '"') {
        ++i;
        ++col;
      }
    } else if (c == '-' && i + 1 < text.size() && text[i + 1] == '>') { // an arrow
      ++i;
      ++col;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      open.push_back(c);
      if (open.size() > kMaxMlirNestingDepth)
        return NestingError{line, col,
                            "brackets nested deeper than " + std::to_string(kMaxMlirNestingDepth) +
                                " levels"};
    } else if (!open.empty() &&
               ((c == ')' && open.back() == '(') || (c == ']' && open.back() == '[') ||
                (c == '}' && open.back() == '{') || (c == '>' && open.back() == '<'))) {
      open.pop_back();
    } else if (c == ')' || c == ']' || c == '}') {
      // A closer for a bracket further out: a `<` left open (a custom syntax's comparison)
      // is dropped with the brackets inside the one it closes.
      auto it = std::find(open.rbegin(), open.rend(), c == ')' ? '(' : c == ']' ? '[' : '{');
      if (it != open.rend())
        open.erase(std::prev(it.base()), open.end());
    }
  }
  return std::nullopt;
}

std::string toFp8cText(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printFp8cText(module, os);
  return text;
}

} // namespace fp8c::fp8

namespace fp8c {

std::unique_ptr<Module> parseWithMlir(std::string_view text, const std::string &filename,
                                      DiagnosticEngine &diag, uint32_t firstLine) {
  mlir::DialectRegistry registry;
  fp8::registerFp8cDialects(registry);
  mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
  ctx.printOpOnDiagnostic(false);
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    auto severity = [](mlir::DiagnosticSeverity s) {
      return s == mlir::DiagnosticSeverity::Error     ? Severity::Error
             : s == mlir::DiagnosticSeverity::Warning ? Severity::Warning
                                                      : Severity::Note;
    };
    diag.emit(severity(d.getSeverity()), fp8::toFp8cLocation(d.getLocation()), d.str());
    for (mlir::Diagnostic &note : d.getNotes())
      diag.emit(Severity::Note, fp8::toFp8cLocation(note.getLocation()), note.str());
    return mlir::success();
  });

  // Blank lines in front keep line numbers those of the whole file (--split-input-file).
  std::string padded(firstLine > 1 ? firstLine - 1 : 0, '\n');
  padded.append(text);
  if (std::optional<fp8::NestingError> deep = fp8::findExcessiveNesting(padded)) {
    diag.error(Location::make(filename, deep->line, deep->col), deep->message);
    return nullptr;
  }
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(padded, filename), llvm::SMLoc());
  mlir::ParserConfig config(&ctx, /*verifyAfterParse=*/false);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceFile<mlir::ModuleOp>(sources, config);
  if (!module)
    return nullptr;
  fp8::recordNamesFromSource(*module, padded, filename);
  if (fp8::hasUpstreamOps(*module) &&
      (mlir::failed(mlir::verify(*module)) || mlir::failed(fp8::importUpstreamOps(*module))))
    return nullptr;
  return fp8::translateToFp8c(*module, diag);
}

} // namespace fp8c
