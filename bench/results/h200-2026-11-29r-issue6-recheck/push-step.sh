#!/usr/bin/env bash
# Thirty-eighth session: the GEMM-hosted history pushes (no state launch in the delayed MLP).
# The GPU tests in TESTS, then the sustained training step at 8192 tokens on GRAPHS (default the
# MLP) for RECIPES (default none,delayed), through ../h200-2026-11-28o-sustained/run.sh. Run from
# the repository root with OUT set.
set -uo pipefail
TESTS=${TESTS:-} TEST_TIMEOUT=${TEST_TIMEOUT:-300} RECIPES=${RECIPES:-none,delayed} \
  GRAPHS=${GRAPHS:-examples/mlp.mlir} BLOCKS=${BLOCKS:-5} BLOCK_MS=1500 INTERLEAVE=0 \
  TRAIN_TIMEOUT=300 PROFILE=${PROFILE:-1} \
  bash bench/results/h200-2026-11-28o-sustained/run.sh 2>&1 | grep -v "^\[ *SKIPPED" | cut -c1-170
grep -E "bound|step total" $OUT/sustained-*.txt | cut -c1-170
