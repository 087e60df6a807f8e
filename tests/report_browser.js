// SPDX-License-Identifier: MIT
// report_browser.js PLAYWRIGHT_CORE PAGE.html SHOT.png - run by tests/cli_report_browser.sh.
// Opens a ctrbench report in headless Chromium (Debian's /usr/bin/chromium driven through
// playwright-core) and prints TAP lines: the page loads from file:// with no console error, no
// page error and no failed request; every <img> and every linked PNG decodes to a real picture;
// every inline SVG plot is laid out with a size; then screenshots: SHOT.png of the first screen
// (1280x900) and SHOT-full.png of the whole page.
'use strict';
const path = require('path');
const { chromium } = require(process.argv[2]);
const page_file = path.resolve(process.argv[3]);
const shot = process.argv[4];
const WIDTH = 1280, HEIGHT = 900;

let failed = 0;
const ok = (cond, name, detail) => {
	console.log((cond ? 'ok - ' : 'not ok - ') + name);
	if (!cond) {
		failed++;
		if (detail)
			console.log(String(detail).split('\n').map((l) => '#   ' + l).join('\n'));
	}
};

(async () => {
	// As root Chromium needs --no-sandbox; the network is closed, so nothing may try to reach it.
	const browser = await chromium.launch({
		executablePath: '/usr/bin/chromium',
		headless: true,
		timeout: 30000,
		args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
		       '--disable-background-networking', '--disable-component-update', '--disable-sync'],
	});
	const page = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT } });
	const errors = [], failures = [];
	page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
	page.on('pageerror', (e) => errors.push('page error: ' + e.message));
	page.on('requestfailed', (r) => failures.push(r.url() + ': ' + (r.failure() || {}).errorText));
	const resp = await page.goto('file://' + page_file, { waitUntil: 'load', timeout: 20000 });
	ok(resp === null || resp.ok(), 'the page loads from file://');

	const info = await page.evaluate(async () => {
		const imgs = [...document.images].map((i) => ({ src: i.src, w: i.naturalWidth }));
		const links = [...document.querySelectorAll('a[href$=".png"]')].map((a) => a.href);
		const decoded = [];
		for (const href of links) {
			const img = new Image();
			img.src = href;
			try {
				await img.decode();
				decoded.push({ href, w: img.naturalWidth, h: img.naturalHeight });
			} catch (e) {
				decoded.push({ href, w: 0, h: 0, err: String(e) });
			}
		}
		const svgs = [...document.querySelectorAll('svg.plot')].map((s) => {
			const r = s.getBoundingClientRect();
			return { w: r.width, h: r.height, texts: s.querySelectorAll('text').length };
		});
		const external = [...document.querySelectorAll('[src], link[href], script')]
			.map((e) => e.getAttribute('src') || e.getAttribute('href') || 'script');
		return { imgs, decoded, svgs, external, scripts: document.scripts.length,
			 height: document.documentElement.scrollHeight };
	});
	ok(info.scripts === 0 && info.external.length === 0,
	   'no script and nothing loaded from elsewhere', JSON.stringify(info.external));
	ok(info.svgs.length > 0 && info.svgs.every((s) => s.w >= 300 && s.h >= 150 && s.texts > 0),
	   `every inline SVG plot (${info.svgs.length}) is laid out with a size and has text`,
	   JSON.stringify(info.svgs));
	const bad_imgs = info.imgs.filter((i) => i.w === 0);
	const bad_png = info.decoded.filter((d) => d.w === 0 || d.h === 0);
	ok(info.decoded.length === info.svgs.length && bad_imgs.length === 0 && bad_png.length === 0,
	   `every image decodes: ${info.imgs.length} <img>, ${info.decoded.length} linked PNGs, one per plot`,
	   JSON.stringify(bad_imgs.concat(bad_png)));

	// Each algorithm keeps one colour on every plot, and no two algorithms of one plot share
	// both colour and marker: read from the legend entries gnuplot drew (a <text>, the sample
	// line's stroke, the point symbol it <use>s), as the reader's eye would match them.
	const legends = await page.evaluate(() => [...document.querySelectorAll('svg.plot')].map((svg) => ({
		title: svg.getAttribute('aria-label'),
		entries: [...svg.querySelectorAll('g[id*="gnuplot_plot_"]')].map((g) => {
			// the sample's colour: a line's stroke, or a bar's fill (borders and text are black)
			const t = g.querySelector('text'), u = g.querySelector('use');
			const c = [...g.querySelectorAll('path, polygon, rect')].flatMap((x) =>
				[x.getAttribute('stroke'), x.getAttribute('fill')])
				.find((v) => v && /^rgb\(/.test(v) && !/^rgb\(\s*0,\s*0,\s*0\)$/.test(v));
			if (!t || !c)
				return null;
			return { name: t.textContent.trim(), stroke: c.replace(/\s+/g, ''),
				 pt: u ? (u.getAttribute('xlink:href') || u.getAttribute('href') || '').replace(/^#[^-]*-/, '') : '' };
		}).filter(Boolean),
	})));
	// "ALGO projected (model, ...)" and "ALGO measured" (the projected section) are ALGO's too
	const algo_of = (name) => name.split(/ [·[#]| p\d|  | at rest| under| projected \(| measured$/)[0].trim();
	const colour = {}, clash = [];
	let line_plots = 0;
	for (const l of legends) {
		const seen = {};
		if (l.entries.length)
			line_plots++;
		for (const e of l.entries) {
			const a = algo_of(e.name);
			if (a === 'linear scaling')
				continue;
			if (colour[a] && colour[a] !== e.stroke)
				clash.push(`${a} is ${colour[a]} on one plot, ${e.stroke} on "${l.title}"`);
			colour[a] = colour[a] || e.stroke;
			const key = e.stroke + ' ' + e.pt;
			if (seen[key] && seen[key] !== a)
				clash.push(`"${l.title}": ${seen[key]} and ${a} share colour and marker ${key}`);
			seen[key] = seen[key] || a;
		}
	}
	const algos = Object.keys(colour);
	const colours = new Set(Object.values(colour));
	ok(line_plots > 0 && algos.length >= 2 && clash.length === 0 && colours.size === algos.length,
	   `every algorithm has its own colour and marker, the same on every plot (${algos.length} algorithms, ${line_plots} plots with legends)`,
	   clash.concat([JSON.stringify(colour)]).join('\n'));

	// The page opens with the summary: the machine, what was measured, the ranking with links
	// to its evidence, above the first plot.
	const top = await page.evaluate(() => {
		const s = document.querySelector('section#summary'), first = document.querySelector('svg.plot');
		if (!s)
			return null;
		const links = [...s.querySelectorAll('a[href^="#"]')].map((a) => a.getAttribute('href').slice(1));
		return { text: s.textContent, above: first ? s.getBoundingClientRect().top < first.getBoundingClientRect().top : false,
			 rows: s.querySelectorAll('tbody tr').length,
			 dangling: links.filter((id) => !document.getElementById(id)) };
	});
	ok(top && top.above && /machine/.test(top.text) && /measured/.test(top.text) && top.rows > 0 &&
	   top.dangling.length === 0, 'the summary comes first: machine, what was measured, a ranking whose links lead to plots',
	   JSON.stringify(top));
	const eff = legends.filter((l) => /scaling efficiency/.test(l.title || ''));
	ok(eff.length > 0 && eff.every((l) => l.entries.some((e) => e.name === 'linear scaling')),
	   `scaling efficiency plots (${eff.length}) with the linear-scaling line`, JSON.stringify(eff.map((l) => l.title)));

	// SHOT: what a reader sees first (the viewport); SHOT-full.png: the whole page
	await page.screenshot({ path: shot });
	await page.screenshot({ path: shot.replace(/\.png$/, '') + '-full.png', fullPage: true });
	ok(errors.length === 0 && failures.length === 0, 'no console error, page error or failed request',
	   errors.concat(failures).join('\n'));
	console.log(`# page ${WIDTH}x${info.height} px, screenshots ${shot} (${WIDTH}x${HEIGHT}) and its -full.png`);
	await browser.close();
	process.exit(failed ? 1 : 0);
})().catch((e) => {
	console.log('not ok - the browser ran the checks');
	console.log('#   ' + String(e && e.stack || e).split('\n').join('\n#   '));
	process.exit(1);
});
