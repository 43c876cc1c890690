# Kimble bot, server, relay, judge and state tool.
#
#   make            build every program into bin/
#   make test       build (also with ASan+UBSan) and run the whole suite
#   make bench      build and run the benchmarks (tables on stdout)
#   make strength, make learning, make agree   the long strength runs
#   make run        one visible game: local server, the bot through the relay
#   make mutate     mutation testing: do the tests catch one-line bugs?
#   make fuzz       build the libFuzzer targets with clang and run each briefly
#   make deps       install the Debian packages the project needs
#   make install PREFIX=/usr/local   programs, and manual pages under share/man
#
# Conventions (no per-file rules to edit): each program has a folder of its
# own, F/main.c being the program kimble-NAME where NAME is the folder's name
# (bot, judge, state; the subfolders bot/relay, bot/tune, judge/server).
# Every code folder F becomes build/V/libF.a (F's / as -) from F/*.c but
# main.c.  A program links its own folder's library and core/, the shared
# one; USES_F names any other folder F's program needs (only the tuner: it
# trains the bot's evaluation through the bot's search).  tests/*.c and
# tests/fuzz/*.c form one Criterion binary; tests/bench/NAME.c is one bench
# program each.  Project flags live in KB_* variables so that a user's
# CFLAGS/LDFLAGS on the command line add to them instead of replacing them.

ifeq ($(origin CC),default)
CC := gcc
endif
CLANG ?= clang
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

KB_CFLAGS := -std=c11 -Wall -Wextra -Werror -Wshadow -g -D_GNU_SOURCE -I.
KB_OPT_rel := -O2
KB_OPT_asan := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
KB_LDLIBS := -llmdb -lm

DEB_PKGS := gcc make clang libcriterion-dev liblmdb-dev lmdb-utils netcat-openbsd python3 procps man-db groff-base parallel chromium

# Link order: a folder may use the folders after it (subfolders first, core
# last).
TOPDIRS := judge bot state core
SUBDIRS := $(sort $(patsubst %/,%,$(dir $(wildcard $(addsuffix /*/*.c,$(TOPDIRS))))))
LIBDIRS := $(SUBDIRS) $(foreach d,$(TOPDIRS),$(if $(wildcard $(d)/*.c),$(d)))
MAINS := $(wildcard $(addsuffix /main.c,$(LIBDIRS)))
prog_of = kimble-$(notdir $(patsubst %/,%,$(dir $(1))))
PROGS := $(foreach m,$(MAINS),$(call prog_of,$(m)))
lib_srcs = $(filter-out $(MAINS),$(wildcard $(1)/*.c))
lib_name = lib$(subst /,-,$(1)).a
# The libraries that program main m links in variant V.
USES_bot/tune := bot
folder_of = $(patsubst %/,%,$(dir $(1)))
prog_libs = $(foreach d,$(call folder_of,$(2)) $(USES_$(call folder_of,$(2))) core,build/$(1)/$(call lib_name,$(d)))
ALL_LIB_SRCS := $(foreach d,$(LIBDIRS),$(call lib_srcs,$(d)))
TEST_SRCS := $(wildcard tests/*.c) $(filter-out tests/fuzz/libfuzzer_main.c,$(wildcard tests/fuzz/*.c))
BENCH_SRCS := $(wildcard tests/bench/*.c)
# tests/bots/NAME.c: small bot programs for the judge's tests and bench
# (build/rel/testbots/NAME, used by both test runs).
TESTBOTS := $(patsubst tests/bots/%.c,build/rel/testbots/%,$(wildcard tests/bots/*.c))
FUZZ_SRCS := $(filter-out tests/fuzz/libfuzzer_main.c,$(wildcard tests/fuzz/fuzz_*.c))

# libmicrohttpd: kimble-server's live pages (docs/live.md); every program
# is linked with it --as-needed, so only those that call it (the server,
# the tests) depend on it at run time; the static test bots are not.
DEB_PKGS += libmicrohttpd-dev
KB_LDLIBS_HTTP := -Wl,--as-needed -lmicrohttpd -Wl,--no-as-needed

all: $(addprefix bin/,$(PROGS))

# The test binary's stand-ins for library functions (test_rule_bot.c's
# __wrap_kb_rng_die: dice a test chooses, e.g. a game of 4,096 rolls;
# test_rule_judge_out.c's __wrap_kb_tx_parse: a transcript that cannot be
# read back for want of memory; test_rule_bot.c's __wrap_kb_net_connect: a
# server that comes up while the relay is trying to reach it;
# test_rating.c's __wrap_malloc: the project's one allocation of a given
# size refused, which no address-space limit can pick out).
KB_TEST_WRAP := -Wl,--wrap=kb_rng_die -Wl,--wrap=kb_tx_parse -Wl,--wrap=kb_net_connect \
		-Wl,--wrap=malloc

# ---- one build variant V (rel, asan) -------------------------------------
define VARIANT
build/$(1)/%.o: %.c
	@mkdir -p $$(@D)
	$$(CC) $$(KB_CFLAGS) $$(KB_OPT_$(1)) $$(CPPFLAGS) $$(CFLAGS) -MMD -MP -c $$< -o $$@

$(foreach d,$(LIBDIRS),
build/$(1)/$(call lib_name,$(d)): $(patsubst %.c,build/$(1)/%.o,$(call lib_srcs,$(d)))
	@rm -f $$@
	ar rcs $$@ $$^
)
KB_LIBS_$(1) := $(foreach d,$(LIBDIRS),build/$(1)/$(call lib_name,$(d)))

build/$(1)/tests/kimble-tests: $(patsubst %.c,build/$(1)/%.o,$(TEST_SRCS)) $$(KB_LIBS_$(1))
	$$(CC) $$(KB_OPT_$(1)) $$(LDFLAGS) $(KB_TEST_WRAP) -o $$@ $$^ -lcriterion $(KB_LDLIBS) $(KB_LDLIBS_HTTP) $$(LDLIBS)

build/$(1)/bench/%: build/$(1)/tests/bench/%.o $$(KB_LIBS_$(1))
	@mkdir -p $$(@D)
	$$(CC) $$(KB_OPT_$(1)) $$(LDFLAGS) -o $$@ $$^ $(KB_LDLIBS) $(KB_LDLIBS_HTTP) -lpthread $$(LDLIBS)

# test bots start once per game: static ones start faster (judge bench)
build/$(1)/testbots/%: build/$(1)/tests/bots/%.o $$(KB_LIBS_$(1))
	@mkdir -p $$(@D)
	$$(CC) $$(KB_OPT_$(1)) $(if $(filter rel,$(1)),-static) $$(LDFLAGS) -o $$@ $$^ $(KB_LDLIBS) $$(LDLIBS)
endef
$(eval $(call VARIANT,rel))
$(eval $(call VARIANT,asan))

define PROGRAM
bin/$(call prog_of,$(1)): build/rel/$(1:.c=.o) $(call prog_libs,rel,$(1))
	@mkdir -p $$(@D)
	$$(CC) $$(KB_OPT_rel) $$(LDFLAGS) -o $$@ $$^ $(KB_LDLIBS) $(KB_LDLIBS_HTTP) $$(LDLIBS)
build/asan/bin/$(call prog_of,$(1)): build/asan/$(1:.c=.o) $(call prog_libs,asan,$(1))
	@mkdir -p $$(@D)
	$$(CC) $$(KB_OPT_asan) $$(LDFLAGS) -o $$@ $$^ $(KB_LDLIBS) $(KB_LDLIBS_HTTP) $$(LDLIBS)
endef
$(foreach m,$(MAINS),$(eval $(call PROGRAM,$(m))))

-include $(shell find build -name '*.d' 2>/dev/null)

# ---- tests ---------------------------------------------------------------
# Each variant's suite runs with its own programs (KB_BIN) so integration
# tests exercise sanitized servers, bots and judges too.
TEST_ENV = KB_ROOT=$(CURDIR) ASAN_OPTIONS=abort_on_error=0:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
test: deps all $(TESTBOTS) build/rel/tests/kimble-tests build/asan/tests/kimble-tests $(addprefix build/asan/bin/,$(PROGS))
	@echo "== test suite (release build)"
	$(TEST_ENV) KB_BIN=$(CURDIR)/bin build/rel/tests/kimble-tests -j$(JOBS) $(TESTFLAGS)
	@echo "== test suite (ASan+UBSan build)"
	$(TEST_ENV) KB_BIN=$(CURDIR)/build/asan/bin build/asan/tests/kimble-tests -j$(JOBS) $(TESTFLAGS)

# ---- benchmarks ----------------------------------------------------------
BENCHES := $(patsubst tests/bench/%.c,build/rel/bench/%,$(BENCH_SRCS))
bench: all $(TESTBOTS) $(BENCHES)
	@for b in $(BENCHES); do echo "== $$b"; KB_BIN=$(CURDIR)/bin KB_ROOT=$(CURDIR) $$b $(BENCHFLAGS) || exit 1; done

# The bot's strength with full game counts (make bench runs it --quick).
strength: build/rel/bench/strength
	nice build/rel/bench/strength --games 10000 --json build/strength.json

# Learning pays, with game counts that separate gains of a few points.
learning: build/rel/bench/learning
	nice build/rel/bench/learning --games 3000

# The strength table's lineups at process level: bot, relay and server.
agree: all
	for o in hard,hard,hard easy,easy,easy hard,none,none easy,hard,easy; do \
		tests/bench/relay-strength.sh --games 2000 --opponents $$o || exit 1; done

# ---- fuzzing (clang + libFuzzer) -------------------------------------------
FUZZ_SECONDS ?= 20
FUZZ_BINS := $(patsubst tests/fuzz/%.c,build/fuzz/%,$(FUZZ_SRCS))
build/fuzz/%: tests/fuzz/%.c tests/fuzz/libfuzzer_main.c $(ALL_LIB_SRCS)
	@mkdir -p $(@D)
	$(CLANG) $(filter-out -Werror,$(KB_CFLAGS)) -O1 -fsanitize=fuzzer,address,undefined \
		-DKB_FUZZ_ENTRY=kb_$* -o $@ $^ $(KB_LDLIBS) $(KB_LDLIBS_HTTP)
fuzz: $(FUZZ_BINS)
	@for f in $(FUZZ_BINS); do n=$$(basename $$f); mkdir -p build/fuzz/corpus/$$n; \
	  echo "== $$n ($(FUZZ_SECONDS) s)"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 build/fuzz/corpus/$$n tests/fuzz/corpus/$$n || exit 1; done

# ---- mutation testing (tests/mutate/, docs/mutation.md) -------------------
# make mutate [MUTANTS=N per folder, 0 = all] [SEED=S] [FOLDERS=core,state]
#             [ONLY=core/rules.c] [MATCH='text of a key'] [BUDGET=seconds]
#             [JOBS=1]; table on stdout, JSON in build/mutate/results.json.
# Runs at the lowest priority.
MUTANTS ?= 20
mutate:
	@nice -n 19 python3 tests/mutate/mutate.py --mutants $(MUTANTS) $(if $(SEED),--seed $(SEED)) \
		$(if $(FOLDERS),--folders $(FOLDERS)) $(foreach o,$(ONLY),--only $(o)) \
		$(if $(MATCH),--match '$(subst ','\'',$(MATCH))') $(if $(JOBS),--jobs $(JOBS)) \
		$(if $(BUDGET),--budget $(BUDGET)) --json build/mutate/results.json

# ---- running and installing ----------------------------------------------
# make run [OPPONENTS=hard,hard,hard] [SEED=N] [BUDGET_MS=N]
run: deps all
	@bot/run-game.sh $(if $(OPPONENTS),--opponents $(OPPONENTS)) $(if $(SEED),--seed $(SEED)) \
		$(if $(BUDGET_MS),--budget-ms $(BUDGET_MS))

# Manual pages live beside their programs' code: FOLDER/kimble-NAME.1, and
# the file formats in section 5.
MAN1 := $(wildcard $(addsuffix /*.1,$(LIBDIRS)))
MAN5 := $(wildcard $(addsuffix /*.5,$(LIBDIRS)))
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 755 $(addprefix bin/,$(PROGS)) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(MAN1) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(MAN5) $(DESTDIR)$(PREFIX)/share/man/man5/

deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing missing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing \
	  || { echo "make deps: could not install:$$missing (run as root or with sudo)" >&2; exit 1; }; \
	fi

# The pictures in docs/viewer.md: a small learning-mode tournament of the
# bot against the built-ins, one game's viewer at a capture and the report,
# photographed by headless Chromium, and one board frame as SVG.
SHOTS := build/screenshots
CHROME_SHOT = chromium --headless --disable-gpu --no-sandbox --no-first-run \
	--user-data-dir=$(SHOTS)/chrome --hide-scrollbars --virtual-time-budget=3000
screenshots: deps all
	rm -rf $(SHOTS) && mkdir -p $(SHOTS) docs/img
	bin/kimble-judge -q --html -o $(SHOTS)/out -f fixed -g 20 -s 5 . hard easy >/dev/null
	n=$$(bin/kimble-judge replay $(SHOTS)/out/games/000000.tx | awk '/^roll [0-9]+:/ { r = $$2; sub(":", "", r) } \
		/captures/ && r + 0 >= 40 { print r; exit }'); \
	bin/kimble-judge svg --at $$n -o docs/img/board.svg $(SHOTS)/out/games/000000.tx && \
	$(CHROME_SHOT) --window-size=800,800 --screenshot=$(CURDIR)/docs/img/viewer.png \
		"file://$(CURDIR)/$(SHOTS)/out/games/000000.html#roll=$$n" 2>/dev/null
	$(CHROME_SHOT) --window-size=900,1000 --screenshot=$(CURDIR)/docs/img/report.png \
		"file://$(CURDIR)/$(SHOTS)/out/report.html" 2>/dev/null
	@ls -l docs/img

clean:
	rm -rf build bin

.PHONY: mutate strength learning agree all test bench fuzz run install deps clean screenshots
.DELETE_ON_ERROR:
.SECONDARY:
