#!/usr/bin/env bash
# The spec through the generators and linters .ci/contract.sh does not run (issue 30, item 3):
# Redocly CLI's recommended rules, @hey-api/openapi-ts, and openapi-generator's `python` and
# `typescript-fetch`; each must take openapi.yaml without an error or a warning about it, and its
# output must type-check (tsc --strict, mypy). docs/sdk.md, "Generator versions tested", says what
# each one is checked for and the one finding left open.
#
#   .ci/generators.sh                # uses .venv
#   VENV=/path/to/venv .ci/generators.sh
#
# Installs what it needs itself: npm ci (Redocly, @hey-api/openapi-ts, TypeScript: package.json),
# openapi-generator-cli from PyPI into $VENV (it bundles its jar: nothing else is downloaded; it
# runs on Debian's Java, installed when missing), and the generated Python package's own
# dependencies with mypy into a venv in $WORK.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=${VENV:-.venv}
VENV=$(cd "$VENV" && pwd)
PY=$VENV/bin/python
export PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1

OPENAPI_GENERATOR="openapi-generator-cli==7.26.0"
MYPY=("mypy==1.19.1" "types-python-dateutil==2.9.0.20261122")  # mypy, the stubs of the package's python-dateutil

# shellcheck source=.ci/lib.sh
. .ci/lib.sh  # step
WORK=$(mktemp -d -t coins-generators.XXXXXX)
PIP_PID=
cleanup() {  # the background install, if still running, then the work folder
  if [[ -n $PIP_PID ]] && kill "$PIP_PID" 2>/dev/null; then wait "$PIP_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# Generated TypeScript is compiled as a bundler-built browser or Node 18+ module would be.
TSC=("$ROOT/node_modules/.bin/tsc" --strict --noEmit --skipLibCheck false --target es2022 --module esnext
     --moduleResolution bundler --lib "es2022,dom,dom.iterable")

# Lines of openapi-generator's log that are not about this spec, each with its reason; any other
# WARN or ERROR line fails the step.
# - OpenAPI 3.1 support is announced as beta on every 3.1 document: the spec is 3.1 by design
#   (docs/compatibility.md), and the outputs below are type-checked instead.
# - "Failed to get the schema name: null": the generator asked for the name of a schema that has
#   no $ref (an inline one), logged at most once at a time and without naming it; it names inline
#   schemas itself (e.g. `CreateGame_seats_inner`, its INFO lines). Bisecting the components found
#   no one schema that causes it (only several together); the outputs are type-checked below.
GENERATOR_NOISE='OpenAPI 3\.1 support is still in beta|Failed to get the schema name: null'

generate() {  # $1: generator name, $2: output folder; then the generator's own options
  local name=$1 out=$2
  shift 2
  "$VENV/bin/openapi-generator-cli" generate -i openapi.yaml -g "$name" -o "$out" "$@" >"$WORK/$name.log" 2>&1 ||
    { cat "$WORK/$name.log"; echo "openapi-generator $name failed"; exit 1; }
  if grep -E '^\[main\] (WARN|ERROR)|Exception' "$WORK/$name.log" | grep -vE "$GENERATOR_NOISE"; then
    echo "openapi-generator $name reported the warnings or errors above: the spec must generate cleanly"
    exit 1
  fi
}

only_known() {  # $1: a checker's output, $2: the name of the check, $3: an ERE of the known errors
  # Fails on any error line not matching $3, and when no line matches it any more (then the known
  # finding went away, and this exception, its comment and docs/sdk.md are to go with it).
  if grep -E ': error:|: error TS[0-9]+:' "$1" | grep -vE "$3"; then
    echo "$2: the errors above are new"; exit 1
  fi
  grep -qE "$3" "$1" || { echo "$2: the known finding is gone: remove its exception here and in docs/sdk.md"; exit 1; }
  echo "$2: only the known finding ($(grep -cE "$3" "$1") lines: the feed unions, docs/sdk.md)"
}

step "install: npm ci; $OPENAPI_GENERATOR into $VENV; Java"
# .ci/run's contract step has just run npm ci: again only when node_modules is not package-lock.json's.
npm ls --depth=0 >/dev/null 2>&1 || npm ci --no-audit --no-fund --loglevel=error
"$PY" -m pip install -q "$OPENAPI_GENERATOR"
if ! command -v java >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless >/dev/null
fi

step "Redocly CLI: the recommended ruleset, no errors and no warnings (.redocly.lint-ignore.yaml: the probes)"
# Its banner about Node.js 20's end of life is about the runtime, not the spec; a finding is a
# "line:column  warning|error  rule" line of the stylish format.
npx --no-install redocly lint --extends=recommended --format=stylish --max-problems=100 openapi.yaml \
  >"$WORK/redocly.log" 2>&1 || { cat "$WORK/redocly.log"; echo "Redocly reported errors"; exit 1; }
if grep -E '^ +[0-9]+:[0-9]+ +(warning|error) ' "$WORK/redocly.log" || ! grep -q 'valid' "$WORK/redocly.log"; then
  echo "Redocly reported the findings above"; exit 1
fi
grep -E 'valid|ignored' "$WORK/redocly.log"

step "openapi-generator python: generates (no warning); its dependencies and mypy from PyPI into a venv, meanwhile the TypeScript steps"
generate python "$WORK/python" --package-name coins_openapi \
  --global-property apiTests=false,modelTests=false
python3.11 -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q "$WORK/python" "${MYPY[@]}" >"$WORK/pip.log" 2>&1 &
PIP_PID=$!

step "@hey-api/openapi-ts: generates (no warning), tsc --strict over its output"
npx --no-install openapi-ts -i openapi.yaml -o "$WORK/hey-api" >"$WORK/hey-api.log" 2>&1 ||
  { cat "$WORK/hey-api.log"; echo "@hey-api/openapi-ts failed"; exit 1; }
if grep -iE "warn|error" "$WORK/hey-api.log"; then echo "@hey-api/openapi-ts reported warnings"; exit 1; fi
find "$WORK/hey-api" -name '*.ts' -print0 | xargs -0 "${TSC[@]}"

step "openapi-generator typescript-fetch: generates (no warning); tsc --strict over its output"
# Record (the schema of getRecord) is also TypeScript's built-in Record: the generator renames the
# model ModelRecord and warns; the mapping names it so (the same output) without the warning.
generate typescript-fetch "$WORK/typescript-fetch" --model-name-mappings Record=ModelRecord \
  --global-property apiDocs=false,modelDocs=false
# The known errors: the same feed unions, which typescript-fetch flattens into one interface of
# every event's properties, then returns a member for it (TS2740 in FeedEvent.ts, PlayerEvent.ts).
(find "$WORK/typescript-fetch" -name '*.ts' -print0 | xargs -0 "${TSC[@]}") >"$WORK/tsc.log" 2>&1 || true
only_known "$WORK/tsc.log" "tsc over openapi-generator typescript-fetch" \
  '^[^ ]*/models/(Feed|Player)Event\.ts\([0-9]+,[0-9]+\): error TS2740: '

step "mypy over openapi-generator python's package"
wait "$PIP_PID" || { cat "$WORK/pip.log"; echo "installing the generated Python package failed"; exit 1; }
# mypy's default checks, not --strict: the generator's own code is not written for --strict (373
# errors on 7.26.0, every one untyped-def or Any-return in its api and model templates, none about
# a schema), so --strict would only measure the templates. The two known errors are the feed
# unions (docs/sdk.md): an item of a page is `anyOf: [FeedEvent, UnlistedFeedEvent]`, FeedEvent
# itself an anyOf of the events; the generator types the inner union as FeedEvent but returns one
# of its members, which mypy refuses ([return-value] in the two *_page_items_inner.py).
(cd "$WORK/python" && "$WORK/venv/bin/mypy" --no-incremental --cache-dir=/dev/null coins_openapi) >"$WORK/mypy.log" 2>&1 || true
tail -n 1 "$WORK/mypy.log"
only_known "$WORK/mypy.log" "mypy over openapi-generator python" \
  '^coins_openapi/models/(player_)?event_page_items_inner\.py:[0-9]+: error: Incompatible return value type .*\[return-value\]$'

step "done"
echo "generator checks passed in $((SECONDS - START))s"
