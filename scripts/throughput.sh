#!/usr/bin/env bash
# Throughput on this machine, with wrk on loopback, valid creates (each
# request a fresh id), in one of two comparisons:
#
#   bash scripts/throughput.sh [seconds] [connections] [rounds]
#
# The reference server's throughput against a bare net/http +
# encoding/json handler of the same shape and the same work (each keeps
# every plant created; scripts/benchserver). Budget: reference >= 0.8 x
# bare.
#
#   bash scripts/throughput.sh proxy [seconds] [connections] [rounds]
#
# The reference as `plantcheck serve` serves it, straight, through
# `plantcheck proxy`, and through Prism's validating proxy (when `prism` is
# installed: npm install -g @stoplight/prism-cli), with the CPU time the
# server and the proxy spend on each request; then the proxy's resident
# memory with 1,000 connections open. Budgets: the proxy keeps >= 0.4 of
# the direct throughput, and serves >= 10 x Prism's. PLANTCHECK=path
# measures that binary's proxy (such as an older build) in front of this
# tree's server; PROXY_FLAGS adds flags to the proxy's command line (such
# as "--admin-addr 127.0.0.1:0 --events /tmp/events.jsonl").
#
# Each measurement runs on fresh servers; the comparisons take turns, for
# several rounds, and are compared by their medians, so that a drift of the
# machine falls on all. It needs wrk (Debian: apt-get install wrk); it
# installs it when it can.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=bare
if [ "${1:-}" = proxy ]; then mode=proxy; shift; fi
secs=${1:-5}
conns=${2:-32}
rounds=${3:-3}

if ! command -v wrk >/dev/null; then
  echo "wrk is missing; installing it (apt-get install wrk)" >&2
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq wrk >/dev/null; else sudo apt-get install -y wrk; fi
fi

tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT

cat > "$tmp/create.lua" <<'LUA'
-- Each thread posts valid NewPlant records with ids of its own; the
-- script's argument, when given, sets the ids apart from other runs'
-- against the same server.
local threads = {}
function setup(thread)
  thread:set("base", #threads * 1000000000)
  table.insert(threads, thread)
end
function init(args)
  n = base + (tonumber(args[1]) or 0) * 10000000000
  headers = { ["Authorization"] = "Bearer bench-token", ["Content-Type"] = "application/json" }
end
function request()
  n = n + 1
  return wrk.format("POST", "/plants", headers, '{"id":' .. n .. ',"name":"Monstera deliciosa","tag":"indoor"}')
end
function done(summary, latency, requests)
  io.write(string.format("RESULT %d %.1f %d %d %d\n", summary.requests, summary.requests / (summary.duration / 1e6),
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(50), latency:percentile(99)))
end
LUA

median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# load URL ARG: wrk's RESULT line (requests, req/s, errors, p50 and p99 in µs).
load() { wrk -t2 -c"$conns" -d"${secs}s" -s "$tmp/create.lua" "$1" -- "$2" | grep '^RESULT'; }

# listening HOST:PORT: wait (up to 20 s) until something accepts there.
listening() {
  for _ in $(seq 200); do
    if (exec 3<>"/dev/tcp/${1%:*}/${1#*:}") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "nothing listens on $1" >&2
  return 1
}

if [ "$mode" = bare ]; then
  go build -o "$tmp/benchserver" ./scripts/benchserver
  measure() {
    "$tmp/benchserver" -impl "$1" > "$tmp/$1.addr" &
    for _ in $(seq 50); do [ -s "$tmp/$1.addr" ] && break; sleep 0.1; done
    load "http://$(cat "$tmp/$1.addr")" 0
    kill %% 2>/dev/null || true
    wait 2>/dev/null || true
  }
  echo "wrk: 2 threads, $conns connections, ${secs}s a round, $rounds rounds each, valid creates with fresh ids, loopback; $(nproc) cores"
  printf '%-10s %5s %10s %12s %8s %10s\n' server round requests "req/s" errors "p99 (us)"
  for i in $(seq "$rounds"); do
    for impl in reference bare; do
      measure "$impl" > "$tmp/result"
      read -r _ n rps err _ p99 < "$tmp/result"
      printf '%-10s %5d %10d %12.0f %8d %10d\n' "$impl" "$i" "$n" "$rps" "$err" "$p99"
      echo "$rps" >> "$tmp/$impl.rps"
      if [ "$err" != 0 ]; then echo "$impl answered $err requests with an error" >&2; exit 1; fi
    done
  done
  ref_rps=$(median "$tmp/reference.rps")
  bare_rps=$(median "$tmp/bare.rps")
  printf 'median req/s: reference %.0f, bare %.0f\n' "$ref_rps" "$bare_rps"
  ratio=$(awk -v a="$ref_rps" -v b="$bare_rps" 'BEGIN { printf "%.2f", a / b }')
  echo "ratio reference/bare: $ratio (budget: at least 0.80)"
  awk -v r="$ratio" 'BEGIN { exit !(r >= 0.8) }' || { echo "below budget" >&2; exit 1; }
  exit 0
fi

# proxy mode
go build -o "$tmp/plantcheck" ./cmd/plantcheck
proxy_bin=${PLANTCHECK:-$tmp/plantcheck}
"$tmp/plantcheck" spec > "$tmp/openapi.yaml"
prism=$(command -v prism || true)
up=127.0.0.1:18480 px=127.0.0.1:18481 pr=127.0.0.1:18482

# start NAME COMMAND...: run a server in the background, its pid in $tmp/NAME.pid.
start() { local name=$1; shift; "$@" > "$tmp/$name.log" 2>&1 & echo $! > "$tmp/$name.pid"; }
stop() { local pid; pid=$(cat "$tmp/$1.pid"); kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }

# cpu NAME: the CPU time (user and system) of a server so far, in clock ticks.
cpu() { awk '{ print $14 + $15 }' "/proc/$(cat "$tmp/$1.pid")/stat"; }
tick=$(getconf CLK_TCK)

# measure WHICH ARG: a fresh server (and the proxy in front of it), then the
# load; wrk's RESULT line, then the CPU time the server and the proxy spent
# on each request, in µs.
measure() {
  start serve "$tmp/plantcheck" serve --addr "$up" --token bench-token
  listening "$up"
  local url=http://$up mid=serve
  case $1 in
    proxy) start proxy "$proxy_bin" proxy --addr "$px" --upstream "http://$up" --progress 0 ${PROXY_FLAGS:-}; listening "$px"; url=http://$px mid=proxy ;;
    prism) start prism "$prism" proxy "$tmp/openapi.yaml" "http://$up" --port "${pr#*:}" --host 127.0.0.1; listening "$pr"; url=http://$pr mid=prism ;;
  esac
  # a second's warm-up of the connections and the caches, then the load
  wrk -t2 -c"$conns" -d1s -s "$tmp/create.lua" "$url" -- "$((1000 + $2))" > /dev/null
  local s0 m0 result
  s0=$(cpu serve) m0=$(cpu "$mid")
  result=$(load "$url" "$2")
  awk -v r="$result" -v s="$(($(cpu serve) - s0))" -v m="$(($(cpu "$mid") - m0))" -v t="$tick" -v mid="$mid" \
    'BEGIN { split(r, f, " "); n = f[2] > 0 ? f[2] : 1; printf "%s %.1f %.1f\n", r, s * 1e6 / t / n, (mid == "serve" ? 0 : m * 1e6 / t / n) }'
  case $1 in proxy | prism) stop "$1" ;; esac
  stop serve
}

kinds="direct proxy"
[ -n "$prism" ] && kinds="direct proxy prism" || echo "prism is not installed: Prism's validating proxy is not measured" >&2
echo "wrk: 2 threads, $conns connections, ${secs}s a round, $rounds rounds, valid creates with fresh ids, loopback; $(nproc) cores"
echo "proxy: $proxy_bin"
printf '%-7s %5s %10s %12s %8s %10s %10s %12s %12s\n' through round requests "req/s" errors "p50 (us)" "p99 (us)" "server (us)" "proxy (us)"
arg=0
for i in $(seq "$rounds"); do
  for kind in $kinds; do
    arg=$((arg + 1))
    measure "$kind" "$arg" > "$tmp/result" # not in a subshell: its servers are stopped before the next starts
    read -r _ n rps err p50 p99 scpu mcpu < "$tmp/result"
    printf '%-7s %5d %10d %12.0f %8d %10d %10d %12.1f %12.1f\n' "$kind" "$i" "$n" "$rps" "$err" "$p50" "$p99" "$scpu" "$mcpu"
    echo "$rps" >> "$tmp/$kind.rps"
    echo "$p50" >> "$tmp/$kind.p50"
    echo "$p99" >> "$tmp/$kind.p99"
    echo "$scpu" >> "$tmp/$kind.scpu"
    echo "$mcpu" >> "$tmp/$kind.mcpu"
    if [ "$err" != 0 ]; then echo "$kind: $err requests answered with an error" >&2; exit 1; fi
  done
done

# Memory: the proxy's resident set with 1,000 connections open (each
# after one exchange, its answer left unread), then with 1,000 busy.
rss() { awk -v k="$1" '$1 == k ":" { print int($2 / 1024) }' "/proc/$(cat "$tmp/proxy.pid")/status"; }
start serve "$tmp/plantcheck" serve --addr "$up" --token bench-token
listening "$up"
start proxy "$proxy_bin" proxy --addr "$px" --upstream "http://$up" --progress 0
listening "$px"
fresh=$(rss VmRSS)
fds=()
for i in $(seq 1000); do
  exec {fd}<>"/dev/tcp/${px%:*}/${px#*:}"
  body="{\"id\":$((9000000000000 + i)),\"name\":\"Monstera deliciosa\"}"
  printf 'POST /plants HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer bench-token\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
    "$px" "${#body}" "$body" >&"$fd"
  fds+=("$fd")
done
sleep 2
open=$(rss VmRSS)
for fd in "${fds[@]}"; do exec {fd}>&-; done
wrk -t2 -c1000 -d"${secs}s" -s "$tmp/create.lua" "http://$px" -- $((arg + 1)) > "$tmp/c1000.out" &
sleep $((secs - 1))
busy=$(rss VmRSS)
wait $!
peak=$(rss VmHWM)
stop proxy
stop serve

d=$(median "$tmp/direct.rps") p=$(median "$tmp/proxy.rps")
printf 'median req/s: direct %.0f, through plantcheck proxy %.0f' "$d" "$p"
ratio=$(awk -v a="$p" -v b="$d" 'BEGIN { printf "%.2f", a / b }')
ok=1
if [ -n "$prism" ]; then
  q=$(median "$tmp/prism.rps")
  times=$(awk -v a="$p" -v b="$q" 'BEGIN { printf "%.1f", a / b }')
  printf ', through Prism %.0f\n' "$q"
  echo "plantcheck proxy / Prism: ${times}x (budget: at least 10)"
  awk -v r="$times" 'BEGIN { exit !(r >= 10) }' || ok=0
else
  echo
fi
echo "plantcheck proxy / direct: $ratio (budget: at least 0.40)"
awk -v r="$ratio" 'BEGIN { exit !(r >= 0.4) }' || ok=0
printf 'median latency under load (p50, p99 in us): direct %s, %s; proxy %s, %s\n' \
  "$(median "$tmp/direct.p50")" "$(median "$tmp/direct.p99")" "$(median "$tmp/proxy.p50")" "$(median "$tmp/proxy.p99")"
printf 'median CPU per request (us): the server %s straight, %s behind the proxy; the proxy %s\n' \
  "$(median "$tmp/direct.scpu")" "$(median "$tmp/proxy.scpu")" "$(median "$tmp/proxy.mcpu")"
echo "proxy resident memory: $fresh MB at start, $open MB with 1,000 connections open, $busy MB with 1,000 busy ($(awk '/^RESULT/ { printf "%d req/s", $3 }' "$tmp/c1000.out")), $peak MB at most"
[ "$ok" = 1 ] || { echo "below budget" >&2; exit 1; }
