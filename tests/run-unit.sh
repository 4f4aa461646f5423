#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Run each cmocka unit-test binary given on the command line; exit non-zero
# if any of them failed, could not run, or none was given.
set -u

if [ "$#" -eq 0 ]; then
	echo "usage: $0 TEST_BINARY..." >&2
	exit 2
fi

failed=()
for bin in "$@"; do
	echo "== ${bin}"
	if [ ! -x "${bin}" ]; then
		echo "run-unit: ${bin}: not an executable" >&2
		failed+=("${bin}")
		continue
	fi
	# Keep going after a failure so one run shows every broken binary.
	if ! "${bin}"; then
		failed+=("${bin}")
	fi
done

if [ "${#failed[@]}" -ne 0 ]; then
	echo "run-unit: FAILED: ${failed[*]}" >&2
	exit 1
fi
echo "run-unit: all $# unit test binaries passed"
