# pp-lsp — the two commands a newcomer needs are `make demo` and `make test`.
GO        ?= go
BIN       := bin/pp-lsp
PKGS      := ./...
FUZZTIME  ?= 30s
BENCHTIME ?= 1s

.PHONY: all build test vet fmt-check deps demo bench fuzz clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/pp-lsp

# deps installs what a fresh machine lacks: Go modules, and Debian's
# emacs-nox, elpa-eglot, neovim and sbcl for the tests that drive them (via apt-get
# when it can; otherwise those tests skip, except under CI=true).
deps:
	@.ci/deps

vet:
	$(GO) vet $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

test: deps vet fmt-check
	$(GO) test -race -timeout 12m $(PKGS)

demo: build
	@$(BIN) demo

# bench runs every Go benchmark once with memory figures; the memex
# generator inside the benchmarks builds the large sizes.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) $(PKGS)

# fuzz runs each fuzz target for FUZZTIME (make fuzz FUZZTIME=10m).
fuzz:
	@.ci/fuzz $(FUZZTIME)

clean:
	rm -rf bin
