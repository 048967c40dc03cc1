# cafconv: build, run on Samples/, test, install. `make help` lists the targets.
SHELL := /bin/bash
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
OUT ?= out/Samples
BINDIR := $(DESTDIR)$(PREFIX)/bin
MANDIR := $(DESTDIR)$(PREFIX)/share/man/man1
BASHDIR := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
RELEASE_BIN := .build/release/cafconv

.PHONY: help deps build run test release install uninstall lint format fuzz bench clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

deps: ## Install missing system packages (libsndfile, and ffmpeg/sndfile-programs for cross-checks)
	@bash scripts/install-deps.sh

build: deps ## Build the debug binary
	$(SWIFT) build

run: build ## Convert Samples/ into out/Samples and show what was made
	rm -rf $(OUT)
	.build/debug/cafconv convert Samples -o $(OUT)
	@echo
	@echo "Made in $(OUT):"
	@find $(OUT) -name '*.caf' | sort | while read -r f; do \
		.build/debug/cafconv info --brief "$$f" 2>/dev/null || ls -l "$$f"; done

test: deps ## Install missing system packages and run every test
	$(SWIFT) build --build-tests
	$(SWIFT) test

release: deps ## Build an optimised binary with the Swift runtime (and libstdc++) linked statically
	flags=$$(bash scripts/release-flags.sh) && $(SWIFT) build $$flags

install: release ## Install the binary, man page and shell completions under $(DESTDIR)$(PREFIX)
	install -d $(BINDIR) $(MANDIR) $(BASHDIR) $(ZSHDIR) $(FISHDIR)
	install -m 755 $(RELEASE_BIN) $(BINDIR)/cafconv
	# The manual and the completion scripts come from the binary's own option tables.
	$(RELEASE_BIN) --generate-manual > $(MANDIR)/cafconv.1
	$(RELEASE_BIN) --generate-completion-script bash > $(BASHDIR)/cafconv
	$(RELEASE_BIN) --generate-completion-script zsh > $(ZSHDIR)/_cafconv
	$(RELEASE_BIN) --generate-completion-script fish > $(FISHDIR)/cafconv.fish
	chmod 644 $(MANDIR)/cafconv.1 $(BASHDIR)/cafconv $(ZSHDIR)/_cafconv $(FISHDIR)/cafconv.fish

uninstall: ## Remove what `make install` installed
	rm -f $(BINDIR)/cafconv $(MANDIR)/cafconv.1 $(BASHDIR)/cafconv $(ZSHDIR)/_cafconv $(FISHDIR)/cafconv.fish

lint: ## Check formatting with swift-format (strict)
	$(SWIFT) format lint --strict -r Package.swift Sources Tests Benchmarks/Package.swift Benchmarks/Benchmarks

format: ## Reformat the sources in place
	$(SWIFT) format format -i -r Package.swift Sources Tests Benchmarks/Package.swift Benchmarks/Benchmarks

FUZZ_SECONDS ?= 600
fuzz: deps ## Fuzz the CAF and the WAVE/AIFF parsers and the IMA4 codec with libFuzzer, FUZZ_SECONDS each (default 600)
	bash Fuzz/build-caf.sh
	bash Fuzz/build-wave.sh
	bash Fuzz/build-ima4.sh
	sh Fuzz/run-caf.sh $(FUZZ_SECONDS)
	sh Fuzz/run-wave.sh $(FUZZ_SECONDS)
	sh Fuzz/run-ima4.sh $(FUZZ_SECONDS)

bench: deps ## Time cafconv against sndfile-convert, ffmpeg and cp on generated corpora (CAFCONV_BENCH_SKIP_HUGE=1 skips the 2 GiB file)
	bash bench/run.sh

clean: ## Remove build products and outputs
	rm -rf .build .build-* out
