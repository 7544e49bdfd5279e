// Recursive-descent parser for the text format (grammar in Parser.h). It stops at the first
// error, which it reports at the offending token. Recursion happens only through kernel regions
// and is capped at kMaxRegionDepth, so no input can exhaust the stack; integers are read with
// std::from_chars and range-checked, so nothing throws.
#include "ir/Parser.h"

#include "ir/Lexer.h"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <unordered_map>

namespace fp8c {
namespace {

/// Kernel regions nest at most this deep (the verifier allows one level; the parser only
/// guards the stack).
constexpr unsigned kMaxRegionDepth = 32;

std::string plural(size_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

std::string knownOps() {
  std::string out;
  for (const OpInfo &info : allOpInfos())
    out += (out.empty() ? "" : ", ") + std::string(info.name);
  return out + ", return";
}

class Parser {
public:
  Parser(std::string_view text, const std::string &filename, DiagnosticEngine &diag,
         uint32_t firstLine)
      : lex_(text), diag_(diag), file_(std::make_shared<const std::string>(filename)),
        firstLine_(firstLine) {
    consume();
  }

  std::unique_ptr<Module> parseModule();

private:
  // --- tokens and errors ---
  void consume() {
    tok_ = lex_.next();
    if (tok_.is(TokKind::Error))
      error(tok_, tok_.text);
  }
  Location loc(const Token &t) const { return Location{file_, firstLine_ + t.line - 1, t.col}; }
  bool error(const Location &l, std::string message) {
    if (!failed_)
      diag_.error(l, std::move(message));
    failed_ = true;
    return false;
  }
  bool error(const Token &t, std::string message) { return error(loc(t), std::move(message)); }
  /// "expected <what>, got <current token>".
  bool expected(std::string_view what) {
    return error(tok_, fmt::format("expected {}, got {}", what, describeToken(tok_)));
  }
  bool expect(TokKind kind, std::string_view what) {
    if (!tok_.is(kind))
      return expected(what);
    consume();
    return true;
  }
  bool consumeIf(TokKind kind) {
    if (!tok_.is(kind))
      return false;
    consume();
    return true;
  }

  // --- SSA names (function-wide) ---
  struct NameEntry {
    Value *value; ///< null while the defining op is still being parsed
    Location loc;
    size_t depth;    ///< region depth of the definition
    uint64_t region; ///< serial of the defining region
  };
  bool reserveName(const Token &t);
  bool defineName(const Token &t, Value *v);
  Value *useName(const Token &t);

  // --- grammar ---
  bool parseFunc(Module &m);
  bool parseType(TensorType &out);
  bool parseTypeList(std::vector<TensorType> &out, std::vector<Token> *toks = nullptr);
  bool parseFunctionType(std::vector<TensorType> &operands, Token &operandsTok,
                         std::vector<TensorType> &results, Token &resultsTok);
  bool parseAttrDict(AttrDict &out);
  bool parseAttrValue(Attribute &out);
  bool parseOperands(std::vector<Token> &toks, std::vector<Value *> &values);
  bool checkOperandTypes(std::string_view opName, const Token &listTok,
                         const std::vector<Token> &toks, const std::vector<Value *> &values,
                         const std::vector<TensorType> &types);
  bool parseBlockArg(Token &name, TensorType &type, AttrDict *attrs);
  bool parseOpList(Block &block, const std::string &owner);
  bool parseOp(Block &block);
  bool parseRegion(Op &op);

  Lexer lex_;
  Token tok_;
  DiagnosticEngine &diag_;
  std::shared_ptr<const std::string> file_;
  uint32_t firstLine_;
  bool failed_ = false;

  std::unordered_map<std::string, NameEntry> names_;
  std::vector<uint64_t> openRegions_; ///< serials of the regions being parsed, outermost first
  uint64_t nextRegion_ = 0;
};

bool Parser::reserveName(const Token &t) {
  auto it = names_.find(t.text);
  if (it != names_.end())
    return error(t, fmt::format("redefinition of value '%{}' (first defined at {})", t.text,
                                it->second.loc.str()));
  names_.emplace(t.text, NameEntry{nullptr, loc(t), openRegions_.size() - 1, openRegions_.back()});
  return true;
}

bool Parser::defineName(const Token &t, Value *v) {
  if (!reserveName(t))
    return false;
  names_.find(t.text)->second.value = v;
  return true;
}

Value *Parser::useName(const Token &t) {
  auto it = names_.find(t.text);
  if (it == names_.end()) {
    error(t, fmt::format("use of undefined value '%{}'", t.text));
    return nullptr;
  }
  const NameEntry &e = it->second;
  if (!e.value) {
    error(t, fmt::format("use of value '%{}' inside the op that defines it", t.text));
    return nullptr;
  }
  if (e.depth >= openRegions_.size() || openRegions_[e.depth] != e.region) {
    error(t, fmt::format("use of value '%{}' outside the kernel region that defines it "
                         "(defined at {})",
                         t.text, e.loc.str()));
    return nullptr;
  }
  return e.value;
}

bool Parser::parseType(TensorType &out) {
  if (!tok_.is(TokKind::TensorType))
    return expected("a tensor type");
  std::optional<TensorType> t = TensorType::parse(tok_.text);
  if (!t)
    return error(tok_, fmt::format("invalid tensor type '{}' (expected tensor<DxDx...xdtype>, "
                                   "dims integers or '?', dtype f32, f16, bf16, f8E4M3FN, "
                                   "f8E5M2 or i32)",
                                   tok_.text));
  int64_t n = 1;
  for (int64_t d : t->shape())
    if (d != kDynamic && __builtin_mul_overflow(n, d, &n))
      return error(tok_, fmt::format("tensor type '{}' has too many elements", tok_.text));
  out = std::move(*t);
  consume();
  return true;
}

bool Parser::parseTypeList(std::vector<TensorType> &out, std::vector<Token> *toks) {
  do {
    if (toks)
      toks->push_back(tok_);
    TensorType t;
    if (!parseType(t))
      return false;
    out.push_back(std::move(t));
  } while (consumeIf(TokKind::Comma));
  return true;
}

// `(` type-list? `)` `->` (type | `(` type-list? `)`)
bool Parser::parseFunctionType(std::vector<TensorType> &operands, Token &operandsTok,
                               std::vector<TensorType> &results, Token &resultsTok) {
  operandsTok = tok_;
  if (!expect(TokKind::LParen, "'(' to begin the operand types"))
    return false;
  if (!tok_.is(TokKind::RParen) && !parseTypeList(operands))
    return false;
  if (!expect(TokKind::RParen, "')' after the operand types") ||
      !expect(TokKind::Arrow, "'->' after the operand types"))
    return false;
  resultsTok = tok_;
  if (!consumeIf(TokKind::LParen))
    return parseTypeList(results);
  if (!tok_.is(TokKind::RParen) && !parseTypeList(results))
    return false;
  return expect(TokKind::RParen, "')' after the result types");
}

bool Parser::parseAttrValue(Attribute &out) {
  if (tok_.is(TokKind::String)) {
    out = Attribute(tok_.text);
  } else if (tok_.is(TokKind::Integer)) {
    int64_t v = 0;
    const char *b = tok_.text.data(), *e = b + tok_.text.size();
    auto [ptr, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || ptr != e)
      return error(tok_, fmt::format("integer {} does not fit in 64 bits", describeToken(tok_)));
    out = Attribute(v);
    consume();
    // MLIR's typed integer spelling `0 : i64` is accepted (and printed without the type).
    if (consumeIf(TokKind::Colon)) {
      if (!tok_.isKeyword("i64") && !tok_.isKeyword("i32"))
        return expected("'i64' or 'i32' after ':' in an integer attribute");
      consume();
    }
    return true;
  } else if (tok_.isKeyword("true") || tok_.isKeyword("false")) {
    out = Attribute(tok_.text == "true");
  } else if (std::optional<DType> t; tok_.is(TokKind::BareId) && (t = parseDType(tok_.text))) {
    out = Attribute(*t);
  } else {
    return error(tok_, fmt::format("invalid attribute value {} (expected true, false, an "
                                   "integer, a string or a dtype name)",
                                   describeToken(tok_)));
  }
  consume();
  return true;
}

// `{` (name `=` value (`,` name `=` value)*)? `}`
bool Parser::parseAttrDict(AttrDict &out) {
  if (!expect(TokKind::LBrace, "'{'"))
    return false;
  if (consumeIf(TokKind::RBrace))
    return true;
  do {
    if (!tok_.is(TokKind::BareId) && !tok_.is(TokKind::String))
      return expected("an attribute name");
    Token nameTok = tok_;
    if (out.has(nameTok.text))
      return error(nameTok, fmt::format("duplicate attribute '{}'", nameTok.text));
    consume();
    if (!expect(TokKind::Equal, "'=' after the attribute name"))
      return false;
    Attribute value(false);
    if (!parseAttrValue(value))
      return false;
    out.set(nameTok.text, std::move(value));
  } while (consumeIf(TokKind::Comma));
  return expect(TokKind::RBrace, "',' or '}' in the attribute dictionary");
}

// (`%`name (`,` `%`name)*)?  -- every name must be defined and visible.
bool Parser::parseOperands(std::vector<Token> &toks, std::vector<Value *> &values) {
  if (!tok_.is(TokKind::PercentId))
    return true;
  do {
    if (!tok_.is(TokKind::PercentId))
      return expected("an operand ('%name')");
    Value *v = useName(tok_);
    if (!v)
      return false;
    toks.push_back(tok_);
    values.push_back(v);
    consume();
  } while (consumeIf(TokKind::Comma));
  return true;
}

bool Parser::checkOperandTypes(std::string_view opName, const Token &listTok,
                               const std::vector<Token> &toks, const std::vector<Value *> &values,
                               const std::vector<TensorType> &types) {
  if (types.size() != values.size())
    return error(listTok, fmt::format("operand type list has {} but '{}' has {}",
                                      plural(types.size(), "type"), opName,
                                      plural(values.size(), "operand")));
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i]->type() != types[i])
      return error(toks[i], fmt::format("use of value '%{}' expects type {} but it has type {}",
                                        toks[i].text, types[i].str(), values[i]->type().str()));
  return true;
}

// `%`name `:` type attr-dict?   (attr-dict only where `attrs` is given)
bool Parser::parseBlockArg(Token &name, TensorType &type, AttrDict *attrs) {
  if (!tok_.is(TokKind::PercentId))
    return expected("an argument ('%name: type')");
  name = tok_;
  consume();
  if (!expect(TokKind::Colon, "':' after the argument name") || !parseType(type))
    return false;
  if (attrs && tok_.is(TokKind::LBrace))
    return parseAttrDict(*attrs);
  return true;
}

// `func.func` `@`name `(` args `)` (`->` results)? `{` op* `}`
bool Parser::parseFunc(Module &m) {
  Token funcTok = tok_;
  consume();
  if (!tok_.is(TokKind::AtId))
    return expected("a function name ('@name')");
  auto g = std::make_unique<Graph>(tok_.text, loc(funcTok));
  consume();
  names_.clear();
  openRegions_.assign(1, nextRegion_++);

  if (!expect(TokKind::LParen, "'(' to begin the argument list"))
    return false;
  if (!tok_.is(TokKind::RParen)) {
    do {
      Token name;
      TensorType type;
      AttrDict attrs;
      if (!parseBlockArg(name, type, &attrs))
        return false;
      if (!defineName(name, g->addInput(type, name.text, std::move(attrs))))
        return false;
    } while (consumeIf(TokKind::Comma));
  }
  if (!expect(TokKind::RParen, "',' or ')' in the argument list"))
    return false;

  if (consumeIf(TokKind::Arrow)) {
    if (consumeIf(TokKind::LParen)) {
      if (!tok_.is(TokKind::RParen)) {
        do {
          TensorType type;
          AttrDict attrs;
          if (!parseType(type) || (tok_.is(TokKind::LBrace) && !parseAttrDict(attrs)))
            return false;
          g->addResultType(std::move(type), std::move(attrs));
        } while (consumeIf(TokKind::Comma));
      }
      if (!expect(TokKind::RParen, "',' or ')' in the result list"))
        return false;
    } else {
      TensorType type;
      if (!parseType(type))
        return false;
      g->addResultType(std::move(type));
    }
  }

  if (!expect(TokKind::LBrace, "'{' to begin the function body"))
    return false;
  if (!parseOpList(g->body(), "the body of '@" + g->name() + "'"))
    return false;
  consume(); // '}'
  m.add(std::move(g));
  return true;
}

// op* up to (not including) the closing `}`.
bool Parser::parseOpList(Block &block, const std::string &owner) {
  while (!tok_.is(TokKind::RBrace)) {
    if (failed_)
      return false;
    if (tok_.is(TokKind::Eof))
      return expected("'}' to close " + owner);
    if (!parseOp(block))
      return false;
  }
  return !failed_;
}

// `{` `^`label (`(` arg (`,` arg)* `)`)? `:` op* `}`
bool Parser::parseRegion(Op &op) {
  if (openRegions_.size() > kMaxRegionDepth)
    return error(tok_, fmt::format("regions nested deeper than {} levels", kMaxRegionDepth));
  consume(); // '{'
  Block &body = op.createBody();
  openRegions_.push_back(nextRegion_++);
  if (!tok_.is(TokKind::CaretId))
    return expected("a block label ('^bb0') at the start of the region");
  consume();
  if (consumeIf(TokKind::LParen)) {
    if (!tok_.is(TokKind::RParen)) {
      do {
        Token name;
        TensorType type;
        if (!parseBlockArg(name, type, nullptr))
          return false;
        if (!defineName(name, body.addArgument(type, name.text)))
          return false;
      } while (consumeIf(TokKind::Comma));
    }
    if (!expect(TokKind::RParen, "',' or ')' in the block argument list"))
      return false;
  }
  if (!expect(TokKind::Colon, "':' after the block label"))
    return false;
  if (!parseOpList(body, "the region of '" + std::string(op.name()) + "'"))
    return false;
  consume(); // '}'
  openRegions_.pop_back();
  return true;
}

bool Parser::parseOp(Block &block) {
  const Token first = tok_;
  std::vector<Token> resultToks;
  if (tok_.is(TokKind::PercentId)) {
    do {
      if (!tok_.is(TokKind::PercentId))
        return expected("a result name ('%name')");
      if (!reserveName(tok_))
        return false;
      resultToks.push_back(tok_);
      consume();
    } while (consumeIf(TokKind::Comma));
    if (!expect(TokKind::Equal, "'=' after the result names"))
      return false;
  }

  if (!tok_.is(TokKind::BareId))
    return expected("an op name");
  const Token nameTok = tok_;
  std::optional<OpKind> kind = lookupOpKind(nameTok.text);
  if (!kind)
    return error(nameTok, fmt::format("unknown op '{}' (known ops: {})", nameTok.text, knownOps()));
  consume();
  const OpInfo &info = opInfo(*kind);

  std::vector<Token> operandToks;
  std::vector<Value *> operands;
  AttrDict attrs;
  std::vector<TensorType> operandTypes, resultTypes;

  // Terminators: `return` | `fp8.yield`, operand-list attr-dict? (`:` type-list)?
  if (info.has(kTerminator)) {
    if (!resultToks.empty())
      return error(first, fmt::format("'{}' cannot define results", info.name));
    if (!parseOperands(operandToks, operands))
      return false;
    if (tok_.is(TokKind::LBrace) && !parseAttrDict(attrs))
      return false;
    if (!operands.empty()) {
      if (!expect(TokKind::Colon, "':' and the operand types"))
        return false;
      Token listTok = tok_;
      if (!parseTypeList(operandTypes) ||
          !checkOperandTypes(info.name, listTok, operandToks, operands, operandTypes))
        return false;
    }
    block.append(Op::create(*kind, operands, {}, std::move(attrs), loc(first)));
    return true;
  }

  Token operandsTok, resultsTok;
  if (*kind == OpKind::Kernel) {
    // `fp8.kernel` string? `(` operand-list `)` attr-dict? `:` fn-type region?
    std::optional<Token> kindTok;
    if (tok_.is(TokKind::String)) {
      kindTok = tok_;
      consume();
    }
    if (!expect(TokKind::LParen, "'(' to begin the kernel operands") ||
        !parseOperands(operandToks, operands) ||
        !expect(TokKind::RParen, "',' or ')' in the kernel operands"))
      return false;
    if (tok_.is(TokKind::LBrace) && !parseAttrDict(attrs))
      return false;
    if (kindTok) {
      if (attrs.has("kind"))
        return error(*kindTok, "duplicate attribute 'kind' (given as the kernel's string and in "
                               "its attribute dictionary)");
      attrs.set("kind", Attribute(kindTok->text));
    }
  } else {
    // op-name operand-list attr-dict? `:` fn-type region?
    if (!parseOperands(operandToks, operands))
      return false;
    if (tok_.is(TokKind::LBrace) && !parseAttrDict(attrs))
      return false;
  }
  if (!expect(TokKind::Colon, "':' and the op's function type") ||
      !parseFunctionType(operandTypes, operandsTok, resultTypes, resultsTok) ||
      !checkOperandTypes(info.name, operandsTok, operandToks, operands, operandTypes))
    return false;
  if (resultTypes.size() != resultToks.size())
    return error(resultsTok, fmt::format("result type list has {} but '{}' defines {}",
                                         plural(resultTypes.size(), "type"), info.name,
                                         plural(resultToks.size(), "result")));

  Op *op = block.append(Op::create(*kind, operands, resultTypes, std::move(attrs), loc(first)));
  for (size_t i = 0; i < resultToks.size(); ++i)
    op->result(static_cast<unsigned>(i))->setName(resultToks[i].text);
  if (tok_.is(TokKind::LBrace) && !parseRegion(*op))
    return false;
  for (size_t i = 0; i < resultToks.size(); ++i)
    names_.find(resultToks[i].text)->second.value = op->result(static_cast<unsigned>(i));
  return true;
}

std::unique_ptr<Module> Parser::parseModule() {
  auto m = std::make_unique<Module>();
  // An optional MLIR `module { ... }` wrapper (what mlir-opt prints) is accepted.
  bool inModule = false;
  if (tok_.isKeyword("module")) {
    consume();
    if (!expect(TokKind::LBrace, "'{' after 'module'"))
      return nullptr;
    inModule = true;
  }
  while (!failed_) {
    if (inModule && tok_.is(TokKind::RBrace)) {
      consume();
      inModule = false;
      if (!tok_.is(TokKind::Eof))
        expected("end of file after the module");
      continue;
    }
    if (tok_.is(TokKind::Eof)) {
      if (inModule)
        expected("'}' to close the module");
      break;
    }
    if (!tok_.isKeyword("func.func")) {
      expected("'func.func'");
      break;
    }
    parseFunc(*m);
  }
  if (failed_)
    return nullptr;
  return m;
}

} // namespace

std::unique_ptr<Module> parseModule(std::string_view text, const std::string &filename,
                                    DiagnosticEngine &diag, uint32_t firstLine) {
  return Parser(text, filename, diag, firstLine == 0 ? 1 : firstLine).parseModule();
}

namespace {

/// The largest graph text readSource reads: a file or stream longer than this (a device such
/// as /dev/zero, a pipe that never ends) is an error, not a read without bound.
constexpr uint64_t kMaxSourceBytes = uint64_t(1) << 30;

std::string tooLongMessage(const std::string &label) {
  return fmt::format("cannot read {}: it is longer than {} bytes (1 GiB), the most fp8c reads",
                     label, kMaxSourceBytes);
}

// Reads `in` to its end, or fails once more than kMaxSourceBytes arrived.
Expected<std::string> readCapped(std::istream &in, const std::string &label) {
  std::string text;
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof buf);
    const auto n = static_cast<size_t>(in.gcount());
    if (text.size() + n > kMaxSourceBytes)
      return Error(tooLongMessage(label));
    text.append(buf, n);
  }
  if (in.bad())
    return Error(fmt::format("cannot read {}", label));
  return text;
}

} // namespace

Expected<std::string> readSource(const std::string &path) {
  if (path == "-")
    return readCapped(std::cin, "standard input");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return Error(fmt::format("cannot read '{}': it is a directory", path));
  if (std::filesystem::is_regular_file(path, ec)) {
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (!ec && size > kMaxSourceBytes)
      return Error(tooLongMessage("'" + path + "'"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Error(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  return readCapped(in, "'" + path + "'");
}

std::vector<SourceChunk> splitInputFile(std::string_view text) {
  std::vector<SourceChunk> chunks;
  size_t chunkStart = 0, pos = 0;
  uint32_t chunkLine = 1, line = 1;
  while (true) {
    size_t eol = text.find('\n', pos);
    size_t end = eol == std::string_view::npos ? text.size() : eol;
    std::string_view l = text.substr(pos, end - pos);
    while (!l.empty() && (l.back() == ' ' || l.back() == '\t' || l.back() == '\r'))
      l.remove_suffix(1);
    if (l == "// -----") {
      chunks.push_back({text.substr(chunkStart, pos - chunkStart), chunkLine});
      chunkStart = eol == std::string_view::npos ? text.size() : eol + 1;
      chunkLine = line + 1;
    }
    if (eol == std::string_view::npos)
      break;
    pos = eol + 1;
    ++line;
  }
  chunks.push_back({text.substr(chunkStart), chunkLine});
  return chunks;
}

} // namespace fp8c
