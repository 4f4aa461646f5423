# What a read through a pipe returns when xfs invalidates the page around
# a punch next to the bytes it holds (sourced by tests/check.sh): the
# kernel behaviour behind racing reads' zeros that no version held
# (docs/validation.md, "Found"), pinned per kernel, so that a kernel that
# changes it is told. tests/vm/splicepunch.c splices 16 KiB of 0xaa into
# a pipe, punches 3 bytes a page further on, then reads the pipe. Where
# the page cache holds the file in a large folio, the invalidation zeroes
# that folio's page before it splits or drops it, and the pipe, which
# holds the folio itself, returns that page as zeros: 4096 bytes from
# 8192. On 6.1 only readahead's folios are large (cold), on 6.12 the
# write's too (warm); the host's 6.18 returns every byte.
# shellcheck shell=bash
sout=$(mktemp -d "${TMPDIR:-/tmp}/fs-vmsplice.XXXXXX")
slog=$LOGDIR/vm-splice.log
sscript=$PWD/tests/vm/splice-guest.sh
if vm_helper tests/vm/splicepunch.c "$sout/splicepunch" "vm splice"; then
	if (cd "$sout" && "$FS" vm "${vmargs[@]}" --timeout 900 \
		--with "$sout/splicepunch" --exec "$sscript" \
		-- "$sout/splicepunch") >"$slog" 2>&1; then
		ok "vm splice: guest runs"
	else
		bad "vm splice: guest runs" "see $slog: $(tail -3 "$slog")"
	fi
	srel=$(sed -n 's/^== kernel //p' "$slog")
	# Each mode ran twice: one answer each, or both told.
	sgot="warm $(sed -n 's/^== warm //p' "$slog" | sort -u | paste -sd/), cold $(sed -n 's/^== cold //p' "$slog" | sort -u | paste -sd/)"
	case $srel in
	6.1.*) swant="warm 0 -1, cold 4096 8192" ;;
	6.12.*) swant="warm 4096 8192, cold 4096 8192" ;;
	*) swant= ;;
	esac
	if [ -n "$swant" ]; then
		expect_eq "vm splice ($srel): the page xfs invalidated comes out of the pipe as zeros where the folio was large" \
			"$sgot" "$swant"
	else
		skip "vm splice" "no expectation for kernel '$srel' (got: $sgot)"
	fi
fi
rm -rf "$sout"
