// Tokenizes every .mesh file of the repository that should be free of syntax
// errors with the TextMate grammar, as VS Code does, and fails on any token
// scoped invalid.*: the grammar must not flag valid mesh. Files are chosen as
// the tree-sitter grammar's repository test chooses them (no target/,
// node_modules/, hidden directories or `bad` directories; no file whose header
// expects or allows a syntax error E0001-E0009).

'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const textmate = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const root = path.resolve(__dirname, '..', '..', '..');
const skippedDirectories = new Set(['target', 'node_modules', 'bad']);
// lsp/tests/fixtures holds cursor markers ($0), so its files are not mesh as written.
const skippedPaths = new Set(['fuzz/corpus', 'fuzz/artifacts', 'lsp/tests/fixtures']);

function meshFiles(dir, found = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const relative = path.relative(root, full).split(path.sep).join('/');
      if (!entry.name.startsWith('.') && !skippedDirectories.has(entry.name) && !skippedPaths.has(relative)) {
        meshFiles(full, found);
      }
    } else if (entry.name.endsWith('.mesh')) {
      found.push(full);
    }
  }
  return found;
}

function declaresSyntaxError(text) {
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line !== '' && !line.startsWith('//')) break;
    const comment = line.replace(/^\/+/, '').trim();
    const match = /^(?:expect|allow):(.*)$/.exec(comment);
    if (match && match[1].split(/[\s,;]+/).some((code) => /^E000\d$/.test(code))) return true;
  }
  return false;
}

async function loadGrammar() {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) => {
      if (scopeName !== 'source.mesh') return null;
      const file = path.join(__dirname, '..', 'syntaxes', 'mesh.tmLanguage.json');
      return textmate.parseRawGrammar(fs.readFileSync(file, 'utf8'), file);
    },
  });
  return registry.loadGrammar('source.mesh');
}

test('no valid .mesh file of the repository gets an invalid scope', async () => {
  const grammar = await loadGrammar();
  const files = meshFiles(root).filter((file) => !declaresSyntaxError(fs.readFileSync(file, 'utf8')));
  assert.ok(files.length >= 5, `expected .mesh files under ${root}`);
  const problems = [];
  for (const file of files) {
    let state = textmate.INITIAL;
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, index) => {
      const result = grammar.tokenizeLine(line, state);
      for (const token of result.tokens) {
        if (token.scopes.some((scope) => scope.startsWith('invalid'))) {
          problems.push(
            `${path.relative(root, file)}:${index + 1}:${token.startIndex + 1}: ` +
              `${JSON.stringify(line.slice(token.startIndex, token.endIndex))} is ${token.scopes.join(' ')}`,
          );
        }
      }
      state = result.ruleStack;
    });
  }
  console.log(`tokenized ${files.length} .mesh files`);
  assert.deepStrictEqual(problems, []);
});

test('a header expecting a syntax error is recognised', () => {
  assert.ok(declaresSyntaxError('// expect: E0001\nmodule a {'));
  assert.ok(declaresSyntaxError('// expect: E0005\n// allow: E0001\n'));
  assert.ok(!declaresSyntaxError('// expect: E0302\nmodule a {}'));
  assert.ok(!declaresSyntaxError('module a {}\n// expect: E0001\n'));
});
