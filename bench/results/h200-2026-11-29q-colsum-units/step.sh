#!/usr/bin/env bash
# Thirty-seventh session: the GPU tests in TESTS, then the sustained training step (delayed
# against delayed%no_byte_transpose in one process, and the bf16 step), through
# ../h200-2026-11-28o-sustained/run.sh. Run from the repository root with OUT set.
set -uo pipefail
TESTS=${TESTS:-} TEST_TIMEOUT=${TEST_TIMEOUT:-240} RECIPES=${RECIPES:-none,delayed,delayed%no_byte_transpose} \
  BLOCKS=${BLOCKS:-5} BLOCK_MS=1500 INTERLEAVE=0 TRAIN_TIMEOUT=330 PROFILE=${PROFILE:-1} \
  bash bench/results/h200-2026-11-28o-sustained/run.sh 2>&1 | grep -v "^\[ *SKIPPED" | cut -c1-170
gzip -f $OUT/clocks.csv 2>/dev/null
grep -E "bound|step total" $OUT/sustained-*.txt | cut -c1-170
