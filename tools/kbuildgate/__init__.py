# SPDX-License-Identifier: GPL-2.0
"""kbuildgate - the stages of the gate, one module each.

The commands of tools/ (kautobuild, kconfig-gate, kconfig-fragment,
board-boot, kconfig-bench, kconfig-sanitize, kconfig-diffharness) are thin
entry points into these modules.  The flow, and what each stage owns:

  util         the usage error, atomic writes, log tails, stamps; no stage
  tree         keys of the kernel tree and the toolchain, "make batchconfig"
               or not; reads the tree, never writes it (tools/kernel-tree
               makes it)
  boards       targets: boards, fragments ("# arch:"), defconfigs; the
               cross compilers; reads descriptions, runs nothing
  kconfig      configure: conf through make, kconfig's JSON report, the
               policy on unmet selects, undefined symbols and dropped
               requests; configure_fragment() is the one path that
               configures a fragment (gate, fragment and kautobuild call
               it), conf_result() reads conf's diagnostic lines and the
               reason of a failure; writes only OUT/NAME/ and
               OUT/.hostprogs
  build        make C=1 (sparse), the image and dtbs, the build stamps;
               writes only OUT/NAME/
  boot         initramfs, the QEMU runner, the LAVA job, lava-run; writes
               only OUT/NAME/
  report       summary table, JSON, JUnit, merge, exit status; writes only
               the files it is given
  run          orders the steps of kconfig, build and boot for each target
  ci           the fan-out pipelines (GitLab, GitHub); writes YAML, runs
               nothing

and the tools' own: gate (kconfig-gate), fragment (kconfig-fragment),
board_boot (board-boot), bench (kconfig-bench), sanitize
(kconfig-sanitize), diffharness (kconfig-diffharness) with harness_conf
(conf and its shell cache) and harness_check (one fragment), and audit
(kconfig-audit, with its C part in tools/audit/).
"""
