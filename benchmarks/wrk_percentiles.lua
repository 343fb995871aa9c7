-- wrk -s benchmarks/wrk_percentiles.lua: at the end, one line "WRK_JSON {...}" with the counts and the
-- latency percentiles wrk's --latency does not print (it prints 50/75/90/99 only). Latencies in microseconds.
-- http_bench.py reads this line for every run; the request itself is wrk's default (URL and -H headers).

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,' ..
    '"timeout":%d,"p50_us":%d,"p75_us":%d,"p90_us":%d,"p95_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(75), latency:percentile(90), latency:percentile(95),
    latency:percentile(99), latency.max, latency.mean))
end
