# Shared by scripts/test and scripts/demo (sourced, not run): where things are, and the one
# configure command, so that both scripts configure build/ identically and never make each
# other reconfigure from scratch.

FP8C_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LLVM_DIR=/usr/lib/llvm-19
LIT_PY=$LLVM_DIR/build/utils/lit/lit.py
# Debian's python3 (what scripts/setup installs) runs lit; any python3 on PATH otherwise.
if [[ -x /usr/bin/python3 ]]; then PYTHON=/usr/bin/python3; else PYTHON=python3; fi
JOBS=${FP8C_JOBS:-$(nproc)}
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

# fp8c_configure BUILD_DIR [CMAKE_ARGS...]: Ninja, RelWithDebInfo, CUDA from CUDA_HOME, and the
# same python3 for lit's %python as runs lit.
fp8c_configure() {
  local dir=$1
  shift
  cmake -S "$FP8C_ROOT" -B "$dir" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCUDAToolkit_ROOT="$CUDA_HOME" \
    -DPython3_EXECUTABLE="$PYTHON" \
    "$@"
}

# fp8c_build BUILD_DIR [TARGETS...]: builds the targets (all when none) with $JOBS jobs.
fp8c_build() {
  local dir=$1
  shift
  local targets=()
  (($#)) && targets=(--target "$@")
  cmake --build "$dir" -j "$JOBS" "${targets[@]}"
}
