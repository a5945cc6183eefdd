#!/usr/bin/env node
// A serialcheck testee (docs/testee-protocol.md) for JavaScript pickle
// readers: `node testee.js --reader pickleparser|jpickle`. Both libraries
// only read, so this testee answers loads, try-loads and bench-loads, and
// `unsupported` to dumps. It turns what the library returns into the
// canonical JSON form of docs/value-json.md; the README lists what each
// library loses.
'use strict';

// Standard output carries protocol messages only: anything a library logs
// goes to standard error.
const protocolOut = process.stdout;
for (const name of ['log', 'info', 'debug', 'warn', 'trace', 'dir']) {
  console[name] = console.error.bind(console);
}

const SETUP_HINT = 'run scripts/setup (it runs `npm ci --prefix harness/testees/node`)';

// ---------------------------------------------------------------------------
// Values the adapter builds through the libraries' extension points.

// A reduce the library could not turn into a JavaScript value:
// callable(*args), then state, list items and dict items.
class PyObject {
  constructor(callable, args) {
    this.callable = callable;
    this.args = args;
    this.hasState = false;
    this.state = undefined;
    this.listitems = [];
    this.dictitems = [];
  }
  // pickleparser's BUILD calls __setstate__ when the object has one.
  __setstate__(state) {
    if (this.hasState) throw new PickleShapeError('BUILD applied twice to one object');
    this.hasState = true;
    this.state = state;
  }
  // APPEND/APPENDS on an object call push; SETITEM(S) call set (Map mode).
  push(...items) {
    this.listitems.push(...items);
    return this.listitems.length;
  }
  set(key, value) {
    this.dictitems.push([key, value]);
    return this;
  }
  // NEWOBJ_EX: pickleparser constructs with args, then hands the kwargs.
  __setnewargs_ex__(kwargs) {
    const [cls, ...args] = this.args;
    this.callable = internalGlobal('copyreg', '__newobj_ex__');
    this.args = new PyTuple([cls, new PyTuple(args), kwargs]);
  }
}

class PyPersid {
  constructor(pid) {
    this.pid = pid;
  }
}

// An out-of-band buffer handed to loads, returned as a PickleBuffer.
class PyBuffer {
  constructor(bytes, readonly) {
    this.bytes = bytes;
    this.readonly = readonly;
  }
}

// jpickle only: it has one array type for lists and tuples, so tuples stay
// arrays; these tags keep what its emulation hooks can keep apart.
class PyTuple {
  constructor(items) {
    this.items = items;
  }
}
class PyBytes {
  constructor(bytes) {
    this.bytes = bytes;
  }
}
class PyByteArray {
  constructor(bytes) {
    this.bytes = bytes;
  }
}
class PySet {
  constructor(items) {
    this.items = items;
  }
}
class PyFrozenSet {
  constructor(items) {
    this.items = items;
  }
}

class PickleShapeError extends Error {}
class NoValue extends Error {}
class Unsupported extends Error {}

const GLOBAL_NAME = Symbol('python global');

function internalGlobal(module, name) {
  const fn = function () {};
  fn[GLOBAL_NAME] = [module, name];
  return fn;
}

function latin1Bytes(str) {
  for (let i = 0; i < str.length; i++) {
    if (str.charCodeAt(i) > 0xff) return null;
  }
  return Buffer.from(str, 'latin1');
}

// How CPython 3 spells builtin types in the pickles of protocols below the
// ones with opcodes for them (the same table as reference/types): the
// reduce becomes the builtin value when its arguments have the documented
// shape, and stays a generic object otherwise. `make` receives the args array.
function builtinForms(kinds) {
  const forms = {
    '_codecs.encode': (args) => {
      if (args.length !== 2 || typeof args[0] !== 'string' || args[1] !== 'latin1') return undefined;
      const b = latin1Bytes(args[0]);
      return b === null ? undefined : kinds.bytes(b);
    },
    'builtins.bytes': (args) => (args.length === 0 ? kinds.bytes(Buffer.alloc(0)) : undefined),
    'builtins.bytearray': (args) => {
      if (args.length === 0) return kinds.bytearray(Buffer.alloc(0));
      if (args.length === 1 && kinds.isBytes(args[0])) return kinds.bytearray(Buffer.from(kinds.bytesOf(args[0])));
      if (args.length === 2 && typeof args[0] === 'string' && args[1] === 'latin-1') {
        const b = latin1Bytes(args[0]);
        return b === null ? undefined : kinds.bytearray(b);
      }
      return undefined;
    },
    'builtins.set': (args) => (args.length === 1 && kinds.isList(args[0]) ? kinds.set(args[0]) : undefined),
    'builtins.frozenset': (args) =>
      args.length === 1 && kinds.isList(args[0]) ? kinds.frozenset(args[0]) : undefined,
  };
  // Below protocol 3 CPython writes the Python 2 module name.
  for (const n of ['bytes', 'bytearray', 'set', 'frozenset']) forms['__builtin__.' + n] = forms['builtins.' + n];
  return forms;
}

// ---------------------------------------------------------------------------
// The readers.

function loadReaders() {
  const readers = {};

  readers.pickleparser = () => {
    const { Parser } = require('pickleparser');
    const version = require('pickleparser/package.json').version;
    const forms = builtinForms({
      bytes: (b) => new Uint8Array(b),
      bytearray: (b) => new Uint8Array(b),
      isBytes: (v) => v instanceof Uint8Array,
      bytesOf: (v) => v,
      isList: (v) => Array.isArray(v) && !(v instanceof PyTuple),
      set: (items) => new Set(items),
      frozenset: (items) => new Set(items),
    });
    // A global is a function: called (REDUCE) it makes the builtin value or
    // a generic object; constructed (NEWOBJ) it makes copyreg.__newobj__'s
    // object, as CPython's loader would describe it.
    const nameResolver = {
      resolve(module, name) {
        const form = forms[module + '.' + name];
        const fn = function (...args) {
          if (new.target) {
            const obj = new PyObject(internalGlobal('copyreg', '__newobj__'), [fn, ...args]);
            return obj;
          }
          if (form) {
            const v = form(args);
            if (v !== undefined) return v;
          }
          return new PyObject(fn, args);
        };
        fn[GLOBAL_NAME] = [module, name];
        return fn;
      },
    };
    const persistentResolver = { resolve: (pid) => new PyPersid(pid) };
    return {
      name: 'pickleparser',
      version,
      implementation: `pickleparser ${version} on Node.js ${process.versions.node} (dicts as Map, sets as Set)`,
      readProtocols: [0, 1, 2, 3, 4, 5],
      outOfBand: true,
      cannotExpress: ['tuple', 'int-float', 'big-int', 'bytes-bytearray', 'set-frozenset', 'nan-bits', 'immutable-sharing'],
      kinds: ['none', 'bool', 'int', 'float', 'str', 'bytes', 'bytearray', 'list', 'tuple', 'dict', 'set',
        'frozenset', 'global', 'object', 'persid', 'buffer'],
      tuplesAreArrays: true,
      load(frames, writeable) {
        const buffers = frames.slice(1).map((b, i) => new PyBuffer(b, !writeable[i]));
        const parser = new Parser({
          nameResolver,
          persistentResolver,
          unpicklingTypeOfSet: 'Set',
          unpicklingTypeOfDictionary: 'Map',
          buffers: buffers[Symbol.iterator](),
        });
        return parser.parse(frames[0]);
      },
    };
  };

  readers.jpickle = () => {
    const jpickle = require('jpickle');
    const version = require('jpickle/package.json').version;
    const forms = builtinForms({
      bytes: (b) => new PyBytes(b),
      bytearray: (b) => new PyByteArray(b),
      isBytes: (v) => v instanceof PyBytes,
      bytesOf: (v) => v.bytes,
      isList: (v) => Array.isArray(v),
      set: (items) => new PySet(items),
      frozenset: (items) => new PyFrozenSet(items),
    });
    // jpickle's extension point: `emulated['module.name']` is called with
    // the REDUCE arguments as one array. Only the builtin spellings are
    // registered; any other global makes jpickle throw, which this testee
    // answers as unsupported (jpickle exposes no generic form of it).
    for (const [qualified, form] of Object.entries(forms)) {
      jpickle.emulated[qualified] = function (args) {
        if (!Array.isArray(args)) throw new PickleShapeError(`${qualified} called without an argument tuple`);
        const v = form(args);
        if (v === undefined) throw new Unsupported(`${qualified} with arguments this testee has no value for`);
        return v;
      };
    }
    return {
      name: 'jpickle',
      version,
      implementation: `jpickle ${version} on Node.js ${process.versions.node}`,
      readProtocols: [0, 1, 2],
      outOfBand: false,
      cannotExpress: ['tuple', 'int-float', 'big-int', 'nan-bits', 'immutable-sharing'],
      kinds: ['none', 'bool', 'int', 'float', 'str', 'bytes', 'bytearray', 'list', 'tuple', 'dict', 'set',
        'frozenset'],
      tuplesAreArrays: true,
      load(frames) {
        if (frames.length > 1) throw new Unsupported('jpickle has no out-of-band buffers');
        return jpickle.loads(frames[0].toString('latin1'));
      },
    };
  };
  return readers;
}

// ---------------------------------------------------------------------------
// JavaScript value -> canonical JSON text (docs/value-json.md). Iterative, so
// a deeply nested value cannot exhaust the stack.

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function pyFloatRepr(x) {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  // toExponential() without digits gives the shortest digits that read back
  // to the same double, as Python's repr does; only the layout differs.
  const [mantissa, expText] = Math.abs(x).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exp = parseInt(expText, 10);
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const point = exp + 1;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

function numberJson(x) {
  // JavaScript has one number type: an integral number in the exactly
  // representable range is written as an int, everything else as a float
  // (the testee declares int-float and big-int).
  if (Number.isInteger(x) && !Object.is(x, -0) && Math.abs(x) <= 2 ** 53) return String(x);
  return `{"float":${JSON.stringify(pyFloatRepr(x))}}`;
}

function bigintJson(x) {
  if (x >= INT64_MIN && x <= INT64_MAX) return x.toString();
  return `{"int":"${x.toString()}"}`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function hex(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

// UTF-8 with lone surrogates as three-byte sequences (surrogatepass).
function utf8SurrogatePass(s) {
  const out = [];
  for (let i = 0; i < s.length; i++) {
    let cp = s.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < s.length) {
      const lo = s.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        i++;
      }
    }
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return Buffer.from(out).toString('hex');
}

function strJson(s) {
  if (LONE_SURROGATE.test(s)) return `{"str-utf8sp":"${utf8SurrogatePass(s)}"}`;
  return JSON.stringify(s);
}

function isPlainObject(v) {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

// The children of a node in written order, and how to open/close it.
// Returns null for atoms and strings (no identity in JavaScript).
function describe(v, reader) {
  if (typeof v === 'function') {
    const name = v[GLOBAL_NAME];
    if (name) {
      // STACK_GLOBAL takes its names from the stack, so a malformed stream
      // can name a global with anything; CPython refuses that.
      if (typeof name[0] !== 'string' || typeof name[1] !== 'string') {
        throw new PickleShapeError('a global whose module or name is not a str');
      }
      return { tag: 'global', global: name, children: [] };
    }
    throw new Unsupported('a JavaScript function that is no Python global');
  }
  if (v === null || typeof v !== 'object') return null;
  if (Array.isArray(v)) return { tag: 'list', children: v };
  if (v instanceof PyTuple) return { tag: 'tuple', children: v.items };
  if (v instanceof Map) {
    const children = [];
    for (const [k, val] of v) children.push(k, val);
    return { tag: 'dict', children };
  }
  if (v instanceof Set) return { tag: 'set', children: [...v] };
  if (v instanceof PySet) return { tag: 'set', children: v.items };
  if (v instanceof PyFrozenSet) return { tag: 'frozenset', children: v.items };
  if (v instanceof Uint8Array) return { tag: 'bytes', hex: hex(v), children: [] };
  if (v instanceof PyBytes) return { tag: 'bytes', hex: hex(v.bytes), children: [] };
  if (v instanceof PyByteArray) return { tag: 'bytearray', hex: hex(v.bytes), children: [] };
  if (v instanceof PyBuffer) return { tag: 'buffer', hex: hex(v.bytes), readonly: v.readonly, children: [] };
  if (v instanceof PyPersid) return { tag: 'persid', children: [v.pid] };
  if (v instanceof PyObject) {
    const children = [v.callable, v.args instanceof PyTuple ? v.args : new PyTuple(v.args)];
    if (v.hasState) children.push(v.state);
    for (const item of v.listitems) children.push(item);
    for (const [k, val] of v.dictitems) children.push(k, val);
    return { tag: 'object', obj: v, children };
  }
  if (isPlainObject(v)) {
    // jpickle's dicts: JavaScript objects, whose keys are strings.
    const children = [];
    for (const k of Object.keys(v)) children.push(k, v[k]);
    return { tag: 'dict', children };
  }
  throw new Unsupported(`a ${Object.prototype.toString.call(v)} from the reader has no Python counterpart`);
}

function toCanonicalJson(root, reader) {
  if (root === undefined) throw new NoValue('the reader returned no value (empty stack, or input ended without STOP)');
  // Pass 1: which nodes are reached more than once.
  const seen = new Map();
  const pending = [root];
  while (pending.length) {
    const v = pending.pop();
    const d = describe(v, reader);
    if (d === null) continue;
    const count = seen.get(v);
    if (count !== undefined) {
      seen.set(v, count + 1);
      continue;
    }
    seen.set(v, 1);
    for (const c of d.children) pending.push(c);
  }
  // Pass 2: write, pre-order, ids in order of first occurrence.
  const ids = new Map();
  const out = [];
  const work = [{ value: root }];
  const LIT = 0;
  while (work.length) {
    const item = work.pop();
    if (item.lit !== undefined) {
      out.push(item.lit);
      continue;
    }
    const v = item.value;
    if (v === undefined) throw new Unsupported('an undefined slot in what the reader returned');
    if (v === null) {
      out.push('null');
      continue;
    }
    if (typeof v === 'boolean') {
      out.push(v ? 'true' : 'false');
      continue;
    }
    if (typeof v === 'number') {
      out.push(numberJson(v));
      continue;
    }
    if (typeof v === 'bigint') {
      out.push(bigintJson(v));
      continue;
    }
    if (typeof v === 'string') {
      out.push(strJson(v));
      continue;
    }
    if (ids.has(v)) {
      out.push(`{"ref":${ids.get(v)}}`);
      continue;
    }
    const d = describe(v, reader);
    let idText = '';
    if (seen.get(v) > 1) {
      const id = ids.size + 1;
      ids.set(v, id);
      idText = `,"id":${id}`;
    }
    // Push in reverse: the work list is a stack.
    const seq = [];
    const lit = (s) => seq.push({ lit: s });
    const val = (x) => seq.push({ value: x });
    switch (d.tag) {
      case 'global':
        lit(`{"global":[${strJson(d.global[0])},${strJson(d.global[1])}]${idText}}`);
        break;
      case 'bytes':
      case 'bytearray':
        lit(`{"${d.tag}":"${d.hex}"${idText}}`);
        break;
      case 'buffer':
        lit(`{"buffer":"${d.hex}"${idText},"readonly":${d.readonly}}`);
        break;
      case 'persid':
        lit('{"persid":');
        val(d.children[0]);
        lit(`${idText}}`);
        break;
      case 'list':
      case 'tuple':
      case 'set':
      case 'frozenset':
        lit(`{"${d.tag}":[`);
        d.children.forEach((c, i) => {
          if (i) lit(',');
          val(c);
        });
        lit(`]${idText}}`);
        break;
      case 'dict':
        lit('{"dict":[');
        for (let i = 0; i < d.children.length; i += 2) {
          lit(i ? ',[' : '[');
          val(d.children[i]);
          lit(',');
          val(d.children[i + 1]);
          lit(']');
        }
        lit(`]${idText}}`);
        break;
      case 'object': {
        const o = d.obj;
        const [callable, args] = d.children;
        let at = 2;
        lit('{"object":{"callable":');
        val(callable);
        lit(',"args":');
        val(args);
        if (o.hasState) {
          lit(',"state":');
          val(d.children[at++]);
        }
        if (o.listitems.length) {
          lit(',"listitems":[');
          for (let i = 0; i < o.listitems.length; i++) {
            if (i) lit(',');
            val(d.children[at++]);
          }
          lit(']');
        }
        if (o.dictitems.length) {
          lit(',"dictitems":[');
          for (let i = 0; i < o.dictitems.length; i++) {
            lit(i ? ',[' : '[');
            val(d.children[at++]);
            lit(',');
            val(d.children[at++]);
            lit(']');
          }
          lit(']');
        }
        lit(`}${idText}}`);
        break;
      }
      default:
        throw new Unsupported(`no JSON form for ${d.tag}`);
    }
    for (let i = seq.length - 1; i >= 0; i--) work.push(seq[i]);
  }
  void LIT;
  return out.join('');
}

// ---------------------------------------------------------------------------
// Errors -> stable kinds. The libraries throw plain Errors (pickleparser) or
// strings (jpickle); the kind is the failure's name with the varying parts
// (offsets, opcodes, lengths) left out.

const ERROR_PATTERNS = [
  [/Unexpected end of file|Could not find end of line|out of bounds|out of range|Offset is outside/i, 'truncated'],
  [/Unsupported opcode|Unhandled opcode/i, 'unknown-opcode'],
  [/Unsupported protocol version|Unhandled pickle protocol/i, 'unsupported-protocol'],
  [/Insecure string pickle/i, 'insecure-string'],
  [/Value too large/i, 'value-too-large'],
  [/Unregistered extension code/i, 'unregistered-extension'],
  [/out-of-band|not enough out-of-band buffers/i, 'out-of-band'],
];

function errorResponse(err) {
  if (err instanceof Unsupported) return { ok: false, error: { kind: 'unsupported', message: err.message } };
  if (err instanceof NoValue) return { ok: false, error: { kind: 'no-value', message: err.message } };
  if (err instanceof PickleShapeError) return { ok: false, error: { kind: 'bad-pickle', message: err.message } };
  const message = typeof err === 'string' ? err : err && err.message ? err.message : String(err);
  if (/^Cannot emulate global/.test(message)) {
    return { ok: false, error: { kind: 'unsupported', message: `jpickle: ${message}` } };
  }
  for (const [re, kind] of ERROR_PATTERNS) {
    if (re.test(message)) return { ok: false, error: { kind, message } };
  }
  // A JavaScript error inside the library (a TypeError on a malformed
  // stack, a RangeError from a read past the end...): its class is stable.
  const kind = (err instanceof Error && err.constructor.name) || 'Error';
  return { ok: false, error: { kind, message } };
}

// ---------------------------------------------------------------------------
// The protocol loop: u32 length, JSON document, frames.

const MAX_DOCUMENT = 64 * 1024 * 1024;

function send(doc, frames = []) {
  if (frames.length) doc.frame_lengths = frames.map((f) => f.length);
  const body = Buffer.from(typeof doc === 'string' ? doc : JSON.stringify(doc), 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32LE(body.length, 0);
  protocolOut.write(Buffer.concat([head, body, ...frames]));
}

function sendText(text) {
  const body = Buffer.from(text, 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32LE(body.length, 0);
  protocolOut.write(Buffer.concat([head, body]));
}

function parseReaderName(argv) {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--reader' && i + 1 < argv.length) return argv[i + 1];
    if (argv[i].startsWith('--reader=')) return argv[i].slice('--reader='.length);
  }
  return 'pickleparser';
}

function main() {
  const readerName = parseReaderName(process.argv.slice(2));
  let reader = null;
  let unavailable = null;
  const factories = loadReaders();
  if (!Object.prototype.hasOwnProperty.call(factories, readerName)) {
    unavailable = `unknown --reader ${readerName} (pickleparser or jpickle)`;
  } else {
    try {
      reader = factories[readerName]();
    } catch (err) {
      unavailable =
        err && err.code === 'MODULE_NOT_FOUND'
          ? `the npm package ${readerName} is not installed next to testee.js: ${SETUP_HINT}`
          : `cannot start ${readerName}: ${err && err.message}`;
    }
  }

  function handle(doc, frames) {
    const op = doc.op;
    if (op === 'hello') {
      if (unavailable) return send({ ok: false, error: { kind: 'unavailable', message: unavailable } });
      return send({
        ok: true,
        protocol: 1,
        name: reader.name,
        version: reader.version,
        implementation: reader.implementation,
        capabilities: {
          dumps: false,
          loads: true,
          write_protocols: [],
          read_protocols: reader.readProtocols,
          out_of_band: reader.outOfBand,
          limit_loader: false,
          cpython_bytes: false,
          python_values: false,
          try_loads: true,
          cannot_express: reader.cannotExpress,
          kinds: reader.kinds,
        },
      });
    }
    if (op === 'shutdown') {
      send({ ok: true });
      return 'exit';
    }
    if (op !== 'dumps' && op !== 'loads' && op !== 'try-loads' && op !== 'bench') {
      return send({ ok: false, error: { kind: 'bad-request', message: `unknown op ${JSON.stringify(op)}` } });
    }
    if (unavailable) return send({ ok: false, error: { kind: 'unavailable', message: unavailable } });
    if (op === 'try-loads') {
      // Each frame is a pickle of its own, loaded as a loads request would
      // load it (the value turned into JSON too, so that what loads refuses
      // is refused here). Only whether it loaded goes back, or the error
      // loads would have answered.
      const results = frames.map((frame) => {
        try {
          toCanonicalJson(reader.load([frame], []), reader);
          return '{"ok":true}';
        } catch (err) {
          return JSON.stringify(errorResponse(err));
        }
      });
      return sendText(`{"ok":true,"results":[${results.join(',')}]}`);
    }
    const operation = op === 'bench' ? doc.operation : op;
    if (operation === 'dumps') {
      return send({ ok: false, error: { kind: 'unsupported', message: `${reader.name} reads pickles only` } });
    }
    if (operation !== 'loads') {
      return send({ ok: false, error: { kind: 'bad-request', message: `unknown bench operation ${operation}` } });
    }
    if (frames.length < 1) {
      return send({ ok: false, error: { kind: 'bad-request', message: 'loads needs frame 0, the pickle' } });
    }
    const writeable = Array.isArray(doc.writeable) ? doc.writeable : [];
    if (op === 'bench') {
      const iterations = Number.isInteger(doc.iterations) && doc.iterations > 0 ? doc.iterations : 1;
      try {
        reader.load(frames, writeable); // a stream the reader rejects is reported, not timed
        const start = process.hrtime.bigint();
        for (let i = 0; i < iterations; i++) reader.load(frames, writeable);
        const seconds = Number(process.hrtime.bigint() - start) / 1e9;
        return send({ ok: true, iterations, seconds });
      } catch (err) {
        return send(errorResponse(err));
      }
    }
    let text;
    try {
      text = toCanonicalJson(reader.load(frames, writeable), reader);
    } catch (err) {
      return send(errorResponse(err));
    }
    return sendText(`{"ok":true,"value":${text}}`);
  }

  // Exact reads: gather chunks until a whole message (document and frames)
  // is there, then handle it; requests are answered in order. Chunks are
  // joined only once there are as many bytes as the next step needs, so
  // that a request of many megabytes (a try-loads batch) is copied once,
  // not once per chunk.
  let pendingBytes = Buffer.alloc(0);
  let waiting = [];
  let waitingBytes = 0;
  let need = 4;
  let exiting = false;
  process.stdin.on('data', (chunk) => {
    if (exiting) return;
    waiting.push(chunk);
    waitingBytes += chunk.length;
    if (pendingBytes.length + waitingBytes < need) return;
    pendingBytes = Buffer.concat([pendingBytes, ...waiting]);
    waiting = [];
    waitingBytes = 0;
    for (;;) {
      need = 4;
      if (pendingBytes.length < need) return;
      const n = pendingBytes.readUInt32LE(0);
      if (n > MAX_DOCUMENT) {
        process.stderr.write(`testee: request document of ${n} bytes is over the limit\n`);
        process.exit(2);
      }
      need = 4 + n;
      if (pendingBytes.length < need) return;
      let doc;
      try {
        doc = JSON.parse(pendingBytes.subarray(4, 4 + n).toString('utf8'));
      } catch (err) {
        process.stderr.write(`testee: request is not JSON: ${err.message}\n`);
        send({ ok: false, error: { kind: 'bad-request', message: 'the request document is not JSON' } });
        pendingBytes = pendingBytes.subarray(4 + n);
        continue;
      }
      const given = doc !== null && typeof doc === 'object' ? doc.frame_lengths : undefined;
      const lengths = given === undefined ? [] : given;
      if (!Array.isArray(lengths) || !lengths.every((len) => Number.isSafeInteger(len) && len >= 0)) {
        // The frames that follow cannot be found: answer, and read on.
        send({ ok: false, error: { kind: 'bad-request', message: "'frame_lengths' must be an array of sizes" } });
        pendingBytes = pendingBytes.subarray(4 + n);
        continue;
      }
      need = 4 + n + lengths.reduce((a, b) => a + b, 0);
      if (pendingBytes.length < need) return;
      const frames = [];
      let at = 4 + n;
      for (const len of lengths) {
        // A copy: the reader keeps views into its input (pickleparser's
        // bytes are subarrays), and the chunk buffer is reused.
        frames.push(Buffer.from(pendingBytes.subarray(at, at + len)));
        at += len;
      }
      pendingBytes = pendingBytes.subarray(at);
      let result;
      if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
        send({ ok: false, error: { kind: 'bad-request', message: 'the request is not a JSON object' } });
      } else {
        result = handle(doc, frames);
      }
      if (result === 'exit') {
        exiting = true;
        process.stdin.pause();
        protocolOut.write('', () => process.exit(0));
        return;
      }
    }
  });
  process.stdin.on('end', () => {
    if (!exiting) process.exit(0);
  });
}

main();
