// Host processes of the cluster: started detached (they outlive the command), their pids in
// tmp/cluster/run/<name>.pid, their output in tmp/cluster/logs/<name>.log.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { layout } = require('./layout');

const pidPath = (name) => path.join(layout.runDir, `${name}.pid`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function alive(pid) {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function pidOf(name) {
  try {
    return Number(fs.readFileSync(pidPath(name), 'utf8').trim()) || undefined;
  } catch {
    return undefined;
  }
}

const running = (name) => alive(pidOf(name));

/** Starts `command` in a process group of its own, output appended to its log; returns its pid. */
function startProcess(name, command, args, options = {}) {
  fs.mkdirSync(layout.runDir, { recursive: true });
  fs.mkdirSync(layout.logDir, { recursive: true });
  const log = fs.openSync(path.join(layout.logDir, `${name}.log`), 'a');
  const child = spawn(command, args, { detached: true, stdio: ['ignore', log, log], cwd: layout.root, ...options });
  fs.closeSync(log);
  child.unref();
  fs.writeFileSync(pidPath(name), String(child.pid));
  return child.pid;
}

/** Signals the process group (a crash or a stop takes its children too); waits for the leader to exit, SIGKILL after `graceMs`. */
async function stopProcess(name, signal = 'SIGTERM', graceMs = 15_000) {
  const pid = pidOf(name);
  if (alive(pid)) {
    signalGroup(pid, signal);
    for (const deadline = Date.now() + graceMs; alive(pid) && Date.now() < deadline;) await sleep(50);
    if (alive(pid)) signalGroup(pid, 'SIGKILL');
    while (alive(pid)) await sleep(20);
  }
  fs.rmSync(pidPath(name), { force: true });
}

function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/** Waits until `check()` is true, or throws naming `what` (with the end of its log). */
async function waitUntil(what, check, timeoutMs = 30_000, logName = what) {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(100)) {
    if (await check()) return;
  }
  throw new Error(`${what} did not come up within ${timeoutMs / 1000} s; see ${path.join(layout.logDir, `${logName}.log`)}`);
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function listening(port) {
  return new Promise((resolve) => {
    const socket = require('node:net').connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

module.exports = { alive, pidOf, running, startProcess, stopProcess, waitUntil, listening, sleep };
