# bench.gp: make bench's plot of one lab and variant (tools/bench-plot.sh
# sets data, a block a stage in the order of `stages`; legend[k], the k-th
# stage's line in the key; svg, title and xtitle). Under the title, the key,
# two columns naming each stage by its idea; under it three panels, one above
# the other, against n: time per element, the share of the copy's bandwidth,
# and the speedup over one CPU core. One line a stage, each with its own
# colour and point; the library thick and dashed, the copy grey.
# 900 px wide with 16 px text: at 16 cm, a printed page's width, the text is
# about 8 pt.
stage_count = words(stages)
key_rows = (stage_count + 1) / 2
page_w = 900.
title_h = 50.; key_h = 26. * key_rows + 62; panel_h = 230.; gap_h = 96.; foot_h = 70.
height = title_h + key_h + 3 * panel_h + 2 * gap_h + foot_h

set terminal svg size page_w, height dynamic font "sans,16"
set output svg
set logscale x 2
set format x "2^{%L}"
set grid lt 1 lc rgb "#dddddd"
set datafile missing "NaN"
set lmargin at screen 120 / page_w
set rmargin at screen 1 - 24 / page_w
set tics font ",15"

thickness(s) = s eq "lib" ? 3.5 : 2
dash(s) = s eq "lib" ? 2 : 1
# a stage's colour and point by its place among the stages, after the copy
# and the library: stage 1 is blue with a disc in every lab
yardsticks = 0
do for [k = 1:stage_count] { yardsticks = yardsticks + (word(stages, k) eq "copy" || word(stages, k) eq "lib") }
shade(s, k) = s eq "copy" ? "#999999" : s eq "lib" ? "#000000" : \
              word("#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #17becf #bcbd22", \
                   (k - yardsticks - 1) % 9 + 1)
point(s, k) = s eq "copy" ? 7 : s eq "lib" ? 5 : word("7 9 5 11 13 15 4 6 8", (k - yardsticks - 1) % 9 + 1) + 0
# panel p (1 at the top): its plot area's bottom and top, as a share of the height
panel_top(p) = 1 - (title_h + key_h + (p - 1) * (gap_h + panel_h)) / height
panel_bottom(p) = panel_top(p) - panel_h / height

set multiplot title title noenhanced font ",19"

set title "time per element"
set tmargin at screen panel_top(1)
set bmargin at screen panel_bottom(1)
set logscale y
set ylabel "ns / element"
set key at screen 24 / page_w, 1 - title_h / height left top maxrows key_rows \
    reverse Left width -8 samplen 2.5 spacing 1.15 font ",15"
plot for [k = 1:stage_count] data index (k - 1) using 1:2 with linespoints \
     lw thickness(word(stages, k)) dt dash(word(stages, k)) lc rgb shade(word(stages, k), k) \
     pt point(word(stages, k), k) ps 0.9 title legend[k] noenhanced

unset key
set title "bandwidth, share of the copy's"
set tmargin at screen panel_top(2)
set bmargin at screen panel_bottom(2)
unset logscale y
set ylabel "% of the copy"
set yrange [0:*]
plot for [k = 1:stage_count] data index (k - 1) using 1:3 with linespoints \
     lw thickness(word(stages, k)) dt dash(word(stages, k)) lc rgb shade(word(stages, k), k) \
     pt point(word(stages, k), k) ps 0.9

set title "speedup over one CPU core (dotted: 1x)"
set tmargin at screen panel_top(3)
set bmargin at screen panel_bottom(3)
set logscale y
set autoscale y
set ylabel "CPU time / GPU time"
set xlabel xtitle
plot for [k = 1:stage_count] data index (k - 1) using 1:4 with linespoints \
     lw thickness(word(stages, k)) dt dash(word(stages, k)) lc rgb shade(word(stages, k), k) \
     pt point(word(stages, k), k) ps 0.9, \
     1 with lines lc rgb "#555555" dt 3 lw 2

unset multiplot
