#!/usr/bin/env bash
# cli_report_browser.sh - the HTML report of tests/data/report.jsonl (and the same with
# tests/data/c2c.json, whose heatmap sits beside its class table) in a real browser: headless
# Chromium (Debian's, driven by playwright-core through tests/report_browser.js) loads it from
# file:// with no console error, page error or failed request, every image decodes, every plot is
# laid out; screenshots of the first screen and of the whole page are PNGs of the right size,
# not blank.
# Chromium and playwright-core come from `scripts/install-deps.sh --browser`, which this runs;
# where they cannot be installed it prints one "ok - # SKIP" line saying why.
# CTRBENCH_SCREENSHOT=FILE.png keeps the screenshots (FILE.png and FILE-full.png).
# Usage: cli_report_browser.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

PW=$PWD/.deps/playwright/node_modules/playwright-core
if ! scripts/install-deps.sh --browser >"$tmp/deps.log" 2>&1; then
	echo "ok - # SKIP no headless browser: scripts/install-deps.sh --browser failed ($(grep . "$tmp/deps.log" | tail -1))"
	exit 0
fi
if [ ! -x /usr/bin/chromium ] || ! command -v node >/dev/null || [ ! -d "$PW" ]; then
	echo "ok - # SKIP no headless browser: /usr/bin/chromium, node or $PW missing after scripts/install-deps.sh --browser"
	exit 0
fi

if "$B" report tests/data/report.jsonl --out "$tmp/r" >/dev/null 2>"$tmp/err"; then
	ok "the report is written"
else
	nok "the report is written"
	sed 's/^/#   /' "$tmp/err"
	exit 1
fi

# The page with a c2c heatmap beside its class table and the per-class cost table: the same checks.
if "$B" report tests/data/report.jsonl tests/data/c2c.json --out "$tmp/c2c" >/dev/null 2>"$tmp/err"; then
	timeout 120 node tests/report_browser.js "$PW" "$tmp/c2c/index.html" "$tmp/c2c-shot.png" |
		sed '/^#/d; s/^\(not \)*ok - /&c2c page: /'
	[ "${PIPESTATUS[0]}" -eq 124 ] && nok "c2c page: the browser checks ended within 120 s"
else
	nok "the report with a c2c file is written"
	sed 's/^/#   /' "$tmp/err"
fi

# The page with a projected section (ctrbench project lines, dashed beside the measured runs).
"$B" project --algo atomic_tree,percpu_hier --shape chain:4 --threads 2 --placement compact --ops 200 \
	--format json >"$tmp/proj.jsonl" 2>"$tmp/err"
if "$B" report tests/data/report.jsonl "$tmp/proj.jsonl" --out "$tmp/proj" >/dev/null 2>"$tmp/err"; then
	timeout 120 node tests/report_browser.js "$PW" "$tmp/proj/index.html" "$tmp/proj-shot.png" |
		sed '/^#/d; s/^\(not \)*ok - /&projected page: /'
	[ "${PIPESTATUS[0]}" -eq 124 ] && nok "projected page: the browser checks ended within 120 s"
else
	nok "the report with projected lines is written"
	sed 's/^/#   /' "$tmp/err"
fi

shot=${CTRBENCH_SCREENSHOT:-$tmp/shot.png}
rm -f "$shot"
timeout 120 node tests/report_browser.js "$PW" "$tmp/r/index.html" "$shot" | tee "$tmp/log"
[ "${PIPESTATUS[0]}" -eq 124 ] && nok "the browser checks ended within 120 s"

# The screenshots: PNGs (signature, IHDR) of the first screen (the viewport, 1280x900) and of the
# whole page (as tall as the page).  A blank page of this size compresses to a few kB: the plots
# and tables make them large.
# png_size FILE: "WxH" from the PNG header, or nothing if FILE is not a PNG.
png_size() {
	local h
	h=$([ -s "$1" ] && od -An -tx1 -N24 "$1" | tr -d ' \n')
	[ "${h:0:16}" = 89504e470d0a1a0a ] && [ "${h:24:8}" = 49484452 ] &&
		echo "$((16#${h:32:8}))x$((16#${h:40:8}))"
}
page=$(sed -n 's/^# page \([0-9]*x[0-9]*\) px.*/\1/p' "$tmp/log")
full=${shot%.png}-full.png
for f in "$shot:1280x900:50000" "$full:$page:100000"; do
	IFS=: read -r file want min <<<"$f"
	got=$(png_size "$file")
	size=$(stat -c %s "$file" 2>/dev/null || echo 0)
	if [ -n "$got" ] && [ "$got" = "$want" ] && [ "$size" -gt "$min" ]; then
		ok "screenshot ${file##*/}: a $got PNG ($size bytes)"
	else
		nok "screenshot ${file##*/}: want a $want PNG over $min bytes, got '${got:-not a PNG}', $size bytes"
	fi
done
