# llmgate's build. `make run` runs the quickstart suite against the embedded
# simulator; `make test` is what CI runs.
GO      ?= go
BIN     ?= bin/llmgate
PKGS    ?= ./...

export TESTCONTAINERS_RYUK_DISABLED ?= true

.PHONY: build build-sim test run bench lint sim-image

build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/llmgate

# the simulator image's binaries: llmgate and the stand-in nvidia-smi
build-sim: build
	CGO_ENABLED=0 $(GO) build -o bin/nvidia-smi ./internal/cmd/nvidia-smi

test: lint
	@$(GO) run ./internal/testprobe
	$(GO) test -race -timeout 30m $(PKGS)

run:
	$(GO) run ./cmd/llmgate run scenarios/quickstart.hcl -o quickstart-results.json

bench:
	$(GO) test -run '^$$' -bench . -benchmem -timeout 30m ./internal/sim/ ./internal/load/ ./internal/compare/

sim-image: build-sim
	docker build -t llmgate-sim .

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "not gofmt-clean:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)
