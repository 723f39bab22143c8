# SPDX-License-Identifier: GPL-2.0
"""What the tools share: the cross compilers, board descriptions, and the
"# arch:" line of a fragment."""

import re

# CROSS_COMPILE of each architecture that is not the host's
CROSS_COMPILE = {'arm': 'arm-linux-gnueabi-'}


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
