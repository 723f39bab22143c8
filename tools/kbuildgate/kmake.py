# SPDX-License-Identifier: GPL-2.0
"""kmake - the one layer between the tools and the kernel's make and conf.

Every tool and test helper that runs make in a kernel tree, or builds
conf, goes through this module: it alone spells the make command line
("make -C TREE O=OUT ARCH=ARCH CROSS_COMPILE=..."), builds the
environment, runs a configuration target and reads conf's JSON report
back into a kconfig.ConfResult.

The environment policy, one for every tool: the caller's environment
less every KCONFIG_* variable and the variables of SCRUBBED (ARCH,
CROSS_COMPILE, LLVM, O, KBUILD_KCONFIG, MAKEFLAGS...), which would
change what make and conf do behind the tool's back; then what the tool
asks for, by name: the fragment (KBUILD_KCONFIG), the report
(KCONFIG_UNMET_REPORT), KCONFIG_WERROR (werror, a parameter of every
configuration, never inherited), KCONFIG_ALLCONFIG, and any other
variable given explicitly.  ARCH and CROSS_COMPILE go on the command
line, CROSS_COMPILE from CROSS_COMPILE below; LLVM is never set: the
tools build with the GCC toolchain of tools/install-deps.

It also checks what every tool is given: a kernel tree (check_tree())
and an architecture of it (check_arch()), each a UsageError of one line
(exit 2).
"""

import json
import os
import re
import shutil
import subprocess

from .errors import SetupError, UsageError
from .kconfig import conf_result
from .util import TREES

# The tree that every tool works on when it is given no --srctree:
# KERNEL_VERSION's patched tree (tools/kernel-tree), build/patched for 6.1
DEFAULT_SRCTREE = os.path.join(TREES, 'patched')
# The stock tree of the tools that compare (kconfig-baseline,
# kconfig-diffharness): KERNEL_VERSION's pristine tree
DEFAULT_STOCK = os.path.join(TREES, 'pristine')


def tree_pair_options(ap):
    """Add --stock and --patched, the two trees of a tool that compares
    stock kconfig with the series, to the argparse parser @ap, their
    defaults DEFAULT_STOCK and DEFAULT_SRCTREE."""
    ap.add_argument('--stock', default=DEFAULT_STOCK,
                    help='the stock kernel tree (default: the pristine tree '
                    'of KERNEL_VERSION, made by tools/kernel-tree: '
                    '%(default)s)')
    ap.add_argument('--patched', **srctree_option())


def srctree_option(what='the kernel tree with the series'):
    """The keyword arguments of every tool's --srctree (argparse's
    add_argument()): DEFAULT_SRCTREE, and a help text that says @what the
    tree is and where the default comes from."""
    return dict(default=DEFAULT_SRCTREE,
                help='%s (default: the patched tree of KERNEL_VERSION, '
                'made by tools/kernel-tree: %%(default)s)' % what)

# CROSS_COMPILE of each architecture that is not the host's
CROSS_COMPILE = {'arm': 'arm-linux-gnueabi-'}
# Debian 12's cross compilers, for builds beyond ARM (kconfig-bench's
# part "builds"): each architecture's CROSS_COMPILE, its package, and the
# .config line a configuration needs for that compiler to build it ('' for
# any).  Not used to configure: kconfig asks $(CC), so a configuration
# made with a compiler the machine lacks would fail, and one made with
# another compiler would differ (CONFIG_CC_VERSION_TEXT...)
DEBIAN_CROSS = {
    'alpha': ('alpha-linux-gnu-', 'gcc-alpha-linux-gnu', ''),
    'arc': ('arc-linux-gnu-', 'gcc-arc-linux-gnu', 'CONFIG_ISA_ARCV2=y'),
    'arm': ('arm-linux-gnueabi-', 'gcc-arm-linux-gnueabi', ''),
    'arm64': ('aarch64-linux-gnu-', 'gcc-aarch64-linux-gnu', ''),
    'm68k': ('m68k-linux-gnu-', 'gcc-m68k-linux-gnu', ''),
    'mips': ('mips-linux-gnu-', 'gcc-mips-linux-gnu', 'CONFIG_32BIT=y'),
    'parisc': ('hppa-linux-gnu-', 'gcc-hppa-linux-gnu', 'CONFIG_PA11=y'),
    'powerpc': ('powerpc-linux-gnu-', 'gcc-powerpc-linux-gnu',
                'CONFIG_PPC32=y'),
    'riscv': ('riscv64-linux-gnu-', 'gcc-riscv64-linux-gnu', ''),
    's390': ('s390x-linux-gnu-', 'gcc-s390x-linux-gnu', ''),
    'sh': ('sh4-linux-gnu-', 'gcc-sh4-linux-gnu', 'CONFIG_CPU_SH4=y'),
    'sparc': ('sparc64-linux-gnu-', 'gcc-sparc64-linux-gnu', ''),
    'um': ('', 'gcc', ''),
    'x86': ('', 'gcc', ''),
}
# Variables of the caller's environment that would change the result, on
# top of every KCONFIG_* one
SCRUBBED = ('ARCH', 'SRCARCH', 'CROSS_COMPILE', 'LLVM', 'CC', 'LD', 'O',
            'KBUILD_OUTPUT', 'KBUILD_KCONFIG', 'KBUILD_DEFCONFIG',
            'MAKEFLAGS', 'MFLAGS', 'MAKELEVEL', 'C', 'W', 'srctree')
# ARCH values whose Kconfig is that of another folder of arch/ (the
# kernel's Makefile: SRCARCH)
SRCARCH = {'i386': 'x86', 'x86_64': 'x86', 'sparc32': 'sparc',
           'sparc64': 'sparc', 'parisc64': 'parisc', 'sh64': 'sh'}
# What kconfig records of the variables it read, in auto.conf.cmd
AUTO_CONF_VAR = re.compile(r'^ifneq "\$\((\w+)\)" "(.*)"$', re.M)


def environment(base=None, extra=None, *, werror=False, report=None,
                kconfig=None, allconfig=None):
    """The environment of make and conf: @base (default os.environ)
    without KCONFIG_* and SCRUBBED, then KBUILD_KCONFIG=@kconfig,
    KCONFIG_UNMET_REPORT=@report, KCONFIG_WERROR=1 if @werror and
    KCONFIG_ALLCONFIG=@allconfig where given, then the variables of the
    dict @extra as they are.  Returns a new dict."""
    env = {k: v for k, v in (os.environ if base is None else base).items()
           if not k.startswith('KCONFIG_') and k not in SCRUBBED}
    for key, value in (('KBUILD_KCONFIG', kconfig),
                       ('KCONFIG_UNMET_REPORT', report),
                       ('KCONFIG_WERROR', '1' if werror else None),
                       ('KCONFIG_ALLCONFIG', allconfig)):
        if value:
            env[key] = str(value)
    env.update(extra or {})
    return env


def command(srctree, out, arch, *targets, jobs=None, quiet=False,
            variables=()):
    """The make command line: "make [-s] -C @srctree O=@out ARCH=@arch
    [CROSS_COMPILE=...] [-j@jobs] @variables... @targets...".  Returns a
    list of strings."""
    cmd = ['make'] + (['-s'] if quiet else [])
    cmd += ['-C', str(srctree), 'O=%s' % out, 'ARCH=%s' % arch]
    if CROSS_COMPILE.get(arch):
        cmd.append('CROSS_COMPILE=' + CROSS_COMPILE[arch])
    if jobs:
        cmd.append('-j%d' % jobs)
    return cmd + list(variables) + list(targets)


def make(srctree, out, arch, *targets, env=None, jobs=None, quiet=True,
         variables=(), stdin=subprocess.DEVNULL, text=True):
    """Run command() with @env (an environment() result; default
    environment()), stdout and stderr merged into .stdout (str, or bytes
    with text=False).  Returns the subprocess.CompletedProcess, its
    .args the command."""
    return subprocess.run(
        command(srctree, out, arch, *targets, jobs=jobs, quiet=quiet,
                variables=variables),
        env=environment() if env is None else env, stdin=stdin,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        **({'errors': 'replace', 'text': True} if text else {}))


def logged(f, cmd, env):
    """Run @cmd with @env, its output appended to the open file @f
    between a "$ CMD" line and an "(exit N)" line.  Returns the exit
    status."""
    f.write('$ %s\n' % ' '.join(cmd))
    f.flush()
    ps = subprocess.run(cmd, env=env, stdout=f, stderr=subprocess.STDOUT,
                        stdin=subprocess.DEVNULL)
    f.write('(exit %d)\n' % ps.returncode)
    f.flush()
    return ps.returncode


def read_report(path):
    """Kconfig's JSON report at @path as a dict, or None when conf wrote
    none (or half of one)."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


# A fragment that starts from the tree's defaults says so before its
# first line of Kconfig: "# kconfig-base: alldefconfig" (kconfig-fragment
# import writes it where a board is smaller that way, docs/import.md)
BASE_LINE = re.compile(r'#\s*kconfig-base:\s*(\S+)')
BASES = ('allnoconfig', 'alldefconfig')


def fragment_base(path):
    """The configuration target of the fragment @path: the one its
    "# kconfig-base: TARGET" comment names among its first comment lines,
    or allnoconfig, the plan's.  Raises UsageError, naming the file and
    line, for a target that is not one of BASES; an unreadable file is
    left to make to report."""
    try:
        with open(path, errors='replace') as f:
            for no, line in enumerate(f, 1):
                if not line.startswith('#'):
                    break
                m = BASE_LINE.match(line)
                if m:
                    if m.group(1) not in BASES:
                        raise UsageError('%s:%d: kconfig-base %s is not one '
                                         'of %s' % (path, no, m.group(1),
                                                    ', '.join(BASES)))
                    return m.group(1)
    except OSError:
        pass
    return BASES[0]


def cross_compile(arch):
    """The CROSS_COMPILE that builds @arch on this machine: Debian's
    (DEBIAN_CROSS) when its gcc is on PATH, else None."""
    prefix = DEBIAN_CROSS.get(arch, (None,))[0]
    if prefix is None or not shutil.which(prefix + 'gcc'):
        return None
    return prefix


def configure(srctree, out, arch, target=None, *, werror,
              kconfig=None, allconfig=None, report=None, base_env=None,
              log=None, fail_on_dropped=True, variables=()):
    """Run the configuration @target ("make -s O=@out ARCH=@arch
    @target"; by default the base of the fragment @kconfig, fragment_base(),
    or allnoconfig) in @srctree: with KBUILD_KCONFIG=@kconfig (a fragment),
    KCONFIG_ALLCONFIG=@allconfig, KCONFIG_WERROR=1 exactly when @werror
    is true, and kconfig's JSON report in @report (default
    OUT/kconfig-report.json, removed first).  make's output goes to @log
    (a path) too; @variables go on make's command line
    (CROSS_COMPILE=...).  Returns conf's kconfig.ConfResult, with 'command' and
    'report_file' (None when conf wrote no report) added."""
    if target is None:
        target = fragment_base(kconfig) if kconfig else BASES[0]
    os.makedirs(out, exist_ok=True)
    report = report or os.path.join(out, 'kconfig-report.json')
    if os.path.exists(report):
        os.unlink(report)
    env = environment(base_env, werror=werror, report=report,
                      kconfig=kconfig, allconfig=allconfig)
    cmd = command(srctree, out, arch, target, quiet=True,
                  variables=variables)
    try:
        ps = make(srctree, out, arch, target, env=env, variables=variables)
        rc, output = ps.returncode, ps.stdout
    except OSError as err:
        rc, output = 127, '%s: %s\n' % (cmd[0], err)
    if log:
        with open(log, 'w') as f:
            f.write('$ %s\n%s(exit %d)\n' % (' '.join(cmd), output, rc))
    data = read_report(report)
    res = conf_result(rc, output, data, fail_on_dropped)
    res.update(command=cmd, report_file=report if data is not None else None)
    return res


def conf_env(out):
    """The variables that kconfig read while it configured @out, from
    OUT/include/config/auto.conf.cmd: the environment that runs conf
    directly, as scripts/kconfig/Makefile does.  Raises SetupError when
    one that conf needs (srctree, ARCH, SRCARCH, CC) is missing."""
    path = os.path.join(str(out), 'include', 'config', 'auto.conf.cmd')
    with open(path) as f:
        env = dict(AUTO_CONF_VAR.findall(f.read()))
    for need in ('srctree', 'ARCH', 'SRCARCH', 'CC'):
        if need not in env:
            raise SetupError('%s: kconfig did not record %s' % (out, need))
    return env


def build_conf(srctree, out, arch, targets=('defconfig', 'syncconfig'),
               cflags=None, ldflags=None, extra=None):
    """Build conf of @srctree in @out for @arch ("make @targets", with
    HOSTCFLAGS=@cflags and HOSTLDFLAGS=@ldflags when given, and the
    variables of @extra), its output in OUT/build.log.  Returns conf's
    environment (conf_env()); raises SetupError when make fails."""
    os.makedirs(str(out), exist_ok=True)
    variables = ['HOSTCFLAGS=' + cflags, 'HOSTLDFLAGS=' + ldflags] \
        if cflags is not None else []
    ps = make(srctree, out, arch, *targets, variables=variables,
              env=environment(extra=extra), stdin=None)
    with open(os.path.join(str(out), 'build.log'), 'w') as f:
        f.write(ps.stdout)
    if ps.returncode:
        raise SetupError('building conf in %s failed (exit %d):\n%s' %
                         (out, ps.returncode, ps.stdout[-2000:]))
    return conf_env(out)


def newer(target, sources):
    """Is @target there, and newer than every file of @sources?"""
    try:
        t = os.stat(target).st_mtime_ns
    except OSError:
        return False
    return all(os.stat(f).st_mtime_ns < t for f in sources)


def kconfig_sources(srctree):
    """The sources of @srctree's conf (scripts/kconfig/*.[chyl]), sorted
    paths."""
    kc = os.path.join(str(srctree), 'scripts', 'kconfig')
    return [os.path.join(kc, f) for f in sorted(os.listdir(kc))
            if f.endswith(('.c', '.h', '.y', '.l'))]


def build_helper(top, srctree, out, tool):
    """tools/audit/build --tool @tool (audit or import) against
    @srctree's kconfig, into @out, unless the program there is newer than
    its sources, under environment().  Returns the program's path; raises
    SetupError when the build fails."""
    prog = os.path.join(str(out), 'kconfig-' + tool)
    main = os.path.join(top, 'tools', tool, 'kconfig-%s.c' % tool)
    if newer(prog, kconfig_sources(srctree) + [main]):
        return prog
    ps = subprocess.run([os.path.join(top, 'tools', 'audit', 'build'),
                         '--tool', tool, '--srctree', str(srctree),
                         '--out', str(out)], env=environment(),
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True)
    if ps.returncode:
        raise SetupError(ps.stderr.strip() or 'tools/audit/build failed')
    return prog


def check_tree(srctree, series=False):
    """Raise UsageError unless @srctree is a kernel tree (it has
    scripts/kconfig/conf.c); with @series, unless it also carries the
    series (KCONFIG_UNMET_REPORT in conf.c)."""
    conf = os.path.join(str(srctree), 'scripts', 'kconfig', 'conf.c')
    if not os.path.isfile(conf):
        raise UsageError('%s is not a kernel tree' % srctree)
    if series:
        with open(conf, errors='replace') as f:
            if 'KCONFIG_UNMET_REPORT' not in f.read():
                raise UsageError('%s does not carry the series (no '
                                 'KCONFIG_UNMET_REPORT in conf.c)' % srctree)


def check_arch(srctree, arch, what='--arch'):
    """Raise UsageError, naming @what (the option or the fragment that
    gave it), unless @arch is an architecture of @srctree: its
    arch/SRCARCH/Kconfig exists."""
    src = SRCARCH.get(arch, arch)
    rel = 'arch/%s/Kconfig' % src
    if not arch or '/' in src or src.startswith('.') or \
            not os.path.isfile(os.path.join(str(srctree), rel)):
        raise UsageError('%s %s: %s is not in the tree %s' % (
            what, arch, rel, srctree))
