/**
 * The Lua scripts of the Redis stream log. Each touches only the keys of one stream (`<prefix>{<id>}:…`, one hash tag,
 * hence one Cluster slot). Values are entries of the Redis Stream `:log` with explicit ids `0-<last position + 1>`
 * (fields `a`: the batch's first position, `e`: a JSON array of the values), the terminal entry is `1-0` (fields
 * `t`: the outcome as JSON, `n`: the last position the producer appended) — after every value's id. Only Redis 7.0
 * commands.
 */
export const STREAM_LOG_SCRIPTS = {
  /**
   * KEYS meta, lease. ARGV ownerKeyHash, wire, createdAt, instance, activeTtlMs, leaseMs.
   * 1 = opened (epoch 1); 0 = the id exists.
   */
  open: `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'own', ARGV[1], 'wire', ARGV[2], 'created', ARGV[3], 'inst', ARGV[4], 'state', 'running', 'epoch', '1', 'last', '-1')
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('SET', KEYS[2], ARGV[4] .. ':1', 'PX', ARGV[6])
return 1`,
  /**
   * The append with fencing, and the lease renewal (an empty batch). KEYS meta, log, lease, seen.
   * ARGV epoch, firstPosition, lastPosition ('' = no batch), valuesJson, activeTtlMs, leaseMs, leaseToken, gap ('' = none).
   * Returns {status, cancel, seen}: status 1 = written (or already there: a retried write), -1 = the stream is gone,
   * -2 = fenced (another epoch, or no longer running).
   */
  append: `
local m = redis.call('HMGET', KEYS[1], 'epoch', 'state', 'cancel', 'last', 'gap')
if not m[1] then return {-1, 0, 0} end
if m[1] ~= ARGV[1] or m[2] ~= 'running' then return {-2, 0, 0} end
if ARGV[3] ~= '' then
  redis.pcall('XADD', KEYS[2], '0-' .. (tonumber(ARGV[3]) + 1), 'a', ARGV[2], 'e', ARGV[4])
  if tonumber(ARGV[3]) > tonumber(m[4]) then redis.call('HSET', KEYS[1], 'last', ARGV[3]) end
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
end
if ARGV[8] ~= '' and not m[5] then redis.call('HSET', KEYS[1], 'gap', ARGV[8]) end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[5]) end
redis.call('SET', KEYS[3], ARGV[7], 'PX', ARGV[6])
local cancel = 0
if m[3] == '1' then cancel = 1 end
return {1, cancel, redis.call('EXISTS', KEYS[4])}`,
  /**
   * The terminal entry. KEYS meta, log, lease. ARGV epoch, lastPosition, outcomeJson, retentionMs, state.
   * 1 = written; -1 = gone; -2 = fenced. A producer that appended more than the log holds leaves a `gap`.
   */
  end: `
local m = redis.call('HMGET', KEYS[1], 'epoch', 'state', 'last', 'gap')
if not m[1] then return -1 end
if m[1] ~= ARGV[1] or m[2] ~= 'running' then return -2 end
if tonumber(ARGV[2]) > tonumber(m[3]) and not m[4] then redis.call('HSET', KEYS[1], 'gap', m[3]) end
redis.call('XADD', KEYS[2], '1-0', 't', ARGV[3], 'n', ARGV[2])
redis.call('HSET', KEYS[1], 'state', ARGV[5], 'end', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('DEL', KEYS[3])
return 1`,
  /**
   * A reader declares the producer lost: only while running and the lease is gone. Raises the epoch (fencing the
   * producer's late writes) and writes the terminal entry. KEYS meta, log, lease. ARGV retentionMs, outcomeJson.
   * 1 = declared; 0 = not (ended meanwhile, or the lease is back).
   */
  lost: `
local m = redis.call('HMGET', KEYS[1], 'epoch', 'state', 'last')
if not m[1] or m[2] ~= 'running' then return 0 end
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'epoch', tonumber(m[1]) + 1, 'state', 'producer_lost', 'end', m[3])
redis.call('XADD', KEYS[2], '1-0', 't', ARGV[2], 'n', m[3])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1`,
  /**
   * Records a cancel and tells the producer's process. KEYS meta. ARGV channelPrefix, id.
   * 1 = recorded (the stream was running); 0 = unknown or ended.
   */
  cancel: `
local m = redis.call('HMGET', KEYS[1], 'state', 'inst')
if m[1] ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'cancel', '1')
redis.call('PUBLISH', ARGV[1] .. m[2], ARGV[2])
return 1`,
} as const;
