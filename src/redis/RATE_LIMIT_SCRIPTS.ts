/**
 * The Lua scripts of the Redis rate-limit store, on Redis's own clock (`TIME`: the processes' clocks never enter a
 * decision). Each touches only one client's keys (`<prefix>rl:{<hash>}:rate`, `:places`: one hash tag, hence one
 * Cluster slot). The rate is the GCRA of `gcra` (src/store/gcra.ts), the same arithmetic: the state is the
 * theoretical arrival time in ms (`:rate`, a string with 3 decimals, expiring when the quota is whole again); the
 * places are a sorted set of request ids scored by their expiry (ms), the expired ones dropped at each decision, the
 * set itself expiring with its last place.
 */
export const RATE_LIMIT_SCRIPTS = {
  /**
   * One admission. KEYS rate, places. ARGV requestsPerMinute ('' = none), periodMs, maxConcurrent ('' = none),
   * placeId, placeTtlMs. Returns {allowed (1|0), refusedBy (0 none, 1 requests, 2 concurrency), remaining (-1: no
   * rate), resetMs, retryAfterMs, placesLeft (-1: no concurrency limit)}.
   */
  admit: `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
local ttl = tonumber(ARGV[5])
local held = 0
if max then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  held = redis.call('ZCARD', KEYS[2])
  if held >= max then return {0, 2, -1, 0, 0, 0} end
end
local placesLeft = -1
if max then placesLeft = max - held - 1 end
local remaining, reset = -1, 0
if rate then
  local interval = period / rate
  local from = now
  local stored = tonumber(redis.call('GET', KEYS[1]))
  if stored and stored > now then from = stored end
  local nxt = from + interval
  if nxt - now > period + 0.01 then
    if max then placesLeft = max - held end
    return {0, 1, 0, math.ceil(from - now), math.ceil(nxt - period - now), placesLeft}
  end
  remaining = math.floor((period + 0.01 - (nxt - now)) / interval)
  reset = math.ceil(nxt - now)
  redis.call('SET', KEYS[1], string.format('%.3f', nxt), 'PX', math.max(1, reset))
end
if max then
  redis.call('ZADD', KEYS[2], now + ttl, ARGV[4])
  if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
end
return {1, 0, remaining, reset, 0, placesLeft}`,
  /** Extends a held place. KEYS places. ARGV placeId, placeTtlMs. Returns 1 when the place was held, else 0. */
  renew: `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], 'XX', now + ttl, ARGV[1])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1`,
} as const;
