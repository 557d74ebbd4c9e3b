-- tallydb bench: one wrk script for every scenario, driven by environment
-- variables (BENCH_MODE=static BENCH_TARGET=... wrk ... -s bench/wrk.lua URL).
-- Environment, not wrk's script arguments: wrk decides in its main Lua state,
-- before any init(args), whether request() and response() exist.
--
-- Every request carries the DynamoDB JSON 1.0 headers and a static
-- SigV4-shaped Authorization header: DynamoDB Local, dynalite and moto want
-- one to be present, none of them checks the signature. With
-- BENCH_AUTHORIZATION (static mode) it is a real one (bench.ab --credentials).
--
-- modes (BENCH_MODE) and their variables (BENCH_<NAME>)
--   static  target, body                 the same request every time (fastest wrk path)
--   random  target, tpl, n               tpl with %d replaced by a random 0..n-1
--   keys    target, tpl, n               as random, but each request is built when
--                                        sent (no pool of n prebuilt requests: for
--                                        n in the millions, bench/growth.py)
--   mix     target, tpl, n, target2, body2, every
--                                        every `every`-th request is target2/body2,
--                                        the others are tpl with a random 0..n-1
--   cas     get, upd                     compare-and-set loop: GetItem `get`, then
--                                        UpdateItem `upd` (%d current, %d next);
--                                        counts successes and conflicts
--
-- done() prints one line: BENCH_JSON {...}

local date = os.date("!%Y%m%dT%H%M%SZ")
local headers = {
   ["Content-Type"] = "application/x-amz-json-1.0",
   ["X-Amz-Date"] = date,
   ["Authorization"] = "AWS4-HMAC-SHA256 Credential=bench/" .. string.sub(date, 1, 8)
      .. "/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, "
      .. "Signature=0000000000000000000000000000000000000000000000000000000000000000",
}
-- a real signature, made by the caller for the one static request, for a
-- server that checks them (BENCH_AUTHORIZATION and the BENCH_DATE it covers)
if os.getenv("BENCH_AUTHORIZATION") ~= nil then
   headers["Authorization"] = os.getenv("BENCH_AUTHORIZATION")
   headers["X-Amz-Date"] = os.getenv("BENCH_DATE")
end

local function build(target, body)
   local h = {}
   for k, v in pairs(headers) do h[k] = v end
   h["X-Amz-Target"] = "DynamoDB_20120810." .. target
   return wrk.format("POST", "/", h, body)
end

local function env(name)
   local v = os.getenv("BENCH_" .. string.upper(name))
   if v == nil then error("missing BENCH_" .. string.upper(name)) end
   return v
end

local mode = env("mode")

-- state of this thread (each wrk thread has its own Lua state)
local pool        -- random/mix: prebuilt requests
local pool_n
local keys_tpl    -- keys: the body template and the headers (wrk.format
local keys_headers -- sets Content-Length in them on every call)
local extra       -- mix: the every-th request
local every
local sent = 0
local get_req     -- cas
local upd_tpl
local queue = {}  -- cas: next requests, one per finished response
local qhead, qtail = 1, 0
succ, conflicts, cas_errors, reads = 0, 0, 0, 0

local threads = {}
local thread_id = 0

function setup(thread)
   thread_id = thread_id + 1
   thread:set("id", thread_id)
   table.insert(threads, thread)
end

function init(_)
   math.randomseed(os.time() * 1000 + (id or 0))
   if mode == "static" then
      wrk.method = "POST"
      wrk.path = "/"
      wrk.body = env("body")
      for k, v in pairs(headers) do wrk.headers[k] = v end
      wrk.headers["X-Amz-Target"] = "DynamoDB_20120810." .. env("target")
   elseif mode == "random" or mode == "mix" then
      local target, tpl = env("target"), env("tpl")
      pool_n = tonumber(env("n"))
      pool = {}
      for i = 0, pool_n - 1 do
         pool[i + 1] = build(target, string.format(tpl, i))
      end
      if mode == "mix" then
         extra = build(env("target2"), env("body2"))
         every = tonumber(env("every"))
      end
   elseif mode == "keys" then
      keys_tpl = env("tpl")
      pool_n = tonumber(env("n"))
      keys_headers = {}
      for k, v in pairs(headers) do keys_headers[k] = v end
      keys_headers["X-Amz-Target"] = "DynamoDB_20120810." .. env("target")
   elseif mode == "cas" then
      get_req = build("GetItem", env("get"))
      upd_tpl = env("upd")
   else
      error("unknown BENCH_MODE " .. tostring(mode))
   end
end

local function random_request()
   return pool[math.random(pool_n)]
end

local function keys_request()
   return wrk.format("POST", "/", keys_headers,
                     string.format(keys_tpl, math.random(pool_n) - 1))
end

local function mix_request()
   sent = sent + 1
   if sent % every == 0 then return extra end
   return pool[math.random(pool_n)]
end

local function cas_request()
   if qhead <= qtail then
      local r = queue[qhead]
      queue[qhead] = nil
      qhead = qhead + 1
      return r
   end
   return get_req
end

local function push(r)
   qtail = qtail + 1
   queue[qtail] = r
end

local function cas_response(status, _, body)
   if status == 200 then
      if string.find(body, '"Item"', 1, true) then
         reads = reads + 1
         local v = string.match(body, '"v"%s*:%s*{%s*"N"%s*:%s*"(%-?%d+)"')
         local cur = tonumber(v) or 0
         push(build("UpdateItem", string.format(upd_tpl, cur, cur + 1)))
         return
      end
      succ = succ + 1
   elseif status == 400 and string.find(body, "ConditionalCheckFailed", 1, true) then
      conflicts = conflicts + 1
   else
      cas_errors = cas_errors + 1
   end
   push(get_req)
end

-- wrk looks for request() and response() once, in its main Lua state: define
-- them only for the modes that need them, so the static mode keeps wrk's fast
-- path (one prebuilt request, no Lua per request).
if mode == "random" then
   request = random_request
elseif mode == "keys" then
   request = keys_request
elseif mode == "mix" then
   request = mix_request
elseif mode == "cas" then
   request = cas_request
   response = cas_response
end

function done(summary, latency, _)
   local s, c, e, r = 0, 0, 0, 0
   for _, t in ipairs(threads) do
      s = s + (t:get("succ") or 0)
      c = c + (t:get("conflicts") or 0)
      e = e + (t:get("cas_errors") or 0)
      r = r + (t:get("reads") or 0)
   end
   local err = summary.errors
   io.write(string.format(
      'BENCH_JSON {"requests":%d,"duration_us":%d,"bytes":%d,'
      .. '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},'
      .. '"latency_us":{"min":%d,"mean":%.1f,"max":%d,"p50":%d,"p90":%d,"p99":%d,"p999":%d},'
      .. '"cas":{"successes":%d,"conflicts":%d,"errors":%d,"reads":%d}}\n',
      summary.requests, summary.duration, summary.bytes,
      err.connect, err.read, err.write, err.status, err.timeout,
      latency.min, latency.mean, latency.max,
      latency:percentile(50), latency:percentile(90), latency:percentile(99),
      latency:percentile(99.9),
      s, c, e, r))
end
