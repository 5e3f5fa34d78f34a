#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The execserverd authors
# Builds the Containerfile's image (localhost/execserverd:VERSION) from the
# packages in OUTDIR (scripts/build-debs.sh) with the first container tool
# that works here: podman, buildah, or docker with a reachable daemon. The
# base image is never pulled (--pull=never): it must be present already.
# Prints "container: passed", "container: failed" or
# "container: skipped (why)"; exits non-zero only when a build failed.
# usage: scripts/build-container.sh [OUTDIR]
set -eu
cd "$(dirname "$0")/.."
outdir=${1:-build-deb}
base=docker.io/library/debian:12-slim
version=$(sed -n '1s/^execserverd (\([^-]*\)-.*/\1/p' contrib/debian/changelog)
tag=localhost/execserverd:$version
ls "$outdir"/execserverd_*.deb >/dev/null 2>&1 || { echo "container: skipped (no packages in $outdir)"; exit 0; }
# the Containerfile copies from build-deb/
if [ "$outdir" != build-deb ]; then
	mkdir -p build-deb && cp "$outdir"/*.deb build-deb/
fi

tool=""
for t in podman buildah docker; do
	command -v "$t" >/dev/null 2>&1 || continue
	if [ "$t" = docker ] && ! timeout 10 docker info >/dev/null 2>&1; then
		continue
	fi
	tool=$t
	break
done
[ -n "$tool" ] || { echo "container: skipped (no podman, buildah or docker with a daemon)"; exit 0; }

case $tool in
	docker) has_base="docker image inspect $base" ;;
	*) has_base="$tool inspect --type image $base" ;;
esac
$has_base >/dev/null 2>&1 || { echo "container: skipped ($tool has no $base image, none is pulled)"; exit 0; }

case $tool in
	buildah) build="buildah bud --pull-never" ;;
	*) build="$tool build --pull=never" ;;
esac
if $build -f Containerfile -t "$tag" . >&2 &&
	[ "$($tool run --rm --entrypoint /usr/bin/execserverd "$tag" --version 2>/dev/null |
		grep -c "$version")" -ge 1 ]; then
	echo "container: passed"
else
	echo "container: failed"
	exit 1
fi
