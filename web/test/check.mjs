// The page as a learner meets it, in headless Chromium with WebGPU on SwiftShader: it loads with
// an adapter, every lesson runs (small sizes) and says "verified", an exercise's racy starter
// fails with its race (lines and pictures) and its solution passes, a barrier weakened to
// storageBarrier() is named a race, a kernel that never ends is reported and the next check
// passes, every exercise's solution passes, the console has no error and nothing is thrown, and a screenshot is not blank.
// Usage: node check.mjs URL CHROMIUM SHOT_DIR. Exit code 0 when everything held.
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');

const [url, executablePath, shotDir] = process.argv.slice(2);
const failures = [];
const fail = (what) => { failures.push(what); console.log('FAIL ' + what); };
const ok = (what) => console.log('ok   ' + what);
// The height of the smallest text drawn in the elements `selector` names, in CSS pixels.
const smallestText = (selector) => page.evaluate((sel) => {
  let least = Infinity;
  for (const t of document.querySelectorAll(sel)) {
    const h = t.getBoundingClientRect().height;
    if (h > 0) least = Math.min(least, h);
  }
  return least;
}, selector);
let chartText = Infinity;

const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: [
    '--no-sandbox', '--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--no-first-run', '--disable-quic',
  ],
});
const page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
const consoleErrors = [];
page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
page.on('pageerror', (e) => consoleErrors.push('uncaught: ' + e.message));

const t0 = Date.now();
const response = await page.goto(url);
if (!response || !response.ok()) {
  console.log(`FAIL the page did not load from ${url}: ${response ? response.status() : 'no response'}`);
  await browser.close();
  process.exit(1);
}
// A page that neither opens a GPU nor says why within three minutes: say what it showed.
try {
  await page.waitForFunction(() => window.tilekit && (window.tilekit.ready || window.tilekit.error), null, { timeout: 180000 });
} catch (e) {
  const shown = await page.evaluate(() => (document.getElementById('adapter') || document.body).textContent).catch(() => '?');
  console.log(`FAIL the page did not open a GPU or report an error in ${((Date.now() - t0) / 1000).toFixed(0)} s; it shows "${shown}"`);
  for (const m of consoleErrors) console.log('  console: ' + m);
  await browser.close();
  process.exit(1);
}
const start = await page.evaluate(() => ({ ready: window.tilekit.ready, error: window.tilekit.error, adapter: window.tilekit.adapter }));
if (!start.ready) {
  fail(`the page did not open a GPU: ${start.error}`);
} else {
  ok(`adapter: ${JSON.stringify(start.adapter.info)} (${start.adapter.summary.backend}), ${start.adapter.summary.limits.max_compute_workgroup_storage_size} B workgroup storage, ${((Date.now() - t0) / 1000).toFixed(1)} s to load`);
}

if (start.ready) {
  // The tour, small sizes.
  await page.evaluate(() => { document.getElementById('quick').checked = true; });
  const t1 = Date.now();
  await page.click('#run-all');
  await page.waitForFunction(() => window.tilekit.tourDone, null, { timeout: 900000 });
  const results = await page.evaluate(() => window.tilekit.results);
  const lessons = Object.values(results);
  if (lessons.length < 11) fail(`only ${lessons.length} lessons ran`);
  for (const r of lessons) {
    // A lesson the adapter cannot run in full (f16 without shader-f16) still verifies what it
    // runs and says why it skipped the rest.
    if (r.verified && !r.error) ok(`${r.label}: verified, ${r.key} (${r.seconds.toFixed(1)} s)`);
    else fail(`${r.label}: ${r.error || 'not verified'}`);
    if (!r.html.includes('<section class="lesson"')) fail(`${r.label}: no lesson section`);
    // The lessons that measure speed say which clock timed them (SwiftShader has timestamps).
    if (/^(02|04|05|06|07|08|09|11)/.test(r.label) && !/timed by (GPU timestamps|wall clock)/.test(r.html)) {
      fail(`${r.label}: does not say which clock timed it`);
    }
  }
  // Lesson 03 pictures residency for the book's device D and for this browser's adapter, named.
  const l03 = lessons.find((r) => r.label.startsWith('03'));
  const name = start.adapter.info.vendor;
  if (l03 && l03.html.includes('book device D') && name && l03.html.includes(name) && (l03.html.match(/<svg class="chart/g) || []).length >= 2) {
    ok(`03 pictures residency for device D and for ${name}'s adapter`);
  } else {
    fail(`03 lacks a residency picture for device D or for this adapter (${name})`);
  }
  const charts = await page.evaluate(() => document.querySelectorAll('#lessons svg.chart').length);
  if (charts < 10) fail(`only ${charts} charts drawn`); else ok(`${charts} charts drawn, ${((Date.now() - t1) / 1000).toFixed(0)} s for the tour`);

  // On a 390-px phone screen the charts keep their size and scroll sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  chartText = await smallestText('#lessons svg.chart text');
  await page.screenshot({ path: `${shotDir}/tour-390.png`, fullPage: false });
  await page.setViewportSize({ width: 1100, height: 1400 });
  // On this CPU adapter the caveat is said once, above the lessons, and in no lesson's lines.
  const caveat = await page.evaluate(() => ({
    note: !document.getElementById('cpu-note').hidden && document.getElementById('cpu-note').textContent,
    inLessons: (document.getElementById('lessons').innerText.match(/a CPU adapter:|on a CPU adapter the times/g) || []).length,
  }));
  if (caveat.note && caveat.inLessons === 0) ok('the CPU caveat is said once: ' + caveat.note.slice(0, 60) + '…');
  else fail('the CPU caveat: ' + JSON.stringify(caveat));
  // A long lesson shows its progress and can be stopped: lesson 05 at full size.
  {
    await page.evaluate(() => { document.getElementById('quick').checked = false; });
    const row = page.locator('#summary tbody tr').nth(4);
    await row.locator('button.gpu').click();
    await page.waitForFunction(() => /running, \d+ s: ./.test(document.querySelectorAll('#summary tbody tr')[4].querySelector('.result').textContent), null, { timeout: 120000 });
    const shown = await row.locator('.result').textContent();
    await row.locator('button.stop').click();
    await page.waitForFunction(() => window.tilekit.results[5] && window.tilekit.results[5].stopped && !window.tilekit.busy, null, { timeout: 120000 });
    const after = await row.locator('.result').textContent();
    if (after.trim() === 'stopped') ok(`lesson 05 showed "${shown.trim().slice(0, 70)}…" and stopped when asked`);
    else fail('lesson 05 did not stop: ' + after);
    await page.evaluate(() => { document.getElementById('quick').checked = true; });
  }
  // The exercises.
  await page.click('button[data-tab=exercises]');
  const check = async (name, source) => {
    if ((await page.inputValue('#ex-name')) !== name) await page.selectOption('#ex-name', name);
    if (source !== undefined) await page.evaluate((t) => window.tilekitEditor.setText(t), source);
    await page.evaluate(() => { window.tilekit.check = null; });
    await page.click('#check');
    await page.waitForFunction(() => window.tilekit.check !== null, null, { timeout: 600000 });
    return page.evaluate(() => window.tilekit.check);
  };
  await page.selectOption('#ex-name', 'tiled-matmul');
  await page.click('#starter');
  let r = await check('tiled-matmul');
  // Its barriers are missing: the tracer names the race, with the lines and a picture.
  const pictures = await page.evaluate(() => document.querySelectorAll('#ex-pictures svg').length);
  if (r.verdict === 'traced' && r.text.includes('race on') && r.lines.length > 0 && pictures > 0) ok(`tiled-matmul starter: ${r.text.split('\n')[1]} (lines ${r.lines.join(', ')}, ${pictures} pictures)`);
  else fail(`tiled-matmul starter did not fail with its race (${pictures} pictures): ` + r.text);
  // The editor marks the lines the check names.
  // (Scrolled to the first: the editor draws only the lines in view.)
  await page.evaluate((n) => window.tilekitEditor.selectLine(n), r.lines[0]);
  const marks = await page.evaluate(() => ({ lines: window.tilekitEditor.markedLines(), shown: document.querySelectorAll('#ex-editor .cm-checked-line').length }));
  if (marks.lines.join() === r.lines.join() && marks.shown > 0) ok(`the editor marks lines ${marks.lines.join(', ')} (${marks.shown} shown)`);
  else fail('the editor did not mark the lines the check named: ' + JSON.stringify(marks));
  await page.screenshot({ path: `${shotDir}/race-desktop.png`, fullPage: false });
  await page.click('#show-solution');
  r = await check('tiled-matmul');
  if (r.passed) ok('tiled-matmul solution: ' + r.text.replace(/\n/g, ' | '));
  else fail('tiled-matmul solution did not pass: ' + r.text);
  // A file that does not compile: the compiler's message with its line.
  const good = await page.evaluate(() => window.tilekitEditor.getText());
  r = await check('tiled-matmul', good.replace('var acc = 0.0;\n    let phases', 'var acc = 0.0\n    let phases'));
  if (r.verdict === 'does-not-compile' && /tiled-matmul\.wgsl:\d+:/.test(r.text)) ok('a missing semicolon: ' + r.text.split('\n')[0]);
  else fail('a file that does not compile was not reported with its line: ' + r.text);
  // Ctrl+Enter in the editor checks; Tab indents (it does not leave the editor); Starter
  // replaces the text as one edit that Ctrl+Z undoes.
  await page.evaluate((t) => window.tilekitEditor.setText(t), good);
  await page.evaluate(() => window.tilekitEditor.selectLine(1));
  await page.keyboard.press('Home');
  await page.keyboard.press('Tab');
  const tabbed = await page.evaluate(() => window.tilekitEditor.getText().split('\n')[0]);
  if (tabbed.startsWith('    ')) ok('Tab indents in the editor');
  else fail('Tab did not indent: ' + JSON.stringify(tabbed.slice(0, 20)));
  await page.evaluate((t) => window.tilekitEditor.setText(t), good);
  await page.evaluate(() => { window.tilekit.check = null; });
  await page.keyboard.press('Control+Enter');
  await page.waitForFunction(() => window.tilekit.check !== null, null, { timeout: 600000 });
  r = await page.evaluate(() => window.tilekit.check);
  if (r.passed) ok('Ctrl+Enter checks: ' + r.text.split('\n')[0]);
  else fail('Ctrl+Enter did not check the solution: ' + r.text);
  await page.click('#starter');
  await page.evaluate(() => window.tilekitEditor.view.focus());
  await page.keyboard.press('Control+z');
  const undone = await page.evaluate(() => window.tilekitEditor.getText());
  if (undone === good) ok('Starter is one Ctrl+Z away from the work it replaced');
  else fail('after Starter, Ctrl+Z did not bring the work back');
  // A shared link holds the kernel: opened in a new tab, it restores exercise and text.
  await page.evaluate(() => window.tilekitEditor.setText('// shared\n' + window.tilekitEditor.getText()));
  await page.evaluate(() => { window.tilekit.shared = null; });
  await page.click('#share');
  await page.waitForFunction(() => window.tilekit.shared, null, { timeout: 60000 });
  const link = await page.evaluate(() => window.tilekit.shared);
  const other = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  await other.goto(link);
  await other.waitForFunction(() => window.tilekitEditor, null, { timeout: 180000 });
  const restored = await other.evaluate(() => ({ text: window.tilekitEditor.getText(), name: document.getElementById('ex-name').value }));
  if (restored.name === 'tiled-matmul' && restored.text.startsWith('// shared\n')) ok(`a shared link (${link.length} characters) restores the kernel`);
  else fail('a shared link did not restore the kernel: ' + JSON.stringify(restored).slice(0, 200));
  await other.close();
  await page.evaluate(() => window.tilekitEditor.setText(window.tilekitEditor.getText().replace('// shared\n', '')));
  // The solution with its first barrier weakened to storageBarrier(): whatever this GPU would
  // compute, the tracer names the race.
  r = await check('tiled-matmul', good.replace('workgroupBarrier();', 'storageBarrier();'));
  if (r.verdict === 'traced' && r.text.includes('race on')) ok('a barrier weakened to storageBarrier(): ' + r.text.split('\n')[1]);
  else fail('a barrier weakened to storageBarrier() was not reported as a race: ' + r.text);
  // A kernel that does not end in any reasonable time (four billion steps per invocation, each
  // with an effect): reported, then the next check runs on a new device and passes.
  const endless = good.replace('    // Fig 4.20: store only inside C.', '    for (var s = 0u; s < 4294967295u; s++) { acc += 1e-30; }\n    // Fig 4.20: store only inside C.');
  if (endless === good) fail('the endless-loop edit found nothing to change');
  const tEndless = Date.now();
  r = await check('tiled-matmul', endless);
  if (r.verdict === 'loop-stopped') ok(`an endless loop is reported after ${((Date.now() - tEndless) / 1000).toFixed(0)} s: ${r.text.split('\n')[0]}`);
  else fail('an endless loop was not reported as one: ' + r.text);
  r = await check('tiled-matmul', good);
  if (r.passed) ok('the next check passes: ' + r.text.split('\n')[0]);
  else fail('after the endless loop the solution did not pass: ' + r.text);
  // Every barrier each exercise's solution reaches, removed or weakened to storageBarrier():
  // the check names a race, whatever this GPU computes.
  let mutants = 0;
  const racesBefore = Date.now();
  for (const name of await page.evaluate(() => [...document.querySelectorAll('#ex-name option')].map((o) => o.value))) {
    const lines = await page.evaluate((n) => JSON.parse(window.tilekitWasm.barriers(n)), name);
    const solution = await page.evaluate((n) => window.tilekitWasm.solution(n), name);
    for (const line of lines) {
      for (const replacement of ['', 'storageBarrier();']) {
        const mutant = solution.split('\n').map((l, i) => (i + 1 === line ? l.replace('workgroupBarrier();', replacement) : l)).join('\n');
        r = await check(name, mutant);
        mutants += 1;
        if (!(r.verdict === 'traced' && r.text.includes('race on'))) fail(`${name} with line ${line} as \`${replacement}\` was not named a race: ${r.text}`);
      }
    }
  }
  if (mutants === 32) ok(`32 racy mutants (every barrier of the ten exercises removed or weakened) named races, ${((Date.now() - racesBefore) / 1000).toFixed(1)} s`);
  else fail(`${mutants} racy mutants checked, not 32`);
  // Every exercise's solution passes under this browser's limits (WebGPU's defaults on
  // SwiftShader: 256 invocations and 16 KiB of workgroup memory a workgroup).
  const names = await page.evaluate(() => [...document.querySelectorAll('#ex-name option')].map((o) => o.value));
  if (names.length < 10) fail(`only ${names.length} exercises listed`);
  for (const name of names) {
    await page.selectOption('#ex-name', name);
    await page.click('#show-solution');
    const t = Date.now();
    r = await check(name);
    // Those with no library kernel run on this browser's GPU after the trace, as a kernel of
    // one's own (Gpu::dispatch): the verdict says where.
    const ran = !r.text.includes('(traced:') || r.text.includes(': the same output)');
    if (r.passed && ran) ok(`${name} solution passes (${((Date.now() - t) / 1000).toFixed(1)} s)${r.text.includes('(traced:') ? ', ' + r.text.split('; ')[1].split(': the same output')[0] : ''}`);
    else fail(`${name} solution did not pass under this browser's limits, or did not run on its GPU: ` + r.text);
  }
}

// The tab and the exercise survive a reload.
{
  await page.click('button[data-tab=exercises]');
  await page.selectOption('#ex-name', 'histogram');
  await page.reload();
  await page.waitForFunction(() => window.tilekitEditor && window.tilekit.ready, null, { timeout: 180000 });
  const kept = await page.evaluate(() => ({ tab: !document.getElementById('exercises').hidden, name: document.getElementById('ex-name').value }));
  if (kept.tab && kept.name === 'histogram') ok('the tab and the exercise survive a reload');
  else fail('after a reload: ' + JSON.stringify(kept));
  // On a 390-px phone screen: the race, its lines and pictures (kept under benchmarks/ by hand).
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate((t) => window.tilekitEditor.setText(t), await page.evaluate(() => window.tilekitWasm.exercises()).then((j) => JSON.parse(j).find((e) => e.name === 'histogram').starter));
  await page.evaluate(() => { window.tilekit.check = null; });
  await page.click('#check');
  await page.waitForFunction(() => window.tilekit.check !== null, null, { timeout: 600000 });
  await page.screenshot({ path: `${shotDir}/race-390.png`, fullPage: true });
  // Pictures and charts keep their size on a phone (they scroll sideways): their text is at
  // least 10 px high as drawn.
  const inPictures = await smallestText('#ex-pictures svg text');
  const smallest = Math.min(inPictures, chartText);
  if (smallest >= 10 && smallest !== Infinity) ok(`at 390 px the smallest chart or picture text is ${smallest.toFixed(1)} px high`);
  else fail(`at 390 px chart or picture text shrinks to ${smallest} px`);
  await page.setViewportSize({ width: 1100, height: 1400 });
}

// No console error, nothing thrown.
const real = consoleErrors.filter((e) => !/favicon/.test(e));
if (real.length) fail('console errors: ' + real.join(' | ')); else ok('no console error');

// A screenshot that is not blank: decoded in the page, its colours counted.
await page.click('button[data-tab=tour]');
const png = await page.screenshot({ fullPage: false });
writeFileSync(`${shotDir}/page.png`, png);
const colours = await page.evaluate(async (b64) => {
  const img = new Image();
  img.src = 'data:image/png;base64,' + b64;
  await img.decode();
  const c = document.createElement('canvas');
  c.width = img.width; c.height = img.height;
  const ctx = c.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const d = ctx.getImageData(0, 0, c.width, c.height).data;
  const seen = new Set();
  let ink = 0;
  for (let i = 0; i < d.length; i += 4) {
    seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
    if (d[i] + d[i + 1] + d[i + 2] < 600) ink++;
  }
  return { colours: seen.size, ink: ink / (d.length / 4) };
}, png.toString('base64'));
if (colours.colours > 20 && colours.ink > 0.01) ok(`screenshot: ${colours.colours} colours, ${(100 * colours.ink).toFixed(1)}% inked (${shotDir}/page.png)`);
else fail(`blank screenshot: ${JSON.stringify(colours)}`);

// Without a WebGPU adapter: the notice, nothing that needs a GPU enabled (before or after a
// click), and no advice for a native machine.
{
  const bare = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  await bare.addInitScript(() => {
    if (navigator.gpu) navigator.gpu.requestAdapter = async () => null;
  });
  await bare.goto(url);
  await bare.waitForFunction(() => window.tilekit && (window.tilekit.ready || window.tilekit.error), null, { timeout: 180000 });
  const state = await bare.evaluate(() => ({
    error: window.tilekit.error,
    notice: !document.getElementById('nowebgpu').hidden,
    enabled: [...document.querySelectorAll('button.gpu')].filter((b) => !b.disabled).map((b) => b.textContent),
  }));
  if (state.error === 'no-webgpu' && state.notice) ok('without an adapter the page says so');
  else fail('without an adapter: ' + JSON.stringify(state));
  if (state.enabled.length) fail('without an adapter these stay enabled: ' + state.enabled.join(', '));
  else ok('without an adapter nothing that needs a GPU is enabled');
  await bare.click('button[data-tab=exercises]');
  const text = await bare.evaluate(() => document.body.innerText);
  if (/apt-get|mesa-vulkan/.test(text)) fail('native-only advice on the page without an adapter');
  else ok('no native-only advice');
  await bare.close();
}

await browser.close();
console.log(failures.length ? `${failures.length} failed` : 'web page: every check held');
process.exit(failures.length ? 1 : 0);
