#!/bin/sh
# Sums the fuzz runs kept in runs/TARGET.log: executions, wall seconds, crashes.
cd "$(dirname "$0")"
for log in runs/*.log; do
    [ -e "$log" ] || continue
    awk -v t="$(basename "$log" .log)" '
        /^== / { n++; for (i = 1; i <= NF; i++) if ($i ~ /^wall=/) { sub("wall=", "", $i); sub("s", "", $i); wall += $i }
                 if ($0 ~ /status=[1-9]/) crashes++ }
        /^stat::number_of_executed_units:/ { execs += $2 }
        /^corpus=/ { corpus = substr($0, 8) }
        END { printf "%-8s runs=%d executions=%d wall=%ds (%.2f h) crashes=%d corpus=%s\n", t, n, execs, wall, wall / 3600, crashes, corpus }
    ' "$log"
done
