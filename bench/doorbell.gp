# The doorbell-batching plot: latency from the first post to the last completion against the
# chain length, one line per mode (defer, immediate, mmio), and the timing model's bound where it
# is defined (invalidate); one panel per request type (a skipped type has no rows, no panel).
# Usage: gnuplot -e "data='build/bench/doorbell.tsv'; out='build/bench/doorbell.png'" bench/doorbell.gp
if (!exists("data")) data = 'build/bench/doorbell.tsv'
if (!exists("out")) out = 'build/bench/doorbell.png'

ops = system("awk -F'\t' 'NR > 1 && !seen[$1]++ { printf \"%s \", $1 }' " . data)
modes = system("awk -F'\t' 'NR > 1 && !seen[$2]++ { printf \"%s \", $2 }' " . data)
nops = words(ops)

set terminal pngcairo size 640 * (nops > 1 ? 2 : 1), 480 * (nops > 2 ? 2 : 1) font ",10"
set output out
set datafile separator "\t"
set datafile missing "NaN"
set logscale xy 2
set xlabel "requests in the chain (N)"
set ylabel "cycles, first post to last completion"
set key top left
set grid
if (nops > 1) set multiplot layout (nops > 2 ? 2 : 1), 2

do for [i = 1:nops] {
    op = word(ops, i)
    set title sprintf("%s (simulated cycles; lower is better)", op)
    # the bound is defined for local requests only (invalidate): drawn where the data has it
    bounded = system(sprintf("awk -F'\t' 'NR > 1 && $1 == \"%s\" && $5 != \"NaN\" { n++ } END { print n + 0 }' %s", op, data)) + 0
    if (bounded > 0) {
        plot for [m = 1:words(modes)] data skip 1 \
                 using 3:((strcol(1) eq op && strcol(2) eq word(modes, m)) ? $4 : NaN) \
                 with linespoints title word(modes, m), \
             data skip 1 using 3:((strcol(1) eq op && strcol(2) eq word(modes, 1)) ? $5 : NaN) \
                 with lines dashtype 2 lc rgb "black" title "bound (timing model)"
    } else {
        plot for [m = 1:words(modes)] data skip 1 \
                 using 3:((strcol(1) eq op && strcol(2) eq word(modes, m)) ? $4 : NaN) \
                 with linespoints title word(modes, m)
    }
}
if (nops > 1) unset multiplot
