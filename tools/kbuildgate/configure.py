# SPDX-License-Identifier: GPL-2.0
"""configure - the configure step of a run (run.Run): each target's
configuration in OUT/NAME/, one make a target or every defconfig in one
"make batchconfig" (patch 11 of the series), its verdict from kconfig's
JSON report (kconfig.verdict()), and a stamp that skips a target whose
inputs did not change.

It writes only OUT/NAME/ (.config, include/config/, the report, the log),
OUT/.batch/ and OUT/.hostprogs/; it never builds a kernel.
"""

import json
import os
import shutil
import threading
import time

from . import kmake
from .kconfig import dropped_lines, verdict
from .util import (STAMP_VERSION, key_of, log_tail, read_stamp, sha256_file,
                   write_atomic)


class ConfigureStep:
    """The configure step.  Input: the target (its fragment, defconfig
    or config fragment).  Outputs: the step's result, and in t.result
    'config' (the .config, or None when it failed), 'unmet', 'dropped',
    'undefined' and 'reports'.

    The policy is that of kconfig.verdict(): unmet selects and undefined
    symbols fail, dropped requests are counted (and fail with
    --fail-on-dropped).  Not KCONFIG_WERROR, unless the run's options
    ask for it (kconfig-fragment import --check does): under it conf also
    refuses a defconfig that assigns a symbol twice (corgi, pxa and spitz
    do), and, with KCONFIG_WARN_DROPPED, one with dropped
    unmet/demoted/promoted requests, and then writes no report in batch
    mode.  A configuration with an unmet select is removed, as the gate
    would not have written it.  The build runs under KCONFIG_WERROR."""

    name = 'configure'
    needs = ('fragment', 'defconfig', 'config_fragment')
    gives = ('config', 'unmet', 'dropped', 'undefined', 'reports')

    def __init__(self, run):
        """@run: the run.Run whose options, tree, output folder and
        environment the step uses."""
        self.run = run
        self.opts = run.opts
        self._seeds = {}
        self._seed_lock = threading.Lock()

    def seed(self, d, arch):
        """Copy kconfig's host programs (fixdep, conf), built once per run
        in OUT/.hostprogs/ARCH, into the fresh output folder @d: make finds
        them up to date, and each new folder saves compiling conf."""
        if os.path.exists(os.path.join(d, 'scripts', 'kconfig', 'conf')):
            return
        with self._seed_lock:
            if arch not in self._seeds:
                hp = os.path.join(self.run.out, '.hostprogs', arch)
                os.makedirs(hp, exist_ok=True)
                cmd = kmake.command(self.run.srctree, hp, arch, 'allnoconfig')
                with open(os.path.join(hp, 'seed.log'), 'w') as f:
                    rc = kmake.logged(f, cmd, self.run.env)
                self._seeds[arch] = None if rc else hp
        hp = self._seeds[arch]
        if hp:
            for sub in ('basic', 'kconfig'):
                shutil.copytree(os.path.join(hp, 'scripts', sub),
                                os.path.join(d, 'scripts', sub),
                                copy_function=shutil.copy2,
                                dirs_exist_ok=True)

    def env(self, report):
        """The environment of a defconfig's make: the report, and
        KCONFIG_WERROR only if the options ask for it (see the class),
        and with their warn_all KCONFIG_WARN_DROPPED and
        KCONFIG_WARN_UNKNOWN_SYMBOLS."""
        extra = {'KCONFIG_WARN_DROPPED': '1',
                 'KCONFIG_WARN_UNKNOWN_SYMBOLS': '1'} \
            if self.opts.warn_all else None
        return kmake.environment(self.run.env, extra, report=report,
                                 werror=self.opts.werror)

    def key(self, t):
        """The stamp's key of @t's configuration: its input files, the
        compiler and the tree; None with --force."""
        if self.opts.force:
            return None
        inputs = []
        for f in t.inputs(self.run.srctree):
            inputs.append((f, sha256_file(f) if os.path.isfile(f) else None))
        return key_of(STAMP_VERSION, 'configure', t.kind, t.arch,
                      t.fragment, t.defconfig, inputs, self.run.cc(t.arch),
                      self.run.srctree, self.run.tree_key())

    def cached(self, t, key):
        """The stamp of @t when it stands for @key and its files are
        there unchanged, else None."""
        d = self.run.dir(t)
        stamp = read_stamp(os.path.join(d, 'configure.stamp'))
        config = os.path.join(d, '.config')
        if (key and stamp.get('key') == key and os.path.isfile(config) and
                stamp.get('reports') and
                all(os.path.isfile(r) for r in stamp['reports']) and
                stamp.get('config') == sha256_file(config)):
            return stamp
        return None

    def one(self, t):
        """Configure one target in its own output folder; returns the
        step's result."""
        d = self.run.dir(t)
        log = os.path.join(d, 'configure.log')
        report = os.path.join(d, 'kconfig-report.json')
        start = time.monotonic()
        key = self.key(t)
        stamp = self.cached(t, key)
        if stamp:
            return self.verdict(t, stamp['rc'], stamp['reports'], log,
                                time.monotonic() - start,
                                cached='inputs unchanged')
        for f in (os.path.join(d, 'configure.stamp'), report,
                  os.path.join(d, 'kconfig-report.2.json')):
            if os.path.exists(f):
                os.unlink(f)
        reports = [report]
        self.seed(d, t.arch)
        self.run.started(t, 'configure', log)
        phase = time.monotonic()
        if t.fragment:
            # the one path of kconfig-gate and kconfig-fragment; the
            # board's configuration starts from its CONFIG_FRAGMENT's
            # values
            rc = kmake.configure(
                self.run.srctree, d, t.arch, werror=self.opts.werror,
                kconfig=t.fragment, allconfig=t.config_fragment,
                base_env=self.run.env, report=report, log=log)['returncode']
        else:
            rc = self.defconfig(t, d, log, reports)
        self.run.ended(t, 'configure', log, rc, time.monotonic() - phase)
        res = self.verdict(t, rc, reports, log, time.monotonic() - start)
        if rc == 0 and key and t.result['config'] and \
                all(os.path.isfile(r) for r in reports):
            write_atomic(os.path.join(d, 'configure.stamp'), json.dumps({
                'key': key, 'rc': rc, 'reports': reports,
                'config': sha256_file(os.path.join(d, '.config'))}))
        return res

    def defconfig(self, t, d, log, reports):
        """make NAME_defconfig in @d, then, with a config fragment, the
        fragment merged in (merge_config.sh) and make olddefconfig, whose
        report is appended to @reports.  Returns the exit status."""
        srctree, out = self.run.srctree, self.run.dir(t)
        with open(log, 'w') as f:
            rc = kmake.logged(f, kmake.command(srctree, out, t.arch,
                                               t.defconfig),
                              self.env(reports[0]))
            if rc == 0 and t.config_fragment:
                # defconfig + QEMU additions, then olddefconfig: the
                # second report holds the requests of the additions
                merge = os.path.join(srctree, 'scripts', 'kconfig',
                                     'merge_config.sh')
                rc = kmake.logged(f, ['sh', merge, '-m', '-O', d,
                                      os.path.join(d, '.config'),
                                      t.config_fragment],
                                  dict(self.env(reports[0]), ARCH=t.arch))
                report2 = os.path.join(d, 'kconfig-report.2.json')
                reports.append(report2)
                if rc == 0:
                    rc = kmake.logged(
                        f, kmake.command(srctree, out, t.arch,
                                         'olddefconfig'),
                        self.env(report2))
        return rc

    def batch_key(self, targets):
        """The stamp's key of a batch: each defconfig, the compiler and
        the tree; None with --force."""
        if self.opts.force:
            return None
        return key_of(
            STAMP_VERSION, 'batch', [(t.name, sha256_file(t.inputs(
                self.run.srctree)[0])) for t in targets],
            self.run.cc(targets[0].arch), self.run.srctree,
            self.run.tree_key())

    def batch_cached(self, targets, key, stamp, log):
        """The results of the last batch when its stamp stands for @key
        and every .config is the one it wrote, else None."""
        out = self.run.out
        if not (key and stamp.get('key') == key and os.path.isfile(log) and
                all(stamp['configs'].get(t.name) ==
                    (sha256_file(c) if os.path.isfile(c) else None)
                    for t in targets
                    for c in [os.path.join(out, t.name, '.config')])):
            return None
        with open(log, errors='replace') as f:
            text = f.read().splitlines()
        results = []
        for t in targets:
            src = 'arch/%s/configs/%s:' % (t.arch, t.defconfig)
            res = self.verdict(
                t, 0 if stamp['configs'][t.name] else 1,
                [os.path.join(out, t.name, 'report.json')],
                os.path.join(out, t.name, 'configure.log'), 0.0,
                cached='inputs unchanged',
                warnings='\n'.join(l for l in text if l.startswith(src)))
            res['batch_log'] = log
            results.append((t, res))
        return results

    def batch(self, targets):
        """Configure defconfig targets with one conf process: "make
        batchconfig" (patch 11 of the series), which writes OUT/NAME/.config
        and OUT/NAME/report.json for each.  Returns [(target, result)]."""
        out = self.run.out
        bdir = os.path.join(out, '.batch')
        os.makedirs(bdir, exist_ok=True)
        listfile = os.path.join(bdir, 'targets.list')
        stamp_path = os.path.join(bdir, 'batch.stamp')
        log = os.path.join(bdir, 'batchconfig.log')
        key = self.batch_key(targets)
        results = self.batch_cached(targets, key, read_stamp(stamp_path), log)
        if results:
            return results
        if os.path.exists(stamp_path):
            os.unlink(stamp_path)
        lines = []
        for t in targets:
            d = self.run.dir(t)
            # a target that is held back gets no .config: no stale one
            for f in ('.config', 'report.json', 'configure.stamp'):
                if os.path.exists(os.path.join(d, f)):
                    os.unlink(os.path.join(d, f))
            # relative to the tree, as make <x>_defconfig names it in the
            # report
            lines.append('%s defconfig arch/%s/configs/%s\n' % (
                t.name, t.arch, t.defconfig))
        write_atomic(listfile, ''.join(lines))
        self.seed(bdir, targets[0].arch)
        start = time.monotonic()
        cmd = kmake.command(self.run.srctree, bdir, targets[0].arch,
                            'batchconfig', 'KCONFIG_BATCH=' + listfile,
                            'KCONFIG_BATCH_DIR=' + out)
        with open(log, 'w') as f:
            rc = kmake.logged(f, cmd, self.env(None))
        results = self.batch_results(targets, cmd, rc, log,
                                     (time.monotonic() - start) / len(targets))
        if key and rc == 0:
            write_atomic(stamp_path, json.dumps({'key': key, 'configs': {
                t.name: t.result['config'] and sha256_file(t.result['config'])
                for t in targets}}))
        return results

    def batch_results(self, targets, cmd, rc, log, seconds):
        """Each target's result of the batch @cmd (exit status @rc, log
        @log): its lines of the log, its report and its .config."""
        with open(log, errors='replace') as f:
            text = f.read().splitlines()
        results = []
        for t in targets:
            d = os.path.join(self.run.out, t.name)
            tlog = os.path.join(d, 'configure.log')
            src = 'arch/%s/configs/%s' % (t.arch, t.defconfig)
            mine = [l for l in text if l.startswith(t.name + ' ') or
                    l.startswith(src + ':')]
            write_atomic(tlog, '$ %s\n(exit %d: the whole batch; log %s)\n'
                         '%s\n' % (' '.join(cmd), rc, log, '\n'.join(mine)))
            # conf's exit status is that of the whole batch: the verdict
            # of each target comes from its report and its .config
            wrote = os.path.isfile(os.path.join(d, '.config'))
            res = self.verdict(t, 0 if wrote else 1,
                               [os.path.join(d, 'report.json')], tlog,
                               seconds, warnings='\n'.join(mine))
            res['batch_log'] = log
            results.append((t, res))
        return results

    def verdict(self, t, rc, reports, log, seconds, cached=None,
                warnings=None):
        """Read @t's reports and conf's output (@warnings, or the log),
        fill t.result and return the step's result (kconfig.verdict()'s
        policy); a configuration that failed on an unmet select or an
        undefined symbol is removed."""
        reps, missing = [], []
        for r in reports:
            rep = kmake.read_report(r)
            if rep is None:
                missing.append(r)
            else:
                reps.append(rep)
        if warnings is None:
            with open(log, errors='replace') as f:
                warnings = f.read()
        v = verdict(rc, reps, missing, warnings, self.opts.fail_on_dropped)
        unmet, dropped, kinds = v['unmet'], v['dropped'], v['kinds']
        t.result['unmet'], t.result['dropped'] = unmet, dropped
        t.result['undefined'] = v['undefined']
        t.result['reports'] = [r for r in reports if r not in missing]
        reasons = v['reasons']
        if kinds and kinds[0] == 'configure':
            reasons.append('conf exited %d:\n%s' % (v['rc'], log_tail(log)))
        if dropped:
            reasons += dropped_lines(dropped)
        if not cached:
            with open(log, 'a') as f:
                f.write('kautobuild: %d unmet select(s), %d undefined '
                        'symbol(s), %d dropped request(s), from %s\n' % (
                            len(unmet), len(v['undefined']),
                            len(dropped), ', '.join(reports)))
        config = os.path.join(self.run.out, t.name, '.config')
        if (unmet or v['undefined']) and os.path.exists(config) and \
                not cached:
            os.unlink(config)
        t.result['config'] = None if kinds or not os.path.isfile(config) \
            else config
        res = {'status': 'FAIL' if kinds else 'PASS',
               'seconds': round(seconds, 1), 'log': log}
        if cached:
            res['cached'] = cached
        if kinds:
            res['reasons'] = kinds
        if v['location']:
            res['location'] = v['location']
        if reasons:
            res['reason'] = '\n'.join(reasons)
        return res
