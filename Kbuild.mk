# SPDX-License-Identifier: GPL-2.0
#
# The one entry point:  make -f Kbuild.mk [TARGET] [VAR=value...]
#
# The flow, one stage per folder:
#   kernel-patches/  the series         -> tools/kernel-tree -> build/patched
#   tools/           configure (gate), build, report: kautobuild, kconfig-gate,
#                    kconfig-fragment, board-boot      -> build/out/
#                    (thin entry points; the code is the package
#                    tools/kbuildgate/: kmake, the one layer that runs
#                    make and conf; a module per stage and per tool,
#                    docs/design.md's table)
#   qemu-images/     boot: init, initramfs, QEMU runner, boards
#   selftests/       how we know
#
# Targets:
#   all (default)  install packages, prepare the trees, run the gate on
#                  the example fragments (examples/*.Kconfig), fix a copy
#                  of the MSM board example, then build and boot BOARD
#   boot           configure, build, sparse-check and boot BOARD in QEMU
#   deps           install the Debian packages that are missing
#   trees          unpack the pristine tree and the patched tree
#   git-tree       the pristine tree as git, with the series applied by git am
#   gate           run the gate on FRAGMENTS (default: examples/*.Kconfig)
#   check          the whole test suite (selftests/, selftests/unit/ too)
#   test           the everyday run: the tests not marked slow (no kernel
#                  build, no boot, no long harness) nor stock (the stock
#                  tree's baseline), within 5 minutes; selftests/unit/ too
#   unit           selftests/unit/ alone: the tools' pure code, in
#                  seconds, without a kernel tree
#   bench          instruction counts of conf, stock against patched, and the
#                  gate over the ARM defconfigs: stock, one make each, and
#                  make batchconfig; the audit of the whole tree (cold, CPU),
#                  again from the cache, and a one-file --patch against the
#                  cached tree; on stock 7.2, ARM cold and every architecture
#                  cold and warm (--arch all, about an hour on a loaded
#                  machine) (tools/kconfig-bench; exit 1 on a missed goal)
#   diffharness    random board fragments on ARM and x86, stock kconfig against
#                  patched (identical .config, same warnings, each once), then
#                  the hints followed round by round (tools/kconfig-diffharness);
#                  DIFFHARNESS_ARGS (default --count 2000 per arch,
#                  --jobs JOBS: 28 fragments a minute on 2 idle cores, so
#                  about 2 h 20 min; --minutes M stops it early with the
#                  figures of those checked); results in
#                  build/out/diffharness.json
#   import         every ARM defconfig (or IMPORT_DEFCONFIGS) as a board
#                  fragment in a hierarchy (tools/kconfig-fragment import),
#                  each board's .config checked byte for byte against its
#                  defconfig's, then the hierarchy gated by kautobuild
#                  --fragments; prints the time to import and to regenerate
#                  all (about 5 min each on 2 cores); fragments in
#                  build/out/import/boards, figures in
#                  build/out/import/import.json (docs/import.md)
#   kautobuild     the CI gate (tools/kautobuild): configure every board and
#                  ARM defconfig, build and boot the boards; KAUTOBUILD_ARGS
#                  e.g. --config-only, or targets; results in build/out/
#   audit          every select that some configuration can leave unmet, by
#                  PicoSAT, confirmed by conf (tools/kconfig-audit), for
#                  AUDIT_ARCHS (default: arm x86; "all": every one); results in
#                  build/out/audit/ARCH.json, answers cached in
#                  build/cache/audit (docs/audit.md: --base, --patch)
#   sanitize       conf under ASan/UBSan/LSan on every ARM defconfig, all*,
#                  randconfigs, boards, examples, testconfig; then valgrind,
#                  stock against patched (tools/kconfig-sanitize)
#   fuzz           build the libFuzzer harness of kconfig (tools/fuzz/) and
#                  fuzz for FUZZ_TIME seconds (default 1800) on one core
#   clean          remove build/
#   help           print this text
#
# Variables (also read from the environment):
#   BUILD        build folder (default: build)
#   KERNEL_SRC   your own kernel tree, used instead of the Debian tarball
#   KERNEL_VERSION  6.1 (default), 6.12 or 7.2: the tree, its series
#                (kernel-patches/VERSION) and its pinned Debian package; the
#                6.12 and 7.2 trees and results are under build/VERSION/
#   TARBALL      the kernel tarball (default:
#                /usr/src/linux-source-$(KERNEL_VERSION).tar.xz; for 7.2,
#                build/apt-sid/root/usr/src/linux-source-7.2.tar.xz, which
#                "deps" unpacks from Debian sid without installing it)
#   FRAGMENTS    Kconfig fragments for "gate"
#   BOARD        board of qemu-images/boards/ for "boot" (default: msm-virt)
#   JOBS         parallel jobs of the kernel build (default: all CPUs)
#   PYTEST_ARGS  extra arguments for pytest in "check" and "test", e.g. -k werror
#   CHECK_SET    all (default) or tree: "check" runs only the tests that a
#                second tree needs (CI's 7.2 and 6.12 runs; see "check")
#   KAUTOBUILD_ARGS  arguments for "kautobuild", e.g. --config-only --audit
#   DIFFHARNESS_ARGS arguments for "diffharness", e.g. --seed 2 --count 20
#   FUZZ_TIME    seconds of fuzzing for "fuzz" (0: run the corpus only)

TOP        := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD      ?= $(TOP)/build
KERNEL_VERSION ?= 6.1
TREES      := $(if $(filter 6.1,$(KERNEL_VERSION)),$(BUILD),$(BUILD)/$(KERNEL_VERSION))
TARBALL    ?= $(if $(filter 7.2,$(KERNEL_VERSION)),$(BUILD)/apt-sid/root/usr/src,/usr/src)/linux-source-$(KERNEL_VERSION).tar.xz
FRAGMENTS  ?= $(wildcard $(TOP)/examples/*.Kconfig)
BOARD      ?= msm-virt
JOBS       ?= $(shell nproc)
PYTHON3    := /usr/bin/python3
PYTEST_ARGS ?=

export BUILD KERNEL_SRC TARBALL KERNEL_VERSION

.PHONY: all deps trees git-tree gate fix-demo boot check bench clean help \
	sanitize fuzz kautobuild diffharness audit import unit

all: deps trees
	@$(MAKE) -f $(TOP)/Kbuild.mk --no-print-directory gate GATE_DEMO=1
	@$(MAKE) -f $(TOP)/Kbuild.mk --no-print-directory fix-demo
	@$(MAKE) -f $(TOP)/Kbuild.mk --no-print-directory boot

# Configure (gate), build, sparse, initramfs and boot one board.
boot: trees
	@echo "== boot: $(BOARD) (logs in $(TREES)/out/boards/$(BOARD)/)"
	@$(PYTHON3) $(TOP)/tools/board-boot --srctree $(TREES)/patched \
		--out $(TREES)/out/boards --jobs $(JOBS) $(BOARD)

# Fix a copy of the MSM board example in place, then gate it again.
fix-demo: trees
	@echo "== fix: tools/kconfig-fragment fix on a copy of examples/msm-board.Kconfig"
	@mkdir -p $(TREES)/out
	@cp $(TOP)/examples/msm-board.Kconfig $(TREES)/out/msm-board.Kconfig
	@$(PYTHON3) $(TOP)/tools/kconfig-fragment fix --srctree $(TREES)/patched \
		--arch arm --json $(TREES)/out/msm-board.report.json \
		$(TREES)/out/msm-board.Kconfig
	@$(PYTHON3) $(TOP)/tools/kconfig-gate --srctree $(TREES)/patched \
		--out $(TREES)/out/gate $(TREES)/out/msm-board.Kconfig

deps:
	@$(TOP)/tools/install-deps

trees: deps
	@$(TOP)/tools/kernel-tree pristine patched

git-tree: deps
	@$(TOP)/tools/kernel-tree git

# The example fragments include some with unmet selects on purpose, so the
# demo accepts findings (exit 1), but not errors (exit 2).
gate: trees
	@echo "== gate: KCONFIG_WERROR=1 allnoconfig on each fragment"
	@$(PYTHON3) $(TOP)/tools/kconfig-gate --srctree $(TREES)/patched \
		--out $(TREES)/out/gate --json $(TREES)/out/gate.json \
		$(FRAGMENTS) $(if $(GATE_DEMO),|| [ $$? -eq 1 ])
	@echo "== results: $(TREES)/out/gate.json"

# CHECK_SET=tree runs only the tests that a second kernel tree needs, for
# CI's runs on 7.2 and 6.12 (.ci/run): the series (apply, checkpatch,
# every prefix bisectable), byte-identical configs and batchconfig, make
# testconfig and the baseline's items (with the KCONFIG_WERROR gate on the
# tree's real unmet select), and the undefined-select gate.  The kernel
# builds and boots, the sanitizers, the harness, the audit, the fuzz
# corpus and the tools' own tests run on 6.1 in CI; "boot" runs on any
# tree (KERNEL_VERSION=7.2 make -f Kbuild.mk boot; docs/ci.md).
CHECK_SET ?= all
CHECK_TREE_TESTS := test_series.py test_identical.py test_batch.py \
	test_testconfig.py test_counts.py test_stale.py test_fragments.py \
	test_msm_defconfigs.py \
	test_werror.py::test_stock_real_unmet_passes_the_gate \
	test_werror.py::test_patched_real_unmet_fails_the_gate \
	test_werror.py::test_stock_lines_kept_on_the_real_tree \
	test_bad_input.py::test_select_undefined_fails_werror
check: deps trees git-tree
	@cd $(TOP) && $(PYTHON3) -m pytest -v -p no:cacheprovider --durations=25 \
		$(if $(filter tree,$(CHECK_SET)),$(addprefix selftests/,$(CHECK_TREE_TESTS)),selftests) \
		$(PYTEST_ARGS)

# Every ARM defconfig as a board fragment, checked, then gated.
IMPORT_DEFCONFIGS ?=
IMPORT_OUT := $(TREES)/out/import
import: trees
	@echo "== import: $(or $(IMPORT_DEFCONFIGS),every ARM defconfig) -> $(IMPORT_OUT)/boards (log: $(IMPORT_OUT)/import.log)"
	@mkdir -p $(IMPORT_OUT)
	@$(PYTHON3) $(TOP)/tools/kconfig-fragment import --srctree $(TREES)/patched \
		--arch arm --out $(IMPORT_OUT)/boards --check \
		--json $(IMPORT_OUT)/import.json $(IMPORT_DEFCONFIGS) \
		>$(IMPORT_OUT)/import.log 2>&1; rc=$$?; \
		grep '^kconfig-fragment\|differs\|failed' $(IMPORT_OUT)/import.log; \
		exit $$rc
	@echo "== kautobuild --fragments $(IMPORT_OUT)/boards --config-only"
	@start=$$(date +%s); $(PYTHON3) $(TOP)/tools/kautobuild --config-only \
		--srctree $(TREES)/patched --out $(IMPORT_OUT)/kautobuild \
		--fragments $(IMPORT_OUT)/boards --json $(IMPORT_OUT)/kautobuild.json \
		--junit $(IMPORT_OUT)/kautobuild.xml >$(IMPORT_OUT)/kautobuild.log 2>&1; \
		rc=$$?; grep '^kautobuild:' $(IMPORT_OUT)/kautobuild.log; \
		echo "import: kautobuild configured every board in $$(( $$(date +%s) - start )) s (exit $$rc)"; \
		exit $$rc

# The tools' unit tests: no tree, no package beyond python3-pytest.
unit:
	@cd $(TOP) && $(PYTHON3) -m pytest -v -p no:cacheprovider selftests/unit \
		$(PYTEST_ARGS)

# The everyday tier: the tests not marked "slow" or "stock" (conftest.py).
.PHONY: test
test: deps trees git-tree
	@cd $(TOP) && $(PYTHON3) -m pytest -v -p no:cacheprovider --durations=10 \
		-m "not slow and not stock" selftests $(PYTEST_ARGS)

bench: trees
	@$(PYTHON3) $(TOP)/tools/kconfig-bench --json $(TREES)/out/bench.json

# Random fragments, stock against patched, and the hints followed; the small
# seeded run is selftests/test_diffharness.py, part of "check".
DIFFHARNESS_ARGS ?= --count 2000 --jobs $(JOBS)
diffharness: trees
	@$(PYTHON3) $(TOP)/tools/kconfig-diffharness --stock $(TREES)/pristine \
		--patched $(TREES)/patched --out $(TREES)/out/diffharness \
		--json $(TREES)/out/diffharness.json $(DIFFHARNESS_ARGS)

# The CI gate: configure (in parallel), build, boot; JSON, JUnit, LAVA jobs.
KAUTOBUILD_ARGS ?=
kautobuild: trees
	@$(PYTHON3) $(TOP)/tools/kautobuild --srctree $(TREES)/patched \
		--out $(TREES)/out/kautobuild --jobs $(JOBS) \
		--json $(TREES)/out/kautobuild.json \
		--junit $(TREES)/out/kautobuild.xml $(KAUTOBUILD_ARGS)

AUDIT_ARCHS ?= arm x86
audit: trees
	@for a in $(AUDIT_ARCHS); do \
		$(PYTHON3) $(TOP)/tools/kconfig-audit --srctree $(TREES)/patched \
			--arch $$a --out $(TREES)/out/audit/$$a \
			--json $(TREES)/out/audit/$$a.json; \
		rc=$$?; [ $$rc -le 1 ] || exit $$rc; \
	done

sanitize: trees
	@$(PYTHON3) $(TOP)/tools/kconfig-sanitize --set full --valgrind \
		--srctree $(TREES)/patched --stock $(TREES)/pristine \
		--out $(TREES)/out/sanitize --json $(TREES)/out/sanitize.json

FUZZ_TIME ?= 1800
fuzz: trees
	@$(TOP)/tools/fuzz/build --srctree $(TREES)/patched --out $(TREES)/out/fuzz
	@mkdir -p $(TREES)/out/fuzz/corpus $(TREES)/out/fuzz/artifacts
	@echo "== fuzz: $(FUZZ_TIME)s, new inputs in $(TREES)/out/fuzz/corpus, crashes in $(TREES)/out/fuzz/artifacts"
	@cd $(TREES)/out/fuzz && \
		LSAN_OPTIONS=suppressions=$(TOP)/tools/fuzz/lsan.supp \
		./fuzz-kconfig -close_fd_mask=2 \
		-print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
		-dict=$(TOP)/tools/fuzz/kconfig.dict -artifact_prefix=artifacts/ \
		$(if $(filter 0,$(FUZZ_TIME)),-runs=0,-max_total_time=$(FUZZ_TIME)) \
		corpus $(TOP)/tools/fuzz/corpus

clean:
	rm -rf $(BUILD)

help:
	@sed -n '3,/^$$/s/^# \{0,1\}//p' $(TOP)/Kbuild.mk
