// One group of LaunchBuilder (its value v with its amax, FP8 cast and store) as a LaunchDesc;
// the value's pointwise expression is ExprBuilder.cpp's.
#include "codegen/LaunchBuilder.h"

#include <algorithm>

namespace fp8c::codegen {
namespace {

std::string opsList(const std::vector<const Op *> &ops) {
  std::string s;
  for (const Op *op : ops)
    s += (s.empty() ? "" : ", ") + std::string(op->name()) + " %" + op->result()->name();
  return s;
}

} // namespace

Bcast bcastOf(Granularity g) {
  switch (g) {
  case Granularity::Tensor:
    return Bcast::Scalar;
  case Granularity::Row:
    return Bcast::Row;
  case Granularity::Col:
    return Bcast::Col;
  case Granularity::Block1x128:
    return Bcast::Block1x128;
  case Granularity::Block128x128:
    return Bcast::Block128x128;
  }
  return Bcast::Full;
}

// --- groups ------------------------------------------------------------------------------------

bool LaunchBuilder::inlinable(const Op *op) const {
  if (!op || !inScope(op))
    return false;
  if (op->info().has(kPointwise))
    return true;
  switch (op->kind()) {
  case OpKind::Scale:
    return op->result()->type().rank() > 0 && !localScaleOps_.count(op);
  case OpKind::Cast:
    return !materialized(op->result());
  default:
    return false;
  }
}

void LaunchBuilder::collectNeeds(const Value *v, const Value *root, std::set<const Value *> &needs,
                                 std::set<const Value *> &seen) const {
  if (!seen.insert(v).second || slotOf_.count(v))
    return;
  const Op *def = v->definingOp();
  if (!def || !inScope(def))
    return;
  if (inlinable(def) && (v == root || !materialized(v))) {
    for (const Value *o : def->operands())
      collectNeeds(o, root, needs, seen);
    return;
  }
  if (v != root)
    needs.insert(v);
}

void LaunchBuilder::analyze(Group &g) {
  std::set<const Value *> seen;
  const Op *def = g.v->definingOp();
  if (g.colSum)
    collectNeeds(g.colSum->operand(0), g.colSum->operand(0), g.needs, seen);
  else if (def && inScope(def) && def->kind() == OpKind::Transpose)
    collectNeeds(def->operand(0), def->operand(0), g.needs, seen);
  else
    collectNeeds(g.v, g.v, g.needs, seen);
  if (g.store)
    g.writes.insert(g.v);
  if (g.transposeOut)
    g.writes.insert(g.transposeOut);
  if (g.fusedColSum)
    g.writes.insert(g.fusedColSum->result());
  if (g.inputCopy)
    g.writes.insert(g.inputCopy->result());
  if (g.rowLocalCast) {
    const LocalScale &ls = local_.at(g.rowLocalCast);
    g.writes.insert(g.rowLocalCast->result());
    g.writes.insert(ls.scale->result());
    g.writes.insert(ls.amax->result());
  }
  if (g.amax)
    g.writes.insert(g.amax->result());
  if (g.cast) {
    g.writes.insert(g.cast->result());
    const Value *s = g.cast->operand(1);
    if (auto it = local_.find(g.cast); it != local_.end()) {
      g.writes.insert(it->second.scale->result());
      g.writes.insert(it->second.amax->result());
    } else if (!slotOf_.count(s) && inScope(s)) {
      const Op *sd = s->definingOp();
      if (castOnlyScale(sd)) {
        g.writes.insert(s);
        collectNeeds(sd->operand(0), nullptr, g.needs, seen);
      } else {
        g.needs.insert(s);
      }
    }
  }
}

Status LaunchBuilder::castInfo(const Group &g, const Value *v, LaunchDesc &d) {
  const Op *c = g.cast;
  CastInfo ci;
  ci.buf = lw_.bufferOf(c->result());
  ci.dt = c->result()->type().dtype();
  ci.ld = lw_.ldOf(ci.buf);
  ci.gran = granOf(c);
  ci.groups = ceilDiv(d.cols, 128);
  const Value *s = c->operand(1);
  auto otherUses = [&](const Value *x, const Op *except) {
    for (const Op *u : x->users())
      if (u != except && u->kind() != OpKind::Yield && inScope(u))
        return true;
    return materialized(x);
  };
  const Value *scaleValue = nullptr;
  if (auto it = local_.find(c); it != local_.end()) {
    const Op *sc = it->second.scale, *a = it->second.amax;
    ci.src = CastInfo::Src::Local;
    ci.scaleDt = sc->dtypeAttr("dtype");
    ci.margin = sc->intAttr("margin");
    ci.pow2 = sc->boolAttr("pow2");
    const bool keepAmax = otherUses(a->result(), sc);
    if (ci.gran == Granularity::Tensor) {
      // The amax that only this launch reads is its Scratch, put back to zero by its last
      // block; one that later steps read is zeroed before it on every run.
      if (keepAmax) {
        ci.amaxOut = lw_.bufferOf(a->result());
        lw_.desc(ci.amaxOut).zeroInit = true;
      } else {
        ci.amaxOut = lw_.newScratch("amax", TensorType({}, DType::F32));
        d.resetAmax = true;
      }
      d.barrierBuf = lw_.newGridBarrier();
    } else if (keepAmax) {
      ci.amaxOut = lw_.bufferOf(a->result());
    }
    if (otherUses(sc->result(), c))
      ci.scaleOut = lw_.bufferOf(sc->result());
    scaleValue = sc->result();
    d.description += (d.description.empty() ? "" : ", ") + opsList({a, sc});
  } else if (auto sl = slotOf_.find(s); sl != slotOf_.end()) {
    ci.src = CastInfo::Src::Slot;
    ci.slot = sl->second;
  } else if (inScope(s) && castOnlyScale(s->definingOp())) {
    const Op *sd = s->definingOp();
    ci.src = CastInfo::Src::Buffer;
    ci.fromAmax = true;
    ci.scaleBuf = lw_.bufferOf(sd->operand(0));
    ci.amaxRound = lw_.amaxRound(ci.scaleBuf);
    ci.scaleDt = sd->dtypeAttr("dtype");
    ci.margin = sd->intAttr("margin");
    ci.pow2 = sd->boolAttr("pow2");
    if (materialized(s))
      ci.scaleOut = lw_.bufferOf(s);
    scaleValue = s;
    d.description += (d.description.empty() ? "" : ", ") + opsList({sd});
  } else {
    ci.src = CastInfo::Src::Buffer;
    ci.scaleBuf = lw_.bufferOf(s);
  }
  if (scaleValue) {
    std::vector<InvLayout> pending = lw_.pendingInverses(scaleValue);
    if (!pending.empty()) {
      ci.invOut = *lw_.inverseBuffer(scaleValue, pending[0]);
      ci.invLayout = pending[0];
      lw_.markInverseWritten(scaleValue, pending[0]);
    }
  }
  if (ci.gran == Granularity::Col && ci.src == CastInfo::Src::Local)
    return Error("a cast with a per-column scale computed in the same kernel is not supported");
  d.description += (d.description.empty() ? "" : ", ") + opsList({c});
  (void)v;
  d.cast = ci;
  return Status::ok();
}

// The region ops an expression computes inline, in block order (a launch's description).
std::vector<const Op *> LaunchBuilder::inlinedOps(const ExprBuilder &eb) const {
  std::vector<const Op *> chain;
  for (const auto &op : kernel_.body()->ops())
    if (inlinable(op.get()) && eb.computed(op->result()))
      chain.push_back(op.get());
  return chain;
}

Status LaunchBuilder::lowerGroup(const Group &g, std::vector<LaunchDesc> &out) {
  const Value *v = g.v;
  const Op *def = v->definingOp();
  const bool transpose = def && inScope(def) && def->kind() == OpKind::Transpose;
  auto suffix = [&](const LaunchDesc &d, const char *fallback) {
    if (!role_.empty())
      return role_;
    if (d.cast)
      return std::string(d.kind == LaunchKind::Transpose ? "cast_transpose" : "quantize");
    if (d.amaxBuf >= 0 && d.storeBuf < 0)
      return std::string("amax");
    return std::string(fallback);
  };
  if (g.colSum)
    return lowerColSum(g, out);
  if (g.transposeOut)
    return lowerCastTranspose(g, out);
  if (transpose) {
    const Value *x = def->operand(0);
    LaunchDesc d;
    d.kind = LaunchKind::Transpose;
    d.rows = Lowerer::rowsOf(x->type());
    d.cols = Lowerer::colsOf(x->type());
    ExprBuilder eb(lw_, *this, d, x);
    d.result = eb.of(x);
    d.valueDt = x->type().dtype();
    std::vector<const Op *> chain = inlinedOps(eb);
    chain.push_back(def);
    d.description = opsList(chain);
    int outBuf;
    if (!g.splitTranspose && g.cast) {
      if (Status s = castInfo(g, v, d); !s)
        return s;
      if (d.cast->src == CastInfo::Src::Buffer)
        return Error("a cast-transpose takes a tensor scale only");
      if (d.cast->gran != Granularity::Tensor) {
        // Per output row (block): amaxes per column of x through a zeroed buffer.
        const bool blocks = d.cast->gran == Granularity::Block1x128;
        d.cast->groups = blocks ? ceilDiv(d.rows.fixed, 128) : 1;
        if (d.cast->amaxOut < 0) {
          std::vector<int64_t> shape = {d.cols};
          if (blocks)
            shape.push_back(d.cast->groups);
          d.cast->amaxOut = lw_.newTemp("amax", TensorType(shape, DType::F32), 0, true);
        }
        lw_.desc(d.cast->amaxOut).zeroInit = true;
        d.barrierBuf = lw_.newGridBarrier();
        if (g.rowLocalCast)
          if (Status s = rowCastInfo(g, x, d); !s)
            return s;
      }
      outBuf = d.cast->buf;
    } else {
      d.storeBuf = outBuf = lw_.bufferOf(v);
      d.storeDt = v->type().dtype();
    }
    if (!g.splitTranspose && g.amax) {
      d.amaxBuf = lw_.bufferOf(g.amax->result());
      lw_.desc(d.amaxBuf).zeroInit = true;
      d.description += ", " + opsList({g.amax});
    }
    transposedOutput(g, outBuf, d);
    d.suffix = suffix(d, "transpose");
    out.push_back(std::move(d));
    if (!g.splitTranspose || (!g.amax && !g.cast))
      return Status::ok();
  }
  LaunchDesc d;
  d.rows = Lowerer::rowsOf(v->type());
  d.cols = Lowerer::colsOf(v->type());
  if (lw_.mDivisor(v) != 1 || (g.cast && lw_.mDivisor(g.cast->result()) != 1))
    return Error("%" + v->name() +
                 " has ceil(M/128) rows (a 128x128 block grid of a tensor with "
                 "a dynamic dim): only its 128x128 amax / scale are supported");
  if (d.cols == kDynamic)
    return Error("%" + v->name() +
                 " has a dynamic last dim: only a transpose (or a tensorwise "
                 "cast-transpose) of it is supported, not " +
                 (g.amax || g.cast ? "this reduction or cast" : "this pointwise op"));
  ExprBuilder eb(lw_, *this, d, v);
  d.result = eb.of(v);
  d.valueDt = v->type().dtype();
  d.description = opsList(inlinedOps(eb));
  if (g.store && !transpose) {
    d.storeBuf = lw_.bufferOf(v);
    d.storeDt = v->type().dtype();
    d.storeLd = lw_.ldOf(d.storeBuf);
  }
  bool tiles = false;
  if (g.amax) {
    d.amaxBuf = lw_.bufferOf(g.amax->result());
    d.amaxGran = granOf(g.amax);
    d.amaxGroups = ceilDiv(d.cols, 128);
    if (d.amaxGran == Granularity::Tensor || d.amaxGran == Granularity::Col)
      lw_.desc(d.amaxBuf).zeroInit = true;
    tiles |= d.amaxGran == Granularity::Block128x128;
    d.description += (d.description.empty() ? "" : ", ") + opsList({g.amax});
  }
  if (g.cast) {
    if (Status s = castInfo(g, v, d); !s)
      return s;
    tiles |= d.cast->gran == Granularity::Block128x128;
  }
  if (tiles) {
    const bool amaxOk = !g.amax || d.amaxGran == Granularity::Block128x128;
    const bool castOk = !g.cast || d.cast->gran == Granularity::Block128x128;
    if (!amaxOk || !castOk)
      return Error("a 128x128 block amax or cast cannot share a launch with another granularity");
    d.kind = LaunchKind::Tiles;
  }
  if ((d.amaxBuf >= 0 && d.amaxGran != Granularity::Tensor) ||
      (d.cast && d.cast->gran != Granularity::Tensor))
    if (v->type().rank() != 2)
      return Error("row, column and block granularities need a 2-D tensor");
  d.suffix = suffix(d, "pointwise");
  out.push_back(std::move(d));
  return Status::ok();
}

// The cast of x with local per-row (1x128-block) scales that a per-output-row cast-transpose
// of x also writes (kRowCast): its amaxes through a zeroed buffer, reduced in phase 1.
Status LaunchBuilder::rowCastInfo(const Group &g, const Value *x, LaunchDesc &d) {
  std::optional<CastInfo> transposed = d.cast;
  Group rg;
  rg.cast = g.rowLocalCast;
  if (Status s = castInfo(rg, x, d); !s)
    return s;
  CastInfo rc = *d.cast;
  d.cast = transposed;
  rc.groups = rc.gran == Granularity::Block1x128 ? ceilDiv(d.cols, 128) : 1;
  if (rc.amaxOut < 0)
    rc.amaxOut = lw_.newTemp("amax", local_.at(g.rowLocalCast).amax->result()->type(), 0, true);
  lw_.desc(rc.amaxOut).zeroInit = true;
  d.rowCast = rc;
  return Status::ok();
}

// A (cast-)transpose launch's output pitch (static, or M rounded up when a GEMM reads it, for a
// dynamic M) and the col_sum of its input it takes.
void LaunchBuilder::transposedOutput(const Group &g, int outBuf, LaunchDesc &d) {
  const BufferDesc &ob = lw_.desc(outBuf);
  d.outLdAlignM = ob.type.isDynamicDim(1) ? std::max(ob.ldAlignM, 1) : 0;
  d.outLd = d.outLdAlignM ? 0 : lw_.ldOf(outBuf);
  if (g.fusedColSum)
    fuseColSum(*g.fusedColSum, d);
}

int64_t colSumUnitChunks(const AffineM &rows, int64_t cols, int64_t tileHeight,
                         int64_t blocksPerSm) {
  // About four units per resident block of an H100/H200 (132 SMs x 8 blocks), so the last wave
  // is short. With a static row count (a training step compiled for its token count), every
  // chunk has rows, and a unit has at least 4 tile rows where that still leaves a unit per
  // block resident at the launch's `blocksPerSm`: a unit ends with barriers, a fence, an atomic
  // and a row of partial sums (H200, the two kernels timed alternately in one process, the delayed
  // MLP's dY at 8192 tokens, general form: 2 rows per unit 49.0 us, 4 rows 45.3 us, 8 rows 47.3 us;
  // byte-staged, 128-row tiles, fp8c-train-bench --profile: the Linear's dY 138.0 / 136.2 / 137.5
  // us at 2 / 4 / 8 tiles per unit, the MLP's 42.5 / 40.5 / 39.9 and at 3 tiles, 22 chunks, 44.4;
  // the MLP's gelu_grad 180.2 / 177.5 / 182.7).
  constexpr int64_t kResident = 132 * 8;
  const int64_t tileCols = ceilDiv(cols, 64);
  int64_t chunks = std::clamp<int64_t>(ceilDiv(4 * kResident, tileCols), 1, 256);
  if (rows.perM == 0) {
    const int64_t tileRows = std::max<int64_t>(1, ceilDiv(rows.fixed, tileHeight));
    const int64_t fine = ceilDiv(tileRows, std::min(chunks, tileRows)); // rows per unit
    const int64_t coarse = std::clamp<int64_t>(tileRows * tileCols / (132 * blocksPerSm), 1, 4);
    chunks = ceilDiv(tileRows, std::max(fine, coarse));
  }
  return chunks;
}

// The col_sum of a (cast-)transpose launch's input, summed from the tiles it reads. The
// partial sums are sized for the general form's chunks, which are at least the byte-staged
// form's (EmitLaunch.cpp).
void LaunchBuilder::fuseColSum(const Op &cs, LaunchDesc &d) {
  d.colSumBuf = lw_.bufferOf(cs.result());
  d.colSumDt = cs.result()->type().dtype();
  const int64_t tileCols = ceilDiv(d.cols, 64);
  d.colSumChunks = static_cast<int>(colSumUnitChunks(d.rows, d.cols, 64, 8));
  d.partialBuf = lw_.newTemp("colsum_partial", TensorType({d.colSumChunks, d.cols}, DType::F32));
  d.counterBuf = lw_.newTemp("colsum_counter", TensorType({tileCols}, DType::I32), 0, true);
  d.description += ", " + opsList({&cs});
}

// cast(v) and transpose(cast(v)) (and col_sum(v)) in one launch (transpose.cuh with
// kRowCastBuf, kColSum): see mergeCastTransposes.
Status LaunchBuilder::lowerCastTranspose(const Group &g, std::vector<LaunchDesc> &out) {
  const Value *v = g.v;
  LaunchDesc d;
  d.kind = LaunchKind::Transpose;
  d.rows = Lowerer::rowsOf(v->type());
  d.cols = Lowerer::colsOf(v->type());
  ExprBuilder eb(lw_, *this, d, v);
  d.result = eb.of(v);
  d.valueDt = v->type().dtype();
  d.description = opsList(inlinedOps(eb));
  if (g.amax) {
    d.amaxBuf = lw_.bufferOf(g.amax->result());
    lw_.desc(d.amaxBuf).zeroInit = true;
    d.description += (d.description.empty() ? "" : ", ") + opsList({g.amax});
  }
  if (Status s = castInfo(g, v, d); !s)
    return s;
  d.rowCastBuf = d.cast->buf;
  d.rowCastLd = d.cast->ld;
  const int outBuf = lw_.bufferOf(g.transposeOut);
  d.cast->buf = outBuf;
  d.description += ", " + opsList({g.transposeOut->definingOp()});
  transposedOutput(g, outBuf, d);
  if (g.inputCopy) {
    const int in = lw_.bufferOf(g.inputCopy->operand(0));
    for (size_t i = 0; i < d.inputs.size(); ++i)
      if (d.inputs[i].buf == in && d.inputs[i].bc == Bcast::Full && static_cast<int>(i) != d.tabIn)
        d.copyIn = static_cast<int>(i);
    if (d.copyIn < 0)
      return Error("internal error: the cast-transpose of %" + v->name() + " does not read %" +
                   g.inputCopy->operand(0)->name() + ", whose FP8 copy it was to write");
    d.copyBuf = lw_.bufferOf(g.inputCopy->result());
    d.copyDt = g.inputCopy->result()->type().dtype();
    d.copyLd = lw_.ldOf(d.copyBuf);
    d.description += ", " + opsList({g.inputCopy});
  }
  d.suffix = role_.empty() ? "cast_transpose" : role_;
  out.push_back(std::move(d));
  return Status::ok();
}

// col_sum(x): one launch evaluating x's expression and reducing its columns (colsum.cuh).
Status LaunchBuilder::lowerColSum(const Group &g, std::vector<LaunchDesc> &out) {
  const Value *x = g.colSum->operand(0);
  LaunchDesc d;
  d.kind = LaunchKind::ColSum;
  d.rows = Lowerer::rowsOf(x->type());
  d.cols = Lowerer::colsOf(x->type());
  if (d.cols == kDynamic)
    return Error("fp8.col_sum of %" + x->name() + ": the last dim must be static");
  ExprBuilder eb(lw_, *this, d, x);
  d.result = eb.of(x);
  d.valueDt = x->type().dtype();
  std::vector<const Op *> chain = inlinedOps(eb);
  chain.push_back(g.colSum);
  d.description = opsList(chain);
  d.storeBuf = lw_.bufferOf(g.v);
  d.storeDt = g.v->type().dtype();
  d.storeLd = d.cols;
  // (slab, chunk) work items: at least enough to fill an H100/H200 (132 SMs x 8 blocks), and
  // chunks of about 256 rows (16 per row lane), so that a launch of several waves ends with a
  // small partial one; but chunks of at least 128 rows (a row lane's 8 loads in flight) where
  // the row count is known (a dynamic M is taken as 8192 rows).
  const int64_t slabs = ceilDiv(d.cols, kColSumSlabCols);
  const int64_t rows = d.rows.perM == 0 ? d.rows.fixed : 8192;
  int64_t chunks = std::clamp<int64_t>(std::max(ceilDiv(1056, slabs), ceilDiv(rows, 256)), 1, 256);
  if (d.rows.perM == 0)
    chunks = std::clamp<int64_t>(ceilDiv(d.rows.fixed, 128), 1, chunks);
  d.colSumChunks = static_cast<int>(chunks);
  d.partialBuf = lw_.newTemp("colsum_partial", TensorType({chunks, d.cols}, DType::F32));
  d.counterBuf = lw_.newTemp("colsum_counter", TensorType({slabs}, DType::I32), 0, true);
  d.suffix = role_.empty() ? "col_sum" : role_;
  out.push_back(std::move(d));
  return Status::ok();
}

} // namespace fp8c::codegen
