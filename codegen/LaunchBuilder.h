// Internal to codegen/: the builder that turns a set of region ops into launches
// (LaunchBuilder.cpp: grouping and ordering; LaunchGroup.cpp: one group's launch;
// ExprBuilder.cpp: the pointwise expression of its value).
#pragma once

#include "codegen/LowerInternal.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace fp8c::codegen {

class ExprBuilder;

class LaunchBuilder {
public:
  LaunchBuilder(Lowerer &lw, const Op &kernel, int index, const std::vector<Op *> &ops,
                std::string role);
  Status run();

private:
  /// One launch's worth of work: the value v, and what is done with it.
  struct Group {
    const Value *v = nullptr;
    Op *amax = nullptr;             ///< an amax of v that is written out
    Op *cast = nullptr;             ///< the FP8 cast of v that is written out
    Op *localAmax = nullptr;        ///< the amax feeding the cast's scale (absorbed)
    bool store = false;             ///< v itself is written out
    bool splitTranspose = false;    ///< v = transpose(x) is stored, then reduced / cast
    Op *colSum = nullptr;           ///< v = col_sum(x): a column reduction launch of its own
    /// The cast's FP8 result is also transposed, into this value, by the same launch (a
    /// cast-transpose writing both copies); fusedColSum is a col_sum of v it also computes.
    const Value *transposeOut = nullptr;
    Op *fusedColSum = nullptr;
    /// v = transpose(x) with a per-output-row local cast: a cast of x itself with local scales
    /// per row (1x128 block) of x, done by the same cooperative launch (kRowCast).
    Op *rowLocalCast = nullptr;
    /// An unscaled FP8 convert of a buffer the cast-transpose's expression reads (the GELU's
    /// input saved as an e4m3 copy, gelu_saved=e4m3), written from the chunks it reads.
    Op *inputCopy = nullptr;
    std::set<const Value *> needs;  ///< in-scope values it reads
    std::set<const Value *> writes; ///< in-scope values it writes
  };
  struct LocalScale {
    Op *scale;
    Op *amax;
  };

  bool inScope(const Value *v) const;
  bool inScope(const Op *op) const { return scope_.count(op) != 0; }
  /// v must be written to memory: yielded, returned, or read by an op outside the scope (as
  /// data: a GEMM's scale operands read inverse scales instead).
  bool materialized(const Value *v) const;
  /// True for in-scope ops computed inline in an expression.
  bool inlinable(const Op *op) const;
  bool castOnlyScale(const Op *op) const;
  bool outRowLocalCast(const Group &g) const;
  int rowCastPartner(const Group &t) const;
  static Granularity granOf(const Op *op);
  Status classify();
  void mergeCastTransposes();
  void analyze(Group &g);
  void collectNeeds(const Value *v, const Value *root, std::set<const Value *> &needs,
                    std::set<const Value *> &seen) const;
  Status lowerGroup(const Group &g, std::vector<LaunchDesc> &out);
  Status castInfo(const Group &g, const Value *v, LaunchDesc &d);
  Status rowCastInfo(const Group &g, const Value *x, LaunchDesc &d);
  Status lowerColSum(const Group &g, std::vector<LaunchDesc> &out);
  Status lowerCastTranspose(const Group &g, std::vector<LaunchDesc> &out);
  void transposedOutput(const Group &g, int outBuf, LaunchDesc &d);
  void fuseColSum(const Op &cs, LaunchDesc &d);
  std::vector<const Op *> inlinedOps(const ExprBuilder &eb) const;
  std::vector<std::string> scalarLines(const std::vector<Op *> &jobs, bool write);
  void writeInputInverses(LaunchDesc &d);
  static std::string describe(const std::vector<Op *> &ops);
  static std::string bufRef(int b);

  Lowerer &lw_;
  const Op &kernel_;
  int index_;
  std::vector<Op *> ops_;
  std::set<const Op *> scope_;
  std::string role_;
  std::vector<Group> groups_;
  std::map<const Op *, LocalScale> local_;
  std::set<const Op *> localScaleOps_, localAmaxOps_;
  std::vector<Op *> scalars_, lateScalars_;
  std::map<const Value *, int> slotOf_;
  friend class ExprBuilder;
};

/// Writes the statements of a Spec's value(x, slot) for one value: each op is one line
/// `const float tN = fp8c::roundTo<dtype>(fp8c::op::...(...));`, reading leaves (values
/// outside the expression) as inputs x[i] with their broadcast, and scalars as slots.
class ExprBuilder {
public:
  ExprBuilder(Lowerer &lw, const LaunchBuilder &b, LaunchDesc &d, const Value *root)
      : lw_(lw), b_(b), d_(d), root_(root) {}
  /// The expression of v (a C++ float expression); adds inputs and body lines to the launch.
  std::string of(const Value *v, Bcast bc = Bcast::Full);
  /// A leaf read as an input with broadcast bc.
  std::string input(const Value *v, Bcast bc);
  /// True when v was computed by a line of the expression (or folded into its FP8 table).
  bool computed(const Value *v) const { return memo_.count(v) != 0 || tabulated_.count(v) != 0; }

private:
  /// True when v is a line of the expression rather than an input.
  bool expands(const Value *v) const;
  /// gelu_grad / silu_grad (dy, x) with x a function of one FP8 input only (that input through
  /// converts): `mul(dy, x[t])`, input t read through a table of the derivative; "" otherwise.
  std::string tabulatedGrad(const Op &def, Bcast bc);

  Lowerer &lw_;
  const LaunchBuilder &b_;
  LaunchDesc &d_;
  const Value *root_;
  std::map<std::pair<const Value *, Bcast>, int> inputs_;
  std::map<const Value *, std::string> memo_;
  std::set<const Value *> tabulated_; ///< converts folded into the table
  int temps_ = 0;
};

/// The broadcast of a scale operand of granularity g.
Bcast bcastOf(Granularity g);

} // namespace fp8c::codegen
