# -*- Python -*-
# lit configuration of tessel's FileCheck tests (dialect, passes, codegen, fuzz).
# CMake writes lit.site.cfg.py into <build>/test from lit.site.cfg.py.in; that file
# sets the paths below and loads this one.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TESSEL"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tessel_obj_root, "test")

# Not tests: the configuration itself, the C++ unit tests' sources (the gtest
# binary is run by tools/unit-tests.test) and helper inputs. Helper scripts such
# as fuzz/no_crash.py are skipped by their suffix.
config.excludes = [
    "lit.cfg.py",
    "lit.site.cfg.py",
    "lit.site.cfg.py.in",
    "lit.cmake",
    "CMakeLists.txt",
    "README.md",
    "unit",
    "Inputs",
]

config.substitutions.append(("%PATH%", config.environment["PATH"]))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])

# FileCheck, not, count; also %python (the interpreter running lit).
llvm_config.use_default_substitutions()

tool_dirs = list(config.tessel_tools_dirs) + [config.llvm_tools_dir]
tools = [
    ToolSubst("tessel-opt", unresolved="fatal"),
    # Not every build has the driver; tests that use it say `REQUIRES: tesselc`.
    ToolSubst("tesselc", unresolved="ignore"),
    ToolSubst("tesselc-test", unresolved="ignore"),
    ToolSubst("mlir-translate", unresolved="ignore"),
    ToolSubst("llc", unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)
if shutil.which("tesselc", path=os.pathsep.join(tool_dirs)):
    config.available_features.add("tesselc")
if shutil.which("tesselc-test", path=os.pathsep.join(tool_dirs)):
    config.available_features.add("tesselc-test")

# The gtest binary, run by tools/unit-tests.test: `REQUIRES: unit-tests`.
unit_tests = shutil.which(
    "tessel-unit-tests", path=os.path.join(config.tessel_obj_root, "test", "unit"))
if unit_tests:
    config.available_features.add("unit-tests")
    config.substitutions.append(("%tessel_unit_tests", unit_tests))

# The runtime's host-side self-test: `REQUIRES: runtime-selftest`.
runtime_selftest = shutil.which(
    "tessel-runtime-selftest",
    path=os.path.join(config.tessel_obj_root, "test", "runtime"))
if runtime_selftest:
    config.available_features.add("runtime-selftest")
    config.substitutions.append(("%tessel_runtime_selftest", runtime_selftest))

# libtessel_mamba2.so (built where the CUDA driver API is found): `REQUIRES:
# mamba2-library`.
mamba2_library = os.path.join(config.tessel_obj_root, "gpu", "libtessel_mamba2.so")
if os.path.exists(mamba2_library):
    config.available_features.add("mamba2-library")
    config.substitutions.append(("%mamba2_library", mamba2_library))
config.substitutions.append(("%tessel_src", config.tessel_src_root))

# %python is already defined by use_default_substitutions() (as the Python running
# lit); define it here only if that ever changes.
if not any(key == "%python" for key, _ in config.substitutions):
    config.substitutions.append(("%python", '"%s"' % config.python_executable))

# The no-crash fuzzer needs the path of the binary, not a command line.
tessel_opt = shutil.which("tessel-opt", path=os.pathsep.join(tool_dirs))
config.substitutions.append(("%tessel_opt_path", tessel_opt or "tessel-opt"))
config.substitutions.append(("%tessel_test_root", config.test_source_root))

# ptxas assembles the PTX of codegen tests: `REQUIRES: ptxas`, `RUN: ... | %ptxas ...`.
ptxas = "/usr/local/cuda/bin/ptxas"
if os.path.exists(ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# The consumer project (test/consumer) configures against this build tree.
if os.path.exists(os.path.join(config.tessel_obj_root, "TesselConfig.cmake")) \
        and shutil.which("cmake") and shutil.which("ldd"):
    config.available_features.add("cmake-consumer")
config.substitutions.append(("%tessel_obj_root", config.tessel_obj_root))
config.substitutions.append(("%cxx", getattr(config, "cxx_compiler", "c++")))
