"""pdf-tags.py PDF IMAGES: PDF's tags read back (pikepdf), as PDF/UA-1 asks
for them: a structure tree, marked content, the document's language and
title, the PDF/UA identifier, and every one of the IMAGES images of its HTML
tagged as a Figure with alt text. A line a fault, or one line that counts
what the tree holds; exits 1 on any fault. Instructors' only (make
check-pdf-ua, tests/handouts/pdf-ua-test.sh), from build/pytools."""
import sys
from collections import Counter

import pikepdf


def elements(node):
    """Every structure element under node, depth first."""
    kids = node.get("/K")
    if kids is None:
        return
    for kid in kids if isinstance(kids, pikepdf.Array) else [kids]:
        if isinstance(kid, pikepdf.Dictionary) and "/S" in kid:
            yield kid
            yield from elements(kid)


def check(pdf, images):
    """(faults, a line each; the structure types the tree holds, counted)"""
    root, found, tags = pdf.Root, [], Counter()
    if "/StructTreeRoot" not in root:
        return ["no structure tree (/StructTreeRoot): the PDF is not tagged"], tags
    mark = root.get("/MarkInfo")
    if mark is None or not mark.get("/Marked", False):
        found.append("not marked as tagged (/MarkInfo /Marked true)")
    if not str(root.get("/Lang", "")):
        found.append("no document language (/Lang): give the HTML a lang")
    prefs = root.get("/ViewerPreferences")
    if prefs is None or not prefs.get("/DisplayDocTitle", False):
        found.append("the viewer is not asked to show the title (/DisplayDocTitle)")
    with pdf.open_metadata() as xmp:
        if xmp.get("pdfuaid:part") != "1":
            found.append("no PDF/UA-1 identifier in the XMP metadata (pdfuaid:part)")
        if not xmp.get("dc:title"):
            found.append("no title in the XMP metadata (dc:title)")
    for element in elements(root.StructTreeRoot):
        tags[str(element.S)[1:]] += 1
        if element.S == "/Figure" and not str(element.get("/Alt", "")).strip():
            found.append(f"figure {tags['Figure']} has no alt text (/Alt)")
    if tags["Figure"] != images:
        found.append(f"{tags['Figure']} figures tagged, of the {images} images in its HTML")
    for tag in ("Document", "H1", "H2", "P", "L", "Table", "Link"):
        if not tags[tag]:
            found.append(f"no {tag} element in the structure tree")
    return found, tags


def main(path, images):
    with pikepdf.open(path) as pdf:
        found, tags = check(pdf, int(images))
        lang = pdf.Root.get("/Lang")
    for fault in found:
        print(f"pdf-tags: {path}: {fault}")
    if not found:
        print(f"pdf-tags: {path}: tagged for PDF/UA-1, language {lang}: " +
              ", ".join(f"{n} {tag}" for tag, n in tags.most_common()
                        if tag in ("H1", "H2", "H3", "P", "L", "Table", "Figure", "Link")))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
