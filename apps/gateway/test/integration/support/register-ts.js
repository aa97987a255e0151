// `node -r` hook that runs the repository's TypeScript sources without a build, for the child
// processes of the gateway's integration tests (gateways, keys, chat): each file is transpiled
// alone (no type check; tsc and ts-jest do that) with the workspace's compiler options, @svc/*
// aliases resolve to libs/*/src, and output is cached under tmp/ by content hash.
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const root = path.resolve(__dirname, '../../../../..');
const { compilerOptions } = require(path.join(root, 'tsconfig.base.json'));
const options = {
  ...ts.convertCompilerOptionsFromJson(compilerOptions, root).options,
  module: ts.ModuleKind.CommonJS,
  sourceMap: false,
  inlineSourceMap: true,
  inlineSources: false,
  declaration: false,
  noEmit: false,
};
const cacheDir = path.join(root, 'tmp/register-ts-cache');
const salt = `${ts.version}:${JSON.stringify(options)}`;

require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const hash = crypto.createHash('sha1').update(salt).update(filename).update(source).digest('hex');
  const cached = path.join(cacheDir, `${hash}.js`);
  let code;
  try {
    code = fs.readFileSync(cached, 'utf8');
  } catch {
    code = ts.transpileModule(source, { compilerOptions: options, fileName: filename }).outputText;
    fs.mkdirSync(cacheDir, { recursive: true });
    const tmp = `${cached}.${process.pid}`;
    fs.writeFileSync(tmp, code);
    fs.renameSync(tmp, cached);
  }
  module._compile(code, filename);
};

require('tsconfig-paths').register({ baseUrl: root, paths: compilerOptions.paths, addMatchAll: false });
