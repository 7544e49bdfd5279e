// The fp8 dialect: registration, the one custom syntax all ops share (fp8c's, see
// ir/Parser.h and ir/Printer.cpp), SSA names kept in locations, and the MLIR <-> fp8c
// conversions of types, attributes and locations.
#include "dialects/fp8/Fp8Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

#include <fmt/format.h>

#include "dialects/fp8/Fp8OpsDialect.cpp.inc"
#define GET_OP_CLASSES
#include "dialects/fp8/Fp8Ops.cpp.inc"

namespace fp8c::fp8 {

void Fp8Dialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/fp8/Fp8Ops.cpp.inc"
      >();
}

namespace {

std::string plural(size_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

bool isAllDigits(llvm::StringRef s) {
  return !s.empty() && llvm::all_of(s, [](char c) { return c >= '0' && c <= '9'; });
}

/// Names metadata of a multi-result op's location: one string per result.
mlir::ArrayAttr namesMetadata(mlir::Location loc) {
  auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc);
  if (!fused || fused.getLocations().size() != 1)
    return {};
  auto names = llvm::dyn_cast_or_null<mlir::ArrayAttr>(fused.getMetadata());
  if (!names ||
      !llvm::all_of(names, [](mlir::Attribute a) { return llvm::isa<mlir::StringAttr>(a); }))
    return {};
  return names;
}

// `(` type-list? `)` `->` (type | `(` type-list? `)`), recording where each list starts.
mlir::ParseResult parseFunctionType(mlir::OpAsmParser &parser,
                                    llvm::SmallVectorImpl<mlir::Type> &operandTypes,
                                    llvm::SMLoc &operandsLoc,
                                    llvm::SmallVectorImpl<mlir::Type> &resultTypes,
                                    llvm::SMLoc &resultsLoc) {
  operandsLoc = parser.getCurrentLocation();
  if (parser.parseLParen())
    return mlir::failure();
  if (mlir::failed(parser.parseOptionalRParen()) &&
      (parser.parseTypeList(operandTypes) || parser.parseRParen()))
    return mlir::failure();
  if (parser.parseArrow())
    return mlir::failure();
  resultsLoc = parser.getCurrentLocation();
  if (mlir::failed(parser.parseOptionalLParen())) {
    mlir::Type t;
    if (parser.parseType(t))
      return mlir::failure();
    resultTypes.push_back(t);
    return mlir::success();
  }
  if (mlir::succeeded(parser.parseOptionalRParen()))
    return mlir::success();
  return mlir::failure(parser.parseTypeList(resultTypes) || parser.parseRParen());
}

/// ` {a = 1, b = "x"}`, sorted by name as MLIR keeps them, or nothing. As fp8c prints them:
/// i64 integers without MLIR's `: i64`.
void printAttrDict(mlir::Operation *op, mlir::OpAsmPrinter &p,
                   llvm::ArrayRef<llvm::StringRef> elided = {}) {
  llvm::SmallVector<mlir::NamedAttribute> attrs;
  for (mlir::NamedAttribute a : op->getAttrs())
    if (!llvm::is_contained(elided, a.getName().strref()))
      attrs.push_back(a);
  if (attrs.empty())
    return;
  p << " {";
  llvm::interleaveComma(attrs, p, [&](mlir::NamedAttribute a) {
    p.printKeywordOrString(a.getName().strref());
    p << " = ";
    auto i = llvm::dyn_cast<mlir::IntegerAttr>(a.getValue());
    if (i && i.getType().isSignlessInteger(64))
      p.printAttributeWithoutType(i);
    else
      p.printAttribute(a.getValue());
  });
  p << '}';
}

} // namespace

// --- syntax ---------------------------------------------------------------------------------

// fp8c's op syntax (ir/Parser.h):
//   op ::= (`%`name (`,` `%`name)* `=`)? op-name operand-list attr-dict? `:` fn-type
//        | `fp8.kernel` string? `(` operand-list `)` attr-dict? `:` fn-type region?
//        | `fp8.yield` operand-list attr-dict? (`:` type-list)?
// Errors that fp8c's parser reports are worded as it words them (and not prefixed with MLIR's
// "custom op"), at the same place.
mlir::ParseResult parseFp8Op(mlir::OpAsmParser &parser, mlir::OperationState &result) {
  const OpKind kind = *lookupOpKind(result.name.getStringRef());
  const OpInfo &info = opInfo(kind);
  auto errorAt = [&](llvm::SMLoc at, const std::string &message) {
    mlir::emitError(parser.getEncodedSourceLoc(at), message);
    return mlir::failure();
  };

  // The op's location is its first token, as in fp8c: its first result name where it has one.
  // MLIR 19's parser hands out result names as slices of the source buffer, just after `%`.
  llvm::SMLoc first = parser.getNameLoc();
  const size_t numResults = parser.getNumResults();
  std::vector<std::string> names;
  for (size_t i = 0; i < numResults; ++i) {
    auto [name, sub] = parser.getResultName(static_cast<unsigned>(i));
    names.push_back(sub == 0 ? name.str() : std::string());
  }
  if (numResults > 0) {
    const char *name0 = parser.getResultName(0).first.data();
    const char *op = first.getPointer();
    if (name0 && name0 - 1 < op && op - name0 < (1 << 16) && name0[-1] == '%')
      first = llvm::SMLoc::getFromPointer(name0 - 1);
  }
  const mlir::Location loc = parser.getEncodedSourceLoc(first);
  result.location = withResultNames(loc, names);

  llvm::SmallVector<mlir::OpAsmParser::UnresolvedOperand> operands;
  llvm::SmallVector<mlir::Type> operandTypes, resultTypes;
  llvm::SMLoc operandsLoc = parser.getCurrentLocation(), resultsLoc;
  if (info.has(kTerminator)) {
    // fp8.yield %a, %b {attrs} : Ta, Tb
    if (numResults > 0)
      return errorAt(first, fmt::format("'{}' cannot define results", info.name));
    if (parser.parseOperandList(operands) || parser.parseOptionalAttrDict(result.attributes))
      return mlir::failure();
    if (!operands.empty()) {
      if (parser.parseColon())
        return mlir::failure();
      operandsLoc = parser.getCurrentLocation();
      if (parser.parseTypeList(operandTypes))
        return mlir::failure();
    }
  } else {
    if (kind == OpKind::Kernel) {
      // fp8.kernel "kind" (%a, %b) {attrs} : ...   (`kind` positionally, when a string)
      std::string kindName;
      const llvm::SMLoc kindLoc = parser.getCurrentLocation();
      const bool hasKind = mlir::succeeded(parser.parseOptionalString(&kindName));
      if (parser.parseOperandList(operands, mlir::OpAsmParser::Delimiter::Paren) ||
          parser.parseOptionalAttrDict(result.attributes))
        return mlir::failure();
      if (hasKind) {
        if (result.attributes.get("kind"))
          return errorAt(kindLoc, "duplicate attribute 'kind' (given as the kernel's string and "
                                  "in its attribute dictionary)");
        result.addAttribute("kind", parser.getBuilder().getStringAttr(kindName));
      }
    } else if (parser.parseOperandList(operands) ||
               parser.parseOptionalAttrDict(result.attributes)) {
      return mlir::failure();
    }
    if (parser.parseColon() ||
        parseFunctionType(parser, operandTypes, operandsLoc, resultTypes, resultsLoc))
      return mlir::failure();
  }

  if (operandTypes.size() != operands.size())
    return errorAt(operandsLoc, fmt::format("operand type list has {} but '{}' has {}",
                                            plural(operandTypes.size(), "type"), info.name,
                                            plural(operands.size(), "operand")));
  if (parser.resolveOperands(operands, operandTypes, operandsLoc, result.operands))
    return mlir::failure();
  if (!info.has(kTerminator) && resultTypes.size() != numResults)
    return errorAt(resultsLoc, fmt::format("result type list has {} but '{}' defines {}",
                                           plural(resultTypes.size(), "type"), info.name,
                                           plural(numResults, "result")));
  result.addTypes(resultTypes);

  // Block arguments get their names where they are used (function inputs are parsed by
  // func.func, which keeps no names), so that verifier messages can name them.
  for (size_t i = 0; i < operands.size(); ++i) {
    auto arg = llvm::dyn_cast<mlir::BlockArgument>(result.operands[i]);
    if (arg && operands[i].number == 0 && getValueName(arg).empty())
      setValueName(arg, operands[i].name.drop_front());
  }

  if (kind == OpKind::Kernel) {
    mlir::Region *body = result.addRegion();
    mlir::OptionalParseResult r = parser.parseOptionalRegion(*body, /*arguments=*/{});
    if (r.has_value() && mlir::failed(*r))
      return mlir::failure();
    return mlir::success();
  }
  auto discarded = std::make_unique<mlir::Region>();
  mlir::OptionalParseResult r = parser.parseOptionalRegion(*discarded, /*arguments=*/{});
  if (r.has_value()) {
    if (mlir::failed(*r))
      return mlir::failure();
    return errorAt(first, fmt::format("'{}' op must not have a region", info.name));
  }
  return mlir::success();
}

void printFp8Op(mlir::Operation *op, mlir::OpAsmPrinter &p) {
  const OpKind kind = *lookupOpKind(op->getName().getStringRef());
  if (opInfo(kind).has(kTerminator)) {
    if (op->getNumOperands() > 0) {
      p << ' ';
      p.printOperands(op->getOperands());
    }
    printAttrDict(op, p);
    if (op->getNumOperands() > 0) {
      p << " : ";
      llvm::interleaveComma(op->getOperandTypes(), p);
    }
    return;
  }
  llvm::SmallVector<llvm::StringRef, 1> elided;
  if (kind == OpKind::Kernel) {
    if (auto k = op->getAttrOfType<mlir::StringAttr>("kind")) {
      p << ' ';
      p.printAttributeWithoutType(k);
      elided.push_back("kind");
    }
    p << " (";
    p.printOperands(op->getOperands());
    p << ')';
  } else if (op->getNumOperands() > 0) {
    p << ' ';
    p.printOperands(op->getOperands());
  }
  printAttrDict(op, p, elided);
  p << " : ";
  p.printFunctionalType(op);
  if (op->getNumRegions() == 1 && !op->getRegion(0).empty()) {
    p << ' ';
    p.printRegion(op->getRegion(0), /*printEntryBlockArgs=*/true, /*printBlockTerminators=*/true,
                  /*printEmptyBlock=*/true);
  }
}

// --- names ----------------------------------------------------------------------------------

std::string getValueName(mlir::Value value) {
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(value)) {
    if (auto name = llvm::dyn_cast<mlir::NameLoc>(arg.getLoc()))
      return name.getName().str();
    return "";
  }
  auto res = llvm::cast<mlir::OpResult>(value);
  mlir::Operation *op = res.getOwner();
  if (op->getNumResults() == 1) {
    if (auto name = llvm::dyn_cast<mlir::NameLoc>(op->getLoc()))
      return name.getName().str();
    return "";
  }
  mlir::ArrayAttr names = namesMetadata(op->getLoc());
  if (!names || names.size() != op->getNumResults())
    return "";
  return llvm::cast<mlir::StringAttr>(names[res.getResultNumber()]).str();
}

void setValueName(mlir::Value value, llvm::StringRef name) {
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(value)) {
    mlir::Location base = stripNames(arg.getLoc());
    arg.setLoc(name.empty()
                   ? base
                   : mlir::NameLoc::get(mlir::StringAttr::get(value.getContext(), name), base));
    return;
  }
  auto res = llvm::cast<mlir::OpResult>(value);
  mlir::Operation *op = res.getOwner();
  std::vector<std::string> names;
  for (mlir::Value r : op->getResults())
    names.push_back(getValueName(r));
  names[res.getResultNumber()] = name.str();
  op->setLoc(withResultNames(stripNames(op->getLoc()), names));
}

mlir::Location withResultNames(mlir::Location base, llvm::ArrayRef<std::string> names) {
  mlir::MLIRContext *ctx = base->getContext();
  if (llvm::all_of(names, [](const std::string &n) { return n.empty(); }))
    return base;
  if (names.size() == 1)
    return mlir::NameLoc::get(mlir::StringAttr::get(ctx, names[0]), base);
  llvm::SmallVector<mlir::Attribute> attrs;
  for (const std::string &n : names)
    attrs.push_back(mlir::StringAttr::get(ctx, n));
  return mlir::FusedLoc::get(ctx, llvm::ArrayRef<mlir::Location>{base},
                             mlir::ArrayAttr::get(ctx, attrs));
}

mlir::Location stripNames(mlir::Location loc) {
  if (auto name = llvm::dyn_cast<mlir::NameLoc>(loc))
    return stripNames(name.getChildLoc());
  if (namesMetadata(loc))
    return stripNames(llvm::cast<mlir::FusedLoc>(loc).getLocations().front());
  return loc;
}

// Numbers (`%0`) are left to MLIR's numbering: a name starting with a digit would print as
// `%_0`. Each result of a multi-result op is its own group (`%a, %b = ...`, never `%0:2`).
void setResultNamesFromLoc(mlir::Operation *op, mlir::OpAsmSetValueNameFn setNameFn) {
  const bool several = op->getNumResults() > 1;
  for (mlir::Value r : op->getResults()) {
    std::string name = getValueName(r);
    if (!name.empty() && !isAllDigits(name))
      setNameFn(r, name);
    else if (several)
      setNameFn(r, "");
  }
}

void setBlockArgNamesFromLoc(mlir::Region &region, mlir::OpAsmSetValueNameFn setNameFn) {
  if (region.empty())
    return;
  for (mlir::BlockArgument arg : region.front().getArguments()) {
    std::string name = getValueName(arg);
    if (!name.empty() && !isAllDigits(name))
      setNameFn(arg, name);
  }
}

std::optional<OpKind> opKindOf(mlir::Operation *op) {
  llvm::StringRef name = op->getName().getStringRef();
  if (!name.starts_with("fp8.") && name != "func.return")
    return std::nullopt;
  return lookupOpKind(name);
}

// --- conversions ----------------------------------------------------------------------------

std::optional<DType> toDType(mlir::Type t) {
  if (t.isF32())
    return DType::F32;
  if (t.isF16())
    return DType::F16;
  if (t.isBF16())
    return DType::BF16;
  if (t.isFloat8E4M3FN())
    return DType::F8E4M3FN;
  if (t.isFloat8E5M2())
    return DType::F8E5M2;
  if (t.isSignlessInteger(32))
    return DType::I32;
  return std::nullopt;
}

mlir::Type toMlirElementType(DType dtype, mlir::MLIRContext *ctx) {
  mlir::Builder b(ctx);
  switch (dtype) {
  case DType::F32:
    return b.getF32Type();
  case DType::F16:
    return b.getF16Type();
  case DType::BF16:
    return b.getBF16Type();
  case DType::F8E4M3FN:
    return b.getFloat8E4M3FNType();
  case DType::F8E5M2:
    return b.getFloat8E5M2Type();
  case DType::I32:
    return b.getI32Type();
  }
  return {};
}

std::optional<TensorType> toTensorType(mlir::Type type) {
  auto t = llvm::dyn_cast<mlir::RankedTensorType>(type);
  if (!t || t.getEncoding())
    return std::nullopt;
  std::optional<DType> dt = toDType(t.getElementType());
  if (!dt)
    return std::nullopt;
  std::vector<int64_t> shape;
  for (int64_t d : t.getShape())
    shape.push_back(mlir::ShapedType::isDynamic(d) ? kDynamic : d);
  return TensorType(std::move(shape), *dt);
}

mlir::RankedTensorType toMlirType(const TensorType &type, mlir::MLIRContext *ctx) {
  llvm::SmallVector<int64_t> shape;
  for (int64_t d : type.shape())
    shape.push_back(d == kDynamic ? mlir::ShapedType::kDynamic : d);
  return mlir::RankedTensorType::get(shape, toMlirElementType(type.dtype(), ctx));
}

Expected<Attribute> toFp8cAttribute(mlir::Attribute attr) {
  if (auto b = llvm::dyn_cast<mlir::BoolAttr>(attr))
    return Attribute(b.getValue());
  if (auto i = llvm::dyn_cast<mlir::IntegerAttr>(attr);
      i && llvm::isa<mlir::IntegerType>(i.getType()) && i.getValue().getSignificantBits() <= 64)
    return Attribute(static_cast<int64_t>(i.getValue().getSExtValue()));
  if (auto s = llvm::dyn_cast<mlir::StringAttr>(attr))
    return Attribute(s.str());
  if (auto t = llvm::dyn_cast<mlir::TypeAttr>(attr))
    if (std::optional<DType> dt = toDType(t.getValue()))
      return Attribute(*dt);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << attr;
  return Error(fmt::format("value {} is not a bool, an integer, a string or a dtype", text));
}

mlir::Attribute toMlirAttribute(const Attribute &attr, mlir::MLIRContext *ctx) {
  mlir::Builder b(ctx);
  switch (attr.kind()) {
  case AttrKind::Bool:
    return b.getBoolAttr(attr.asBool());
  case AttrKind::Int:
    return b.getI64IntegerAttr(attr.asInt());
  case AttrKind::String:
    return b.getStringAttr(attr.asString());
  case AttrKind::DType:
    return mlir::TypeAttr::get(toMlirElementType(attr.asDType(), ctx));
  }
  return {};
}

Expected<AttrDict> toAttrDict(mlir::DictionaryAttr dict) {
  AttrDict out;
  if (!dict)
    return out;
  for (mlir::NamedAttribute a : dict) {
    Expected<Attribute> v = toFp8cAttribute(a.getValue());
    if (!v)
      return Error(fmt::format("attribute '{}': {}", a.getName().str(), v.error()));
    out.set(a.getName().str(), v.take());
  }
  return out;
}

mlir::DictionaryAttr toMlirDict(const AttrDict &dict, mlir::MLIRContext *ctx) {
  llvm::SmallVector<mlir::NamedAttribute> attrs;
  for (const auto &[name, value] : dict)
    attrs.emplace_back(mlir::StringAttr::get(ctx, name), toMlirAttribute(value, ctx));
  return mlir::DictionaryAttr::get(ctx, attrs);
}

Location toFp8cLocation(mlir::Location loc) {
  if (auto f = llvm::dyn_cast<mlir::FileLineColLoc>(loc))
    return Location::make(f.getFilename().str(), f.getLine(), f.getColumn());
  if (auto n = llvm::dyn_cast<mlir::NameLoc>(loc))
    return toFp8cLocation(n.getChildLoc());
  if (auto c = llvm::dyn_cast<mlir::CallSiteLoc>(loc))
    return toFp8cLocation(c.getCallee());
  if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location l : fused.getLocations())
      if (Location r = toFp8cLocation(l); r.isKnown())
        return r;
  return Location::unknown();
}

mlir::Location toMlirLocation(const Location &loc, mlir::MLIRContext *ctx) {
  if (!loc.isKnown())
    return mlir::UnknownLoc::get(ctx);
  return mlir::FileLineColLoc::get(ctx, *loc.file, loc.line, loc.col);
}

std::string locationStr(mlir::Location loc) { return toFp8cLocation(loc).str(); }

std::string typeStr(mlir::Type type) {
  if (std::optional<TensorType> t = toTensorType(type))
    return t->str();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

} // namespace fp8c::fp8
