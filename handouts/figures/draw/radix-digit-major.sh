#!/usr/bin/env bash
# Draws figures/radix-digit-major.svg: stage 2's digit-major table of
# per-tile digit counts, its exclusive scan, and where each tile's keys of
# each digit land. The digits come from a small generator and every count,
# start and place is computed here.
# Run: handouts/figures/draw/radix-digit-major.sh > handouts/figures/radix-digit-major.svg
set -euo pipefail

awk -v TILES=3 -v PER=6 -v DIGITS=4 -v SEED=17 'BEGIN {
    split("#dbe9f4 #f4e3c1 #d8ecd8 #f6c89f", fill, " ")
    x = SEED; n = TILES * PER
    for (i = 0; i < n; i++) {               # the keys digits, tile by tile
        x = (x * 75 + 74) % 65537
        dig[i] = int(x * DIGITS / 65537)
        count[dig[i] * TILES + int(i / PER)]++
    }
    entries = DIGITS * TILES
    for (e = 0; e < entries; e++) { start[e] = sum; sum += count[e] }
    for (i = 0; i < n; i++) {               # a key goes to its groups start
        e = dig[i] * TILES + int(i / PER)   # plus the keys of the group before it
        place[i] = start[e] + seen[e]++
        at[place[i]] = i
    }
    ht = 1                                  # the group the arrow follows: tile 1s
    for (hd = 1; hd < DIGITS - 1 && count[hd * TILES + ht] < 2; hd++) ;   # first digit >= 1 with 2 keys
    he = hd * TILES + ht

    w = 36; h = 26; left = 190; W = left + n * w + 2 * 14 + 20; H = 390
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\" aria-labelledby=\"title desc\">\n", W, H, W, H
    print "<title id=\"title\">Stage 2: the digit-major table of each tile&#39;s digit counts, and its exclusive scan giving every tile its place for every digit</title>"
    printf "<desc id=\"desc\">%d keys in %d tiles of %d, with 2-bit digits 0 to 3. Each tile counts its keys of each digit; the counts are stored digit-major, at counts[d * tiles + t], so memory holds digit 0 of tiles 0, 1, 2, then digit 1 of tiles 0, 1, 2, and so on. The exclusive scan of that table gives, for each digit and tile, the first output place of that tile&#39;s keys of that digit. Tile %d&#39;s keys of digit %d start at place %d: after the %d keys of smaller digits and tile 0&#39;s %d of digit %d. In the output the keys stand sorted by digit, and within a digit in tile order, then input order.</desc>\n", n, TILES, PER, ht, hd, start[he], start[hd * TILES], count[hd * TILES], hd
    printf "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H
    print "<text x=\"10\" y=\"20\" font-size=\"13\" font-weight=\"bold\">Stage 2: count each tile&#39;s digits digit-major, scan the table, and every group of keys knows its place</text>"

    # the keys, tile by tile
    y = 50
    print "<text x=\"10\" y=\"" y + 17 "\" font-weight=\"bold\">digits of the keys</text>"
    for (i = 0; i < n; i++) {
        t = int(i / PER); kx = left + i * w + t * 14
        printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"/>\n", kx, y, w - 2, h, fill[dig[i] + 1], (t == ht && dig[i] == hd) ? "#b5651d" : "#999", (t == ht && dig[i] == hd) ? 2 : 1
        printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", kx + (w - 2) / 2, y + 17, dig[i]
    }
    for (t = 0; t < TILES; t++)
        printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">tile %d</text>\n", left + (t * PER + PER / 2) * w + t * 14 - 1, y - 6, t

    # the table and its scan
    y1 = 130; y2 = y1 + 60; cw = 54
    print "<text x=\"10\" y=\"" y1 - 10 "\" fill=\"#555\">digit d, tile t</text>"
    print "<text x=\"10\" y=\"" y1 + 17 "\" font-weight=\"bold\">counts[d * 3 + t]</text>"
    print "<text x=\"10\" y=\"" y2 + 17 "\" font-weight=\"bold\">exclusive scan</text>"
    for (e = 0; e < entries; e++) {
        d = int(e / TILES); t = e % TILES; cx = left + e * cw + d * 10
        hi = (e == he)
        printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%d, %d</text>\n", cx + (cw - 2) / 2, y1 - 10, d, t
        printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"/>\n", cx, y1, cw - 2, h, fill[d + 1], hi ? "#b5651d" : "#999", hi ? 2 : 1
        printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", cx + (cw - 2) / 2, y1 + 17, count[e]
        printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"/>\n", cx, y2, cw - 2, h, "#f4f4f4", hi ? "#b5651d" : "#999", hi ? 2 : 1
        printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", cx + (cw - 2) / 2, y2 + 17, start[e]
        printf "<path d=\"M%.1f %d L%.1f %d\" stroke=\"#666\" marker-end=\"url(#arrow)\"/>\n", cx + (cw - 2) / 2, y1 + h + 2, cx + (cw - 2) / 2, y2 - 4
        if (e == he) hx = cx + (cw - 2) / 2
    }
    print "<defs><marker id=\"arrow\" viewBox=\"0 0 8 8\" refX=\"7\" refY=\"4\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0 0 L8 4 L0 8 z\" fill=\"#666\"/></marker></defs>"

    # the output
    y3 = 300
    print "<text x=\"10\" y=\"" y3 - 10 "\" fill=\"#555\">place in the output</text>"
    print "<text x=\"10\" y=\"" y3 + 17 "\" font-weight=\"bold\">keys after the pass</text>"
    for (p = 0; p < n; p++) {
        i = at[p]; t = int(i / PER); ox = left + p * w
        hi = (t == ht && dig[i] == hd)
        printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%d</text>\n", ox + (w - 2) / 2, y3 - 10, p
        printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"/>\n", ox, y3, w - 2, h, fill[dig[i] + 1], hi ? "#b5651d" : "#999", hi ? 2 : 1
        printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", ox + (w - 2) / 2, y3 + 17, dig[i]
        printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\" fill=\"#555\">t%d</text>\n", ox + (w - 2) / 2, y3 + h + 12, t
    }
    printf "<path d=\"M%.1f %d L%.1f %d\" stroke=\"#b5651d\" stroke-width=\"1.5\" fill=\"none\" marker-end=\"url(#arrow)\"/>\n", hx, y2 + h + 2, left + start[he] * w + (w - 2) / 2, y3 - 24
    printf "<text x=\"10\" y=\"%d\">Read in memory order, the table lists digit 0 of every tile, then digit 1 of every tile: the order the keys must leave in.</text>\n", H - 28
    printf "<text x=\"10\" y=\"%d\">Tile %d&#39;s keys of digit %d (outlined) start at place %d: after the %d keys of smaller digits, and tile 0&#39;s %d of digit %d.</text>\n", H - 10, ht, hd, start[he], start[hd * TILES], count[hd * TILES], hd
    print "</svg>"
}'
