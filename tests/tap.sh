# tap.sh - sourced by the CLI tests: TAP-style results, the bad-input check, and a scratch
# folder $tmp, removed on exit.  The sourcing script sets B (the ctrbench binary).

tmp=$(mktemp -d)
# No progress lines on stderr (tests/cli_progress.sh checks them): a clean stderr is a check here.
export CTRBENCH_PROGRESS=0
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; }

# check NAME COMMAND...: ok when the command succeeds; else not ok, with what it said on stderr
# and the last command's $tmp/out and $tmp/err where a script keeps them (20 lines at most).
check() {
	local name=$1
	shift
	if "$@" 2>"$tmp/why"; then
		ok "$name"
	else
		nok "$name"
		cat "$tmp/why" "$tmp/out" "$tmp/err" 2>/dev/null | head -20 | sed 's/^/#   /'
	fi
}

# bad ARGS... : exit 2, nothing on stdout, exactly one line on stderr that names $BADVAL.
# BAD_PREFIX (e.g. "compare") goes before ARGS.
bad() {
	# A bad input must also be refused quickly: one that hangs fails after 60 s.
	timeout 60 "$B" ${BAD_PREFIX:+$BAD_PREFIX} "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$? lines
	lines=$(wc -l <"$tmp/err")
	if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && [ ! -s "$tmp/out" ] && grep -qF -- "$BADVAL" "$tmp/err"; then
		ok "rejects: $* ($(cat "$tmp/err"))"
	else
		nok "rejects: $* (exit $rc, $lines stderr lines, want 2 and one line naming '$BADVAL')"
		sed 's/^/#   /' "$tmp/err" "$tmp/out"
	fi
}
