#!/bin/sh
# The Python package as a user builds it, offline: `python3 -m build --wheel --no-isolation`
# (pyproject.toml, setup.py: the extension by the project's CMake build, static, abi3), the wheel
# installed by pip into a directory of its own and imported from there (nothing of the build tree
# on the path), reading, converting and encoding a file.
# In make test the wheel's extension is linked from the fast tree's objects (setup.py's
# PCD_PYTHON_CMAKE_TREE: the target pcdpy_wheel_ext, static, as setup.py's own build links it):
# what is checked here is the packaging (pyproject, setup.py, the abi3 wheel, its static extension
# and stubs, pip's install, the import from it), not the code, which the trees' tests check.
# Under PCD_TEST_LONG (make test-long) setup.py builds the library itself, Release, as a user's
# build does.
# usage: test_package.sh PYTHON SOURCE_DIR WORK_DIR CLI TESTDATA CMAKE_TREE
set -eu
py=$1 src=$2 work=$3 cli=$4 data=$5 tree=$6
case "${PCD_TEST_LONG:-0}" in
0) from_tree=$tree ;;
*) from_tree= ;;
esac
rm -rf "$work"
mkdir -p "$work"
if ! PCD_PYTHON_BUILD_DIR="$work/build" PCD_PYTHON_CMAKE_TREE="$from_tree" CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
    "$py" -m build --wheel --no-isolation --outdir "$work/dist" "$src" >"$work/build.log" 2>&1; then
    tail -40 "$work/build.log"
    echo "FAIL: python3 -m build --wheel --no-isolation"
    exit 1
fi
whl=$(ls "$work"/dist/profcodec-*-cp39-abi3-linux_*.whl)
echo "built $(basename "$whl")"
"$py" -m pip install --no-index --no-deps --target "$work/site" "$whl" >"$work/pip.log" 2>&1 || {
    cat "$work/pip.log"
    echo "FAIL: pip install of the wheel"
    exit 1
}
# everything of ours linked in: no libprofcodec.so at run time
if ldd "$work/site/profcodec/_profcodec.abi3.so" | grep -q profcodec; then
    ldd "$work/site/profcodec/_profcodec.abi3.so"
    echo "FAIL: the extension needs a shared library of the build"
    exit 1
fi
mojo="$data/mojo/v3_multiproc.mojo"
"$cli" -q dump "$mojo" >"$work/dump.jsonl"
"$cli" -q convert --to collapsed "$mojo" -o "$work/collapsed.txt"
cd "$work"
env -u PYTHONPATH -u LD_PRELOAD PYTHONPATH="$work/site" PYTHONDONTWRITEBYTECODE=1 PCD_CLI="$cli" "$py" - "$work" "$mojo" <<'PY'
import json, os, sys
work, mojo = sys.argv[1], sys.argv[2]
import profcodec
assert profcodec.__file__.startswith(os.path.join(work, "site")), profcodec.__file__
pkg = os.path.dirname(profcodec.__file__)
for f in ("__init__.pyi", "py.typed", "mojo_v3.pyi", "tachyon_v1.pyi"):
    assert os.path.exists(os.path.join(pkg, f)), f
with profcodec.open(mojo) as r:
    records = list(r)
with open(os.path.join(work, "dump.jsonl")) as f:
    assert [x.to_dict() for x in records] == [json.loads(l) for l in f]
with open(os.path.join(work, "collapsed.txt"), "rb") as f:
    assert profcodec.convert(mojo, "collapsed") == f.read()
with open(mojo, "rb") as f:
    assert profcodec.encode(records) == f.read()
import importlib.metadata, subprocess
assert profcodec.__version__ == importlib.metadata.version("profcodec"), profcodec.__version__
cli_version = subprocess.run([os.environ["PCD_CLI"], "--version"], capture_output=True, text=True).stdout
assert cli_version == "profcodec %s\n" % profcodec.__version__, (cli_version, profcodec.__version__)
print("the wheel reads, converts and encodes: %d records; version %s" % (len(records), profcodec.__version__))
PY
# A Python without the package 'wheel' (a pyenv one, say) gets a reason from setup.py, not
# setuptools' "invalid command 'bdist_wheel'" (issue 25): the package hidden behind one that fails
# to import. (Skipped where setuptools makes wheels itself, 70.1 and later.)
if "$py" -c "import setuptools.command.bdist_wheel" 2>/dev/null; then
    echo "skip: this setuptools makes wheels without the package 'wheel'"
else
    mkdir -p "$work/nowheel/wheel"
    echo 'raise ImportError("the package wheel, hidden by test_package.sh")' >"$work/nowheel/wheel/__init__.py"
    if (cd "$src" && env PYTHONPATH="$work/nowheel" PCD_PYTHON_BUILD_DIR="$work/nowheel-build" \
        "$py" setup.py -q dist_info --output-dir "$work/nowheel-out") >"$work/nowheel.log" 2>&1; then
        echo "FAIL: setup.py dist_info went on without the package wheel"
        exit 1
    fi
    grep -q "needs the package 'wheel'" "$work/nowheel.log" || {
        cat "$work/nowheel.log"
        echo "FAIL: setup.py without the package wheel does not say what is missing"
        exit 1
    }
    echo "without the package wheel, setup.py says what is missing"
fi
