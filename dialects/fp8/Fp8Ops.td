// The `fp8` MLIR dialect: fp8c's IR (ir/IR.h, ir/Ops.def) as MLIR ops, so that the text fp8c
// prints is valid MLIR and MLIR-based stacks can hand graphs to fp8c and take them back.
//
// One op per row of ir/Ops.def, same mnemonic, same semantics (normative text: the header
// comment of ir/IR.h). The ops are deliberately thin in ODS:
//   - operands and results are untyped variadics and attributes are not declared as ODS
//     arguments: counts, attribute names/kinds/values and type rules are checked by one shared
//     verifier (Fp8Dialect.cpp) that calls fp8c's own TypeRules (inferResultType,
//     checkAttributes, Ops.def), so MLIR and fp8c reject the same ops with the same message;
//   - attributes stay plain entries of the attribute dictionary: absent ones stay absent (the
//     op means the Ops.def default), present ones print, sorted by name, exactly as fp8c prints;
//   - every op has the custom syntax fp8c's printer writes (ir/Printer.cpp):
//       %h = fp8.linear %x, %w, %b : (tensor<...>, ...) -> tensor<...>
//       %g = fp8.gelu %h {approximate = "tanh"} : (tensor<...>) -> tensor<...>
//       %r = fp8.kernel "gemm" (%a, %b) : (...) -> (...) { ^bb0(...): ... fp8.yield ... }
//   - an op's location is its first token (the first result name where it has results), as
//     in fp8c; SSA names are kept as NameLoc locations (see Fp8Dialect.h).
// fp8.kernel's region has no MLIR terminator trait (NoTerminator, and fp8.yield is an ordinary
// op): where fp8.yield may stand is fp8c's rule 6, checked with fp8c's messages.

#ifndef FP8C_DIALECTS_FP8_OPS_TD
#define FP8C_DIALECTS_FP8_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Fp8_Dialect : Dialect {
  let name = "fp8";
  let summary = "fp8c's FP8 linear-layer graph IR";
  let description = [{
    The ops of fp8c's IR (ir/Ops.def): model ops (linear, matmul, pointwise), quantization
    ops (amax, scale, cast, dequant, scaled_matmul, delayed-scaling history) and fused
    kernels. Functions are `func.func`; persistent state inputs and outputs carry the
    argument / result attribute `fp8.state = "key"`.
  }];
  let cppNamespace = "::fp8c::fp8";
}

// An fp8 op: variadic operands and results, fp8c's syntax and fp8c's verifier (see above).
class Fp8_Op<string mnemonic, list<Trait> traits = []>
    : Op<Fp8_Dialect, mnemonic,
         traits # [DeclareOpInterfaceMethods<OpAsmOpInterface,
                                             ["getAsmResultNames", "getAsmBlockArgumentNames",
                                              "getDefaultDialect"]>]> {
  let arguments = (ins Variadic<AnyType>:$inputs);
  let results = (outs Variadic<AnyType>:$outputs);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::mlir::ParseResult $cppClass::parse(::mlir::OpAsmParser &parser,
                                         ::mlir::OperationState &result) {
      return ::fp8c::fp8::parseFp8Op(parser, result);
    }
    void $cppClass::print(::mlir::OpAsmPrinter &printer) {
      ::fp8c::fp8::printFp8Op(getOperation(), printer);
    }
    ::mlir::LogicalResult $cppClass::verify() {
      return ::fp8c::fp8::verifyFp8Op(getOperation());
    }
    void $cppClass::getAsmResultNames(::mlir::OpAsmSetValueNameFn setNameFn) {
      ::fp8c::fp8::setResultNamesFromLoc(getOperation(), setNameFn);
    }
    void $cppClass::getAsmBlockArgumentNames(::mlir::Region &region,
                                            ::mlir::OpAsmSetValueNameFn setNameFn) {
      ::fp8c::fp8::setBlockArgNamesFromLoc(region, setNameFn);
    }
    // Inside a kernel region, as in a function body, `return` means func.return and fp8 ops
    // keep their `fp8.` prefix.
    ::llvm::StringRef $cppClass::getDefaultDialect() { return "func"; }
  }];
}

// A single-result op without side effects (every op but kernel and yield).
class Fp8_PureOp<string mnemonic, string doc> : Fp8_Op<mnemonic, [Pure]> {
  let summary = doc;
}

// --- Model ops -----------------------------------------------------------------------------

def Fp8_LinearOp : Fp8_PureOp<"linear",
    "y[..., n] = sum_k x[..., k] * w[n, k] (+ b[n]), f32 accumulation, result in x's dtype"> {
  let extraClassDeclaration = [{
    ::mlir::Value getX() { return getOperand(0); }
    ::mlir::Value getWeight() { return getOperand(1); }
    ::mlir::Value getBias() { return getNumOperands() > 2 ? getOperand(2) : ::mlir::Value(); }
  }];
}
def Fp8_MatmulOp : Fp8_PureOp<"matmul", "y[m, n] = sum_k a[m, k] * b[k, n], f32 accumulation">;
def Fp8_AddOp : Fp8_PureOp<"add", "elementwise a + b (equal shapes, or one rank-0 operand)">;
def Fp8_MulOp : Fp8_PureOp<"mul", "elementwise a * b (equal shapes, or one rank-0 operand)">;
def Fp8_ReluOp : Fp8_PureOp<"relu", "max(x, 0); NaN stays NaN">;
def Fp8_GeluOp : Fp8_PureOp<"gelu",
    "GELU; attribute approximate = \"none\" (erf, default) or \"tanh\"">;
def Fp8_SiluOp : Fp8_PureOp<"silu", "x / (1 + exp(-x))">;
def Fp8_SwigluOp : Fp8_PureOp<"swiglu", "silu(a) * b">;
def Fp8_ConvertOp : Fp8_PureOp<"convert", "dtype change, no scale (dtype of the result type)">;
def Fp8_TransposeOp : Fp8_PureOp<"transpose", "2-D transpose">;

// --- Quantization ops ----------------------------------------------------------------------

def Fp8_AmaxOp : Fp8_PureOp<"amax",
    "f32 max |x| per group; attribute granularity (tensor, row, col, block_1x128, "
    "block_128x128; default tensor)">;
def Fp8_ScaleOp : Fp8_PureOp<"scale",
    "s = fmax(dtype) / amax / 2^margin; attributes dtype (f8E4M3FN), margin (0), pow2 (false)">;
def Fp8_CastOp : Fp8_PureOp<"cast",
    "q = sat(rne(x * s)) with s broadcast over its group; attribute granularity">;
def Fp8_DequantOp : Fp8_PureOp<"dequant", "x = q / s rounded to the result dtype; granularity">;
def Fp8_ScaledMatmulOp : Fp8_PureOp<"scaled_matmul",
    "y = (a8 . b8^T) / (sa (x) sb) + bias (TN); attributes out, fast_accum">;
def Fp8_HistoryScaleOp : Fp8_PureOp<"history_scale",
    "scale of a delayed-scaling amax history; attributes algo, dtype, margin, pow2">;
def Fp8_HistoryPushOp : Fp8_PureOp<"history_push", "new history [amax, h[0], ..., h[len-2]]">;

// --- Training ops (backward graphs) ------------------------------------------------------

def Fp8_ReluGradOp : Fp8_PureOp<"relu_grad", "dy * (x > 0) for operands (dy, x)">;
def Fp8_GeluGradOp : Fp8_PureOp<"gelu_grad",
    "dy * gelu'(x) for operands (dy, x); attribute approximate (none, tanh)">;
def Fp8_SiluGradOp : Fp8_PureOp<"silu_grad", "dy * silu'(x) for operands (dy, x)">;
def Fp8_SwigluGradOp : Fp8_PureOp<"swiglu_grad",
    "d swiglu(a, b) / d a or / d b times dy, operands (dy, a, b); attribute wrt (gate, up)">;
def Fp8_ColSumOp : Fp8_PureOp<"col_sum", "f32 sum over rows per column (the bias gradient)">;

// --- Structure -----------------------------------------------------------------------------

def Fp8_KernelOp : Fp8_Op<"kernel", [NoTerminator, RecursiveMemoryEffects]> {
  let summary = "a fused kernel: runs its region (one block ended by fp8.yield)";
  let description = [{
    `kind` ("gemm", "pointwise" or "reduce") prints positionally:
    `%r = fp8.kernel "gemm" (%a, %b) : (...) -> ... { ^bb0(%x: ..., %y: ...): ... }`.
    The region's arguments match the operands; it uses no value defined outside it.
    The kernel carries its fusion plan (ir/KernelPlan.h): `backend` ("generated" or
    "cublaslt"), for a gemm kernel `gemm_backend` ("auto", "cublaslt" or "generated"), and
    each op of its region `fp8.role` ("prologue", "main", "epilogue" or "body"); the kernel's
    verifier checks them (checkKernelPlan), as fp8c's does.
  }];
  let regions = (region AnyRegion:$body);
}

def Fp8_YieldOp : Fp8_Op<"yield"> {
  let summary = "ends an fp8.kernel region; its operands are the kernel's results";
}

#endif // FP8C_DIALECTS_FP8_OPS_TD
