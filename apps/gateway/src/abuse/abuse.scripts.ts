/**
 * One failed request of a caller, atomically: already blocked callers are not counted again;
 * otherwise the failure joins a sliding window (sorted set by Redis time), and more than the
 * maximum inside the window sets the block (a key with the lift time, expiring then) and starts
 * a fresh window. A block of an API key is also written to its account's rate-limit log.
 *
 * KEYS: failures zset, block key, the account's log list (unused for addresses).
 * ARGV: window ms, max failures, block ms, member, key id ('' for an address), model id, tier, log size, log TTL s.
 * Returns: { 0, failures in window, now } | { 1 (blocked now), lift time ms, now } | { 2 (already blocked), lift time ms, now }.
 */
export const FAIL_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window, max, blockMs = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local blocked = redis.call('GET', KEYS[2])
if blocked then return { 2, tonumber(blocked), now } end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZADD', KEYS[1], now, ARGV[4])
local n = redis.call('ZCARD', KEYS[1])
if n > max then
  local liftAt = now + blockMs
  redis.call('SET', KEYS[2], liftAt, 'PX', blockMs)
  redis.call('DEL', KEYS[1])
  if ARGV[5] ~= '' then
    redis.call('LPUSH', KEYS[3], cjson.encode({ k = ARGV[5], m = ARGV[6], t = ARGV[7], y = 'FAILED_REQUESTS', at = now }))
    redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[8]) - 1)
    redis.call('EXPIRE', KEYS[3], tonumber(ARGV[9]))
  end
  return { 1, liftAt, now }
end
redis.call('PEXPIRE', KEYS[1], window)
return { 0, n, now }
`;
