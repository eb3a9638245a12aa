// The page's code editor: CodeMirror 6 (line numbers, undo, Tab indents, no soft wrap) with a
// small WGSL mode, a key to check (Ctrl+Enter, ⌘+Enter on a Mac), and the lines a check names
// marked. Bundled with its CodeMirror modules into web/dist/editor.js by scripts/web.sh.
import { EditorState, StateEffect, StateField, RangeSetBuilder } from '@codemirror/state';
import { EditorView, Decoration, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection, gutter, GutterMarker } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab, isolateHistory } from '@codemirror/commands';
import { StreamLanguage, HighlightStyle, syntaxHighlighting, indentUnit, bracketMatching } from '@codemirror/language';
import { tags } from '@lezer/highlight';

// WGSL's keywords, types and builtins (the W3C WGSL spec, §15 and §17), enough to colour a
// lesson's kernel.
const KEYWORDS = new Set(('alias break case const const_assert continue continuing default diagnostic discard else enable fn for if let loop override requires return struct switch var while true false').split(' '));
const TYPES = new Set(('array atomic bool f16 f32 i32 u32 vec2 vec3 vec4 mat2x2 mat2x3 mat2x4 mat3x2 mat3x3 mat3x4 mat4x2 mat4x3 mat4x4 ptr sampler texture_2d texture_storage_2d').split(' '));
const BUILTINS = new Set(('workgroupBarrier storageBarrier textureBarrier workgroupUniformLoad atomicLoad atomicStore atomicAdd atomicSub atomicMax atomicMin atomicAnd atomicOr atomicXor atomicExchange atomicCompareExchangeWeak arrayLength select min max clamp abs floor ceil round sqrt inverseSqrt exp exp2 log log2 pow dot fma mix step countOneBits reverseBits extractBits insertBits firstLeadingBit firstTrailingBit bitcast').split(' '));

const wgsl = StreamLanguage.define({
  name: 'wgsl',
  startState: () => ({ comment: 0 }),
  token(stream, state) {
    if (state.comment > 0) {
      while (!stream.eol()) {
        if (stream.match('*/')) { state.comment -= 1; if (state.comment === 0) break; }
        else if (stream.match('/*')) state.comment += 1;
        else stream.next();
      }
      return 'comment';
    }
    if (stream.eatSpace()) return null;
    if (stream.match('//')) { stream.skipToEnd(); return 'comment'; }
    if (stream.match('/*')) { state.comment = 1; return 'comment'; }
    if (stream.match(/^@[A-Za-z_]\w*/)) return 'meta';
    if (stream.match(/^(0[xX][0-9a-fA-F]+|\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)[uifh]?/)) return 'number';
    if (stream.match(/^[A-Za-z_]\w*/)) {
      const w = stream.current();
      if (KEYWORDS.has(w)) return 'keyword';
      if (TYPES.has(w)) return 'typeName';
      if (BUILTINS.has(w)) return 'standard(variableName)';
      return 'variableName';
    }
    stream.next();
    return null;
  },
  languageData: { commentTokens: { line: '//' } },
});

const style = HighlightStyle.define([
  { tag: tags.comment, color: '#6a737d', fontStyle: 'italic' },
  { tag: tags.keyword, color: '#8a2be2' },
  { tag: tags.typeName, color: '#005cc5' },
  { tag: tags.number, color: '#b35900' },
  { tag: tags.meta, color: '#22863a' },
  { tag: tags.standard(tags.variableName), color: '#b3261e' },
]);

// The lines a check names: a background on each, and a marker in the gutter.
const setMarked = StateEffect.define();
const markLine = Decoration.line({ class: 'cm-checked-line' });
class Flag extends GutterMarker { toDOM() { const s = document.createElement('span'); s.textContent = '●'; s.className = 'cm-checked-flag'; return s; } }
const flag = new Flag();
const marked = StateField.define({
  create: () => ({ lines: [], deco: Decoration.none }),
  update(value, tr) {
    for (const e of tr.effects) if (e.is(setMarked)) value = { lines: e.value, deco: decorate(tr.state, e.value) };
    // Any edit clears the marks: they named the kernel that was checked.
    if (tr.docChanged && !tr.effects.some((e) => e.is(setMarked))) value = { lines: [], deco: Decoration.none };
    return value;
  },
  provide: (f) => EditorView.decorations.from(f, (v) => v.deco),
});
function decorate(state, lines) {
  const b = new RangeSetBuilder();
  for (const n of [...lines].sort((a, c) => a - c)) {
    if (n >= 1 && n <= state.doc.lines) { const l = state.doc.line(n); b.add(l.from, l.from, markLine); }
  }
  return b.finish();
}
const flags = gutter({
  class: 'cm-checked-gutter',
  lineMarker(view, line) {
    const n = view.state.doc.lineAt(line.from).number;
    return view.state.field(marked).lines.includes(n) ? flag : null;
  },
  lineMarkerChange: (u) => u.transactions.some((t) => t.effects.some((e) => e.is(setMarked)) || t.docChanged),
});

// An editor in `parent` holding `doc`; `onCheck` runs on Ctrl+Enter (⌘+Enter), `onChange(text)`
// after each edit.
export function createEditor(parent, { doc = '', onCheck = () => {}, onChange = () => {} } = {}) {
  const extensions = [
        lineNumbers(),
        flags,
        highlightActiveLineGutter(),
        highlightActiveLine(),
        drawSelection(),
        history(),
        bracketMatching(),
        indentUnit.of('    '),
        wgsl,
        syntaxHighlighting(style),
        marked,
        keymap.of([{ key: 'Mod-Enter', run: () => { onCheck(); return true; } }, indentWithTab, ...defaultKeymap, ...historyKeymap]),
        EditorView.updateListener.of((u) => { if (u.docChanged) onChange(u.state.doc.toString()); }),
        EditorView.contentAttributes.of({ 'aria-label': 'your WGSL', spellcheck: 'false' }),
  ];
  const view = new EditorView({ parent, state: EditorState.create({ doc, extensions }) });
  return {
    view,
    getText: () => view.state.doc.toString(),
    // Replaces the text as one edit of its own: Ctrl+Z (⌘+Z) brings the learner's work back.
    setText(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, annotations: isolateHistory.of('full') });
    },
    // Starts afresh, with no undo history (another exercise).
    reset(text) { view.setState(EditorState.create({ doc: text, extensions })); },
    markLines(lines) { view.dispatch({ effects: setMarked.of(lines) }); },
    markedLines: () => view.state.field(marked).lines,
    selectLine(n) {
      if (n < 1 || n > view.state.doc.lines) return;
      const l = view.state.doc.line(n);
      view.dispatch({ selection: { anchor: l.from, head: l.to }, scrollIntoView: true });
      view.focus();
    },
  };
}
