# SPDX-License-Identifier: GPL-2.0
"""bench_audit - kconfig-bench's part "audit": the audit of the whole
tree, cold and from the cache, and of a one-file change, against goals.

tools/kconfig-audit over the whole tree of each architecture with an
empty cache, then on ARM the same tree again and a one-file --patch
against the cached tree (bench.py runs it).

The goals and what each figure is are in bench.py's docstring.  It
writes only under the benchmark's temporary folder.
"""

import json
import os
import subprocess
import sys
import time

from . import util

TOP = util.TOP
BUILD = util.TREES  # the trees of KERNEL_VERSION (util.py)
# The goals of each architecture: wall and CPU seconds of a cold audit
AUDIT_GOALS = {'arm': (300, 120), 'x86': (None, None)}
# The goals in CPU seconds of the audit again, and of a one-file change
AGAIN_GOAL, CHANGE_GOAL = 10, 30


def cpu_timed(cmd, env=None):
    """Run @cmd; return (wall seconds, CPU seconds (user + system, it and
    the children it waited for), returncode, stdout)."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    text = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return (time.monotonic() - start, usage.ru_utime + usage.ru_stime,
            p.returncode, text)


def demo_patch(tree, path):
    """A one-file change: a new bool symbol with a prompt that selects
    REGMAP_I2C (which depends on I2C), as a git format-patch."""
    import difflib
    rel = 'drivers/misc/Kconfig'
    old = open(os.path.join(tree, rel)).read()
    new = old.replace('config DUMMY_IRQ\n', 'config KBG_DEMO_SENSOR\n'
                      '\tbool "KBG demo board sensor"\n'
                      '\tselect REGMAP_I2C\n\nconfig DUMMY_IRQ\n', 1)
    with open(path, 'w') as f:
        f.write('Subject: [PATCH] misc: add the KBG demo sensor\n\n---\n'
                'diff --git a/%s b/%s\n' % (rel, rel))
        f.writelines(difflib.unified_diff(
            old.splitlines(True), new.splitlines(True), 'a/' + rel,
            'b/' + rel))
    return path


def audit_cold(cmd, env, tmp, arch, goal, cpu_goal):
    """The audit @cmd of the whole tree of @arch with an empty cache
    (@env), after a run that builds the program and conf (not timed);
    prints its figures.  Returns (whether it met @goal and @cpu_goal,
    its figures); raises RuntimeError when kconfig-audit fails."""
    ps = subprocess.run(cmd + ['--limit', '0', '--no-cache'],
                        stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
    if ps.returncode not in (0, 1):
        raise RuntimeError('kconfig-audit --arch %s failed:\n%s' %
                           (arch, ps.stdout[-2000:]))
    doc = os.path.join(tmp, 'audit-%s.json' % arch)
    wall, cpu, rc, text = cpu_timed(cmd + ['--json', doc], env)
    if rc not in (0, 1) or not os.path.isfile(doc):
        raise RuntimeError('kconfig-audit --arch %s failed:\n%s' %
                           (arch, text[-2000:]))
    with open(doc) as f:
        r = json.load(f)
    met = (goal is None or r['seconds'] <= goal) and \
        (cpu_goal is None or cpu <= cpu_goal)
    print('  %-52s %8.1fs  %s%s' % (
        'kconfig-audit --arch %s (whole tree), wall' % arch,
        r['seconds'], '(goal <= %ds) ' % goal if goal else '',
        'ok' if goal is None or r['seconds'] <= goal else 'MISSED'))
    print('  %-52s %8.1fs  %s%s' % (
        '  CPU, cold cache', cpu,
        '(goal <= %ds) ' % cpu_goal if cpu_goal else '',
        'ok' if cpu_goal is None or cpu <= cpu_goal else 'MISSED'))
    print('  %-52s %8.1fs' % (
        '  the C program (parse, encode, SAT), wall',
        r['summary']['sat_seconds']))
    print('  %-52s %8.1f MiB' % ('  peak memory (max RSS)',
                                 r['peak_rss_kib'] / 1024))
    print('  %-52s %d selects, %d candidates, %d confirmed, %d '
          'rejected' % ('', r['summary']['selects'],
                        r['summary']['candidates'], len(r['findings']),
                        len(r['rejected'])), flush=True)
    return met, {'arch': arch, 'seconds': r['seconds'], 'goal_seconds': goal,
                 'cpu_seconds': round(cpu, 1), 'goal_cpu_seconds': cpu_goal,
                 'sat_seconds': r['summary']['sat_seconds'],
                 'peak_rss_kib': r['peak_rss_kib'],
                 'selects': r['summary']['selects'],
                 'candidates': r['summary']['candidates'],
                 'confirmed': [(f['selector'], f['target'])
                               for f in r['findings']],
                 'rejected': len(r['rejected'])}


def audit_again(cmd, env):
    """The audit @cmd of the same tree again, its result from the cache
    of @env; prints its line.  Returns (whether it met AGAIN_GOAL, its
    figures)."""
    wall, cpu, rc, _ = cpu_timed(cmd, env)
    met = rc == 1 and cpu <= AGAIN_GOAL
    print('  %-52s %8.1fs  wall %.1fs (goal <= %ds CPU) %s' % (
        '  again, the same tree: CPU', cpu, wall, AGAIN_GOAL,
        'ok' if met else 'MISSED'), flush=True)
    return met, dict(again_cpu_seconds=round(cpu, 1),
                     again_seconds=round(wall, 1))


def audit_change(tool, patched, out, tmp, env):
    """kconfig-audit --patch (@tool) of a one-file change (demo_patch())
    against the cached tree @patched; prints its lines.  Returns (whether
    it met CHANGE_GOAL and found the new select, its figures); raises
    RuntimeError when it wrote no JSON."""
    patch = demo_patch(patched, os.path.join(tmp, 'demo.patch'))
    cdoc = os.path.join(tmp, 'audit-change.json')
    wall, cpu, rc, text = cpu_timed(
        tool + ['--patch', patch, '--srctree', patched, '--arch',
                'arm', '--out', out + '-change', '--json', cdoc],
        env)
    try:
        with open(cdoc) as f:
            c = json.load(f)
    except (OSError, ValueError):
        raise RuntimeError('kconfig-audit --patch failed:\n%s' %
                           text[-2000:])
    met = rc == 1 and c['new'] == 1 and cpu <= CHANGE_GOAL
    s = c['summary']
    solved = s['selects'] - s['carried'] - s.get('reused', 0)
    print('  %-52s %8.1fs  wall %.1fs (goal <= %ds CPU) %s' % (
        '  a one-file change (--patch), cached base: CPU', cpu,
        wall, CHANGE_GOAL, 'ok' if met else 'MISSED'))
    print('  %-52s %d new, %d known; %d selects solved again, %d '
          'from the cache' % ('', c['new'], c['known'], solved,
                              s.get('reused', 0)), flush=True)
    return met, dict(change_cpu_seconds=round(cpu, 1),
                     change_seconds=round(wall, 1),
                     change_new=c['new'], change_known=c['known'],
                     change_solved=solved,
                     change_reused=s.get('reused', 0),
                     goal_again_cpu_seconds=AGAIN_GOAL,
                     goal_change_cpu_seconds=CHANGE_GOAL)


def bench_audit(tmp):
    """The part "audit": audit_cold() of each architecture of
    AUDIT_GOALS, and on ARM audit_again() and audit_change(), with a
    cache in @tmp.  Returns (every goal met, the figures of each
    architecture)."""
    results, ok = [], True
    env = dict(os.environ, KCONFIG_AUDIT_CACHE=os.path.join(tmp,
                                                            'audit-cache'))
    tool = [sys.executable, os.path.join(TOP, 'tools', 'kconfig-audit')]
    patched = os.path.join(BUILD, 'patched')
    for arch, (goal, cpu_goal) in AUDIT_GOALS.items():
        out = os.path.join(tmp, 'audit-' + arch)
        cmd = tool + ['--srctree', patched, '--arch', arch, '--out', out]
        met, res = audit_cold(cmd, env, tmp, arch, goal, cpu_goal)
        ok = ok and met
        if arch == 'arm':
            met, figures = audit_again(cmd, env)
            ok = ok and met
            res.update(figures)
            met, figures = audit_change(tool, patched, out, tmp, env)
            ok = ok and met
            res.update(figures)
        results.append(res)
    print('  %-52s %s' % ('kismet (peer reference)', 'does not run here: '
                          'about an hour per architecture, quoted'))
    return ok, results


# --arch all on stock 7.2, wall seconds: every architecture cold, the
# same again from the cache, ARM alone cold (issue 38)
ALL_GOAL, ALL_WARM_GOAL, ARM_COLD_GOAL = 600, 60, 30
# kismet on this machine, ARM on stock 6.1 (issue 38): the peer's figures
KISMET_ARM = '54 min, 6,094 s CPU, 4.8 GiB for ARM alone (stock 6.1)'


def peak_of(cmd, env):
    """Run @cmd; return (wall seconds, CPU seconds, the peak RSS in KiB
    of its largest process, returncode, stdout)."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    text = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    return (time.monotonic() - start, usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss, os.waitstatus_to_exitcode(status), text)


def bench_audit_all(tmp):
    """The part "audit-all": kconfig-audit on stock 7.2 (the Debian
    tree, without the series), each run with an empty cache in @tmp but
    the last: ARM alone cold, --arch all cold, --arch all again from
    that cache; the building of the program and of conf is part of a
    cold run.  Returns (every goal met, the figures)."""
    stock = os.path.join(util.BUILD, '7.2', 'pristine')
    tool = [sys.executable, os.path.join(TOP, 'tools', 'kconfig-audit'),
            '--srctree', stock]
    ok, res = True, {'srctree': stock}

    def line(what, secs, goal, extra=''):
        met = secs <= goal
        print('  %-52s %8.1fs  (goal <= %ds) %s%s' % (
            what, secs, goal, 'ok' if met else 'MISSED', extra), flush=True)
        return met

    arm_env = dict(os.environ, KCONFIG_AUDIT_CACHE=os.path.join(
        tmp, 'cache-arm'))
    wall, cpu, peak, rc, text = peak_of(tool + [
        '--arch', 'arm', '--out', os.path.join(tmp, 'arm')], arm_env)
    if rc not in (0, 1):
        raise RuntimeError('kconfig-audit --arch arm failed:\n%s' %
                           text[-2000:])
    ok &= line('stock 7.2, --arch arm, cold: wall', wall, ARM_COLD_GOAL,
               ', %.1f s CPU, peak %d MiB' % (cpu, peak // 1024))
    res.update(arm_seconds=round(wall, 1), arm_cpu_seconds=round(cpu, 1),
               arm_peak_kib=peak, arm_summary=text.strip().splitlines()[-1])
    env = dict(os.environ, KCONFIG_AUDIT_CACHE=os.path.join(tmp,
                                                            'cache-all'))
    for label, goal in (('cold', ALL_GOAL), ('warm', ALL_WARM_GOAL)):
        doc = os.path.join(tmp, 'all-%s.json' % label)
        wall, cpu, peak, rc, text = peak_of(tool + [
            '--arch', 'all', '--out', os.path.join(tmp, 'all'),
            '--json', doc], env)
        if rc not in (0, 1) or not os.path.isfile(doc):
            raise RuntimeError('kconfig-audit --arch all failed:\n%s' %
                               text[-2000:])
        with open(doc) as f:
            d = json.load(f)
        ok &= line('stock 7.2, --arch all (%d), %s: wall' % (
            len(d['architectures']), label), wall, goal,
            ', %.1f s CPU, peak %d MiB' % (cpu, peak // 1024))
        res[label] = {'seconds': round(wall, 1), 'cpu_seconds': round(cpu, 1),
                      'peak_kib': peak, 'findings': d['findings'],
                      'architectures': d['architectures']}
        if label == 'cold':
            print('\n'.join('    ' + x for x in text.splitlines()
                            if not x.startswith('[')), flush=True)
    print('  %-52s %s' % ('kismet (peer, measured on this machine)',
                          KISMET_ARM))
    res['goals'] = {'all_cold': ALL_GOAL, 'all_warm': ALL_WARM_GOAL,
                    'arm_cold': ARM_COLD_GOAL}
    return ok, res
