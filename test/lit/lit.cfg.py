# lit configuration of fp8c's FileCheck suite. Tools come from the build tree (lit.site.cfg.py)
# and llvm-19-tools. Tests that need a GPU say `REQUIRES: cuda`; the feature is present only
# when a CUDA driver and device answer (nvidia-smi -L lists one).
import os
import shutil
import subprocess

import lit.formats

config.name = "fp8c"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "make_npy.py", "expect_exit.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fp8c_obj_root, "test", "lit")

bin_dir = lit_config.params.get("fp8c_bin_dir", config.fp8c_bin_dir)
config.environment["PATH"] = os.pathsep.join(
    [bin_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
# Keep JIT caches of tests inside the test tree.
config.environment["FP8C_CACHE_DIR"] = os.path.join(config.test_exec_root, "fp8c-cache")
for var in ("CUDA_HOME", "HOME", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# `%expect-exit N cmd ...`: cmd must exit with exactly N (a negative test checks that the error is
# a located one, exit 1, and not a crash or an internal error, which lit's `not` lets pass).
config.substitutions.append(("%expect-exit", "%s %s" % (
    config.python_executable, os.path.join(config.test_source_root, "expect_exit.py"))))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%fp8c_src", config.fp8c_src_root))


def has_cuda_device():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


if has_cuda_device():
    config.available_features.add("cuda")
else:
    lit_config.note("no CUDA device: tests marked `REQUIRES: cuda` are reported UNSUPPORTED")
if config.fp8c_have_mlir:
    config.available_features.add("mlir")
if config.fp8c_sanitized:
    config.available_features.add("asan")
