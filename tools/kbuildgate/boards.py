# SPDX-License-Identifier: GPL-2.0
"""boards - the targets of a run: boards (qemu-images/boards/NAME and
the tree's arch/ARCH/boards/Kconfig.NAME), Kconfig fragments with their
"# arch:" line, and defconfigs; and the cross compiler of each
architecture.

It reads board descriptions and fragments; it configures and builds
nothing.
"""

import os
import re

from .errors import UsageError
from .util import TOP

BOARDS = os.path.join(TOP, 'qemu-images', 'boards')


def read_board(path):
    """The KEY=value lines of a board description (qemu-images/boards/)."""
    board = {}
    with open(path) as f:
        for line in f:
            m = re.match(r'^(\w+)=(.*)$', line.strip())
            if m:
                board[m.group(1)] = m.group(2)
    return board


def fragment_arch(path):
    """The architecture that a fragment names on a "# arch: NAME" line,
    or None."""
    with open(path, errors='replace') as f:
        for line in f:
            m = re.match(r'#\s*arch:\s*(\S+)', line)
            if m:
                return m.group(1)
    return None



def sourced_files(fragment, srctree):
    """@fragment and the files it sources, and they source, that are not
    in @srctree (whose own files the tree's key covers): the levels of a
    board made by kconfig-fragment import."""
    found, todo = [], [fragment]
    while todo:
        path = todo.pop()
        if path in found or not os.path.isfile(path):
            continue
        found.append(path)
        with open(path, errors='replace') as f:
            for m in re.finditer(r'^\s*source\s+"([^"$]+)"', f.read(), re.M):
                p = m.group(1)
                if os.path.isabs(p) and \
                        os.path.commonpath([p, srctree]) != srctree:
                    todo.append(p)
    return found


class Target:
    """One target of a run: a board, a fragment or a defconfig, with
    what configures it (fragment, defconfig, config_fragment), its QEMU
    machine, CPU and expected drivers, the paths sparse checks, and, set
    by run.Run, its result."""
    def __init__(self, name, kind, arch, **kw):
        """@name: the target's name (its folder in OUT); @kind: 'board',
        'fragment' or 'defconfig'; @arch: its ARCH; @kw: fragment (the
        KBUILD_KCONFIG value), defconfig (NAME_defconfig), config_fragment
        (merged in, or the KCONFIG_ALLCONFIG), machine, cpu, expect (drivers,
        comma-separated), sparse (paths) and description (the board file)."""
        self.name = name
        self.kind = kind            # board, fragment, defconfig
        self.arch = arch
        self.fragment = kw.get('fragment')      # KBUILD_KCONFIG value
        self.defconfig = kw.get('defconfig')    # NAME_defconfig
        self.config_fragment = kw.get('config_fragment')  # merged in
        self.machine = kw.get('machine')
        self.cpu = kw.get('cpu', 'cortex-a15')
        self.expect = kw.get('expect', '')
        self.sparse = kw.get('sparse', [])
        self.description = kw.get('description')

    def inputs(self, srctree):
        """Files outside the tree that decide the configuration."""
        files = [self.description, self.config_fragment]
        if self.fragment and os.path.isabs(self.fragment):
            files += sourced_files(self.fragment, srctree)
        if self.defconfig:
            files.append(os.path.join(srctree, 'arch', self.arch, 'configs',
                                      self.defconfig))
        return [f for f in files if f]

    def listing(self):
        """The target as kautobuild --list prints it: name, kind, arch
        and whichever of fragment, defconfig, config_fragment and machine it
        has.  Returns a dict."""
        d = {'name': self.name, 'kind': self.kind, 'arch': self.arch}
        for k in ('fragment', 'defconfig', 'config_fragment', 'machine'):
            if getattr(self, k):
                d[k] = getattr(self, k)
        return d


def tree_boards(srctree, arch):
    """Board fragments of arch/ARCH/boards/: the Kconfig.NAME files that no
    other one sources (Kconfig.common and Kconfig.msm are levels)."""
    return leaf_fragments(os.path.join(srctree, 'arch', arch, 'boards'))


def leaf_fragments(d):
    """The NAMEs of the Kconfig.NAME files of folder @d that no other one
    sources: the boards, above which the others are levels."""
    if not os.path.isdir(d):
        return []
    files = sorted(f for f in os.listdir(d) if f.startswith('Kconfig.'))
    sourced = set()
    for f in files:
        with open(os.path.join(d, f), errors='replace') as fh:
            for m in re.finditer(r'^\s*source\s+"([^"]+)"', fh.read(), re.M):
                sourced.add(os.path.basename(m.group(1)))
    return [f[len('Kconfig.'):] for f in files if f not in sourced]


def board_target(name, kv, path, arch):
    """The Target of the board @name, whose description @path has the
    KEY=value pairs @kv (read_board()); @arch when it names no ARCH.  Its
    configuration is its FRAGMENT, else its DEFCONFIG; CONFIG_FRAGMENT,
    MACHINE, CPU, EXPECT and SPARSE as they are."""
    common = dict(machine=kv.get('MACHINE'),
                  cpu=kv.get('CPU', 'cortex-a15'),
                  expect=kv.get('EXPECT', ''),
                  sparse=kv.get('SPARSE', '').split(),
                  description=path)
    cf = kv.get('CONFIG_FRAGMENT')
    common['config_fragment'] = os.path.join(BOARDS, cf) if cf else None
    if 'FRAGMENT' in kv:
        return Target(name, 'board', kv.get('ARCH', arch),
                      fragment=kv['FRAGMENT'], **common)
    return Target(name, 'board', kv.get('ARCH', arch),
                  defconfig=kv.get('DEFCONFIG'), **common)


def boards(srctree, arch):
    """Every board: qemu-images/boards/ descriptions, then the tree's
    board fragments that have none."""
    found = {}
    for name in sorted(os.listdir(BOARDS)):
        path = os.path.join(BOARDS, name)
        if not os.path.isfile(path):
            continue
        kv = read_board(path)
        if 'FRAGMENT' not in kv and 'DEFCONFIG' not in kv:
            continue        # e.g. qcom-virt.config, merged into a board
        found[name] = board_target(name, kv, path, arch)
    for name in tree_boards(srctree, arch):
        if name not in found:
            found[name] = Target(name, 'board', arch, fragment='arch/%s/'
                                 'boards/Kconfig.%s' % (arch, name))
    return list(found.values())


def arch_folders(d):
    """The architectures of a folder of "kconfig-fragment import --arch
    all": its subfolders that hold Kconfig.NAME files, sorted ([] when
    @d holds boards itself)."""
    if leaf_fragments(d):
        return []
    return [a for a in sorted(os.listdir(d))
            if os.path.isdir(os.path.join(d, a)) and
            leaf_fragments(os.path.join(d, a))]


def fragment_folder(d, arch):
    """The boards of a folder of fragments (kconfig-fragment import's
    output): each Kconfig.NAME that no other one sources, with NAME.config
    as its KCONFIG_ALLCONFIG when there is one.  A folder of
    "import --arch all" (a folder an architecture, arch_folders()) gives
    the boards of each, of that architecture; a board of such a folder,
    or of its folder ARCH given with @arch ARCH, is named ARCH/NAME, so
    that the results of the architectures merge into one."""
    d = os.path.abspath(d)
    if not os.path.isdir(d):
        raise UsageError('--fragments %s: no such folder' % d)
    arches = arch_folders(d)
    if arches:
        folders = [(os.path.join(d, a), a, a + '/') for a in arches]
    else:
        # DIR/ARCH of "import --arch all", with --arch ARCH
        up, name = os.path.split(d)
        folders = [(d, arch, arch + '/' if name == arch and
                    name in arch_folders(up) else '')]
    targets = []
    for f, a, prefix in folders:
        for n in leaf_fragments(f):
            cf = os.path.join(f, n + '.config')
            targets.append(Target(prefix + n, 'fragment', a,
                                  fragment=os.path.join(f, 'Kconfig.' + n),
                                  config_fragment=cf if os.path.isfile(cf)
                                  else None))
    if not targets:
        raise UsageError('--fragments %s: no Kconfig.NAME board in it, nor '
                         'a folder an architecture' % d)
    return targets


def defconfigs(srctree, arch):
    """The defconfig targets of @srctree's arch/@arch/configs/, sorted
    (none when there is no such folder)."""
    d = os.path.join(srctree, 'arch', arch, 'configs')
    if not os.path.isdir(d):
        return []
    return [Target(f, 'defconfig', arch, defconfig=f)
            for f in sorted(os.listdir(d)) if f.endswith('_defconfig')]


def resolve(names, srctree, arch):
    """The targets of the command line, or every board and defconfig."""
    if not names:
        return boards(srctree, arch) + defconfigs(srctree, arch)
    by_name = {b.name: b for b in boards(srctree, arch)}
    cfgdir = os.path.join(srctree, 'arch', arch, 'configs')
    targets = []
    for n in names:
        if n in by_name:
            targets.append(by_name[n])
        elif os.path.isfile(n):
            path = os.path.abspath(n)
            base = os.path.basename(path)
            name = re.sub(r'\.Kconfig$|^Kconfig\.', '', base) or base
            targets.append(Target(name, 'fragment',
                                  (fragment_arch(path) or arch), fragment=path))
        else:
            dc = n if n.endswith('_defconfig') else n + '_defconfig'
            if not os.path.isfile(os.path.join(cfgdir, dc)):
                raise UsageError(
                    '%s: not a board (%s), a fragment file or a defconfig of '
                    'arch/%s/configs/' % (n, ', '.join(sorted(by_name)), arch))
            targets.append(Target(dc, 'defconfig', arch, defconfig=dc))
    seen = set()
    for t in targets:
        if t.name in seen:
            raise UsageError('two targets named %s' % t.name)
        seen.add(t.name)
    return targets
