// Type rules of every op that has no region: which operand types are legal and what result
// type they give. One function serves the verifier (declared vs inferred type), the Builder
// (result types of captured ops) and shape-infer.
#pragma once

#include "ir/Attribute.h"
#include "ir/OpKind.h"
#include "ir/Status.h"
#include "ir/Type.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fp8c {

/// Granularities of amax / cast / dequant.
enum class Granularity { Tensor, Row, Col, Block1x128, Block128x128 };
std::optional<Granularity> parseGranularity(std::string_view s);
std::string_view granularityName(Granularity g);

/// Shape of the amax / scale tensor of a rank-2 (or, for Tensor, any-rank) tensor `shape`.
/// tensor -> [], row -> [R], col -> [C], block_1x128 -> [R, ceil(C/128)],
/// block_128x128 -> [ceil(R/128), ceil(C/128)]; dynamic dims stay dynamic.
std::vector<int64_t> scaleShape(Granularity g, const std::vector<int64_t> &shape);

/// ceil(d / b), or kDynamic.
int64_t ceilDivDim(int64_t d, int64_t b);
/// True when two dims can be equal (equal, or either is dynamic).
bool dimsCompatible(int64_t a, int64_t b);
bool shapesCompatible(const std::vector<int64_t> &a, const std::vector<int64_t> &b);

/// Result type of `kind` applied to `operands` with `attrs`, or an error message (without a
/// location; the caller attaches one). `resultDType` is the declared result dtype: required
/// where operands do not determine it (convert, cast, dequant, scaled_matmul without `out`),
/// and checked for legality there; ignored elsewhere.
Expected<TensorType> inferResultType(OpKind kind, std::span<const TensorType> operands,
                                     const AttrDict &attrs,
                                     std::optional<DType> resultDType = std::nullopt);

/// The operand count Ops.def allows `info`'s op: "1 operand", "2 operands", "2 to 3 operands",
/// "at least 0 operands". Used in `takes 2 to 3 operands, got 1`.
std::string operandCountStr(const OpInfo &info);

/// Checks attribute names, kinds and values of a non-region op against Ops.def and the
/// op-specific ranges (e.g. margin); an op's `fp8.role` and the values of the kernel's plan
/// attributes are checkKernelPlan's (ir/KernelPlan.h). Returns an error message or "".
std::string checkAttributes(OpKind kind, const AttrDict &attrs);

} // namespace fp8c
