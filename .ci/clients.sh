#!/usr/bin/env bash
# The client packages (clients/python, clients/typescript; docs/sdk.md) as their users get them: each is
# built, installed from the built file into a clean place (a fresh venv run with `python -I`, an empty
# npm project; the repository on neither path), and its quickstart plays a game against two bots on a
# served instance; then the bot examples (examples/play_random.py, examples/bot_player.py,
# clients/typescript/examples/bot_player.mjs), copied beside them, play on the installed packages. The packages' own tests run in the test suite (tests/clients) and here (node --test).
#
#   .ci/clients.sh                 # uses .venv (the README's test command made it)
#   VENV=/path/to/venv .ci/clients.sh
#
# Publishes nothing. Needs PyPI and the npm registry (the packages' dependencies), as .ci/run does.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=${VENV:-.venv}
VENV=$(cd "$VENV" && pwd)
PY=$VENV/bin/python
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PROGRESS_BAR=off

# shellcheck source=.ci/lib.sh
. .ci/lib.sh
WORK=$(mktemp -d -t coins-clients.XXXXXX)
trap 'stop_server; rm -rf "$WORK"' EXIT

step "Python: generate from openapi.yaml (openapi-python-client), build the wheel and the sdist, mypy --strict (with the examples)"
"$PY" -m pip install -q "openapi-python-client==0.29.1" "build==1.3.0"
PATH="$VENV/bin:$PATH" "$PY" clients/python/generate.py
"$PY" -m build --outdir "$WORK/dist" clients/python >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; exit 1; }
ls "$WORK/dist"
# The hand-written modules, the quickstart and the examples on the package, strict (the generated
# part is openapi-python-client's).
MYPYPATH=clients/python/src:examples "$VENV/bin/mypy" --strict --follow-imports=silent --no-incremental \
  clients/python/src/coins_client/events.py clients/python/src/coins_client/sse.py clients/python/examples/quickstart.py \
  examples/bot_player.py examples/play_random.py examples/coins_http.py examples/webhook_receiver.py

step "Python: the wheel in a clean venv"
python3.11 -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q "$WORK"/dist/coins_client-*.whl
mkdir "$WORK/python-app"
cp clients/python/examples/quickstart.py examples/{bot_player,play_random,coins_http,webhook_receiver}.py "$WORK/python-app/"
(cd "$WORK/python-app" && "$WORK/venv/bin/python" -I -c '
import coins_client, sys
assert sys.argv[1] not in coins_client.__file__, coins_client.__file__
print("coins-client", coins_client.__version__, "from", coins_client.__file__)' "$ROOT")

step "TypeScript: npm ci, build (openapi-typescript, tsc), type-check the quickstart, node --test, npm pack"
(
  cd clients/typescript
  npm ci --no-audit --no-fund --loglevel=error
  npm run -s build
  npm run -s check:examples
  npm test
  npm pack --silent --pack-destination "$WORK"
)

step "TypeScript: the tarball in an empty npm project"
mkdir "$WORK/node-app"
cp clients/typescript/examples/{quickstart,bot_player}.mjs "$WORK/node-app/"
(
  cd "$WORK/node-app"
  echo '{"private": true, "type": "module"}' >package.json
  npm install --no-audit --no-fund --loglevel=error "$WORK"/coins-client-*.tgz
  node -e 'import("coins-client").then((m) => console.log("coins-client for contract", m.CONTRACT_VERSION))'
)

step "a served instance (the Procfile's roles under honcho on one port, SQLite)"
start_server "sqlite:///$WORK/coins.sqlite3" "$WORK/server.log"

step "the quickstarts, on the installed packages, play a game against two bots"
(cd "$WORK/python-app" && timeout 120 "$WORK/venv/bin/python" -I quickstart.py "$URL" | tail -n 2)
(cd "$WORK/node-app" && timeout 120 node quickstart.mjs "$URL" | tail -n 2)

step "the bot examples, on the installed packages: play_random.py; a Python and a TypeScript bot_player queue at once"
# `python -E -s`, not -I: an example imports its neighbours (coins_http.py), so its folder is on the path.
(cd "$WORK/python-app" && timeout 120 "$WORK/venv/bin/python" -E -s play_random.py --base-url "$URL" --target-score 5 --seed 1 | tail -n 2)
BOT=(--base-url "$URL" --games 1 --target-score 5 --unrated --bots-after 0 --timeout 110)
(cd "$WORK/python-app" && timeout 120 "$WORK/venv/bin/python" -E -s bot_player.py "${BOT[@]}" --key-file "$WORK/py.key" --name Pyra) >"$WORK/bot-py.log" 2>&1 &
PY_BOT=$!
(cd "$WORK/node-app" && timeout 120 node bot_player.mjs "${BOT[@]}" --key-file "$WORK/ts.key" --name Tessa) >"$WORK/bot-ts.log" 2>&1 ||
  { cat "$WORK/bot-ts.log"; echo "the TypeScript bot failed"; exit 1; }
wait "$PY_BOT" || { cat "$WORK/bot-py.log"; echo "the Python bot failed"; exit 1; }
tail -n 1 "$WORK/bot-py.log" "$WORK/bot-ts.log"

step "done"
echo "client packages checked in $((SECONDS - START))s"
