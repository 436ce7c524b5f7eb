// Checks the manifest and the client without VS Code: `vscode` and
// `vscode-languageclient/node` are replaced by stand-ins that record what the
// extension asks of them.

'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');

const root = path.join(__dirname, '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

/** Loads extension.js with stand-ins; `settings` answers getConfiguration('mesh'). */
function loadExtension(settings) {
  const started = [];
  const shown = [];
  const vscode = {
    workspace: {
      getConfiguration: (section) => {
        assert.strictEqual(section, 'mesh');
        return { get: (key) => settings[key] };
      },
      createFileSystemWatcher: (glob) => ({ glob }),
      onDidChangeConfiguration: () => ({ dispose() {} }),
    },
    window: {
      createOutputChannel: (name) => ({ name, dispose() {} }),
      showErrorMessage: async (message) => {
        shown.push(message);
        return undefined;
      },
    },
    commands: {
      registerCommand: (id) => ({ id, dispose() {} }),
      executeCommand: async () => undefined,
    },
  };
  class LanguageClient {
    constructor(id, name, serverOptions, clientOptions) {
      Object.assign(this, { id, name, serverOptions, clientOptions });
    }
    async start() {
      if (this.serverOptions.run.command === 'missing-server') {
        throw new Error('spawn missing-server ENOENT');
      }
      started.push(this);
    }
    async stop() {}
  }
  const languageclient = { LanguageClient, TransportKind: { stdio: 0 } };

  const originalLoad = Module._load;
  Module._load = function (request, parent, isMain) {
    if (request === 'vscode') return vscode;
    if (request === 'vscode-languageclient/node') return languageclient;
    return originalLoad.call(this, request, parent, isMain);
  };
  const file = path.join(root, 'extension.js');
  delete require.cache[file];
  try {
    return { extension: require(file), started, shown };
  } finally {
    Module._load = originalLoad;
  }
}

test('the manifest declares the mesh language, grammar and settings', () => {
  const language = manifest.contributes.languages.find((l) => l.id === 'mesh');
  assert.deepStrictEqual(language.extensions, ['.mesh']);
  assert.ok(fs.existsSync(path.join(root, language.configuration)));
  const grammar = manifest.contributes.grammars.find((g) => g.language === 'mesh');
  assert.strictEqual(grammar.scopeName, 'source.mesh');
  const tm = JSON.parse(fs.readFileSync(path.join(root, grammar.path), 'utf8'));
  assert.strictEqual(tm.scopeName, 'source.mesh');
  const setting = manifest.contributes.configuration.properties['mesh.server.path'];
  assert.strictEqual(setting.default, 'meshc-lsp');
  assert.ok(fs.existsSync(path.join(root, manifest.main)));
  assert.ok(manifest.activationEvents.includes('onLanguage:mesh'));
});

test('the language configuration is valid and comments with //', () => {
  const config = JSON.parse(fs.readFileSync(path.join(root, 'language-configuration.json'), 'utf8'));
  assert.strictEqual(config.comments.lineComment, '//');
  for (const key of ['increaseIndentPattern', 'decreaseIndentPattern']) {
    new RegExp(config.indentationRules[key]);
  }
  const increase = new RegExp(config.indentationRules.increaseIndentPattern);
  assert.ok(increase.test('module forge {'));
  assert.ok(increase.test('  env {'));
  assert.ok(increase.test('  command ['));
  assert.ok(increase.test('  file "/etc/x" = """'));
  assert.ok(!increase.test('  node beta { private_name = "b" }'));
  assert.ok(new RegExp(config.indentationRules.decreaseIndentPattern).test('  }'));
  const word = new RegExp(`^(?:${config.wordPattern})$`);
  assert.ok(word.test('forge-staging'));
  assert.ok(word.test('0o750'));
});

test('the server command defaults to meshc-lsp', () => {
  const { extension } = loadExtension({});
  assert.deepStrictEqual(extension.serverCommand(), { command: 'meshc-lsp', args: [] });
});

test('mesh.server.path and mesh.server.args set the command', () => {
  const { extension } = loadExtension({
    'server.path': '/opt/meshc/bin/meshc-lsp',
    'server.args': ['--log', 'debug'],
  });
  assert.deepStrictEqual(extension.serverCommand(), {
    command: '/opt/meshc/bin/meshc-lsp',
    args: ['--log', 'debug'],
  });
});

test('activation starts the server over stdio for mesh files', async () => {
  const { extension, started } = loadExtension({ 'server.path': 'meshc-lsp' });
  const context = { subscriptions: [] };
  await extension.activate(context);
  assert.strictEqual(started.length, 1);
  const client = started[0];
  assert.strictEqual(client.serverOptions.run.command, 'meshc-lsp');
  assert.strictEqual(client.serverOptions.run.transport, 0);
  assert.deepStrictEqual(
    client.clientOptions.documentSelector.map((s) => s.language),
    ['mesh', 'mesh'],
  );
  assert.ok(context.subscriptions.length >= 2);
  await extension.deactivate();
});

test('a server that cannot start is reported, not thrown', async () => {
  const { extension, started, shown } = loadExtension({ 'server.path': 'missing-server' });
  await extension.activate({ subscriptions: [] });
  assert.strictEqual(started.length, 0);
  assert.match(shown[0], /missing-server/);
});
