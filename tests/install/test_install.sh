#!/usr/bin/env bash
# test_install.sh: cmake --install into a temporary prefix, then build a tiny program
# against it twice: with find_package(profcodec) and with pkg-config.
# usage: test_install.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -eu
B=$1 S=$2 W=$3
rm -rf "$W"
mkdir -p "$W"
cmake --install "$B" --prefix "$W/prefix" >/dev/null
libdir=$(ls -d "$W"/prefix/lib*/ | head -1)
# 1. CMake package
cmake -S "$S" -B "$W/cmake-build" -DCMAKE_PREFIX_PATH="$W/prefix" >/dev/null
cmake --build "$W/cmake-build" >/dev/null
LD_LIBRARY_PATH="$libdir" "$W/cmake-build/consumer"
# 2. pkg-config
export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc -std=c11 -Wall -Werror -o "$W/pc-consumer" "$S/main.c" $(pkg-config --cflags --libs profcodec)
LD_LIBRARY_PATH="$libdir" "$W/pc-consumer"
# 3. the CLI is installed too
"$W/prefix/bin/profcodec" formats | grep -q '^heph'
echo "install test passed"
