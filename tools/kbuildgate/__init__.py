# SPDX-License-Identifier: GPL-2.0
"""kbuildgate - the stages of the kautobuild gate, one module each.

  ci    the fan-out: a GitLab child pipeline or a GitHub Actions workflow
        with one job per target of "kautobuild --list", and a last job that
        merges their JSON results (it writes pipelines; it runs nothing)
"""
