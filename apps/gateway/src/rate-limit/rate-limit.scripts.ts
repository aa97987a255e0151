/**
 * Lua run atomically by Redis: a sliding-window log per bucket (a sorted set of the requests in
 * the window, scored by admission time, and a hash of each request's tokens plus their sum under
 * the field "="), and a per-UTC-day counter where an RPD limit applies. Time is Redis's own clock
 * (TIME), so replicas with skewed clocks still share one window. See docs/rate-limits.md.
 *
 * Keys per bucket, in this order: <bucket>:r (zset), <bucket>:t (hash), <bucket>:d (hash d=day, n=count),
 * <bucket>:l (hash: open lease id -> its grant time).
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
 * log TTL s, then rpm, tpm, rpd per bucket (-1 = no limit), then the lease asked for: id ('' for
 * none), most slots, share divisor, lease lifetime ms, fewest slots worth a lease (and its tokens
 * must cover the admitted request's cost). KEYS: 4 per bucket, the log list, and
 * optionally an abuse block key (the caller's check folded into this call, AdmissionGate).
 * Returns: denied bucket (0 = admitted, -1 = the block key is set: nothing counted, retry-at is
 * its value), kind (1 RPM, 2 RPD, 3 TPM, 4 too large), retry-at ms (-1), now, then count, used
 * tokens, day count, oldest ms (-1) per bucket (the admitted request counted, a granted lease's
 * slots not), then the lease granted: slots (0 = none), tokens (-1 = no token limit), and
 * whether a refusal may be cured by the close of another replica's open lease (1) or not (0).
 *
 * A lease (docs/rate-limits.md, "Leases"): slots members '<id>:<s>' scored now (and the lease's
 * tokens on slot 1) are counted in every bucket as if admitted, so every window holds at most the
 * limit whatever the leaseholder admits from them; its close rescores the used slots to their
 * admission times and removes the unused ones. Granted only when every limit has at least
 * divisor x slots left, so leases exist only far from the limit.
 */
export const ADMIT_LUA = `${COMMON}
local member, cost, window, n = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local block = KEYS[4 * n + 2]
if block then
  local lift = redis.call('GET', block)
  if lift then return { -1, 0, tonumber(lift), now } end
end
local cutoff = now - window
local day = math.floor(now / DAY)
local denied, kind, retryAt = 0, 0, -1
local counts, used, days, limits = {}, {}, {}, {}

for i = 1, n do
  local r, tk, dk = KEYS[4 * i - 3], KEYS[4 * i - 2], KEYS[4 * i - 1]
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
  local log = KEYS[4 * n + 1]
  redis.call('LPUSH', log, cjson.encode({ k = ARGV[5], m = ARGV[6], t = ARGV[7], y = names[kind], at = now }))
  redis.call('LTRIM', log, 0, tonumber(ARGV[8]) - 1)
  redis.call('EXPIRE', log, tonumber(ARGV[9]))
else
  for i = 1, n do
    local r, tk, dk = KEYS[4 * i - 3], KEYS[4 * i - 2], KEYS[4 * i - 1]
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
  out[#out + 1] = oldest(KEYS[4 * i - 3])
end

local leaseId = ARGV[10 + 3 * n] or ''
local slots, tokens, cured = 0, -1, 0
if denied > 0 and kind ~= 4 then
  -- Another replica's open lease holds slots it may not use: the refusal may not stand once it closes.
  local lk = KEYS[4 * denied]
  local life = tonumber(ARGV[13 + 3 * n] or '0')
  local open = redis.call('HGETALL', lk)
  for j = 1, #open, 2 do
    if tonumber(open[j + 1]) > now - 2 * life then cured = 1 else redis.call('HDEL', lk, open[j]) end
  end
elseif denied == 0 and leaseId ~= '' then
  local most, share, life = tonumber(ARGV[11 + 3 * n]), tonumber(ARGV[12 + 3 * n]), tonumber(ARGV[13 + 3 * n])
  slots = most
  for i = 1, n do
    local rpm, tpm, rpd = limits[i][1], limits[i][2], limits[i][3]
    if rpm >= 0 then slots = math.min(slots, math.floor((rpm - counts[i]) / share)) end
    if rpd >= 0 then slots = math.min(slots, math.floor((rpd - days[i]) / share)) end
    if tpm >= 0 then
      local t = math.floor((tpm - used[i]) / share)
      if tokens < 0 or t < tokens then tokens = t end
    end
  end
  if slots < tonumber(ARGV[14 + 3 * n]) or (tokens >= 0 and tokens < math.max(cost, 1)) then
    slots, tokens = 0, -1
  else
    local zargs = {}
    for s = 1, slots do
      zargs[#zargs + 1] = now
      zargs[#zargs + 1] = leaseId .. ':' .. s
    end
    for i = 1, n do
      local r, tk, dk, lk = KEYS[4 * i - 3], KEYS[4 * i - 2], KEYS[4 * i - 1], KEYS[4 * i]
      redis.call('ZADD', r, unpack(zargs))
      if tokens > 0 then
        redis.call('HSET', tk, leaseId .. ':1', tokens)
        redis.call('HINCRBY', tk, SUM, tokens)
        redis.call('PEXPIRE', tk, window + 1000)
      end
      if limits[i][3] >= 0 then redis.call('HINCRBY', dk, 'n', slots) end
      redis.call('HSET', lk, leaseId, now)
      redis.call('PEXPIRE', lk, window + 1000)
    end
  end
end
out[#out + 1] = slots
out[#out + 1] = tokens
out[#out + 1] = cured
return out
`;

/**
 * Closes a lease. ARGV: lease id, slots, the grant's time (ms), bucket count, then per slot its
 * admission time (ms, Redis's clock; -1 = not used or released) and its tokens. KEYS: 4 per
 * bucket. A slot that already left the window is not touched.
 */
export const CLOSE_LUA = `${COMMON}
local leaseId, slots, grantedAt, n = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
for i = 1, n do
  local r, tk, dk, lk = KEYS[4 * i - 3], KEYS[4 * i - 2], KEYS[4 * i - 1], KEYS[4 * i]
  local unused, delta = 0, 0
  for s = 1, slots do
    local m = leaseId .. ':' .. s
    local at, tokens = tonumber(ARGV[3 + 2 * s]), tonumber(ARGV[4 + 2 * s])
    if redis.call('ZSCORE', r, m) then
      local old = tonumber(redis.call('HGET', tk, m) or '0')
      if at < 0 then
        redis.call('ZREM', r, m)
        unused = unused + 1
        tokens = 0
      else
        redis.call('ZADD', r, 'XX', at, m)
      end
      if tokens ~= old then
        if tokens > 0 then redis.call('HSET', tk, m, tokens) else redis.call('HDEL', tk, m) end
        delta = delta + tokens - old
      end
    end
  end
  if delta ~= 0 then redis.call('HINCRBY', tk, SUM, delta) end
  if unused > 0 and dayCount(dk, math.floor(grantedAt / DAY)) >= unused then redis.call('HINCRBY', dk, 'n', -unused) end
  redis.call('HDEL', lk, leaseId)
end
return 1
`;

/**
 * ARGV: member, tokens (-1 releases the request: it leaves the window and the day count), bucket count.
 * KEYS: 4 per bucket. A request that already left the window is not touched.
 */
export const SETTLE_LUA = `${COMMON}
local member, tokens, n = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
for i = 1, n do
  local r, tk, dk = KEYS[4 * i - 3], KEYS[4 * i - 2], KEYS[4 * i - 1]
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

/** ARGV: window ms, bucket count, then rpd per bucket. KEYS: 4 per bucket. Returns now, then the state per bucket. */
export const PEEK_LUA = `${COMMON}
local window, n = tonumber(ARGV[1]), tonumber(ARGV[2])
local day = math.floor(now / DAY)
local out = { 0, 0, -1, now }
for i = 1, n do
  local r, tk, dk = KEYS[4 * i - 3], KEYS[4 * i - 2], KEYS[4 * i - 1]
  prune(r, tk, now - window)
  out[#out + 1] = redis.call('ZCARD', r)
  out[#out + 1] = tonumber(redis.call('HGET', tk, SUM) or '0')
  out[#out + 1] = tonumber(ARGV[2 + i]) >= 0 and dayCount(dk, day) or 0
  out[#out + 1] = oldest(r)
end
return out
`;
