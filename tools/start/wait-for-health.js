// Polls a health URL until it answers 200, or fails with the last answer after `timeoutMs`.
async function waitForHealth(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(3_000) });
      if (res.status === 200) return;
      last = `HTTP ${res.status} ${await res.text()}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`platform did not become healthy within ${timeoutMs} ms: ${last}`);
}

module.exports = { waitForHealth };
