// The mesh extension: starts the meshc language server (`meshc-lsp`, over
// stdio) for .mesh files. Plain JavaScript, so the extension needs no build
// step; syntax highlighting comes from syntaxes/mesh.tmLanguage.json.

'use strict';

const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

/** @type {LanguageClient | undefined} */
let client;

/** @type {vscode.OutputChannel | undefined} */
let outputChannel;

/**
 * The server's command line from the settings. The path may use `~` for the
 * home directory; a bare name is looked up on PATH.
 */
function serverCommand() {
  const config = vscode.workspace.getConfiguration('mesh');
  let command = (config.get('server.path') || 'meshc-lsp').trim() || 'meshc-lsp';
  if (command === '~' || command.startsWith('~/')) {
    command = require('os').homedir() + command.slice(1);
  }
  const args = config.get('server.args') || [];
  return { command, args };
}

/** Starts the language server; a failure is shown, never thrown. */
async function startClient() {
  const { command, args } = serverCommand();
  const executable = { command, args, transport: TransportKind.stdio };
  /** @type {import('vscode-languageclient/node').ServerOptions} */
  const serverOptions = { run: executable, debug: executable };
  /** @type {import('vscode-languageclient/node').LanguageClientOptions} */
  const clientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'mesh' },
      { scheme: 'untitled', language: 'mesh' },
    ],
    synchronize: {
      // The server checks the whole workspace: tell it when any .mesh file
      // changes on disk, not only the open ones.
      fileEvents: vscode.workspace.createFileSystemWatcher('**/*.mesh'),
    },
    outputChannel,
  };
  client = new LanguageClient('mesh', 'mesh language server', serverOptions, clientOptions);
  try {
    await client.start();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    client = undefined;
    const choice = await vscode.window.showErrorMessage(
      `Could not start the mesh language server \`${command}\`: ${message}. ` +
        'Install meshc-lsp or set "mesh.server.path".',
      'Open settings',
    );
    if (choice === 'Open settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'mesh.server');
    }
  }
}

async function stopClient() {
  const running = client;
  client = undefined;
  if (running) {
    await running.stop();
  }
}

async function restartClient() {
  await stopClient();
  await startClient();
}

/** @param {vscode.ExtensionContext} context */
async function activate(context) {
  outputChannel = vscode.window.createOutputChannel('mesh');
  context.subscriptions.push(outputChannel);
  context.subscriptions.push(
    vscode.commands.registerCommand('mesh.restartServer', restartClient),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('mesh.server')) {
        restartClient();
      }
    }),
  );
  await startClient();
}

function deactivate() {
  return stopClient();
}

module.exports = { activate, deactivate, serverCommand };
