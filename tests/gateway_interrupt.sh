#!/usr/bin/env bash
# Ctrl-C in Octave while the MEX gateway works (issue 16: "Ctrl-C during a long call does not
# corrupt state"). An interactive octave-cli runs a loop of clip.conv2 calls, on clip.Array and on
# host inputs, that would take hours; SIGINT (what Ctrl-C sends) lands while it runs, ROUNDS
# times at different moments. After each interrupt the same session must go on: clip.wait()
# returns, clip.Array inputs made before are intact, new calls give the reference result, and
# no clip.Array is lost or leaked (live_arrays as before the loop). Before the pending ids of
# matlab/mex/handles.c, 1 interrupt in 8 left an orphaned device array here; before uploads were
# pending too, every interrupt during a loop of uploads did, and before clip.Array's onCleanup
# guard, an interrupt that Octave took at the start of a delete method did (CI, once).
# Usage: gateway_interrupt.sh OCTAVE_CLI MEX_DIR MATLAB_DIR   (ctest: octave_gateway_interrupt)
set -euo pipefail
octave=$1 mex_dir=$2 m_dir=$3
rounds=${ROUNDS:-3}
tmp=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
mkfifo "$tmp/in"
"$octave" --interactive --no-gui --norc --quiet <"$tmp/in" >"$tmp/out" 2>&1 &
pid=$!
exec 3>"$tmp/in"

# Waits until the session's output has `marker` (printed by the command before it), at most
# `tenths` tenths of a second (600 unless given); returns 1 when it did not come then, or exits
# when the session ended.
poll_for() {
  local marker=$1 tenths=${2:-600} i
  for i in $(seq "$tenths"); do
    grep -q "$marker" "$tmp/out" && return 0
    kill -0 "$pid" 2>/dev/null || { echo "octave exited early:"; cat "$tmp/out"; exit 1; }
    sleep 0.1
  done
  return 1
}
wait_for() {
  poll_for "$1" && return 0
  echo "timed out waiting for $1:"
  cat "$tmp/out"
  exit 1
}

# No octave-workspace file if the session dies of a signal.
echo "crash_dumps_octave_core(false); warning('off', 'Octave:shadowed-function'); addpath('$mex_dir'); addpath('$m_dir');" >&3
echo "A = rand(1024, 'single'); K = rand(9, 'single'); G = clip.Array(A); GK = clip.Array(K);" >&3
echo "ref = gather(clip.conv2(G, GK, 'same')); s = clip.stats(); live = s.live_arrays; disp('READY')" >&3
wait_for READY
for r in $(seq "$rounds"); do
  echo "printf('LOOP %d\\n', $r); for i = 1:1e7; R = clip.conv2(G, GK, 'same'); H = clip.conv2(A, K, 'same'); U = clip.Array(K); end; disp('LOOP ENDED')" >&3
  wait_for "LOOP $r"
  # A different moment each round: 1.0, 1.7, 2.4 ... s into the loop.
  sleep "$(awk -v r="$r" 'BEGIN { print 0.3 + 0.7 * r }')"
  swallowed=$(grep -c "interrupt occurred in" "$tmp/out" || true)
  kill -INT "$pid"
  # Octave turns an interrupt that lands in a handle class's delete method or an onCleanup
  # action (the R, H and U that each iteration replaces) into a warning and goes on with the
  # loop; a user presses Ctrl-C again, and so does this test (CI saw it once in many runs). The
  # loop is over when Octave prompts again (a line that ends in its prompt).
  for again in 1 2 3 4; do
    poll_for "octave:[0-9]*> *$" 30 && break
    now=$(grep -c "interrupt occurred in" "$tmp/out" || true)
    [ "$now" -gt "$swallowed" ] || break
    swallowed=$now
    kill -INT "$pid"
  done
  echo "clip.wait(); R2 = gather(clip.conv2(G, GK, 'same')); H2 = clip.conv2(A, K, 'same'); clear R H U; s = clip.stats(); printf('AFTER %d: %d %d %d %d\\n', $r, isequal(R2, ref), isequal(H2, ref), isequal(gather(G), A), s.live_arrays == live);" >&3
  wait_for "AFTER $r:"
done
echo "exit(0)" >&3
exec 3>&-
wait "$pid" || true
pid=
grep -q "LOOP ENDED" "$tmp/out" && { echo "a loop ended before its interrupt:"; cat "$tmp/out"; exit 1; }
# Octave's prompt may precede a line: take each AFTER line from its word on.
after=$(grep -o "AFTER [0-9]*: .*" "$tmp/out" || true)
echo "$after"
bad=$(grep -cv ": 1 1 1 1$" <<<"$after" || true)
if [ "$bad" -ne 0 ] || [ "$(grep -c "^AFTER" <<<"$after")" -ne "$rounds" ]; then
  echo "state after Ctrl-C differs (AFTER r: conv2 on clip.Array, on host arrays, G intact, no clip.Array lost):"
  cat "$tmp/out"
  exit 1
fi
echo "gateway_interrupt: $rounds interrupts, session intact after each"
