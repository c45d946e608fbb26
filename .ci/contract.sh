#!/usr/bin/env bash
# Contract checks for the Coins API: the committed spec, its lint, its compatibility with the latest
# released contract (openapi/X.Y.Z.yaml), the SDKs generated from it,
# the example scripts, and Schemathesis against a live server on SQLite and, at the same time, one
# on PostgreSQL (CONTRACT_PG_URL, default the local `test` database; CONTRACT_POSTGRES=0 skips that run).
#
#   .ci/contract.sh                # uses .venv
#   VENV=/path/to/venv .ci/contract.sh
#
# Installs what it needs itself (npm ci unless node_modules is current; pinned pip packages into $VENV). Caches nothing
# outside the working tree but npm's own cache: pip runs with PIP_NO_CACHE_DIR.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=${VENV:-.venv}
VENV=$(cd "$VENV" && pwd)
PY=$VENV/bin/python
export PATH="$VENV/bin:$PATH"   # openapi-python-client formats the client with ruff from here
export PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1

SEED=${CONTRACT_SEED:-20261130}          # Schemathesis: fixed seed, bounded examples
MAX_EXAMPLES=${CONTRACT_MAX_EXAMPLES:-25}
STATEFUL_EXAMPLES=${CONTRACT_STATEFUL_EXAMPLES:-60}

PIP_PACKAGES=(
  "schemathesis==4.32.5"
  "openapi-python-client==0.29.1"
  "openapi-spec-validator==0.9.0"
  "pyyaml==6.0.4"
  "ruff>=0.5"
)

# shellcheck source=.ci/lib.sh
. .ci/lib.sh  # step, start_server, stop_server, $PORT, $URL
WORK=$(mktemp -d -t coins-contract.XXXXXX)
# the Schemathesis runs, at once in the background
FUZZ_SQLITE_PID=
FUZZ_PG_PID=
cleanup() {
  for pid in $FUZZ_SQLITE_PID $FUZZ_PG_PID; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  stop_server
  "$PY" -m pip uninstall -y -q coins-client >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

step "install: npm ci, pip packages into $VENV"
# .ci/run's web client step has just run npm ci: again only when node_modules is not package-lock.json's.
npm ls --depth=0 >/dev/null 2>&1 || npm ci --no-audit --no-fund --loglevel=error
"$PY" -m pip install -q "${PIP_PACKAGES[@]}"

step "spec: committed openapi.yaml is the served spec, and valid (openapi-spec-validator)"
"$PY" -m pytest -q -p no:cacheprovider tests/contract/test_openapi_file.py tests/contract/test_openapi_valid.py

step "spec: Spectral, recommended OpenAPI ruleset, no errors and no warnings"
npx --no-install spectral lint --fail-severity=warn --ruleset .spectral.yaml openapi.yaml

step "spec: no breaking change against the latest released contract (openapi/, api-smart-diff; docs/compatibility.md)"
node .ci/breaking_changes.mjs

step "TypeScript: openapi-typescript types, tsc --noEmit over sdk/typescript/client.ts"
npm run -s types
npm run -s typecheck

step "Python SDK: openapi-python-client generates and installs a client"
"$VENV/bin/openapi-python-client" generate --path openapi.yaml --output-path "$WORK/coins-client" --meta setup \
  >"$WORK/generate.log" 2>&1 || { cat "$WORK/generate.log"; echo "openapi-python-client failed"; exit 1; }
cat "$WORK/generate.log"
if grep -qiE "warning|error|skipping|not in path" "$WORK/generate.log"; then
  echo "openapi-python-client reported warnings or errors (above): the spec must generate cleanly"
  exit 1
fi
"$PY" -m pip install -q "$WORK/coins-client"

step "pytest: the generated client against a live server, and the spec against the released one"
# Only what the test suite skips without this script's set-up (the generated client, npm's
# api-smart-diff): the rest of tests/contract runs in the suite, as .ci/run runs it first.
COINS_REQUIRE_NODE=1 COINS_PYTHON_SDK="$WORK/coins-client" "$PY" -m pytest -q -p no:cacheprovider \
  tests/contract/sdk tests/contract/test_breaking_changes.py

step "live server for Schemathesis"
# The service on one port as the README serves it (honcho and the Procfile: coins-realtime answers,
# the web role's app on its threads and the streams on its event loop; coins-worker does what is
# due): the fuzzer reaches every operation, streams included. slowest() prints the slowest requests
# after each run.
start_server "sqlite:///$WORK/coins.sqlite3" "$WORK/server.log"
# examples/ run on the coins-client package (clients/python), generated here beside its own modules.
mkdir "$WORK/client" && cp -r clients/python/src/coins_client "$WORK/client/"
PATH="$VENV/bin:$PATH" "$PY" clients/python/generate.py --into "$WORK/client/coins_client"
PYTHONPATH="$WORK/client" "$PY" examples/play_random.py --base-url "$URL" --target-score 10 --seed 1 | tail -n 4

step "TypeScript client at run time: playOneGame (every operation) against the live server"
npx --no-install tsc -p sdk/typescript/tsconfig.json --noEmit false --outDir "$WORK/ts" --module commonjs --moduleResolution node10
timeout 120 node -e '
  const coins = require(process.argv[1]);
  coins.playOneGame(new coins.CoinsClient(process.argv[2])).catch((error) => { console.error(error); process.exit(1); });
' "$WORK/ts/client.js" "$URL" | tail -n 3

# The hooks seat three people in some created games and send each seat's real token (see the file).
export SCHEMATHESIS_HOOKS=tests.contract.schemathesis_hooks PYTHONPATH=$ROOT
slowest() {  # $1: a server's log; the slowest requests it saw (a game of three bots plays out in one request)
  "$PY" - "$1" <<'PY'
import json, sys
# honcho puts "HH:MM:SS web.1 | " before each line of the roles
lines = [line.partition(" | ")[2] for line in open(sys.argv[1])]
lines = [json.loads(line) for line in lines if line.startswith("{")]
lines = [line for line in lines if "duration_ms" in line]
for line in sorted(lines, key=lambda line: -line["duration_ms"])[:3]:
    print(f"    slowest: {line['duration_ms']:8.0f} ms  {line['message']}")
PY
}

fuzz() {  # $1: the database the server runs on, for the step names; $2: the server's URL; $3: its log
  # --request-timeout 90: above the slowest answers.
  local st=("$VENV/bin/st" --config-file tests/contract/schemathesis.toml run openapi.yaml --url "$2"
            --seed "$SEED" --checks all --no-color --generation-database none --request-timeout 90)
  export COINS_CONTRACT_URL=$2
  STEP_NAME=  # its own steps, timed on their own
  step "Schemathesis on $1: examples, coverage and fuzzing of every operation, every check (seed $SEED, $MAX_EXAMPLES examples)"
  "${st[@]}" --phases examples,coverage,fuzzing --max-examples "$MAX_EXAMPLES"
  slowest "$3"

  step "Schemathesis on $1: stateful sequences through the links (create, join, deal, hand, play) with real tokens"
  # Every check but use_after_free, whose "a GET after a DELETE must be 404" the contract contradicts: a cancelled
  # ticket stays readable (getTicket answers `status: cancelled`, contract 1.2's quick play). A check named
  # on the command line (--checks all) wins over the config file's per-operation settings.
  "${st[@]}" --phases stateful --max-examples "$STATEFUL_EXAMPLES" --exclude-checks use_after_free
  slowest "$3"
  step "Schemathesis on $1: passed"
}

# The same fuzzing against PostgreSQL, with every check: text PostgreSQL refuses (U+0000) and
# its stricter types must be 4xx there as on SQLite. A fresh schema of CONTRACT_PG_URL's database,
# served by a server of its own on another port.
# shellcheck disable=SC2030  # PORT and URL: the subshell's own server's
fuzz_postgres() (  # $1: the database's URL; a subshell, whose server stops as it ends
  SERVER_PID=
  STEP_NAME=  # its own steps, timed on their own
  trap stop_server EXIT
  trap 'exit 143' TERM
  PORT=$(free_port)
  URL=http://127.0.0.1:$PORT
  step "live server on PostgreSQL (schema $PG_SCHEMA) for Schemathesis"
  start_server "$1" "$WORK/server-postgres.log"
  fuzz PostgreSQL "$URL" "$WORK/server-postgres.log"
)

# The two runs at once, each against its own server and database: most of a run's time is long
# polls waiting out their `wait` (up to 30 s, the contract's bound) on games where nothing happens,
# or bots and the worker playing, time in which the other run's requests go on. The run on
# SQLite prints as it goes; the one on PostgreSQL once both are over.
step "Schemathesis on SQLite and on PostgreSQL, at once"
PG_URL=${CONTRACT_PG_URL:-postgresql://postgres@127.0.0.1:5432/test}
PG_SCHEMA=coins_contract_pg
if [[ ${CONTRACT_POSTGRES:-1} != 0 ]] && psql "$PG_URL" -qc "DROP SCHEMA IF EXISTS $PG_SCHEMA CASCADE; CREATE SCHEMA $PG_SCHEMA"; then
  fuzz_postgres "$PG_URL?options=-csearch_path%3D$PG_SCHEMA" >"$WORK/fuzz-postgres.log" 2>&1 &
  FUZZ_PG_PID=$!
else
  step "Schemathesis on PostgreSQL: skipped (CONTRACT_POSTGRES=0, or no PostgreSQL at $PG_URL)"
  if [[ -n ${CI:-} && ${CONTRACT_POSTGRES:-1} != 0 ]]; then echo "CI: PostgreSQL is required"; exit 1; fi
fi
# shellcheck disable=SC2031  # URL: the server started above (fuzz_postgres's is its own)
fuzz SQLite "$URL" "$WORK/server.log" &  # in the background too: `set -e` holds in it (not in `|| ...`)
FUZZ_SQLITE_PID=$!
fuzz_sqlite=0
wait "$FUZZ_SQLITE_PID" || fuzz_sqlite=$?
FUZZ_SQLITE_PID=
if [[ -n $FUZZ_PG_PID ]]; then
  fuzz_pg=0
  wait "$FUZZ_PG_PID" || fuzz_pg=$?
  FUZZ_PG_PID=
  echo "---- the run on PostgreSQL (at the same time):"
  cat "$WORK/fuzz-postgres.log"
  psql "$PG_URL" -qc "DROP SCHEMA $PG_SCHEMA CASCADE"
  [[ $fuzz_pg == 0 ]] || { echo "Schemathesis on PostgreSQL failed (above)"; exit 1; }
fi
[[ $fuzz_sqlite == 0 ]] || { echo "Schemathesis on SQLite failed (above)"; exit 1; }

step "done"
echo "contract checks passed in $((SECONDS - START))s"
