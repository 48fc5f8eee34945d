"""pytest options and the shared study (every clip solved once per session).

  --solver "CMD"    the `crowd pose` under test (default: the reference model's pose_ref.py)
  --data DIR        the shared data (bvh/, pose/); default ../shared/data from the project root
  --reference DIR   the reference models (pose_ref.py); default ../shared/reference
  --seed N          the noise model's seed
"""
import os

import pytest

import harness

_studies = []


def pytest_addoption(parser):
    parser.addoption('--solver', default=None, help='the crowd pose command under test')
    parser.addoption('--data', default=harness.DATA, help='the shared data folder')
    parser.addoption('--reference', default=harness.REFERENCE, help='the reference models folder')
    parser.addoption('--seed', type=int, default=harness.SEED, help='the noise model seed')


@pytest.fixture(scope='session')
def data(request):
    d = request.config.getoption('--data')
    if not os.path.isdir(os.path.join(d, 'bvh')):
        pytest.skip(f'no shared mocap data at {d} (tests/tracking needs ../shared/data/bvh)')
    return d


@pytest.fixture(scope='session')
def reference(request):
    """The reference model's command line, or None."""
    return harness.reference_solver(request.config.getoption('--reference'))


@pytest.fixture(scope='session')
def solver(request, reference):
    s = request.config.getoption('--solver') or reference
    if s is None:
        pytest.skip('no solver: give --solver, or put the reference models at ../shared/reference')
    return s


@pytest.fixture(scope='session')
def study(solver, data, request, tmp_path_factory):
    s = harness.Study(solver, data, workdir=str(tmp_path_factory.mktemp('tracking')),
                      seed=request.config.getoption('--seed'))
    _studies.append(s)
    return s


def pytest_terminal_summary(terminalreporter):
    for s in _studies:
        terminalreporter.write_sep('=', 'tracking: p95 error against the mocap truth and flips, root / stable')
        terminalreporter.write_line(harness.report(s))
