#!/bin/sh
# run-in-root.sh ROOT FILE: replay.py on FILE with the python3.15 of a CPython 3.15 root
# (../shared/tools/cpython315-root.sh), whose chroot sees FILE copied into its /tmp.
root=$1 file=$2
d=$(mktemp -d "$root/tmp/pcd-fuzz.XXXXXX") || exit 70
cp "$file" "$d/input" && cp "$(dirname "$0")/replay.py" "$d/replay.py"
LC_ALL=C chroot "$root" /usr/bin/python3.15 -X faulthandler "/tmp/${d##*/}/replay.py" "/tmp/${d##*/}/input"
rc=$?
rm -rf "$d"
exit $rc
