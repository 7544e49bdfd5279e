// Type rules of the IR's ops (see TypeRules.h and the semantics in IR.h).
#include "ir/TypeRules.h"

#include "ir/DType.h"
#include "ir/KernelPlan.h"

#include <fmt/format.h>

namespace fp8c {
namespace {

std::string shapeStr(const std::vector<int64_t> &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + dimStr(s[i]);
  return out + "]";
}

bool isHighPrecision(DType t) { return t == DType::F32 || t == DType::F16 || t == DType::BF16; }

Error err(std::string msg) { return Error(std::move(msg)); }

std::string operandDesc(size_t i) { return fmt::format("operand #{}", i); }

// Checks that operand i has a high-precision float dtype.
std::string needHighPrecision(std::span<const TensorType> ops, size_t i, std::string_view what) {
  if (!isHighPrecision(ops[i].dtype()))
    return fmt::format("{} ({}) must be f32, f16 or bf16, got {}", what, operandDesc(i),
                       dtypeName(ops[i].dtype()));
  return "";
}

Granularity granularityOf(const AttrDict &attrs) {
  const Attribute *a = attrs.get("granularity");
  if (!a || a->kind() != AttrKind::String)
    return Granularity::Tensor;
  return parseGranularity(a->asString()).value_or(Granularity::Tensor);
}

// The scale operand `s` of cast/dequant must have the granularity's shape over `x`.
std::string checkScaleOperand(const TensorType &x, const TensorType &s, Granularity g,
                              std::string_view xName) {
  if (g != Granularity::Tensor && x.rank() != 2)
    return fmt::format("granularity \"{}\" needs a 2-D {}, got rank {}", granularityName(g),
                       xName, x.rank());
  if (s.dtype() != DType::F32)
    return fmt::format("scale must be f32, got {}", dtypeName(s.dtype()));
  std::vector<int64_t> want = scaleShape(g, x.shape());
  if (!shapesCompatible(want, s.shape()))
    return fmt::format("scale shape {} does not match granularity \"{}\" of {} {} (expected {})",
                       shapeStr(s.shape()), granularityName(g), xName, shapeStr(x.shape()),
                       shapeStr(want));
  return "";
}

Expected<TensorType> inferLinear(std::span<const TensorType> ops) {
  const TensorType &x = ops[0], &w = ops[1];
  if (std::string e = needHighPrecision(ops, 0, "input"); !e.empty())
    return err(e);
  if (x.rank() < 1)
    return err("input must have rank >= 1, got rank 0");
  if (w.rank() != 2)
    return err(fmt::format("weight must be 2-D [N, K], got rank {}", w.rank()));
  if (w.dtype() != x.dtype())
    return err(fmt::format("weight dtype {} differs from input dtype {}", dtypeName(w.dtype()),
                           dtypeName(x.dtype())));
  if (!dimsCompatible(x.shape().back(), w.dim(1)))
    return err(fmt::format("K mismatch: input has {}, weight has {}", dimStr(x.shape().back()),
                           dimStr(w.dim(1))));
  if (ops.size() == 3) {
    const TensorType &b = ops[2];
    if (b.rank() != 1 || !dimsCompatible(b.dim(0), w.dim(0)))
      return err(fmt::format("bias must be [{}], got {}", dimStr(w.dim(0)), shapeStr(b.shape())));
    if (b.dtype() != x.dtype())
      return err(fmt::format("bias dtype {} differs from input dtype {}", dtypeName(b.dtype()),
                             dtypeName(x.dtype())));
  }
  std::vector<int64_t> shape = x.shape();
  shape.back() = w.dim(0);
  return TensorType(shape, x.dtype());
}

Expected<TensorType> inferMatmul(std::span<const TensorType> ops) {
  const TensorType &a = ops[0], &b = ops[1];
  if (std::string e = needHighPrecision(ops, 0, "lhs"); !e.empty())
    return err(e);
  if (a.rank() != 2 || b.rank() != 2)
    return err(fmt::format("operands must be 2-D, got ranks {} and {}", a.rank(), b.rank()));
  if (a.dtype() != b.dtype())
    return err(fmt::format("operand dtypes differ: {} and {}", dtypeName(a.dtype()),
                           dtypeName(b.dtype())));
  if (!dimsCompatible(a.dim(1), b.dim(0)))
    return err(fmt::format("K mismatch: lhs has {}, rhs has {}", dimStr(a.dim(1)),
                           dimStr(b.dim(0))));
  return TensorType({a.dim(0), b.dim(1)}, a.dtype());
}

Expected<TensorType> inferBinary(OpKind kind, std::span<const TensorType> ops) {
  const TensorType &a = ops[0], &b = ops[1];
  if (std::string e = needHighPrecision(ops, 0, "lhs"); !e.empty())
    return err(e);
  if (a.dtype() != b.dtype())
    return err(fmt::format("operand dtypes differ: {} and {}", dtypeName(a.dtype()),
                           dtypeName(b.dtype())));
  if (kind == OpKind::Swiglu || (!a.isScalar() && !b.isScalar())) {
    if (a.rank() != b.rank() || !shapesCompatible(a.shape(), b.shape()))
      return err(fmt::format("operand shapes differ: {} and {}", shapeStr(a.shape()),
                             shapeStr(b.shape())));
    return a;
  }
  return a.isScalar() ? b : a;
}

Expected<TensorType> inferScaledMatmul(std::span<const TensorType> ops, const AttrDict &attrs,
                                       std::optional<DType> resultDType) {
  const TensorType &a = ops[0], &b = ops[1], &sa = ops[2], &sb = ops[3];
  if (!isFloat8(a.dtype()) || !isFloat8(b.dtype()))
    return err(fmt::format("operands must be FP8, got {} and {}", dtypeName(a.dtype()),
                           dtypeName(b.dtype())));
  if (a.dtype() == DType::F8E5M2 && b.dtype() == DType::F8E5M2)
    return err("f8E5M2 x f8E5M2 has no FP8 tensor-core instruction; make one operand f8E4M3FN");
  // a [..., K] as fp8.linear's input: its leading dims flattened are M (tensor scales only).
  if (a.rank() < 2 || b.rank() != 2)
    return err(fmt::format("operands must be a [..., M, K] (rank >= 2) and b [N, K], got ranks "
                           "{} and {}",
                           a.rank(), b.rank()));
  const int64_t k = a.shape().back();
  if (!dimsCompatible(k, b.dim(1)))
    return err(fmt::format("K mismatch: a has {}, b has {}", dimStr(k), dimStr(b.dim(1))));
  if (sa.dtype() != DType::F32 || sb.dtype() != DType::F32)
    return err(fmt::format("scales must be f32, got {} and {}", dtypeName(sa.dtype()),
                           dtypeName(sb.dtype())));
  bool tensorwise = sa.isScalar() && sb.isScalar();
  if (a.rank() != 2 && !tensorwise)
    return err(fmt::format("row and block scales need a 2-D a [M, K], got {}; a of rank > 2 "
                           "takes tensor scales ([] and [])",
                           shapeStr(a.shape())));
  int64_t m = a.dim(0), n = b.dim(0);
  bool rowwise = sa.rank() == 1 && sb.rank() == 1 && dimsCompatible(sa.dim(0), m) &&
                 dimsCompatible(sb.dim(0), n);
  bool blockwise = sa.rank() == 2 && sb.rank() == 2 &&
                   shapesCompatible(sa.shape(), {m, ceilDivDim(k, 128)}) &&
                   shapesCompatible(sb.shape(), {ceilDivDim(n, 128), ceilDivDim(k, 128)});
  if (!tensorwise && !rowwise && !blockwise)
    return err(fmt::format(
        "scale shapes {} and {} match no scaling mode: expected [] and [] (tensor), [{}] and [{}] "
        "(row), or [{}, {}] and [{}, {}] (blockwise)",
        shapeStr(sa.shape()), shapeStr(sb.shape()), dimStr(m), dimStr(n), dimStr(m),
        dimStr(ceilDivDim(k, 128)), dimStr(ceilDivDim(n, 128)), dimStr(ceilDivDim(k, 128))));
  if (ops.size() == 5) {
    const TensorType &bias = ops[4];
    if (bias.rank() != 1 || !dimsCompatible(bias.dim(0), n))
      return err(fmt::format("bias must be [{}], got {}", dimStr(n), shapeStr(bias.shape())));
    if (!isHighPrecision(bias.dtype()))
      return err(fmt::format("bias must be f32, f16 or bf16, got {}", dtypeName(bias.dtype())));
  }
  const Attribute *out = attrs.get("out");
  std::optional<DType> dt = resultDType;
  if (out && out->kind() == AttrKind::DType) {
    if (dt && *dt != out->asDType())
      return err(fmt::format("result dtype {} differs from out = {}", dtypeName(*dt),
                             dtypeName(out->asDType())));
    dt = out->asDType();
  }
  if (!dt)
    return err("result dtype is not known: give `out` or a result type");
  if (!isFloat(*dt))
    return err(fmt::format("result dtype must be a float type, got {}", dtypeName(*dt)));
  std::vector<int64_t> shape = a.shape();
  shape.back() = n;
  return TensorType(shape, *dt);
}

} // namespace

std::optional<Granularity> parseGranularity(std::string_view s) {
  if (s == "tensor")
    return Granularity::Tensor;
  if (s == "row")
    return Granularity::Row;
  if (s == "col")
    return Granularity::Col;
  if (s == "block_1x128")
    return Granularity::Block1x128;
  if (s == "block_128x128")
    return Granularity::Block128x128;
  return std::nullopt;
}

std::string_view granularityName(Granularity g) {
  switch (g) {
  case Granularity::Tensor:
    return "tensor";
  case Granularity::Row:
    return "row";
  case Granularity::Col:
    return "col";
  case Granularity::Block1x128:
    return "block_1x128";
  case Granularity::Block128x128:
    return "block_128x128";
  }
  return "?";
}

int64_t ceilDivDim(int64_t d, int64_t b) {
  return d == kDynamic ? kDynamic : d / b + (d % b != 0); // no overflow near INT64_MAX
}

bool dimsCompatible(int64_t a, int64_t b) { return a == b || a == kDynamic || b == kDynamic; }

bool shapesCompatible(const std::vector<int64_t> &a, const std::vector<int64_t> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!dimsCompatible(a[i], b[i]))
      return false;
  return true;
}

std::vector<int64_t> scaleShape(Granularity g, const std::vector<int64_t> &s) {
  switch (g) {
  case Granularity::Tensor:
    return {};
  case Granularity::Row:
    return {s[0]};
  case Granularity::Col:
    return {s[1]};
  case Granularity::Block1x128:
    return {s[0], ceilDivDim(s[1], 128)};
  case Granularity::Block128x128:
    return {ceilDivDim(s[0], 128), ceilDivDim(s[1], 128)};
  }
  return {};
}

std::string operandCountStr(const OpInfo &info) {
  int lo = info.minOperands, hi = info.maxOperands;
  if (hi < 0)
    return fmt::format("at least {} operand{}", lo, lo == 1 ? "" : "s");
  if (lo == hi)
    return fmt::format("{} operand{}", lo, lo == 1 ? "" : "s");
  return fmt::format("{} to {} operands", lo, hi);
}

std::string checkAttributes(OpKind kind, const AttrDict &attrs) {
  const OpInfo &info = opInfo(kind);
  for (const auto &[name, value] : attrs) {
    if (name == kOpRoleAttr)
      continue; // any op of a kernel region: checkKernelPlan's
    const AttrSpec *spec = info.findAttr(name);
    if (!spec) {
      std::string known;
      for (const AttrSpec &a : info.attrs)
        known += (known.empty() ? "" : ", ") + std::string(a.name);
      return fmt::format("unknown attribute '{}' ({})", name,
                         known.empty() ? std::string("the op takes none") : "known: " + known);
    }
    if (value.kind() != spec->kind)
      return fmt::format("attribute '{}' must be {} {}, got {}", name,
                         spec->kind == AttrKind::Int ? "an" : "a", attrKindName(spec->kind),
                         value.str());
    if (!spec->allows(value))
      return fmt::format("attribute '{}' has value {}; expected one of: {}", name, value.str(),
                         spec->allowed);
    if (name == "margin" && (value.asInt() < 0 || value.asInt() > 64))
      return fmt::format("attribute 'margin' must be in [0, 64], got {}", value.asInt());
  }
  for (const AttrSpec &spec : info.attrs)
    if (spec.required && !attrs.has(spec.name))
      return fmt::format("requires attribute '{}'", spec.name);
  return "";
}

Expected<TensorType> inferResultType(OpKind kind, std::span<const TensorType> ops,
                                     const AttrDict &attrs, std::optional<DType> resultDType) {
  const OpInfo &info = opInfo(kind);
  if (static_cast<int>(ops.size()) < info.minOperands ||
      (info.maxOperands >= 0 && static_cast<int>(ops.size()) > info.maxOperands))
    return err(fmt::format("takes {}, got {}", operandCountStr(info), ops.size()));
  switch (kind) {
  case OpKind::Linear:
    return inferLinear(ops);
  case OpKind::Matmul:
    return inferMatmul(ops);
  case OpKind::Add:
  case OpKind::Mul:
  case OpKind::Swiglu:
    return inferBinary(kind, ops);
  case OpKind::Relu:
  case OpKind::Gelu:
  case OpKind::Silu:
    if (std::string e = needHighPrecision(ops, 0, "input"); !e.empty())
      return err(e);
    return ops[0];
  case OpKind::ReluGrad:
  case OpKind::GeluGrad:
  case OpKind::SiluGrad:
  case OpKind::SwigluGrad:
    for (size_t i = 0; i < ops.size(); ++i) {
      if (std::string e = needHighPrecision(ops, i, i == 0 ? "gradient" : "input"); !e.empty())
        return err(e);
      if (ops[i].dtype() != ops[0].dtype() || ops[i].rank() != ops[0].rank() ||
          !shapesCompatible(ops[i].shape(), ops[0].shape()))
        return err(fmt::format("operand #{} has type {}; the gradient has {} (types must be equal)",
                               i, ops[i].str(), ops[0].str()));
    }
    return ops[0];
  case OpKind::ColSum:
    if (std::string e = needHighPrecision(ops, 0, "input"); !e.empty())
      return err(e);
    if (ops[0].rank() < 1)
      return err("input must have rank >= 1, got rank 0");
    return TensorType({ops[0].shape().back()}, ops[0].dtype());
  case OpKind::Convert:
    if (!isFloat(ops[0].dtype()))
      return err(fmt::format("input must be a float type, got {}", dtypeName(ops[0].dtype())));
    if (!resultDType)
      return err("result dtype is not known: give a result type");
    if (!isFloat(*resultDType))
      return err(fmt::format("result must be a float type, got {}", dtypeName(*resultDType)));
    return ops[0].withDType(*resultDType);
  case OpKind::Transpose:
    if (ops[0].rank() != 2)
      return err(fmt::format("input must be 2-D, got rank {}", ops[0].rank()));
    return TensorType({ops[0].dim(1), ops[0].dim(0)}, ops[0].dtype());
  case OpKind::Amax: {
    Granularity g = granularityOf(attrs);
    if (!isFloat(ops[0].dtype()))
      return err(fmt::format("input must be a float type, got {}", dtypeName(ops[0].dtype())));
    if (g != Granularity::Tensor && ops[0].rank() != 2)
      return err(fmt::format("granularity \"{}\" needs a 2-D input, got rank {}",
                             granularityName(g), ops[0].rank()));
    return TensorType(scaleShape(g, ops[0].shape()), DType::F32);
  }
  case OpKind::Scale:
    if (ops[0].dtype() != DType::F32)
      return err(fmt::format("amax must be f32, got {}", dtypeName(ops[0].dtype())));
    return ops[0];
  case OpKind::Cast: {
    if (std::string e = needHighPrecision(ops, 0, "input"); !e.empty())
      return err(e);
    if (std::string e = checkScaleOperand(ops[0], ops[1], granularityOf(attrs), "input");
        !e.empty())
      return err(e);
    if (!resultDType)
      return err("result dtype is not known: give a result type");
    if (!isFloat8(*resultDType))
      return err(fmt::format("result must be f8E4M3FN or f8E5M2, got {}", dtypeName(*resultDType)));
    return ops[0].withDType(*resultDType);
  }
  case OpKind::Dequant: {
    if (!isFloat8(ops[0].dtype()))
      return err(fmt::format("input must be FP8, got {}", dtypeName(ops[0].dtype())));
    if (std::string e = checkScaleOperand(ops[0], ops[1], granularityOf(attrs), "input");
        !e.empty())
      return err(e);
    if (!resultDType)
      return err("result dtype is not known: give a result type");
    if (!isHighPrecision(*resultDType))
      return err(fmt::format("result must be f32, f16 or bf16, got {}", dtypeName(*resultDType)));
    return ops[0].withDType(*resultDType);
  }
  case OpKind::ScaledMatmul:
    return inferScaledMatmul(ops, attrs, resultDType);
  case OpKind::HistoryScale:
    if (ops[0].dtype() != DType::F32 || ops[0].rank() != 1 || ops[0].dim(0) == 0 ||
        ops[0].dim(0) == kDynamic)
      return err(fmt::format("history must be a static non-empty 1-D f32 tensor, got {}",
                             ops[0].str()));
    return TensorType({}, DType::F32);
  case OpKind::HistoryPush:
    if (ops[0].dtype() != DType::F32 || ops[0].rank() != 1 || ops[0].dim(0) == 0 ||
        ops[0].dim(0) == kDynamic)
      return err(fmt::format("history must be a static non-empty 1-D f32 tensor, got {}",
                             ops[0].str()));
    if (ops[1] != TensorType({}, DType::F32))
      return err(fmt::format("amax must be tensor<f32>, got {}", ops[1].str()));
    return ops[0];
  case OpKind::Kernel:
  case OpKind::Yield:
  case OpKind::Return:
    return err(fmt::format("{} has no inferable result type", info.name));
  }
  return err("unknown op kind");
}

} // namespace fp8c
