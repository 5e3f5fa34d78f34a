#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
# Installs what is missing, checks the sources (scripts/check-source.sh: the
# plugin boundary and the format), builds warning-free (-Werror) and runs the
# whole test suite twice: a normal build, then an AddressSanitizer/UBSan build;
# the normal build also renders the API reference and is installed as the
# SDK that tests/sdk/run.sh builds and loads the example plugin against.
# A failed source check is printed first and fails the run, but the tests
# still run, so that one run shows everything. Ends with one line
# "N passed, N failed".
set -eu
cd "$(dirname "$0")/.."
ESD_WITH_FUZZER=${ESD_WITH_FUZZER:-0} scripts/deps.sh

status=0
source_check=passed
scripts/check-source.sh || { status=1; source_check=failed; }
# three tests at once on two cores: the integration tests wait on processes,
# sockets and timers more than they compute (two at once used about half the CPU)
run_suite() {
	dir=$1
	shift
	if [ ! -d "$dir" ]; then
		meson setup "$dir" -Dwerror=true "$@"
	else
		meson setup --reconfigure "$dir" -Dwerror=true "$@" >/dev/null
	fi
	ninja -C "$dir"
	meson test -C "$dir" --print-errorlogs --num-processes 3 || status=1
}

# -Ddocs=true: the API reference too, where a gi-docgen warning fails the build;
# relocatable .pc files (the default of a new build dir) for tests/sdk/run.sh
run_suite build-ci --buildtype=debugoptimized -Ddocs=true -Dpkgconfig.relocatable=true
# what a distribution ships: the install tree names no build or source path
install_check=failed
if sh scripts/check-install.sh build-ci; then install_check=passed; else status=1; fi
# the symbol maps list what the libraries export, and the ABI of data/abi/ is kept
abi_check=failed
if sh scripts/abi.sh check build-ci; then abi_check=passed; else status=1; fi
# the SDK as a third party gets it: build-ci installed with --destdir, the
# example plugin and the README's built against that alone, loaded with
# --plugins-dir and called over the protocol
sdk=failed
if sh tests/sdk/run.sh build-ci; then sdk=passed; else status=1; fi
# the unit suite again under valgrind: memory errors and definite leaks fail it
meson test -C build-ci --suite unit --no-suite no-valgrind --no-rebuild --print-errorlogs \
	--num-processes 2 --timeout-multiplier 10 --logbase valgrind \
	--wrapper "valgrind --error-exitcode=66 --leak-check=full --errors-for-leak-kinds=definite \
		--suppressions=/usr/share/glib-2.0/valgrind/glib.supp \
		--suppressions=$(pwd)/tests/data/valgrind.supp --num-callers=30 -q" || status=1
# the integration and sandbox suites again as an ordinary user, as D-Bus activation
# and systemctl --user run the daemon: a copy of the tree owned by that user, built
# by it, with an environment of its own (root bypasses permissions the user meets)
user_logs=""
if [ "$(id -u)" = 0 ] && [ "${ESD_SKIP_USER_SUITE:-0}" != 1 ]; then
	ci_user=esd-ci
	id -u "$ci_user" >/dev/null 2>&1 || useradd --create-home --shell /bin/sh "$ci_user"
	ci_home=$(getent passwd "$ci_user" | cut -d: -f6)
	user_tree=$ci_home/execserverd
	rm -rf "$user_tree"
	mkdir -p "$user_tree"
	git ls-files -z | xargs -0 tar -cf - | tar -xf - -C "$user_tree"
	chown -R "$ci_user:" "$user_tree"
	if runuser -u "$ci_user" -- env -i HOME="$ci_home" USER="$ci_user" LOGNAME="$ci_user" \
		PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 sh -c "cd '$user_tree' &&
		meson setup build-user -Dwerror=true --buildtype=debugoptimized >/dev/null &&
		ninja -C build-user >/dev/null &&
		meson test -C build-user --suite integration --suite sandbox --print-errorlogs \
			--num-processes 3"; then :; else status=1; fi
	user_logs=$user_tree/build-user/meson-logs/testlog.json
	[ -f "$user_logs" ] || { user_logs=""; status=1; }
fi

# clang sanitizer runtimes need undefined symbols left to the executable (meson #764);
# Debian's GLib has no frame pointers, so allocations are unwound the slow way (or
# lsan.supp matches nothing), ten frames deep: the suppressed callers are within
# that, and the unwinding takes a fifth of the suite's time at the default 30
ESD_TEST_TIMEOUT_SCALE=3 \
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0:malloc_context_size=10 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
LSAN_OPTIONS=suppressions=$(pwd)/tests/data/lsan.supp \
	run_suite build-asan --buildtype=debug -Db_sanitize=address,undefined -Db_lundef=false

# the real Codex CLI 0.171.0 against the daemon, with a scripted local model
# (tests/codex-cli/README.md); needs the npm registry for the CLI itself
e2e=skipped
if command -v npm >/dev/null 2>&1; then
	codex_dir=${XDG_CACHE_HOME:-$HOME/.cache}/execserverd/codex-0.171.0
	codex_bin=$codex_dir/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex
	if [ ! -x "$codex_bin" ]; then
		mkdir -p "$codex_dir"
		timeout 600 npm install --prefix "$codex_dir" --no-audit --no-fund --loglevel=error \
			@openai/codex@0.171.0 >&2 || true
	fi
	if [ -x "$codex_bin" ]; then
		if CODEX_BIN=$codex_bin bash tests/codex-cli/run.sh build-ci/server/execserverd &&
			CODEX_BIN=$codex_bin bash tests/codex-cli/recipes.sh build-ci/server/execserverd; then
			e2e=passed
		else
			e2e=failed
			status=1
		fi
	fi
fi
echo "codex-cli end-to-end: $e2e"

# the Debian packages built, lintian-checked, installed on this machine, the
# installed daemon and tests run, the packages purged (scripts/check-debs.sh);
# in CI or with ESD_CHECK_PACKAGES=1, as root
debian=skipped
if { [ "${CI:-}" = true ] || [ "${ESD_CHECK_PACKAGES:-0}" = 1 ]; } && [ "$(id -u)" = 0 ]; then
	if sh scripts/check-debs.sh build-deb; then debian=passed; else debian=failed; status=1; fi
fi
# the deployment example against this daemon's options (scripts/check-deploy.py)
# (the build tree's daemon finds its plugins through meson devenv's variables)
deploy=failed
if (eval "$(meson devenv -C build-ci --dump | grep -E '^(export )?(ESD|EXECRPC)_')" &&
	/usr/bin/python3 scripts/check-deploy.py build-ci/server/execserverd data/deploy \
		build-ci/tools/execrpc); then deploy=passed; else status=1; fi

echo "source check: $source_check"
echo "sdk: $sdk"
echo "install check: $install_check"
echo "abi check: $abi_check"
echo "debian packages: $debian"
echo "deployment manifests: $deploy"

python3 scripts/summarize-tests.py --extra "codex-cli=$e2e" --extra "check-source=$source_check" \
	--extra "sdk=$sdk" --extra "check-install=$install_check" \
	--extra "check-abi=$abi_check" --extra "debian=$debian" --extra "deploy=$deploy" \
	build-ci/meson-logs/testlog.json build-ci/meson-logs/valgrind-valgrind.json \
	build-asan/meson-logs/testlog.json $user_logs
exit $status
