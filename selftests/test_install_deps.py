# SPDX-License-Identifier: GPL-2.0
"""tools/install-deps names every package the project needs.

A machine where packages were once installed by hand hides a missing
install step: on it the programs are there whatever install-deps says.
These tests look instead at which package each file the project uses
comes from, and require that package to be installed by install-deps on a
bare Debian 12 system: one of its packages, something they depend on
(recommendations are not installed), or part of that bare system
(mmdebstrap --variant=apt with make and git, as .ci/fresh-debian makes it).
"""

import glob
import os
import shutil
import subprocess
import sys

import pytest

from conftest import KERNEL_VERSION, TOP

pytestmark = pytest.mark.usefixtures('trees')

INSTALL_DEPS = TOP / 'tools' / 'install-deps'
BOOT = TOP / 'qemu-images' / 'boot'

# what mmdebstrap --variant=apt installs besides the Essential packages,
# with the --include of .ci/fresh-debian
BARE = ('apt', 'make', 'git', 'ca-certificates')

# The files each step uses, by step.  A program is looked up on PATH.
PROGRAMS = {
    'trees': ['xz', 'tar', 'patch', 'git', 'sha256sum'],
    'kernel build': ['make', 'gcc', 'bison', 'flex', 'bc', 'perl',
                     'arm-linux-gnueabi-gcc', 'arm-linux-gnueabi-ld'],
    'sparse': ['sparse'],
    'boot': ['qemu-system-arm'],
    'lava': ['lava-run'],
    'tests': ['python3', 'pgrep', 'valgrind', 'clang', 'quilt', 'mount',
              'umount', 'unshare'],
}
FILES = {
    # the static /init: bits/wordsize.h was the first fresh-machine failure
    'initramfs': ['/usr/arm-linux-gnueabi/include/bits/wordsize.h',
                  '/usr/arm-linux-gnueabi/lib/libc.a'],
    'kernel build': ['/usr/include/libelf.h', '/usr/include/openssl/ssl.h'],
    'trees': ['/usr/src/linux-source-%s.tar.xz' % KERNEL_VERSION],
    'audit': ['/usr/include/picosat/picosat.h',
              '/usr/lib/x86_64-linux-gnu/libpicosat.so'],
}
# Debian's own programs, not /usr/local's (python3 here is a pyenv build)
DEBIAN_PATH = '/usr/sbin:/usr/bin:/sbin:/bin'
MODULES = ['pytest', 'yaml', 'lava_common.schemas', 'ply', 'git',
           'jsonschema', 'lava_dispatcher']


def install_deps_packages():
    out = subprocess.run([str(INSTALL_DEPS), '--list'], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    return [line.split()[0].split('=')[0] for line in out.splitlines()
            if not line.startswith('npm:')]


def depends_closure(packages):
    """The packages apt installs for @packages without recommendations."""
    out = subprocess.run(
        ['apt-cache', 'depends', '--recurse', '--no-recommends',
         '--no-suggests', '--no-conflicts', '--no-breaks', '--no-replaces',
         '--no-enhances'] + list(packages),
        check=True, stdout=subprocess.PIPE, text=True).stdout
    return {line.strip().split(':')[0] for line in out.splitlines()
            if line and not line[0].isspace() and not line.startswith('<')}


def essential_packages():
    out = subprocess.run(['dpkg-query', '-W', '-f=${Package} ${Essential}\n'],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    return [p for p, e in (line.split(' ', 1) for line in out.splitlines())
            if e.strip() == 'yes']


def owner(path):
    """The package that installed @path (following symlinks), or None."""
    real = os.path.realpath(path)
    # with merged /usr, dpkg may know /bin/tar as /bin/tar only
    for p in (path, real, real.replace('/usr/', '/', 1)):
        ps = subprocess.run(['dpkg-query', '-S', p], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
        if ps.returncode == 0:
            return ps.stdout.split(':')[0].split(',')[0].strip()
    return None


@pytest.fixture(scope='module')
def installed_by_deps():
    return depends_closure(install_deps_packages())


@pytest.fixture(scope='module')
def bare_system():
    return depends_closure(essential_packages() + list(BARE))


def needed_files():
    for step, progs in PROGRAMS.items():
        for prog in progs:
            yield step, prog, shutil.which(prog, path=DEBIAN_PATH) or prog
    for step, files in FILES.items():
        for f in files:
            yield step, f, f
    for mod in MODULES:
        code = 'import %s, sys; sys.stdout.write(%s.__file__)' % (mod, mod)
        ps = subprocess.run(['/usr/bin/python3', '-c', code],
                            stdout=subprocess.PIPE, text=True)
        yield 'tests', 'python3 module ' + mod, ps.stdout or mod


def test_every_file_comes_from_install_deps(installed_by_deps, bare_system):
    missing = []
    for step, what, path in needed_files():
        pkg = owner(path) if os.path.exists(path) else None
        if pkg is None:
            missing.append('%s (%s): not installed here' % (what, step))
        elif pkg not in installed_by_deps and pkg not in bare_system:
            missing.append('%s (%s): from %s, which install-deps does not '
                           'install' % (what, step, pkg))
    assert not missing, 'tools/install-deps misses:\n' + '\n'.join(missing)


def test_check_finds_a_recommended_package(installed_by_deps):
    """The check above would have caught the first fresh-machine failure:
    libc6-dev-armel-cross is only recommended by gcc-arm-linux-gnueabi."""
    without = [p for p in install_deps_packages()
               if p != 'libc6-dev-armel-cross']
    assert 'libc6-dev-armel-cross' in installed_by_deps
    assert 'libc6-dev-armel-cross' not in depends_closure(without)
    assert owner('/usr/arm-linux-gnueabi/include/bits/wordsize.h') == \
        'libc6-dev-armel-cross'


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason='needs root for unshare -m')
def test_boot_needs_no_rom_of_a_missing_package(tmp_path, installed_by_deps,
                                               bare_system):
    """The second fresh-machine failure: qemu -M virt loaded the option ROM
    of a default NIC (efi-virtio.rom, from ipxe-qemu, a recommendation).
    Start QEMU the way qemu-images/boot does, with /usr/share/qemu holding
    only the files of installed-by-install-deps packages: it must start
    (here a kernel of zeros hangs, and the runner reports a timeout).
    ipxe-qemu's ROMs are left out even though lava-dispatcher now brings
    them (through qemu-system-x86): the boot must not need them."""
    allowed = tmp_path / 'qemu-share'
    allowed.mkdir()
    kept = dropped = 0
    for f in glob.glob('/usr/share/qemu/**', recursive=True):
        if os.path.isdir(f) or not os.path.exists(f):
            continue
        pkg = owner(f)
        rel = os.path.relpath(f, '/usr/share/qemu')
        # the ROMs are links into ipxe-qemu's /usr/lib/ipxe/qemu
        if 'ipxe-qemu' in (pkg, owner(os.path.realpath(f))):
            dropped += 1
            continue
        if pkg in installed_by_deps or pkg in bare_system:
            (allowed / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(os.path.realpath(f), allowed / rel)
            kept += 1
        else:
            dropped += 1
    assert kept, 'no QEMU data files from install-deps packages'
    # In a chroot, such as .ci/fresh-debian's, "/" is no mount point and
    # unshare cannot make the new mounts private; there the boots of the
    # suite, with only install-deps' packages, are the proof.
    ps = subprocess.run(['unshare', '-m', 'true'], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
    if ps.returncode:
        pytest.skip('unshare -m: %s' % ps.stdout.strip())

    # QEMU also looks in /usr/lib/ipxe/qemu, where lava-dispatcher's
    # qemu-system-x86 brings ipxe-qemu: an empty folder hides it
    empty = tmp_path / 'empty'
    empty.mkdir()
    wrapper = tmp_path / 'qemu'
    wrapper.write_text(
        '#!/bin/sh\nexec unshare -m sh -c \'mount --bind "$0" /usr/share/qemu'
        ' && { [ ! -d /usr/lib/ipxe/qemu ] || mount --bind "$1" '
        '/usr/lib/ipxe/qemu; } && shift && exec qemu-system-arm "$@"\' '
        '%s %s "$@"\n' % (allowed, empty))
    wrapper.chmod(0o755)
    kernel = tmp_path / 'zImage'
    kernel.write_bytes(bytes(4096))
    initrd = tmp_path / 'initrd'
    initrd.write_bytes(bytes(512))
    ps = subprocess.run([sys.executable, str(BOOT), '--qemu', str(wrapper),
                         '--kernel', str(kernel), '--initrd', str(initrd),
                         '--timeout', '3', '--log', str(tmp_path / 'log')],
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        text=True)
    assert 'romfile' not in ps.stdout, ps.stdout
    assert ps.returncode == 1 and 'timeout' in ps.stdout, ps.stdout

    # and the same QEMU without -nic none does need that ROM: the check
    # above can fail
    ps = subprocess.run([str(wrapper), '-M', 'virt', '-nographic',
                         '-monitor', 'none', '-kernel', str(kernel)],
                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True, timeout=30)
    assert ps.returncode != 0 and 'romfile' in ps.stdout, ps.stdout
