#!/bin/sh
# Records the real kubelet eviction manager's answers for every scenario in
# oracle/: NAME.oracle.jsonl. usage: record.sh [KUBEORACLE] (default /tmp/kubeoracle)
set -eu
O=${1:-/tmp/kubeoracle}
cd "$(dirname "$0")/oracle"
for y in *.yaml; do
  case $y in *.kubelet.yaml) continue ;; esac
  n=${y%.yaml}
  args=""
  if [ -f "$n.kubelet.yaml" ]; then args="--config $n.kubelet.yaml"; fi
  if [ -f "$n.args" ]; then args="$args $(cat "$n.args")"; fi
  i=0
  stats=""
  while [ -f "$n.stats$i.json" ]; do
    stats="$stats --stats $n.stats$i.json"
    i=$((i + 1))
  done
  # shellcheck disable=SC2086
  "$O" evict -f "$y" $stats $args >"$n.oracle.jsonl" 2>/dev/null
done
