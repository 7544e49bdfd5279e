// Tokenizer for fp8c's text format (MLIR syntax; grammar in Parser.h). It turns a buffer into
// tokens that carry their 1-based line and column. It never fails hard: a malformed byte
// sequence (unterminated string, bad escape, stray character) becomes an Error token whose
// spelling is the message, and the lexer always advances, so a parser loop cannot hang.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fp8c {

enum class TokKind {
  Eof,
  Error,      ///< text() is the message; the token starts where the problem is
  BareId,     ///< `fp8.linear`, `func.func`, `true`, `bf16`, `return`
  PercentId,  ///< `%x`, `%0`; text() holds the name without `%`
  AtId,       ///< `@mlp` or `@"any name"`; text() holds the unescaped name
  CaretId,    ///< `^bb0`; text() holds the name without `^`
  Integer,    ///< `-?[0-9]+`; text() holds the spelling (the parser checks the range)
  String,     ///< `"..."`; text() holds the unescaped bytes
  TensorType, ///< `tensor<...>`; text() holds the whole spelling (TensorType::parse checks it)
  LParen,
  RParen,
  LBrace,
  RBrace,
  Less,
  Greater,
  Comma,
  Colon,
  Equal,
  Arrow,
  Question,
};

/// A token and where it starts.
struct Token {
  TokKind kind = TokKind::Eof;
  /// Spelling, or the decoded value for identifiers and strings (see TokKind), or the message
  /// of an Error token.
  std::string text;
  uint32_t line = 1; ///< 1-based, relative to the lexed buffer
  uint32_t col = 1;  ///< 1-based byte column

  bool is(TokKind k) const { return kind == k; }
  bool isKeyword(std::string_view kw) const { return kind == TokKind::BareId && text == kw; }
};

/// `'('`, `identifier 'foo'`, `end of file`, ...: how a diagnostic names a token.
std::string describeToken(const Token &t);

/// Splits a buffer into tokens on demand. Comments (`//` to the end of the line) and
/// whitespace are skipped.
class Lexer {
public:
  explicit Lexer(std::string_view text) : text_(text) {}

  /// The next token; Eof forever once the end is reached.
  Token next();

  /// Line and column of the end of the buffer (where Eof tokens point).
  uint32_t line() const { return line_; }
  uint32_t col() const { return col_; }

private:
  bool atEnd() const { return pos_ >= text_.size(); }
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void advance();
  void skipTrivia();
  Token make(TokKind kind, std::string text, uint32_t line, uint32_t col) const;
  Token lexString(uint32_t line, uint32_t col, TokKind kind);
  Token lexBareIdOrTensor(uint32_t line, uint32_t col);

  std::string_view text_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  uint32_t col_ = 1;
};

} // namespace fp8c
