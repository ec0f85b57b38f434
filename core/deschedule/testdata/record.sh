#!/usr/bin/env bash
# Records the real Descheduler's evictions for every corpus scenario:
# corpus/NAME.oracle.jsonl = `descheduleroracle run -f NAME.yaml --policy NAME.policy.yaml`.
# usage: testdata/record.sh [path/to/descheduleroracle]   (after gen.py)
set -euo pipefail
bin=${1:-/tmp/descheduleroracle}
dir=$(cd "$(dirname "$0")" && pwd)/corpus
for y in "$dir"/*.policy.yaml; do
  base=${y%.policy.yaml}
  "$bin" run -f "$base.yaml" --policy "$y" --repeat 3 > "$base.oracle.jsonl"
done
echo "recorded $(ls "$dir"/*.oracle.jsonl | wc -l) scenarios"
