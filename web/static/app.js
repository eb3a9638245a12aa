// The page: it loads tilekit's wasm build, opens the visitor's GPU through WebGPU, and runs the
// tour's lessons and the exercises' checker, one thing at a time. What it has done is kept in
// `window.tilekit` (the headless browser test reads it).
import init, * as tk from './pkg/tilekit_web.js';
import { createEditor } from './editor.js';

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
  const cell = row.querySelector('.result');
  cell.innerHTML = '<span class="running">running…</span> <button class="stop">Stop</button>';
  cell.querySelector('.stop').addEventListener('click', () => { state.stopping = true; tk.stop(); });
  const started = performance.now();
  // Progress: the lesson's latest line and the time so far, twice a second.
  const tick = setInterval(() => {
    const p = JSON.parse(tk.progress());
    const running = cell.querySelector('.running');
    if (running) running.textContent = `running, ${((performance.now() - started) / 1000).toFixed(0)} s${p.last ? ': ' + p.last.slice(0, 60) : '…'}`;
  }, 500);
  let r;
  try {
    r = JSON.parse(await tk.run_lesson(number, quick));
  } catch (e) {
    r = { label: row.dataset.label, verified: false, key: '', html: `<p class="bad">${escape(String(e))}</p>`, error: String(e) };
  } finally {
    clearInterval(tick);
  }
  r.seconds = (performance.now() - started) / 1000;
  state.results[number] = r;
  row.querySelector('.result').innerHTML = r.stopped
    ? '<span class="meta">stopped</span>'
    : r.error
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
      state.stopping = false;
      // Stop ends the lesson running and the rest of the tour.
      for (let i = 0; i < lessons.length && !state.stopping; i++) await runLesson(lessons[i].number, rows[i]);
      state.tourDone = true;
    }));
}

// A kernel in a link: deflate-raw (where the browser has CompressionStream), then base64url.
async function pack(text) {
  const bytes = new TextEncoder().encode(text);
  let out = bytes;
  let kind = 'b';
  if ('CompressionStream' in window) {
    out = new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate-raw'))).arrayBuffer());
    kind = 'z';
  }
  let bin = '';
  for (const b of out) bin += String.fromCharCode(b);
  return kind + btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function unpack(s) {
  const bin = atob(s.slice(1).replace(/-/g, '+').replace(/_/g, '/'));
  let bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  if (s[0] === 'z') {
    bytes = new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'))).arrayBuffer());
  }
  return new TextDecoder().decode(bytes);
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
  const save = (text) => localStorage.setItem('tilekit:' + select.value, text);
  const editor = createEditor($('ex-editor'), { onCheck: () => $('check').click(), onChange: save });
  window.tilekitEditor = editor;
  const clear = () => {
    $('ex-result').textContent = '';
    $('ex-result').className = '';
    $('ex-lines').innerHTML = '';
    $('ex-pictures').innerHTML = '';
  };
  // A learner's work survives a reload (kept per exercise in this browser), and so does the
  // exercise they were on.
  const load = () => {
    const e = current();
    localStorage.setItem('tilekit:exercise', e.name);
    $('ex-task').textContent = e.task;
    editor.reset(localStorage.getItem('tilekit:' + e.name) ?? e.starter);
    clear();
  };
  select.addEventListener('change', load);
  // Starter and Solution replace the text as one edit: Ctrl+Z (⌘+Z) brings the work back.
  const replace = (text, what) => {
    if (editor.getText() === text) return;
    editor.setText(text);
    clear();
    $('ex-result').textContent = `${what} loaded; Ctrl+Z (⌘+Z on a Mac) brings your text back.`;
  };
  $('starter').addEventListener('click', () => replace(current().starter, 'The starter'));
  $('show-solution').addEventListener('click', () => replace(tk.solution(select.value), 'The solution'));
  $('share').addEventListener('click', async () => {
    const link = `${location.origin}${location.pathname}#exercise=${encodeURIComponent(select.value)}&kernel=${await pack(editor.getText())}`;
    state.shared = link;
    try {
      await navigator.clipboard.writeText(link);
      $('ex-result').textContent = 'A link that holds your kernel is in the clipboard (the kernel travels in the link itself; nothing is sent anywhere):\n' + link;
    } catch {
      $('ex-result').textContent = 'A link that holds your kernel (the kernel travels in the link itself; nothing is sent anywhere):\n' + link;
    }
  });
  $('check').classList.add('gpu');
  $('check').addEventListener('click', () =>
    exclusive(async () => {
      $('ex-result').textContent = 'checking…';
      $('ex-result').className = '';
      let r;
      try {
        r = JSON.parse(await tk.check(select.value, editor.getText()));
      } catch (e) {
        r = { passed: false, verdict: 'failed', text: String(e), lost: false };
      }
      state.check = r;
      $('ex-result').textContent = r.text;
      $('ex-result').className = r.passed ? 'passed' : 'failed';
      // The lines the verdict names: marked in the editor; a click selects one.
      editor.markLines(r.lines || []);
      $('ex-lines').innerHTML = (r.lines || []).map((n) => `<button class="line" data-line="${n}">line ${n}</button>`).join(' ');
      for (const b of $('ex-lines').querySelectorAll('button')) {
        b.addEventListener('click', () => editor.selectLine(Number(b.dataset.line)));
      }
      // The trace's pictures: workgroup memory by epoch (the raced word outlined), banks.
      $('ex-pictures').innerHTML = (r.pictures || []).join('');
    }));
  // A shared link opens its exercise with its kernel (kept as the learner's text).
  const hash = new URLSearchParams(location.hash.slice(1));
  const shared = hash.get('exercise');
  const remembered = localStorage.getItem('tilekit:exercise');
  if (shared && all.some((e) => e.name === shared) && hash.get('kernel')) {
    select.value = shared;
    try {
      save(await unpack(hash.get('kernel')));
    } catch (e) {
      $('ex-result').textContent = 'The link\'s kernel could not be read: ' + e;
    }
    selectTab('exercises');
    // Imported once: a reload keeps the learner's later edits rather than the link's text.
    history.replaceState(null, '', location.pathname);
  } else if (remembered && all.some((e) => e.name === remembered)) {
    select.value = remembered;
  }
  load();
}

function selectTab(tab) {
  for (const o of document.querySelectorAll('#tabs button')) {
    const on = o.dataset.tab === tab;
    o.setAttribute('aria-selected', String(on));
    $(o.dataset.tab).hidden = !on;
  }
  localStorage.setItem('tilekit:tab', tab);
}

// The tab survives a reload.
function setupTabs() {
  for (const b of document.querySelectorAll('#tabs button')) {
    b.addEventListener('click', () => selectTab(b.dataset.tab));
  }
  const tab = localStorage.getItem('tilekit:tab');
  if (tab && $(tab)) selectTab(tab);
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
    // What a CPU adapter cannot show, said once, above the lessons.
    const cpuNote = a.cpu_note || ((info.fallback || /swiftshader|llvmpipe|warp/i.test(name)) ? 'This adapter is a CPU: times here follow whatever else the machine is doing, so kernels\' speeds are not compared, and the speed-ups the lessons predict belong to GPUs.' : null);
    if (cpuNote) {
      $('cpu-note').textContent = cpuNote;
      $('cpu-note').hidden = false;
    }
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
