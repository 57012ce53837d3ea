# pp-lsp — the two commands a newcomer needs are `make demo` and `make test`.
# `make help` lists every target.
GO        ?= go
BIN       := bin/pp-lsp
PKGS      := ./...
FUZZTIME  ?= 30s
BENCHTIME ?= 1s

# LONG_TESTS are the tests that -short cuts down (testenv.Scale) or skips
# (testenv.SkipShort), in LONG_PKGS: `make test` runs them short, `make
# test-long` whole. internal/testenv's TestLongTestsAreListed keeps this
# list true.
LONG_TESTS := TestPatchedSegmentEqualsFull TestFindingsFollowEdits TestReindexEqualsFullIndex \
              TestTrigramQualityOnCorpus TestStoreSurvivesKill9 \
              TestCorpusViews TestGeneratedViews TestCountTokensCalibration \
              TestTablesMatchEmacs TestBlocksCorpusAgainstEmacs \
              TestGrammarOptionsAreAccepted TestGrammarAbbreviationsAsGetopt \
              TestHostileModel \
              TestRenameFileEditsKeepEveryLink TestRenameTitleEditsKeepEveryLink TestUnlinkedIsAScanOfTheProse \
              TestNestedReparseEqualsParse TestEditBurst
LONG_PKGS  := ./memory/ ./memory/foveal/ ./orgast/ ./gates/ ./cmd/pp-lsp/ ./memory/orgfeat/ ./server/lsp/

.PHONY: all help build test test-long ci vet cross fmt-check deps demo bench fuzz clean

all: build

help: ## list the targets
	@awk 'BEGIN {FS = ":[^#]*## "} /^[a-z-]+:[^#]*## / {printf "  make %-10s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

build: ## build bin/pp-lsp
	$(GO) build -o $(BIN) ./cmd/pp-lsp

# deps installs what a fresh machine lacks: Go modules, and Debian's
# emacs-nox, elpa-eglot, elpa-org-roam, neovim and sbcl for the tests that drive them (via apt-get
# when it can; otherwise those tests skip, except under CI=true), and with npm the pinned
# TypeScript MCP SDK in ~/.cache/pp-lsp-npm, outside the repository.
deps: ## install what the tests need (Go modules; emacs-nox elpa-eglot elpa-org-roam neovim sbcl; the TypeScript MCP SDK)
	@.ci/deps

vet: ## go vet
	$(GO) vet $(PKGS)

# cross builds and vets the code, tests included, for the other systems
# users run: the sandbox is Linux's alone (elsewhere shell and eval actions
# run as DESIGN §12 says of a kernel without Landlock), but everything
# else must build there, and stays so only if it is built.
CROSS_GOOS := darwin windows

cross: ## go build and go vet for macOS and Windows
	@for os in $(CROSS_GOOS); do \
		echo "GOOS=$$os go build ./... && go vet ./..."; \
		GOOS=$$os $(GO) build $(PKGS) && GOOS=$$os $(GO) vet $(PKGS) || exit 1; \
	done

fmt-check: ## fail if gofmt would change a file
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

test: ## deps, vet, gofmt, the macOS and Windows builds, then every test with -race -short (a few minutes; long tests cut down)
	@start=$$(date +%s); up=$$(cut -d' ' -f1 /proc/uptime 2>/dev/null || true); $(MAKE) --no-print-directory deps vet fmt-check cross && PP_TEST_START=$$start PP_TEST_START_UPTIME=$$up .ci/test

test-long: ## the tests -short cuts down or skips, whole (LONG_TESTS)
	@LONG_TESTS="$(LONG_TESTS)" LONG_PKGS="$(LONG_PKGS)" .ci/test long

ci: test test-long ## what CI runs: make test, then make test-long

demo: build ## the guided tour (bin/pp-lsp demo)
	@$(BIN) demo

# bench runs every Go benchmark once with memory figures; the memex
# generator inside the benchmarks builds the large sizes.
bench: ## every benchmark, with memory figures
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) $(PKGS)

# fuzz runs each fuzz target for FUZZTIME (make fuzz FUZZTIME=10m).
fuzz: ## every fuzz target for FUZZTIME (default 30s)
	@.ci/fuzz $(FUZZTIME)

clean: ## remove bin/
	rm -rf bin
