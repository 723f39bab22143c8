# SPDX-License-Identifier: GPL-2.0
"""kconfig - the configure step: conf run through make (one target a
process, or every defconfig in one "make batchconfig"), kconfig's JSON
report (KCONFIG_UNMET_REPORT) read back, and the policy: an unmet select,
a fragment's select of an undefined symbol and a syntax error fail the
target, dropped requests are counted and fail only with
--fail-on-dropped.

configure_fragment() is the one function that configures a Kconfig
fragment (KBUILD_KCONFIG=FRAGMENT make allnoconfig): kconfig-gate,
kconfig-fragment and kautobuild call it.  conf_result() reads conf's
output and report into a ConfResult: conf's diagnostic lines, verbatim,
and the reason of a failure.

It writes only OUT/NAME/ (.config, include/config/, the report, the log)
and OUT/.hostprogs; it never builds a kernel.
"""

import json
import os
import re
import shutil
import subprocess
import time

from .boards import CROSS_COMPILE, Target
from .util import (STAMP_VERSION, key_of, log_tail, read_stamp, sha256_file,
                   write_atomic)

DROPPED_KINDS = ('unknown', 'unmet', 'no-prompt', 'demoted', 'promoted',
                 'overridden', 'invalid')

# conf's diagnostics, which every tool passes through as they are: a
# "FILE:LINE: warning:", "note:" or "error:" line (or stock's
# "FILE:LINE:warning:" without the space), an error at FILE:LINE of the
# input ("FILE:LINE: syntax error: ..."), and the "WARNING: unmet direct
# dependencies detected for SYM" line that scrapers grep
DIAGNOSTIC = re.compile(r'^(?:\S+:\d+:(?: |warning: ).*|'
                        r'WARNING: unmet direct dependencies detected for .*)$')
UNDEFINED = re.compile(r"^(\S+):(\d+): ?warning: '(\w+)' is not defined by "
                       r"any Kconfig file")
INPUT_ERROR = re.compile(r'^(\S+:\d+): (?!warning: |note: )(.*)$')


def diagnostics(text):
    """conf's diagnostic lines of @text (make's output), verbatim."""
    return [l for l in text.splitlines() if DIAGNOSTIC.match(l)]


def conf_lines(text):
    """conf's lines of @text: make's own ("make[1]: ...") left out."""
    return [l for l in text.splitlines()
            if l.strip() and not re.match(r'make(\[\d+\])?: ', l)]


class ConfResult(dict):
    """What conf said about one configuration: 'returncode', 'diagnostics'
    (conf's lines, verbatim), 'report' (kconfig's JSON report, or None),
    'unmet' (unmet selects: one per selector), 'undefined' (the
    fragment's selects of undefined symbols), 'dropped', 'reason' (None,
    or why it failed: 'syntax error', 'unmet select', 'undefined symbol',
    'dropped request', 'configure'), 'reasons' (every one that applies),
    'detail' (one line for the reason: for a syntax error conf's error
    line with its FILE:LINE, in 'location' too; for 'configure' conf's
    last line) and 'output' (all of make's output)."""


def conf_result(returncode, output, report, fail_on_dropped=True):
    """Read conf's output and JSON report (a dict or None) into a
    ConfResult; the policy: an unmet select, a select of an undefined
    symbol, a dropped request (with @fail_on_dropped) or conf's failure
    fails."""
    diags = diagnostics(output)
    unmet = sum(len(u.get('selected_by', [])) or 1
                for u in report.get('unmet', [])) if report else 0
    dropped = len(report.get('dropped', [])) if report else 0
    undefined = [{'location': '%s:%s' % m.group(1, 2), 'symbol': m.group(3),
                  'message': l}
                 for l in diags for m in [UNDEFINED.match(l)] if m]
    res = ConfResult(returncode=returncode, diagnostics=diags, report=report,
                     unmet=unmet, undefined=undefined, dropped=dropped,
                     reasons=[], reason=None, detail=None, location=None,
                     output=output)
    errors = [m for m in map(INPUT_ERROR.match, diags)
              if m and 'syntax error' in m.group(2)]
    if returncode and errors:
        res['reasons'].append('syntax error')
        res['location'] = errors[0].group(1)
        res['detail'] = errors[0].group(0)
    if unmet:
        res['reasons'].append('unmet select')
    if undefined:
        res['reasons'].append('undefined symbol')
    if dropped and fail_on_dropped:
        res['reasons'].append('dropped request')
    if returncode and not res['reasons']:
        res['reasons'].append('configure')
        lines = conf_lines(output)
        res['detail'] = lines[-1] if lines else 'conf exited %d' % returncode
    if res['reasons']:
        res['reason'] = res['reasons'][0]
        if not res['detail']:
            res['detail'] = summary_counts(res)
    return res


def summary_counts(res):
    return '%d unmet select(s), %d undefined symbol(s), %d dropped ' \
        'request(s)' % (res['unmet'], len(res['undefined']), res['dropped'])


def configure_fragment(srctree, arch, fragment, outdir, werror=True,
                       allconfig=None, env=None, report=None, log=None,
                       fail_on_dropped=True):
    """Configure @fragment: "make O=@outdir ARCH=@arch
    KBUILD_KCONFIG=@fragment allnoconfig" in @srctree, under
    KCONFIG_WERROR (@werror), with kconfig's JSON report
    (KCONFIG_UNMET_REPORT, @report or OUTDIR/kconfig-report.json) and
    @allconfig as KCONFIG_ALLCONFIG.  make's output goes to @log (a path)
    too.  Returns a ConfResult.  The one place that configures a
    fragment: kconfig-gate, kconfig-fragment and kautobuild call it."""
    os.makedirs(outdir, exist_ok=True)
    report = report or os.path.join(outdir, 'kconfig-report.json')
    if os.path.exists(report):
        os.unlink(report)
    cmd = ['make', '-s', '-C', srctree, 'O=' + outdir, 'ARCH=' + arch]
    if CROSS_COMPILE.get(arch):
        cmd.append('CROSS_COMPILE=' + CROSS_COMPILE[arch])
    cmd.append('allnoconfig')
    e = {k: v for k, v in (os.environ if env is None else env).items()
         if not k.startswith('KCONFIG_') and k not in
         ('ARCH', 'CROSS_COMPILE', 'O', 'KBUILD_OUTPUT', 'MAKEFLAGS',
          'MFLAGS', 'MAKELEVEL')}
    e.update(KBUILD_KCONFIG=fragment, KCONFIG_UNMET_REPORT=report)
    if werror:
        e['KCONFIG_WERROR'] = '1'
    if allconfig:
        e['KCONFIG_ALLCONFIG'] = allconfig
    try:
        ps = subprocess.run(cmd, env=e, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            errors='replace')
        rc, output = ps.returncode, ps.stdout
    except OSError as err:
        rc, output = 127, '%s: %s\n' % (cmd[0], err)
    if log:
        with open(log, 'w') as f:
            f.write('$ %s\n%s(exit %d)\n' % (' '.join(cmd), output, rc))
    data = None
    try:
        with open(report) as f:
            data = json.load(f)
    except (OSError, ValueError):
        pass
    res = conf_result(rc, output, data, fail_on_dropped)
    res.update(command=cmd, report_file=report if data is not None else None)
    return res



def unmet_entries(report):
    return [{'symbol': u['symbol'],
             'selectors': [{'symbol': s['symbol'], 'file': s['file'],
                            'line': s['line'], 'if': s.get('if')}
                           for s in u.get('selected_by', [])],
             'blocking': u.get('blocking', []),
             'can_fix': u.get('can_fix'),
             'hint': u.get('hint', [])}
            for u in report.get('unmet', [])]


def dropped_entries(report):
    return [{'symbol': d['symbol'], 'requested': d.get('requested'),
             'actual': d.get('actual'), 'kind': d.get('kind'),
             'file': d.get('file'), 'line': d.get('line'),
             'blocking': d.get('blocking', []), 'can_fix': d.get('can_fix'),
             'hint': d.get('hint', [])}
            for d in report.get('dropped', [])]


INPUT_WARNING = re.compile(r'^(\S+?):(\d+):warning: (.*)$', re.M)


def input_warnings(text):
    """conf's warnings about its input ("FILE:LINE:warning: ..."), as
    dropped requests: "overridden" (a symbol assigned twice: the first
    request is lost) or "invalid" (a value or line conf cannot use)."""
    out = []
    for m in INPUT_WARNING.finditer(text):
        msg = m.group(3)
        sym = re.search(r'(?:symbol|for) (\w+)$|override: (\w+) changes|'
                        r'^(\w+) creates', msg)
        out.append({'symbol': next((g for g in sym.groups() if g), None)
                    if sym else None,
                    'requested': None, 'actual': None,
                    'kind': 'overridden' if msg.startswith('override:')
                    else 'invalid',
                    'file': m.group(1), 'line': int(m.group(2)),
                    'blocking': [], 'can_fix': None, 'hint': [],
                    'message': msg})
    return out


def blocking_text(blocking):
    return ', '.join('%s [=%s]' % (b['expr'], b['value']) +
                     (' (conflict: %s)' % b['conflict'] if b.get('conflict')
                      else '') for b in blocking)


def dropped_lines(dropped):
    out = []
    for d in dropped:
        if d.get('message'):
            out.append('%s:%s: %s (%s)' % (d['file'], d['line'],
                                           d['message'], d['kind']))
            continue
        line = '%s:%s: CONFIG_%s=%s was dropped (%s)' % (
            d['file'], d['line'], d['symbol'], d['requested'], d['kind'])
        if d['kind'] != 'unknown':
            line += ': %s is %s' % (d['symbol'], d['actual'])
        if d['blocking']:
            line += '; blocked by ' + blocking_text(d['blocking'])
        if d['hint'] and d['can_fix']:
            line += '; select ' + ' '.join(d['hint'])
        out.append(line)
    return out


class ConfigureStep:
    """The configure step, a part of run.Run."""

    def seed(self, d, arch):
        """Copy kconfig's host programs (fixdep, conf), built once per run
        in OUT/.hostprogs/ARCH, into the fresh output folder @d: make finds
        them up to date, and each new folder saves compiling conf."""
        if os.path.exists(os.path.join(d, 'scripts', 'kconfig', 'conf')):
            return
        with self._seed_lock:
            if arch not in self._seeds:
                hp = os.path.join(self.out, '.hostprogs', arch)
                os.makedirs(hp, exist_ok=True)
                t = Target('.hostprogs', 'seed', arch)
                cmd = self.kmake(t, 'allnoconfig')
                cmd[cmd.index('O=' + os.path.join(self.out, t.name))] = \
                    'O=' + hp
                with open(os.path.join(hp, 'seed.log'), 'w') as f:
                    rc = self.logged(f, cmd, self.env)
                self._seeds[arch] = None if rc else hp
        hp = self._seeds[arch]
        if hp:
            for sub in ('basic', 'kconfig'):
                shutil.copytree(os.path.join(hp, 'scripts', sub),
                                os.path.join(d, 'scripts', sub),
                                copy_function=shutil.copy2,
                                dirs_exist_ok=True)

    def configure_env(self, report):
        # Not KCONFIG_WERROR: under it conf also refuses a defconfig that
        # assigns a symbol twice (corgi, pxa and spitz do), and, with
        # KCONFIG_WARN_DROPPED, one with dropped unmet/demoted/promoted
        # requests but not one with unknown symbols, and then writes no
        # report in batch mode.  The policy is decided here instead, from
        # kconfig's JSON report (unmet selects fail; dropped requests are
        # counted) and conf's input warnings (counted as dropped); a
        # configuration with an unmet select is removed, as the gate
        # would not have written it.  The build runs under KCONFIG_WERROR.
        return dict(self.env, KCONFIG_UNMET_REPORT=report)

    def configure_key(self, t):
        if self.args.force:
            return None
        inputs = []
        for f in t.inputs(self.srctree):
            inputs.append((f, sha256_file(f) if os.path.isfile(f) else None))
        return key_of(STAMP_VERSION, 'configure', t.kind, t.arch,
                      t.fragment, t.defconfig, inputs, self.cc(t.arch),
                      self.srctree, self.tree_key())

    def configure_cached(self, t, key):
        d = self.dir(t)
        stamp = read_stamp(os.path.join(d, 'configure.stamp'))
        config = os.path.join(d, '.config')
        if (key and stamp.get('key') == key and os.path.isfile(config) and
                stamp.get('reports') and
                all(os.path.isfile(r) for r in stamp['reports']) and
                stamp.get('config') == sha256_file(config)):
            return stamp
        return None

    def configure_one(self, t):
        """Configure one target in its own output folder."""
        d = self.dir(t)
        log = os.path.join(d, 'configure.log')
        report = os.path.join(d, 'kconfig-report.json')
        start = time.monotonic()
        key = self.configure_key(t)
        stamp = self.configure_cached(t, key)
        if stamp:
            return self.configure_verdict(t, stamp['rc'], stamp['reports'],
                                          log,
                                          time.monotonic() - start,
                                          cached='inputs unchanged')
        for f in (os.path.join(d, 'configure.stamp'), report,
                  os.path.join(d, 'kconfig-report.2.json')):
            if os.path.exists(f):
                os.unlink(f)
        reports, rc = [report], 0
        self.seed(d, t.arch)
        if t.fragment:
            # the one path of kconfig-gate and kconfig-fragment, but for
            # KCONFIG_WERROR (see configure_env()); the board's
            # configuration starts from its CONFIG_FRAGMENT's values
            rc = configure_fragment(
                self.srctree, t.arch, t.fragment, d, werror=False,
                allconfig=t.config_fragment, env=self.env, report=report,
                log=log)['returncode']
        else:
            with open(log, 'w') as f:
                env = self.configure_env(report)
                rc = self.logged(f, self.kmake(t, t.defconfig), env)
                if rc == 0 and t.config_fragment:
                    # defconfig + QEMU additions, then olddefconfig: the
                    # second report holds the requests of the additions
                    merge = os.path.join(self.srctree, 'scripts', 'kconfig',
                                         'merge_config.sh')
                    rc = self.logged(f, ['sh', merge, '-m', '-O', d,
                                         os.path.join(d, '.config'),
                                         t.config_fragment],
                                     dict(env, ARCH=t.arch))
                    report2 = os.path.join(d, 'kconfig-report.2.json')
                    reports.append(report2)
                    if rc == 0:
                        rc = self.logged(
                            f, self.kmake(t, 'olddefconfig'),
                            self.configure_env(report2))
        res = self.configure_verdict(t, rc, reports, log,
                                     time.monotonic() - start)
        if rc == 0 and key and t.result['config'] and \
                all(os.path.isfile(r) for r in reports):
            write_atomic(os.path.join(d, 'configure.stamp'), json.dumps({
                'key': key, 'rc': rc, 'reports': reports,
                'config': sha256_file(os.path.join(d, '.config'))}))
        return res

    def logged(self, f, cmd, env):
        f.write('$ %s\n' % ' '.join(cmd))
        f.flush()
        ps = subprocess.run(cmd, env=env, stdout=f, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
        f.write('(exit %d)\n' % ps.returncode)
        f.flush()
        return ps.returncode

    def configure_batch(self, targets):
        """Configure defconfig targets with one conf process: "make
        batchconfig" (patch 11 of the series), which writes OUT/NAME/.config
        and OUT/NAME/report.json for each.  Returns [(target, result)]."""
        bdir = os.path.join(self.out, '.batch')
        os.makedirs(bdir, exist_ok=True)
        listfile = os.path.join(bdir, 'targets.list')
        stamp_path = os.path.join(bdir, 'batch.stamp')
        log = os.path.join(bdir, 'batchconfig.log')
        key = None if self.args.force else key_of(
            STAMP_VERSION, 'batch', [(t.name, sha256_file(t.inputs(
                self.srctree)[0])) for t in targets], self.cc(targets[0].arch),
            self.srctree, self.tree_key())
        stamp = read_stamp(stamp_path)
        if key and stamp.get('key') == key and os.path.isfile(log) and all(
                stamp['configs'].get(t.name) == (sha256_file(c) if
                                                 os.path.isfile(c) else None)
                for t in targets
                for c in [os.path.join(self.out, t.name, '.config')]):
            with open(log, errors='replace') as f:
                text = f.read().splitlines()
            results = []
            for t in targets:
                src = 'arch/%s/configs/%s:' % (t.arch, t.defconfig)
                res = self.configure_verdict(
                    t, 0 if stamp['configs'][t.name] else 1,
                    [os.path.join(self.out, t.name, 'report.json')],
                    os.path.join(self.out, t.name, 'configure.log'), 0.0,
                    cached='inputs unchanged',
                    warnings='\n'.join(l for l in text
                                       if l.startswith(src)))
                res['batch_log'] = log
                results.append((t, res))
            return results
        if os.path.exists(stamp_path):
            os.unlink(stamp_path)
        lines = []
        for t in targets:
            d = self.dir(t)
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
        arch = targets[0].arch
        cmd = ['make', '-C', self.srctree, 'O=' + bdir, 'ARCH=' + arch]
        if CROSS_COMPILE.get(arch):
            cmd.append('CROSS_COMPILE=' + CROSS_COMPILE[arch])
        cmd += ['batchconfig', 'KCONFIG_BATCH=' + listfile,
                'KCONFIG_BATCH_DIR=' + self.out]
        with open(log, 'w') as f:
            rc = self.logged(f, cmd, self.env)
        seconds = (time.monotonic() - start) / len(targets)
        with open(log, errors='replace') as f:
            text = f.read().splitlines()
        results = []
        for t in targets:
            d = os.path.join(self.out, t.name)
            report = os.path.join(d, 'report.json')
            tlog = os.path.join(d, 'configure.log')
            src = 'arch/%s/configs/%s' % (t.arch, t.defconfig)
            mine = [l for l in text if l.startswith(t.name + ' ') or
                    l.startswith(src + ':')]
            write_atomic(tlog, '$ %s\n(exit %d: the whole batch; log %s)\n'
                         '%s\n' % (' '.join(cmd), rc, log, '\n'.join(mine)))
            # conf's exit status is that of the whole batch: the verdict
            # of each target comes from its report and its .config
            wrote = os.path.isfile(os.path.join(d, '.config'))
            res = self.configure_verdict(t, 0 if wrote else 1, [report],
                                         tlog, seconds,
                                         warnings='\n'.join(mine))
            res['batch_log'] = log
            results.append((t, res))
        if key and rc == 0:
            write_atomic(stamp_path, json.dumps({'key': key, 'configs': {
                t.name: t.result['config'] and sha256_file(t.result['config'])
                for t in targets}}))
        return results

    def configure_verdict(self, t, rc, reports, log, seconds, cached=None,
                          warnings=None):
        unmet, dropped, missing = [], [], []
        merged = {'unmet': [], 'dropped': []}
        for r in reports:
            try:
                with open(r) as f:
                    rep = json.load(f)
            except (OSError, ValueError):
                missing.append(r)
                continue
            unmet += unmet_entries(rep)
            dropped += dropped_entries(rep)
            merged['unmet'] += rep.get('unmet', [])
            merged['dropped'] += rep.get('dropped', [])
        if warnings is None:
            with open(log, errors='replace') as f:
                warnings = f.read()
        dropped += input_warnings(warnings)
        conf = conf_result(rc, warnings, merged,
                           fail_on_dropped=self.args.fail_on_dropped)
        t.result['unmet'], t.result['dropped'] = unmet, dropped
        t.result['undefined'] = conf['undefined']
        t.result['reports'] = [r for r in reports if r not in missing]
        kinds = [k for k in conf['reasons'] if k != 'dropped request']
        if dropped and self.args.fail_on_dropped:
            kinds.append('dropped request')
        if missing and rc == 0 and not unmet:
            rc = 1
        if rc and not kinds:
            kinds.append('configure')
        reasons = []
        if kinds:
            # what failed, then conf's own lines, as they are
            head = '%s: %s' % (kinds[0], summary_counts(dict(
                conf, dropped=len(dropped))))
            if kinds[0] == 'syntax error':
                # the line itself follows, with conf's others
                head = 'syntax error: %s' % conf['location']
            reasons.append(head)
            reasons += conf['diagnostics']
        if missing and rc and not unmet and not conf['diagnostics']:
            reasons.append('kconfig wrote no JSON report (%s): is the series '
                           'applied?' % ', '.join(missing))
        if kinds and kinds[0] == 'configure':
            reasons.append('conf exited %d:\n%s' % (rc, log_tail(log)))
        if dropped:
            reasons += dropped_lines(dropped)
        failed = bool(kinds)
        if not cached:
            with open(log, 'a') as f:
                f.write('kautobuild: %d unmet select(s), %d undefined '
                        'symbol(s), %d dropped request(s), from %s\n' % (
                            len(unmet), len(conf['undefined']),
                            len(dropped), ', '.join(reports)))
        config = os.path.join(self.out, t.name, '.config')
        if (unmet or conf['undefined']) and os.path.exists(config) and \
                not cached:
            os.unlink(config)
        t.result['config'] = None if failed or not os.path.isfile(config) \
            else config
        res = {'status': 'FAIL' if failed else 'PASS',
               'seconds': round(seconds, 1), 'log': log}
        if cached:
            res['cached'] = cached
        if kinds:
            res['reasons'] = kinds
        if conf['location']:
            res['location'] = conf['location']
        if reasons:
            res['reason'] = '\n'.join(reasons)
        return res
