#!/usr/bin/env node
// A stand-in for meshc-lsp that checks the Neovim test harness: it answers
// initialize and shutdown and, for every opened document that reads
// `db.password` into env, publishes one diagnostic with the code in
// $MOCK_LSP_CODE (E0302 by default), and for one that reads `db.hots` the
// hint "help: did you mean `host`?" (severity Hint) unless MOCK_LSP_NO_HINT is
// set. Not a language server of any use.

'use strict';

const code = process.env.MOCK_LSP_CODE || 'E0302';
let buffer = Buffer.alloc(0);

function send(message) {
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...message }), 'utf8');
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
}

function handle(message) {
  switch (message.method) {
    case 'initialize':
      send({ id: message.id, result: { capabilities: { textDocumentSync: 1 } } });
      break;
    case 'textDocument/didOpen': {
      const { uri, text } = message.params.textDocument;
      const lines = text.split('\n');
      const diagnostics = [];
      const line = lines.findIndex((l) => l.includes('db.password'));
      if (line >= 0) {
        const character = lines[line].indexOf('db.password');
        diagnostics.push({
          range: { start: { line, character }, end: { line, character: character + 11 } },
          severity: 1,
          code,
          source: 'meshc',
          message: 'secret `db.password` read into a plain env value',
        });
      }
      const typo = lines.findIndex((l) => l.includes('db.hots'));
      if (typo >= 0 && !process.env.MOCK_LSP_NO_HINT) {
        const character = lines[typo].indexOf('hots');
        diagnostics.push({
          range: { start: { line: typo, character }, end: { line: typo, character: character + 4 } },
          severity: 4,
          code: 'E0105',
          source: 'meshc',
          message: 'help: did you mean `host`?',
        });
      }
      if (diagnostics.length > 0) {
        send({ method: 'textDocument/publishDiagnostics', params: { uri, diagnostics } });
      }
      break;
    }
    case 'shutdown':
      send({ id: message.id, result: null });
      break;
    case 'exit':
      process.exit(0);
      break;
    default:
      if (message.id !== undefined && message.method) {
        send({ id: message.id, error: { code: -32601, message: 'method not found' } });
      }
  }
}

process.stdin.on('data', (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const headerEnd = buffer.indexOf('\r\n\r\n');
    if (headerEnd < 0) return;
    const header = buffer.subarray(0, headerEnd).toString('ascii');
    const length = Number(/Content-Length: *(\d+)/i.exec(header)[1]);
    if (buffer.length < headerEnd + 4 + length) return;
    const body = buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8');
    buffer = buffer.subarray(headerEnd + 4 + length);
    handle(JSON.parse(body));
  }
});
process.stdin.on('end', () => process.exit(0));
