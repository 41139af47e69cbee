/**
 * The one script every exchange of the Redis counters runs (EVALSHA), so that applying a node's
 * changes and telling every node the results is one atomic step in Redis's order.
 *
 * KEYS: the counters' Redis keys. ARGV: now (the node's clock, ms), the channel, the node's id, the
 * exchange's sequence number, then five values per key: mode, amount, expiry, seed, seed expiry.
 * A counter is a hash {v: value, e: expiry ms}; past `e` (by the caller's clock, so that every
 * node and Redis agree on one clock per call) it reads as 0. Modes:
 * - `i`: add `amount` and set the expiry; `s`: set the value to `amount` and the expiry;
 * - `g`: change nothing, report the value (a node catching up after its subscription dropped).
 * A counter missing in Redis while the caller's seed has not expired is first set to the seed: the
 * caller's last view of it, so that a Redis restarted empty is filled again from the nodes.
 * Every result goes out on the channel as one message {n: node, s: sequence, k: [[key, value, expiry]…]},
 * which every node (the caller too) applies in the order Redis ran the calls.
 */
export const EXCHANGE_SCRIPT = `
local now = tonumber(ARGV[1])
local out = {}
for i = 1, #KEYS do
  local k = KEYS[i]
  local a = 4 + (i - 1) * 5
  local mode = ARGV[a + 1]
  local amount = tonumber(ARGV[a + 2])
  local exp = tonumber(ARGV[a + 3])
  local seed = tonumber(ARGV[a + 4])
  local seedExp = tonumber(ARGV[a + 5])
  local cur = redis.call('HMGET', k, 'v', 'e')
  local v, e = 0, 0
  local present = false
  if cur[1] and tonumber(cur[2]) > now then
    v, e, present = tonumber(cur[1]), tonumber(cur[2]), true
  elseif seed > 0 and seedExp > now then
    v, e = seed, seedExp
  end
  if mode == 'i' then
    v, e = v + amount, exp
  elseif mode == 's' then
    v, e = amount, exp
  end
  if mode ~= 'g' or (not present and e > now) then
    redis.call('HSET', k, 'v', v, 'e', e)
    redis.call('PEXPIREAT', k, e)
  end
  out[i] = {k, v, e}
end
redis.call('PUBLISH', ARGV[2], cjson.encode({n = ARGV[3], s = tonumber(ARGV[4]), k = out}))
return #KEYS
`;
