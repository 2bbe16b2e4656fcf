/** The Lua preamble of every script: Redis's clock in ms, the GCRAs of `gcra`, `gcraTokens`, `gcraSettle` (src/store/), the budgets' calendar (`budgetPeriods`). */
const COMMON = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local period = tonumber(ARGV[2])
local function gcra(key, limit)
  local interval = period / limit
  local from = now
  local stored = tonumber(redis.call('GET', key))
  if stored and stored > now then from = stored end
  local nxt = from + interval
  if nxt - now > period + 0.01 then
    return false, from, 0, math.ceil(from - now), math.ceil(nxt - period - now)
  end
  return true, nxt, math.floor((period + 0.01 - (nxt - now)) / interval), math.ceil(nxt - now), 0
end
local function gcraTokens(key, limit, cost)
  local interval = period / limit
  local from = now
  local stored = tonumber(redis.call('GET', key))
  if stored and stored > now then from = stored end
  if from - now > 0.01 then
    local wait = math.ceil(from - now)
    return false, from, math.max(0, math.floor(limit - (from - now) / interval + 0.01)), wait, wait
  end
  local nxt = from + cost * interval
  return true, nxt, math.max(0, math.floor(limit - (nxt - now) / interval + 0.01)), math.ceil(nxt - now), 0
end
local function store(key, tat)
  if tat > now then redis.call('SET', key, string.format('%.3f', tat), 'PX', math.max(1, math.ceil(tat - now))) else redis.call('DEL', key) end
end
local function periods()
  local day = math.floor(now / 86400000)
  local z = day + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local m = mp + 3
  if mp >= 10 then m = mp - 9 end
  local y = yoe + era * 400
  if m <= 2 then y = y + 1 end
  local ny, nm = y, m + 1
  if nm > 12 then ny, nm = y + 1, 1 end
  local yy = ny
  if nm <= 2 then yy = yy - 1 end
  local era2 = math.floor(yy / 400)
  local yoe2 = yy - era2 * 400
  local mm = nm + 9
  if nm > 2 then mm = nm - 3 end
  local doe2 = yoe2 * 365 + math.floor(yoe2 / 4) - math.floor(yoe2 / 100) + math.floor((153 * mm + 2) / 5)
  local firstNext = era2 * 146097 + doe2 - 719468
  return day, y * 12 + m - 1, (day + 1) * 86400000, firstNext * 86400000
end
local function used(key, day, month)
  local b = redis.call('HMGET', key, 'd', 'du', 'm', 'mu')
  local du, mu = 0, 0
  if tonumber(b[1]) == day then du = tonumber(b[2]) or 0 end
  if tonumber(b[3]) == month then mu = tonumber(b[4]) or 0 end
  return du, mu
end
local function charge(key, day, month, du, mu)
  redis.call('HSET', key, 'd', day, 'du', du, 'm', month, 'mu', mu)
  redis.call('PEXPIRE', key, 2764800000)
end`;

/**
 * The Lua scripts of the Redis rate-limit store, on Redis's own clock (`TIME`: the processes' clocks never enter a
 * decision). Each touches only one client's keys (`<prefix>rl:{<hash>}:…`: one hash tag, hence one Cluster slot):
 *
 * - `:rate` — the requests' GCRA (`gcra` of src/store/gcra.ts, the same arithmetic): the theoretical arrival time in ms
 *   (a string with 3 decimals, expiring when the quota is whole again);
 * - `:places` — the requests running: a sorted set of request ids scored by their expiry (ms), the expired ones dropped
 *   at each decision, the set itself expiring with its last place;
 * - `:tpm`, `:tpm:<model hash>` — the tokens' GCRAs (`gcraTokens`, weighted: a request costs its tokens), as `:rate`;
 * - `:budget` — the budgets used: a hash of the UTC day and month they count (`d`, `m`) and the tokens of each (`du`,
 *   `mu`), a new period starting from 0 (the calendar of `budgetPeriods`, computed from `TIME`);
 * - `:resv`, `:resvx` — the token reservations of running requests: id → tokens, and id scored by its expiry. An
 *   expired one (its process died) is charged to the budget at its estimate by the next decision. Both live as long
 *   as `:budget` (32 days after the last write), so a reservation is never lost uncharged;
 * - `:adm:<request id>` — what an admission took (its tokens), for its `abort`; expires with its place's TTL.
 */
export const RATE_LIMIT_SCRIPTS = {
  /**
   * One admission. KEYS rate, places, tpm, tpm of the model, budget, resv, resvx, adm (this admission's record, for
   * `abort`). ARGV requestsPerMinute ('' = none),
   * periodMs, maxConcurrent ('' = none), placeId, placeTtlMs, tokensPerMinute ('' = none), tokens ('' = not weighed),
   * modelTokensPerMinute ('' = none), tokensPerDay ('' = none), tokensPerMonth ('' = none). Returns {allowed (1|0),
   * refusedBy (0 none, 1 requests, 2 concurrency, 3 tokens, 4 budget), remaining (-1: no rate), resetMs, retryAfterMs,
   * placesLeft (-1: no concurrency limit), tokensRemaining (-1: none), tokensResetMs, budgetRemaining (-1: none),
   * budgetResetMs, expired reservations charged}.
   */
  admit: `${COMMON}
local rate = tonumber(ARGV[1])
local max = tonumber(ARGV[3])
local ttl = tonumber(ARGV[5])
local tpm = tonumber(ARGV[6])
local cost = tonumber(ARGV[7])
local mtpm = tonumber(ARGV[8])
local perDay = tonumber(ARGV[9])
local perMonth = tonumber(ARGV[10])
local expired = 0
local du, mu, day, month, dayEnd, monthEnd = 0, 0, 0, 0, 0, 0
local budgets = cost and (perDay or perMonth)
if budgets then
  day, month, dayEnd, monthEnd = periods()
  du, mu = used(KEYS[5], day, month)
  local dead = redis.call('ZRANGEBYSCORE', KEYS[7], '-inf', now)
  for _, id in ipairs(dead) do
    local amount = tonumber(redis.call('HGET', KEYS[6], id)) or 0
    du, mu = du + amount, mu + amount
    redis.call('HDEL', KEYS[6], id)
    expired = expired + 1
  end
  if expired > 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[7], '-inf', now)
    charge(KEYS[5], day, month, du, mu)
  end
end
local held = 0
if max then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  held = redis.call('ZCARD', KEYS[2])
  if held >= max then return {0, 2, -1, 0, 0, 0, -1, 0, -1, 0, expired} end
end
local placesLeft = -1
if max then placesLeft = max - held - 1 end
local remaining, reset = -1, 0
local rateTat
if rate then
  local ok, tat, left, rs, retry = gcra(KEYS[1], rate)
  remaining, reset = left, rs
  if not ok then
    if max then placesLeft = max - held end
    return {0, 1, remaining, reset, retry, placesLeft, -1, 0, -1, 0, expired}
  end
  rateTat = tat
end
local tRemaining, tReset = -1, 0
local tpmTat, mtpmTat
for i, limit in ipairs({tpm or false, mtpm or false}) do
  if cost and limit then
    local ok, tat, left, rs, retry = gcraTokens(KEYS[2 + i], limit, cost)
    if tRemaining < 0 or left < tRemaining then tRemaining = left end
    if rs > tReset then tReset = rs end
    if not ok then
      if max then placesLeft = max - held end
      return {0, 3, remaining, reset, retry, placesLeft, tRemaining, tReset, -1, 0, expired}
    end
    if i == 1 then tpmTat = tat else mtpmTat = tat end
  end
end
local bRemaining, bReset = -1, 0
if budgets then
  local pending = 0
  for _, v in ipairs(redis.call('HVALS', KEYS[6])) do pending = pending + (tonumber(v) or 0) end
  for _, q in ipairs({{perDay or false, du, dayEnd}, {perMonth or false, mu, monthEnd}}) do
    local limit, spent, ends = q[1], q[2], q[3]
    if limit then
      if spent + pending + cost > limit then
        if max then placesLeft = max - held end
        return {0, 4, remaining, reset, ends - now, placesLeft, tRemaining, tReset, math.max(0, limit - spent - pending), ends - now, expired}
      end
      local left = limit - spent - pending - cost
      if bRemaining < 0 or left < bRemaining then bRemaining = left end
      if ends - now > bReset then bReset = ends - now end
    end
  end
  redis.call('HSET', KEYS[6], ARGV[4], cost)
  redis.call('ZADD', KEYS[7], now + ttl, ARGV[4])
  -- the ledger lives as long as the budget it is charged to (a dead process's reservation is charged, not lost)
  redis.call('PEXPIRE', KEYS[6], 2764800000)
  redis.call('PEXPIRE', KEYS[7], 2764800000)
end
if rateTat then store(KEYS[1], rateTat) end
if tpmTat then store(KEYS[3], tpmTat) end
if mtpmTat then store(KEYS[4], mtpmTat) end
if max then
  redis.call('ZADD', KEYS[2], now + ttl, ARGV[4])
  if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
end
-- what this admission took, for an \`abort\` of a caller that stopped waiting for this reply
redis.call('SET', KEYS[8], cost or 0, 'PX', ttl)
return {1, 0, remaining, reset, 0, placesLeft, tRemaining, tReset, bRemaining, bReset, expired}`,
  /**
   * One settlement. KEYS as `admit` (its record dropped). ARGV placeId, periodMs, tokensPerMinute ('' = none), modelTokensPerMinute ('' =
   * none), budgets (1|0), reserved, used. Frees the place, moves the GCRAs by used − reserved (`gcraSettle`), charges
   * the budget what was used (a reservation swept already, charged at its estimate: the difference). Returns 1.
   */
  settle: `${COMMON}
local tpm = tonumber(ARGV[3])
local mtpm = tonumber(ARGV[4])
local reserved = tonumber(ARGV[6])
local spent = tonumber(ARGV[7])
local delta = spent - reserved
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[8])
for i, limit in ipairs({tpm or false, mtpm or false}) do
  if limit and delta ~= 0 then
    local interval = period / limit
    local stored = tonumber(redis.call('GET', KEYS[2 + i])) or now
    local tat
    if delta >= 0 then tat = math.max(stored, now) + delta * interval else tat = math.max(now, stored + delta * interval) end
    store(KEYS[2 + i], tat)
  end
end
if ARGV[5] == '1' then
  local day, month = periods()
  local du, mu = used(KEYS[5], day, month)
  local amount = spent
  if redis.call('HDEL', KEYS[6], ARGV[1]) == 0 then amount = delta end
  redis.call('ZREM', KEYS[7], ARGV[1])
  charge(KEYS[5], day, month, du + amount, mu + amount)
end
return 1`,
  /**
   * Undoes an admission its caller stopped waiting for (timed out: the store's failure policy applied instead), if it
   * was admitted — its record `adm` says so, and what it reserved: frees its place and its reservation, gives back its
   * request (the rate's GCRA moved back one interval) and its tokens (the GCRAs moved back by them). KEYS as `admit`.
   * ARGV placeId, periodMs, requestsPerMinute ('' = none), tokensPerMinute ('' = none), modelTokensPerMinute ('' =
   * none). Returns 1 when it undid an admission, else 0 (refused, never run, or settled).
   */
  abort: `${COMMON}
local took = redis.call('GET', KEYS[8])
if not took then return 0 end
redis.call('DEL', KEYS[8])
local cost = tonumber(took) or 0
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[6], ARGV[1])
redis.call('ZREM', KEYS[7], ARGV[1])
for i, q in ipairs({{tonumber(ARGV[3]) or false, 1, 1}, {tonumber(ARGV[4]) or false, cost, 3}, {tonumber(ARGV[5]) or false, cost, 4}}) do
  local limit, amount, k = q[1], q[2], q[3]
  if limit and amount > 0 then
    local stored = tonumber(redis.call('GET', KEYS[k]))
    if stored then store(KEYS[k], math.max(now, stored - amount * period / limit)) end
  end
end
return 1`,
  /** Extends a held place and reservation. KEYS places, resvx. ARGV placeId, placeTtlMs. Returns 1 when either was held, else 0. */
  renew: `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
local held = 0
for k = 1, 2 do
  if redis.call('ZSCORE', KEYS[k], ARGV[1]) then
    held = 1
    redis.call('ZADD', KEYS[k], 'XX', now + ttl, ARGV[1])
    if k == 1 and redis.call('PTTL', KEYS[k]) < ttl then redis.call('PEXPIRE', KEYS[k], ttl) end
  end
end
return held`,
} as const;
