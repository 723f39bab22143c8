# SPDX-License-Identifier: GPL-2.0
"""kbuildgate - the stages of the gate, one module each.

The commands of tools/ (kautobuild, kconfig-gate, kconfig-fragment,
board-boot, kconfig-audit, kconfig-bench, kconfig-baseline,
kconfig-sanitize, kconfig-diffharness) are thin entry points into these
modules; docs/design.md's module table (checked against the code by
selftests/unit/test_design_table.py) says what each one owns.  The flow:

  kmake        the one layer that runs the kernel's make and conf: the
               command line, the environment policy (KCONFIG_*, ARCH,
               CROSS_COMPILE, LLVM), configure() with werror a
               parameter, conf built, the checks of the tree and --arch
  errors       the exceptions of exit status 2
  kconfig      conf's output and JSON report, the policy (pure)
  tree, boards what a run knows of the tree; its targets
  run          the pipeline: Options, Run, and its steps as objects:
               configure, audit_step, build, boot
  report, ci   the results, the CI fan-out
  util         the project's folders, atomic writes, stamps

and the tools' own: autobuild (kautobuild), gate (kconfig-gate),
fragment and importer with placement (kconfig-fragment), board_boot
(board-boot), audit with audit_cache, audit_confirm and audit_review
(kconfig-audit), bench, baseline, sanitize, diffharness with
harness_conf and harness_check.
"""
