# SPDX-License-Identifier: GPL-2.0
"""The unit tests: the pure code of tools/kbuildgate (and kmake against a
fake make), tested without a kernel tree, a compiler or make.  They run
in seconds: make -f Kbuild.mk unit."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / 'tools'))
