-- wrk script: GET a random line of a request file, timed by wrk, reported as JSON.
--
-- Each line of the file is a path, optionally followed by a tab and a bearer token.
-- Usage: wrk -s bench/requests.lua <url> -- <request file> <seed>

local requests = {}

function init(args)
  for line in io.lines(args[1]) do
    local path, token = line:match("^([^\t]+)\t?(.*)$")
    requests[#requests + 1] = { path = path, token = token }
  end
  -- Each thread draws its own sequence from the run's seed.
  math.randomseed(tonumber(args[2] or "1") + (id or 0))
end

-- setup() runs once per thread in wrk's main script: the threads are numbered there (a
-- thread has no number of its own), so that each draws a sequence of its own.
local threads = 0

function setup(thread)
  thread:set("id", threads)
  threads = threads + 1
end

function request()
  local chosen = requests[math.random(#requests)]
  -- Visitors come from many addresses (gunicorn sits behind one proxy: NUM_PROXIES=1), so
  -- each address's throttle history stays as short as a real visitor's.
  local address = string.format("10.%d.%d.%d", math.random(0, 255), math.random(0, 255),
    math.random(1, 254))
  local headers = { ["Accept"] = "application/json", ["X-Forwarded-For"] = address }
  if chosen.token ~= "" then
    headers["Authorization"] = "Bearer " .. chosen.token
  end
  return wrk.format("GET", chosen.path, headers)
end

function done(summary, latency, requests_seen)
  local errors = summary.errors
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "bytes": %d, "p50_us": %d, "p95_us": %d, '
      .. '"p99_us": %d, "max_us": %d, "errors_connect": %d, "errors_read": %d, '
      .. '"errors_write": %d, "errors_status": %d, "errors_timeout": %d}\n',
    summary.requests, summary.duration, summary.bytes,
    latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.max,
    errors.connect, errors.read, errors.write, errors.status, errors.timeout
  ))
end
