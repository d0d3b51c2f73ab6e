# handouts.mk: the handouts as HTML, in course order, each with links to the
# one before and after (tools/handout-pages.sh), and an index of them all.
# Included by the Makefile.

.PHONY: handouts need-pandoc

HANDOUT_PAGES := $(sort $(wildcard handouts/[0-9]*.md))
HANDOUTS := $(BUILD)/handouts/index.html $(patsubst handouts/%.md,$(BUILD)/handouts/%.html,$(HANDOUT_PAGES))
# pandoc's option for one self-contained page, which its version decides:
# asked the first time a page is made, and only then.
PANDOC_EMBED = $(eval PANDOC_EMBED := $$(shell pandoc --help 2>/dev/null | grep -q -- --embed-resources \
                 && echo --embed-resources --standalone || echo --self-contained))$(PANDOC_EMBED)
PANDOC_HTML = pandoc --from markdown --to html5 $(PANDOC_EMBED) --mathml \
	  --resource-path=handouts --css=handouts/handout.css --highlight-style=tango \
	  --syntax-definition=handouts/cuda.xml

handouts: $(HANDOUTS)
	@echo "handouts: $(HANDOUTS)"

$(BUILD)/handouts/%.html: handouts/%.md $(HANDOUT_PAGES) handouts/handout.css \
                          $(wildcard handouts/figures/*.svg results/bench/*/*.svg) \
                          tools/handout-pages.sh | need-pandoc
	@mkdir -p $(@D)
	$(Q)tools/handout-pages.sh nav $* $(HANDOUT_PAGES) > $(@:.html=.nav)
	$(Q)$(PANDOC_HTML) --toc --include-before-body=$(@:.html=.nav) \
	  --include-after-body=$(@:.html=.nav) $< -o $@

$(BUILD)/handouts/index.html: $(HANDOUT_PAGES) handouts/handout.css tools/handout-pages.sh | need-pandoc
	@mkdir -p $(@D)
	$(Q)tools/handout-pages.sh index $(HANDOUT_PAGES) > $(@:.html=.md)
	$(Q)$(PANDOC_HTML) $(@:.html=.md) -o $@

need-pandoc:
	@command -v pandoc > /dev/null || { echo "pandoc is not installed: run make deps"; exit 1; }
