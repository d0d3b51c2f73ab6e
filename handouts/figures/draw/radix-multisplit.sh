#!/usr/bin/env bash
# Draws figures/radix-multisplit.svg: stage 3a's multisplit, in a warp cut
# to 16 lanes and 3-bit digits so that it fits a page (the lab: 32 lanes,
# 8 bits, 8 ballots). The digits come from a small generator; every ballot,
# peer mask, leader and rank is computed here.
# Run: handouts/figures/draw/radix-multisplit.sh > handouts/figures/radix-multisplit.svg
set -euo pipefail

awk -v LANES=16 -v BITS=3 -v SEED=29 -v PICK=5 'BEGIN {
    x = SEED
    for (l = 0; l < LANES; l++) { x = (x * 75 + 74) % 65537; d[l] = int(x * 2 ^ BITS / 65537) }
    for (b = 0; b < BITS; b++) {            # __ballot_sync(FULL_WARP, d >> b & 1)
        ballot[b] = 0
        for (l = 0; l < LANES; l++) if (int(d[l] / 2 ^ b) % 2) ballot[b] += 2 ^ l
    }
    for (l = 0; l < LANES; l++) {           # peers: the lanes that agree on every bit
        peers[l] = 0
        for (m = 0; m < LANES; m++) if (d[m] == d[l]) peers[l] += 2 ^ m
        rank[l] = 0; leader[l] = -1
        for (m = 0; m < LANES; m++) if (d[m] == d[l]) { if (m < l) rank[l]++; leader[l] = m; size[l]++ }
    }
    L = PICK
    w = 30; h = 24; left = 250; W = left + LANES * w + 200; H = 420
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\" aria-labelledby=\"title desc\">\n", W, H, W, H
    print "<title id=\"title\">Stage 3a&#39;s multisplit: one ballot per bit of the digit leaves each lane with the lanes of its own digit, its peers</title>"
    printf "<desc id=\"desc\">A warp cut to %d lanes with %d-bit digits (the lab has 32 lanes and 8-bit digits, so 8 ballots). For each bit b, __ballot_sync gives the mask of the lanes whose digit has a 1 in bit b. A lane keeps the ballot where its own bit is 1 and the complement where it is 0, and ANDs them: what is left is the mask of the lanes with its own digit. Lane %d has digit %d; its peers are lanes %s. The leader, the highest peer, lane %d, adds the group size %d to the warp&#39;s counter for digit %d with one atomicAdd and shares the old value by shuffle; each lane&#39;s place is that value plus its rank, the number of peers below it. Lane %d&#39;s rank is %d.</desc>\n", LANES, BITS, L, d[L], lanes_of(peers[L]), leader[L], size[L], d[L], L, rank[L]
    printf "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H
    printf "<text x=\"10\" y=\"20\" font-size=\"13\" font-weight=\"bold\">Stage 3a: a ballot per bit of the digit; lane %d keeps the lanes that agree with it on every bit</text>\n", L
    y = 44
    row_label(y, "lane", "")
    for (l = 0; l < LANES; l++) cell(l, y, l, "#f4f4f4", "#999", 1)
    y += 34
    row_label(y, "digit d (binary)", "")
    for (l = 0; l < LANES; l++) cell(l, y, d[l], (d[l] == d[L]) ? "#dbe9f4" : "#f4f4f4", l == L ? "#b5651d" : "#999", l == L ? 2 : 1)
    for (l = 0; l < LANES; l++) printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"9\" fill=\"#555\">%s</text>\n", left + l * w + (w - 2) / 2, y + h + 10, bin(d[l])
    y += 48
    agree = 2 ^ LANES - 1
    for (b = 0; b < BITS; b++) {
        mine = int(d[L] / 2 ^ b) % 2
        a = mine ? ballot[b] : 2 ^ LANES - 1 - ballot[b]
        agree = and16(agree, a)
        row_label(y, sprintf("ballot of bit %d", b), sprintf("0x%04x", ballot[b]))
        for (l = 0; l < LANES; l++) {
            bit = int(ballot[b] / 2 ^ l) % 2
            cell(l, y, bit, bit ? "#f4e3c1" : "#fff", "#999", 1)
        }
        printf "<text x=\"%d\" y=\"%d\" fill=\"#555\">lane %d keeps %s: 0x%04x</text>\n", left + LANES * w + 10, y + 16, L, mine ? "it" : "~it", a
        y += 32
    }
    y += 8
    row_label(y, sprintf("peers of lane %d", L), sprintf("0x%04x", peers[L]))
    for (l = 0; l < LANES; l++) {
        bit = int(peers[L] / 2 ^ l) % 2
        cell(l, y, bit, bit ? "#dbe9f4" : "#fff", "#999", 1)
    }
    printf "<text x=\"%d\" y=\"%d\" fill=\"#555\">the AND of the three</text>\n", left + LANES * w + 10, y + 16
    y += 46
    row_label(y, "rank among peers", "")
    for (l = 0; l < LANES; l++) cell(l, y, rank[l], (d[l] == d[L]) ? "#dbe9f4" : "#f4f4f4", leader[l] == l ? "#2a6f97" : "#999", leader[l] == l ? 2 : 1)
    printf "<text x=\"%d\" y=\"%d\" fill=\"#555\">blue outline: a leader</text>\n", left + LANES * w + 10, y + 16
    y += 48
    printf "<text x=\"10\" y=\"%d\">Every lane does the same with its own bits, at once: each ends with its own digit&#39;s lanes, its peers. In lane %d&#39;s group</text>\n", y, L
    printf "<text x=\"10\" y=\"%d\">(digit %d: lanes %s) the leader, the highest peer, lane %d, takes %d places with one atomicAdd(&amp;row[%d], %d)</text>\n", y + 18, d[L], lanes_of(peers[L]), leader[L], size[L], d[L], size[L]
    printf "<text x=\"10\" y=\"%d\">and hands the first to its peers with __shfl_sync; lane %d&#39;s place is that first plus its rank, %d: the peers below it.</text>\n", y + 36, L, rank[L]
    print "</svg>"
}
function row_label(y, s, mask) {
    printf "<text x=\"10\" y=\"%d\" font-weight=\"bold\">%s</text>\n", y + 16, s
    if (mask != "") printf "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-family=\"monospace\">%s</text>\n", left - 10, y + 16, mask
}
function cell(l, y, s, f, stroke, sw) {
    printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"/>\n", left + l * w, y, w - 2, h, f, stroke, sw
    printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", left + l * w + (w - 2) / 2, y + 16, s
}
function bin(v,   s, b) { s = ""; for (b = BITS - 1; b >= 0; b--) s = s (int(v / 2 ^ b) % 2); return s }
function and16(p, q,   r, b) { r = 0; for (b = 0; b < LANES; b++) if (int(p / 2 ^ b) % 2 && int(q / 2 ^ b) % 2) r += 2 ^ b; return r }
function lanes_of(m,   s, b) { s = ""; for (b = 0; b < LANES; b++) if (int(m / 2 ^ b) % 2) s = s (s == "" ? "" : ", ") b; return s }'
