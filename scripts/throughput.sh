#!/usr/bin/env bash
# Measures, in one run on this machine, the reference server's throughput
# for valid creates (each request a fresh id) against a bare net/http +
# encoding/json handler of the same shape and the same work (each keeps
# every plant created; scripts/benchserver), with wrk on loopback, and prints
# both and their ratio. The two are measured in turn, several rounds, each
# on a fresh server, and compared by their medians, so that a drift of the
# machine falls on both. Budget: reference >= 0.8 x bare.
#
#   bash scripts/throughput.sh [seconds] [connections] [rounds]
#
# It needs wrk (Debian: apt-get install wrk); it installs it when it can.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
conns=${2:-32}
rounds=${3:-3}

if ! command -v wrk >/dev/null; then
  echo "wrk is missing; installing it (apt-get install wrk)" >&2
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq wrk >/dev/null; else sudo apt-get install -y wrk; fi
fi

tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/benchserver" ./scripts/benchserver

cat > "$tmp/create.lua" <<'LUA'
-- Each thread posts valid NewPlant records with ids of its own.
local threads = {}
function setup(thread)
  thread:set("base", #threads * 1000000000)
  table.insert(threads, thread)
end
function init(args)
  n = base
  headers = { ["Authorization"] = "Bearer bench-token", ["Content-Type"] = "application/json" }
end
function request()
  n = n + 1
  return wrk.format("POST", "/plants", headers, '{"id":' .. n .. ',"name":"Monstera deliciosa","tag":"indoor"}')
end
function done(summary, latency, requests)
  io.write(string.format("RESULT %d %.1f %d %d\n", summary.requests, summary.requests / (summary.duration / 1e6),
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(99)))
end
LUA

measure() {
  "$tmp/benchserver" -impl "$1" > "$tmp/$1.addr" &
  for _ in $(seq 50); do [ -s "$tmp/$1.addr" ] && break; sleep 0.1; done
  addr=$(cat "$tmp/$1.addr")
  wrk -t2 -c"$conns" -d"${secs}s" -s "$tmp/create.lua" "http://$addr" | grep '^RESULT'
  kill %% 2>/dev/null || true
  wait 2>/dev/null || true
}

echo "wrk: 2 threads, $conns connections, ${secs}s a round, $rounds rounds each, valid creates with fresh ids, loopback; $(nproc) cores"
printf '%-10s %5s %10s %12s %8s %10s\n' server round requests "req/s" errors "p99 (us)"
for i in $(seq "$rounds"); do
  for impl in reference bare; do
    read -r _ n rps err p99 < <(measure "$impl")
    printf '%-10s %5d %10d %12.0f %8d %10d\n' "$impl" "$i" "$n" "$rps" "$err" "$p99"
    echo "$rps" >> "$tmp/$impl.rps"
    if [ "$err" != 0 ]; then echo "$impl answered $err requests with an error" >&2; exit 1; fi
  done
done
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ref_rps=$(median "$tmp/reference.rps")
bare_rps=$(median "$tmp/bare.rps")
printf 'median req/s: reference %.0f, bare %.0f\n' "$ref_rps" "$bare_rps"
ratio=$(awk -v a="$ref_rps" -v b="$bare_rps" 'BEGIN { printf "%.2f", a / b }')
echo "ratio reference/bare: $ratio (budget: at least 0.80)"
awk -v r="$ratio" 'BEGIN { exit !(r >= 0.8) }' || { echo "below budget" >&2; exit 1; }
