#!/usr/bin/env bash
# Install what the benchmark peers need, idempotently.
#   wrk (Debian), matplotlib (venv), moto[server] (venv), dynalite and
#   amplify-dynamodb-simulator (npm, into bench/.peers/, gitignored).
# Each step reports its own failure and the script carries on: the harness
# reports a peer whose tools are missing as skipped, with the reason.
#   bench/setup.sh           everything
#   bench/setup.sh --smoke   only what the smoke test needs (wrk, taskset)
set -u
smoke=0
[ "${1:-}" = "--smoke" ] && smoke=1
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
peers="$here/.peers"
py="${PYTHON:-$root/.venv/bin/python}"
status=0

step() { printf '== %s\n' "$*"; }
fail() { printf '!! %s\n' "$*" >&2; status=1; }

step "wrk, java (Debian)"
need=()
command -v wrk >/dev/null 2>&1 || need+=(wrk)
((smoke)) || command -v java >/dev/null 2>&1 || need+=(openjdk-17-jre-headless)
command -v taskset >/dev/null 2>&1 || need+=(util-linux)
if ((${#need[@]})); then
    sudo_cmd=()
    [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
    if ! "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${need[@]}" >/dev/null 2>&1; then
        "${sudo_cmd[@]}" apt-get update >/dev/null 2>&1 &&
            "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${need[@]}" >/dev/null 2>&1 ||
            fail "apt-get install ${need[*]} failed"
    fi
fi

if ((smoke)); then
    command -v wrk >/dev/null 2>&1 || fail "wrk still missing"
    exit $status
fi

step "python packages (matplotlib, moto[server], boto3, uvloop, httptools)"
if ! "$py" -c "import matplotlib, moto.server, boto3, uvloop, httptools" >/dev/null 2>&1; then
    "$py" -m pip install -q "matplotlib>=3.8" "moto[server]>=5.0" "boto3>=1.34" \
        "uvloop>=0.19" "httptools>=0.6" || fail "pip install failed"
fi

step "npm peers into $peers"
mkdir -p "$peers"
if ! command -v npm >/dev/null 2>&1; then
    fail "npm not found: dynalite and DynamoDB Local will be skipped"
else
    [ -f "$peers/package.json" ] || printf '{"name":"tallydb-bench-peers","private":true}\n' >"$peers/package.json"
    for pkg in dynalite@4 amplify-dynamodb-simulator@2; do
        name="${pkg%@*}"
        if [ ! -f "$peers/node_modules/$name/package.json" ]; then
            (cd "$peers" && npm install --no-audit --no-fund --loglevel=error "$pkg" >/dev/null 2>&1) ||
                fail "npm install $pkg failed"
        fi
    done
fi

jar="$(find "$peers/node_modules/amplify-dynamodb-simulator" -name DynamoDBLocal.jar 2>/dev/null | head -1)"
if [ -n "$jar" ]; then echo "DynamoDB Local jar: $jar"; else fail "DynamoDBLocal.jar not found"; fi
exit $status
