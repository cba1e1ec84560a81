#!/bin/sh
# Instructions per call of one client on one workload, at concurrency 1, under callgrind (a steady witness where
# wall time swings on a shared machine). Usage: callgrind.sh <speed bench binary> <workload> <client> [n1 n2]
# e.g. callgrind.sh target/release/deps/speed-<hash> structured-large oa 20 60
# Runs the binary twice (OA_SPEED_CALLS, see calls.rs) and prints (I(n2) - I(n1)) / (n2 - n1).
set -eu
bin=$1 workload=$2 client=$3 n1=${4:-20} n2=${5:-60}
out=$(mktemp -d)
total() {
    OA_SPEED_CALLS="$workload/$client/$1" valgrind --tool=callgrind --callgrind-out-file="$out/cg.$1" \
        "$bin" >/dev/null 2>"$out/log.$1"
    sed -n 's/^summary: //p' "$out/cg.$1"
}
i1=$(total "$n1")
i2=$(total "$n2")
if [ "$i2" -le "$i1" ]; then
    # Seen once in dozens of runs: a total below the setup alone. Say so rather than print a negative count.
    echo "$workload $client: inconsistent totals I($n1)=$i1, I($n2)=$i2; run again" >&2
    exit 1
fi
echo "$workload $client: $(( (i2 - i1) / (n2 - n1) )) instructions per call (I($n1)=$i1, I($n2)=$i2)"
rm -r "$out"
