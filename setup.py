"""Builds the Python package profcodec (pyproject.toml has its metadata).

The extension profcodec._profcodec is built by the project's own CMake build (the library, the
code above the bytes, the Python runtime in src/python and the generated binding in
generated/python), static, on CPython's limited API: one wheel (cp39-abi3) for Python 3.9 and up.
It needs what `make` needs (scripts/setup-deps.sh: cmake, pkg-config, lua5.4, libzstd-dev,
libjansson-dev, zlib1g-dev) and python3-dev. Offline, with Debian's setuptools and wheel:

    python3 -m build --wheel --no-isolation            (Debian: python3-build)
    pip install --no-build-isolation .                 (in a venv: python3 -m venv --system-site-packages)

CMAKE_BUILD_PARALLEL_LEVEL sets the build's jobs (default: the CPUs there are); PCD_PYTHON_BUILD_TYPE
the CMake build type (default Release; make test's packaging check builds None: -O0 without -g,
which compiles fastest, since what it checks is the packaging).
PCD_PYTHON_CMAKE_TREE=DIR links the extension from the objects of a CMake tree already configured
and built (`cmake --build DIR --target pcdpy_wheel_ext`) instead of building the library again.
setuptools' own build directory is build-python/ (build/ is CMake's, `make`'s), or
$PCD_PYTHON_BUILD_DIR."""
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILD_BASE = os.path.abspath(os.environ.get("PCD_PYTHON_BUILD_DIR") or os.path.join(ROOT, "build-python"))


def version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        m = re.search(r"project\(profcodec VERSION ([0-9.]+)", f.read())
    if not m:
        raise RuntimeError("CMakeLists.txt: no project(profcodec VERSION ...)")
    return m.group(1)


class CMakeBuild(build_ext):
    """The extension, by CMake: its target pcdpy_ext, everything linked in statically."""

    def build_extension(self, ext):
        prebuilt = os.environ.get("PCD_PYTHON_CMAKE_TREE")
        if prebuilt:
            self.from_tree(ext, os.path.abspath(prebuilt))
            return
        tree = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        os.makedirs(tree, exist_ok=True)
        config = [
            "cmake", "-S", ROOT, "-B", tree,
            "-DCMAKE_BUILD_TYPE=" + (os.environ.get("PCD_PYTHON_BUILD_TYPE") or "Release"),
            "-DBUILD_SHARED_LIBS=OFF",
            "-DBUILD_TESTING=OFF",
            "-DPCD_BUILD_CLI=OFF",
            "-DPCD_PYTHON=ON",
            "-DPCD_PYTHON_EXECUTABLE=" + sys.executable,
        ]
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        build = ["cmake", "--build", tree, "--target", "pcdpy_ext", "-j", jobs]
        for cmd in (config, build):
            self.announce(" ".join(cmd), level=2)
            subprocess.run(cmd, check=True)
        self.install_built(ext, os.path.join(tree, "python", "profcodec", "_profcodec.abi3.so"))

    def from_tree(self, ext, tree):
        """The extension linked from the objects of a CMake tree already built
        (PCD_PYTHON_CMAKE_TREE: make test's packaging check, on its fast tree): its target
        pcdpy_wheel_ext, linked as above, everything static."""
        if not os.path.exists(os.path.join(tree, "CMakeCache.txt")):
            raise RuntimeError("PCD_PYTHON_CMAKE_TREE=%s: not a configured CMake tree" % tree)
        cmd = ["cmake", "--build", tree, "--target", "pcdpy_wheel_ext"]
        self.announce(" ".join(cmd), level=2)
        subprocess.run(cmd, check=True)
        built = os.path.join(tree, "python-wheel", "profcodec", "_profcodec.abi3.so")
        if not os.path.exists(built):     # (a tree built static: its extension is the wheel's)
            built = os.path.join(tree, "python", "profcodec", "_profcodec.abi3.so")
        self.install_built(ext, built)

    def install_built(self, ext, built):
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(built, dest)


class BuildPy(build_py):
    """The package's Python files, and beside them the generated stubs of each format version's
    module (generated/python/*.pyi)."""

    def run(self):
        super().run()
        gen = os.path.join(ROOT, "generated", "python")
        dest = os.path.join(self.build_lib, "profcodec")
        os.makedirs(dest, exist_ok=True)
        for name in sorted(os.listdir(gen)):
            if name.endswith(".pyi"):
                self.copy_file(os.path.join(gen, name), os.path.join(dest, name))


def wheel_is_there():
    """Whether setuptools can make a wheel here: the wheel package, or setuptools' own
    bdist_wheel (setuptools 70.1 and later). `pip install --no-build-isolation .` with a Python
    that has neither (a pyenv one, say) otherwise stops at "invalid command 'bdist_wheel'"."""
    for name in ("wheel.bdist_wheel", "setuptools.command.bdist_wheel"):
        try:
            __import__(name)
            return True
        except ImportError:
            pass
    return False


if any(cmd in sys.argv[1:] for cmd in ("bdist_wheel", "dist_info")) and not wheel_is_there():
    sys.exit("profcodec: making a wheel needs the package 'wheel' in this Python (%s), which does not have "
             "it. Use Debian's Python, which has it (apt install python3-wheel; then /usr/bin/python3 -m pip "
             "install --no-build-isolation .), or install 'wheel' into this one, or let pip fetch it (pip "
             "install . without --no-build-isolation, where a package index can be reached)." % sys.executable)

# (egg_info's directory must exist before it runs)
os.makedirs(BUILD_BASE, exist_ok=True)

setup(
    version=version(),
    ext_modules=[Extension("profcodec._profcodec", sources=[], py_limited_api=True)],
    cmdclass={"build_ext": CMakeBuild, "build_py": BuildPy},
    options={
        "build": {"build_base": BUILD_BASE},
        "egg_info": {"egg_base": BUILD_BASE},
        "bdist_wheel": {"py_limited_api": "cp39"},
    },
)
