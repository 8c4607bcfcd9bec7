# Sourced by the test and CI scripts: `stage NAME CMD...` runs CMD as one named stage and prints
# its wall time; `stage_summary` (run on exit) prints every stage's time, so a slow stage shows.
CLIP_STAGE_TIMES=${CLIP_STAGE_TIMES:-}
stage() {
  local name=$1 t0 rc=0 dt
  shift
  t0=$(date +%s)
  echo "=== stage $name: started $(date -u +%H:%M:%S) UTC"
  "$@" || rc=$?
  dt=$(($(date +%s) - t0))
  CLIP_STAGE_TIMES+=$(printf '%-34s %6d s%s' "$name" "$dt" "$([ "$rc" -ne 0 ] && echo "   FAILED (exit $rc)")")$'\n'
  echo "=== stage $name: ${dt} s, exit $rc"
  return "$rc"
}
stage_summary() {
  [ -n "$CLIP_STAGE_TIMES" ] && printf '=== stage times\n%s' "$CLIP_STAGE_TIMES"
  return 0
}
