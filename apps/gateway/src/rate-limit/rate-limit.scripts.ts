/**
 * Lua run atomically by Redis: a sliding-window log per bucket (a sorted set of the requests in
 * the window, scored by admission time, and a hash of each request's tokens plus their sum under
 * the field "="), and a per-UTC-day counter where an RPD limit applies. Time is Redis's own clock
 * (TIME), so replicas with skewed clocks still share one window. See docs/rate-limits.md.
 *
 * Keys per bucket, in this order: <bucket>:r (zset), <bucket>:t (hash), <bucket>:d (hash d=day, n=count).
 */

const COMMON = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local DAY = 86400000
local SUM = '='

-- Drops the requests that left the window, and their tokens from the sum.
local function prune(r, tk, cutoff)
  while true do
    local old = redis.call('ZRANGEBYSCORE', r, '-inf', cutoff, 'LIMIT', 0, 500)
    if #old == 0 then return end
    local vals = redis.call('HMGET', tk, unpack(old))
    local freed = 0
    for j = 1, #vals do freed = freed + (tonumber(vals[j]) or 0) end
    redis.call('HDEL', tk, unpack(old))
    if freed ~= 0 then redis.call('HINCRBY', tk, SUM, -freed) end
    redis.call('ZREM', r, unpack(old))
    if #old < 500 then return end
  end
end

local function oldest(r)
  local o = redis.call('ZRANGE', r, 0, 0, 'WITHSCORES')
  if #o == 0 then return -1 end
  return tonumber(o[2])
end

local function dayCount(dk, day)
  local v = redis.call('HMGET', dk, 'd', 'n')
  if tonumber(v[1]) == day then return tonumber(v[2]) or 0 end
  return 0
end
`;

/**
 * ARGV: member, cost, window ms, bucket count, hit key id, hit model id, hit tier, log size,
 * log TTL s, then rpm, tpm, rpd per bucket (-1 = no limit). KEYS: 3 per bucket, the log list, and
 * optionally an abuse block key (the caller's check folded into this call, AdmissionGate).
 * Returns: denied bucket (0 = admitted, -1 = the block key is set: nothing counted, retry-at is
 * its value), kind (1 RPM, 2 RPD, 3 TPM, 4 too large), retry-at ms (-1), now, then count, used
 * tokens, day count, oldest ms (-1) per bucket.
 */
export const ADMIT_LUA = `${COMMON}
local member, cost, window, n = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local block = KEYS[3 * n + 2]
if block then
  local lift = redis.call('GET', block)
  if lift then return { -1, 0, tonumber(lift), now } end
end
local cutoff = now - window
local day = math.floor(now / DAY)
local denied, kind, retryAt = 0, 0, -1
local counts, used, days, limits = {}, {}, {}, {}

for i = 1, n do
  local r, tk, dk = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  local a = 9 + 3 * (i - 1)
  local rpm, tpm, rpd = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  limits[i] = { rpm, tpm, rpd }
  prune(r, tk, cutoff)
  counts[i] = redis.call('ZCARD', r)
  used[i] = tonumber(redis.call('HGET', tk, SUM) or '0')
  days[i] = 0
  if rpd >= 0 then days[i] = dayCount(dk, day) end
  if denied == 0 then
    if rpm >= 0 and counts[i] + 1 > rpm then
      denied, kind = i, 1
      -- The slot frees when the (count - rpm + 1)-th oldest request leaves the window.
      local e = redis.call('ZRANGE', r, counts[i] - rpm, counts[i] - rpm, 'WITHSCORES')
      retryAt = tonumber(e[2]) + window
    elseif rpd >= 0 and days[i] + 1 > rpd then
      denied, kind, retryAt = i, 2, (day + 1) * DAY
    elseif tpm >= 0 and cost > 0 and used[i] + cost > tpm then
      denied = i
      if cost > tpm then
        kind = 4
      else
        kind = 3
        -- The request fits once enough of the oldest requests' tokens have left the window.
        local excess, freed = used[i] + cost - tpm, 0
        local entries = redis.call('ZRANGE', r, 0, -1, 'WITHSCORES')
        for j = 1, #entries, 2 do
          freed = freed + (tonumber(redis.call('HGET', tk, entries[j])) or 0)
          retryAt = tonumber(entries[j + 1]) + window
          if freed >= excess then break end
        end
        if retryAt < 0 then retryAt = now + window end
      end
    end
  end
end

if denied > 0 then
  local names = { 'RPM', 'RPD', 'TPM', 'TPM' }
  local log = KEYS[3 * n + 1]
  redis.call('LPUSH', log, cjson.encode({ k = ARGV[5], m = ARGV[6], t = ARGV[7], y = names[kind], at = now }))
  redis.call('LTRIM', log, 0, tonumber(ARGV[8]) - 1)
  redis.call('EXPIRE', log, tonumber(ARGV[9]))
else
  for i = 1, n do
    local r, tk, dk = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
    redis.call('ZADD', r, now, member)
    redis.call('PEXPIRE', r, window + 1000)
    counts[i] = counts[i] + 1
    if cost > 0 then
      redis.call('HSET', tk, member, cost)
      redis.call('HINCRBY', tk, SUM, cost)
      redis.call('PEXPIRE', tk, window + 1000)
      used[i] = used[i] + cost
    end
    if limits[i][3] >= 0 then
      if days[i] == 0 then redis.call('HSET', dk, 'd', day, 'n', 1) else redis.call('HINCRBY', dk, 'n', 1) end
      redis.call('EXPIRE', dk, 172800)
      days[i] = days[i] + 1
    end
  end
end

local out = { denied, kind, retryAt, now }
for i = 1, n do
  out[#out + 1] = counts[i]
  out[#out + 1] = used[i]
  out[#out + 1] = days[i]
  out[#out + 1] = oldest(KEYS[3 * i - 2])
end
return out
`;

/**
 * ARGV: member, tokens (-1 releases the request: it leaves the window and the day count), bucket count.
 * KEYS: 3 per bucket. A request that already left the window is not touched.
 */
export const SETTLE_LUA = `${COMMON}
local member, tokens, n = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
for i = 1, n do
  local r, tk, dk = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  if tokens < 0 then
    local score = redis.call('ZSCORE', r, member)
    if score then
      redis.call('ZREM', r, member)
      local v = tonumber(redis.call('HGET', tk, member) or '0')
      if v ~= 0 then
        redis.call('HDEL', tk, member)
        redis.call('HINCRBY', tk, SUM, -v)
      end
      if dayCount(dk, math.floor(tonumber(score) / DAY)) > 0 then redis.call('HINCRBY', dk, 'n', -1) end
    end
  else
    local v = redis.call('HGET', tk, member)
    if v and tonumber(v) ~= tokens then
      redis.call('HSET', tk, member, tokens)
      redis.call('HINCRBY', tk, SUM, tokens - tonumber(v))
    end
  end
end
return 1
`;

/** ARGV: window ms, bucket count, then rpd per bucket. KEYS: 3 per bucket. Returns now, then the state per bucket. */
export const PEEK_LUA = `${COMMON}
local window, n = tonumber(ARGV[1]), tonumber(ARGV[2])
local day = math.floor(now / DAY)
local out = { 0, 0, -1, now }
for i = 1, n do
  local r, tk, dk = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  prune(r, tk, now - window)
  out[#out + 1] = redis.call('ZCARD', r)
  out[#out + 1] = tonumber(redis.call('HGET', tk, SUM) or '0')
  out[#out + 1] = tonumber(ARGV[2 + i]) >= 0 and dayCount(dk, day) or 0
  out[#out + 1] = oldest(r)
end
return out
`;
