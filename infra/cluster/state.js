// Which PostgreSQL server is the primary: pg1 until a failover promotes pg2 (and back).
const fs = require('node:fs');
const { layout } = require('./layout');

function readState() {
  try {
    return JSON.parse(fs.readFileSync(layout.statePath, 'utf8'));
  } catch {
    return { primary: 'pg1', standby: 'pg2' };
  }
}

function writeState(state) {
  fs.mkdirSync(layout.dir, { recursive: true });
  fs.writeFileSync(layout.statePath, `${JSON.stringify(state, null, 2)}\n`);
}

module.exports = { readState, writeState };
