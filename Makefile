# capkit: every tool is installed here, pinned, into ./bin; envtest binaries are built from the Go module proxy
# into a cache outside the repository ($XDG_CACHE_HOME/capkit, default ~/.cache/capkit).
# A recipe ends with `exec go test` (or `exec go run`): a SIGTERM to make, which make passes to the recipe's shell,
# then reaches the go command itself instead of killing the shell and leaving the run going.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

BIN := $(CURDIR)/bin
CONTROLLER_GEN_VERSION := v0.21.0
GOLANGCI_LINT_VERSION := v2.15.0
MOCKGEN_VERSION := v0.6.0
APIDIFF_VERSION := v0.0.0-20250506013437-ce4c2cf36ca6
CONTROLLER_GEN := $(BIN)/controller-gen-$(CONTROLLER_GEN_VERSION)
GOLANGCI_LINT := $(BIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)
MOCKGEN := $(BIN)/mockgen-$(MOCKGEN_VERSION)
APIDIFF := $(BIN)/apidiff-$(APIDIFF_VERSION)
GO_TEST_FLAGS ?= -count=1
export PATH := $(BIN):$(PATH)

.PHONY: help
help: ## Show the targets.
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

.PHONY: demo
demo: envtest ## Run the main job: the memcloud example provider end to end on a real API server.
	@KUBEBUILDER_ASSETS="$$(hack/envtest-binaries.sh)" exec go run ./examples/memcloud/cmd/demo

.PHONY: demo-pods
demo-pods: envtest kwok ## The second demo: podcloud, machines as Pods, on a real API server with kube-scheduler and KWOK.
	@KUBEBUILDER_ASSETS="$$(hack/envtest-binaries.sh)" CAPKIT_KWOK_ASSETS="$$(hack/kwok-binaries.sh)" exec go run ./examples/podcloud/cmd/demo

.PHONY: test
test: envtest kwok kubebuilder test-tools $(CONTROLLER_GEN) $(APIDIFF) ## Run every test: unit, envtest (real kube-apiserver), and the test/ module (real CAPI).
	@assets="$$(hack/envtest-binaries.sh)"; \
	echo "capkit: envtest binaries in $$assets"; \
	KUBEBUILDER_ASSETS="$$assets" CAPKIT_KWOK_ASSETS="$$(hack/kwok-binaries.sh)" CAPKIT_CONTROLLER_GEN="$(CONTROLLER_GEN)" \
	  CAPKIT_APIDIFF="$(APIDIFF)" CAPKIT_KUBEBUILDER="$$(hack/kubebuilder.sh)" exec go test $(GO_TEST_FLAGS) -cover ./...
	@if [[ -f test/go.mod ]]; then exec $(MAKE) --no-print-directory test-e2e; fi

.PHONY: test-e2e
test-e2e: envtest kwok ## Run the test/ module: memcloud and podcloud with the real Cluster API controllers and CRDs.
	@KUBEBUILDER_ASSETS="$$(hack/envtest-binaries.sh)" CAPKIT_CAPI_BIN="$$(hack/capi-managers.sh)" \
	  CAPKIT_KWOK_ASSETS="$$(hack/kwok-binaries.sh)" CAPKIT_IPAM_BIN="$$(hack/ipam-provider.sh)" \
	  exec bash -c 'cd test && exec go test $(GO_TEST_FLAGS) -timeout 40m ./...'

.PHONY: chaos-100x10
chaos-100x10: envtest kwok ## The chaos run at 100 clusters of 1 control plane and 9 workers with the real CAPI managers (17 to 22 minutes on an idle machine; not part of make test).
	@KUBEBUILDER_ASSETS="$$(hack/envtest-binaries.sh)" CAPKIT_CAPI_BIN="$$(hack/capi-managers.sh)" \
	  CAPKIT_KWOK_ASSETS="$$(hack/kwok-binaries.sh)" CAPKIT_IPAM_BIN="$$(hack/ipam-provider.sh)" \
	  CAPKIT_CHAOS_CLUSTERS=100 CAPKIT_CHAOS_WORKERS=9 \
	  bash -c 'cd test && go test -count=1 -v -run "^TestChaos$$" -timeout 120m ./e2e/'

# The fuzz targets of what parses hostile input, each run for FUZZTIME (CI: 30 s each); a crasher fails the run and is
# written to the package's testdata/fuzz/<target>/ (commit it: it then runs in every make test).
FUZZTIME ?= 30s
FUZZ_TARGETS := ./cloudinit:FuzzParse ./cloudinit:FuzzRender ./release/clusterctl:FuzzReadYAML ./release/clusterctl:FuzzCheckFiles \
  ./inplace:FuzzHandler ./internal/kbplugin:FuzzReadRequestUniverse ./internal/yamlfile:FuzzSubstituteVariables

.PHONY: fuzz
fuzz: ## Fuzz cloudinit (Parse, Render), release/clusterctl (ReadYAML, CheckFiles), clusterctl variable substitution, inplace (Handler) and the Kubebuilder plugin's request decoder for FUZZTIME each (default 30s).
	@for t in $(FUZZ_TARGETS); do \
	  pkg="$${t%%:*}"; fn="$${t##*:}"; \
	  echo "capkit: fuzzing $$fn in $$pkg for $(FUZZTIME)"; \
	  hack/fuzz.sh "$$pkg" "$$fn" $(FUZZTIME) || exit 1; \
	done

.PHONY: cover
cover: envtest ## Print test coverage per package.
	@KUBEBUILDER_ASSETS="$$(hack/envtest-binaries.sh)" go test -count=1 -coverprofile=cover.out ./... >/dev/null; \
	go tool cover -func=cover.out | tail -1

.PHONY: demo-vsphere
demo-vsphere: envtest ## The third demo: vspherecloud on govmomi's vCenter simulator with the real Cluster API managers: a fleet provisioned and deleted, failure domains, a virtual IP endpoint from the in-cluster IPAM provider, a crash at the clone call, a delete during the clones; 0 duplicates, 0 leaked VMs.
	@KUBEBUILDER_ASSETS="$$(hack/envtest-binaries.sh)" CAPKIT_CAPI_BIN="$$(hack/capi-managers.sh)" CAPKIT_IPAM_BIN="$$(hack/ipam-provider.sh)" \
	  exec bash -c 'cd test && exec go test -count=1 -v -run "^TestVSphereCloudWithRealClusterAPI$$" ./vsphere/'

.PHONY: bench-vsphere
bench-vsphere: envtest capv-manager ## vspherecloud beside CAPV v1.14.0 on one simulator and the same Cluster API managers: fleets of 10 and 100, crash tests (not part of make test; figures in docs/benchmarks.md).
	@KUBEBUILDER_ASSETS="$$(hack/envtest-binaries.sh)" CAPKIT_CAPI_BIN="$$(hack/capi-managers.sh)" \
	  exec bash -c 'cd test && exec go test -count=1 -run="^$$" -bench=BenchmarkVSphereSideBySide -benchtime=1x -timeout 90m ./vsphere/'

.PHONY: bench
bench: envtest ## Run the benchmarks once (figures in README.md).
	@KUBEBUILDER_ASSETS="$$(hack/envtest-binaries.sh)" go test -run='^$$' -bench=. -benchmem ./...

.PHONY: bench-fleet
bench-fleet: envtest ## Provision fleets of 100 and 1,000 memcloud machines on a real API server (test/bench).
	@KUBEBUILDER_ASSETS="$$(hack/envtest-binaries.sh)" \
	  bash -c 'cd test && go test -run="^$$" -bench=BenchmarkFleet -benchtime=1x -timeout 60m ./bench/'

.PHONY: bench-fleet-10k
bench-fleet-10k: envtest ## The fleet benchmark at 1,000 and 10,000 machines against the floor, and start-up (about 11 minutes on an idle machine, 25 under load; not part of make test).
	@KUBEBUILDER_ASSETS="$$(hack/envtest-binaries.sh)" CAPKIT_FLEET_SIZES=1000,10000 \
	  bash -c 'cd test && go test -run="^$$" -bench=BenchmarkFleet -benchtime=1x -timeout 120m ./bench/'

.PHONY: envtest
envtest: ## Build (first time) or reuse kube-apiserver and etcd for envtest.
	@hack/envtest-binaries.sh >/dev/null

.PHONY: capv-manager
capv-manager: ## Build (first time) or reuse the CAPV v1.14.0 manager, for the vSphere side by side (issue 42; not in make test).
	@hack/capv-manager.sh

.PHONY: kwok
kwok: ## Build (first time) or reuse kube-scheduler and KWOK's kwok, for tests that run Pods on fake nodes.
	@hack/kwok-binaries.sh >/dev/null

.PHONY: kubebuilder
kubebuilder: ## Build (first time) or reuse kubebuilder v4.16.0, which runs capkit's Kubebuilder plugin in make test.
	@hack/kubebuilder.sh >/dev/null

.PHONY: kubebuilder-plugin
kubebuilder-plugin: ## Install the Kubebuilder plugin kubebuilder-capkit/v1-alpha where kubebuilder looks for it.
	GOBIN="$${EXTERNAL_PLUGINS_PATH:-$${XDG_CONFIG_HOME:-$$HOME/.config}/kubebuilder/plugins}/kubebuilder-capkit/v1-alpha" \
	  go install ./cmd/kubebuilder-capkit

.PHONY: test-tools
test-tools: ## Install shellcheck and bubblewrap when missing (Debian packages).
	@hack/install-test-tools.sh

.PHONY: lint
lint: $(GOLANGCI_LINT) ## Run go vet and golangci-lint.
	go vet ./...
	$(GOLANGCI_LINT) run ./...
	@if [[ -f test/go.mod ]]; then cd test && go vet ./... && $(GOLANGCI_LINT) run --config ../.golangci.yml ./...; fi

.PHONY: generate
generate: $(CONTROLLER_GEN) $(MOCKGEN) ## Regenerate deepcopy, contract accessors, CRDs, webhooks, RBAC, mocks and clusterctl components.
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./contract/... paths=./identity/... paths=./examples/memcloud/api/... \
	  paths=./examples/podcloud/api/... paths=./examples/vspherecloud/api/... paths=./internal/docstest/myprovider/api/...
	$(CONTROLLER_GEN) object:headerFile=internal/scaffold/template/hack/boilerplate.go.txt paths=./internal/scaffold/template/api/...
	go run ./cmd/capkit generate accessors ./examples/memcloud/api/v1beta2 ./examples/podcloud/api/v1beta2 ./examples/vspherecloud/api/v1beta2 \
	  ./internal/testtypes ./internal/docstest/myprovider/api/v1beta2 ./internal/scaffold/template/api/v1beta2 \
	  ./contract/conversion/internal/testapi/dual
	$(CONTROLLER_GEN) crd webhook rbac:roleName=manager-role paths=./examples/memcloud \
	  paths=./examples/memcloud/api/... paths=./examples/memcloud/webhooks/... \
	  output:crd:artifacts:config=examples/memcloud/config/crd/bases \
	  output:webhook:artifacts:config=examples/memcloud/config/webhook \
	  output:rbac:artifacts:config=examples/memcloud/config/rbac
	@# memcloud's release v0.1.0 (contract v1beta1, API version v1beta1 only): its CRDs from package v1beta1, with
	@# the v1beta2 version that controller-gen adds to some of them removed, and the manager role.
	$(CONTROLLER_GEN) crd paths=./examples/memcloud/api/v1beta1 \
	  output:crd:artifacts:config=examples/memcloud/config/releases/v0.1.0/crd/bases
	go run ./examples/memcloud/hack/crdversions -keep v1beta1 examples/memcloud/config/releases/v0.1.0/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=manager-role paths=./examples/memcloud \
	  output:rbac:artifacts:config=examples/memcloud/config/releases/v0.1.0/rbac
	$(CONTROLLER_GEN) crd webhook rbac:roleName=manager-role paths=./examples/podcloud \
	  paths=./examples/podcloud/api/... paths=./examples/podcloud/webhooks/... \
	  output:crd:artifacts:config=examples/podcloud/config/crd/bases \
	  output:webhook:artifacts:config=examples/podcloud/config/webhook \
	  output:rbac:artifacts:config=examples/podcloud/config/rbac
	$(CONTROLLER_GEN) crd webhook rbac:roleName=manager-role paths=./examples/vspherecloud \
	  paths=./examples/vspherecloud/api/... paths=./examples/vspherecloud/webhooks/... \
	  output:crd:artifacts:config=examples/vspherecloud/config/crd/bases \
	  output:webhook:artifacts:config=examples/vspherecloud/config/webhook \
	  output:rbac:artifacts:config=examples/vspherecloud/config/rbac
	MOCKGEN=$(MOCKGEN) go generate ./mocks/...
	go run ./examples/memcloud/hack/components
	go run ./examples/memcloud/hack/components -config examples/memcloud/config/releases/v0.1.0
	go run ./examples/podcloud/hack/components
	go run ./examples/vspherecloud/hack/components
	@# The scaffold's template, as its own Makefile's generate does from the project's root (paths=./...); then
	@# what CreateMachinePool adds, regenerated in a provider written into a temporary folder.
	$(CONTROLLER_GEN) crd webhook rbac:roleName=manager-role paths=./internal/scaffold/template/... \
	  output:crd:artifacts:config=internal/scaffold/template/config/crd/bases \
	  output:webhook:artifacts:config=internal/scaffold/template/config/webhook \
	  output:rbac:artifacts:config=internal/scaffold/template/config/rbac
	go run ./internal/scaffold/template/hack/components -config internal/scaffold/template/config
	go run ./internal/scaffold/internal/regen -controller-gen $(CONTROLLER_GEN)

.PHONY: verify
verify: generate $(APIDIFF) ## Fail when generated files are stale, on an API break CHANGELOG.md does not name, or when the oldest claimed versions do not compile.
	@if [[ -n "$$(git status --porcelain -- . ':!bin')" ]]; then \
	  echo "generated files are stale; run 'make generate' and commit:"; git status --porcelain; git diff --stat; exit 1; \
	fi
	@$(MAKE) --no-print-directory apidiff release-oldest

.PHONY: apidiff
apidiff: $(APIDIFF) ## Fail on an incompatible API change since the last release that CHANGELOG.md's breaking changes do not name.
	@APIDIFF="$(APIDIFF)" hack/apidiff.sh

.PHONY: api-baseline
api-baseline: $(APIDIFF) ## Release step: write hack/api/vX.Y.Z.export, the API of the release CHANGELOG.md names, from the working tree.
	@APIDIFF="$(APIDIFF)" hack/apidiff.sh --write

.PHONY: release-oldest
release-oldest: ## Compile the root module with the oldest controller-runtime and k8s.io that docs/compatibility.md claims.
	@hack/release-oldest.sh

$(CONTROLLER_GEN):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) go install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_GEN_VERSION)
	@mv $(BIN)/controller-gen $@

$(GOLANGCI_LINT):
	@mkdir -p $(BIN)
	@echo "capkit: building golangci-lint $(GOLANGCI_LINT_VERSION) (first time only, a few minutes)..."
	GOBIN=$(BIN) go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	@mv $(BIN)/golangci-lint $@

$(MOCKGEN):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) go install go.uber.org/mock/mockgen@$(MOCKGEN_VERSION)
	@mv $(BIN)/mockgen $@

# golang.org/x/exp has only pseudo-versions; the script builds cmd/apidiff at exactly that version in a throwaway
# module (go install would read the module's version list, which the proxy may refuse).
$(APIDIFF):
	@mkdir -p $(BIN)
	hack/apidiff-install.sh $(APIDIFF_VERSION) $@
