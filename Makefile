# joulehook: build, install, check, demo, bench.
#
#   make                  release programs in bin/ (JH_NOW/JH_NONCE ignored)
#   make check            test build in build/test/, every suite, man lint;
#                         the suites run JOBS at a time (default: the CPUs)
#   make check-asan       the sanitizer tier: ASAN_SUITES (the suites that
#                         drive the C code) on an ASan+UBSan build, less
#                         the tests tagged host; make check has the rest
#   make check-valgrind   the same suites under valgrind
#   make demo             a short tour on a built-in example
#   make bench            throughput and latency ratios, one run
#   make fuzz             libFuzzer targets (clang) in build/fuzz/, each run
#                         FUZZ_SECONDS (600)
#   make install PREFIX=/usr/local DESTDIR=

MAKEFLAGS += --no-builtin-rules
.SUFFIXES:

PREFIX	?= /usr/local
DESTDIR	?=
BUILD	?= release

PROGS	= jh-acp jh-chain jh-decide jh-hook jh-meter jh-normalize jh-proxy jh-result jh-seal jh-ship jh-status jh-verify
MAN1	= jh-acp.1 jh-chain.1 jh-decide.1 jh-grant.1 jh-hook.1 jh-install.1 jh-meter.1 jh-normalize.1 jh-proxy.1 jh-result.1 jh-seal.1 jh-ship.1 jh-status.1 jh-verify.1
MAN5	= joulehook-formats.5
MAN7	= joulehook.7

LIBSRC	= acprelay.c \
	  aggregate.c \
	  buf.c \
	  cbor.c \
	  chain.c \
	  checkpoint.c \
	  cmdtab.c \
	  cose.c \
	  decide.c \
	  didkey.c \
	  effects.c \
	  effgrant.c \
	  energy.c \
	  fused.c \
	  gate.c \
	  hookwire.c \
	  host-acp.c \
	  host-claude.c \
	  host-cline.c \
	  host-docs.c \
	  host-gemini.c \
	  host-opencode.c \
	  hosts.c \
	  json.c \
	  keys.c \
	  kinds.c \
	  ledger.c \
	  listen.c \
	  mcp.c \
	  meter.c \
	  otlp.c \
	  patch.c \
	  paths.c \
	  profile.c \
	  protect.c \
	  proxyhold.c \
	  proxyserve.c \
	  proxyup.c \
	  reply.c \
	  result.c \
	  sealunit.c \
	  shellcheck.c \
	  shellparse.c \
	  statefs.c \
	  status.c \
	  transcript.c \
	  util.c \
	  verify.c \
	  wire.c

# Libraries each program links, by pkg-config name (a hook stage must not
# map libcurl it never calls).
PKG_jh-chain	= libsodium jansson
PKG_jh-decide	= libsodium jansson
PKG_jh-hook	= libsodium jansson
PKG_jh-meter	= libsodium jansson libmicrohttpd
PKG_jh-normalize	= libsodium jansson
PKG_jh-proxy	= libsodium jansson libcurl libmicrohttpd
PKG_jh-result	= libsodium jansson
PKG_jh-seal	= libsodium jansson
PKG_jh-ship	= libsodium jansson libpq
PKG_jh-status	= libsodium jansson
PKG_jh-verify	= libsodium jansson
PKG_jh-acp	= libsodium jansson
PKG_ALL		= libsodium jansson

O	= build/$(BUILD)
ifeq ($(BUILD),release)
OUTBIN	= bin
VARIANT	=
else ifeq ($(BUILD),test)
OUTBIN	= $(O)/bin
VARIANT	= -DJH_TESTING
else ifeq ($(BUILD),asan)
OUTBIN	= $(O)/bin
VARIANT	= -DJH_TESTING -fsanitize=address,undefined \
	  -fno-sanitize-recover=all -fno-omit-frame-pointer
VARIANT_LD = -fsanitize=address,undefined
NOSTATIC = 1
else
$(error BUILD must be release, test or asan)
endif

CFLAGS	?= -O2 -g
# lib/ is searched for "..." includes only: lib/cbor.h must not hide
# libcbor's <cbor.h> (tests/libcbor-regress.c), nor lib/paths.h glibc's.
JH_CFLAGS = -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -iquote lib \
	    $(VARIANT) $(shell pkg-config --cflags $(PKG_ALL) 2>/dev/null)
JH_LDFLAGS = -Wl,--as-needed $(VARIANT_LD)

LIBOBJ	= $(LIBSRC:%.c=$(O)/lib/%.o)
LIBA	= $(O)/libjoulehook.a
BINS	= $(PROGS:%=$(OUTBIN)/%)

.PHONY: all check check-asan check-valgrind test-suites deps demo bench \
	install uninstall clean lint-man fuzz fuzz-build fuzz-relink

all: $(BINS) $(if $(filter release,$(BUILD)),lib/libjoulehook.a)

lib/libjoulehook.a: $(LIBA)
	cp $(LIBA) $@

$(O)/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(JH_CFLAGS) -MMD -MP -c -o $@ $<

$(O)/bin/%.o: bin/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(JH_CFLAGS) -MMD -MP -c -o $@ $<

# jh-ship alone includes libpq's header.
$(O)/bin/jh-ship.o: JH_CFLAGS += $(shell pkg-config --cflags libpq)

$(LIBA): $(LIBOBJ)
	@rm -f $@
	$(AR) rcs $@ $(LIBOBJ)

# jh-meter's parts beside jh-meter.c share bin/metercmd.h.
METEROBJ = $(O)/bin/meter-otel.o $(O)/bin/meter-hw.o $(O)/bin/meter-agg.o
$(OUTBIN)/jh-meter: $(METEROBJ)

$(OUTBIN)/%: $(O)/bin/%.o $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(JH_LDFLAGS) -o $@ $(filter %.o,$^) $(LIBA) \
	    $(shell pkg-config --libs $(PKG_$*)) -lm

# The hook driver is linked statically, so the dynamic loader, and any
# LD_PRELOAD a project's settings inject, never runs before its main
# (jh-hook(1), SECURITY CONSIDERATIONS); so is jh-status, which Claude
# Code runs through a shell as its status line.  Sanitizer builds cannot
# be static.  jh-hook's parts beside jh-hook.c share bin/hook.h.
HOOKOBJ	= $(O)/bin/hook-conf.o $(O)/bin/hook-run.o $(O)/bin/hook-sock.o
$(OUTBIN)/jh-hook: $(HOOKOBJ)
$(OUTBIN)/jh-hook $(OUTBIN)/jh-status: $(OUTBIN)/%: $(O)/bin/%.o $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(JH_LDFLAGS) $(if $(NOSTATIC),,-static) -o $@ \
	    $(filter %.o,$^) $(LIBA) \
	    $(shell pkg-config $(if $(NOSTATIC),,--static) --libs libsodium jansson) -lm

$(O)/tests/libcbor-regress: tests/libcbor-regress.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(JH_CFLAGS) $(JH_LDFLAGS) -o $@ $< \
	    $(shell pkg-config --libs libcbor)

$(O)/tests/sh-parse: tests/sh-parse.c $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(JH_CFLAGS) $(JH_LDFLAGS) -o $@ $< $(LIBA) \
	    $(shell pkg-config --libs libsodium jansson libcbor) -lm

$(O)/tests/sh-effects: tests/sh-effects.c $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(JH_CFLAGS) $(JH_LDFLAGS) -o $@ $< $(LIBA) \
	    $(shell pkg-config --libs libsodium jansson) -lm

$(O)/tests/cmdtab-lint: tests/cmdtab-lint.c $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(JH_CFLAGS) $(JH_LDFLAGS) -o $@ $< $(LIBA)

$(O)/tests/host-answer: tests/host-answer.c $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(JH_CFLAGS) $(JH_LDFLAGS) -o $@ $< $(LIBA) \
	    $(shell pkg-config --libs libsodium jansson) -lm

$(O)/tests/energy-probe: tests/energy-probe.c $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(JH_CFLAGS) $(JH_LDFLAGS) -o $@ $< $(LIBA) \
	    $(shell pkg-config --libs libsodium jansson) -lm

# The fault injector tests/faults.bats preloads into a stage: built
# without the sanitizers, which would have to come first in the process.
$(O)/tests/faultinject.so: tests/faultinject.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -fPIC \
	    -shared -o $@ $< -ldl

-include $(LIBOBJ:.o=.d) $(PROGS:%=$(O)/bin/%.d) $(HOOKOBJ:.o=.d) \
	$(METEROBJ:.o=.d)

# Installs the Debian/Ubuntu packages the build and the tests need when a
# library or tool is missing; a no-op otherwise.
deps:
	@sh scripts/deps -q

# The test builds compile one file per CPU unless make was given -j.
BUILD_J	= $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 1))

check: deps
	$(MAKE) $(BUILD_J) BUILD=test all build/test/tests/libcbor-regress \
	    build/test/tests/sh-parse build/test/tests/sh-effects \
	    build/test/tests/energy-probe build/test/tests/cmdtab-lint \
	    build/test/tests/host-answer build/test/tests/faultinject.so
	$(MAKE) BUILD=test test-suites

check-asan: deps
	$(MAKE) $(BUILD_J) BUILD=asan all build/asan/tests/libcbor-regress \
	    build/asan/tests/sh-parse build/asan/tests/sh-effects \
	    build/asan/tests/energy-probe build/asan/tests/cmdtab-lint \
	    build/asan/tests/host-answer build/asan/tests/faultinject.so
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    $(MAKE) BUILD=asan BATS_TAGS='!host' \
	    SUITES='$(filter $(ASAN_SUITES:%=tests/%.bats),$(ALL_SUITES))' \
	    test-suites

check-valgrind: deps
	$(MAKE) $(BUILD_J) BUILD=test all build/test/tests/libcbor-regress \
	    build/test/tests/sh-parse build/test/tests/sh-effects \
	    build/test/tests/energy-probe build/test/tests/cmdtab-lint \
	    build/test/tests/host-answer build/test/tests/faultinject.so
	sh scripts/valgrind-wrap build/test/bin build/valgrind/bin
	$(MAKE) BUILD=test JH_BIN=$(CURDIR)/build/valgrind/bin test-suites

JH_BIN	?= $(CURDIR)/$(OUTBIN)

# The sanitizer tier: the suites that drive the C code's parsers, its
# state files and its decisions with inputs of their own, each program
# through its own suite.  Left out: the real hosts' runs (tagged host),
# the installer's and the man pages' suites (shell scripts and text),
# the fuzz targets (sanitized builds already), the corpora and the fault
# runs (the same C paths as the suites here, thousands of times), and
# the shell oracle (bash and zsh beside the parser), and the suites whose
# C paths a fuzz target runs under the same sanitizers with more inputs
# than a suite could (fuzz-acp for jh-acp's relay, fuzz-otlp for the OTLP
# receiver, fuzz-mcp and fuzz-envelope for jh-status; the fused hook
# runs the library functions of the filters' suites here; onegrant is the
# hosts' runs again).
ASAN_SUITES = chain cmdtab conformance decide delegate effects energy \
	grant hooksock hostile hosts libcbor meter normalize proxy result \
	review seal secrets shard shellparse ship verify
# Suites run side by side (scripts/check-suites, JOBS at a time, default
# the CPUs), the longest first so that none is left running alone at the
# end: SLOW is their order by time on a two-CPU machine, slowest first
# (make check's own summary prints the times again); every other suite
# follows in name order.  A suite marked "# check: alone" (it writes /etc,
# which every real Claude Code or Codex reads) runs after the rest, by
# itself.  SUITES=tests/x.bats runs the ones named.
SLOW	= fuzz cline gemini-cli opencode corpus status-cc chain acp proxy \
	status fused faults claude-code codex man meter-otel decide \
	claude-harness claude-session shell-diff hostile grant onegrant
ALL_SUITES = $(SLOW:%=tests/%.bats) \
	$(filter-out $(SLOW:%=tests/%.bats),$(sort $(wildcard tests/*.bats)))
SUITES	?= $(ALL_SUITES)
JOBS	?=

test-suites: lint-man
	JH_BIN=$(JH_BIN) JH_TESTBIN=$(CURDIR)/$(O)/tests \
	    sh scripts/check-suites $(if $(JOBS),-j $(JOBS)) \
	    $(if $(BATS_TAGS),-t '$(BATS_TAGS)') $(SUITES)
	JH_BIN=$(JH_BIN) sh conformance/run

lint-man:
	mandoc -T lint -W warning $(MAN1:%=man/%) $(MAN5:%=man/%) $(MAN7:%=man/%)

demo: deps
	$(MAKE) all
	sh scripts/demo bin

bench: deps
	$(MAKE) all build/release/bench-ed25519 build/release/bench-catsync \
	    build/release/bench-floor \
	    build/release/tests/sh-effects build/release/fast-upstream
	sh scripts/bench bin
	sh scripts/bench-proxy bin

build/release/fast-upstream: tests/mock/fast-upstream.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(JH_CFLAGS) -o $@ $< $(shell pkg-config --cflags --libs libmicrohttpd)

build/release/bench-floor: scripts/bench-floor.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -static $(shell pkg-config --static --cflags --libs libsodium)

build/release/bench-catsync: scripts/bench-catsync.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

build/release/bench-ed25519: scripts/bench-ed25519.c $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(JH_CFLAGS) $(JH_LDFLAGS) -o $@ $< $(LIBA) \
	    $(shell pkg-config --libs $(PKG_ALL)) -lm

# Fuzzing with clang's libFuzzer (tests/fuzz/): the library's sources are
# compiled again with coverage and ASan+UBSan into build/fuzz/lib/, and
# each target is linked with those objects, not an archive, so that what
# the targets reference weakly (the effect extractor, where the tree has
# it) is always linked in.  `make fuzz-build` builds the targets, their
# seed corpora (from the fixtures) and a dictionary (from lib/cmdtab.c);
# `make fuzz` also runs each for FUZZ_SECONDS with -max_len=4096 and
# reports its exec count; tests/fuzz.bats runs a short smoke pass.
# FUZZ_EXTRA: more objects to link (a local stand-in, never committed);
# the targets are relinked every time, so one left out is gone next time.
# The targets find the test keys and the coefficients in the source tree
# (FZ_TOP, tests/fuzz/fuzz-common.h).
FUZZ_CC		?= $(shell command -v clang-14 2>/dev/null || echo clang)
FUZZ_SECONDS	?= 600
FUZZ_TARGETS	= fuzz-shell fuzz-cmdopts fuzz-hookwire fuzz-envelope \
		  fuzz-payload fuzz-grant fuzz-paths fuzz-sse fuzz-mcp \
		  fuzz-transcript fuzz-otlp fuzz-acp
FUZZ_EXTRA	?=
FO		= build/fuzz
FUZZ_CFLAGS	= -std=c11 -g -O1 -Wall -D_GNU_SOURCE -iquote lib \
		  -fsanitize=address,undefined -fno-sanitize-recover=undefined \
		  -fno-omit-frame-pointer \
		  $(shell pkg-config --cflags $(PKG_ALL) 2>/dev/null)
FUZZ_LIBOBJ	= $(LIBSRC:%.c=$(FO)/lib/%.o)

$(FO)/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

$(FUZZ_TARGETS:%=$(FO)/%): $(FO)/%: tests/fuzz/%.c tests/fuzz/fuzz-common.h $(FUZZ_LIBOBJ) fuzz-relink
	$(FUZZ_CC) $(FUZZ_CFLAGS) -DFZ_TOP='"$(CURDIR)"' -fsanitize=fuzzer \
	    -o $@ $< $(FUZZ_LIBOBJ) \
	    $(FUZZ_EXTRA) $(shell pkg-config --libs $(PKG_jh-proxy)) -lm

# The meter's targets share their unit checks.
$(FO)/fuzz-transcript $(FO)/fuzz-otlp: tests/fuzz/fuzz-meter.h

fuzz-relink:

fuzz-build: $(FUZZ_TARGETS:%=$(FO)/%)
	sh tests/fuzz/seeds $(FO)

fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
	    sh tests/fuzz/run $(FO) $$t -max_total_time=$(FUZZ_SECONDS) || exit 1; \
	done

-include $(FUZZ_LIBOBJ:.o=.d)

install: all
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/man/man5 \
	    $(DESTDIR)$(PREFIX)/share/man/man7 \
	    $(DESTDIR)$(PREFIX)/share/joulehook
	for p in $(PROGS); do \
	    install -m 755 bin/$$p $(DESTDIR)$(PREFIX)/bin/$$p || exit 1; done
	for m in $(MAN1); do install -m 644 man/$$m \
	    $(DESTDIR)$(PREFIX)/share/man/man1/$$m || exit 1; done
	for m in $(MAN5); do install -m 644 man/$$m \
	    $(DESTDIR)$(PREFIX)/share/man/man5/$$m || exit 1; done
	for m in $(MAN7); do install -m 644 man/$$m \
	    $(DESTDIR)$(PREFIX)/share/man/man7/$$m || exit 1; done
	install -m 755 scripts/jh-install $(DESTDIR)$(PREFIX)/bin/jh-install
	install -m 755 scripts/jh-grant $(DESTDIR)$(PREFIX)/bin/jh-grant
	install -m 644 lib/coefficients.json \
	    $(DESTDIR)$(PREFIX)/share/joulehook/coefficients.json
	install -m 644 lib/ship.sql $(DESTDIR)$(PREFIX)/share/joulehook/ship.sql
	mkdir -p $(DESTDIR)$(PREFIX)/share/joulehook/hosts
	for h in hosts/*/; do cp -R $$h $(DESTDIR)$(PREFIX)/share/joulehook/hosts/ || exit 1; done
	cp -R conformance/v1 $(DESTDIR)$(PREFIX)/share/joulehook/conformance

uninstall:
	for p in $(PROGS) jh-install jh-grant; do rm -f $(DESTDIR)$(PREFIX)/bin/$$p; done
	for m in $(MAN1); do rm -f $(DESTDIR)$(PREFIX)/share/man/man1/$$m; done
	for m in $(MAN5); do rm -f $(DESTDIR)$(PREFIX)/share/man/man5/$$m; done
	for m in $(MAN7); do rm -f $(DESTDIR)$(PREFIX)/share/man/man7/$$m; done
	rm -rf $(DESTDIR)$(PREFIX)/share/joulehook

clean:
	rm -rf build $(PROGS:%=bin/%) lib/libjoulehook.a
.SECONDARY:
