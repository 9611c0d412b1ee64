#!/usr/bin/env bash
# action-binary.sh: the GitHub Action's first step. It finds plantcheck for
# the Action's ref: the release binary when the ref is a release tag
# (v1.2.3) and the release has a binary for the runner, checked against
# the release's checksums file; else it says the Action must build it.
#
# It writes to $GITHUB_OUTPUT:
#   path=release   the binary is in $PLANTCHECK_BIN_DIR, verified
#   path=build     no release binary: build from the action's source
#   version=...    the version a build stamps (-X .../buildinfo.version)
#
# Environment (all optional but PLANTCHECK_BIN_DIR):
#   PLANTCHECK_BIN_DIR       where the binary goes
#   PLANTCHECK_RELEASES_URL  the releases' base URL, default
#                            https://github.com/plantcheck/plantcheck/releases/download
#   ACTION_REF               github.action_ref (passed through env:, where
#                            a composite action can read it; actions/runner#2473)
#   GITHUB_ACTION_PATH       read for the ref when ACTION_REF is empty
#                            (.../_actions/OWNER/REPO/REF)
#   RUNNER_OS, RUNNER_ARCH   Linux|macOS|Windows, X64|ARM64
#
# Exit status: 0 (either path), 2 when a downloaded binary does not match
# the release's checksum: a binary that may have been tampered with is
# never run, and never silently replaced by a build either.
set -euo pipefail

base="${PLANTCHECK_RELEASES_URL:-https://github.com/plantcheck/plantcheck/releases/download}"
base="${base%/}"
dest="${PLANTCHECK_BIN_DIR:?PLANTCHECK_BIN_DIR is not set}"
ref="${ACTION_REF:-}"
if [ -z "$ref" ]; then
  case "${GITHUB_ACTION_PATH:-}" in
    */_actions/*/*/*) ref="${GITHUB_ACTION_PATH##*/}" ;;
  esac
fi

out() { if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "$1" >> "$GITHUB_OUTPUT"; else echo "$1"; fi; }

# A release tag: vMAJOR.MINOR.PATCH with an optional pre-release.
tag=""
if [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  tag="$ref"
fi

# The version a build from the action's source stamps: the tag, else
# devel-REF (a branch, a moving tag such as v1, a commit).
if [ -n "$tag" ]; then
  version="$tag"
elif [ -n "$ref" ]; then
  short="$(printf '%s' "$ref" | tr -c 'A-Za-z0-9._-' '_' | cut -c1-40)"
  if [[ "$short" =~ ^[0-9a-f]{40}$ ]]; then short="${short:0:12}"; fi
  version="devel-$short"
else
  version="devel"
fi

build() {
  echo "plantcheck: $1; building plantcheck $version from the action's source" >&2
  out "path=build"
  out "version=$version"
  exit 0
}

refuse() {
  echo "::error title=plantcheck::$1: exit 2"
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    echo "**plantcheck could not run** (exit status 2): $1." >> "$GITHUB_STEP_SUMMARY"
  fi
  exit 2
}

if [ -z "$tag" ]; then
  build "the action's ref ${ref:-(none)} is not a release tag (vMAJOR.MINOR.PATCH)"
fi

case "${RUNNER_OS:-}" in
  Linux) os=linux ;;
  macOS) os=darwin ;;
  Windows) os=windows ;;
  *) build "no release binary for the runner's OS ${RUNNER_OS:-(unset)}" ;;
esac
case "${RUNNER_ARCH:-}" in
  X64) arch=amd64 ;;
  ARM64) arch=arm64 ;;
  *) build "no release binary for the runner's architecture ${RUNNER_ARCH:-(unset)}" ;;
esac
if ! command -v curl >/dev/null; then
  build "curl is not installed"
fi

exe=""
if [ "$os" = windows ]; then exe=".exe"; fi
asset="plantcheck_${tag#v}_${os}_${arch}${exe}"
sums="plantcheck_${tag#v}_checksums.txt"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# fetch NAME: download NAME of the release into $tmp; a status other than
# 200 (404: no such asset) or a transport fault is a reason to build.
fetch() {
  local code
  code="$(curl -sS -L --retry 3 --connect-timeout 10 --max-time 300 -o "$tmp/$1" -w '%{http_code}' "$base/$tag/$1" 2>"$tmp/curl.err")" || {
    build "could not download $base/$tag/$1 ($(head -c 300 "$tmp/curl.err" | tr -d '\r\n'))"
  }
  if [ "$code" != 200 ]; then
    build "$base/$tag/$1 answered HTTP $code"
  fi
}
fetch "$sums"
fetch "$asset"

want="$(awk -v f="$asset" '$2 == f || $2 == "*" f { print $1; exit }' "$tmp/$sums")"
if [ -z "$want" ]; then
  refuse "the release $tag's $sums does not list $asset, so its binary cannot be verified"
fi
if command -v sha256sum >/dev/null; then
  got="$(sha256sum "$tmp/$asset" | cut -d' ' -f1)"
else
  got="$(shasum -a 256 "$tmp/$asset" | cut -d' ' -f1)"
fi
if [ "$got" != "$want" ]; then
  refuse "the release binary $asset does not match $sums (sha256 $got, the release says $want); it was not run"
fi

mkdir -p "$dest"
mv "$tmp/$asset" "$dest/plantcheck$exe"
chmod +x "$dest/plantcheck$exe"
echo "plantcheck: the release binary $asset of $tag, sha256 $got verified against $sums" >&2
out "path=release"
out "version=$tag"
