"""pdf.py HTML PDF: the course's PDF, tagged for PDF/UA-1 by weasyprint
(make pdf, from PYTOOLS), with what its tagger leaves nameless or out
named as PDF/UA asks: code as Code; MathML as Formula, with the formula's
TeX (pandoc's annotation) as its text alternative; and a plot's data (a
link with rel="attachment", handouts/data-links.lua), which weasyprint
attaches to the page untagged, as an Annot with its file named. Everything
else is weasyprint's own tagging."""
import logging
import sys

import pydyf
import weasyprint.pdf
from weasyprint import HTML, __version__
from weasyprint.pdf import tags

MATHML = "{http://www.w3.org/1998/Math/MathML}"
NAMED = {"code": "Code", MATHML + "math": "Formula"}

# weasyprint's tagger is not a public interface: say so plainly if it moved.
if not (all(callable(getattr(tags, name, None)) for name in ("_get_pdf_tag", "_build_box_tree"))
        and callable(getattr(weasyprint.pdf, "add_annotations", None))):
    sys.exit(f"pdf.py: weasyprint {__version__} tags the PDF in another way than 70 did (no "
             "tags._get_pdf_tag, tags._build_box_tree or add_annotations): "
             "pip install 'weasyprint==70.*'")

pdf_tag, box_tree = tags._get_pdf_tag, tags._build_box_tree
page_annotations = weasyprint.pdf.add_annotations


def data_name(box):
    """What a plot's data link attaches, said as its text alternative."""
    return f"the plot's data, the file {box.element.get('download') or 'attached'}"


def annotations_for_tags(links, matrix, document, pdf, page, files, compress):
    """weasyprint's attachments on a page, each given to the tagger (as a
    link's annotation is) and described."""
    before = len(page["Annots"]) if "Annots" in page else 0
    page_annotations(links, matrix, document, pdf, page, files, compress)
    added = page["Annots"][before:] if "Annots" in page else []
    boxes = [box for kind, target, _, box in links
             if kind == "attachment" and files.get(target) is not None]
    for reference, box in zip(added, boxes):
        annotation = pdf.objects[int(bytes(reference).split()[0])]  # b"N 0 R"
        annotation["Contents"] = pydyf.String(data_name(box))
        box.link_annotation = annotation


def named_tag(tag):
    return NAMED.get(tag) or pdf_tag(tag)


def tree_with_alt(box, parent, pdf, *rest):
    """weasyprint's elements of box; a formula's with its TeX as /Alt."""
    for element in box_tree(box, parent, pdf, *rest):
        if element["S"] == "/Link" and box.element is not None and box.element.get("rel") == "attachment":
            element["S"], element["Alt"] = "/Annot", pydyf.String(data_name(box))
        if element["S"] == "/Formula" and "Alt" not in element:
            tex = " ".join((box.element.findtext(f".//{MATHML}annotation") or "").split())
            if tex:  # none: make check-pdf-ua says the formula has no text
                element["Alt"] = pydyf.String(tex)
        yield element


tags._get_pdf_tag, tags._build_box_tree = named_tag, tree_with_alt  # its recursion, too
weasyprint.pdf.add_annotations = annotations_for_tags

if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: pdf.py HTML PDF")
    logging.getLogger("weasyprint").setLevel(logging.ERROR)  # its warnings, as --quiet
    HTML(sys.argv[1]).write_pdf(sys.argv[2], pdf_variant="pdf/ua-1")
