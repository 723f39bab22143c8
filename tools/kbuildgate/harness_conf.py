# SPDX-License-Identifier: GPL-2.0
"""harness_conf - conf for the differential harness: stock and patched
conf, built once per tree and architecture, run on a fragment with the
shell calls of the Kconfig files replayed from a cache (popen-cache.so),
in /dev/shm, with conf's heap in huge pages.

It runs conf in the folders it is given, and nothing else.
"""

import collections
import json
import os
import re
import shutil
import subprocess
import sys
import time

from . import kmake
from .errors import SetupError
from . import util

TOP = util.TOP

POPEN_CACHE_C = r'''
/* Replay the output of popen("cmd", "r") from DIFFHARNESS_POPEN_CACHE */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static FILE *replaying[8];

/* Open @path at the output, if its first line is @cmd */
static FILE *replay(const char *path, const char *cmd)
{
	size_t len = strlen(cmd);
	char *line = malloc(len + 1);
	FILE *f = fopen(path, "r");
	int i;

	if (f && fread(line, 1, len + 1, f) == len + 1 &&
	    !memcmp(line, cmd, len) && line[len] == '\n')
		for (i = 0; i < 8; i++)
			if (!replaying[i]) {
				free(line);
				return replaying[i] = f;
			}
	free(line);
	if (f)
		fclose(f);
	return NULL;
}

FILE *popen(const char *cmd, const char *type)
{
	FILE *(*real_popen)(const char *, const char *) =
		dlsym(RTLD_NEXT, "popen");
	int (*real_pclose)(FILE *) = dlsym(RTLD_NEXT, "pclose");
	const char *dir = getenv("DIFFHARNESS_POPEN_CACHE");
	unsigned long long h = 14695981039346656037ULL;
	char path[4096], tmp[4200], buf[65536];
	const char *c;
	FILE *p, *f;
	size_t n;

	if (!dir || strcmp(type, "r"))
		return real_popen(cmd, type);
	for (c = cmd; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ULL;
	snprintf(path, sizeof(path), "%s/%016llx", dir, h);
	f = replay(path, cmd);
	if (f)
		return f;
	p = real_popen(cmd, type);
	if (!p)
		return NULL;
	n = fread(buf, 1, sizeof(buf), p);
	if (real_pclose(p) == -1)
		return NULL;
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f)
		return NULL;
	fprintf(f, "%s\n", cmd);
	fwrite(buf, 1, n, f);
	if (fclose(f) || rename(tmp, path))
		return NULL;
	return replay(path, cmd);
}

int pclose(FILE *f)
{
	int (*real_pclose)(FILE *) = dlsym(RTLD_NEXT, "pclose");
	int i;

	for (i = 0; i < 8; i++)
		if (replaying[i] == f) {
			replaying[i] = NULL;
			return fclose(f) ? -1 : 0;
		}
	return real_pclose(f);
}
'''

# conf's heap in transparent huge pages: a run takes half the CPU time
# where page faults are dear (a virtual machine), and the same output
HUGEPAGES = 'glibc.malloc.hugetlb=1'

START = time.monotonic()


def log(msg):
    """Print @msg to stderr with the seconds since the harness
    started."""
    print('[%7.1fs] %s' % (time.monotonic() - START, msg), file=sys.stderr,
          flush=True)


def build_shim(out):
    """Build the popen cache library; return (its path, an empty cache)."""
    src = os.path.join(out, 'popen-cache.c')
    lib = os.path.join(out, 'popen-cache.so')
    with open(src, 'w') as f:
        f.write(POPEN_CACHE_C)
    ps = subprocess.run(['gcc', '-O2', '-Wall', '-shared', '-fPIC', '-o', lib,
                         src, '-ldl'], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
    if ps.returncode:
        raise SetupError('cannot build %s:\n%s' % (lib, ps.stdout))
    cache = os.path.join(out, 'shell-cache')
    shutil.rmtree(cache, ignore_errors=True)
    os.makedirs(cache)
    return lib, cache


# One run of conf: exit status, .config (None if not written), stderr,
# JSON report (patched only), and the folder it ran in
Run = collections.namedtuple('Run', 'rc config stderr report dir')


class Conf:
    """scripts/kconfig/conf of @tree for @arch, built in @out, run directly."""

    def __init__(self, tag, tree, arch, out):
        """@tag: 'stock' or 'patched'; @tree: its kernel tree; @arch:
        the ARCH; @out: the harness's folder, conf built in
        OUT/conf/TAG-ARCH/.  build() builds it."""
        self.tag, self.tree, self.arch = tag, tree, arch
        self.out = os.path.join(out, 'conf', '%s-%s' % (tag, arch))
        self.conf = os.path.join(self.out, 'scripts/kconfig/conf')
        self.env = self.key = None

    def _stamp(self):
        """What the built conf and its environment depend on: the sources
        of conf, and the key of a tree made by tools/kernel-tree."""
        d = os.path.join(self.tree, 'scripts/kconfig')
        files = sorted(os.path.join(d, f) for f in os.listdir(d)
                       if re.search(r'\.[chyl]$|^Makefile$', f))
        files += [f for f in [os.path.join(self.tree, '.kernel-tree-key')]
                  if os.path.exists(f)]
        stats = [(f, os.stat(f)) for f in files]
        return '\n'.join([self.tree, self.arch] +
                         ['%s %d %d' % (f, st.st_size, st.st_mtime_ns)
                          for f, st in stats]) + '\n'

    def build(self, shim=None):
        """Build conf unless built from the same sources; read its env."""
        stamp = os.path.join(self.out, 'diffharness.stamp')
        cmd_file = os.path.join(self.out, 'include/config/auto.conf.cmd')
        self.key = key = self._stamp()
        old = open(stamp).read() if os.path.exists(stamp) else None
        if old != key or not os.path.exists(self.conf) or \
                not os.path.exists(cmd_file):
            log('building conf of %s for %s in %s' % (self.tree, self.arch,
                                                      self.out))
            kmake.build_conf(self.tree, self.out, self.arch,
                             ('allnoconfig', 'syncconfig'))
            with open(stamp, 'w') as f:
                f.write(key)
        self.env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'),
                    'HOME': os.environ.get('HOME', '/'), 'LC_ALL': 'C',
                    'GLIBC_TUNABLES': HUGEPAGES}
        self.env.update(kmake.conf_env(self.out))
        if shim:
            self.env.update(LD_PRELOAD=shim[0],
                            DIFFHARNESS_POPEN_CACHE=shim[1])

    def check_unchanged(self):
        """Stop if the tree was remade during the run (its conf would run
        on files half unpacked, or be stale)."""
        try:
            same = self._stamp() == self.key
        except OSError:
            same = False
        if not same:
            raise SetupError('%s changed during the run: run again' % self.tree)

    def run(self, kconfig, mode, rundir, seed=None, config=None,
            allconfig=None):
        """Run conf --@mode on @kconfig in @rundir, from @config (bytes) as
        .config if given, with @allconfig (lines) as KCONFIG_ALLCONFIG if
        given."""
        os.makedirs(rundir, exist_ok=True)
        report = os.path.join(rundir, 'report.json')
        for f in ('.config', '.config.old', 'report.json'):
            if os.path.exists(os.path.join(rundir, f)):
                os.unlink(os.path.join(rundir, f))
        if config is not None:
            with open(os.path.join(rundir, '.config'), 'wb') as f:
                f.write(config)
        env = dict(self.env)
        if seed is not None:
            env['KCONFIG_SEED'] = str(seed)
        if self.tag == 'patched':
            env['KCONFIG_UNMET_REPORT'] = report
        if allconfig:
            env['KCONFIG_ALLCONFIG'] = os.path.join(rundir, 'allconfig')
            with open(env['KCONFIG_ALLCONFIG'], 'w') as f:
                f.write(''.join(x + '\n' for x in allconfig))
        ps = subprocess.run([self.conf, '--' + mode, kconfig], cwd=rundir,
                            env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, errors='replace')
        with open(os.path.join(rundir, 'output.log'), 'w') as f:
            f.write('%s --%s %s (exit %d)\n%s%s' % (
                self.conf, mode, kconfig, ps.returncode, ps.stdout, ps.stderr))
        config = None
        if ps.returncode == 0 and os.path.exists(os.path.join(rundir,
                                                              '.config')):
            with open(os.path.join(rundir, '.config'), 'rb') as f:
                config = f.read()
        rep = None
        try:
            with open(report) as f:
                rep = json.load(f)
        except (OSError, ValueError):
            pass        # no report, or not JSON: a conf error for the caller
        return Run(ps.returncode, config, ps.stderr, rep, rundir)


def check_shell_cache(conf, rundir):
    """The first run fills the cache, the second replays it: same result."""
    root = os.path.join(conf.tree, 'Kconfig')
    first = conf.run(root, 'allyesconfig', rundir)
    if 'LD_PRELOAD' not in conf.env:
        return first
    second = conf.run(root, 'allyesconfig', rundir)
    if first.rc or first[:3] != second[:3]:
        raise SetupError('%s conf for %s: the shell cache changes the result '
                    '(try --no-shell-cache); see %s' % (conf.tag, conf.arch,
                                                       rundir))
    return second
