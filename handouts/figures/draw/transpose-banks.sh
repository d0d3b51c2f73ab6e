#!/usr/bin/env bash
# transpose-banks.sh: the figure of transpose's stages 2 and 3, on stdout.
#   handouts/figures/draw/transpose-banks.sh > handouts/figures/transpose-banks.svg
# Shared memory drawn as rows of 32 words, one column a bank (word k is in
# bank k mod 32), holding float tile[32][32] and then tile[32][33]. A warp
# reads column COL of the tile (lane x: tile[x][COL], word PITCH x + COL);
# the script computes each lane's bank and how many lanes each bank serves.
set -eu
awk -v COL=1 'BEGIN {
    cw = 10; ch = 9; top = 78; left = 50; gap = 56
    width = 2 * (left + 32 * cw) + gap; height = top + 33 * ch + 92
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"13\">\n", width, height
    printf "<title>Which of shared memory'"'"'s 32 banks a warp hits when it reads column %d of a 32x32 tile, without and with a pad column</title>\n", COL
    print "<desc>Two grids of shared memory, each row 32 words wide, so that each column of the grid is one bank."
    printf "Left: float tile[32][32]. Lane x of a warp reads tile[x][%d], word 32x + %d, and all 32 lanes land in bank %d:", COL, COL, COL
    print "one bank serves 32 lanes, one after another, so the read takes 32 wavefronts."
    printf "Right: float tile[32][33]. Each row of the tile is one word longer, so lane x reads word 33x + %d,", COL
    printf "in bank (x + %d) mod 32: a diagonal that meets every bank once, so the read takes 1 wavefront.</desc>\n", COL
    printf "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", width, height
    print "<text x=\"20\" y=\"22\" font-weight=\"bold\">A warp reads a column of the tile: lane x reads tile[x][" COL "]. Which banks does it hit?</text>"
    panel(0, 32, "float tile[32][32]: word 32x + " COL)
    panel(left + 32 * cw + gap, 33, "float tile[32][33]: word 33x + " COL)
    y = top + 33 * ch + 72
    printf "<g font-size=\"11\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f3f3f3\" stroke=\"#999\"/>", left, y - 9, cw, ch
    printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#dcdcdc\" stroke=\"#999\"/>", left + cw, y - 9, cw, ch
    printf "<text x=\"%d\" y=\"%d\">rows of the tile, shaded in turn</text>", left + 2 * cw + 6, y
    printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fff\" stroke=\"#999\" stroke-dasharray=\"2 1\"/>", left + 230, y - 9, cw, ch
    printf "<text x=\"%d\" y=\"%d\">pad word, never used</text>", left + 230 + cw + 6, y
    printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f5c26b\" stroke=\"#999\"/>", left + 410, y - 9, cw, ch
    printf "<text x=\"%d\" y=\"%d\">the word lane x reads (x written in it)</text></g>\n", left + 410 + cw + 6, y
    print "</svg>"
}
# One grid: shared memory holding a 32-row tile of `pitch` words a row.
function panel(x0, pitch, name,    many, words, rows, k, r, b, t, col, fill, dash, lane, n, worst, gx, y) {
    gx = x0 + left
    printf "<text x=\"%d\" y=\"44\" font-weight=\"bold\" font-size=\"12\">%s</text>\n", gx, name
    printf "<g font-size=\"9\" text-anchor=\"middle\" fill=\"#555\"><text x=\"%d\" y=\"%d\" text-anchor=\"end\">bank</text>", gx - 4, top - 6
    for (b = 0; b < 32; b += 4) printf "<text x=\"%.1f\" y=\"%d\">%d</text>", gx + (b + 0.5) * cw, top - 6, b
    printf "<text x=\"%.1f\" y=\"%d\">31</text></g>\n", gx + 31.5 * cw, top - 6
    words = 32 * pitch; rows = words / 32
    for (b = 0; b < 32; b++) served[b] = 0
    printf "<g stroke=\"#999\" stroke-width=\"0.5\">\n"
    for (k = 0; k < words; k++) {
        r = int(k / 32); b = k % 32; t = int(k / pitch); col = k % pitch
        fill = t % 2 ? "#dcdcdc" : "#f3f3f3"; dash = ""
        if (col >= 32) { fill = "#fff"; dash = " stroke-dasharray=\"2 1\"" }
        if (col == COL) { fill = "#f5c26b"; served[b]++ }
        printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"%s/>\n", gx + b * cw, top + r * ch, cw, ch, fill, dash
    }
    print "</g>"
    printf "<g font-size=\"7\" text-anchor=\"middle\">"
    for (lane = 0; lane < 32; lane++) {
        k = pitch * lane + COL
        printf "<text x=\"%.1f\" y=\"%.1f\">%d</text>", gx + (k % 32 + 0.5) * cw, top + (int(k / 32) + 0.78) * ch, lane
    }
    print "</g>"
    printf "<g font-size=\"9\" text-anchor=\"end\" fill=\"#555\">"
    for (r = 0; r < rows; r += 8) printf "<text x=\"%d\" y=\"%.1f\">word %d</text>", gx - 4, top + (r + 0.8) * ch, 32 * r
    print "</g>"
    # how many lanes each bank serves: the read takes as many wavefronts as the busiest bank
    y = top + rows * ch + 8; worst = 0; n = 0
    printf "<g font-size=\"9\" text-anchor=\"middle\" stroke-width=\"0.5\">"
    for (b = 0; b < 32; b++) {
        fill = served[b] > 1 ? "#f4b6ae" : served[b] == 1 ? "#cfe8cf" : "#fff"
        printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"14\" fill=\"%s\" stroke=\"#999\"/>", gx + b * cw, y, cw, fill
        if (served[b]) printf "<text x=\"%.1f\" y=\"%d\">%d</text>", gx + (b + 0.5) * cw, y + 10, served[b]
        if (served[b] > worst) worst = served[b]
        if (served[b]) n++
    }
    printf "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#555\">lanes</text></g>\n", gx - 4, y + 10
    many = worst > 1 ? "s" : ""
    printf "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"%s\">%d bank%s hit, the busiest by %d lane%s: %d wavefront%s</text>\n",
        gx, y + 32, (worst > 1 ? "#c0392b" : "#2e7d32"), n, (n > 1 ? "s" : ""), worst, many, worst, many
}'
