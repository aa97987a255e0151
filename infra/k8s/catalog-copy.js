#!/usr/bin/env node
// The Kubernetes base's catalog, base/config/models.yaml, is generated from config/models.yaml:
// kustomize refuses files outside the kustomization's folder (its default load restrictions, also
// through a symlink), so the base carries a copy. The copy is this header, then config/models.yaml
// byte for byte: no model, price or URL differs (the shipped catalog has only embedded models, and
// an environment-specific value belongs in it as a ${VAR} the pods' environment fills).
// validate.js fails when the copy is not exactly that; infra/k8s/README.md, "Catalog", says more.
//   node infra/k8s/catalog-copy.js                        writes base/config/models.yaml
//   node infra/k8s/catalog-copy.js --check [source] [copy]  exit 1 when the copy differs
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
const SOURCE = path.join(ROOT, 'config/models.yaml');
const COPY = path.join(__dirname, 'base/config/models.yaml');

const HEADER = [
  '# GENERATED from config/models.yaml by `node infra/k8s/catalog-copy.js`: do not edit here (infra/k8s/validate.js',
  '# fails when this file is not that header plus config/models.yaml). Change config/models.yaml and rerun the script,',
  '# or give an overlay its own catalog (configMapGenerator svc-catalog with behavior: replace).',
  '',
].join('\n');

/** What the copy must hold, given the text of config/models.yaml. */
const copyOf = (source) => `${HEADER}${source}`;

/** Null when `copy` is the generated form of `source`, else why not (an error message to put after the copy's path). */
function copyProblem(source = SOURCE, copy = COPY) {
  const want = copyOf(fs.readFileSync(source, 'utf8'));
  const have = fs.existsSync(copy) ? fs.readFileSync(copy, 'utf8') : undefined;
  if (have === want) return null;
  if (have === undefined) return 'missing (run node infra/k8s/catalog-copy.js)';
  const [a, b] = [have.split('\n'), want.split('\n')];
  let line = 0;
  while (line < a.length && a[line] === b[line]) line++;
  return `not the generated copy of ${rel(source)}: differs at line ${line + 1} (run node infra/k8s/catalog-copy.js)`;
}

function rel(file) {
  return path.relative(process.cwd(), file) || file;
}

module.exports = { copyOf, copyProblem, SOURCE, COPY };

if (require.main === module) {
  const args = process.argv.slice(2);
  const [source = SOURCE, copy = COPY] = args.filter((a) => !a.startsWith('--')).map((p) => path.resolve(p));
  if (args.includes('--check')) {
    const problem = copyProblem(source, copy);
    if (problem) {
      process.stderr.write(`${rel(copy)}: ${problem}\n`);
      process.exit(1);
    }
    process.stdout.write(`${rel(copy)} is config/models.yaml's copy\n`);
  } else {
    fs.writeFileSync(copy, copyOf(fs.readFileSync(source, 'utf8')));
    process.stdout.write(`wrote ${rel(copy)} from ${rel(source)}\n`);
  }
}
