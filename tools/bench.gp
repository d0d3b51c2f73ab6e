# bench.gp: make bench's plot of one lab (tools/bench-plot.sh sets data, a
# block a stage in the order of `stages`, and svg and title). Three panels
# against n: time per element, the share of the copy's bandwidth, and the
# speedup over one CPU core. One line a stage; the library thick and dashed,
# the copy grey.
set terminal svg size 1260,440 dynamic font "sans,11"
set output svg
set logscale x 2
set format x "2^{%L}"
set xlabel "n (elements)"
set grid
set datafile missing "NaN"

label(s) = s eq "lib" ? "library" : s eq "copy" ? "copy (yardstick)" : "stage ".s
width(s) = s eq "lib" ? 3 : 1.5
dash(s) = s eq "lib" ? 2 : 1
shade(s, k) = s eq "copy" ? "#999999" : s eq "lib" ? "#000000" : \
              word("#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #17becf #bcbd22", \
                   (k - 1) % 9 + 1)

set multiplot layout 1,3 title title font ",12"

set title "time per element"
set logscale y
set ylabel "ns / element"
set key top right font ",9" spacing 0.9
plot for [k = 1:words(stages)] data index (k - 1) using 1:2 with linespoints \
     lw width(word(stages, k)) dt dash(word(stages, k)) lc rgb shade(word(stages, k), k) \
     pt 7 ps 0.4 title label(word(stages, k))

unset key
set title "bandwidth, share of the copy's"
unset logscale y
set ylabel "% of the copy"
set yrange [0:*]
plot for [k = 1:words(stages)] data index (k - 1) using 1:3 with linespoints \
     lw width(word(stages, k)) dt dash(word(stages, k)) lc rgb shade(word(stages, k), k) \
     pt 7 ps 0.4

set title "speedup over one CPU core (dotted: 1x)"
set logscale y
set autoscale y
set ylabel "CPU time / GPU time"
plot for [k = 1:words(stages)] data index (k - 1) using 1:4 with linespoints \
     lw width(word(stages, k)) dt dash(word(stages, k)) lc rgb shade(word(stages, k), k) \
     pt 7 ps 0.4, \
     1 with lines lc rgb "#999999" dt 3

unset multiplot
