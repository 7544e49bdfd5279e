// The op table, expanded from Ops.def.
#include "ir/OpKind.h"

#include <array>

namespace fp8c {
namespace {

constexpr AttrSpec kAttrSpecs[] = {
#define FP8C_ATTR(Enum, Name, Kind, Required, Allowed, Default)                                   \
  AttrSpec{Name, AttrKind::Kind, Required, Allowed, Default},
#include "ir/Ops.def"
};

constexpr OpKind kAttrOwners[] = {
#define FP8C_ATTR(Enum, Name, Kind, Required, Allowed, Default) OpKind::Enum,
#include "ir/Ops.def"
};

constexpr DeviceFnSpec kDeviceFnSpecs[] = {
#define FP8C_DEVICE_FN(Enum, Attr, Value, DeviceFn) DeviceFnSpec{Attr, Value, DeviceFn},
#include "ir/Ops.def"
    DeviceFnSpec{}, // (the table may be empty)
};

constexpr OpKind kDeviceFnOwners[] = {
#define FP8C_DEVICE_FN(Enum, Attr, Value, DeviceFn) OpKind::Enum,
#include "ir/Ops.def"
    OpKind::Return,
};
constexpr size_t kNumDeviceFnSpecs = std::size(kDeviceFnSpecs) - 1;

constexpr size_t kNumOps = 0
#define FP8C_OP(Enum, Name, MinOperands, MaxOperands, NumResults, Flags, DeviceFn) +1
#include "ir/Ops.def"
    ;

// Attribute rows of one op are contiguous in the table only if written so; compute each op's
// span by scanning, and require contiguity (checked at compile time below).
constexpr std::pair<size_t, size_t> attrRange(OpKind k) {
  size_t first = std::size(kAttrOwners), count = 0;
  for (size_t i = 0; i < std::size(kAttrOwners); ++i)
    if (kAttrOwners[i] == k) {
      if (count == 0)
        first = i;
      ++count;
    }
  return {first, count};
}

constexpr bool attrsContiguous() {
  for (size_t i = 0; i < std::size(kAttrOwners); ++i) {
    auto [first, count] = attrRange(kAttrOwners[i]);
    if (i < first || i >= first + count)
      return false;
  }
  return true;
}
static_assert(attrsContiguous(), "Ops.def: write each op's FP8C_ATTR rows together");

constexpr std::pair<size_t, size_t> deviceFnRange(OpKind k) {
  size_t first = kNumDeviceFnSpecs, count = 0;
  for (size_t i = 0; i < kNumDeviceFnSpecs; ++i)
    if (kDeviceFnOwners[i] == k) {
      if (count == 0)
        first = i;
      ++count;
    }
  return {first, count};
}

constexpr bool deviceFnsContiguous() {
  for (size_t i = 0; i < kNumDeviceFnSpecs; ++i) {
    auto [first, count] = deviceFnRange(kDeviceFnOwners[i]);
    if (i < first || i >= first + count)
      return false;
  }
  return true;
}
static_assert(deviceFnsContiguous(), "Ops.def: write each op's FP8C_DEVICE_FN rows together");

constexpr bool epilogueOpsArePointwise() {
  constexpr unsigned flags[] = {
#define FP8C_OP(Enum, Name, MinOperands, MaxOperands, NumResults, Flags, DeviceFn)                 \
  static_cast<unsigned>(Flags),
#include "ir/Ops.def"
  };
  for (unsigned f : flags)
    if ((f & kEpilogue) && !(f & kPointwise))
      return false;
  return true;
}
static_assert(epilogueOpsArePointwise(), "Ops.def: a kEpilogue op is kPointwise too");

std::array<OpInfo, kNumOps> buildInfos() {
  std::array<OpInfo, kNumOps> infos{};
  size_t i = 0;
#define FP8C_OP(Enum, Name, MinOperands, MaxOperands, NumResults, Flags, DeviceFn)                 \
  {                                                                                                \
    auto [first, count] = attrRange(OpKind::Enum);                                                 \
    auto [fnFirst, fnCount] = deviceFnRange(OpKind::Enum);                                         \
    infos[i++] =                                                                                   \
        OpInfo{OpKind::Enum,                                                                       \
               Name,                                                                               \
               MinOperands,                                                                        \
               MaxOperands,                                                                        \
               NumResults,                                                                         \
               static_cast<unsigned>(Flags),                                                       \
               std::span<const AttrSpec>(kAttrSpecs + (count ? first : 0), count),                 \
               DeviceFn,                                                                           \
               std::span<const DeviceFnSpec>(kDeviceFnSpecs + (fnCount ? fnFirst : 0), fnCount)};  \
  }
#include "ir/Ops.def"
  return infos;
}

const std::array<OpInfo, kNumOps> &infos() {
  static const std::array<OpInfo, kNumOps> table = buildInfos();
  return table;
}

} // namespace

bool AttrSpec::allows(const Attribute &value) const {
  if (allowed.empty())
    return true;
  std::string text = value.kind() == AttrKind::String ? value.asString() : value.str();
  std::string_view rest = allowed;
  while (!rest.empty()) {
    size_t bar = rest.find('|');
    if (rest.substr(0, bar) == text)
      return true;
    if (bar == std::string_view::npos)
      break;
    rest = rest.substr(bar + 1);
  }
  return false;
}

const AttrSpec *OpInfo::findAttr(std::string_view attrName) const {
  for (const AttrSpec &a : attrs)
    if (a.name == attrName)
      return &a;
  return nullptr;
}

const OpInfo &opInfo(OpKind kind) { return infos()[static_cast<size_t>(kind)]; }
std::string_view opName(OpKind kind) { return opInfo(kind).name; }

std::optional<OpKind> lookupOpKind(std::string_view name) {
  if (name == "return")
    return OpKind::Return;
  for (const OpInfo &info : infos())
    if (info.name == name)
      return info.kind;
  return std::nullopt;
}

std::span<const OpInfo> allOpInfos() { return std::span<const OpInfo>(infos()); }

} // namespace fp8c
