#!/bin/sh
# Instructions per call of one client on one workload, at concurrency 1, under callgrind (a steadier witness than
# wall time on a shared machine). Usage:
#   callgrind.sh <speed bench binary> <workload> <client> [n1 n2]   whole process
#   callgrind.sh --main <speed bench binary> <workload> <client> [n]  calling thread only
# e.g. callgrind.sh target/release/deps/speed-<hash> structured-large oa 20 220
#
# Whole process: runs the binary twice (OA_SPEED_CALLS, see calls.rs) and prints (I(n2) - I(n1)) / (n2 - n1), so
# setup and the pre-check cancel out; it counts every thread (the client's, the runtime's workers, the observers'
# delivery task, and the loopback server's), so it moves with how the stream's bytes happen to be split into reads.
# --main: one run, counting only while the calling thread is inside the calls (`speed::calls::run`): the client's
# own future (request building, reading and decoding the reply, validation, events built on the hook), not the
# runtime's workers (hyper's connection task, the observers' delivery task) nor the server; prints I / n.
set -eu
main=no
if [ "$1" = --main ]; then main=yes; shift; fi
bin=$1 workload=$2 client=$3
out=$(mktemp -d)
if [ $main = yes ]; then
    n=${4:-100}
    OA_SPEED_CALLS="$workload/$client/$n" valgrind --tool=callgrind --collect-atstart=no \
        --toggle-collect='speed::calls::run*' --callgrind-out-file="$out/cg" "$bin" >/dev/null 2>"$out/log"
    i=$(sed -n 's/^summary: //p' "$out/cg")
    echo "$workload $client (calling thread): $((i / n)) instructions per call (I($n)=$i)"
    rm -r "$out"
    exit 0
fi
n1=${4:-20} n2=${5:-220}
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
