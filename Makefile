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
SHAREDIR := $(DESTDIR)$(PREFIX)/share/cafconv
RELEASE_BIN := .build/release/cafconv

.PHONY: help deps build run test example plugin-example docs release release-check install install-afconvert install-afinfo uninstall lint format fuzz bench bench-aac bench-opus bench-loudness bench-bazel bench-compare same-outputs clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

deps: ## Install missing system packages (libsndfile, and ffmpeg/sndfile-programs for cross-checks)
	@bash scripts/install-deps.sh

build: deps ## Build the debug binary
	$(SWIFT) build

run: build ## Convert Samples/ into out/Samples, show what was made and write out/Samples/report.html
	rm -rf $(OUT)
	.build/debug/cafconv convert Samples -o $(OUT)
	@echo
	@echo "Made in $(OUT):"
	@find $(OUT) -name '*.caf' | sort | while read -r f; do \
		.build/debug/cafconv info --brief "$$f" 2>/dev/null || ls -l "$$f"; done
	@.build/debug/cafconv report $(OUT) --against Samples -o $(OUT)/report.html 2>/dev/null && \
		echo "The report (open it in a browser): $(CURDIR)/$(OUT)/report.html"
	@echo
	@echo "The binary: $(CURDIR)/.build/debug/cafconv (not on PATH; 'make install PREFIX=~/.local' installs a release build)"

test: deps ## Install missing system packages and run every test (with the example package and the docs)
	$(SWIFT) build --build-tests
	$(MAKE) --no-print-directory example plugin-example docs release-check
	$(SWIFT) test

EXAMPLE := Examples/ReadCAF
example: ## Build Examples/ReadCAF (a package that uses CAFKit) and run it on a CAF cafconv made
	$(SWIFT) build --package-path $(EXAMPLE)
	$(EXAMPLE)/.build/debug/read-caf --demo
	$(SWIFT) build --product cafconv
	@work=$$(mktemp -d) && trap 'rm -rf "$$work"' EXIT && \
		.build/debug/cafconv convert -q Samples/sfx/impact-mono-24bit-48000.wav -o "$$work/impact.caf" && \
		$(EXAMPLE)/.build/debug/read-caf "$$work/impact.caf" && \
		! $(EXAMPLE)/.build/debug/read-caf Samples/ui/click-mono-16bit-22050.wav > /dev/null

PLUGIN_EXAMPLE := Examples/SoundAssets
plugin-example: ## Build and test Examples/SoundAssets, whose WAV files CAFConvPlugin turns into CAF resources
	$(SWIFT) build --build-tests --package-path $(PLUGIN_EXAMPLE)
	$(SWIFT) test --skip-build --package-path $(PLUGIN_EXAMPLE)

docs: ## Build CAFKit's DocC documentation (warnings are errors) into .build/plugins/Swift-DocC/outputs
	$(SWIFT) package generate-documentation --target CAFKit --warnings-as-errors

release: deps ## Build an optimised binary with the Swift runtime (and libstdc++) linked statically
	flags=$$(bash scripts/release-flags.sh) && $(SWIFT) build $$flags

release-check: release ## Check the release binary against the debug one (same bytes on every road), its command line and its linking
	$(SWIFT) build --product cafconv
	bash scripts/release-check.sh .build/debug/cafconv $(RELEASE_BIN)

install: release ## Install the binary, man page, shell completions and file(1) magic under $(DESTDIR)$(PREFIX)
	install -d $(BINDIR) $(MANDIR) $(BASHDIR) $(ZSHDIR) $(FISHDIR) $(SHAREDIR)
	install -m 755 $(RELEASE_BIN) $(BINDIR)/cafconv
	# The magic(5) fragment that makes file(1) describe CAF files (see docs/info-verify.md).
	install -m 644 share/magic/caf $(SHAREDIR)/caf.magic
	# The manual and the completion scripts come from the binary's own option tables; the manual
	# is dated by the last commit (SOURCE_DATE_EPOCH), or else by when the binary was built.
	SOURCE_DATE_EPOCH=$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null)} \
		$(RELEASE_BIN) --generate-manual > $(MANDIR)/cafconv.1
	$(RELEASE_BIN) --generate-completion-script bash > $(BASHDIR)/cafconv
	$(RELEASE_BIN) --generate-completion-script zsh > $(ZSHDIR)/_cafconv
	$(RELEASE_BIN) --generate-completion-script fish > $(FISHDIR)/cafconv.fish
	chmod 644 $(MANDIR)/cafconv.1 $(BASHDIR)/cafconv $(ZSHDIR)/_cafconv $(FISHDIR)/cafconv.fish

install-afconvert: install ## Also install the link afconvert -> cafconv (afconvert's command line; docs/afconvert.md)
	ln -sf cafconv $(BINDIR)/afconvert

install-afinfo: install ## Also install the link afinfo -> cafconv (afinfo's output; docs/afinfo.md)
	ln -sf cafconv $(BINDIR)/afinfo

uninstall: ## Remove what `make install` installed
	if [ "$$(readlink $(BINDIR)/afconvert 2>/dev/null)" = cafconv ]; then rm -f $(BINDIR)/afconvert; fi
	if [ "$$(readlink $(BINDIR)/afinfo 2>/dev/null)" = cafconv ]; then rm -f $(BINDIR)/afinfo; fi
	rm -f $(BINDIR)/cafconv $(MANDIR)/cafconv.1 $(BASHDIR)/cafconv $(ZSHDIR)/_cafconv $(FISHDIR)/cafconv.fish
	rm -f $(SHAREDIR)/caf.magic
	rmdir $(SHAREDIR) 2>/dev/null || true

lint: ## Check formatting with swift-format (strict)
	$(SWIFT) format lint --strict -r Package.swift Sources Tests Benchmarks/Package.swift Benchmarks/Benchmarks

format: ## Reformat the sources in place
	$(SWIFT) format format -i -r Package.swift Sources Tests Benchmarks/Package.swift Benchmarks/Benchmarks

FUZZ_SECONDS ?= 600
fuzz: deps ## Fuzz the CAF, WAVE/AIFF, manifest and rules parsers, info (inspection) and the IMA4 codec with libFuzzer, FUZZ_SECONDS each (default 600)
	bash Fuzz/build.sh caf
	bash Fuzz/build.sh wave
	bash Fuzz/build.sh manifest
	bash Fuzz/build.sh ima4
	bash Fuzz/build.sh inspection
	bash Fuzz/build.sh rules
	sh Fuzz/run-caf.sh $(FUZZ_SECONDS)
	sh Fuzz/run-wave.sh $(FUZZ_SECONDS)
	sh Fuzz/run-manifest.sh $(FUZZ_SECONDS)
	sh Fuzz/run-caf.sh $(FUZZ_SECONDS) ima4
	sh Fuzz/run-inspection.sh $(FUZZ_SECONDS)
	sh Fuzz/run-rules.sh $(FUZZ_SECONDS)

bench: deps ## Time cafconv against sndfile-convert, ffmpeg and cp on generated corpora (CAFCONV_BENCH_SKIP_HUGE=1 skips the 2 GiB file)
	bash bench/run.sh

bench-compare: deps ## make bench with BASE's release binary timed beside this tree's in the same run, and a table new / base (BASE=commit)
	@test -n "$(BASE)" || { echo "usage: make bench-compare BASE=commit" >&2; exit 2; }
	bash bench/compare.sh $(BASE)

same-outputs: ## Prove outputs, reports, messages and exit codes identical to BASE's (BASE=commit [HEAD=commit or work tree]; builds both, not part of test)
	@test -n "$(BASE)" || { echo "usage: make same-outputs BASE=commit [HEAD=commit or work tree]" >&2; exit 2; }
	bash scripts/same-outputs.sh $(BASE) $(HEAD)

bench-loudness: deps ## info --loudness against ffmpeg -af ebur128 per file (speed and agreement) on the sfx corpus, Samples/ and a 10-minute file
	bash bench/loudness.sh

bench-aac: deps ## The music corpus to AAC 128 kb/s: cafconv against ffmpeg to .m4a, and PCM start-up against main
	bash bench/aac.sh

bench-opus: deps ## The music corpus to Opus against ffmpeg's libopus to Ogg; Ogg Opus moved into CAF against re-encoding and ffmpeg -c copy
	bash bench/opus.sh

bench-bazel: deps ## One-file conversions under Bazel: the persistent worker against one sandboxed process each (builds the release binary)
	$(MAKE) --no-print-directory release
	bash bench/bazel-worker.sh $(RELEASE_BIN)

clean: ## Remove build products and outputs
	rm -rf .build .build-* out
