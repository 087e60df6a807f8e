#!/usr/bin/env bash
# cli_report_browser.sh - the HTML report of tests/data/report.jsonl in a real browser: headless
# Chromium (Debian's, driven by playwright-core through tests/report_browser.js) loads it from
# file:// with no console error, page error or failed request, every image decodes, every plot is
# laid out; a full-page screenshot is a PNG of the page's width and height, not a blank page.
# Chromium and playwright-core come from `scripts/install-deps.sh --browser`, which this runs;
# where they cannot be installed it prints one "ok - # SKIP" line saying why.
# CTRBENCH_SCREENSHOT=FILE keeps the screenshot.  Usage: cli_report_browser.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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

shot=${CTRBENCH_SCREENSHOT:-$tmp/shot.png}
rm -f "$shot"
timeout 120 node tests/report_browser.js "$PW" "$tmp/r/index.html" "$shot" | tee "$tmp/log"
[ "${PIPESTATUS[0]}" -eq 124 ] && nok "the browser checks ended within 120 s"

# The screenshot: a PNG (signature, IHDR) as wide as the viewport and as tall as the page.
page=$(sed -n 's/^# page \([0-9]*x[0-9]*\) px.*/\1/p' "$tmp/log")
png=$([ -s "$shot" ] && od -An -tx1 -N24 "$shot" | tr -d ' \n')
w=0 h=0
[ ${#png} -eq 48 ] && w=$((16#${png:32:8})) h=$((16#${png:40:8}))
if [ "${png:0:16}" = 89504e470d0a1a0a ] && [ "${w}x${h}" = "$page" ] && [ "$h" -ge 900 ] &&
   [ "$(stat -c %s "$shot")" -gt 100000 ]; then
	ok "the screenshot is a ${w}x${h} PNG of the whole page ($(stat -c %s "$shot") bytes)"
else
	# a blank page of this size compresses to a few kB: the plots and tables make it large
	nok "the screenshot is a PNG of the whole page (header ${png:0:16}, ${w}x${h}, page $page, $(stat -c %s "$shot" 2>/dev/null) bytes)"
fi
