#!/usr/bin/env node
// Copies exactly what one app runs into a folder, for its container image (infra/docker/Dockerfile):
//   node infra/docker/app-files.js <app> <out>      app: gateway | chat | media | audio | billing | keys | wallet | migrate
// writes <out>/common (the files every long-running app needs: the same bytes for all seven, so
// their images share that layer) and <out>/own (the rest of this app's files). Each holds:
// - compiled code: the app's own dist/ folder whole (its ESM workers and assets are loaded by path),
//   and every dist/ file of libs and tools that the app's files reach through require/import
//   (relative paths and the @svc/* aliases of tsconfig.base.json);
// - node_modules: the packages those files name, and their dependency closure (dependencies,
//   optional and peer dependencies that are installed), resolved as Node resolves them;
// - minus files for other platforms and databases (see PRUNE), which these packages ship but a
//   linux container never loads.
// - data read by path: the files of models/ that the app's engines load (chat: the GGUF and
//   embedding models, media: the image model), the admin console the gateway serves.
// So the gateway carries no inference engine, and each image only what its process can load.
// Prints one line: what was copied.
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const [app, outArg] = process.argv.slice(2);
const APPS = ['gateway', 'chat', 'media', 'audio', 'billing', 'keys', 'wallet', 'migrate'];
if (!APPS.includes(app) || !outArg) {
  process.stderr.write(`usage: app-files.js <${APPS.join('|')}> <out>\n`);
  process.exit(64);
}
const out = path.resolve(outArg);
const dist = path.join(root, 'dist');
const aliases = require(path.join(root, 'tsconfig.base.json')).compilerOptions.paths;

// Paths (relative to node_modules/<package>) never loaded on linux-<arch> with PostgreSQL.
const arch = process.arch;
const PRUNE = {
  'onnxruntime-node': (rel) => /^bin\/napi-v\d+\//.test(rel) && !rel.includes(`/linux/${arch}/`),
  '@prisma/client': (rel) => /^runtime\/.*\.(cockroachdb|mysql|sqlite|sqlserver)\./.test(rel),
};
// GPU builds of llama.cpp: node-llama-cpp falls back to its CPU build without them (infra/docker/README.md, "GPUs").
const SKIP_PACKAGES = new RegExp(`^@node-llama-cpp/(?!linux-${arch}$)`);
// Packages loaded by a computed name (require.resolve(`${pkg}/package.json`)), per code folder.
const LOADED_BY_NAME = { 'libs/ffmpeg/': [`@ffmpeg-installer/linux-${arch}`, `@ffprobe-installer/linux-${arch}`] };
// Files an app reads by path: its models (relative to SVC_MODELS_DIR), the console the gateway serves.
const DATA = {
  gateway: ['dist/console'],
  chat: ['models/svc-tiny-random.gguf', 'models/zoo/chat', 'models/zoo/embeddings'],
  media: ['models/zoo/image'],
};
const SERVICES = APPS.filter((a) => a !== 'migrate');
const SERVED_MODEL_FILE = /\.(gguf|onnx|json|svec)$|\/SHA256SUMS$/;
// Never loaded at run time: source maps, TypeScript sources and declarations, Markdown.
const NOISE = /(^|\/)\.github\/|\.(md|markdown|map|ts|mts|cts|tsbuildinfo)$/i;

const BUILTINS = new Set(require('node:module').builtinModules);
// require('x'), require.resolve('x') and import('x') anywhere; static imports and re-exports at the start of a line (ESM workers).
const SPECIFIER =
  /\b(?:require(?:\.resolve)?|import)\s*\(\s*['"]([^'"\s]+)['"]\s*\)|^\s*(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"\s]+)['"]|^\s*import\s*['"]([^'"\s]+)['"]/gm;

function specifiers(file) {
  const text = fs.readFileSync(file, 'utf8');
  const found = [];
  for (const m of text.matchAll(SPECIFIER)) found.push(m[1] ?? m[2] ?? m[3]);
  return found;
}

function resolveFile(base) {
  for (const candidate of [base, `${base}.js`, `${base}.mjs`, `${base}.cjs`, `${base}.json`, path.join(base, 'index.js')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return null;
}

function resolveAlias(spec) {
  for (const [pattern, targets] of Object.entries(aliases)) {
    const wildcard = pattern.endsWith('/*');
    const prefix = wildcard ? pattern.slice(0, -1) : pattern;
    if (wildcard ? spec.startsWith(prefix) : spec === pattern) {
      const target = wildcard ? targets[0].replace('*', spec.slice(prefix.length)) : targets[0];
      return resolveFile(path.join(dist, target));
    }
  }
  return undefined; // not an alias
}

function walkFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walkFiles(p) : [p];
  });
}

/** Compiled code reachable from the app, and the packages it names. */
function codeOf(name) {
  const appDir = name === 'migrate' ? path.join(dist, 'tools/migrate') : path.join(dist, 'apps', name);
  const files = new Set(walkFiles(appDir));
  const packages = new Set();
  const queue = [...files].filter((f) => /\.(m|c)?js$/.test(f));
  queue.push(path.join(root, 'tools/register-paths.js'), path.join(root, 'infra/docker/healthcheck.js'));
  const seen = new Set();
  while (queue.length > 0) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    files.add(file);
    for (const [folder, names] of Object.entries(LOADED_BY_NAME)) {
      if (path.relative(root, file).includes(folder)) names.forEach((n) => packages.add(n));
    }
    for (const spec of specifiers(file)) {
      if (spec.startsWith('node:') || BUILTINS.has(spec)) continue;
      const target = spec.startsWith('.') ? resolveFile(path.resolve(path.dirname(file), spec)) : resolveAlias(spec);
      if (target === undefined) packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
      else if (target) queue.push(target);
    }
  }
  return { files, packages };
}

function findPackage(name, fromDir) {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === root || dir === path.dirname(dir)) return null;
  }
}

/** The packages' folders and their dependency closure, resolved from each requiring package's folder upwards. */
function packageClosure(name, packages) {
  const dirs = new Set();
  const pending = [...packages].map((p) => [p, root]);
  const missing = [];
  while (pending.length > 0) {
    const [pkg, from] = pending.pop();
    if (SKIP_PACKAGES.test(pkg)) continue;
    const dir = findPackage(pkg, from);
    if (!dir) {
      if (from === root) missing.push(pkg);
      continue;
    }
    if (dirs.has(dir)) continue;
    dirs.add(dir);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const optionalPeers = manifest.peerDependenciesMeta ?? {};
    const peers = Object.keys(manifest.peerDependencies ?? {}).filter((dep) => !optionalPeers[dep]?.optional);
    for (const dep of [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.optionalDependencies ?? {}), ...peers]) {
      pending.push([dep, dir]);
    }
    // A bundled entry file can require packages its manifest does not declare (tfjs: long, seedrandom).
    const entry = typeof manifest.main === 'string' ? resolveFile(path.join(dir, manifest.main)) : resolveFile(path.join(dir, 'index'));
    for (const spec of entry ? specifiers(entry) : []) {
      if (spec.startsWith('.') || spec.startsWith('node:') || BUILTINS.has(spec)) continue;
      const dep = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
      if (findPackage(dep, dir)) pending.push([dep, dir]);
    }
  }
  if (missing.length > 0) {
    process.stderr.write(`app-files: ${name} requires packages that are not installed: ${missing.join(', ')}\n`);
    process.exit(1);
  }
  return dirs;
}

/** Every file one app runs: code, packages (without what PRUNE and NOISE drop), data. */
function filesOf(name) {
  const { files, packages } = codeOf(name);
  for (const dir of packageClosure(name, packages)) {
    const pkg = path.relative(path.join(root, 'node_modules'), dir).split(`${path.sep}node_modules${path.sep}`).pop();
    const prune = PRUNE[pkg];
    const nested = path.join(dir, 'node_modules') + path.sep; // nested packages are packages of their own
    for (const file of walkFiles(dir)) {
      const rel = path.relative(dir, file);
      if (!file.startsWith(nested) && !NOISE.test(rel) && !(prune && prune(rel))) files.add(file);
    }
  }
  for (const data of DATA[name] ?? []) {
    const at = path.join(root, data);
    const served = (f) => !data.startsWith('models/') || SERVED_MODEL_FILE.test(f); // as the Dockerfile's build stage keeps
    (fs.statSync(at).isDirectory() ? walkFiles(at) : [at]).filter(served).forEach((f) => files.add(f));
  }
  return files;
}

const mine = filesOf(app);
const everyone = SERVICES.map(filesOf);
const common = [...everyone[0]].filter((f) => everyone.every((set) => set.has(f)));
const commonSet = new Set(common);
const own = [...mine].filter((f) => !commonSet.has(f));

function copyAll(files, to) {
  let bytes = 0;
  for (const from of files) {
    const target = path.join(to, path.relative(root, from));
    const stat = fs.lstatSync(from);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    if (stat.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(from), target);
    else {
      fs.copyFileSync(from, target);
      fs.chmodSync(target, stat.mode);
      bytes += stat.size;
    }
  }
  return `${files.length} files, ${(bytes / 1e6).toFixed(1)} MB`;
}
fs.mkdirSync(path.join(out, 'common'), { recursive: true });
fs.mkdirSync(path.join(out, 'own'), { recursive: true });
process.stdout.write(`app-files: ${app}: common ${copyAll(common, path.join(out, 'common'))}; own ${copyAll(own, path.join(out, 'own'))}\n`);
