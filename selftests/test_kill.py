# SPDX-License-Identifier: GPL-2.0
"""conf killed with SIGKILL while it writes leaves every file either the
complete old version or the complete new one.

killshim/killshim.c is an LD_PRELOAD library, built here with gcc, that
counts conf's file-writing library calls (fopen, fputs, fprintf, fclose,
open, close, rename, unlink, ...) and raises SIGKILL just before the Nth.
Streams opened for writing get a 64-byte buffer, so a kill in the middle
of a file leaves what was written so far on disk.

The run: "conf --syncconfig" on x86 (defconfig), from an existing
configuration A (.config, .config.old, include/config/*, include/generated/*
and, on the patched tree, the KCONFIG_UNMET_REPORT report) to B, after
.config was edited by hand (USB_SUPPORT off, USB=y asked: every written
file changes, and the report gets a dropped request).  conf runs directly,
with the environment that make gives it (recorded once by the shim), and
the $(shell,...) commands of the Kconfig files are replayed from a cache
by the shim: the same results, ten times faster.

For each N (every call that opens, closes, flushes, renames or removes a
file, the call after it, and random others; at least 200 runs), the run
starts again from A, is killed before call N, and then every file must hash
to its A or B version; a file missing in both may only be a temporary
file (*.tmp), which a SIGKILL cannot clean up.  One run in 16 then reruns
conf, which must give B.

So that 200 runs stay fast, conf parses the Kconfig files once: at its
first file-writing call, before anything is written, the shim forks one
child per run, which goes on in its own copy of A and is killed there
(KILLSHIM_FORK).

KILLTEST_SEED=S picks other random calls; KILLTEST_RUNS=N more runs.
"""

import hashlib
import json
import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import PATCHED, PRISTINE, kmake

pytestmark = pytest.mark.usefixtures('trees')

HERE = Path(__file__).resolve().parent
SHIM_SRC = HERE / 'killshim' / 'killshim.c'
FRAGMENT = HERE / 'killshim' / 'kill.Kconfig'
SEED = int(os.environ.get('KILLTEST_SEED', '20240601'))
RUNS = max(200, int(os.environ.get('KILLTEST_RUNS', '200')))
REPORT = 'report.json'
# the calls where a crash is most likely to expose a gap
STRUCTURAL = ('fopen', 'open', 'fclose', 'close', 'fflush', 'rename',
              'unlink', 'link', 'mkdir')
# the .config edit that takes A to B
EDIT = '# CONFIG_USB_SUPPORT is not set\nCONFIG_USB=y\n'


@pytest.fixture(scope='module')
def shim(tmp_path_factory):
    so = tmp_path_factory.mktemp('killshim') / 'killshim.so'
    subprocess.run(['gcc', '-O2', '-Wall', '-Werror', '-shared', '-fPIC',
                    '-o', str(so), str(SHIM_SRC), '-ldl'], check=True)
    return so


EMPTY = hashlib.sha256(b'').hexdigest()


def snapshot(d):
    """{relative path: sha256} of every file under @d."""
    files = {}
    for root, _, names in os.walk(d):
        for name in names:
            p = os.path.join(root, name)
            rel = os.path.relpath(p, d)
            if os.path.getsize(p):
                with open(p, 'rb') as f:
                    files[rel] = hashlib.sha256(f.read()).hexdigest()
            else:
                files[rel] = EMPTY
    return files


def copy(src, dst):
    """Copy the folder @src to @dst, fast: hard links.  conf replaces the
    files it writes (temporary file and rename) and only truncates empty
    ones (include/config/ timestamps), so @src is not changed; the tests
    check that it was not."""
    subprocess.run(['cp', '-al', str(src), str(dst)], check=True)


def is_temporary(path):
    return path.endswith('.tmp')


class Conf:
    """conf of @tree, built in @out, run directly as make runs it."""

    def __init__(self, tree, out, shim, fragment=None):
        self.shim = shim
        self.cache = out / 'shell.cache'
        env = {'KBUILD_KCONFIG': str(fragment)} if fragment else {}
        ps = kmake(tree, out, 'defconfig', env=env)
        assert ps.returncode == 0, ps.stdout
        dump = out / 'conf.dump'
        ps = kmake(tree, out, 'syncconfig',
                   env=dict(env, LD_PRELOAD=str(shim),
                            KILLSHIM_DUMP=str(dump),
                            KILLSHIM_SHELL=str(self.cache)))
        assert ps.returncode == 0, ps.stdout
        raw = dump.read_bytes()
        _, rest = raw.split(b'\n--args--\n', 1)
        args, env = rest.split(b'\n--env--\n', 1)
        self.args = [a.decode() for a in args.split(b'\0') if a]
        self.args[0] = str(out / self.args[0])
        self.env = dict(e.decode().split('=', 1)
                        for e in env.split(b'\0') if b'=' in e)
        for k in list(self.env):
            if k.startswith('KILLSHIM_') or k in (
                    'LD_PRELOAD', 'MAKEFLAGS', 'MFLAGS', 'MAKELEVEL'):
                del self.env[k]
        self.env['KCONFIG_UNMET_REPORT'] = REPORT
        self.defconfig = (out / '.config').read_text()

    def run(self, cwd, log=None, fork=None, preload=True):
        env = dict(self.env)
        if preload:
            env.update(LD_PRELOAD=str(self.shim),
                       KILLSHIM_SHELL=str(self.cache))
            if log:
                env['KILLSHIM_LOG'] = str(log)
            if fork:
                env['KILLSHIM_FORK'] = str(fork)
        return subprocess.run(self.args, cwd=cwd, env=env, text=True,
                              stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def old_and_new(conf, top):
    """The folders of configuration A and of B, and the calls of A to B."""
    a = top / 'a'
    a.mkdir()
    (a / '.config').write_text(conf.defconfig)
    ps = conf.run(a)
    assert ps.returncode == 0, ps.stdout
    with open(a / '.config', 'a') as f:
        f.write(EDIT)
    (a / '.config.old').write_text('# an older .config\n')

    b = top / 'b'
    copy(a, b)
    log = top / 'calls.log'
    ps = conf.run(b, log=log)
    assert ps.returncode == 0, ps.stdout
    calls = [line.split(' ', 2) for line in log.read_text().splitlines()]

    # the shim and its cache change nothing
    plain = top / 'plain'
    copy(a, plain)
    ps = conf.run(plain, preload=False)
    assert ps.returncode == 0, ps.stdout
    assert snapshot(plain) == snapshot(b)
    shutil.rmtree(plain)
    return a, b, calls


def kill_points(calls, runs):
    """Every structural call, the one after it, and random others: @runs
    in all, or more if there are more structural calls."""
    points = set()
    for i, (n, op, _) in enumerate(calls):
        if op in STRUCTURAL:
            points.add(int(n))
            if i + 1 < len(calls):
                points.add(int(n) + 1)
    rng = random.Random(SEED)
    others = [n for n in range(1, len(calls) + 1) if n not in points]
    want = max(runs - len(points), runs // 4)
    points.update(rng.sample(others, min(want, len(others))))
    return sorted(points)


def check(files, old, new):
    """The files of @files that are neither their @old nor their @new
    version, as {path: what}; and the temporary files left."""
    bad, left = {}, []
    for path in sorted(set(files) | set(old) | set(new)):
        got = files.get(path)
        if path not in old and path not in new:
            if is_temporary(path):
                left.append(path)
            else:
                bad[path] = 'unexpected file'
        elif got not in (old.get(path), new.get(path)):
            bad[path] = 'missing' if got is None else 'torn'
    return bad, left


def kill_runs(conf, a, old, new, calls, top, points):
    """Kill conf before each call of @points, each in a copy of @a; and
    one run in 16 then reruns conf, which must give @new (but for the
    report, which says what the new input asked)."""
    server = top / 'server'
    copy(a, server)
    plan = top / 'plan'
    lines = []
    for n in points:
        copy(a, top / ('run%d' % n))
        lines.append('%d %s\n' % (n, top / ('run%d' % n)))
    plan.write_text(''.join(lines))
    ps = conf.run(server, fork=plan)
    assert ps.returncode == 0, ps.stdout
    status = dict(map(int, line.split())
                  for line in (top / 'plan.out').read_text().splitlines())
    results = []
    for i, n in enumerate(points):
        d = top / ('run%d' % n)
        r = {'n': n, 'call': calls[n - 1][1:], 'status': status.get(n)}
        r['bad'], r['left'] = check(snapshot(d), old, new)
        if i % 16 == 0:
            ps = conf.run(d)
            files = {p: h for p, h in snapshot(d).items()
                     if not is_temporary(p)}
            want = {p: h for p, h in new.items() if p != REPORT}
            report = files.pop(REPORT, None)
            r['recovered'] = ps.returncode == 0 and files == want
            if report:
                json.loads((d / REPORT).read_text())
        shutil.rmtree(d)
        results.append(r)
    return results


def kill_test(tree, tmp_path, shim, fragment=None, runs=RUNS):
    conf = Conf(tree, tmp_path / 'out', shim, fragment)
    a, b, calls = old_and_new(conf, tmp_path)
    old, new = snapshot(a), snapshot(b)
    for f in ('.config', '.config.old', 'include/config/auto.conf',
              'include/generated/autoconf.h', 'include/generated/rustc_cfg'):
        assert old[f] != new[f], f
    points = kill_points(calls, runs)
    assert len(points) >= runs
    results = kill_runs(conf, a, old, new, calls, tmp_path, points)
    assert snapshot(a) == old
    for r in results:
        # killed by SIGKILL (wait status 9)
        assert r['status'] == 9, r
    left = sorted({re.sub(r'\.\d+\.tmp$', '.PID.tmp', p)
                   for r in results for p in r['left']})
    print('%s: %d calls, %d kill runs, seed %d; temporary files left: %s' % (
        tree.name, len(calls), len(results), SEED, left))
    return old, new, results


def findings(results):
    """{path: [(what, kill point, call), ...]}"""
    found = {}
    for r in results:
        for path, what in r['bad'].items():
            found.setdefault(path, []).append((what, r['n'], r['call']))
    for path, hits in sorted(found.items()):
        print('%s: %s in %d runs, e.g. killed before call %d %s' % (
            path, sorted({h[0] for h in hits}), len(hits), hits[0][1],
            hits[0][2]))
    return found


@pytest.mark.slow
def test_kill_patched(tmp_path, shim):
    old, new, results = kill_test(PATCHED, tmp_path, shim, FRAGMENT)
    for f in ('include/config/auto.conf.unmet', REPORT):
        assert f in old and f in new, f
    assert old[REPORT] != new[REPORT]
    assert findings(results) == {}
    recovered = [r['recovered'] for r in results if 'recovered' in r]
    assert recovered and all(recovered)


@pytest.mark.slow
def test_kill_stock(tmp_path, shim):
    """The baseline.  Stock conf_write() renames .config to .config.old
    before it renames the new file to .config: killed in between, there is
    no .config at all.  Everything else is written to a temporary file and
    renamed (the include/config/ timestamp files are empty, so any state of
    them is a complete one)."""
    _, _, results = kill_test(PRISTINE, tmp_path, shim, runs=RUNS // 2)
    found = findings(results)
    assert set(found) == {'.config'}
    assert {h[0] for h in found['.config']} == {'missing'}
