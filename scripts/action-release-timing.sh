#!/usr/bin/env bash
# action-release-timing.sh: the time from the Action's first step to the
# first request, on the release path, with the releases served from
# loopback (python3 -m http.server) in place of GitHub's. It builds a
# release binary stamped v1.2.3 (or takes one: $1), writes its checksums
# file, starts `plantcheck serve --log` as the target, then runs the
# Action's first step (scripts/action-binary.sh, as action.yml runs it)
# and `plantcheck run` three times. The first request's time is the first
# line the target logs after the step began.
#
#   scripts/action-release-timing.sh [BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
rel="$work/releases/v1.2.3"
mkdir -p "$rel"
asset="plantcheck_1.2.3_linux_amd64"
if [ $# -gt 0 ]; then cp "$1" "$rel/$asset"; else
  CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/plantcheck/plantcheck/internal/buildinfo.version=v1.2.3" -o "$rel/$asset" ./cmd/plantcheck
fi
(cd "$rel" && sha256sum "$asset" > plantcheck_1.2.3_checksums.txt)
files=18931 target=18932 token=timing-token-0123456789
python3 -m http.server --bind 127.0.0.1 "$files" --directory "$work/releases" > "$work/files.log" 2>&1 &
"$rel/$asset" serve --addr "127.0.0.1:$target" --token "$token" --log 2> "$work/serve.log" &
sleep 1
for i in 1 2 3; do
  home="$work/home$i"
  mkdir -p "$home"
  lines=$(wc -l < "$work/serve.log")
  start=$(date +%s%N)
  HOME="$home" ACTION_REF=v1.2.3 RUNNER_OS=Linux RUNNER_ARCH=X64 GITHUB_OUTPUT="$work/out$i" GITHUB_PATH="$work/path$i" \
    PLANTCHECK_RELEASES_URL="http://127.0.0.1:$files" bash -c '
      bin="$HOME/.cache/plantcheck-action/bin"; mkdir -p "$bin"; echo "$bin" >> "$GITHUB_PATH"
      PLANTCHECK_BIN_DIR="$bin" bash scripts/action-binary.sh' 2>/dev/null
  step=$(date +%s%N)
  code=0
  PATH="$home/.cache/plantcheck-action/bin:$PATH" PLANTCHECK_TOKEN="$token" \
    plantcheck run --base-url "http://127.0.0.1:$target" --report-dir "$work/rep$i" > "$work/run$i.log" 2>&1 || code=$?
  end=$(date +%s%N)
  first=$(tail -n +$((lines + 1)) "$work/serve.log" | grep -m1 -o 'time=[^ ]*' | cut -d= -f2)
  echo "run $i: the step $(( (step - start) / 1000000 )) ms, the first request $(( ($(date -d "$first" +%s%N) - start) / 1000000 )) ms after it began, the whole run $(( (end - start) / 1000000 )) ms, exit $code ($(tr '\n' ' ' < "$work/out$i"))"
done
"$work/home1/.cache/plantcheck-action/bin/plantcheck" version | head -n 1
