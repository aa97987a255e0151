// Resolves the @svc/* aliases of tsconfig.base.json inside dist/ at run time (node -r).
const path = require('node:path');
const { register } = require('tsconfig-paths');
const { compilerOptions } = require('../tsconfig.base.json');

register({ baseUrl: path.resolve(__dirname, '../dist'), paths: compilerOptions.paths, addMatchAll: false });
