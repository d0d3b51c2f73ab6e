#!/usr/bin/env bash
# Draws figures/radix-tile-runs.svg: stage 3b's step, in a tile cut to 24
# keys, 2-bit digits and warps of 8 lanes so that it fits a page (the lab:
# 6144 keys, 8-bit digits, 32 lanes). The keys put in shared memory sorted
# by digit, then written out a round at a time, so that a round's lanes
# write a few runs, where stage 3a's lanes, writing from their registers,
# write as many places as they hold digits. Digits from a small generator;
# places, runs and the other tiles' keys computed here.
# Run: handouts/figures/draw/radix-tile-runs.sh > handouts/figures/radix-tile-runs.svg
set -euo pipefail

awk -v TILE=24 -v DIGITS=4 -v LANES=8 -v SEED=41 -v R=1 'BEGIN {
    split("#dbe9f4 #f4e3c1 #d8ecd8 #f6c89f", fill, " ")
    x = SEED
    for (i = 0; i < TILE; i++) { x = (x * 75 + 74) % 65537; d[i] = int(x * DIGITS / 65537); count[d[i]]++ }
    for (k = 0; k < DIGITS; k++) { first[k] = sum; sum += count[k] }
    for (i = 0; i < TILE; i++) { place[i] = first[d[i]] + seen[d[i]]++; at[place[i]] = i }
    for (k = 0; k < DIGITS; k++) { x = (x * 75 + 74) % 65537; other[k] = 2 + int(x * 3 / 65537) }   # other tiles keys before this ones, per digit
    for (k = 0; k < DIGITS; k++) { out_start[k] = pos + other[k]; pos += other[k] + count[k] }   # where this tiles run of digit k lands
    for (p = 0; p < TILE; p++) out[p] = out_start[d[at[p]]] + p - first[d[at[p]]]
    for (l = 0; l < LANES; l++) { r3b[d[at[R * LANES + l]]] = 1; r3a[d[R * LANES + l]] = 1 }    # runs round R writes: 3b from the sorted tile, 3a from registers
    for (k = 0; k < DIGITS; k++) { runs3b += r3b[k]; runs3a += r3a[k] }
    # contiguous stretches of round R in the output, for each way
    for (l = 0; l < LANES; l++) { o3b[l] = out[R * LANES + l]; o3a[l] = out[place[R * LANES + l]] }
    seg3b = segments(o3b); seg3a = segments(o3a)

    w = 30; h = 24; left = 200; ow = 18; W = left + TILE * w + 40; H = 400
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\" aria-labelledby=\"title desc\">\n", W, H, W, H
    print "<title id=\"title\">Stage 3b: sort the tile by digit in shared memory, then write it out, so that a round of lanes writes a few runs</title>"
    printf "<desc id=\"desc\">A tile cut to %d keys with 2-bit digits, and warps of %d lanes (the lab: 6144 keys, 8-bit digits, 32 lanes). Each key goes to its place in shared memory, first[d] plus its rank among the keys of its digit, so the tile stands sorted by digit with equal digits in input order. Then lane l of round r writes sorted[r * %d + l] to its digit&#39;s start in the output plus its place. In round %d, stage 3b&#39;s lanes write %d neighbouring places of the sorted tile, which cross %d runs, %d stretches of the output; stage 3a&#39;s round %d, writing keys %d to %d from their registers, reaches %d runs in %d stretches. Between this tile&#39;s runs lie other tiles&#39; keys of the same digit.</desc>\n", TILE, LANES, LANES, R, LANES, runs3b, seg3b, R, R * LANES, (R + 1) * LANES - 1, runs3a, seg3a
    printf "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H
    print "<text x=\"10\" y=\"20\" font-size=\"13\" font-weight=\"bold\">Stage 3b: sort the tile by digit in shared memory, then write it out a round at a time</text>"
    print "<defs><marker id=\"arrow\" viewBox=\"0 0 8 8\" refX=\"7\" refY=\"4\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0 0 L8 4 L0 8 z\" fill=\"#666\"/></marker></defs>"

    y1 = 50
    label(y1, "tile, input order", "digit of each key")
    for (i = 0; i < TILE; i++) box(left + i * w, y1, w - 2, d[i], fill[d[i] + 1], int(i / LANES) == R ? "#b5651d" : "#999", int(i / LANES) == R ? 2 : 1)
    printf "<text x=\"%d\" y=\"%d\" fill=\"#555\">outlined: the keys of round %d, lanes 0 to %d</text>\n", left, y1 - 8, R, LANES - 1
    y2 = 150
    label(y2, "sorted[first[d] + rank]", "the tile in shared memory")
    for (p = 0; p < TILE; p++) box(left + p * w, y2, w - 2, d[at[p]], fill[d[at[p]] + 1], int(p / LANES) == R ? "#2a6f97" : "#999", int(p / LANES) == R ? 2 : 1)
    for (i = R * LANES; i < (R + 1) * LANES; i++)
        printf "<path d=\"M%.1f %d L%.1f %d\" stroke=\"#b5651d\" fill=\"none\" marker-end=\"url(#arrow)\"/>\n", left + i * w + (w - 2) / 2, y1 + h + 2, left + place[i] * w + (w - 2) / 2, y2 - 3
    printf "<text x=\"%d\" y=\"%d\" fill=\"#555\">blue outline: what write_runs stores in round %d, lanes 0 to %d side by side</text>\n", left, y2 + h + 16, R, LANES - 1
    y3 = 270
    label(y3, "output", "grey: other tiles&#39; keys")
    for (q = 0; q < pos; q++) {
        mine = 0
        for (p = 0; p < TILE; p++) if (out[p] == q) { mine = 1; pp = p }
        if (mine) box(left + q * ow, y3, ow - 1, d[at[pp]], fill[d[at[pp]] + 1], int(pp / LANES) == R ? "#2a6f97" : "#999", int(pp / LANES) == R ? 2 : 1, 10)
        else printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#e6e6e6\" stroke=\"#bbb\"/>\n", left + q * ow, y3, ow - 1, h
    }
    for (l = R * LANES; l < (R + 1) * LANES; l++)
        printf "<path d=\"M%.1f %d L%.1f %d\" stroke=\"#2a6f97\" fill=\"none\" marker-end=\"url(#arrow)\"/>\n", left + l * w + (w - 2) / 2, y2 + h + 22, left + out[l] * ow + (ow - 1) / 2, y3 - 3
    printf "<text x=\"10\" y=\"%d\">Stage 3b, round %d: lanes 0 to %d write %d neighbouring places of the sorted tile: %d runs, %d stretches of the output.</text>\n", H - 46, R, LANES - 1, LANES, runs3b, seg3b
    printf "<text x=\"10\" y=\"%d\">Stage 3a, round %d: the same lanes write keys %d to %d from their registers: %d runs, %d stretches, far apart.</text>\n", H - 28, R, R * LANES, (R + 1) * LANES - 1, runs3a, seg3a
    printf "<text x=\"10\" y=\"%d\">The memory moves 32-byte sectors: the fewer stretches a store instruction writes, the fewer sectors it takes.</text>\n", H - 10
    print "</svg>"
}
function label(y, s, t) {
    printf "<text x=\"10\" y=\"%d\" font-weight=\"bold\">%s</text>\n", y + 12, s
    printf "<text x=\"10\" y=\"%d\" fill=\"#555\" font-size=\"11\">%s</text>\n", y + 26, t
}
function box(bx, by, bw, s, f, stroke, sw, fs) {
    printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"/>\n", bx, by, bw, h, f, stroke, sw
    printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\"%s>%s</text>\n", bx + bw / 2, by + 16, fs ? " font-size=\"" fs "\"" : "", s
}
function segments(o,   n, l, m, c, sorted) {
    for (l = 0; l < LANES; l++) sorted[l] = o[l]
    for (l = 1; l < LANES; l++) for (m = l; m > 0 && sorted[m - 1] > sorted[m]; m--) { c = sorted[m]; sorted[m] = sorted[m - 1]; sorted[m - 1] = c }
    n = 1
    for (l = 1; l < LANES; l++) if (sorted[l] != sorted[l - 1] + 1) n++
    return n
}'
