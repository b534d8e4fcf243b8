# orchestrate — every target needs only Go (and a shell).
GO        ?= go
BIN       ?= bin/orchestrate
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X github.com/orchestrate-dev/orchestrate/app/cli.Version=$(VERSION)
# TAGS: the pure-Go user and DNS look-ups (os/user's, net's), so that the binary is linked
# statically: no dynamic loader and libc to map at each start (5 ms of a 32 ms start-up measured
# with perf stat -r 30 on `orchestrate --version`, 744 page faults against 690). The user name
# for a lock (user.Current) comes then from /etc/passwd, else $USER.
TAGS      ?= osusergo,netgo
DEMO_DIR  ?= $(CURDIR)/.demo
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
FUZZTIME  ?= 30s

.PHONY: all build install test unit cross fuzz fuzz-smoke lint demo bench bench-small bench-shapes bench-huge soak clean

all: build

build:
	$(GO) build -tags "$(TAGS)" -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/orchestrate

install:
	$(GO) install -tags "$(TAGS)" -ldflags "$(LDFLAGS)" ./cmd/orchestrate

## test: vet, every unit/end-to-end/pty test with the race detector (fuzz targets run their
## seed corpora and testdata/fuzz), and the macOS and FreeBSD builds. The random fuzz smoke
## is `make fuzz-smoke`: on a fresh CI machine its instrumented build of every package and
## their dependencies, and its first inputs' minimisation, took longer than all the rest
test: unit cross

## cross: the command builds for macOS (all of it: the BSD stat fields, darwin's types), and
## for FreeBSD the packages that hold its own files or read stat fields without go-git vet
## (each OS compiles the standard library and every dependency afresh; the packages that
## import go-git, which macOS checks, cost FreeBSD another minute on 2 cores)
cross:
	GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null ./cmd/orchestrate
	GOOS=freebsd GOARCH=amd64 $(GO) vet ./internal/safefile ./internal/openprobe ./internal/prompt ./internal/agentsession ./internal/cachetable ./internal/diskcache

## unit: go vet (every analyzer), then the tests with -vet=off: go test's own vet is a subset
## of the analyzers that just ran, and would run again for every changed package; then the
## failpoint grammar, which only a -tags failpoints build has
unit:
	$(GO) vet ./...
	GORACE=atexit_sleep_ms=0 $(GO) test -race -count=1 -vet=off ./...
	$(GO) test -count=1 -tags failpoints ./app/cli/failpoint

## fuzz-smoke: 3,000 random inputs per fuzz target (every target, a few minutes)
fuzz-smoke:
	FUZZMINTIME=200x scripts/fuzz.sh 3000x

## fuzz: every fuzz target for FUZZTIME (default 30s) each
fuzz:
	scripts/fuzz.sh $(FUZZTIME)

## lint: gofmt (the toolchain's own), go vet, staticcheck (fetched by go run; .ci/run runs it
## before make test)
lint:
	@out=$$("$$($(GO) env GOROOT)/bin/gofmt" -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

## demo: build, create the example repository afresh, and run orchestrate on it (trusting
## the example's .orchestrate.yaml, visibly, in your trust store)
demo: build
	$(GO) run ./cmd/mkexample -dir $(DEMO_DIR)
	@echo
	@echo '$$ orchestrate status'
	@cd $(DEMO_DIR) && $(CURDIR)/$(BIN) status
	@echo
	@echo '$$ orchestrate resume --mode preflight --dry-run'
	@cd $(DEMO_DIR) && $(CURDIR)/$(BIN) resume --mode preflight --dry-run; echo "(exit $$?)"
	@echo
	@echo '$$ orchestrate trust    # the example commits a handoff.command: review it, then trust that exact file'
	@cd $(DEMO_DIR) && $(CURDIR)/$(BIN) trust
	@echo
	@echo '$$ orchestrate resume --mode autopilot'
	@cd $(DEMO_DIR) && $(CURDIR)/$(BIN) resume --mode autopilot; echo "(exit $$?)"
	@echo
	@echo '$$ orchestrate resume --mode autopilot qa-loop:2.1    # halts: another author changed a file since'
	@cd $(DEMO_DIR) && $(CURDIR)/$(BIN) resume --mode autopilot qa-loop:2.1; echo "(exit $$?)"
	@echo
	@echo '$$ orchestrate log'
	@cd $(DEMO_DIR) && $(CURDIR)/$(BIN) log

clean:
	rm -rf bin $(DEMO_DIR)

## bench: orchestrate vs git status and go-git at 10k and 100k files, then the
## shapes of issue 15 (20k commits, merges, 20k stories, 200 workflows, 5k refs)
## vs git status; repositories go to $(BENCH_DIR) or /tmp/orchestrate-bench and
## are reused
bench: build
	BENCH_BIN=$(BIN) BENCH_DIR=$(BENCH_DIR) scripts/bench.sh full

## bench-small: the 10k-file size only (a quick check)
bench-small: build
	BENCH_BIN=$(BIN) BENCH_DIR=$(BENCH_DIR) scripts/bench.sh small

## bench-shapes: the shapes of issue 15 only (not 1M files)
bench-shapes: build
	BENCH_BIN=$(BIN) BENCH_DIR=$(BENCH_DIR) scripts/bench.sh shapes

## bench-huge: 1,000,000 tracked files (needs about 6 GB of disk and minutes)
bench-huge: build
	BENCH_BIN=$(BIN) BENCH_DIR=$(BENCH_DIR) scripts/bench.sh huge

## soak: the crash suite with 240 killed resumes, then every fuzz target for 60s each
## (both always run; the target fails if either does)
soak:
	@status=0; \
	$(GO) test -count=1 -v -run '^TestCrashDuringResume$$' -timeout 30m ./internal/crashtest -crash.runs 240 || status=1; \
	scripts/fuzz.sh 60s || status=1; \
	exit $$status
