"""pdf-tags.py PDF IMAGES FORMULAS DATA: PDF's tags read back (pikepdf), as
PDF/UA-1 asks for them: a structure tree, marked content, the document's
language and title, the PDF/UA identifier, every one of the IMAGES images of
its HTML tagged as a Figure with alt text, each of its FORMULAS (MathML) a
Formula with a text alternative, its code tagged as Code, and every
annotation in the tree, described unless a link: among them the DATA files
its HTML's plots link to (rel="attachment"), attached. A line a fault, or one line that counts
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


def annotations(pdf, datafiles):
    """The faults of the pages' annotations, a line each kind."""
    found, files = {}, set()
    for number, page in enumerate(pdf.pages, 1):
        for annotation in page.get("/Annots", []):
            kind = str(annotation.get("/Subtype"))[1:]
            if "/StructParent" not in annotation:
                found.setdefault(f"a {kind} annotation outside the structure tree", number)
            if kind not in ("Link", "Widget") and not str(annotation.get("/Contents", "")).strip():
                found.setdefault(f"a {kind} annotation without a description (/Contents)", number)
            if kind == "FileAttachment":
                files.add(str(annotation.FS.get("/UF", annotation.FS.get("/F", ""))))
    lines = [f"{fault}, first on page {number}" for fault, number in found.items()]
    if len(files) != datafiles:
        lines.append(f"{len(files)} data files attached, of the {datafiles} its HTML links to")
    return lines


def check(pdf, images, formulas, datafiles):
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
        for kind in ("Figure", "Formula"):
            if element.S == "/" + kind and not str(element.get("/Alt", "")).strip():
                found.append(f"{kind.lower()} {tags[kind]} has no alt text (/Alt)")
    if tags["Figure"] != images:
        found.append(f"{tags['Figure']} figures tagged, of the {images} images in its HTML")
    # a formula broken over two lines is two elements, each with the text
    if tags["Formula"] < formulas:
        found.append(f"{tags['Formula']} formulas tagged, of the {formulas} in its HTML")
    found += annotations(pdf, datafiles)
    for tag in ("Document", "H1", "H2", "P", "L", "Table", "Link", "Code"):
        if not tags[tag]:
            found.append(f"no {tag} element in the structure tree")
    return found, tags


def main(path, images, formulas, datafiles):
    with pikepdf.open(path) as pdf:
        found, tags = check(pdf, int(images), int(formulas), int(datafiles))
        lang = pdf.Root.get("/Lang")
    for fault in found:
        print(f"pdf-tags: {path}: {fault}")
    if not found:
        print(f"pdf-tags: {path}: tagged for PDF/UA-1, language {lang}: " +
              ", ".join(f"{n} {tag}" for tag, n in tags.most_common()
                        if tag in ("H1", "H2", "H3", "P", "L", "Table", "Figure", "Formula", "Code",
                                   "Link", "Annot")))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
