// Op attributes: a small closed set of value kinds (bool, integer, string, dtype), kept in a
// dictionary sorted by name, the order MLIR prints an attribute dictionary in.
#pragma once

#include "ir/DType.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace fp8c {

enum class AttrKind { Bool, Int, String, DType };

/// One attribute value. Printed as `true`, `3`, `"tanh"`, `f8E4M3FN`.
class Attribute {
public:
  Attribute(bool b) : v_(b) {}
  Attribute(int64_t i) : v_(i) {}
  Attribute(int i) : v_(static_cast<int64_t>(i)) {}
  Attribute(std::string s) : v_(std::move(s)) {}
  Attribute(const char *s) : v_(std::string(s)) {}
  Attribute(DType t) : v_(t) {}

  AttrKind kind() const { return static_cast<AttrKind>(v_.index()); }
  bool asBool() const { return std::get<bool>(v_); }
  int64_t asInt() const { return std::get<int64_t>(v_); }
  const std::string &asString() const { return std::get<std::string>(v_); }
  DType asDType() const { return std::get<DType>(v_); }

  /// MLIR spelling of the value.
  std::string str() const;
  bool operator==(const Attribute &o) const { return v_ == o.v_; }
  bool operator!=(const Attribute &o) const { return !(*this == o); }

private:
  std::variant<bool, int64_t, std::string, DType> v_;
};

std::string_view attrKindName(AttrKind k);

/// Attributes by name, sorted by name, names unique.
class AttrDict {
public:
  using Entry = std::pair<std::string, Attribute>;
  const Attribute *get(std::string_view name) const;
  bool has(std::string_view name) const { return get(name) != nullptr; }
  void set(std::string name, Attribute value);
  bool erase(std::string_view name);
  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  std::vector<Entry>::const_iterator begin() const { return entries_.begin(); }
  std::vector<Entry>::const_iterator end() const { return entries_.end(); }
  /// `{a = 1, b = "x"}`, or "" when empty. Names listed in `skip` are left out.
  std::string str(const std::vector<std::string_view> &skip = {}) const;
  bool operator==(const AttrDict &o) const { return entries_ == o.entries_; }

private:
  std::vector<Entry> entries_;
};

/// True when `name` is a bare MLIR identifier (`[A-Za-z_][A-Za-z0-9_$.]*`) that needs no quotes
/// as an attribute name.
bool isBareIdentifier(std::string_view name);
/// `"..."` with MLIR string escapes (\\, \", \n, \t, \XX hex for other control bytes).
std::string quoteString(std::string_view s);

} // namespace fp8c
