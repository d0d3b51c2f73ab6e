# handouts.mk: the handouts as HTML, in course order, each with links to the
# one before and after (tools/handout-pages.sh), and an index of them all;
# and the whole course as one PDF, to print or post. Included by the Makefile.

.PHONY: handouts pdf deps-pdf need-pandoc need-pdf-tools

HANDOUT_PAGES := $(sort $(wildcard handouts/[0-9]*.md))
# A lab's appendix (its trials, per-size tables, where its numbers come
# from) is handouts/appendix/ under the handout's own name: the handout is
# the main line a student reads in one sitting, the appendix is optional.
APPENDIX_PAGES := $(sort $(wildcard handouts/appendix/[0-9]*.md))
HANDOUT_FIGURES := $(wildcard handouts/figures/*.svg results/*/*/bench*.svg)
HANDOUTS := $(BUILD)/handouts/index.html $(BUILD)/handouts/syllabus.html $(patsubst handouts/%.md,$(BUILD)/handouts/%.html,$(HANDOUT_PAGES) \
              $(APPENDIX_PAGES))
# pandoc's option for one self-contained page, which its version decides:
# asked the first time a page is made, and only then.
PANDOC_EMBED = $(eval PANDOC_EMBED := $$(shell pandoc --help 2>/dev/null | grep -q -- --embed-resources \
                 && echo --embed-resources --standalone || echo --self-contained))$(PANDOC_EMBED)
PANDOC_HTML = pandoc --from markdown --to html5 $(PANDOC_EMBED) --mathml \
	  --resource-path=handouts --css=handouts/handout.css --highlight-style=tango \
	  --syntax-definition=handouts/cuda.xml

handouts: $(HANDOUTS)
	@echo "handouts: $(HANDOUTS)"

$(BUILD)/handouts/%.html: handouts/%.md $(HANDOUT_PAGES) handouts/handout.css $(HANDOUT_FIGURES) \
                          tools/handout-pages.sh | need-pandoc
	@mkdir -p $(@D)
	$(Q)tools/handout-pages.sh nav $* $(HANDOUT_PAGES) > $(@:.html=.nav)
	$(Q)$(PANDOC_HTML) --toc --include-before-body=$(@:.html=.nav) \
	  --include-after-body=$(@:.html=.nav) $< -o $@

$(BUILD)/handouts/appendix/%.html: handouts/appendix/%.md handouts/%.md handouts/handout.css \
                                   $(HANDOUT_FIGURES) tools/handout-pages.sh | need-pandoc
	@mkdir -p $(@D)
	$(Q)tools/handout-pages.sh appendix-nav handouts/$*.md > $(@:.html=.nav)
	$(Q)$(PANDOC_HTML) --toc --include-before-body=$(@:.html=.nav) \
	  --include-after-body=$(@:.html=.nav) $< -o $@

# The syllabus: each lab's core and stretch stages and questions, with
# hours and suggested points, from the marks in the handouts (a missing
# mark stops the build, naming its line).
$(BUILD)/handouts/syllabus.html: $(HANDOUT_PAGES) handouts/handout.css tools/handout-pages.sh | need-pandoc
	@mkdir -p $(@D)
	$(Q)tools/handout-pages.sh syllabus $(HANDOUT_PAGES) > $(@:.html=.md)
	$(Q)$(PANDOC_HTML) $(@:.html=.md) -o $@

$(BUILD)/handouts/index.html: $(HANDOUT_PAGES) $(APPENDIX_PAGES) handouts/handout.css tools/handout-pages.sh | need-pandoc
	@mkdir -p $(@D)
	$(Q)tools/handout-pages.sh index $(HANDOUT_PAGES) > $(@:.html=.md)
	$(Q)$(PANDOC_HTML) $(@:.html=.md) -o $@

# The course in one PDF: every handout in one page of HTML, each a level
# down under its title, laid out for A4 by weasyprint (handouts/print.css,
# which also lays out the MathML that weasyprint does not). Its figures are
# librsvg's plain paths of ours, found first on pandoc's resource path:
# weasyprint 57 draws SVG only in part (not currentColor, which gnuplot's
# points use).
PDF := $(BUILD)/handouts/course.pdf
PRINT_FIGURES := $(BUILD)/handouts/print
pdf: $(PDF)
	@echo "pdf: $(PDF)"

$(PDF): $(PDF:.pdf=.html) | need-pdf-tools
	$(Q)weasyprint --quiet $< $@

$(PDF:.pdf=.html): $(HANDOUT_PAGES) $(APPENDIX_PAGES) handouts/handout.css handouts/print.css tools/handout-pages.sh \
                   $(addprefix $(PRINT_FIGURES)/,$(HANDOUT_FIGURES)) | need-pandoc
	@mkdir -p $(@D)
	$(Q)tools/handout-pages.sh course $(HANDOUT_PAGES) > $(@:.html=.md)
	$(Q)$(PANDOC_HTML) --resource-path=$(PRINT_FIGURES)/handouts:handouts --shift-heading-level-by=1 \
	  --css=handouts/print.css $(@:.html=.md) -o $@

$(PRINT_FIGURES)/%.svg: %.svg | need-pdf-tools
	@mkdir -p $(@D)
	$(Q)rsvg-convert --format=svg $< -o $@

# weasyprint (HTML to PDF) and librsvg for make pdf, and poppler's tools
# for the check of its pages. Naming python3-munkres lets apt meet a font
# library's need without SciPy and Boost (100 MB in place of 330).
deps-pdf:
	@tools/deps.sh "$(NVCC)" "weasyprint=weasyprint python3-munkres" rsvg-convert=librsvg2-bin \
	  pdftoppm=poppler-utils

need-pandoc:
	@command -v pandoc > /dev/null || { echo "pandoc is not installed: run make deps"; exit 1; }
need-pdf-tools:
	@for tool in weasyprint rsvg-convert; do command -v $$tool > /dev/null || \
	  { echo "$$tool is not installed: run make deps-pdf"; exit 1; }; done
