// Jest's node environment with the host's typed-array constructors, and a settlement journal
// directory of each test process's own. Typed arrays: native addons such as
// onnxruntime-node create output tensors in the host realm and check them with `instanceof`
// against the test realm's Float32Array, which fails in the default environment.
const os = require('node:os');
const path = require('node:path');
const { TestEnvironment } = require('jest-environment-node');

const SHARED = [
  'ArrayBuffer',
  'Uint8Array',
  'Int8Array',
  'Uint16Array',
  'Int16Array',
  'Uint32Array',
  'Int32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
];

class SharedTypedArraysEnvironment extends TestEnvironment {
  constructor(config, context) {
    // Settlement journals of services started in a test process stay in that process's own
    // directory: another worker's left-over settlements never replay into this test's billing.
    process.env.SETTLEMENT_JOURNAL_DIR ??= path.join(os.tmpdir(), `svc-test-settlements-${process.pid}`);
    super(config, context);
    for (const name of SHARED) this.global[name] = globalThis[name];
  }
}

module.exports = SharedTypedArraysEnvironment;
