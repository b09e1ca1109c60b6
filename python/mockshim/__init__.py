# SPDX-License-Identifier: MIT
"""mockshim from Python: run programs with mocked libc calls.

Pure Python over libmockshim-driver.so (ctypes, standard library only)::

    import mockshim
    with mockshim.Session() as s:
        s.add('will_fail(read, EIO, in="cat")')
        r = s.run(["cat", "/etc/hostname"])
        assert r.returncode == 1 and b"Input/output error" in r.stderr
        assert s.ok                      # no check failed, nothing left over
        print(s.report())                # mockshim's text report; format="json": a dict

Under pytest, the ``mockshim`` fixture (mockshim.pytest_plugin) is such a
session that fails the test with mockshim's report when a check failed.
The driver library is found through $MOCKSHIM_DRIVER, then beside this
package's installed prefix, then the dynamic loader's search path.
"""
import ctypes
import ctypes.util
import json
import os
import re
import tempfile

__all__ = ["Session", "Result", "StatementError", "MockshimError", "load_driver"]

_REPORT = {"text": 0, "tap": 1, "json": 2, "junit": 3}


class MockshimError(Exception):
    """mockshim could not do what was asked (not a failed check)."""


class StatementError(MockshimError):
    """A statement that does not parse: where (file, line, col) and why."""

    def __init__(self, message, file=None, line=None, col=None, text=None):
        super().__init__(text or message)
        self.message = message
        self.file = file
        self.line = line
        self.col = col
        self.text = text or message


class _CResult(ctypes.Structure):
    _fields_ = [(n, ctypes.c_int) for n in
                ("exited", "exit_status", "signal", "timed_out", "driver_signal", "exec_errno")] + \
               [(n, ctypes.c_uint) for n in ("failures", "leftovers", "processes", "consumed")] + \
               [("started", ctypes.c_longlong), ("seconds", ctypes.c_double),
                ("tampered", ctypes.c_int)]


_driver = None


def _candidates():
    env = os.environ.get("MOCKSHIM_DRIVER")
    if env:
        yield env
        return
    try:
        from . import _paths  # written by meson at install time
        yield os.path.join(_paths.LIBDIR, "libmockshim-driver.so.0")
    except ImportError:
        pass
    found = ctypes.util.find_library("mockshim-driver")
    yield found or "libmockshim-driver.so.0"


def load_driver():
    """The driver library, loaded once (ctypes.CDLL)."""
    global _driver
    if _driver is not None:
        return _driver
    errors = []
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
            break
        except OSError as e:
            errors.append(str(e))
    else:
        raise MockshimError("cannot load libmockshim-driver.so (set MOCKSHIM_DRIVER): " +
                            "; ".join(errors))
    P, S, I, Z = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_size_t
    for name, res, args in (
            ("mockshim_session_create", P, []),
            ("mockshim_session_destroy", None, [P]),
            ("mockshim_session_add", I, [P, S, S, Z]),
            ("mockshim_session_add_file", I, [P, S]),
            ("mockshim_session_add_module", I, [P, S]),
            ("mockshim_session_error", S, [P]),
            ("mockshim_session_set_cwd", I, [P, S]),
            ("mockshim_session_set_stdin", I, [P, ctypes.c_char_p, Z]),
            ("mockshim_session_set_capture", None, [P, I]),
            ("mockshim_session_set_timeout", I, [P, ctypes.c_double]),
            ("mockshim_session_set_verbosity", None, [P, I]),
            ("mockshim_session_output", ctypes.POINTER(ctypes.c_char), [P, I, ctypes.POINTER(Z)]),
            ("mockshim_session_run", I, [P, ctypes.POINTER(S), ctypes.POINTER(S),
                                         ctypes.POINTER(_CResult)]),
            ("mockshim_session_report", I, [P, P, I])):
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    _driver = lib
    return lib


_libc = ctypes.CDLL(None, use_errno=True)
_libc.fdopen.restype = ctypes.c_void_p
_libc.fdopen.argtypes = [ctypes.c_int, ctypes.c_char_p]
_libc.fclose.argtypes = [ctypes.c_void_p]

_DIAG = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$", re.M)


def _b(s):
    return s if isinstance(s, bytes) else os.fsencode(s)


class Result:
    """What one run did, as subprocess.CompletedProcess says it (returncode
    is -N for a signal), and mockshim's counts."""

    def __init__(self, args, c, stdout, stderr):
        self.args = args
        self.stdout = stdout
        self.stderr = stderr
        self.exited = bool(c.exited)
        self.signal = c.signal
        self.timed_out = bool(c.timed_out)
        self.failures = c.failures
        self.leftovers = c.leftovers
        self.processes = c.processes
        self.report_text = ""
        self.returncode = c.exit_status if c.exited else -c.signal if c.signal else None

    def __repr__(self):
        return "Result(args=%r, returncode=%r, failures=%d)" % (self.args, self.returncode,
                                                                 self.failures)


class Session:
    """Statements, then runs of programs under them.  Each run() is a
    driver session of its own with every statement added so far; report()
    and ok are about the last run."""

    def __init__(self, statements=None, modules=(), timeout=None):
        self._lib = load_driver()
        self._stmts = []
        self._modules = [os.fspath(m) for m in modules]
        self._timeout = timeout
        self._s = None
        self.results = []
        for st in statements or ():
            self.add(st)

    # statements

    def add(self, text, name=None):
        """Adds statements (checked now: StatementError with file/line/col)."""
        name = name or "python#%d" % (len(self._stmts) + 1)
        self._check(lambda s: self._add(s, name, text))
        self._stmts.append(("text", name, text))

    def add_file(self, path):
        path = os.fspath(path)
        self._check(lambda s: self._lib.mockshim_session_add_file(s, _b(path)))
        self._stmts.append(("file", path, None))

    def _add(self, s, name, text):
        t = _b(text)
        return self._lib.mockshim_session_add(s, _b(name), t, len(t))

    def _new(self):
        s = self._lib.mockshim_session_create()
        if not s:
            raise MemoryError("mockshim_session_create")
        for m in self._modules:
            if self._lib.mockshim_session_add_module(s, _b(m)) < 0:
                why = self._lib.mockshim_session_error(s).decode(errors="replace")
                self._lib.mockshim_session_destroy(s)
                raise MockshimError("module %s: %s" % (m, why.strip()))
        return s

    def _check(self, op):
        s = self._new()
        try:
            for kind, name, text in self._stmts:
                if (self._add(s, name, text) if kind == "text" else
                        self._lib.mockshim_session_add_file(s, _b(name))) < 0:
                    raise MockshimError("statement no longer parses: %s" % name)
            if op(s) < 0:
                raise self._error(s)
        finally:
            self._lib.mockshim_session_destroy(s)

    def _error(self, s):
        text = self._lib.mockshim_session_error(s).decode(errors="replace")
        m = _DIAG.search(text)
        if not m:
            return MockshimError(text.strip())
        return StatementError(m.group("msg"), m.group("file"), int(m.group("line")),
                              int(m.group("col")), text.rstrip("\n"))

    # runs

    def run(self, args, input=None, env=None, cwd=None, timeout=None):
        """Runs args (a list; the program is looked up in PATH) under the
        statements, capturing stdout and stderr: a Result."""
        args = [os.fspath(a) for a in args]
        if self._s:
            self._lib.mockshim_session_destroy(self._s)
            self._s = None
        s = self._new()
        self._s = s
        for kind, name, text in self._stmts:
            if (self._add(s, name, text) if kind == "text" else
                    self._lib.mockshim_session_add_file(s, _b(name))) < 0:
                raise self._error(s)
        self._lib.mockshim_session_set_capture(s, 1)
        data = _b(input) if input is not None else b""
        self._lib.mockshim_session_set_stdin(s, data, len(data))
        if cwd is not None:
            self._lib.mockshim_session_set_cwd(s, _b(os.fspath(cwd)))
        t = timeout if timeout is not None else self._timeout
        if t:
            self._lib.mockshim_session_set_timeout(s, float(t))
        argv = (ctypes.c_char_p * (len(args) + 1))(*[_b(a) for a in args], None)
        envp = None
        if env is not None:
            kv = [_b(k) + b"=" + _b(v) for k, v in env.items()]
            envp = (ctypes.c_char_p * (len(kv) + 1))(*kv, None)
        c = _CResult()
        rc = self._lib.mockshim_session_run(s, argv, envp, ctypes.byref(c))
        if rc < 0:
            raise MockshimError("cannot run %s: %s" % (
                args[0], self._lib.mockshim_session_error(s).decode(errors="replace").strip()
                or os.strerror(-rc)))
        if c.exec_errno:
            raise FileNotFoundError(c.exec_errno, os.strerror(c.exec_errno), args[0])
        r = Result(args, c, self._output(s, 1), self._output(s, 2))
        # kept now: a later run replaces the driver session
        r.report_text = self.report() if c.failures else ""
        self.results.append(r)
        return r

    def _output(self, s, fd):
        n = ctypes.c_size_t(0)
        p = self._lib.mockshim_session_output(s, fd, ctypes.byref(n))
        return ctypes.string_at(p, n.value) if p and n.value else b""

    @property
    def ok(self):
        """No check failed and nothing was left over, in any run."""
        return all(r.failures == 0 for r in self.results)

    def report(self, format="text", verbosity=0):
        """The last run's report: a str, or a dict for format="json"."""
        if not self._s:
            raise MockshimError("report: nothing has run")
        self._lib.mockshim_session_set_verbosity(self._s, verbosity)
        with tempfile.TemporaryFile() as tmp:
            fp = _libc.fdopen(os.dup(tmp.fileno()), b"w")
            if not fp:
                raise OSError(ctypes.get_errno(), "fdopen")
            self._lib.mockshim_session_report(self._s, fp, _REPORT[format])
            _libc.fclose(fp)
            tmp.seek(0)
            text = tmp.read().decode(errors="replace")
        return json.loads(text) if format == "json" else text

    def close(self):
        if self._s:
            self._lib.mockshim_session_destroy(self._s)
            self._s = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
