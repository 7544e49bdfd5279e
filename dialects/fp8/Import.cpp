// Import of upstream ops (see Import.h), and the registry of the dialects fp8c reads. One walk
// over each function body in order: a matmul becomes fp8.matmul / fp8.linear, and the addf that
// adds a broadcast bias to a just-imported linear is folded into it; then the init plumbing
// left unused is erased and whatever remains is reported.
#include "dialects/fp8/Import.h"

#include "dialects/fp8/Fp8Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <fmt/format.h>

namespace fp8c::fp8 {

void registerFp8cDialects(mlir::DialectRegistry &registry) {
  registry.insert<Fp8Dialect, mlir::func::FuncDialect, mlir::arith::ArithDialect,
                  mlir::linalg::LinalgDialect, mlir::tensor::TensorDialect>();
}

namespace {

constexpr std::string_view kImported =
    "fp8c imports linalg.matmul and linalg.matmul_transpose_b on tensors with a zero-filled "
    "init, arith.addf / arith.mulf of two tensors of one type, and arith.addf of a "
    "linalg.broadcast bias into fp8.linear";

std::string opName(mlir::Operation *op) { return op->getName().getStringRef().str(); }

bool isFp8cOp(mlir::Operation *op) {
  llvm::StringRef d = op->getName().getDialectNamespace();
  return d == "fp8" || d == "func" || d == "builtin";
}

/// Ops that only build init operands and shapes; erased once unused.
bool isPlumbing(mlir::Operation *op) {
  return llvm::isa<mlir::tensor::EmptyOp, mlir::tensor::DimOp, mlir::linalg::FillOp,
                   mlir::linalg::BroadcastOp, mlir::arith::ConstantOp>(op);
}

bool isZeroFill(mlir::Value init) {
  auto fill = init.getDefiningOp<mlir::linalg::FillOp>();
  if (!fill || fill.getDpsInputs().size() != 1)
    return false;
  auto cst = fill.getDpsInputs()[0].getDefiningOp<mlir::arith::ConstantOp>();
  auto value = cst ? llvm::dyn_cast<mlir::FloatAttr>(cst.getValue()) : mlir::FloatAttr();
  return value && value.getValue().isZero();
}

bool isHighPrecision(mlir::Type t) {
  auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(t);
  return tensor && (tensor.getElementType().isF32() || tensor.getElementType().isF16() ||
                    tensor.getElementType().isBF16());
}

/// Replaces `op`'s single result by a new fp8 op `T` on `operands`, keeping name and location.
template <typename T> T replaceWith(mlir::Operation *op, mlir::ValueRange operands) {
  mlir::OpBuilder b(op);
  mlir::Value old = op->getResult(0);
  T created = b.create<T>(op->getLoc(), mlir::TypeRange{old.getType()}, operands);
  old.replaceAllUsesWith(created->getResult(0));
  op->erase();
  return created;
}

mlir::LogicalResult importMatmul(mlir::linalg::LinalgOp op, bool transposeB) {
  const std::string name = opName(op);
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1)
    return op->emitError(fmt::format("'{}' on buffers: {}", name, kImported));
  mlir::Value a = op.getDpsInputs()[0], b = op.getDpsInputs()[1], init = op.getDpsInits()[0];
  mlir::Type elt = llvm::cast<mlir::ShapedType>(a.getType()).getElementType();
  for (mlir::Value v : {b, init})
    if (llvm::cast<mlir::ShapedType>(v.getType()).getElementType() != elt ||
        !isHighPrecision(v.getType()))
      return op->emitError(fmt::format(
          "'{}' with element types {}, {} -> {}: fp8c imports it where all three are one of "
          "f32, f16, bf16 (its result has its operands' dtype)",
          name, typeStr(a.getType()), typeStr(b.getType()), typeStr(init.getType())));
  if (!isZeroFill(init))
    return op->emitError(fmt::format("'{}' accumulates into its init operand; fp8c imports it "
                                     "only where the init is a linalg.fill of 0.0",
                                     name));
  if (transposeB)
    replaceWith<LinearOp>(op, {a, b});
  else
    replaceWith<MatmulOp>(op, {a, b});
  return mlir::success();
}

/// `v` = linalg.broadcast of a 1-D tensor along a new leading dim: returns that tensor.
mlir::Value broadcastBias(mlir::Value v) {
  auto bc = v.getDefiningOp<mlir::linalg::BroadcastOp>();
  if (!bc || !bc.hasPureTensorSemantics() || bc.getDimensions() != llvm::ArrayRef<int64_t>{0})
    return {};
  mlir::Value input = bc.getInput();
  auto t = llvm::dyn_cast<mlir::RankedTensorType>(input.getType());
  return t && t.getRank() == 1 ? input : mlir::Value();
}

template <typename Fp8T> mlir::LogicalResult importBinary(mlir::Operation *op) {
  mlir::Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  if (llvm::isa<mlir::arith::AddFOp>(op)) {
    // linear(x, w) + broadcast(bias) -> linear(x, w, bias), either operand order.
    for (int swap = 0; swap < 2; ++swap) {
      mlir::Value l = swap ? rhs : lhs, r = swap ? lhs : rhs;
      auto linear = l.getDefiningOp<LinearOp>();
      mlir::Value bias = broadcastBias(r);
      if (!linear || linear->getNumOperands() != 2 || !l.hasOneUse() || !bias)
        continue;
      mlir::Value x = linear->getOperand(0), w = linear->getOperand(1);
      replaceWith<LinearOp>(op, {x, w, bias}); // named and located as the addf
      linear->erase();
      return mlir::success();
    }
  }
  if (lhs.getType() != rhs.getType() || !isHighPrecision(lhs.getType()))
    return op->emitError(fmt::format("'{}' of {} and {}: {}", opName(op), typeStr(lhs.getType()),
                                     typeStr(rhs.getType()), kImported));
  replaceWith<Fp8T>(op, {lhs, rhs});
  return mlir::success();
}

mlir::LogicalResult importBlock(mlir::Block &block) {
  bool ok = true;
  llvm::SmallPtrSet<mlir::Operation *, 4> reported;
  for (mlir::Operation &op : llvm::make_early_inc_range(block)) {
    mlir::LogicalResult r = mlir::success();
    if (auto mm = llvm::dyn_cast<mlir::linalg::MatmulOp>(op))
      r = importMatmul(mm, /*transposeB=*/false);
    else if (auto mt = llvm::dyn_cast<mlir::linalg::MatmulTransposeBOp>(op))
      r = importMatmul(mt, /*transposeB=*/true);
    else if (llvm::isa<mlir::arith::AddFOp>(op) &&
             llvm::isa<mlir::TensorType>(op.getResult(0).getType()))
      r = importBinary<AddOp>(&op);
    else if (llvm::isa<mlir::arith::MulFOp>(op) &&
             llvm::isa<mlir::TensorType>(op.getResult(0).getType()))
      r = importBinary<MulOp>(&op);
    if (mlir::failed(r)) {
      reported.insert(&op);
      ok = false;
    }
  }
  // Erase the plumbing nothing uses any more (last first, so chains go in one sweep).
  for (bool changed = true; changed;) {
    changed = false;
    for (mlir::Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
      if (isPlumbing(&op) && op.use_empty()) {
        op.erase();
        changed = true;
      }
  }
  // Report what is left, except plumbing that only feeds ops reported themselves.
  for (mlir::Operation &op : block) {
    if (isFp8cOp(&op) || reported.contains(&op))
      continue;
    bool feedsOnlyUnsupported =
        isPlumbing(&op) &&
        llvm::all_of(op.getUsers(), [](mlir::Operation *u) { return !isFp8cOp(u); });
    if (!feedsOnlyUnsupported)
      op.emitError(fmt::format("unsupported op '{}': {}", opName(&op), kImported));
    ok = false;
  }
  return mlir::success(ok);
}

} // namespace

bool hasUpstreamOps(mlir::ModuleOp module) {
  bool found = false;
  module.walk([&](mlir::Operation *op) {
    if (!isFp8cOp(op))
      found = true;
    return found ? mlir::WalkResult::interrupt() : mlir::WalkResult::advance();
  });
  return found;
}

mlir::LogicalResult importUpstreamOps(mlir::ModuleOp module) {
  bool ok = true;
  for (auto func : module.getOps<mlir::func::FuncOp>())
    if (!func.getBody().empty())
      for (mlir::Block &block : func.getBody())
        ok = mlir::succeeded(importBlock(block)) && ok;
  return mlir::success(ok);
}

} // namespace fp8c::fp8
