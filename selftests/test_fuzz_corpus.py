# SPDX-License-Identifier: GPL-2.0
"""The fuzz corpus of kconfig as a regression test.

tools/fuzz/build builds the libFuzzer harness (tools/fuzz/fuzz-kconfig.c:
reading of .config and KCONFIG_ALLCONFIG input, calculation, unmet-select
and dropped-request reports, JSON report, .config writing) from the
patched tree with clang -fsanitize=fuzzer,address,undefined, and each file
of tools/fuzz/corpus/ must run through it without a sanitizer report,
a leak, or a report that is not valid JSON.

The regress-* files are inputs that found bugs, fixed in the series:
inputs that are not UTF-8 (their unknown symbols' names reach the report:
"kconfig: write unmet selects and dropped requests as JSON" escapes them),
and inputs that assign an int, hex or string symbol twice (a leak: "kconfig:
do not leak the value of a string symbol assigned twice").
"""

import os
import shutil
import subprocess

import pytest

from conftest import PATCHED, TOP, TREES

pytestmark = pytest.mark.usefixtures('trees')

CORPUS = TOP / 'tools' / 'fuzz' / 'corpus'
OUT = TREES / 'out' / 'fuzz-ci'
# the one-time parse of the fixed tree: stock 6.12 leaks there
LSAN = 'suppressions=%s' % (TOP / 'tools' / 'fuzz' / 'lsan.supp')

@pytest.fixture(scope='module')
def harness():
    if not shutil.which('clang'):
        pytest.fail('clang not found: run tools/install-deps')
    ps = subprocess.run([str(TOP / 'tools' / 'fuzz' / 'build'),
                         '--srctree', str(PATCHED), '--out', str(OUT)],
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        text=True)
    assert ps.returncode == 0, ps.stdout
    return OUT / 'fuzz-kconfig'


def corpus_files():
    return sorted(p.name for p in CORPUS.iterdir() if p.is_file())


def test_corpus_is_small():
    files = corpus_files()
    assert 10 <= len(files) <= 200
    assert all((CORPUS / f).stat().st_size <= 4096 for f in files)


@pytest.mark.parametrize('name', corpus_files())
def test_corpus_file(harness, name, tmp_path):
    env = dict(os.environ, TMPDIR=str(tmp_path),
               ASAN_OPTIONS='detect_leaks=1', LSAN_OPTIONS=LSAN,
               UBSAN_OPTIONS='print_stacktrace=1')
    ps = subprocess.run([str(harness), '-runs=1', str(CORPUS / name)],
                        cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True, errors='replace',
                        timeout=120)
    assert ps.returncode == 0, ps.stdout[-6000:]
    assert 'Executed %s' % (CORPUS / name) in ps.stdout
    assert 'runtime error' not in ps.stdout
    # the harness removes its report and .config after each input
    assert not [p for p in tmp_path.iterdir() if p.name.startswith('fuzz-')]


def test_corpus_at_once(harness, tmp_path):
    """The whole corpus in one process, as libFuzzer loads it: state that
    one input leaves behind must not break the next."""
    ps = subprocess.run([str(harness), '-runs=0', str(CORPUS)],
                        cwd=tmp_path, env=dict(os.environ, LSAN_OPTIONS=LSAN,
                                               TMPDIR=str(tmp_path)),
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        text=True, errors='replace', timeout=300)
    assert ps.returncode == 0, ps.stdout[-6000:]
