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


# 7.2, the primary series, is one folder per topic series (a set of
# patches that goes to one set of maintainers), each with its own series
# file and cover letter; SERIES_DIR/series lists them all, in the order
# they apply, as links beside it named TOPIC-NNNN-....patch.  The 6.x
# backports are flat.
TOPICS = sorted(p.parent.name for p in SERIES_DIR.glob('*/series'))
COVERS = [SERIES_DIR / t / '0000-cover-letter.patch' for t in TOPICS]


def topic_series(topic):
    names = []
    for line in (SERIES_DIR / topic / 'series').read_text().splitlines():
        line = line.split('#')[0].strip()
        if line:
            names.append('%s/%s' % (topic, line.split()[0]))
    return names


def test_series_lists_every_patch():
    """The series lists every patch beside it once (a cover letter is
    not in it), and each topic's own series file lists the patches of
    its folder, in the order of the whole."""
    found = sorted(p.name for p in SERIES_DIR.glob('*.patch')
                   if not p.name.startswith('0000-'))
    assert sorted(series()) == found
    assert len(set(series())) == len(series()) >= 4
    whole = series()
    for topic in TOPICS:
        names = topic_series(topic)
        assert sorted(names) == sorted(
            '%s/%s' % (topic, p.name)
            for p in (SERIES_DIR / topic).glob('*.patch')
            if not p.name.startswith('0000-'))
        links = [n.replace('/', '-', 1) for n in names]
        assert links == [n for n in whole if n.startswith(topic + '-')]
        for name, link in zip(names, links):
            assert os.readlink(SERIES_DIR / link) == name
        # a topic's patches apply one after the other
        pos = [whole.index(n) for n in links]
        assert pos == list(range(pos[0], pos[0] + len(pos)))
        # numbered from 1 within the topic
        assert [n.split('/')[1][:4] for n in names] == \
            ['%04d' % i for i in range(1, len(names) + 1)]


@pytest.mark.skipif(KERNEL_VERSION != '7.2',
                    reason='the topic series are the primary series')
def test_topics():
    """7.2's series goes out as topic series: the kconfig core first,
    which applies alone to stock 7.2, then the RFC ones on top."""
    assert TOPICS and all((SERIES_DIR / t / 'series').exists()
                          for t in TOPICS)
    assert series()[0].startswith('kconfig-core-')
    assert all((SERIES_DIR / n).is_symlink() for n in series())


def added_removed(names):
    """Lines that @names add, and of them those that a later patch of
    @names removes again, file by file (blank lines aside)."""
    added, total, again = {}, 0, 0
    for name in names:
        path = None
        for line in (SERIES_DIR / name).read_text().split('\n'):
            if line.startswith('+++ '):
                path = line[6:]
            elif line.startswith('--- ') or path is None:
                continue
            elif line.startswith('+'):
                total += 1
                added.setdefault(path, []).append(line[1:])
            elif line.startswith('-') and line[1:].strip() and \
                    line[1:] in added.get(path, []):
                again += 1
                added[path].remove(line[1:])
    return total, again


@pytest.mark.skipif(KERNEL_VERSION != '7.2',
                    reason='the topic series are the primary series')
@pytest.mark.parametrize('topic', TOPICS)
def test_topic_folds_its_fixups(topic):
    """Each patch is in its final form: a later patch of a topic removes
    again at most 1% of the lines that the topic adds (tests' expected
    output included)."""
    total, again = added_removed(topic_series(topic))
    assert total and again <= total / 100, (topic, total, again)


@pytest.mark.skipif(KERNEL_VERSION != '7.2',
                    reason='the cover letters go with the primary series')
@pytest.mark.parametrize('topic', TOPICS)
def test_cover_letter(topic):
    """Each topic series goes out with a cover letter as git format-patch
    --cover-letter writes it, filled in: the subject, the text, the
    recipients that get_maintainer.pl gives for its patches, the shortlog
    of every patch and the diffstat."""
    text = (SERIES_DIR / topic / '0000-cover-letter.patch').read_text()
    names = topic_series(topic)
    assert '*** SUBJECT HERE ***' not in text
    assert '*** BLURB HERE ***' not in text
    assert re.search(r'^Subject: \[(RFC )?PATCH 0+/%d\] \S' % len(names),
                     text, re.M)
    assert re.search(r'^To: .*@', text, re.M)
    assert re.search(r'^Cc: .*@', text, re.M)
    if topic.startswith('kconfig'):
        for who in ('linux-kbuild@vger.kernel.org', 'nathan@kernel.org',
                    'nsc@kernel.org'):
            assert who in text
    # the shortlog names every patch in order
    subjects = [re.sub(r'^\[[^]]*PATCH[^]]*\] ', '',
                       header(SERIES_DIR / n, 'Subject')) for n in names]
    shortlog = re.sub(r'\s+', ' ', text.split('):\n', 1)[1])
    pos = [shortlog.find(s) for s in subjects]
    assert -1 not in pos and pos == sorted(pos)
    assert re.search(r'^ \d+ files? changed, \d+ insertions?\(\+\)', text,
                     re.M)
    # a few paragraphs, not a history of the series
    blurb = text.split('\n\n', 1)[1].split('):\n', 1)[0]
    assert len(blurb.split()) < 700


@pytest.mark.parametrize('name', series())
def test_patch_form(name):
    patch = SERIES_DIR / name
    text = patch.read_text()
    subject = header(patch, 'Subject')
    assert re.match(r'\[(RFC )?PATCH( \d+/\d+)?\] '
                    r'[A-Za-z0-9/_.-]+(: [A-Za-z0-9/_.-]+)*: \S',
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
# "[ backport of 7.2 kconfig-core/0002 ]", or of several patches:
# "[ backport of 7.2 kconfig-hints/0001-0003, kconfig-report/0002; ... ]"
PRIMARY_REF = r'[a-z0-9-]+/\d{4}(?:-\d{4})?'
BACKPORT_RE = re.compile(r'^\[ backport of 7\.2 (%s(?:, %s)*)[;\s\]]'
                         % (PRIMARY_REF, PRIMARY_REF), re.M)


@pytest.mark.skipif(KERNEL_VERSION == '7.2', reason='7.2 is the primary')
@pytest.mark.parametrize('name', series())
def test_backport_names_its_primary(name):
    """7.2's series is the primary one: each patch of a backport series
    names the 7.2 patch (or patches, when it squashes them) that it comes
    from, as TOPIC/NNNN, whose subject is its own (or the first's), or
    says why this tree alone needs it."""
    text = (SERIES_DIR / name).read_text()
    message = text.split('\n---\n')[0]
    only = re.search(r'^\[ %s only: \S' % re.escape(KERNEL_VERSION), message,
                     re.M)
    m = BACKPORT_RE.search(message)
    assert bool(m) != bool(only), message
    if not m:
        return
    primary = {}
    for ts in PRIMARY.glob('*/series'):
        for p in ts.read_text().split():
            if p.endswith('.patch'):
                primary['%s/%s' % (ts.parent.name, p[:4])] = \
                    '%s/%s' % (ts.parent.name, p)
    refs = m.group(1).split(', ')
    for ref in refs:
        topic, nums = ref.split('/')
        first, _, last = nums.partition('-')
        assert '%s/%s' % (topic, first) in primary, ref
        assert not last or '%s/%s' % (topic, last) in primary, ref
    topic, nums = refs[0].split('/')
    sub = header(SERIES_DIR / name, 'Subject')
    assert re.sub(r'^\[PATCH[^]]*\] ', '', sub) == re.sub(
        r'^\[[^]]*PATCH[^]]*\] ', '',
        header(PRIMARY / primary['%s/%s' % (topic, nums[:4])], 'Subject')) \
        or len(refs) > 1 or '-' in nums


def checkpatch(name):
    """checkpatch --strict on one patch, all of its checks but
    UNKNOWN_COMMIT_ID: the tree is a tarball without history, where no
    commit that a Fixes: tag names can be found (a maintainer's git tree
    has them)."""
    # checkpatch runs spdxcheck.py with python3 from PATH: use Debian's
    env = dict(os.environ, PATH='/usr/bin:' + os.environ['PATH'])
    return subprocess.run(['perl', 'scripts/checkpatch.pl', '--strict',
                           '--ignore', 'UNKNOWN_COMMIT_ID',
                           str(SERIES_DIR / name)], cwd=PRISTINE, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)


def test_new_files_maintained():
    """The series adds no MAINTAINERS entry of its own: a patch that adds
    files lists them with F: lines in the existing entry that covers them
    (KCONFIG for the kconfig files, ARM/QUALCOMM SUPPORT for the MSM board
    fragments), and touches MAINTAINERS in no other way; every new file
    falls under an entry with a maintainer, as get_maintainer.pl finds in
    the tree with the series."""
    new = set()
    for name in series():
        text = (SERIES_DIR / name).read_text()
        added = re.findall(r'^diff --git a/\S+ b/(\S+)\nnew file mode',
                           text, re.M)
        new.update(added)
        m = re.search(r'^\+\+\+ b/MAINTAINERS\n(.*?)(?=^diff |\Z)', text,
                      re.M | re.S)
        assert bool(m) == bool(added), name
        if m:
            changed = re.findall(r'^[-+].*', m.group(1), re.M)
            assert changed and all(re.match(r'\+F:\t\S+$', c)
                                   for c in changed), (name, changed)
    assert new
    # one file per folder: the entries' patterns are folders or globs
    for f in sorted({os.path.dirname(f): f for f in new}.values()):
        one = subprocess.run(['perl', 'scripts/get_maintainer.pl',
                              '--no-git', '--no-git-fallback', '-f', f],
                             cwd=GIT, stdout=subprocess.PIPE, text=True).stdout
        assert re.search(r'\((?:maintainer|odd fixer|supporter):'
                         r'(?!THE REST)', one), (f, one)


@pytest.fixture(scope='module')
def checkpatch_runs(request):
    """checkpatch on the patches whose tests this session runs, two at a
    time: 5 to 9 s each, over 40 patches per tree."""
    names = [item.callspec.params['name'] for item in request.session.items
             if item.originalname == 'test_checkpatch_strict']
    with ThreadPoolExecutor(2) as pool:
        return dict(zip(names, pool.map(checkpatch, names)))


@pytest.mark.parametrize('name', series() + [
    str(c.relative_to(SERIES_DIR)) for c in COVERS])
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
    expected = [re.sub(r'^\[[^]]*PATCH[^]]*\] ', '',
                       header(SERIES_DIR / n, 'Subject'))
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
