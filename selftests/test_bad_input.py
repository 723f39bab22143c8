# SPDX-License-Identifier: GPL-2.0
"""Bad input, row by row, on the real tree (x86).

The project's rule: bad input (syntax errors, missing files, unwritable
paths) gets one clear message, with file:line where there is a line, and
a non-zero exit, never a crash; and what exists (.config, include/config/,
include/generated/, the JSON report) is left byte-identical.

Input that is only suspicious (a select that does nothing, CRLF line
endings) gets one warning with file:line and the configuration is
written, as kconfig does with its other warnings; input that is merely
unusual (bytes that are not UTF-8, a 10,000-line fragment) just works.

Each row says what it expects and why.  The fragments are in bad-input/,
or made here when they are binary or big.  The existing configuration of
every row comes from bad-input/good.Kconfig: allnoconfig and syncconfig
with a report, then .config edited by hand, so that any rewrite shows.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import KERNEL_VERSION, PATCHED, PRISTINE, snapshot
from kbuildgate import kmake as _kmake

pytestmark = pytest.mark.usefixtures('trees')

HERE = Path(__file__).resolve().parent
BAD = HERE / 'bad-input'
GOOD = BAD / 'good.Kconfig'

# what a crash looks like in make's output, or a sanitizer's
CRASH = ('Segmentation fault', 'core dumped', 'Aborted', 'Bus error',
         'Killed', 'Sanitizer', 'runtime error:', 'Floating point')
# lines that follow an error of conf, and say what it means
TRAILERS = ('*** KCONFIG_WERROR is set: the configuration was not written.',
            '*** The report could not be written: the configuration was '
            'not written.',
            '*** Error during writing of the configuration.')


def kmake(tree, out, *targets, env=None):
    """conftest.kmake() on x86, for output that need not be UTF-8 (the
    bytes that are not are kept as surrogates) and may have carriage
    returns."""
    ps = _kmake.make(tree, out, 'x86', *targets, jobs=1, text=False,
                     env=_kmake.environment(extra=env))
    # not text=True, which would turn a carriage return into a new line
    ps.stdout = ps.stdout.decode('utf-8', 'surrogateescape')
    return ps


def state(out):
    """What exists: snapshot() and the report."""
    files = snapshot(out)
    report = out / 'report.json'
    if report.exists():
        files['report.json'] = hashlib.sha256(report.read_bytes()).hexdigest()
    return files


@pytest.fixture(scope='module')
def base(tmp_path_factory):
    out = tmp_path_factory.mktemp('base') / 'out'
    env = {'KBUILD_KCONFIG': str(GOOD),
           'KCONFIG_UNMET_REPORT': str(out / 'report.json')}
    for target in ('allnoconfig', 'syncconfig'):
        ps = kmake(PATCHED, out, target, env=env)
        assert ps.returncode == 0, ps.stdout
    with open(out / '.config', 'a') as f:
        f.write('# edited by hand\n')
    json.loads((out / 'report.json').read_text())
    return out


@pytest.fixture
def out(base, tmp_path):
    """A copy of the existing configuration."""
    subprocess.run(['cp', '-a', str(base), str(tmp_path / 'out')], check=True)
    return tmp_path / 'out'


def run(out, fragment, target='allnoconfig', env=None, tree=PATCHED):
    e = {'KBUILD_KCONFIG': str(fragment),
         'KCONFIG_UNMET_REPORT': str(out / 'report.json')}
    e.update(env or {})
    return kmake(tree, out, target, env=e)


def messages(ps):
    """conf's lines: make's own are left out.  Only \n ends a line."""
    return [line for line in ps.stdout.split('\n')
            if line and not line.startswith('make')]


def no_crash(ps):
    for c in CRASH:
        assert c not in ps.stdout, ps.stdout
    # conf exited with 1, and was not killed by a signal
    for m in re.finditer(r'^make\[\d+\]: \*\*\* \[\S*scripts/kconfig/'
                         r'Makefile:\d+: \w+\] (.*)$', ps.stdout, re.M):
        assert m.group(1) == 'Error 1', ps.stdout


def assert_error(ps, out, before, message):
    """One message (@message: a line, or the list of lines of one
    message), a non-zero exit, no crash, nothing touched."""
    no_crash(ps)
    assert ps.returncode != 0, ps.stdout
    lines = [m for m in messages(ps) if m not in TRAILERS]
    want = message if isinstance(message, list) else [message]
    assert lines == want, ps.stdout
    assert state(out) == before


def assert_warning(ps, out, message):
    """One warning, exit 0, the configuration written."""
    no_crash(ps)
    assert ps.returncode == 0, ps.stdout
    assert messages(ps) == [message], ps.stdout
    assert '# edited by hand' not in (out / '.config').read_text()
    json.loads((out / 'report.json').read_text())


# --- bad Kconfig files ---------------------------------------------------

def test_syntax_error(out):
    """A "select" without a symbol, at line 9.  Stock and the series
    printed it twice, first at the wrong line (10: "syntax error", then
    9: "invalid statement"); once, at line 9."""
    f = BAD / 'syntax-error.Kconfig'
    before = state(out)
    ps = run(out, f)
    assert_error(ps, out, before, '%s:9: syntax error: invalid statement' % f)


def test_missing_source(out):
    """Stock kconfig already says it well: where the source is, and what."""
    f = BAD / 'missing-source.Kconfig'
    before = state(out)
    ps = run(out, f)
    assert_error(ps, out, before,
                 '%s:9: can\'t open file "boards/does-not-exist.Kconfig"' % f)


def test_recursive_source(out):
    """Stock kconfig already says it well: one message, with the
    inclusion path, file:line for each step."""
    f = BAD / 'recursive-source.Kconfig'
    before = state(out)
    ps = run(out, f)
    assert_error(ps, out, before, [
        'Recursive inclusion detected.', 'Inclusion path:',
        '  current file : %s' % f, '  included from: %s:9' % f])


UNDEFINED = "'USB_SUPORT' is not defined by any Kconfig file: the select " \
    "does nothing"


@pytest.mark.parametrize('name,message', [
    ('select-undefined', ': warning: ' + UNDEFINED),
    ('select-int', ":warning: 'NR_CPUS' has wrong type. 'select' only accept "
     "arguments of bool and tristate type"),
    ('select-string', ":warning: 'DEFAULT_HOSTNAME' has wrong type. 'select' "
     "only accept arguments of bool and tristate type"),
], ids=['undefined', 'int', 'string'])
def test_select_that_does_nothing(out, name, message):
    """A select of a symbol that no Kconfig file defines (a typo), or of an
    int or string symbol, does nothing.  kconfig warns about the wrong type
    and goes on, and the tree itself selects symbols that only other
    architectures define (81 on x86, 68 on ARM), so these are warnings,
    with file:line, not errors.  Stock said nothing about the undefined
    symbol; a fragment's selects of undefined symbols are warned about
    now (the tree's are not), in the form of the unmet selects, with a
    space after the colon (the wrong-type warning keeps stock's form)."""
    f = BAD / (name + '.Kconfig')
    ps = run(out, f)
    assert_warning(ps, out, '%s:8%s' % (f, message))
    config = (out / '.config').read_text()
    assert 'USB_SUPORT' not in config
    assert 'CONFIG_NR_CPUS=1\n' in config


def test_select_undefined_fails_werror(out):
    """A fragment's select of an undefined symbol is a mistake of the
    fragment: under KCONFIG_WERROR it fails like an unmet select, and
    nothing is written.  Stock and the series before said nothing, or
    warned, and wrote the configuration without what the board asked for."""
    f = BAD / 'select-undefined.Kconfig'
    before = state(out)
    ps = run(out, f, env={'KCONFIG_WERROR': '1'})
    assert_error(ps, out, before, '%s:8: warning: %s' % (f, UNDEFINED))
    assert TRAILERS[0] in ps.stdout


# a SoC option that the tree under test does not define: 6.12 removed the
# 32-bit MSM SoC options that 6.1's boards selected (on 6.1: a typo)
GONE_SOC = {'6.1': 'ARCH_MSM8X61', '6.12': 'ARCH_MSM8960',
            '7.2': 'ARCH_MSM8960'}[KERNEL_VERSION]


def test_select_undefined_in_sourced_file(out, tmp_path):
    """A board that sources its own SoC file, written for an older tree,
    before the tree's Kconfig: the SoC file's select of an option that the
    tree no longer defines is warned about at its own file:line, since it
    is the fragment's too (every file that the board sources without
    passing through the tree's Kconfig); the tree's own selects of
    undefined symbols, which x86 has, are still not."""
    soc = tmp_path / 'Kconfig.soc'
    soc.write_text('config OLD_SOC\n\tbool\n\tdefault y\n\tselect %s\n'
                   % GONE_SOC)
    board = tmp_path / 'Kconfig.board'
    board.write_text('source "%s"\n\nsource "Kconfig"\n' % soc)
    ps = run(out, board)
    assert_warning(ps, out, "%s:4: warning: '%s' is not defined by any "
                   "Kconfig file: the select does nothing" % (soc, GONE_SOC))
    assert 'CONFIG_OLD_SOC=y\n' in (out / '.config').read_text()


def test_symbol_name_of_4k(out, tmp_path):
    """A symbol whose name is 4 KiB long.  Stock and the series took it in
    every mode, and then syncconfig failed on include/config/<name>, with
    "Error during sync of the configuration" and no reason; now the
    definition is an error, where it is."""
    name = 'B' * 4096
    f = tmp_path / 'long.Kconfig'
    f.write_text('config BAD_BOARD\n\tbool\n\tdefault y\n\tselect %s\n\n'
                 'config %s\n\tbool "b"\n\nsource "Kconfig"\n' % (name, name))
    before = state(out)
    ps = run(out, f)
    assert_error(ps, out, before,
                 '%s:6: the name of symbol %s... is too long: 4096 '
                 'characters, at most 255' % (f, name[:32]))


# --- unusual but valid input ---------------------------------------------

def test_crlf(out, tmp_path):
    """CRLF line endings: the carriage returns are ignored, as in stock,
    which warned on every line (printing the carriage return itself);
    one warning now, and the same .config as with LF."""
    lf = GOOD.read_text()
    f = tmp_path / 'crlf.Kconfig'
    f.write_bytes(lf.replace('\n', '\r\n').encode())
    ps = run(out, f)
    first = [i for i, line in enumerate(lf.splitlines(), 1)
             if not line.startswith('#')][0]
    assert_warning(ps, out, '%s:%d:warning: ignoring the carriage returns '
                   'of CRLF line endings' % (f, first))
    lf_out = tmp_path / 'lf'
    shutil.copy(GOOD, tmp_path / 'lf.Kconfig')
    assert run(lf_out, tmp_path / 'lf.Kconfig').returncode == 0
    assert (out / '.config').read_bytes() == (lf_out / '.config').read_bytes()


def test_not_utf8(out, tmp_path):
    """Kconfig files are bytes: Latin-1 in a comment, a prompt, help and a
    string works, as in stock, and goes to .config as it is.  The JSON
    report must stay valid JSON (UTF-8): the select's condition, which
    has the Latin-1 string, was written as it was, and json.loads()
    failed; the byte is U+FFFD now."""
    f = tmp_path / 'latin1.Kconfig'
    f.write_bytes(b'comment "caf\xe9"\n\nconfig BAD_BOARD\n\tbool\n'
                  b'\tdefault y\n\tselect USB if DEFAULT_HOSTNAME != '
                  b'"caf\xe9"\n\nconfig CAFE\n\tbool "caf\xe9 \xff\xfe"\n'
                  b'\thelp\n\t  Caf\xe9.\n\nsource "Kconfig"\n')
    ps = run(out, f)
    no_crash(ps)
    assert ps.returncode == 0, ps.stdout
    assert ('%s:6: warning: BAD_BOARD [=y] selects USB if DEFAULT_HOSTNAME '
            % f) in ps.stdout
    assert b'\n# caf\xe9\n' in (out / '.config').read_bytes()
    report = json.loads((out / 'report.json').read_bytes())
    [usb] = report['unmet']
    assert usb['selected_by'][0]['if'] == 'DEFAULT_HOSTNAME!=caf\ufffd'


def test_10000_lines(out, tmp_path):
    """A 10,000-line fragment is no problem: every symbol is configured,
    and the one unmet select, at its end, is warned about at its line."""
    f = tmp_path / 'big.Kconfig'
    text = ''.join('config BIG_%04d\n\tbool\n\tdefault y\n\n' % i
                   for i in range(2500))
    text += 'config BIG_BOARD\n\tbool\n\tdefault y\n\tselect USB\n\n' \
            'source "Kconfig"\n'
    f.write_text(text)
    assert len(text.splitlines()) > 10000
    ps = run(out, f)
    no_crash(ps)
    assert ps.returncode == 0, ps.stdout
    warnings = [m for m in messages(ps) if 'warning:' in m]
    assert warnings == ['%s:10004: warning: BIG_BOARD [=y] selects USB, whose '
                        'direct dependencies are unmet' % f]
    config = (out / '.config').read_text()
    assert len(re.findall(r'^CONFIG_BIG_\d{4}=y$', config, re.M)) == 2500


# --- missing and unwritable paths ----------------------------------------

def test_allconfig_missing(out, tmp_path):
    """KCONFIG_ALLCONFIG names a file that does not exist: stock kconfig
    already names it and fails; no line exists."""
    missing = tmp_path / 'missing.config'
    before = state(out)
    ps = run(out, GOOD, env={'KCONFIG_ALLCONFIG': str(missing)})
    assert_error(ps, out, before,
                 '*** Can\'t read seed configuration "%s"!' % missing)


def report_error(out, path, reason):
    before = state(out)
    ps = run(out, GOOD, env={'KCONFIG_UNMET_REPORT': path})
    assert_error(ps, out, before,
                 '%s: cannot write the report: %s' % (path, reason))


def test_report_missing_folder(out, tmp_path):
    report_error(out, str(tmp_path / 'missing' / 'report.json'),
                 'No such file or directory')


def test_report_dev_full(out):
    """A device is written to directly, and /dev/full fails the write."""
    report_error(out, '/dev/full', 'No space left on device')


def mount(*args):
    ps = subprocess.run(['mount'] + list(args), stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
    if ps.returncode:
        pytest.skip('cannot mount (%s): %s' % (' '.join(args),
                                                ps.stdout.strip()))


@pytest.fixture
def read_only(tmp_path):
    """A folder with a report in it, bind-mounted read-only."""
    rw, ro = tmp_path / 'rw', tmp_path / 'ro'
    rw.mkdir()
    ro.mkdir()
    (rw / 'report.json').write_text('{"version": 1, "mine": true}\n')
    mount('--bind', str(rw), str(ro))
    try:
        mount('-o', 'remount,bind,ro', str(ro))
        yield ro
    finally:
        subprocess.run(['umount', str(ro)], check=True)


def test_report_read_only(out, read_only):
    """On a read-only file system: an error, and the existing report
    there is left as it is."""
    report = read_only / 'report.json'
    mine = report.read_bytes()
    report_error(out, str(report), 'Read-only file system')
    assert report.read_bytes() == mine


@pytest.fixture
def full_fs(tmp_path):
    """A small tmpfs, for .config, filled up once something is in it."""
    d = tmp_path / 'full'
    d.mkdir()
    mount('-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', str(d))
    try:
        yield d
    finally:
        subprocess.run(['umount', str(d)], check=True)


def fill(d):
    fd = os.open(d / 'filler', os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        while os.write(fd, b'\0' * 4096):
            pass
    except OSError:
        pass
    try:
        while os.write(fd, b'\0'):
            pass
    except OSError:
        pass
    os.close(fd)


def test_config_on_full_fs(out, full_fs):
    """KCONFIG_CONFIG on a full file system.  Stock conf_write() did not
    check its writes: the truncated temporary file replaced the complete
    .config, and conf exited 0.  Now: the file and the reason, a
    non-zero exit, and the complete .config stays."""
    config = full_fs / '.config'
    shutil.copy(out / '.config', config)
    fill(full_fs)
    mine = config.read_bytes()
    before = state(out)
    ps = run(out, GOOD, 'olddefconfig',
             env={'KCONFIG_CONFIG': str(config), 'KCONFIG_UNMET_REPORT': ''})
    no_crash(ps)
    assert ps.returncode != 0, ps.stdout
    lines = [m for m in messages(ps) if m not in TRAILERS]
    assert len(lines) == 1 and re.fullmatch(
        r'%s\.\d+\.tmp: cannot write the configuration: No space left on '
        r'device' % re.escape(str(config)), lines[0]), ps.stdout
    assert config.read_bytes() == mine
    assert state(out) == before
    assert sorted(p.name for p in full_fs.iterdir()) == ['.config', 'filler']


# --- the baseline: stock kconfig on the same input -----------------------
#
# Stock cannot parse a fragment that sources "Kconfig" (the mainmenu is a
# syntax error there), so these fragments stand alone.

@pytest.mark.stock
def test_stock_syntax_error_twice(tmp_path):
    """Stock prints a syntax error twice: bison's, then the rule's (6.1
    gives bison's the line after, 6.12 the line itself)."""
    f = tmp_path / 'syntax.Kconfig'
    f.write_text('config BAD_BOARD\n\tbool\n\tdefault y\n\tselect\n')
    ps = run(tmp_path / 'out', f, tree=PRISTINE)
    assert ps.returncode != 0
    bison_line = 5 if KERNEL_VERSION == '6.1' else 4
    assert messages(ps) == ['%s:%d: syntax error' % (f, bison_line),
                            '%s:4: invalid statement' % f]


@pytest.mark.stock
def test_stock_crlf_every_line(tmp_path):
    f = tmp_path / 'crlf.Kconfig'
    f.write_bytes(b'config A\r\n\tbool "a"\r\n\tdefault y\r\n')
    ps = run(tmp_path / 'out', f, tree=PRISTINE)
    assert ps.returncode == 0
    assert messages(ps) == ["%s:%d:warning: ignoring unsupported character "
                            "'\r'" % (f, i) for i in (1, 2, 3)]


@pytest.mark.stock
def test_stock_symbol_name_of_4k(tmp_path):
    f = tmp_path / 'long.Kconfig'
    f.write_text('config %s\n\tbool "b"\n\tdefault y\n' % ('B' * 4096))
    out = tmp_path / 'out'
    assert run(out, f, 'alldefconfig', tree=PRISTINE).returncode == 0
    ps = run(out, f, 'syncconfig', tree=PRISTINE)
    assert ps.returncode != 0
    assert messages(ps) == ['*** Error during sync of the configuration.']


@pytest.mark.stock
def test_stock_config_on_full_fs(tmp_path, full_fs):
    f = tmp_path / 'a.Kconfig'
    f.write_text(''.join('config A%d\n\tbool "a"\n\tdefault y\n' % i
                         for i in range(2000)))
    config = full_fs / '.config'
    out = tmp_path / 'out'
    env = {'KCONFIG_CONFIG': str(config)}
    assert run(out, f, 'alldefconfig', env=env,
               tree=PRISTINE).returncode == 0
    mine = config.read_bytes()
    fill(full_fs)
    ps = run(out, f, 'allnoconfig', env=env, tree=PRISTINE)
    assert ps.returncode == 0
    # truncated: shorter than either complete version (empty, here)
    assert len(config.read_bytes()) < len(mine)


# --- no crash under AddressSanitizer and UBSan ---------------------------

ASAN_ROWS = ['syntax-error', 'missing-source', 'recursive-source',
             'select-undefined', 'select-int', 'select-string', 'good']


@pytest.mark.slow
def test_sanitizers(tmp_path):
    """conf built with -fsanitize=address,undefined, on each fragment of
    bad-input/ and on the generated ones: no sanitizer report."""
    out = tmp_path / 'out'
    flags = ['HOSTCFLAGS=-fsanitize=address,undefined -g',
             'HOSTLDFLAGS=-fsanitize=address,undefined']
    env = {'ASAN_OPTIONS': 'detect_leaks=0',
           'UBSAN_OPTIONS': 'print_stacktrace=1'}
    long = tmp_path / 'long.Kconfig'
    long.write_text('config BAD_BOARD\n\tbool\n\tdefault y\n\tselect %s\n\n'
                    'config %s\n\tbool "b"\n\nsource "Kconfig"\n'
                    % ('A' * 4096, 'B' * 4096))
    latin1 = tmp_path / 'latin1.Kconfig'
    latin1.write_bytes(b'config BAD_BOARD\n\tbool\n\tdefault y\n\tselect '
                       b'USB if DEFAULT_HOSTNAME != "caf\xe9"\r\n\n'
                       b'source "Kconfig"\n')
    for f in [BAD / (r + '.Kconfig') for r in ASAN_ROWS] + [long, latin1]:
        ps = kmake(PATCHED, out, *flags, 'allnoconfig',
                   env=dict(env, KBUILD_KCONFIG=str(f),
                            KCONFIG_UNMET_REPORT=str(tmp_path / 'r.json')))
        for c in CRASH:
            assert c not in ps.stdout, (f, ps.stdout)
