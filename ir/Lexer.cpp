// Tokenizer for the text format: identifiers, SSA/symbol/block names, integers, strings with
// MLIR escapes, tensor types and punctuation, each with its line and column.
#include "ir/Lexer.h"

#include "ir/Attribute.h"

#include <cstdio>

namespace fp8c {
namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool isHex(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int hexValue(char c) {
  if (isDigit(c))
    return c - '0';
  return (c >= 'a' && c <= 'f') ? c - 'a' + 10 : c - 'A' + 10;
}
// bare-id ::= (letter | `_`) (letter | digit | [_$.])*
bool isBareIdStart(char c) { return isLetter(c) || c == '_'; }
bool isBareIdChar(char c) { return isBareIdStart(c) || isDigit(c) || c == '$' || c == '.'; }
// suffix-id ::= digit+ | (letter | [$._-]) (letter | digit | [$._-])*
bool isSuffixIdStart(char c) { return isLetter(c) || c == '$' || c == '.' || c == '_' || c == '-'; }
bool isSuffixIdChar(char c) { return isSuffixIdStart(c) || isDigit(c); }

// At most `max` bytes of `s` for a message, with "..." when cut.
std::string clip(std::string_view s, size_t max = 40) {
  if (s.size() <= max)
    return std::string(s);
  return std::string(s.substr(0, max)) + "...";
}

// `character '#'` or `byte 0x01`.
std::string charDesc(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  char buf[24];
  if (u >= 0x21 && u < 0x7f)
    std::snprintf(buf, sizeof buf, "character '%c'", c);
  else
    std::snprintf(buf, sizeof buf, "byte 0x%02X", u);
  return buf;
}

} // namespace

std::string describeToken(const Token &t) {
  switch (t.kind) {
  case TokKind::Eof:
    return "end of file";
  case TokKind::Error:
    return "invalid token";
  case TokKind::BareId:
  case TokKind::Integer:
  case TokKind::TensorType:
    return "'" + clip(t.text) + "'";
  case TokKind::PercentId:
    return "'%" + clip(t.text) + "'";
  case TokKind::AtId:
    return "'@" + clip(t.text) + "'";
  case TokKind::CaretId:
    return "'^" + clip(t.text) + "'";
  case TokKind::String:
    return "string " + clip(quoteString(t.text));
  case TokKind::LParen:
    return "'('";
  case TokKind::RParen:
    return "')'";
  case TokKind::LBrace:
    return "'{'";
  case TokKind::RBrace:
    return "'}'";
  case TokKind::Less:
    return "'<'";
  case TokKind::Greater:
    return "'>'";
  case TokKind::Comma:
    return "','";
  case TokKind::Colon:
    return "':'";
  case TokKind::Equal:
    return "'='";
  case TokKind::Arrow:
    return "'->'";
  case TokKind::Question:
    return "'?'";
  }
  return "token";
}

void Lexer::advance() {
  if (atEnd())
    return;
  if (text_[pos_] == '\n') {
    ++line_;
    col_ = 1;
  } else {
    ++col_;
  }
  ++pos_;
}

void Lexer::skipTrivia() {
  while (!atEnd()) {
    char c = peek();
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      advance();
    } else if (c == '/' && peek(1) == '/') {
      while (!atEnd() && peek() != '\n')
        advance();
    } else {
      return;
    }
  }
}

Token Lexer::make(TokKind kind, std::string text, uint32_t line, uint32_t col) const {
  Token t;
  t.kind = kind;
  t.text = std::move(text);
  t.line = line;
  t.col = col;
  return t;
}

// A string literal starting at the opening quote. Escapes: \\ \" \n \t and \XX (two hex digits).
Token Lexer::lexString(uint32_t line, uint32_t col, TokKind kind) {
  advance(); // opening quote
  std::string value;
  while (true) {
    if (atEnd() || peek() == '\n')
      return make(TokKind::Error, "unterminated string literal", line, col);
    char c = peek();
    if (c == '"') {
      advance();
      return make(kind, std::move(value), line, col);
    }
    if (c != '\\') {
      value += c;
      advance();
      continue;
    }
    uint32_t escLine = line_, escCol = col_;
    if (pos_ + 1 >= text_.size() || peek(1) == '\n')
      return make(TokKind::Error, "unterminated string literal", line, col);
    char e = peek(1);
    if (e == '\\' || e == '"') {
      value += e;
    } else if (e == 'n') {
      value += '\n';
    } else if (e == 't') {
      value += '\t';
    } else if (isHex(e) && isHex(peek(2))) {
      value += static_cast<char>(hexValue(e) * 16 + hexValue(peek(2)));
      advance();
    } else {
      unsigned char u = static_cast<unsigned char>(e);
      std::string what = u >= 0x20 && u < 0x7f ? "'\\" + std::string(1, e) + "'"
                                               : "'\\' followed by " + charDesc(e);
      return make(TokKind::Error, "invalid escape sequence " + what + " in string literal", escLine,
                  escCol);
    }
    advance();
    advance();
  }
}

// A bare identifier, or a tensor type when the identifier is `tensor` directly followed by `<`.
Token Lexer::lexBareIdOrTensor(uint32_t line, uint32_t col) {
  size_t start = pos_;
  while (!atEnd() && isBareIdChar(peek()))
    advance();
  std::string_view id = text_.substr(start, pos_ - start);
  if (id != "tensor" || peek() != '<')
    return make(TokKind::BareId, std::string(id), line, col);
  advance(); // '<'
  while (!atEnd() && (isLetter(peek()) || isDigit(peek()) || peek() == '?'))
    advance();
  if (peek() != '>')
    return make(TokKind::Error,
                "malformed tensor type: expected '>' after '" +
                    clip(text_.substr(start, pos_ - start)) + "'",
                line, col);
  advance();
  return make(TokKind::TensorType, std::string(text_.substr(start, pos_ - start)), line, col);
}

Token Lexer::next() {
  skipTrivia();
  uint32_t line = line_, col = col_;
  if (atEnd())
    return make(TokKind::Eof, "", line, col);
  char c = peek();

  auto single = [&](TokKind k) {
    advance();
    return make(k, std::string(1, c), line, col);
  };
  switch (c) {
  case '(':
    return single(TokKind::LParen);
  case ')':
    return single(TokKind::RParen);
  case '{':
    return single(TokKind::LBrace);
  case '}':
    return single(TokKind::RBrace);
  case '<':
    return single(TokKind::Less);
  case '>':
    return single(TokKind::Greater);
  case ',':
    return single(TokKind::Comma);
  case ':':
    return single(TokKind::Colon);
  case '=':
    return single(TokKind::Equal);
  case '?':
    return single(TokKind::Question);
  case '"':
    return lexString(line, col, TokKind::String);
  default:
    break;
  }

  if (c == '-' && peek(1) == '>') {
    advance();
    advance();
    return make(TokKind::Arrow, "->", line, col);
  }
  if (isDigit(c) || (c == '-' && isDigit(peek(1)))) {
    size_t start = pos_;
    advance();
    while (!atEnd() && isDigit(peek()))
      advance();
    return make(TokKind::Integer, std::string(text_.substr(start, pos_ - start)), line, col);
  }
  if (isBareIdStart(c))
    return lexBareIdOrTensor(line, col);

  if (c == '%' || c == '^') {
    TokKind kind = c == '%' ? TokKind::PercentId : TokKind::CaretId;
    advance();
    size_t start = pos_;
    if (isDigit(peek())) {
      while (!atEnd() && isDigit(peek()))
        advance();
    } else if (isSuffixIdStart(peek())) {
      while (!atEnd() && isSuffixIdChar(peek()))
        advance();
    } else {
      return make(TokKind::Error, std::string("expected a name after '") + c + "'", line, col);
    }
    return make(kind, std::string(text_.substr(start, pos_ - start)), line, col);
  }
  if (c == '@') {
    advance();
    if (peek() == '"')
      return lexString(line, col, TokKind::AtId);
    if (!isBareIdStart(peek()))
      return make(TokKind::Error, "expected a symbol name after '@'", line, col);
    size_t start = pos_;
    while (!atEnd() && isBareIdChar(peek()))
      advance();
    return make(TokKind::AtId, std::string(text_.substr(start, pos_ - start)), line, col);
  }

  advance();
  return make(TokKind::Error, "unexpected " + charDesc(c), line, col);
}

} // namespace fp8c
