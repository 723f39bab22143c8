# SPDX-License-Identifier: GPL-2.0
"""errors - the exceptions that mean exit status 2.

Every tool of tools/ exits 0 when it passes, 1 on findings and 2 on a
usage or infrastructure error.  The stages raise one of these two for
the last; each tool's main() catches UsageError (SetupError is one),
prints "TOOL: MESSAGE" on one line to stderr and returns STATUS.
"""

# The exit status of a usage or infrastructure error
STATUS = 2


class UsageError(Exception):
    """Exit status 2: bad arguments (an unknown architecture, target or
    file) or a tree the tools cannot use (not a kernel tree, no series).
    Its message is one line, without the tool's name."""


class SetupError(UsageError):
    """Exit status 2: the infrastructure failed (building conf or a C
    helper, a program that wrote no report); a UsageError, so one
    handler serves both."""
