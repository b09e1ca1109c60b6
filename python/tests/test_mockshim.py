# SPDX-License-Identifier: MIT
"""The Python package and the pytest plugin, on real programs."""
import json

import pytest

import mockshim as ms


def test_cat_reports_eio(mockshim):
    mockshim.add('will_fail(read, EIO, in="cat")')
    r = mockshim.run(["cat", "/etc/hostname"])
    assert r.returncode == 1 and b"Input/output error" in r.stderr


def test_mocked_euid_on_stdout(mockshim):
    mockshim.add("will_return(geteuid, 4242)")
    r = mockshim.run(["id", "-u"])
    assert (r.returncode, r.stdout) == (0, b"4242\n")


def test_input_env_and_cwd(mockshim, tmp_path):
    r = mockshim.run(["sh", "-c", 'cat; echo "$GREETING"; pwd'], input=b"in\n",
                     env={"GREETING": "hi", "PATH": "/usr/bin:/bin"}, cwd=tmp_path)
    assert r.stdout == b"in\nhi\n" + str(tmp_path).encode() + b"\n"


def test_session_without_pytest_and_json_report():
    with ms.Session(["will_return(geteuid, 7)"]) as s:
        r = s.run(["id", "-u"])
        assert r.stdout == b"7\n" and s.ok
        rep = s.report(format="json")
        assert isinstance(rep, dict)
        assert "will_return(geteuid, 7)" in json.dumps(rep)


def test_leftover_is_not_ok():
    with ms.Session(["will_return(geteuid, 7)"]) as s:
        r = s.run(["true"])
        assert r.failures == 1 and r.leftovers == 1 and not s.ok
        assert "remaining non-returned values" in s.report()


def test_statement_error_has_file_line_col():
    s = ms.Session()
    with pytest.raises(ms.StatementError) as e:
        s.add("will_return(geteuid, 1)\nwill_fail(raed, EIO)", name="spec.mock")
    assert (e.value.file, e.value.line, e.value.col) == ("spec.mock", 2, 11)
    assert "unknown function 'raed'" in e.value.message
    assert "^" in str(e.value)


def test_program_not_found(mockshim):
    with pytest.raises(FileNotFoundError):
        mockshim.run(["no-such-program-here"])


def test_signal_is_a_negative_returncode(mockshim):
    r = mockshim.run(["sh", "-c", "kill -TERM $$"])
    assert r.returncode == -15


def test_fixture_fails_the_test_with_the_report(pytester):
    """A failed check fails a test that asserted nothing: with mockshim's
    report, and a passing twin passes."""
    pytester.makepyfile("""
        def test_leftover(mockshim):
            mockshim.add("will_return(geteuid, 4242)")
            mockshim.run(["true"])

        def test_clean(mockshim):
            mockshim.add("will_return(geteuid, 4242)")
            assert mockshim.run(["id", "-u"]).stdout == b"4242\\n"
    """)
    res = pytester.runpytest_subprocess("-p", "mockshim.pytest_plugin")
    res.assert_outcomes(passed=1, failed=1)
    res.stdout.fnmatch_lines(["*test_leftover*", "*mockshim: 1 check(s) failed in true*",
                              "*geteuid() has remaining non-returned values*"])
