# SPDX-License-Identifier: GPL-2.0
"""util - what every stage shares: the project's folders, atomic writes, logs,
and the stamps that let a step skip work whose inputs did not change.

It runs nothing and knows no stage.
"""

import argparse
import hashlib
import json
import os

# The project folder: tools/kbuildgate/ is two levels below it
TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# The trees of KERNEL_VERSION (tools/kernel-tree): 6.1's in build/, 6.12's
# and 7.2's in build/6.12/ and build/7.2/, each with pristine/, patched/,
# git/ and out/
KERNEL_VERSION = os.environ.get('KERNEL_VERSION', '6.1')
BUILD = os.environ.get('BUILD', os.path.join(TOP, 'build'))
TREES = BUILD if KERNEL_VERSION == '6.1' else \
    os.path.join(BUILD, KERNEL_VERSION)
# The sparse of the board builds: bookworm's /usr/bin/sparse, except for
# 7.2, whose __typeof_unqual__ it cannot parse: sid's, which
# tools/install-deps builds from its source package
SPARSE = os.path.join(BUILD, 'apt-sid', 'sparse', 'sparse') \
    if KERNEL_VERSION == '7.2' else None
# The tools' --version: bumped when what they print or exit with changes
# (2: conf's own lines and one summary line, a reason for every FAIL)
VERSION = '2'
# Bump when what a stamp stands for changes
STAMP_VERSION = 2


def tool_parser(prog, doc):
    """The argparse parser of the tool @prog whose module docstring is
    @doc: its first line the description, the rest the epilog, and
    --version."""
    ap = argparse.ArgumentParser(
        prog=prog, description=doc.splitlines()[0],
        epilog='\n'.join(doc.splitlines()[2:]),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--version', action='version',
                    version='%(prog)s ' + VERSION)
    return ap


def add_options(ap, options):
    """Add @options, [(flags, keyword arguments)], to the parser @ap."""
    for flags, kw in options:
        ap.add_argument(*flags, **kw)


def log_tail(path, n=10):
    """The last @n lines of the file @path ('' when it cannot be
    read)."""
    try:
        with open(path, errors='replace') as f:
            return '\n'.join(f.read().splitlines()[-n:])
    except OSError:
        return ''


def sha256_file(path):
    """The SHA-256 of the file @path, in hex."""
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()


def write_atomic(path, text):
    """Replace @path with @text, creating its folder; the old file stays
    whole if anything fails."""
    tmp = '%s.tmp.%d' % (path, os.getpid())
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(tmp, 'w') as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def key_of(*parts):
    """The SHA-256, in hex, of @parts as sorted JSON: a stamp's key
    of what the parts say."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True)
                          .encode()).hexdigest()


def read_stamp(path):
    """The stamp (JSON) at @path as a dict, {} when there is none
    or it cannot be read."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}
