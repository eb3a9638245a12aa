// The page: it loads tilekit's wasm build, opens the visitor's GPU through WebGPU, and runs the
// tour's lessons and the exercises' checker, one thing at a time. What it has done is kept in
// `window.tilekit` (the headless browser test reads it).
import init, * as tk from './pkg/tilekit_web.js';

const state = { ready: false, busy: false, error: null, adapter: null, results: {}, tourDone: false, check: null };
window.tilekit = state;
const $ = (id) => document.getElementById(id);

function escape(s) {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
}

// One operation at a time: lessons and checks share the GPU (and a learner's shader is swapped
// in for the library's while it is checked).
async function exclusive(f) {
  if (state.busy) return;
  state.busy = true;
  for (const b of document.querySelectorAll('button.gpu')) b.disabled = true;
  try {
    return await f();
  } finally {
    state.busy = false;
    // Only a page that has a GPU enables what needs one again.
    for (const b of document.querySelectorAll('button.gpu')) b.disabled = !state.ready;
  }
}

function noWebGpu(detail) {
  state.error = 'no-webgpu';
  state.ready = false;
  // Nothing that needs a GPU stays clickable.
  for (const b of document.querySelectorAll('button.gpu')) b.disabled = true;
  $('nowebgpu').hidden = false;
  $('nowebgpu-detail').textContent = detail || '';
  $('adapter').textContent = 'No WebGPU adapter.';
}

async function runLesson(number, row) {
  const quick = $('quick').checked;
  row.querySelector('.result').innerHTML = '<span class="running">running…</span>';
  const started = performance.now();
  let r;
  try {
    r = JSON.parse(await tk.run_lesson(number, quick));
  } catch (e) {
    r = { label: row.dataset.label, verified: false, key: '', html: `<p class="bad">${escape(String(e))}</p>`, error: String(e) };
  }
  r.seconds = (performance.now() - started) / 1000;
  state.results[number] = r;
  row.querySelector('.result').innerHTML = r.error
    ? '<span class="bad">error</span>'
    : !r.verified ? '<span class="bad">WRONG</span>'
    : r.not_run ? `<span class="meta" title="${escape(r.not_run)}">not run here</span>`
    : '<span class="ok">verified</span>';
  row.querySelector('.key').textContent = r.error || r.key;
  let section = document.getElementById('section-' + number);
  if (!section) {
    section = document.createElement('div');
    section.id = 'section-' + number;
    $('lessons').append(section);
    // Keep the sections in lesson order whatever order they finish in.
    [...$('lessons').children]
      .sort((a, b) => Number(a.id.slice(8)) - Number(b.id.slice(8)))
      .forEach((c) => $('lessons').append(c));
  }
  section.innerHTML = r.html;
  return r;
}

async function setupTour() {
  const lessons = JSON.parse(tk.lessons());
  const body = $('summary').querySelector('tbody');
  for (const l of lessons) {
    const row = document.createElement('tr');
    row.dataset.label = l.label;
    row.innerHTML = `<td><a href="#lesson-${String(l.number).padStart(2, '0')}">${escape(l.label)}</a></td><td class="result"></td><td class="key"></td><td><button class="gpu" disabled>Run</button></td>`;
    row.querySelector('button').addEventListener('click', () => exclusive(() => runLesson(l.number, row)));
    body.append(row);
  }
  $('run-all').classList.add('gpu');
  $('run-all').addEventListener('click', () =>
    exclusive(async () => {
      state.tourDone = false;
      const rows = [...body.children];
      for (let i = 0; i < lessons.length; i++) await runLesson(lessons[i].number, rows[i]);
      state.tourDone = true;
    }));
}

async function setupExercises() {
  const all = JSON.parse(tk.exercises());
  const select = $('ex-name');
  for (const e of all) {
    const o = document.createElement('option');
    o.value = e.name;
    o.textContent = e.name;
    select.append(o);
  }
  const current = () => all.find((e) => e.name === select.value);
  // A learner's work survives a reload (kept per exercise in this browser).
  const load = () => {
    const e = current();
    $('ex-task').textContent = e.task;
    $('ex-source').value = localStorage.getItem('tilekit:' + e.name) ?? e.starter;
    $('ex-result').textContent = '';
    $('ex-result').className = '';
    $('ex-lines').innerHTML = '';
    $('ex-pictures').innerHTML = '';
  };
  select.addEventListener('change', load);
  $('ex-source').addEventListener('input', () => localStorage.setItem('tilekit:' + select.value, $('ex-source').value));
  $('starter').addEventListener('click', () => {
    localStorage.removeItem('tilekit:' + select.value);
    load();
  });
  $('show-solution').addEventListener('click', () => {
    $('ex-source').value = tk.solution(select.value);
    localStorage.setItem('tilekit:' + select.value, $('ex-source').value);
  });
  $('check').classList.add('gpu');
  $('check').addEventListener('click', () =>
    exclusive(async () => {
      $('ex-result').textContent = 'checking…';
      $('ex-result').className = '';
      let r;
      try {
        r = JSON.parse(await tk.check(select.value, $('ex-source').value));
      } catch (e) {
        r = { passed: false, verdict: 'failed', text: String(e), lost: false };
      }
      state.check = r;
      $('ex-result').textContent = r.text;
      $('ex-result').className = r.passed ? 'passed' : 'failed';
      // The lines the verdict names: a click selects the line in the editor.
      $('ex-lines').innerHTML = (r.lines || []).map((n) => `<button class="line" data-line="${n}">line ${n}</button>`).join(' ');
      for (const b of $('ex-lines').querySelectorAll('button')) {
        b.addEventListener('click', () => selectLine($('ex-source'), Number(b.dataset.line)));
      }
      // The trace's pictures: workgroup memory by epoch (the raced word outlined), banks.
      $('ex-pictures').innerHTML = (r.pictures || []).join('');
    }));
  load();
}

// Select line `n` (1-based) of a textarea and scroll it into view.
function selectLine(area, n) {
  const lines = area.value.split('\n');
  const start = lines.slice(0, n - 1).reduce((a, l) => a + l.length + 1, 0);
  area.focus();
  area.setSelectionRange(start, start + (lines[n - 1] || '').length);
  const lineHeight = area.scrollHeight / Math.max(lines.length, 1);
  area.scrollTop = Math.max(0, (n - 5) * lineHeight);
}

function setupTabs() {
  for (const b of document.querySelectorAll('#tabs button')) {
    b.addEventListener('click', () => {
      for (const o of document.querySelectorAll('#tabs button')) {
        const on = o === b;
        o.setAttribute('aria-selected', String(on));
        $(o.dataset.tab).hidden = !on;
      }
    });
  }
}

async function main() {
  setupTabs();
  if (!('gpu' in navigator)) {
    noWebGpu('navigator.gpu is undefined');
    return;
  }
  await init();
  // The module itself, for the page's test (and a curious learner's console).
  window.tilekitWasm = tk;
  const style = document.createElement('style');
  style.textContent = tk.report_style();
  document.head.append(style);
  await setupTour();
  await setupExercises();
  // The browser says more about its adapter than wgpu's summary carries (vendor, architecture).
  let info = {};
  try {
    const ad = await navigator.gpu.requestAdapter();
    if (!ad) throw new Error('requestAdapter() found no adapter');
    info = ad.info || {};
    info.fallback = ad.isFallbackAdapter || info.isFallbackAdapter || false;
  } catch (e) {
    noWebGpu(String(e));
    return;
  }
  try {
    const named = [info.vendor, info.architecture, info.description].filter(Boolean).join(' ') || 'WebGPU adapter';
    const a = JSON.parse(await tk.adapter(named));
    a.info = { vendor: info.vendor, architecture: info.architecture, description: info.description };
    state.adapter = a;
    const s = a.summary;
    const l = s.limits;
    const name = s.name || named;
    $('adapter').textContent =
      `${name} (WebGPU) · ` +
      `${l.max_compute_workgroup_storage_size} bytes of workgroup storage, ` +
      `${l.max_compute_invocations_per_workgroup} invocations per workgroup · ` +
      `features: ${s.features.join(', ') || 'none'} · timing: ${a.clock}`;
    // A CPU implementation (SwiftShader, a fallback adapter): small sizes, as the native tour.
    $('quick').checked = a.cpu || info.fallback || /swiftshader|llvmpipe|warp/i.test(name);
  } catch (e) {
    noWebGpu(String(e));
    return;
  }
  state.ready = true;
  for (const b of document.querySelectorAll('button.gpu')) b.disabled = false;
  if ('serviceWorker' in navigator && location.protocol !== 'file:') {
    navigator.serviceWorker.register('sw.js').catch(() => {});
  }
}

main().catch((e) => {
  state.error = String(e);
  $('adapter').textContent = 'Could not start: ' + e;
  console.error(e);
});
