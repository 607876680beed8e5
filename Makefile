# hive: build with cgo, libsecp256k1 (go-nostr vendors the C library) and
# SQLite's FTS5 full-text search (mattn/go-sqlite3 compiles it in with sqlite_fts5).
export CGO_ENABLED := 1
TAGS    := libsecp256k1,sqlite_fts5
GO      ?= go
BIN     := bin/hive
DATA    ?= .hive
ADDR    ?= 127.0.0.1:7447
RUNFLAGS ?=
# hive version: the tag (else "devel") and the commit, "+dirty" with changes.
VERSION ?= $(shell git describe --tags --dirty 2>/dev/null || echo devel)
COMMIT  ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo +dirty)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT)

.PHONY: build run test test-flotilla test-go test-go-units test-race test-e2e-a test-e2e-b test-interop test-adapters-deps test-web-node web web-check web-deps vet bench bench-quick bench-bridge fuzz soak clean

build:
	$(GO) build -tags $(TAGS) -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/hive

run: build
	./$(BIN) serve --data $(DATA) --addr $(ADDR) $(RUNFLAGS)

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet -tags $(TAGS) ./...

test: vet web-check test-go test-interop test-web-node

# The closed-hub tests (and the search tests over the real binary) run a
# second time over the PostgreSQL log (the tests
# start a throwaway cluster; they skip without PostgreSQL unless CI requires it).
CLOSED_HUB_TESTS := TestAuthAttackMatrix|TestRemovedOwnerCascadesToAgents|TestChannelAccessAttacks|TestNoLeakToNonMembers|TestTeamHappyPath|TestRevocationKicksAgent|TestProjectionsRebuildFromLog|TestReadRule.*|TestSearch.*|TestDeletionOfOthersEventsRefused|TestNIP43InviteModes

# The end-to-end package (test/) mostly waits on real processes, so it runs as
# two go test processes beside the other packages: the browser, terminal and
# real-adapter tests (E2E_A) in one, the rest in the other. Each prints its
# output when it ends.
E2E_A := ^Test(Web|ChatTUI|BridgeClaude|BridgeCodex|BridgeGemini|BridgeSessionFailure)
GOTEST := HIVE_REQUIRE_ADAPTERS=1 $(GO) test -tags $(TAGS) -count=1 -timeout 15m

test-go: test-adapters-deps
	$(MAKE) --no-print-directory -j3 --output-sync=target test-go-units test-e2e-a test-e2e-b
	HIVE_TEST_STORE=postgres $(GO) test -tags $(TAGS) -count=1 -timeout 10m -run '^($(CLOSED_HUB_TESTS))$$' ./test/
	$(MAKE) --no-print-directory test-race

# The packages whose goroutines share state once more under the race detector
# (about a minute). pairing is left out: its tests drive go-nostr's Relay,
# whose Close races its own read loop (inside go-nostr v0.52.3).
RACE_PKGS := ./hub/... ./relay/... ./store/... ./client/... ./agentbridge/... ./agentmcp/... ./tui/...
test-race:
	$(GO) test -race -tags $(TAGS) -count=1 -timeout 10m $(RACE_PKGS)

test-go-units:
	$(GOTEST) $$($(GO) list -tags $(TAGS) ./... | grep -v '/test$$')

test-e2e-a: test-adapters-deps
	$(GOTEST) -run '$(E2E_A)' ./test/

test-e2e-b:
	$(GOTEST) -skip '$(E2E_A)' ./test/

# The real ACP adapters the bridge tests run (test/adapters/package.json, pinned):
# installed with npm ci, again only when the package files change.
ADAPTERS := test/adapters
test-adapters-deps: $(ADAPTERS)/node_modules/.hive-installed

$(ADAPTERS)/node_modules/.hive-installed: $(ADAPTERS)/package.json $(ADAPTERS)/package-lock.json
	@command -v node >/dev/null || { echo "node is required for the bridge's adapter tests (install Node.js 20+)"; exit 1; }
	cd $(ADAPTERS) && npm ci --no-audit --no-fund --silent
	touch $@

# flotilla itself against the real binary in headless Chromium
# (test/flotilla_test.go): not part of make test, since flotilla is not in
# this repository. FLOTILLA is the directory of its static build (the one
# with index.html and _app/); the test skips without it, and this target
# fails without it.
FLOTILLA ?=
test-flotilla: build
	@test -n "$(FLOTILLA)" && test -f "$(FLOTILLA)/index.html" || { echo "make test-flotilla FLOTILLA=DIR: DIR is flotilla's static build (index.html, _app/)"; exit 1; }
	HIVE_FLOTILLA=$(abspath $(FLOTILLA)) HIVE_REQUIRE_FLOTILLA=1 HIVE_REQUIRE_CHROMIUM=1 $(GO) test -tags $(TAGS) -count=1 -timeout 10m -run '^TestFlotilla' -v ./test/

# The nostr-tools and NDK interop suites run when test/interop exists and node
# is installed. --test-force-exit: NDK keeps interval timers after its relays
# disconnect, which would hold the runner open after the last test.
test-interop: build
	@if [ -f test/interop/package.json ]; then \
		command -v node >/dev/null || { echo "node is required for test/interop (install Node.js 20+)"; exit 1; }; \
		cd test/interop && npm ci --no-audit --no-fund --silent && HIVE_BIN=$(CURDIR)/$(BIN) node --test --test-force-exit && \
		HIVE_BIN=$(CURDIR)/$(BIN) $(GO) run ../../internal/pgtest/pgrun node --test --test-force-exit; \
	fi

# The web chat's JS (web/src: chat model, hub connection, pairing, keys) in
# Node: the shared chat-model fixtures (spec/fixtures) and tests against the
# real hive binary (HIVE_BIN). npm ci runs again only when the lock file changes.
WEB := web
test-web-node: build $(WEB)/node_modules/.hive-installed
	cd $(WEB) && HIVE_BIN=$(CURDIR)/$(BIN) node --test test/

$(WEB)/node_modules/.hive-installed: $(WEB)/package.json $(WEB)/package-lock.json
	@command -v node >/dev/null || { echo "node is required for the web chat's tests (install Node.js 20+)"; exit 1; }
	cd $(WEB) && npm ci --no-audit --no-fund --silent
	touch $@

# The web chat's page: its sources build into web/dist, which is committed
# and embedded by go:embed, so `make run` and `go build` need no Node. `make
# web` rebuilds it; `make web-check` fails when the committed web/dist is not
# what the sources build.
web-deps: $(WEB)/node_modules/.hive-installed

web: web-deps
	cd $(WEB) && node build.mjs

web-check: web-deps
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	(cd $(WEB) && node build.mjs "$$tmp/dist") && \
	if ! diff -r $(WEB)/dist "$$tmp/dist" >/dev/null; then \
		echo "web/dist is not what web/src builds: run make web and commit web/dist"; \
		diff -r $(WEB)/dist "$$tmp/dist" | head -20; exit 1; \
	fi

bench:
	cd bench && $(GO) run -tags $(TAGS) . -write-readme $(BENCHFLAGS)

bench-quick:
	cd bench && $(GO) run -tags $(TAGS) . -quick $(BENCHFLAGS)

# hive bridge: mention stored -> prompt at the agent, and 32 pooled agents'
# turns/s (test/bridge_bench_test.go), 3 runs with the load average beside
# each; rewrites the bridge results in bench/README.md. About 4 minutes.
bench-bridge:
	cd bench && $(GO) run -tags $(TAGS) . bridge -write-readme $(BENCHFLAGS)

FUZZTIME ?= 30s
fuzz:
	@for t in $$(grep -rhoE '^func (Fuzz[A-Za-z0-9_]+)' --include='*_test.go' . | sed 's/func //' | sort -u); do \
		pkg=$$(grep -rlE "^func $$t\(" --include='*_test.go' . | head -1 | xargs dirname); \
		echo "== $$t in $$pkg"; \
		$(GO) test -tags $(TAGS) -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done

soak:
	HIVE_CRASH_ROUNDS=50 $(GO) test -tags $(TAGS) -count=1 -timeout 30m -run 'Crash|Soak' -v ./test/

clean:
	rm -rf bin
