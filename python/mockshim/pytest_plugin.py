# SPDX-License-Identifier: MIT
"""The pytest plugin: the ``mockshim`` fixture.

    def test_cat_reports_eio(mockshim):
        mockshim.add('will_fail(read, EIO, in="cat")')
        r = mockshim.run(["cat", "/etc/hostname"])
        assert r.returncode == 1 and b"Input/output error" in r.stderr

After the test body, a check that failed or a value left over in any run
fails the test with mockshim's own report.  An installed mockshim
enables it by its pytest11 entry point, named ``mockshim.pytest_plugin``
like the module (``-p no:mockshim.pytest_plugin`` turns it off); without
one, ``pytest_plugins = ["mockshim.pytest_plugin"]`` in conftest.py or
``-p mockshim.pytest_plugin``, which are harmless alongside it.
"""
import pytest

import mockshim as _ms


@pytest.fixture
def mockshim(request):
    """A mockshim.Session for this test."""
    s = _ms.Session()
    request.node._mockshim_sessions = getattr(request.node, "_mockshim_sessions", []) + [s]
    yield s
    s.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    outcome = yield
    if outcome.excinfo is not None:
        return
    for s in getattr(item, "_mockshim_sessions", ()):
        for r in s.results:
            if r.failures:
                pytest.fail("mockshim: %d check(s) failed in %s\n%s" % (
                    r.failures, " ".join(r.args), r.report_text), pytrace=False)
