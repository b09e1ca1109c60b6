# SPDX-License-Identifier: MIT
"""TAP on stdout for meson (protocol: 'tap'), with -p tests.tap -p no:terminal."""
import sys

_n = 0
_failed = []


def pytest_runtest_logreport(report):
    global _n
    if report.when == "call" or report.outcome != "passed":
        if report.when != "call" and report.outcome == "skipped":
            pass
        elif report.when == "teardown" and report.outcome == "passed":
            return
        _n += 1
        name = report.nodeid.replace("#", "\\#")
        if report.outcome == "passed":
            print("ok %d - %s" % (_n, name))
        elif report.outcome == "skipped":
            print("ok %d - %s # SKIP" % (_n, name))
        else:
            print("not ok %d - %s (%s)" % (_n, name, report.when))
            for line in str(report.longrepr).splitlines():
                print("# " + line)
        sys.stdout.flush()


def pytest_sessionstart(session):
    print("TAP version 13")


def pytest_sessionfinish(session, exitstatus):
    print("1..%d" % _n)
    if _n == 0:
        print("Bail out! no test ran")
