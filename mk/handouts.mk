# handouts.mk: the handouts as HTML, in course order, each with links to the
# one before and after (tools/handout-pages.sh), and an index of them all;
# and the whole course as one PDF, to print or post. Included by the Makefile.

.PHONY: handouts pdf deps-pdf deps-a11y need-pandoc need-pdf-tools

# The instructors' Python tools (make deps-pdf, deps-a11y), from PyPI, in a
# virtual environment of their own: students need no Python.
PYTOOLS := build/pytools

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
# --metadata=lang: the pages' language, which screen readers speak them in.
PANDOC_HTML = pandoc --from markdown --to html5 $(PANDOC_EMBED) --mathml --metadata=lang:en \
	  --resource-path=handouts --css=handouts/handout.css --highlight-style=tango \
	  --syntax-definition=handouts/cuda.xml --lua-filter=handouts/data-links.lua

handouts: $(HANDOUTS)
	@echo "handouts: $(HANDOUTS)"

# A page's title, contents and text in one main landmark, what a screen
# reader skips to; between the links above and below it (NAV, a file) where
# it has them: $(call PAGE_AROUND,NAV), and NAV.end below, the same links
# named apart for a screen reader's list of landmarks.
MAIN := $(BUILD)/handouts/main.open $(BUILD)/handouts/main.close
PAGE_AROUND = $(if $(1),--include-before-body=$(1)) --include-before-body=$(word 1,$(MAIN)) \
	  --include-after-body=$(word 2,$(MAIN)) $(if $(1),--include-after-body=$(1).end)
$(MAIN): mk/handouts.mk
	@mkdir -p $(@D)
	@printf '<%smain>\n' $(if $(filter %.close,$@),/) > $@

$(BUILD)/handouts/%.html: handouts/%.md $(HANDOUT_PAGES) handouts/handout.css handouts/data-links.lua $(HANDOUT_FIGURES) \
                          tools/handout-pages.sh mk/handouts.mk $(MAIN) | need-pandoc
	@mkdir -p $(@D)
	$(Q)tools/handout-pages.sh nav $* $(HANDOUT_PAGES) > $(@:.html=.nav)
	$(Q)sed 's/aria-label="Course pages"/aria-label="Course pages, at the end"/' $(@:.html=.nav) > $(@:.html=.nav).end
	$(Q)$(PANDOC_HTML) --toc $(call PAGE_AROUND,$(@:.html=.nav)) $< -o $@

$(BUILD)/handouts/appendix/%.html: handouts/appendix/%.md handouts/%.md handouts/handout.css handouts/data-links.lua \
                                   $(HANDOUT_FIGURES) tools/handout-pages.sh mk/handouts.mk $(MAIN) | need-pandoc
	@mkdir -p $(@D)
	$(Q)tools/handout-pages.sh appendix-nav handouts/$*.md > $(@:.html=.nav)
	$(Q)sed 's/aria-label="Course pages"/aria-label="Course pages, at the end"/' $(@:.html=.nav) > $(@:.html=.nav).end
	$(Q)$(PANDOC_HTML) --toc $(call PAGE_AROUND,$(@:.html=.nav)) $< -o $@

# The syllabus: each lab's core and stretch stages and questions, with
# hours and suggested points, from the marks in the handouts (a missing
# mark stops the build, naming its line).
$(BUILD)/handouts/syllabus.html: $(HANDOUT_PAGES) handouts/handout.css handouts/data-links.lua tools/handout-pages.sh \
                                 mk/handouts.mk $(MAIN) | need-pandoc
	@mkdir -p $(@D)
	$(Q)tools/handout-pages.sh syllabus $(HANDOUT_PAGES) > $(@:.html=.md)
	$(Q)$(PANDOC_HTML) $(call PAGE_AROUND) $(@:.html=.md) -o $@

$(BUILD)/handouts/index.html: $(HANDOUT_PAGES) $(APPENDIX_PAGES) handouts/handout.css handouts/data-links.lua tools/handout-pages.sh \
                              mk/handouts.mk $(MAIN) | need-pandoc
	@mkdir -p $(@D)
	$(Q)tools/handout-pages.sh index $(HANDOUT_PAGES) > $(@:.html=.md)
	$(Q)$(PANDOC_HTML) $(call PAGE_AROUND) $(@:.html=.md) -o $@

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

# Tagged for PDF/UA (its structure tree: headings, lists, tables, figures
# with their alt text, code, formulas with their TeX, the language), by
# PyPI's weasyprint where make deps-pdf put it (made again when it comes),
# through tools/pdf.py, which names code and formulas; else by Debian's,
# which tags no figure (make check-pdf-ua says so).
PDF_MAKER = $(if $(wildcard $(PYTOOLS)/bin/weasyprint),$(PYTOOLS)/bin/python tools/pdf.py,\
	      weasyprint --quiet --pdf-variant=pdf/ua-1)
$(PDF): $(PDF:.pdf=.html) mk/handouts.mk tools/pdf.py $(wildcard $(PYTOOLS)/bin/weasyprint) | need-pdf-tools
	$(Q)$(PDF_MAKER) $< $@

$(PDF:.pdf=.html): $(HANDOUT_PAGES) $(APPENDIX_PAGES) handouts/handout.css handouts/data-links.lua handouts/print.css tools/handout-pages.sh mk/handouts.mk \
                   $(addprefix $(PRINT_FIGURES)/,$(HANDOUT_FIGURES)) | need-pandoc
	@mkdir -p $(@D)
	$(Q)tools/handout-pages.sh course $(HANDOUT_PAGES) > $(@:.html=.md)
	$(Q)$(PANDOC_HTML) --resource-path=$(PRINT_FIGURES)/handouts:handouts --shift-heading-level-by=1 \
	  --css=handouts/print.css $(@:.html=.md) -o $@

$(PRINT_FIGURES)/%.svg: %.svg | need-pdf-tools
	@mkdir -p $(@D)
	$(Q)rsvg-convert --format=svg $< -o $@

# pip-tools NAME PACKAGE... installs them in PYTOOLS for make NAME
# (pip-tools NAME --no-deps ...: the package alone, without what it asks for).
pip-tools = [ -x $(PYTOOLS)/bin/python ] || python3 -m venv $(PYTOOLS) || \
	  { echo "$(1): python3 could not make a virtual environment in $(PYTOOLS)"; exit 1; }; \
	$(PYTOOLS)/bin/python -m pip install --quiet --disable-pip-version-check $(2) || \
	  { echo "$(1): pip could not install $(2) in $(PYTOOLS)"; exit 1; }
# what pip says of PACKAGE...: "name version, ..."
pip-versions = $$($(PYTOOLS)/bin/python -m pip list 2> /dev/null | \
	  awk '$(foreach p,$(1),$$1 == "$(p)" ||) 0 { printf "%s%s %s", n++ ? ", " : "", $$1, $$2 }')

# weasyprint (HTML to PDF) and librsvg for make pdf, and poppler's tools
# for the check of its pages. Naming python3-munkres lets apt meet a font
# library's need without SciPy and Boost (100 MB in place of 330). Debian's
# weasyprint (57) brings Pango and the fonts; PyPI's, which make pdf runs
# where it is, tags the PDF for PDF/UA (57 tags no figure), and
# pikepdf reads the tags back (make check-pdf-ua). weasyprint is held at
# 70: tools/pdf.py names code, formulas and attachments through its tagger's
# inner functions, which a later version may move.
deps-pdf:
	@tools/deps.sh "$(NVCC)" "weasyprint=weasyprint python3-munkres" rsvg-convert=librsvg2-bin \
	  pdftoppm=poppler-utils
	@$(call pip-tools,deps-pdf,'weasyprint==70.*' pikepdf)
	@echo "deps-pdf: $(call pip-versions,weasyprint pikepdf) in $(PYTOOLS)"

# Debian's Chromium and its driver, and selenium to drive it, for make
# check-a11y. axe-core comes from axe-playwright-python, which bundles a
# current one (4.12, where axe-selenium-python's is 3.1, of 2018), without
# Playwright, which nothing here uses.
deps-a11y:
	@tools/deps.sh "$(NVCC)" chromium chromedriver=chromium-driver
	@$(call pip-tools,deps-a11y,selenium) && $(call pip-tools,deps-a11y,--no-deps axe-playwright-python)
	@echo "deps-a11y: $$(chromium --version 2> /dev/null); $(call pip-versions,selenium axe-playwright-python)" \
	  "in $(PYTOOLS)"

need-pandoc:
	@command -v pandoc > /dev/null || { echo "pandoc is not installed: run make deps"; exit 1; }
need-pdf-tools:
	@for tool in weasyprint rsvg-convert; do command -v $$tool > /dev/null || \
	  { echo "$$tool is not installed: run make deps-pdf"; exit 1; }; done
