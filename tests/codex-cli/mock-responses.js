#!/usr/bin/env node
// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The execserverd authors
// Scripted stand-in for the OpenAI Responses API (POST /v1/responses, SSE),
// just enough for `codex exec` to run a fixed conversation of tool calls.
//
// usage: node mock-responses.js SCRATCH_DIR LOG_FILE
//   Listens on 127.0.0.1 (ephemeral port) and prints "PORT <n>" on stdout.
//   Every request is appended to LOG_FILE as one JSON line.
//
// The script is chosen from the tools the client advertises in each request,
// so it follows whichever shell/apply_patch flavour the CLI offers:
//   1. shell:       echo hello-from-execserverd > SCRATCH/proof.txt, the
//                   shell's process ancestry > SCRATCH/ancestry.txt; uname -a
//   2. apply_patch: *** Add File: patched.txt
//   3. tty exec:    a PTY program reading one line (exec_command tty=true)
//   4. write_stdin: "ping-from-codex\n" to that session
//   5. assistant message "mock-done", then the turn ends.
'use strict';
const http = require('http');
const fs = require('fs');

const scratch = process.argv[2];
const logFile = process.argv[3] || '/dev/null';
if (!scratch) { console.error('usage: mock-responses.js SCRATCH_DIR [LOG]'); process.exit(2); }

let respSeq = 0;

function sse(res, events) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const ev of events) res.write(`event: ${ev.type}\ndata: ${JSON.stringify(ev)}\n\n`);
  res.end();
}

function created(id) { return { type: 'response.created', response: { id } }; }
function completed(id) {
  return { type: 'response.completed', response: { id, usage: {
    input_tokens: 0, input_tokens_details: null, output_tokens: 0,
    output_tokens_details: null, total_tokens: 0 } } };
}
function functionCall(callId, name, args) {
  return { type: 'response.output_item.done',
           item: { type: 'function_call', call_id: callId, name, arguments: JSON.stringify(args) } };
}
function customCall(callId, name, input) {
  return { type: 'response.output_item.done',
           item: { type: 'custom_tool_call', call_id: callId, name, input } };
}
function message(text) {
  return { type: 'response.output_item.done',
           item: { type: 'message', role: 'assistant', id: `msg_${respSeq}`,
                   content: [{ type: 'output_text', text }] } };
}

function toolName(t) { return t.name || (t.function && t.function.name) || t.type; }

// Output text of our earlier call `callId`, or undefined if not answered yet.
function outputOf(input, callId) {
  for (const item of input) {
    if ((item.type === 'function_call_output' || item.type === 'custom_tool_call_output')
        && item.call_id === callId) {
      const o = item.output;
      if (typeof o === 'string') return o;
      if (o && typeof o.content === 'string') return o.content;
      if (Array.isArray(o)) return o.map((p) => p.text || '').join('');
      return JSON.stringify(o);
    }
  }
  return undefined;
}

function shellCall(tools, callId, script, extra) {
  const names = new Map(tools.map((t) => [toolName(t), t]));
  if (names.has('exec_command'))
    return functionCall(callId, 'exec_command',
                        Object.assign({ cmd: script, workdir: scratch, yield_time_ms: 10000 }, extra || {}));
  if (names.has('shell_command'))
    return functionCall(callId, 'shell_command', { command: script, workdir: scratch, timeout_ms: 20000 });
  if (names.has('shell'))
    return functionCall(callId, 'shell', { command: ['bash', '-lc', script], workdir: scratch, timeout_ms: 20000 });
  return null;
}

function respond(body) {
  const id = `resp_${++respSeq}`;
  const input = Array.isArray(body.input) ? body.input : [];
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const names = tools.map(toolName);
  const out = [created(id)];
  const done = (evs) => out.concat(evs, [completed(id)]);

  // Step 1: plain shell command.
  if (outputOf(input, 'call_shell') === undefined) {
    const c = shellCall(tools, 'call_shell',
                        `echo hello-from-execserverd > ${scratch}/proof.txt; ` +
                        // record who spawned the shell: the daemon, not codex
                        `p=$$; while [ "$p" -gt 1 ]; do echo "$p $(cat /proc/$p/comm)"; ` +
                        `p=$(awk '/^PPid:/{print $2}' /proc/$p/status); done > ${scratch}/ancestry.txt; ` +
                        `uname -a; echo "snapshot-var:$E2E_PROFILE_VAR"`);
    if (!c) return done([message(`mock-error: no shell tool among ${names.join(',')}`)]);
    return done([c]);
  }
  // Step 2: apply_patch (freeform custom tool or JSON function).
  if (outputOf(input, 'call_patch') === undefined) {
    const patch = '*** Begin Patch\n*** Add File: patched.txt\n+patched-by-codex-through-execserverd\n+second line\n*** End Patch\n';
    const t = tools.find((x) => toolName(x) === 'apply_patch');
    if (!t) return done([message(`mock-error: no apply_patch tool among ${names.join(',')}`)]);
    if (t.type === 'custom') return done([customCall('call_patch', 'apply_patch', patch)]);
    return done([functionCall('call_patch', 'apply_patch', { input: patch })]);
  }
  // Step 3: interactive program on a PTY (unified exec only).
  if (names.includes('exec_command') && names.includes('write_stdin')) {
    if (outputOf(input, 'call_tty') === undefined) {
      const script = `printf 'tty-ready:'; tty -s && echo yes || echo no; read -r line; ` +
                     `echo "got:$line" > ${scratch}/tty.txt; echo "tty-echo:$line"`;
      return done([shellCall(tools, 'call_tty', script, { tty: true, yield_time_ms: 1000 })]);
    }
    if (outputOf(input, 'call_stdin') === undefined) {
      const m = /session ID (\d+)/i.exec(outputOf(input, 'call_tty'));
      if (m)
        return done([functionCall('call_stdin', 'write_stdin',
                                  { session_id: Number(m[1]), chars: 'ping-from-codex\n', yield_time_ms: 3000 })]);
    }
  }
  return done([message('mock-done')]);
}

const server = http.createServer((req, res) => {
  let chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    let body = null;
    try { body = raw ? JSON.parse(raw) : null; } catch (e) { body = { unparsed: raw.slice(0, 2000) }; }
    fs.appendFileSync(logFile, JSON.stringify({ method: req.method, url: req.url, body }) + '\n');
    if (req.method === 'POST' && /\/responses$/.test(req.url.split('?')[0])) {
      sse(res, respond(body || {}));
    } else if (req.method === 'GET' && /\/models/.test(req.url)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ models: [] }));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'not mocked', type: 'not_found' } }));
    }
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`PORT ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
