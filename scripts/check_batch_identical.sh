#!/usr/bin/env bash
# Whether two builds of `kalah` answer a batch alike: N lines (default
# 100000) of positions inside 6-house tables to 16 seeds, positions outside
# them (searched), finished games, other board sizes, and malformed lines
# (bad tokens, not UTF-8, over 4096 bytes, comments, blank lines), answered
# by `query --batch` with and without --pv. The timing field `ms` is masked;
# SED, when given, is applied to the first build's output (a documented
# vocabulary change). Exit status 1 when the outputs differ.
# Usage: scripts/check_batch_identical.sh OLD_KALAH NEW_KALAH [N] [SED]
set -euo pipefail
old=$1; new=$2; N=${3:-100000}; edit=${4:-}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$new" build --pits 6 --max-seeds 16 --tables "$work/tables" > /dev/null 2>&1
python3 - "$N" "$work/batch.txt" <<'PY'
import random, sys
n, path = int(sys.argv[1]), sys.argv[2]
random.seed(7)
def board(pits, seeds):
    h = [0] * (2 * pits)
    for _ in range(seeds):
        h[random.randrange(2 * pits)] += 1
    return h
def pos(pits, seeds, sep=" "):
    h = board(pits, seeds)
    s = [random.randint(0, 20), random.randint(0, 20)]
    return sep.join(map(str, h[:pits] + [s[0]] + h[pits:] + [s[1]])) + sep + random.choice("SN")
out = []
for i in range(n):
    r = random.random()
    if r < 0.80:
        line = pos(6, random.randint(0, 16))
    elif r < 0.84:
        line = "  " + pos(6, random.randint(1, 16), sep="  ") + " \r"
    elif r < 0.845:
        line = pos(random.choice([2, 3]), random.randint(1, 8))
    elif r < 0.85:
        line = pos(6, random.randint(17, 19))
    elif r < 0.88:
        line = "0 0 0 0 0 0 %d 0 0 1 0 0 0 %d S" % (random.randint(0, 30), random.randint(0, 30))
    elif r < 0.90:
        line = random.choice(["# comment", "", "   ", "\t# x"])
    elif r < 0.93:
        line = random.choice(["4 4 4 x 4 4 0 4 4 4 4 4 4 0 S", "1 2 3", "4 4 4 4 4 4 0 4 4 4 4 4 4 0 Q",
                              "300 0 0 0 0 0 0 0 0 0 0 0 0 0 S", "-1 0 0 0 0 0 0 0 0 0 0 0 1 0 N",
                              "{\"quote\\\" and backslash\\\\", "\u00e9t\u00e9 1 2"])
    elif r < 0.94:
        line = "\udcff"  # becomes a byte that is not UTF-8
    elif r < 0.9405:
        line = "7" * 5000
    else:
        line = pos(6, random.randint(1, 16))
    out.append(line)
with open(path, "wb") as f:
    for line in out:
        f.write(line.encode("utf-8", "surrogateescape") + b"\n")
PY
mask='s/"ms":[0-9.e+-]*/"ms":_/'
status=0
for pv in "" "--pv"; do
  for bin in old new; do
    b=${!bin}
    "$b" query --batch "$work/batch.txt" --tables "$work/tables" --threads 1 $pv \
      > "$work/$bin.jsonl" 2> "$work/$bin.err" || echo "$bin $pv: exit status $?" >> "$work/$bin.status"
  done
  sed -e "$mask" ${edit:+-e "$edit"} "$work/old.jsonl" > "$work/old.masked"
  sed -e "$mask" "$work/new.jsonl" > "$work/new.masked"
  lines=$(wc -l < "$work/new.masked")
  if cmp -s "$work/old.masked" "$work/new.masked"; then
    kinds=$(grep -o '"source":"[a-z]*"\|"error"' "$work/new.jsonl" | sort | uniq -c | tr -s ' \n' ' ')
    echo "query --batch $pv: $lines lines, identical (ms masked):$kinds"
  else
    echo "query --batch $pv: outputs differ:"; diff "$work/old.masked" "$work/new.masked" | head -5
    status=1
  fi
done
cmp -s <(sed 's/old/x/' "$work/old.status" 2>/dev/null) <(sed 's/new/x/' "$work/new.status" 2>/dev/null) \
  && echo "exit statuses alike: $(cat "$work/new.status" 2>/dev/null | tr '\n' ' ')" || { echo "exit statuses differ"; status=1; }
exit $status
