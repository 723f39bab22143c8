# SPDX-License-Identifier: GPL-2.0
"""The patch series: complete, well formed, checkpatch-clean, applies
without fuzz (patch -p1 and git am), and every prefix builds and passes
the kconfig unit tests."""

import os
import queue
import re
import shutil
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import (GIT, KERNEL_VERSION, PRISTINE, SERIES_DIR,
                      STOCK_TESTS, kmake)

pytestmark = pytest.mark.usefixtures('trees')

PYTEST_PASSED_RE = re.compile(r'(\d+) passed')


def series():
    names = []
    for line in (SERIES_DIR / 'series').read_text().splitlines():
        line = line.split('#')[0].strip()
        if line:
            names.append(line.split()[0])
    return names


def header(patch, field):
    m = re.search(r'^%s: (.*(?:\n [^\n]*)*)' % field, patch.read_text(),
                  re.MULTILINE)
    return re.sub(r'\s+', ' ', m.group(1)) if m else None


COVER = SERIES_DIR / '0000-cover-letter.patch'


def test_series_lists_every_patch():
    assert series() == sorted(p.name for p in SERIES_DIR.glob('*.patch')
                              if p != COVER)
    assert len(series()) >= 4


@pytest.mark.skipif(KERNEL_VERSION != '7.2',
                    reason='the cover letter goes with the primary series')
def test_cover_letter():
    """The primary series goes out with a cover letter as git
    format-patch --cover-letter writes it, filled in: the subject, the
    problem, the parts, the recipients that get_maintainer.pl gives for
    the kconfig patches, the shortlog of every patch and the diffstat."""
    text = COVER.read_text()
    assert '*** SUBJECT HERE ***' not in text
    assert '*** BLURB HERE ***' not in text
    assert re.search(r'^Subject: \[PATCH 00/%d\] kconfig: ' % len(series()),
                     text, re.M)
    for who in ('linux-kbuild@vger.kernel.org', 'nathan@kernel.org',
                'nsc@kernel.org'):
        assert who in text
    # the shortlog names every patch, the core first
    subjects = [re.sub(r'^\[PATCH[^]]*\] ', '', header(SERIES_DIR / n,
                                                      'Subject'))
                for n in series()]
    shortlog = re.sub(r'\s+', ' ', text.split('):\n', 1)[1])
    pos = [shortlog.find(s) for s in subjects]
    assert -1 not in pos and pos == sorted(pos)
    assert re.search(r'^ \d+ files changed, \d+ insertions\(\+\)', text,
                     re.M)


@pytest.mark.parametrize('name', series())
def test_patch_form(name):
    patch = SERIES_DIR / name
    text = patch.read_text()
    subject = header(patch, 'Subject')
    assert re.match(r'\[PATCH( \d+/\d+)?\] [A-Za-z0-9/_.-]+(: [A-Za-z0-9/_.-]+)*: \S',
                    subject), subject
    author = header(patch, 'From')
    assert re.search(r'<[^@\s]+@[^>\s]+>', author)
    assert re.search(r'^Signed-off-by: %s$' % re.escape(author), text,
                     re.MULTILINE)
    message = text.split('\n\n', 1)[1].split('\n---\n')[0]
    assert len([l for l in message.splitlines() if l.strip()]) >= 4
    # trailers end the message: no rebase leftovers such as "# Conflicts:"
    assert message.rstrip().splitlines()[-1].startswith('Signed-off-by: ')
    assert not re.search(r'^#', message, re.MULTILINE), message


PRIMARY = SERIES_DIR.parent / '7.2'
BACKPORT_RE = re.compile(r'^\[ backport of 7\.2 series patch(?:es)? '
                         r'(\d{4})(?:-(\d{4}))?[;\s\]]', re.M)


@pytest.mark.skipif(KERNEL_VERSION == '7.2', reason='7.2 is the primary')
@pytest.mark.parametrize('name', series())
def test_backport_names_its_primary(name):
    """7.2's series is the primary one: each patch of a backport series
    names the 7.2 patch (or patches, when it squashes them) that it comes
    from, whose subject is its own (or the first's), or says why this tree
    alone needs it."""
    text = (SERIES_DIR / name).read_text()
    message = text.split('\n---\n')[0]
    only = re.search(r'^\[ %s only: \S' % re.escape(KERNEL_VERSION), message,
                     re.M)
    m = BACKPORT_RE.search(message)
    assert bool(m) != bool(only), message
    if m:
        primary = {p[:4]: p for p in (PRIMARY / 'series').read_text().split()}
        first = primary[m.group(1)]
        assert not m.group(2) or m.group(2) in primary
        sub = header(SERIES_DIR / name, 'Subject')
        assert re.sub(r'^\[PATCH[^]]*\] ', '', sub) == re.sub(
            r'^\[PATCH[^]]*\] ', '', header(PRIMARY / first, 'Subject')) \
            or m.group(2)


def checkpatch(name):
    # checkpatch runs spdxcheck.py with python3 from PATH: use Debian's
    env = dict(os.environ, PATH='/usr/bin:' + os.environ['PATH'])
    return subprocess.run(['perl', 'scripts/checkpatch.pl', '--strict',
                           str(SERIES_DIR / name)], cwd=PRISTINE, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)


@pytest.fixture(scope='module')
def checkpatch_runs(request):
    """checkpatch on the patches whose tests this session runs, two at a
    time: 5 to 9 s each, over 40 patches per tree."""
    names = [item.callspec.params['name'] for item in request.session.items
             if item.originalname == 'test_checkpatch_strict']
    with ThreadPoolExecutor(2) as pool:
        return dict(zip(names, pool.map(checkpatch, names)))


@pytest.mark.parametrize('name', series() + ([COVER.name] if COVER.exists()
                                             else []))
def test_checkpatch_strict(name, checkpatch_runs):
    ps = checkpatch_runs[name]
    assert ps.returncode == 0, ps.stdout
    assert 'total: 0 errors, 0 warnings, 0 checks' in ps.stdout, ps.stdout


def test_applies_with_patch_without_fuzz(tmp_path):
    """Apply the series with patch -p1 --fuzz=0 to a copy of the files it
    touches, and refuse offsets too."""
    touched = set()
    for name in series():
        for m in re.finditer(r'^--- a/(\S+)', (SERIES_DIR / name).read_text(),
                             re.MULTILINE):
            touched.add(m.group(1))
    for f in touched:
        if not (PRISTINE / f).exists():
            continue        # made by an earlier patch of the series
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PRISTINE / f, tmp_path / f)
    for name in series():
        ps = subprocess.run(['patch', '-p1', '--fuzz=0', '-f',
                             '--no-backup-if-mismatch', '-i',
                             str(SERIES_DIR / name)], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
        assert ps.returncode == 0, ps.stdout
        assert 'offset' not in ps.stdout and 'fuzz' not in ps.stdout, \
            ps.stdout


def git(*args, tree=GIT):
    return subprocess.run(['git', '-C', str(tree)] + list(args), check=True,
                          stdout=subprocess.PIPE, text=True).stdout


def test_git_am():
    """build/git is the tarball with the series applied by git am."""
    subjects = git('log', '--reverse', '--format=%s', 'HEAD~%d..HEAD'
                   % len(series())).splitlines()
    expected = [re.sub(r'^\[PATCH[^]]*\] ', '', header(SERIES_DIR / n, 'Subject'))
                for n in series()]
    assert subjects == expected


# What make testconfig reads: the top-level files (the Makefile), the
# arch's Makefile and scripts/ (conf and its tests).  The second tree of
# the test below checks out only these, as a cone-mode sparse checkout set
# on each git command (git sparse-checkout would turn on
# extensions.worktreeConfig in build/git's config): 20 MB in half a second
# instead of 1.5 GB in 25 s (add and remove).  A file that testconfig needs,
# left out, fails the prefixes run there; it cannot make one pass.
TESTCONFIG_SPARSE = '/*\n!/*/\n/arch/\n!/arch/*/\n/arch/x86/\n/scripts/\n'
SPARSE = ('-c', 'core.sparseCheckout=true',
          '-c', 'core.sparseCheckoutCone=true')


@pytest.mark.slow
def test_every_prefix_builds_and_passes_testconfig(tmp_path):
    """Bisectable: at each commit of the series that changes kconfig,
    conf builds and the kconfig unit tests (stock ones and those added so
    far) pass.  Commits that touch nothing under scripts/ cannot change
    that; the boards build the kernel at the end of the series.

    Two prefixes run at a time (CI has 2 cores), each in a tree of its
    own: build/git and a worktree of it in tmp_path; each tree takes the
    next commit in series order when it is free, and after a failure no
    later one starts."""
    commits = git('rev-list', '--reverse', 'HEAD~%d..HEAD'
                  % len(series())).split()
    prefixes = [(i, c) for i, c in enumerate(commits)
                if any(f.startswith('scripts/') for f in
                       git('diff-tree', '--no-commit-id', '--name-only',
                           '-r', c).split())]
    branch = git('rev-parse', '--abbrev-ref', 'HEAD').strip()
    second = tmp_path / 'worktree'
    free = queue.Queue()        # (tree, git options for its checkouts)
    failed = threading.Event()

    def testconfig(prefix):
        i, c = prefix
        # tasks start in series order: those before a failure have all
        # started, and run to their end
        if failed.is_set():
            return None
        tree, opts = free.get()
        try:
            git(*opts, 'checkout', '-q', '--detach', c, tree=tree)
            ps = kmake(tree, tmp_path / str(i), 'testconfig',
                       'PYTHON3=/usr/bin/python3')
            # stock's tests/conftest.py writes conf's input after conf may
            # have exited: a race that the 6.x series fixes in a patch of
            # its own, which the prefixes before it still have, and two
            # at a time make likelier.  Run such a prefix once more.
            if ps.returncode != 0 and 'BrokenPipeError' in ps.stdout:
                ps = kmake(tree, tmp_path / str(i), 'testconfig',
                           'PYTHON3=/usr/bin/python3')
        finally:
            free.put((tree, opts))
        if ps.returncode != 0 or ' failed' in ps.stdout:
            failed.set()
        return ps

    try:
        git('worktree', 'add', '-q', '--no-checkout', '--detach',
            str(second), 'HEAD')
        info = Path(git('rev-parse', '--absolute-git-dir',
                        tree=second).strip()) / 'info'
        info.mkdir(exist_ok=True)
        (info / 'sparse-checkout').write_text(TESTCONFIG_SPARSE)
        free.put((GIT, ()))
        free.put((second, SPARSE))
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(testconfig, prefixes))
    finally:
        git('checkout', '-q', branch)
        shutil.rmtree(second, ignore_errors=True)
        git('worktree', 'prune')
    print('testconfig at %d commits of %d: patches %s' % (
        len(prefixes), len(commits),
        ' '.join(str(i + 1) for i, _ in prefixes)))
    passed = []
    for (i, c), ps in zip(prefixes, results):
        assert ps is not None, 'patch %d: not run' % (i + 1)
        assert ps.returncode == 0, 'patch %d: %s' % (i + 1, ps.stdout)
        assert ' failed' not in ps.stdout
        passed.append(int(PYTEST_PASSED_RE.search(ps.stdout).group(1)))
    assert len(passed) == len(prefixes)
    # the stock tests (17 in 6.1); the series only adds to them
    assert passed[0] >= STOCK_TESTS and passed[-1] > STOCK_TESTS and \
        passed == sorted(passed)
