#!/usr/bin/env bash
# The spec through the generators and linters (issue 30, item 3): Redocly CLI's recommended rules,
# Spectral's `spectral:oas` ruleset (.spectral.yaml), @hey-api/openapi-ts, and openapi-generator's
# `python` and `typescript-fetch`; each must take openapi.yaml without an error or a warning about
# it, and its output must type-check (tsc --strict, mypy) with no error at all. docs/sdk.md,
# "Generator versions tested", says what each one is checked for.
#
#   .ci/generators.sh                # uses .venv
#   VENV=/path/to/venv .ci/generators.sh
#
# Installs what it needs itself: npm ci (Redocly, Spectral, @hey-api/openapi-ts, TypeScript:
# package.json, pinned; Spectral's rulesets are in its package, nothing is downloaded when it runs),
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

step "install: npm ci; $OPENAPI_GENERATOR into $VENV; Java"
# .ci/run's web client step has run npm ci: again only when node_modules is not package-lock.json's.
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

step "Spectral: the spectral:oas ruleset (.spectral.yaml), no errors and no warnings"
npx --no-install spectral lint --fail-severity=warn --ruleset .spectral.yaml openapi.yaml

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
find "$WORK/typescript-fetch" -name '*.ts' -print0 | xargs -0 "${TSC[@]}"

step "mypy over openapi-generator python's package"
wait "$PIP_PID" || { cat "$WORK/pip.log"; echo "installing the generated Python package failed"; exit 1; }
# mypy's default checks, not --strict: the generator's own code is not written for --strict (373
# errors on 7.26.0, every one untyped-def or Any-return in its api and model templates, none about
# a schema), so --strict would only measure the templates. No error is accepted: the feed unions
# that it once mistyped (a union inside a union: an `anyOf` whose first form was the `anyOf` of the
# events) are a flat `anyOf` of the events and the unlisted one, and a `oneOf` with a discriminator
# for a stream's `data:` (docs/compatibility.md, "Unions of responses").
(cd "$WORK/python" && "$WORK/venv/bin/mypy" --no-incremental --cache-dir=/dev/null coins_openapi)

step "done"
echo "generator checks passed in $((SECONDS - START))s"
