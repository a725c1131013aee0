#!/bin/sh
# Checks (and, as root, installs) the Debian 12 packages profcodec needs to build and test.
# usage: scripts/setup-deps.sh [--quiet] [--fuzz-others]
# --fuzz-others: the readers and tools of the campaigns against other readers instead
# (make fuzz-others, fuzz/others/): mprof-report (mono-utils), gdb (crash stacks of a stripped
# reader), Go's own source of its pprof parser (golang-1.19-src), python3-coverage
# Exit 0 when everything is present; otherwise prints the apt-get line and exits 1
# (or installs the packages when run as root).
set -eu

# ninja-build: make's build trees are configured for Ninja when it is there (the Makefile's
# PCD_CMAKE: less CPU than CMake's Makefiles)
# chromium: the browser tests of the HTML and SVG outputs (tests/pictures) run Debian's, headless,
# through playwright-core (tests/web), which never downloads a browser of its own
# golang-1.19-go: the pprof tests run `go tool pprof` (tests/pprof; offline) and its profiles
# were written by Go 1.19's runtime/pprof (tests/data/pprof/gen); golang-1.19-src: the profile
# package Go vendors for go tool pprof, which tests/pprof/goread builds on (offline)
# python3-dev ... python3-pandas: the Python module (profcodec._profcodec), its tests (pytest; NumPy
# for the zero-copy columns, pandas for Profile.tables()), and its packaging offline (pip, venv,
# setuptools, wheel, build)
PKGS="build-essential cmake ninja-build pkg-config lua5.4 libzstd-dev zstd zlib1g-dev libcmocka-dev \
libjansson-dev clang libfuzzer-14-dev libclang-rt-14-dev python3 python3-jsonschema chromium \
golang-1.19-go golang-1.19-src afl++ python3-dev python3-pytest python3-setuptools python3-wheel python3-build python3-pip python3-venv python3-numpy python3-pandas"

quiet=0 others=0
for a in "$@"; do
    case $a in
    --quiet) quiet=1 ;;
    --fuzz-others) PKGS="mono-utils gdb golang-1.19-go golang-1.19-src python3-coverage" others=1 ;;
    esac
done
here=$(cd "$(dirname "$0")/.." && pwd)
# Node.js and npm: the machine's own if it has them, else Debian's
[ "$others" = 1 ] || command -v npm >/dev/null 2>&1 || PKGS="$PKGS nodejs npm"

# The npm packages the tests use (tests/web/package-lock.json pins them): installed when the
# lock file is newer than what is installed.
npm_deps() {
    [ "$others" = 1 ] && return 0
    lock="$here/tests/web/package-lock.json"
    stamp="$here/tests/web/node_modules/.package-lock.json"
    if [ -f "$stamp" ] && [ ! "$lock" -nt "$stamp" ]; then return 0; fi
    [ "$quiet" = 1 ] || echo "setup: npm ci in tests/web"
    (cd "$here/tests/web" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null) || {
        echo "setup: npm ci in tests/web failed" >&2
        return 1
    }
}

# (one dpkg-query for them all: make test and make run call this every time)
# shellcheck disable=SC2086
installed=$(dpkg-query -W -f='${Package} ${Status}\n' $PKGS 2>/dev/null | awk '$NF == "installed" && $(NF-1) == "ok" { print $1 }')
missing=""
for p in $PKGS; do
    case " $(echo $installed) " in
    *" $p "*) ;;
    *) missing="$missing $p" ;;
    esac
done

if [ -z "$missing" ]; then
    npm_deps || exit 1
    [ "$quiet" = 1 ] || echo "setup: all build dependencies are installed"
    exit 0
fi

if [ "$(id -u)" = 0 ]; then
    echo "setup: installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing
    npm_deps || exit 1
    exit 0
fi

echo "setup: missing Debian packages:$missing" >&2
echo "setup: run this, then try again:" >&2
echo "    sudo apt-get install -y$missing" >&2
exit 1
