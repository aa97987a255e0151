// Import rules a linter keeps (`npm run lint`, `npm run lint:imports`): no circles between files in
// apps/ and libs/, and the gateway's floors (apps/gateway/README.md, "Floors"): a file imports only
// its own floor or the floors below it. Type-only imports count: a type circle is still a circle.

const SRC = '^apps/gateway/src/';

/** The gateway's floors, top first; the README explains each. Patterns are disjoint. */
const FLOORS = [
  ['assembly', [`${SRC}(main|app\\.module)\\.ts$`, `${SRC}app/`]],
  ['docs', [`${SRC}openapi/`]],
  [
    'routes',
    [
      `${SRC}(chat|responses|completions|embeddings|rerank|moderations|image|audio|video|augment|batches|characters|api-keys|web3-keys|crypto-rpc|health|console)/`,
    ],
  ],
  // admission.module.ts wires the stages into AdmissionService: it stands on the stages' floor.
  ['stages', [`${SRC}(billing|rate-limit|x402|abuse)/`, `${SRC}admission/admission\\.module\\.ts$`]],
  ['admission', [`${SRC}admission/(?!admission\\.module\\.ts$)`]],
  ['platform', [`${SRC}(http|auth|models|metrics|redis|cluster)/`]],
  ['base', [`${SRC}(config|logger\\.token)\\.ts$`]],
];

const TESTS = '\\.(spec|int-spec|e2e-spec)\\.ts$';

const floorRules = FLOORS.slice(1).map(([name, paths], i) => ({
  name: `gateway-floor-${name}`,
  comment: `apps/gateway: the ${name} floor imports only its own floor and those below (README, "Floors").`,
  severity: 'error',
  from: { path: paths, pathNot: TESTS },
  to: { path: FLOORS.slice(0, i + 1).flatMap(([, above]) => above) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Files in apps/ and libs/ import one another in one direction only.',
      severity: 'error',
      from: { path: '^(apps|libs)/' },
      to: { circular: true },
    },
    {
      name: 'gateway-floors-known',
      comment: 'apps/gateway: every folder of src/ is on a floor (a new folder is added to FLOORS).',
      severity: 'error',
      from: { path: `${SRC}`, pathNot: [TESTS, ...FLOORS.flatMap(([, paths]) => paths)] },
      to: {},
    },
    ...floorRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)node_modules/', '^dist/', '/generated/', '^apps/console/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Only what the rules need: no module-system detection beyond ES modules and CommonJS.
    moduleSystems: ['es6', 'cjs'],
  },
};
