# shellcheck shell=bash
# Sourced by .ci/contract.sh and .ci/clients.sh: timed steps, and the service on one port of 127.0.0.1
# (free_port: another one)
# as the README serves it (honcho runs the Procfile: coins-realtime answers, coins-worker does what is
# due). Needs $VENV and $PY set, and the repository as the working directory.

# shellcheck disable=SC2034  # read by the scripts that source this file
START=$SECONDS
STEP_NAME=
STEP_START=$SECONDS
step() {  # prints how long the previous step took, then names the next
  [[ -n $STEP_NAME ]] && echo "    ${STEP_NAME%%:*} took $((SECONDS - STEP_START))s"
  STEP_NAME=$1
  STEP_START=$SECONDS
  echo "==> $1"
}

running() {  # $1: a pid; not gone, nor a zombie waiting for `wait` (which kill -0 still finds)
  local state
  state=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $state != Z* ]]
}

SERVER_PID=
stop_server() {  # SIGTERM, up to 10 s, then SIGKILL; reaped, so its port is free again
  [[ -n $SERVER_PID ]] || return 0
  kill -TERM "$SERVER_PID" 2>/dev/null || true
  for _ in $(seq 50); do running "$SERVER_PID" || break; sleep 0.2; done
  kill -KILL "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=
}

free_port() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
URL=http://127.0.0.1:$PORT
start_server() {  # $1: DATABASE_URL, $2: the log file; serves it on $URL once /readyz answers
  # Bots' moves at once (no pace, no trick pause), as in the tests, unless the caller sets them.
  PATH="$VENV/bin:$PATH" BIND=127.0.0.1:$PORT REALTIME_THREADS=8 WORKER_POLL_MS=100 DATABASE_URL="$1" \
    BOT_PACE_MS="${BOT_PACE_MS:-0}" TRICK_PAUSE_MS="${TRICK_PAUSE_MS:-0}" \
    "$VENV/bin/honcho" -f Procfile start -p "$PORT" >"$2" 2>&1 &
  SERVER_PID=$!
  for i in $(seq 150); do
    "$PY" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + "/readyz", timeout=2)' "$URL" 2>/dev/null && break
    if ! kill -0 "$SERVER_PID" 2>/dev/null || [[ $i -eq 150 ]]; then
      cat "$2"; echo "the server did not start on $1"; exit 1
    fi
    sleep 0.2
  done
}
