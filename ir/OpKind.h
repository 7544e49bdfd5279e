// Op kinds, generated from Ops.def, and the static facts the table gives about each.
#pragma once

#include "ir/Attribute.h"

#include <optional>
#include <span>
#include <string_view>

namespace fp8c {

enum class OpKind : uint8_t {
#define FP8C_OP(Enum, Name, MinOperands, MaxOperands, NumResults, Flags, DeviceFn) Enum,
#include "ir/Ops.def"
};

enum OpFlags : unsigned {
  kNoFlags = 0,
  kModelOp = 1u << 0,
  kQuantOp = 1u << 1,
  kPointwise = 1u << 2,
  kHasRegion = 1u << 3,
  kTerminator = 1u << 4,
  kEpilogue = 1u << 5,
  kActivationGrad = 1u << 6,
  kScaleOp = 1u << 7,
};

/// One FP8C_ATTR row.
struct AttrSpec {
  std::string_view name;
  AttrKind kind;
  bool required;
  std::string_view allowed; ///< `a|b|c`, or "" for any value of the kind
  std::string_view defaultValue;
  /// True when `value` (already of the right kind) is one of the allowed values.
  bool allows(const Attribute &value) const;
};

/// One FP8C_DEVICE_FN row: the op's device function when attribute `attr` is `value`.
struct DeviceFnSpec {
  std::string_view attr;
  std::string_view value;
  std::string_view deviceFn;
};

/// One FP8C_OP row and its attribute and device-function rows.
struct OpInfo {
  OpKind kind;
  std::string_view name;
  int minOperands;
  int maxOperands; ///< -1 = variadic
  int numResults;  ///< -1 = variadic
  unsigned flags;
  std::span<const AttrSpec> attrs;
  /// The function of codegen/kernels/ops.cuh (namespace fp8c::op) computing the op on one
  /// element, "" where none; deviceFnVariants name others chosen by an attribute's value
  /// (Op::deviceFn picks).
  std::string_view deviceFn;
  std::span<const DeviceFnSpec> deviceFnVariants;
  bool has(OpFlags f) const { return (flags & f) != 0; }
  const AttrSpec *findAttr(std::string_view attrName) const;
};

const OpInfo &opInfo(OpKind kind);
std::string_view opName(OpKind kind);
/// The kind of the op spelled `name` (`fp8.linear`, `func.return` or `return`), if any.
std::optional<OpKind> lookupOpKind(std::string_view name);
/// Every op kind, in table order.
std::span<const OpInfo> allOpInfos();

} // namespace fp8c
