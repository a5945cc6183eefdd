#!/usr/bin/env node
'use strict';
// A serialcheck testee host: the Python adapter (harness/testees/python/
// serialcheck_testee.py, unchanged) run inside Pyodide, CPython compiled to
// WebAssembly, under Node. One Pyodide per CPython version is installed side
// by side under an npm alias (package.json: "pyodide-3.12": "npm:pyodide@...").
//
// The host loads the chosen Pyodide once, mounts the adapter's folder, this
// folder and every --mount into its file system, and then, for the life of
// the process, cuts the testee protocol (docs/testee-protocol.md) on its real
// standard input into whole messages and hands each, as bytes, to
// pyodide_bridge.handle(), which runs it through the adapter's own serve loop
// and gives back the response bytes. Everything Python or Pyodide prints goes
// to standard error: standard output carries protocol messages only.
//
// The interpreter runs on a worker thread with a large stack (STACK_MB), as
// the adapter runs its serve loop on a thread with a 512 MiB stack: Node's
// main thread has under 1 MiB, and CPython 3.14+ bounds C recursion by its
// own stack pointer only, so a deep value there overflowed V8's stack and
// killed Pyodide where native CPython answers RecursionError. The main
// thread only moves bytes: standard input to the worker, the worker's
// answers to standard output, its prints to standard error.

const fs = require('fs');
const path = require('path');
const url = require('url');
const {EventEmitter} = require('events');
const {Worker, isMainThread, parentPort, workerData} = require('worker_threads');

const HERE = __dirname;
const ADAPTER_DIR = path.resolve(HERE, '..', 'python');
const WASM_ADAPTER_DIR = '/serialcheck/python';
const WASM_BRIDGE_DIR = '/serialcheck/pyodide';

// Exit statuses besides the adapter's own (0, 1 end of input inside a
// message, 2 command line).
const EXIT_UNAVAILABLE = 3;   // the version is not installed or does not start
const EXIT_CRASH = 70;        // the interpreter failed under a request
const STACK_MB = 256;

// Standard output is the protocol's alone: keep its writer, and send whatever
// else would reach it (console.log, a library's process.stdout.write) to
// standard error.
// (On the worker thread process.stdout is the worker's own, which the main
// thread sends to standard error.)
const protocolWrite = isMainThread ? process.stdout.write.bind(process.stdout) : null;
process.stdout.write = function (chunk, encoding, cb) {
  return process.stderr.write(chunk, encoding, cb);
};
for (const name of ['log', 'info', 'debug', 'dir', 'table']) {
  console[name] = console.error.bind(console);
}

function note(text) {
  process.stderr.write('pyodide-host: ' + text + '\n');
}

const USAGE = `usage: node host.js --python X.Y [--mount HOSTDIR=WASMDIR]... [--] ADAPTER_ARGS...
       node host.js --list
       node host.js --help

Serves serialcheck's testee protocol (docs/testee-protocol.md) on standard
input and output for harness/testees/python/serialcheck_testee.py run inside
Pyodide (CPython compiled to WebAssembly) under Node. ADAPTER_ARGS are the
adapter's own options (--preset pickle, --preset pickle-py, --dumps M:A ...;
see serialcheck_testee.py --help); any argument the host does not know, and
everything after --, goes to the adapter.

host options:
  --python X.Y          the CPython version to run: the npm package aliased
                        pyodide-X.Y in this folder's package.json
  --mount HOST=WASM     mount the host directory HOST at the absolute path WASM
                        in Pyodide's file system (NODEFS; repeatable), e.g.
                        --mount /usr/lib/python3/dist-packages=/dist and then
                        --path /dist or --package-dir /dist for the adapter
  --list                print the installed versions, one JSON object a line:
                        {"python": "X.Y", "interpreter": exact CPython version,
                         "pyodide": Pyodide version, "package": npm alias}
  --help                this text

The adapter's folder is mounted at ${WASM_ADAPTER_DIR} and put on sys.path;
paths given to the adapter are paths inside Pyodide. Python's standard output
and error, and Pyodide's messages, go to this process's standard error.

A version that is not installed (or does not start): the host says why in one
line on standard error, answers the hello with an error of kind
"unavailable" (so serialcheck skips the subject with that reason), answers
shutdown and exits 0; when the input ends without a shutdown it exits ${EXIT_UNAVAILABLE}.
Exit statuses: 0 shutdown or end of input, 1 input ended inside a message,
2 bad command line, ${EXIT_UNAVAILABLE} unavailable, ${EXIT_CRASH} the interpreter failed.

Install the versions with: npm ci --prefix harness/testees/pyodide
(scripts/setup does it).
`;

// ---------------------------------------------------------------------------
// Installed versions

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

// [{python, alias, dir}] for every pyodide-X.Y alias package.json names.
function declaredVersions() {
  const deps = readJson(path.join(HERE, 'package.json')).dependencies || {};
  const out = [];
  for (const alias of Object.keys(deps)) {
    const m = /^pyodide-(\d+\.\d+)$/.exec(alias);
    if (m) out.push({python: m[1], alias, dir: path.join(HERE, 'node_modules', alias)});
  }
  const key = (v) => v.python.split('.').map(Number);
  out.sort((a, b) => key(a)[0] - key(b)[0] || key(a)[1] - key(b)[1]);
  return out;
}

// {pyodide, interpreter} of an installed alias, or null.
function installedInfo(entry) {
  let pkg;
  try {
    pkg = readJson(path.join(entry.dir, 'package.json'));
  } catch (e) {
    return null;
  }
  let interpreter = '';
  for (const lock of ['pyodide-lock.json', 'repodata.json']) {
    try {
      interpreter = readJson(path.join(entry.dir, lock)).info.python || '';
      break;
    } catch (e) { /* the other name */ }
  }
  return {pyodide: pkg.version, interpreter};
}

// ---------------------------------------------------------------------------
// Command line

function parseArgs(argv) {
  const opts = {python: null, mounts: [], list: false, help: false, adapter: []};
  let i = 0;
  const value = (name) => {
    if (i + 1 >= argv.length) usageError(name + ' needs a value');
    return argv[++i];
  };
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') { i++; break; }
    if (a === '--python') opts.python = value(a);
    else if (a.startsWith('--python=')) opts.python = a.slice(9);
    else if (a === '--mount') opts.mounts.push(value(a));
    else if (a.startsWith('--mount=')) opts.mounts.push(a.slice(8));
    else if (a === '--list') opts.list = true;
    else if ((a === '--help' || a === '-h') && opts.python === null) opts.help = true;
    else break;  // the adapter's arguments start here
  }
  opts.adapter = argv.slice(i);
  opts.mounts = opts.mounts.map((m) => {
    const eq = m.lastIndexOf('=');
    const host = m.slice(0, eq);
    const wasm = m.slice(eq + 1);
    if (eq <= 0 || !wasm.startsWith('/')) {
      usageError('--mount ' + m + ': expected HOSTDIR=WASMDIR with an absolute WASMDIR');
    }
    return {host: path.resolve(host), wasm};
  });
  return opts;
}

function usageError(text) {
  note(text + ' (see --help)');
  process.exit(2);
}

// ---------------------------------------------------------------------------
// The protocol's framing: whole messages out of the input's chunks

class Framer {
  constructor() {
    this.chunks = [];
    this.size = 0;
  }
  push(chunk) {
    this.chunks.push(chunk);
    this.size += chunk.length;
  }
  // The first n bytes, without taking them, or null while fewer are here.
  peek(n) {
    if (this.size < n) return null;
    if (this.chunks[0].length < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0].subarray(0, n);
  }
  take(n) {
    const out = Buffer.from(this.peek(n));
    const rest = this.chunks[0].subarray(n);
    this.chunks[0] = rest;
    if (!rest.length) this.chunks.shift();
    this.size -= n;
    return out;
  }
}

// The request's op and the frame sizes its document names, as the adapter
// reads them (no frames when "frame_lengths" is not an array of sizes);
// `fallback(doc)` asks Python when JavaScript cannot read the document (a NaN
// literal), so host and adapter never disagree on where the next message
// starts.
function readDocument(doc, fallback) {
  let req;
  try {
    req = JSON.parse(doc.toString('utf8'));
  } catch (e) {
    return fallback ? fallback(doc) : {op: undefined, lengths: []};
  }
  if (req === null || typeof req !== 'object' || Array.isArray(req)) {
    return {op: undefined, lengths: []};
  }
  let lengths = req.frame_lengths === undefined ? [] : req.frame_lengths;
  if (!Array.isArray(lengths) ||
      !lengths.every((v) => typeof v === 'number' && Number.isInteger(v) && v >= 0)) {
    lengths = [];
  }
  return {op: req.op, lengths};
}

function encode(doc) {
  const body = Buffer.from(JSON.stringify(doc), 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32LE(body.length, 0);
  return Buffer.concat([head, body]);
}

// Serves requests from `io.input` (an emitter of 'data' chunks and 'end'):
// answer(message, op) gives the response bytes to each whole request, which
// go to io.write(bytes); io.exit(status) after a shutdown (0) or at the end
// of input (onEnd(insideMessage) gives the status). An answer of null stops
// serving (the answerer has called io.exit).
function serveInput(io, answer, onEnd) {
  const framer = new Framer();
  let stopped = false;
  let pending = null;  // the document read of the message being gathered
  const pump = () => {
    while (!stopped) {
      if (!pending) {
        const head = framer.peek(4);
        if (!head) return;
        const n = head.readUInt32LE(0);
        const doc = framer.peek(4 + n);
        if (!doc) return;
        const read = readDocument(doc.subarray(4), answer.readDocument);
        let total = 4 + n;
        for (const l of read.lengths) total += l;
        pending = {op: read.op, total};
      }
      if (framer.size < pending.total) return;
      const message = framer.take(pending.total);
      const op = pending.op;
      pending = null;
      const response = answer(message, op);
      if (response === null) {
        stopped = true;
        return;
      }
      io.write(response);
      if (op === 'shutdown') {
        stopped = true;
        io.exit(0);
        return;
      }
    }
  };
  io.input.on('data', (chunk) => {
    framer.push(chunk);
    pump();
  });
  io.input.on('end', () => {
    if (!stopped) {
      stopped = true;
      io.exit(onEnd(framer.size > 0));
    }
  });
}

// A host whose interpreter is missing: hello is refused with the reason.
function serveUnavailable(io, reason) {
  note(reason);
  const refusal = {ok: false, error: {kind: 'unavailable', message: reason}};
  serveInput(io, (message, op) => encode(op === 'shutdown' ? {ok: true} : refusal),
             () => EXIT_UNAVAILABLE);
}

// The main thread's standard input and output.
function mainIO() {
  return {
    input: process.stdin,
    write: (bytes) => protocolWrite(bytes),
    exit: (status) => {
      process.stdin.pause();
      protocolWrite('', () => process.exit(status));
    },
  };
}

// ---------------------------------------------------------------------------
// Pyodide

function versionTuple(v) {
  return v.split(/[.-]/).slice(0, 2).map((x) => parseInt(x, 10));
}

async function loadPyodideFrom(entry, info) {
  const [major, minor] = versionTuple(info.pyodide);
  const options = {
    indexURL: entry.dir + path.sep,
    stdin: () => null,
    stdout: (line) => process.stderr.write(line + '\n'),
    stderr: (line) => process.stderr.write(line + '\n'),
  };
  let loadPyodide;
  if (major === 0 && minor < 24) {
    // 0.21 and 0.23 are loaded as CommonJS with an indexURL.
    loadPyodide = require(path.join(entry.dir, 'pyodide.js')).loadPyodide;
  } else {
    loadPyodide = (await import(url.pathToFileURL(path.join(entry.dir, 'pyodide.mjs')).href))
      .loadPyodide;
  }
  const pyodide = await loadPyodide(options);
  // Unbuffered and raw where the version allows it (0.24+): a traceback
  // reaches standard error whole and at once.
  const raw = {write: (buf) => { process.stderr.write(Buffer.from(buf)); return buf.length; }};
  if (typeof pyodide.setStdout === 'function') {
    try {
      pyodide.setStdout(raw);
      pyodide.setStderr(raw);
    } catch (e) { /* keep the line callbacks */ }
  }
  return pyodide;
}

// A Buffer's bytes as a plain Uint8Array (Pyodide does not convert a Buffer:
// "Unknown typed array type").
function plain(buf) {
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
}

function mount(pyodide, hostDir, wasmDir) {
  const FS = pyodide.FS;
  FS.mkdirTree(wasmDir);
  FS.mount(FS.filesystems.NODEFS, {root: hostDir}, wasmDir);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help) {
    protocolWrite(USAGE);
    return;
  }
  const versions = declaredVersions();
  if (opts.list) {
    for (const entry of versions) {
      const info = installedInfo(entry);
      if (!info) continue;
      protocolWrite(JSON.stringify({python: entry.python, interpreter: info.interpreter,
                                    pyodide: info.pyodide, package: entry.alias}) + '\n');
    }
    return;
  }
  if (!opts.python) usageError('--python X.Y is required');
  for (const m of opts.mounts) {
    if (!fs.existsSync(m.host) || !fs.statSync(m.host).isDirectory()) {
      usageError('--mount: ' + m.host + ' is not a directory');
    }
  }
  const entry = versions.find((v) => v.python === opts.python);
  const info = entry && installedInfo(entry);
  if (!info) {
    const known = versions.filter((v) => installedInfo(v)).map((v) => v.python);
    const why = entry
      ? 'Pyodide for Python ' + opts.python + ' (' + entry.alias + ') is not installed: ' +
        'run npm ci --prefix harness/testees/pyodide'
      : 'no Pyodide for Python ' + opts.python + ' is declared in ' +
        'harness/testees/pyodide/package.json';
    serveUnavailable(mainIO(), why + ' (installed: ' + (known.join(', ') || 'none') + ')');
    return;
  }
  startWorker({entry, info, opts});
}

// The main thread's half: bytes in, bytes out.
function startWorker(data) {
  const worker = new Worker(__filename, {
    workerData: data, stdout: true, stderr: true, stdin: false,
    resourceLimits: {stackSizeMb: STACK_MB},
  });
  worker.stdout.pipe(process.stderr);
  worker.stderr.pipe(process.stderr);
  let status = null;  // set by the worker's last word
  worker.on('message', (m) => {
    if (m.type === 'out') {
      protocolWrite(Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength));
    } else if (m.type === 'ready') {
      // Standard input is read only once the interpreter is ready: requests
      // that come meanwhile wait in the pipe.
      process.stdin.on('data', (chunk) => {
        const copy = new Uint8Array(chunk);
        worker.postMessage({type: 'data', data: copy}, [copy.buffer]);
      });
      process.stdin.on('end', () => worker.postMessage({type: 'end'}));
    } else if (m.type === 'exit') {
      status = m.status;
      process.stdin.pause();
      // The worker ends its thread now; one that does not is ended for it.
      setTimeout(() => worker.terminate(), 500).unref();
    }
  });
  worker.on('error', (e) => {
    note('the interpreter failed: ' + (e && e.stack || e));
    if (status === null) status = EXIT_CRASH;
  });
  worker.on('exit', (code) => {
    if (status === null) {
      note('the interpreter thread ended (' + code + ') before the protocol did');
      status = EXIT_CRASH;
    }
    // What the worker printed last reaches standard error before the exit.
    const ended = (stream) => new Promise((resolve) => {
      if (stream.readableEnded) resolve();
      else stream.once('end', resolve).once('close', resolve);
    });
    const done = () => protocolWrite('', () => process.exit(status));
    Promise.all([ended(worker.stdout), ended(worker.stderr)]).then(done);
    setTimeout(done, 500).unref();
  });
}

// The worker thread's half: Pyodide, the bridge, and the protocol's framing.
async function workerMain({entry, info, opts}) {
  const input = new EventEmitter();
  const io = {
    input,
    write: (bytes) => {
      const copy = new Uint8Array(bytes);
      parentPort.postMessage({type: 'out', data: copy}, [copy.buffer]);
    },
    exit: (status) => {
      parentPort.postMessage({type: 'exit', status});
      process.exit(status);
    },
  };
  parentPort.on('message', (m) => {
    if (m.type === 'data') input.emit('data', Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength));
    else if (m.type === 'end') input.emit('end');
  });
  const ready = () => parentPort.postMessage({type: 'ready'});

  let pyodide;
  let bridge;
  try {
    pyodide = await loadPyodideFrom(entry, info);
    mount(pyodide, ADAPTER_DIR, WASM_ADAPTER_DIR);
    mount(pyodide, HERE, WASM_BRIDGE_DIR);
    for (const m of opts.mounts) mount(pyodide, m.host, m.wasm);
    pyodide.runPython(
      'import sys\n' +
      'sys.dont_write_bytecode = True\n' +
      `sys.path[:0] = [${JSON.stringify(WASM_BRIDGE_DIR)}, ${JSON.stringify(WASM_ADAPTER_DIR)}]\n`);
    bridge = pyodide.pyimport('pyodide_bridge');
  } catch (e) {
    serveUnavailable(io, 'Pyodide ' + info.pyodide + ' (Python ' + opts.python +
                     ') does not start: ' + String(e && e.message || e).split('\n')[0]);
    ready();
    return;
  }
  const started = bridge.start(pyodide.toPy(opts.adapter));
  if (started) {
    const r = JSON.parse(started);
    if (r.message) note(r.message);
    io.exit(r.exit);
    return;
  }
  const handle = bridge.handle;
  const pyReadDocument = bridge.read_document;
  // The response bytes, or null when the host must stop (io.exit is called).
  const answer = (message) => {
    let res;
    try {
      res = handle(plain(message));
    } catch (e) {
      note('the interpreter failed under a request: ' + (e && e.stack || e));
      io.exit(EXIT_CRASH);
      return null;
    }
    let out;
    try {
      const buf = res.getBuffer('u8');
      try {
        out = Buffer.from(buf.data);
      } finally {
        buf.release();
      }
    } finally {
      res.destroy();
    }
    if (out.length === 0) {
      // The adapter read less than a whole message: what it does at the end
      // of its input inside one.
      io.exit(1);
      return null;
    }
    return out;
  };
  answer.readDocument = (doc) => JSON.parse(pyReadDocument(plain(doc)));
  serveInput(io, answer, (inside) => (inside ? 1 : 0));
  ready();
}

if (isMainThread) {
  main().catch((e) => {
    note('failed: ' + (e && e.stack || e));
    process.exit(EXIT_CRASH);
  });
} else {
  workerMain(workerData).catch((e) => {
    note('failed: ' + (e && e.stack || e));
    parentPort.postMessage({type: 'exit', status: EXIT_CRASH});
    process.exit(EXIT_CRASH);
  });
}
