#!/bin/sh
# binary_io_reader.c:326:47: runtime error: signed integer overflow: -2 + -2147483647 cannot be represented in type 'int' (in LLVMFuzzerTestOneInput)
# runs cpython on the input beside this script (fuzz/others/cpython.sh builds what it needs)
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../../../cpython.sh" --repro "$here/input"
