#!/usr/bin/env bash
# transpose-walk.sh: the figure of transpose's stage 6, on stdout.
#   handouts/figures/draw/transpose-walk.sh > handouts/figures/transpose-walk.svg
# One row of out at the shape ROWS x COLS, 511x289 (out's rows are ROWS
# floats long), and the ring of one block, as solutions/transpose's stage 6
# walks them: each block of strip 0 covers STEPS steps of STEP rows of in,
# writes windows of 2 LINEs that start on a line, and keeps in's row r in
# ring[r % RING]. The script works out every number it prints.
set -eu
awk -v ROWS=511 -v COLS=289 -v C=12 -v B=1 -v STEP=64 -v STEPS=3 -v LINE=32 'BEGIN {
    RING = 2 * STEP; W = 760; X0 = 70; SPAN = 670
    off = (C * ROWS) % LINE; blocks = int((ROWS + STEP * STEPS - 1) / (STEP * STEPS))
    shade["above"] = "#dcdcdc"; shade[0] = "#dbe9f4"; shade[1] = "#f6c89f"; shade[2] = "#cfe8cf"
    H = 540
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"13\">\n", W, H
    printf "<title>Stage 6 at %dx%d: the windows of row %d of out, the rows of in each block reads, and block %d'"'"'s ring</title>\n", ROWS, COLS, C, B
    printf "<desc>Top: row %d of out, %d floats, starts %d floats into a 128-byte line, so its lines begin at columns %d, %d and so on.", C, ROWS, off, LINE - off, 2 * LINE - off
    printf " Strip 0 has %d blocks. Each writes windows of %d floats that start on a line;", blocks, 2 * LINE
    printf " block b owns the columns from %d b - %d up to %d (b + 1) - %d, so it needs the %d rows of in above its own first row.", STEP * STEPS, off, STEP * STEPS, off, LINE
    printf " The first block has no rows above it: it reads none and starts writing at column 0, not at -%d.", off
    printf " The last block writes one window more than it has steps, and stops at column %d.", ROWS
    printf " Bottom: block %d keeps row r of in in ring[r mod %d]. Before window 0, behind one barrier, it keeps the %d rows above and step 0;", B, RING, LINE
    printf " window 0 reads the end of the rows above and most of step 0. Step 1 then goes into the slots of the rows above, step 2 into those of step 0,"
    print " and each window reads the end of one step and the start of the next, wrapping round the ring.</desc>"
    printf "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", W, H
    printf "<text x=\"20\" y=\"22\" font-weight=\"bold\">Stage 6 at %dx%d, strip 0: row %d of out starts off = (%d x %d) mod %d = %d floats into a line</text>\n", ROWS, COLS, C, C, ROWS, LINE, off

    # row C of out, cut into its 128-byte lines
    S = SPAN / (ROWS + 1); y = 44
    label(X0 - 6, y + 13, "out", "end", 12, "#555")
    n = 0
    for (a = 0; a < ROWS; a = b) {
        b = a - (a + off) % LINE + LINE; if (b > ROWS) b = ROWS
        box(X0 + a * S, y, (b - a) * S, 18, n++ % 2 ? "#f3f3f3" : "#fff", "#999")
    }
    label(X0, y + 32, sprintf("row %d of out: %d lines of %d floats; the first whole one starts at column %d", C, n, LINE, LINE - off), "start", 11, "#555")

    # the windows of each block, and the rows of in it reads
    yw = 96; yi = 176
    label(X0 - 6, yw + 13, "windows", "end", 11, "#555")
    label(X0 - 6, yi + 13, "in", "end", 12, "#555")
    for (k = 0; k < blocks; k++) {
        r0 = k * STEP * STEPS; r1 = r0 + STEP * STEPS; if (r1 > ROWS) r1 = ROWS
        first = k == 0; last = r1 == ROWS
        steps = int((r1 - r0 + STEP - 1) / STEP); windows = steps + last
        from = first ? 0 : r0 - off; to = last ? ROWS : r1 - off
        for (w = 0; w < windows; w++) {
            a = r0 - off + w * 2 * LINE; b = a + 2 * LINE
            if (a < from) a = from; if (b > to) b = to
            box(X0 + a * S, yw, (b - a) * S, 18, k == B ? "#f5c26b" : "#fff", "#555")
            label(X0 + (a + b) / 2 * S, yw + 13, "w" w, "middle", 10, "#222")
        }
        label(X0 + (from + to) / 2 * S, yw + 34, sprintf("block %d: %d-%d", k, from, to - 1), "middle", 11, "#222")
        label(X0 + (from + to) / 2 * S, yw + 48, first ? "first: from 0" : last ? sprintf("last: %d steps, %d windows", steps, windows) : sprintf("%d steps, %d windows", steps, windows), "middle", 11, "#555")
        for (s = 0; s < steps; s++) {
            a = r0 + s * STEP; b = a + STEP; if (b > r1) b = r1
            box(X0 + a * S, yi, (b - a) * S, 18, k == B ? shade[s] : "#f3f3f3", "#999")
            label(X0 + (a + b) / 2 * S, yi + 13, "step " s, "middle", 10, "#222")
        }
        if (!first) {
            box(X0 + (r0 - LINE) * S, yi + 22, LINE * S, 12, k == B ? shade["above"] : "#f3f3f3", "#999")
            printf "<path d=\"M%.1f %dV%dM%.1f %dV%d\" stroke=\"#555\" stroke-dasharray=\"3 2\"/>\n", X0 + from * S, yw + 18, yi - 18, X0 + from * S, yi, yi + 34
            label(X0 + (r0 - LINE / 2) * S, yi + 48, sprintf("%d-%d above", r0 - LINE, r0 - 1), "middle", 10, "#555")
        }
    }
    label(X0, yi - 6, sprintf("column %d of in: the steps of %d rows each block reads, and the %d rows above that it reads first", C, STEP, LINE), "start", 11, "#555")
    label(X0, yi + 70, sprintf("A strip'"'"'s first block has no rows above it: it reads none, and writes from column 0, not -%d.", off), "start", 11, "#c0392b")
    r0 = B * STEP * STEPS
    label(X0, yi + 86, sprintf("Block %d'"'"'s window 0 starts at column %d, %d rows before its own: it reads them from the rows above.", B, r0 - off, off), "start", 11, "#222")

    # block B'"'"'s ring, window by window
    r0 = B * STEP * STEPS; r1 = r0 + STEP * STEPS; if (r1 > ROWS) r1 = ROWS
    R = SPAN / RING; y = 306
    printf "<text x=\"20\" y=\"%d\" font-weight=\"bold\">Block %d'"'"'s ring: row r of in in ring[r %% %d]; the windows are row %d'"'"'s</text>\n", y - 14, B, RING, C
    printf "<g font-size=\"9\" fill=\"#555\" text-anchor=\"middle\">"
    for (t = 0; t <= RING; t += LINE) printf "<text x=\"%.1f\" y=\"%d\">%d</text>", X0 + t * R, y + 2, t < RING ? t : RING - 1
    print "</g>"
    label(X0 - 6, y + 2, "slot", "end", 9, "#555")
    for (w = 0; w < STEPS; w++) {
        yb = y + 10 + w * 78
        if (w == 0) note = sprintf("before window 0, behind one barrier: the %d rows above (%d-%d) and step 0 kept", LINE, r0 - LINE, r0 - 1)
        else note = sprintf("barrier, step %d kept over %s, barrier", w, w == 1 ? "the rows above" : "step " w - 2)
        label(X0, yb + 10, note, "start", 11, "#222")
        # what the ring holds for window w: the rows above (w = 0 only), steps w - 1 and w
        box(X0, yb + 16, SPAN, 20, "#fff", "#999")
        if (w == 0) segment(yb + 16, r0 - LINE, r0, "above", sprintf("above: %d-%d", r0 - LINE, r0 - 1))
        for (s = w - 1; s <= w; s++)
            if (s >= 0) segment(yb + 16, r0 + s * STEP, r0 + (s + 1) * STEP, s, sprintf("step %d: %d-%d", s, r0 + s * STEP, r0 + (s + 1) * STEP - 1))
        a = r0 - off + w * 2 * LINE; b = a + 2 * LINE
        outline(yb + 14, a % RING, b % RING)
        label(X0, yb + 52, sprintf("window %d writes columns %d-%d from rows %d-%d, slots %s%s", w, a, b - 1, a, b - 1, slots(a, b), \
                                   w + 1 < STEPS ? sprintf("; step %d loads meanwhile", w + 1) : ""), "start", 11, "#c0392b")
    }
    print "</svg>"
}
function box(x, y, w, h, fill, stroke) {
    printf "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" stroke=\"%s\" stroke-width=\"0.8\"/>\n", x, y, w, h, fill, stroke
}
function label(x, y, text, anchor, size, fill) {
    printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\" font-size=\"%d\" fill=\"%s\">%s</text>\n", x, y, anchor, size, fill, text
}
# rows a .. b - 1 of in, in the ring: one box, or two where it wraps
function segment(y, a, b, kind, text,    sa) {
    sa = a % RING
    box(X0 + sa * R, y, (b - a) * R, 20, shade[kind], "#999")
    label(X0 + (sa + (b - a) / 2) * R, y + 14, text, "middle", 10, "#222")
}
function outline(y, sa, sb) {
    if (sa < sb) edge(sa, sb, y)
    else { edge(sa, RING, y); edge(0, sb, y) }
}
function edge(sa, sb, y) {
    printf "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"24\" fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\"/>\n", X0 + sa * R, y, (sb - sa) * R
}
function slots(a, b,    sa, sb) {
    sa = a % RING; sb = (b - 1) % RING
    return sa <= sb ? sa "-" sb : sa "-" RING - 1 " and 0-" sb
}'
