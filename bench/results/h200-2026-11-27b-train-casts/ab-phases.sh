#!/usr/bin/env bash
# kernel_ab of the rowwise MLP step's pair launches with each phase alone (build-ab/p1: the
# amax phase only, build-ab/p2: the cast phase only, copies of codegen/kernels with
# transposeKernel cut) against the whole cooperative launch (build-ab/cur), at several launch
# bounds: would two plain launches beat one cooperative one? (Outputs differ by design.)
set -uo pipefail
V="--variant coop=$PWD/build-ab/cur@256,4"
for v in p1 p2; do for b in 256,4 256,5 256,6 256; do V="$V --variant ${v}_b${b/,/_}=$PWD/build-ab/$v@$b"; done; done
timeout 400 python3 bench/kernel_ab.py build-ab/mlp_rowwise.cu $V --reps ${REPS:-15} \
  --kernel fp8c_mlp_fwd_k4_cast_transpose --kernel fp8c_mlp_bwd_k3_cast_transpose \
  --kernel fp8c_mlp_fwd_k1_cast_transpose 2>&1 | grep -v " vs " | tee $OUT/ab-phases.txt
