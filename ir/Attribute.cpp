// Attribute printing and the sorted attribute dictionary.
#include "ir/Attribute.h"

#include <algorithm>
#include <cstdio>

namespace fp8c {

std::string_view attrKindName(AttrKind k) {
  switch (k) {
  case AttrKind::Bool:
    return "bool";
  case AttrKind::Int:
    return "integer";
  case AttrKind::String:
    return "string";
  case AttrKind::DType:
    return "type";
  }
  return "?";
}

bool isBareIdentifier(std::string_view name) {
  if (name.empty())
    return false;
  auto head = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!head(name[0]))
    return false;
  for (char c : name)
    if (!head(c) && !(c >= '0' && c <= '9') && c != '$' && c != '.')
      return false;
  return true;
}

std::string quoteString(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[4];
      std::snprintf(buf, sizeof buf, "\\%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  return out;
}

std::string Attribute::str() const {
  switch (kind()) {
  case AttrKind::Bool:
    return asBool() ? "true" : "false";
  case AttrKind::Int:
    return std::to_string(asInt());
  case AttrKind::String:
    return quoteString(asString());
  case AttrKind::DType:
    return std::string(dtypeName(asDType()));
  }
  return "?";
}

const Attribute *AttrDict::get(std::string_view name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry &e, std::string_view n) { return e.first < n; });
  if (it != entries_.end() && it->first == name)
    return &it->second;
  return nullptr;
}

void AttrDict::set(std::string name, Attribute value) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry &e, const std::string &n) { return e.first < n; });
  if (it != entries_.end() && it->first == name)
    it->second = std::move(value);
  else
    entries_.insert(it, {std::move(name), std::move(value)});
}

bool AttrDict::erase(std::string_view name) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry &e, std::string_view n) { return e.first < n; });
  if (it == entries_.end() || it->first != name)
    return false;
  entries_.erase(it);
  return true;
}

std::string AttrDict::str(const std::vector<std::string_view> &skip) const {
  std::string out;
  for (const Entry &e : entries_) {
    if (std::find(skip.begin(), skip.end(), e.first) != skip.end())
      continue;
    out += out.empty() ? "{" : ", ";
    out += isBareIdentifier(e.first) ? e.first : quoteString(e.first);
    out += " = " + e.second.str();
  }
  if (!out.empty())
    out += "}";
  return out;
}

} // namespace fp8c
