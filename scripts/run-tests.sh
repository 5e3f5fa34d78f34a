#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what is missing, builds warning-free (-Werror) and runs the whole
# test suite twice: a normal build, then an AddressSanitizer/UBSan build.
# Ends with one line "N passed, N failed".
set -eu
cd "$(dirname "$0")/.."
ESD_WITH_FUZZER=${ESD_WITH_FUZZER:-0} scripts/deps.sh

status=0
run_suite() {
	dir=$1
	shift
	if [ ! -d "$dir" ]; then
		meson setup "$dir" -Dwerror=true "$@"
	else
		meson setup --reconfigure "$dir" -Dwerror=true "$@" >/dev/null
	fi
	ninja -C "$dir"
	meson test -C "$dir" --print-errorlogs --num-processes 2 || status=1
}

run_suite build-ci --buildtype=debugoptimized
# clang sanitizer runtimes need undefined symbols left to the executable (meson #764)
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
LSAN_OPTIONS=suppressions=$(pwd)/tests/data/lsan.supp \
	run_suite build-asan --buildtype=debug -Db_sanitize=address,undefined -Db_lundef=false

python3 scripts/summarize-tests.py build-ci/meson-logs/testlog.json build-asan/meson-logs/testlog.json
exit $status
