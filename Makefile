GO      ?= go
BIN     := bin/radish-server
ARGS    ?=

.PHONY: build run test test-short vet fmt bench bench-quick bench-scaling clean

build:
	$(GO) build -o $(BIN) ./cmd/radish-server
	$(GO) build -o bin/radish-probe ./cmd/radish-probe

## run: start the server on port 6379 (pass flags with ARGS="--port 7000 --shards 4")
run: build
	./$(BIN) $(ARGS)

## test: gofmt and vet checks, unit tests, fuzz seeds and end-to-end tests
test: build vet e2e/clients/node/node_modules/.package-lock.json
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) test -count=1 -timeout 20m ./...
	$(GO) test -race -count=1 -timeout 20m ./shard/ ./router/ ./net/... ./config/
	E2E_RACE=1 $(GO) test -count=1 -timeout 20m -run 'MSetAtomic|MultiAtomic|TestLinearizable$$|PipelineSpansShards|StringsAcrossShards|ManyConnections|Blocking|Types|InfoAndConfig|PipelinedZAdd|ConfigSet|UnixSocket|ScriptAtomic|ScriptLock|ScriptKill|TLSConfig|TLSStalled' ./e2e/

vet:
	$(GO) vet ./...

# The Node.js clients the end-to-end tests drive (e2e/clients_test.go).
e2e/clients/node/node_modules/.package-lock.json: e2e/clients/node/package.json e2e/clients/node/package-lock.json
	cd e2e/clients/node && npm ci --no-audit --no-fund

## bench: compare radish-server with redis-server (see benchmarks/README.md)
bench: build
	bash benchmarks/run.sh

bench-quick: build
	QUICK=1 bash benchmarks/run.sh

## bench-scaling: the scaling curve over shards, for a many-core machine (see benchmarks/README.md)
bench-scaling:
	bash benchmarks/scaling.sh

clean:
	rm -rf bin
