# airlock - artifact quarantine and egress review gate.
# `make` builds build/airlock; `make test` installs what is missing, builds
# and runs every test; see README.md and docs/ for the rest.

CC ?= cc
BUILD ?= build
PKGS = libhs libpcre2-8 jansson yaml-0.1 libcrypto libseccomp libarchive \
	libmagic libgit2 zlib sqlite3 libmicrohttpd libcurl

# Debian 12 packages (make deps): every library and program that make test,
# make run, make asan and make bench use, found by walking tests/ and bench/
# (a bare debootstrap root has none of them; make fresh-check proves it).
DEB_PKGS = build-essential pkg-config libhyperscan-dev libpcre2-dev \
	libjansson-dev libyaml-dev libssl-dev libseccomp-dev libarchive-dev libmagic-dev \
	libgit2-dev zlib1g-dev libsqlite3-dev libmicrohttpd-dev libcurl4-openssl-dev \
	check \
	git python3 util-linux procps curl sqlite3 openssl tar gzip xz-utils bzip2 zstd zip unzip \
	ripgrep time hyperfine jq \
	nodejs chromium
# make fuzz only: clang with libFuzzer and the sanitizer runtimes.
FUZZ_PKGS = clang libclang-rt-14-dev

WARN = -std=c11 -Wall -Wextra -Wformat=2 -Wshadow -Wvla -Wstrict-prototypes \
	-Wmissing-prototypes -Werror
HARDEN = -D_FORTIFY_SOURCE=3 -fstack-protector-strong -fPIE
OPT ?= -O2 -g
SAN ?=
# Folders say the process (docs/architecture.md); every one is on the
# include path, and lint (tests/lint.sh) keeps each to what it may include.
SRC_DIRS = common scanners scanners/rules scanners/child scanners/parent \
	gate gate/serve gate/client gate/cli db
SRC_HDRS = $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.h))
CPPFLAGS_ALL = -D_GNU_SOURCE $(SRC_DIRS:%=-I%) $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
CFLAGS_ALL = $(WARN) $(OPT) $(HARDEN) $(SAN) -pthread $(CFLAGS)
LDFLAGS_ALL = -pie -Wl,-z,relro,-z,now $(SAN) -pthread $(LDFLAGS)
LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm

COMMON_SRC = common/err.c common/fold.c common/dynbuf.c common/util.c common/vocab.c common/os.c common/path.c common/text.c common/term.c common/json_text.c \
	common/b64.c common/merkle.c
# scanners/: the wire between the sides and the findings (both sides), the
# rule set and its compiled engine (the parent, before any fork), what runs
# in the sandboxed scan child, and the parent's side of a child.
SCAN_SRC = scanners/proto.c scanners/fdpass.c scanners/scan_finding.c \
	scanners/extract_proto.c \
	$(addprefix scanners/rules/,rule_load.c rule_yaml.c rule_glob.c \
	rule_lit.c rule_factor.c scan_build.c) \
	$(addprefix scanners/child/,child.c sbx.c scan_worker.c scan_pos.c \
	scan_redact.c scan_blob.c scan_check.c scan_decode.c scan_type.c scan_read.c scan_pickle.c scan_norm.c scan_flow.c scan_alias.c scan_xor.c \
	scan_artifact.c scan_archive.c scan_container.c scan_patch.c scan_mbox.c \
	scan_mail.c scan_bundle.c scan_pack.c extract_child.c) \
	$(addprefix scanners/parent/,parent.c launcher.c inproc.c scan_walk.c \
	extract.c)
GATE_SRC = gate/attest.c gate/dirs.c gate/audit.c gate/note.c gate/provenance.c
# The client: commands that talk to a gate over HTTP.
CLIENT_SRC = gate/client/transport.c gate/client/tarpack.c gate/client/common.c \
	gate/client/submit.c gate/client/list.c gate/client/diff.c gate/client/token.c \
	gate/client/decide.c gate/client/release.c gate/client/pull.c \
	gate/client/person.c
# The offline commands: airlock scan, rules, verify, key, audit (no server;
# audit verify --server reads a gate's review API through the client).
CLI_SRC = gate/cli/cmd_scan.c gate/cli/cmd_rules.c gate/cli/cmd_verify.c \
	gate/cli/report.c gate/cli/allowlist.c gate/cli/cmd_audit.c \
	gate/cli/cmd_provenance.c gate/cli/cmd_audit_log.c \
	gate/cli/audit_git.c gate/cli/audit_remote.c
# The service and its data directory: airlock serve, airlock init.
SERVE_SRC = gate/serve/serve.c gate/serve/listener.c gate/serve/router.c \
	gate/serve/http.c gate/serve/api_submission.c gate/serve/api_token.c \
	gate/serve/api_review.c gate/serve/release.c gate/serve/policy.c \
	gate/serve/scanq.c gate/serve/metrics.c gate/serve/store.c \
	gate/serve/auth.c gate/serve/init.c gate/serve/api_person.c \
	gate/serve/view.c gate/serve/record.c gate/serve/keys.c \
	gate/serve/health.c gate/serve/integrity.c gate/serve/conn.c \
	gate/serve/api_audit.c \
	gate/serve/ui.c gate/serve/changes.c
DB_SRC = db/db.c db/db_stmt.c db/db_event.c db/db_principal.c db/db_person.c \
	db/db_submission.c db/db_scan.c db/db_review.c db/db_audit.c
# Generated: the schema migrations, compiled in (rule below).
GEN_SRC = $(BUILD)/gen/db_migrations.c
LIB_SRC = $(COMMON_SRC) $(SCAN_SRC) $(GATE_SRC) $(SERVE_SRC) $(CLI_SRC) \
	$(CLIENT_SRC) $(DB_SRC)
LIB_OBJ = $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(GEN_SRC:$(BUILD)/gen/%.c=$(BUILD)/obj/gen/%.o)
MAIN_OBJ = $(BUILD)/obj/gate/main.o

TESTS = check_util check_common check_rule check_patch check_bundle check_engine check_report check_proto check_sbx check_launch check_attest \
	check_db check_audit check_note check_merkle check_pickle check_flow check_alias check_xor
TEST_BIN = $(TESTS:%=$(BUILD)/tests/%)
FUZZERS = fuzz_scan fuzz_proto fuzz_archive fuzz_patch fuzz_mbox fuzz_bundle fuzz_attest fuzz_container fuzz_extract \
	fuzz_pack fuzz_rules fuzz_policy fuzz_allowlist fuzz_keyring fuzz_body fuzz_fold fuzz_text fuzz_note fuzz_merkle fuzz_proof \
	fuzz_entry fuzz_etag fuzz_read fuzz_norm fuzz_pickle fuzz_flow fuzz_alias fuzz_xor fuzz_factor
REPLAY_BIN = $(FUZZERS:%=$(BUILD)/tests/%_replay)
FUZZ_SECONDS ?= 60
# make fuzz-long: FUZZ_RUNS executions of each of FUZZ_ONLY, one at a time
# (FUZZ_MAX_SECONDS, if set, stops one sooner), inputs of at most
# FUZZ_MAX_LEN bytes; the figures of docs/reliability.md come from it.
FUZZ_RUNS ?= 10000000
FUZZ_MAX_SECONDS ?=
FUZZ_MAX_LEN ?= 65536
FUZZ_ONLY ?= $(FUZZERS)
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null)

.PHONY: all deps ui-deps ui-test test unit e2e matrix torture load iofault diskfull rules-test detect asan lint fuzz \
	fuzz-build fuzz-bins fuzz-long bench bench-first clean run fresh-check hostile

all: $(BUILD)/airlock

$(BUILD)/obj/%.o: %.c $(SRC_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -c -o $@ $<

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -c -o $@ $<

# Each db/migrations/NNNN_name.sql, in order, becomes one C string of
# db_migrations[]; migration N must be file NNNN (no gap, no duplicate).
DB_MIGRATIONS = $(sort $(wildcard db/migrations/*.sql))
$(BUILD)/gen/db_migrations.c: $(DB_MIGRATIONS) Makefile
	@mkdir -p $(dir $@)
	awk 'BEGIN { print "/* Generated from db/migrations by the Makefile. */"; \
		print "#include <stddef.h>"; \
		print "extern const char *const db_migrations[];"; \
		print "extern const size_t db_migrations_n;"; \
		print "const char *const db_migrations[] = {" } \
	FNR == 1 { f = FILENAME; sub(/.*\//, "", f); \
		if (substr(f, 1, 5) != sprintf("%04d_", ++n)) { \
			print FILENAME ": expected migration " n > "/dev/stderr"; exit 1 } \
		printf "%s/* %s */\n", (n > 1 ? ",\n" : ""), f } \
	{ s = ""; for (i = 1; i <= length($$0); i++) { c = substr($$0, i, 1); \
		if (c == "\\" || c == "\"" || c == "?") s = s "\\"; s = s c } \
		printf "\"%s\\n\"\n", s } \
	END { printf "};\nconst size_t db_migrations_n = %d;\n", n }' \
		$(DB_MIGRATIONS) > $@.tmp
	mv $@.tmp $@

$(BUILD)/libairlock.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/airlock: $(MAIN_OBJ) $(BUILD)/libairlock.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS)

$(BUILD)/tests/%: tests/%.c $(BUILD)/libairlock.a tests/test_util.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< \
		$(BUILD)/libairlock.a $(LIBS) $(CHECK_LIBS)

# Installs the Debian packages that are missing (as root), or prints the
# one apt-get line that does. DEPS selects the list (make fuzz: both lists).
DEPS ?= $(DEB_PKGS)
deps:
	@missing=""; for p in $(DEPS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all Debian packages present"; exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
		echo "deps: missing packages:$$missing"; \
		echo "deps: run: sudo apt-get update && sudo apt-get install -y$$missing"; exit 1; \
	fi; \
	echo "deps: installing$$missing"; \
	export DEBIAN_FRONTEND=noninteractive; \
	apt-get install -y -q --no-install-recommends $$missing || \
		{ apt-get update -q && apt-get install -y -q --no-install-recommends $$missing; }
	@if [ "$(DEPS)" = "$(DEB_PKGS)" ]; then $(MAKE) --no-print-directory ui-deps; fi

# The browser tests' one npm package (tests/ui/package-lock.json: playwright-core,
# pinned), installed when node_modules is missing or older than the lock file.
# The browser is Debian's chromium (DEB_PKGS).
ui-deps:
	@if ! command -v npm >/dev/null; then \
		if [ "$$(id -u)" != 0 ]; then echo "ui-deps: no npm: run: sudo apt-get install -y npm"; exit 1; fi; \
		echo "ui-deps: installing npm"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends npm; \
	fi
	@if [ ! -d tests/ui/node_modules ] || [ tests/ui/node_modules -ot tests/ui/package-lock.json ]; then \
		npm ci --prefix tests/ui --no-audit --no-fund && touch tests/ui/node_modules; \
	else echo "ui-deps: tests/ui/node_modules is up to date"; fi

# Fuzz targets built with a plain main() that replays their corpus.
$(BUILD)/tests/%_replay: tests/fuzz/%.c tests/fuzz/replay.c $(wildcard tests/fuzz/*.h) $(BUILD)/libairlock.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests/fuzz $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< tests/fuzz/replay.c \
		$(BUILD)/libairlock.a $(LIBS)

unit: $(TEST_BIN) $(REPLAY_BIN) $(BUILD)/airlock
	@set -e; for t in $(TEST_BIN); do echo "== $$t"; AIRLOCK_BIN=$(BUILD)/airlock CK_DEFAULT_TIMEOUT=120 $$t; done
	@set -e; for f in $(FUZZERS); do echo "== replay $$f"; $(BUILD)/tests/$${f}_replay tests/fuzz/corpus/$${f#fuzz_}; done

# The fault-injection shim of the reliability tests (tests/fault/iofail.c);
# built without the sanitizers: it is preloaded into the gate under test.
IOFAIL = $(BUILD)/tests/libiofail.so
$(IOFAIL): tests/fault/iofail.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(WARN) -O2 -fPIC -shared -o $@ $< -ldl

e2e: $(BUILD)/airlock $(IOFAIL)
	AIRLOCK_BIN=$(BUILD)/airlock bash tests/e2e_scan.sh
	AIRLOCK_BIN=$(BUILD)/airlock bash tests/e2e_artifacts.sh
	AIRLOCK_BIN=$(BUILD)/airlock bash tests/e2e_mbox_diff.sh
	AIRLOCK_BIN=$(BUILD)/airlock bash tests/e2e_client.sh
	AIRLOCK_BIN=$(BUILD)/airlock IOFAIL=$(IOFAIL) bash tests/e2e_serve.sh
	AIRLOCK_BIN=$(BUILD)/airlock bash tests/e2e_review.sh
	AIRLOCK_BIN=$(BUILD)/airlock bash tests/e2e_ui.sh
	AIRLOCK_BIN=$(BUILD)/airlock bash tests/e2e_live.sh
	python3 tests/hostile.py --bin $(BUILD)/airlock

# The review UI in a real browser (headless chromium driven by playwright-core):
# tests/ui/review.mjs. UI_SCREENSHOTS=1 also rewrites docs/img/review-*.png.
ui-test: $(BUILD)/airlock ui-deps
	node tests/ui/review.mjs --bin $(BUILD)/airlock

# Hostile clients, the long version (docs/reliability.md): the gate as
# shipped under 1,024 descriptors, floods of 1,100 connections.
hostile: $(BUILD)/airlock
	python3 tests/hostile.py --long --bin $(BUILD)/airlock

# Every route x every caller x both listeners, generated from the gate's own
# route table (airlock serve --routes); see tests/route_matrix.py.
matrix: $(BUILD)/airlock
	python3 tests/route_matrix.py --bin $(BUILD)/airlock

# kill -9 of the gate, a scan launcher or a scan child at chosen moments,
# checked after every restart (tests/torture.py). make test runs 10 rounds;
# the long run is make torture (its figures: docs/reliability.md).
# TORTURE_SEED=N replays a run's choices.
TORTURE_ROUNDS ?= 100
TORTURE_SECONDS ?= 1500
torture: $(BUILD)/airlock
	python3 tests/torture.py --bin $(BUILD)/airlock --rounds $(TORTURE_ROUNDS) \
		--max-seconds $(TORTURE_SECONDS) $(if $(TORTURE_SEED),--seed $(TORTURE_SEED))

# I/O errors and a full disk injected into the gate (tests/fault/iofail.c)
# while clients submit, approve and release, round after round, the record
# checked after each restart (tests/iofault.py). make test runs 3 rounds of
# 2 s; the long run is make iofault (its figures: docs/reliability.md).
# IOFAULT_SEED=N replays a run's choices.
IOFAULT_ROUNDS ?= 30
IOFAULT_SECONDS ?= 4
iofault: $(BUILD)/airlock $(IOFAIL)
	python3 tests/iofault.py --bin $(BUILD)/airlock --shim $(IOFAIL) \
		--rounds $(IOFAULT_ROUNDS) --seconds $(IOFAULT_SECONDS) \
		$(if $(IOFAULT_SEED),--seed $(IOFAULT_SEED))

# A full disk: the data directory on a small tmpfs (root), filled until 507,
# read, freed, written again; and the I/O-error rounds with more of them.
diskfull: $(BUILD)/airlock $(IOFAIL)
	AIRLOCK_BIN=$(BUILD)/airlock IOFAIL=$(IOFAIL) E2E_ONLY='disk_full.*' \
		bash tests/e2e_serve.sh
	$(MAKE) --no-print-directory iofault IOFAULT_ROUNDS=10

# 64 clients x 60 s of mixed submit/list/show/approve on loopback
# (tests/load.py): throughput and latency reported, errors and the gate's
# memory growth checked. make test runs 8 clients x 5 s.
LOAD_CLIENTS ?= 64
LOAD_SECONDS ?= 60
LOAD_WARMUP ?= 10
load: $(BUILD)/airlock $(BUILD)/tests/load
	python3 tests/load.py --bin $(BUILD)/airlock --load $(BUILD)/tests/load \
		--clients $(LOAD_CLIENTS) --seconds $(LOAD_SECONDS) --warmup $(LOAD_WARMUP)

rules-test: $(BUILD)/airlock
	$(BUILD)/airlock rules test rules

# Benign code stays quiet; the labelled secrets corpus keeps its recall.
detect: $(BUILD)/airlock
	AIRLOCK_BIN=$(BUILD)/airlock bash tests/detection.sh

test: deps
	$(MAKE) all
	$(MAKE) lint
	$(MAKE) unit
	$(MAKE) rules-test
	$(MAKE) e2e
	$(MAKE) ui-test
	$(MAKE) matrix
	$(MAKE) torture TORTURE_ROUNDS=10 TORTURE_SECONDS=180
	$(MAKE) iofault IOFAULT_ROUNDS=3 IOFAULT_SECONDS=2
	$(MAKE) load LOAD_CLIENTS=8 LOAD_SECONDS=5 LOAD_WARMUP=2
	$(MAKE) detect

asan: deps
	AIRLOCK_SANITIZED=1 $(MAKE) BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
		SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" \
		all unit rules-test e2e matrix detect

# The service's and db/'s objects are checked too: build them first.
lint: $(LIB_OBJ)
	@BUILD=$(BUILD) bash tests/lint.sh

# The fuzz targets built with libFuzzer (clang), AddressSanitizer and
# UndefinedBehaviorSanitizer, into build-fuzz/.
FUZZ_SAN = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
# Smaller expansion limits only (common/al_limits.h says which and why).
FUZZ_MODE = -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
# Byte-class loops left uninstrumented for coverage (the file says why).
FUZZ_COV = -fsanitize-coverage-ignorelist=tests/fuzz/cov-ignore.txt
fuzz-build:
	@# The libraries too: on a fresh machine make fuzz may come before make deps.
	@$(MAKE) --no-print-directory deps DEPS="$(DEB_PKGS) $(FUZZ_PKGS)"
	@# A new make: this one read pkg-config's flags before deps installed them.
	@$(MAKE) --no-print-directory fuzz-bins

fuzz-bins:
	$(MAKE) BUILD=build-fuzz CC=clang OPT="-O1 -g $(FUZZ_MODE)" \
		SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all $(FUZZ_COV)" \
		build-fuzz/libairlock.a
	@set -e; for f in $(FUZZERS); do \
		clang $(CPPFLAGS_ALL) -Itests/fuzz -O1 -g $(FUZZ_MODE) $(FUZZ_SAN) -pthread \
			-o build-fuzz/$$f tests/fuzz/$$f.c build-fuzz/libairlock.a $(LIBS); \
	done
	@# The commit built (fuzz_long.sh records it with each run's figures).
	@{ git rev-parse --short=12 HEAD 2>/dev/null || echo unknown; } | tr -d '\n' >build-fuzz/built-from; \
		if git status --porcelain -- . ':!docs' 2>/dev/null | grep -q .; then \
			printf '+changes' >>build-fuzz/built-from; fi

# libFuzzer for FUZZ_SECONDS per target, seeded from tests/fuzz/corpus;
# new inputs go to build-fuzz/corpus (copy a crash's input into the seed
# corpus so that `make test` replays it from then on).
fuzz: fuzz-build
	@set -e; for f in $(FUZZERS); do \
		mkdir -p build-fuzz/corpus/$$f; \
		build-fuzz/$$f -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -reload=0 \
			$$([ -f tests/fuzz/$$f.dict ] && echo -dict=tests/fuzz/$$f.dict) \
			build-fuzz/corpus/$$f tests/fuzz/corpus/$${f#fuzz_}; \
	done

# FUZZ_RUNS executions of each target, one after the other at nice 10;
# the logs and a table of the figures in build-fuzz/long/.
fuzz-long: fuzz-build
	FUZZ_RUNS=$(FUZZ_RUNS) FUZZ_MAX_SECONDS=$(FUZZ_MAX_SECONDS) \
		FUZZ_MAX_LEN=$(FUZZ_MAX_LEN) bash tests/fuzz/fuzz_long.sh $(FUZZ_ONLY)

# The load generator of bench/intake_bench.sh: libcurl clients in threads.
# The audit log's costs by size (bench/audit_bench.py).
$(BUILD)/bench/audit_append: bench/audit_append.c $(BUILD)/libairlock.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< \
		$(BUILD)/libairlock.a $(LIBS)

# The share of files that reach the scan's second stage (scan_bench.sh).
$(BUILD)/bench/stage_share: bench/stage_share.c $(BUILD)/libairlock.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< \
		$(BUILD)/libairlock.a $(LIBS)

# The scanner without its second stage (no views, triggers or conditions:
# AL_FIRST_STAGE_ONLY), for scan_bench.sh to measure what that stage costs.
bench-first:
	$(MAKE) BUILD=$(BUILD)/bench/first OPT="$(OPT) -DAL_FIRST_STAGE_ONLY=1" \
		$(BUILD)/bench/first/airlock

$(BUILD)/bench/intake_load: bench/intake_load.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< \
		$(shell pkg-config --libs libcurl 2>/dev/null)

# The mixed load client of make load (tests/load.py): libcurl clients in
# threads.
$(BUILD)/tests/load: tests/load.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< \
		$(shell pkg-config --libs libcurl 2>/dev/null)

bench: deps
	$(MAKE) $(BUILD)/airlock $(BUILD)/bench/intake_load $(BUILD)/bench/audit_append \
		$(BUILD)/bench/stage_share bench-first
	bash bench/scan_bench.sh
	bash bench/artifact_bench.sh
	AIRLOCK_BIN=$(BUILD)/airlock INTAKE_LOAD=$(BUILD)/bench/intake_load bash bench/intake_bench.sh
	python3 bench/audit_bench.py --bin $(BUILD)/airlock --append $(BUILD)/bench/audit_append

# The gate on its embedded default: SQLite and the store in ./var (made on
# first run; the admin token is kept in var/admin.token, 0600, for this
# development set-up only), API on 127.0.0.1:8420, intake var/intake.sock.
RUN_DATA ?= var
RUN_LISTEN ?= 127.0.0.1:8420
run: deps
	@$(MAKE) --no-print-directory $(BUILD)/airlock
	@if [ ! -f $(RUN_DATA)/airlock.db ]; then \
		mkdir -p $(RUN_DATA) && chmod 700 $(RUN_DATA) && \
		(umask 077 && $(BUILD)/airlock init --data $(RUN_DATA) > $(RUN_DATA)/admin.token.tmp) && \
		mv $(RUN_DATA)/admin.token.tmp $(RUN_DATA)/admin.token; \
	fi
	@echo "airlock: API  http://$(RUN_LISTEN)   intake: $(RUN_DATA)/intake.sock"
	@echo "airlock: review UI  http://$(RUN_LISTEN)/ui/ (review-ui/; docs/review-ui.md)"
	@echo "airlock: admin token: $(RUN_DATA)/admin.token. Register the person an agent works for, then its token:"
	@echo "  export AIRLOCK_TOKEN=\$$(cat $(RUN_DATA)/admin.token) AIRLOCK_URL=http://$(RUN_LISTEN)"
	@echo "  $(BUILD)/airlock person add alice"
	@echo "  $(BUILD)/airlock token create --role agent --name agent-1 --on-behalf-of alice --ttl 8h"
	@echo "airlock: stop with Ctrl-C"
	exec $(BUILD)/airlock serve --data $(RUN_DATA) --listen $(RUN_LISTEN)

# On demand, as root: the README's set-up commands on a bare debootstrap
# bookworm root (tests/fresh_check.sh; downloads Debian packages).
fresh-check:
	BUILD=$(BUILD) bash tests/fresh_check.sh

clean:
	rm -rf build build-asan build-fuzz
