#!/usr/bin/env bash
# The last call: the three training tests validate.sh's time limit left out (the forced
# generated backend tunes the offloaded candidate into the MLP's plan), then the training step
# against the PyTorch peers (../h200-2026-11-27c-staged-casts/train-peers.sh, ROUNDS rounds).
# Needs build-gpu (bin, lib) and build-xfer-bench/pyao. Logs in $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:/usr/local/cuda/lib64 FP8C_CACHE_DIR=/tmp/c
T=ExamplesRecipes/GpuTrainingTest.ForwardAndBackwardMatchInterpretedTraining
timeout 200 build-gpu/bin/fp8c-unittests \
  --gtest_filter="$T/mlp_delayed_generated:$T/mlp_delayed_m1000_generated:$T/mlp_delayed_m1000_bwdfast" \
  > $OUT/unittests.log 2>&1
echo "unittests exit status: $?" | tee -a $OUT/unittests.log
grep -E '^\[ +(FAILED|PASSED|SKIPPED|OK) |Failure|gemm: generated.*_ew' $OUT/unittests.log | cut -c1-200 | head -20
echo "tune entries whose winner is the offloaded epilogue:"
grep -l "^winner .*_ew" /tmp/c/gemm-sm90-tune-*.txt 2>/dev/null | xargs -r grep -h "^key\|^winner" | cut -c1-160
sed "s/--reps=20/--reps=${ROUNDS:-10}/" bench/results/h200-2026-11-27c-staged-casts/train-peers.sh > /tmp/train-peers.sh
bash /tmp/train-peers.sh
