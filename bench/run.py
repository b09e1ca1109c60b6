#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mockshim benchmarks, side by side with peers (issue 8).

Runs build/bench/bench (an unmodified program) plain, under
libmockshim.so, under mockrun with several kinds of rules, and under the
peers that are installed (libfiu, libfaketime, socket_wrapper, strace,
ltrace), all in the same run; prints markdown tables on stdout:

  1. time per call, median of ROUNDS interleaved rounds, as a ratio to
     the plain run of the same rounds;
  2. instructions per call (valgrind --tool=callgrind), as the difference
     over plain, and the issue's targets;
  3. start-up (an interleaved loop; hyperfine as a cross-check) and how it
     grows with the spec;
  4. threads: 1, 2, 4 threads on one shared queue and unrelated queues;
  5. memory: RSS added by the shim, channel bytes per rule;
  6. the syscall tier: µs per SYS_ call beside strace -f -e inject,
     an unarmed call under the filter, start-up with a filter.

Progress goes to stderr.  See bench/README.md.
"""

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

FIU_DIR = '/usr/lib/fiu'
FAKETIME_LIBS = ['/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1']
SOCKET_WRAPPER_LIBS = ['/usr/lib/x86_64-linux-gnu/libsocket_wrapper.so']

UNARMED_RULE = 'will_return_maybe(getegid, 0)'
QUEUE = 1000000

# the catalog's own calls (not pairs, not declared): what the reply limits judge
CATALOG_OPS = ('read', 'clock', 'getpid', 'getuid')

# Issue 8's targets: callgrind instructions per call over plain.
TARGETS = [
    ('shim', 'unarmed: LD_PRELOAD, no channel', 5),
    ('unarmed', 'unarmed: mockrun, rule for another function', 5),
    ('nomatch', 'armed, not matching (in=)', 60),
    ('nomatch_from', 'armed, not matching (from=)', 60),
    ('always', 'will_return_always reply', 80),
    ('queue', 'queued value', 120),
    ('queue_full', 'queued value, event log full', 120),
    ('expect', 'expect_value check', 150),
]


class Op:
    """One measured call of bench: its loop name and how to mock it."""

    def __init__(self, name, fn, n, value, outs='', expect=None, fiu=None, strace=None,
                 ltrace=None, faketime=False, sockwrap=False, cg_n=2000, crossings=1,
                 decl=None, when=None, out1=None):
        self.name = name  # bench OP
        self.fn = fn  # the catalog function
        self.n = n  # calls per repetition (timing)
        self.value = value  # the mocked return value
        self.outs = outs  # outputs of the reply, e.g. *res={...}
        self.expect = expect  # (statement, parameter, value) or None
        self.fiu = fiu  # libfiu's fault point for fn
        self.strace = strace  # strace -e inject=... for fn
        self.ltrace = ltrace or fn  # ltrace -e ...
        self.faketime = faketime
        self.sockwrap = sockwrap
        self.cg_n = cg_n  # calls under callgrind
        # catalog functions the loop calls per iteration: 2 for a pair
        # (malloc+free), 0 for getaddrinfo, whose real code calls many
        # (malloc, free, socket, ...) and so is no per-call measure
        self.crossings = crossings
        self.decl = decl  # a declared prototype (mock ...): fn is no catalog function
        # when(): {variant: condition that every call of the loop satisfies}
        self.when = when or {}
        self.out1 = out1  # one output of a reply (buf=, *tp=): issue 22's output row

    def reply(self):
        return self.value + (', ' + self.outs if self.outs else '')


OPS = [
    Op('read', 'read', 50000, '1', expect=('expect_value_count', 'fd', '100'),
       # when=4+: the loader's first three reads are the ELF headers of
       # libmsbenchdecl.so, libmsbenchfloor.so and libc.so.6
       fiu='posix/io/rw/read', strace='read:retval=1:when=4+', sockwrap=True,
       when={'when_int': 'fd == 100', 'when_fd': 'fd ~ "/dev/zero"'}, out1='buf="x"'),
    Op('clock', 'clock_gettime', 200000, '0',
       expect=('expect_value_count', 'clockid', 'CLOCK_REALTIME'), faketime=True,
       when={'when_int': 'clockid == CLOCK_REALTIME'}, out1='*tp={1, 2}'),
    Op('getpid', 'getpid', 50000, '42', strace='getpid:retval=42'),
    Op('getuid', 'getuid', 50000, '0', strace='getuid:retval=0'),
    Op('malloc', 'malloc', 200000, 'NULL', expect=('expect_value_count', 'size', '32'),
       fiu='libc/mm/malloc', ltrace='malloc+free', crossings=2),
    Op('socket', 'socket', 5000, '1000', expect=('expect_value_count', 'domain', 'AF_INET'),
       fiu='posix/io/net/socket', strace='socket:retval=1000', ltrace='socket+close',
       sockwrap=True, cg_n=500, crossings=2),
    Op('getaddrinfo', 'getaddrinfo', 1000, '0', outs='*res={"127.0.0.1"}',
       expect=('expect_string_count', 'node', '"localhost"'), ltrace='getaddrinfo+freeaddrinfo',
       cg_n=100, crossings=0, when={'when_str': 'node ~ "local*"'}),
    # a library function outside the catalog (bench/decl.c), declared
    Op('decl', 'msb_add', 200000, '7', expect=('expect_value_count', 'b', '1'),
       decl='mock int msb_add(int a, int b)'),
    # the same with a double: the stub saves the SSE registers too
    Op('decl_dbl', 'msb_scale', 200000, '2.5', expect=('expect_value_count', 'x', '0.5'),
       decl='mock double msb_scale(double x, int k)'),
]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def clean_env():
    env = dict(os.environ)
    for k in list(env):
        if (k in ('LD_PRELOAD', 'LD_LIBRARY_PATH') or k.startswith('MOCKSHIM')
                or k.startswith('FIU_') or k.startswith('SOCKET_WRAPPER')
                or k.startswith('FAKETIME')):
            del env[k]
    env['LC_ALL'] = 'C'
    return env


def parse_line(text):
    """The last key=value line bench printed."""
    for line in reversed(text.strip().splitlines()):
        if line.startswith('op='):
            out = {}
            for kv in line.split():
                k, _, v = kv.partition('=')
                try:
                    out[k] = float(v)
                except ValueError:
                    out[k] = v
            return out
    return None


class Bench:
    def __init__(self, a):
        self.a = a
        self.env = clean_env()
        self.tmp = tempfile.mkdtemp(prefix='msbench.')
        self.have = {
            'fiu': shutil.which('fiu-run') and os.path.exists(FIU_DIR + '/fiu_posix_preload.so'),
            'faketime': next((p for p in FAKETIME_LIBS if os.path.exists(p)), None),
            'sockwrap': next((p for p in SOCKET_WRAPPER_LIBS if os.path.exists(p)), None),
            'strace': shutil.which('strace'),
            'ltrace': shutil.which('ltrace'),
            'valgrind': shutil.which('valgrind'),
            'hyperfine': shutil.which('hyperfine'),
        }
        if not self.have['faketime']:
            self.have['faketime'] = self.dpkg_find('faketime', 'libfaketime.so.1')
        try:
            helptext = subprocess.run([a.mockrun, '--help'], capture_output=True, text=True,
                                      env=self.env).stdout
        except OSError:
            helptext = ''
        self.have['trace'] = '--trace' in helptext
        self.valgrind = self.find_valgrind_tool()
        # fiu-run's control fifos, socket_wrapper's sockets: all in here
        self.env['TMPDIR'] = self.tmp
        self.swdir = os.path.join(self.tmp, 'socket_wrapper')
        os.mkdir(self.swdir)
        self.failures = []
        self.results = {}  # numbers of this run, for the summary sentences
        self.load = [os.getloadavg()[0]]  # 1-minute load averages seen during the run

    def find_valgrind_tool(self):
        """
        valgrind's launcher itself, not Debian's /usr/bin/valgrind shell
        wrapper: under mockrun the wrapper's sh would be mocked too (a
        mocked read never lets it finish its script).  The launcher is
        still a dynamic program under the same preload: see CG_IN_SCOPE.
        """
        if not self.have['valgrind']:
            return None
        return [shutil.which('valgrind.bin') or self.have['valgrind'], '--tool=callgrind']

    def dpkg_find(self, pkg, name):
        try:
            out = subprocess.run(['dpkg', '-L', pkg], capture_output=True, text=True).stdout
        except OSError:
            return None
        return next((p for p in out.split() if p.endswith('/' + name)), None)

    # ---- variants: (argv prefix, extra environment) or None (n/a) ----

    def mockrun(self, *stmts, extra=()):
        argv = [self.a.mockrun, '-q']
        for s in stmts:
            argv += ['-e', s]
        return argv + list(extra) + ['--'], {}

    def variant(self, key, op, scoped=False):
        """scoped: the reply only in="bench" (see CG_IN_SCOPE)."""
        v = self.variant_(key, op, scoped)
        if v and op.decl and v[0][:1] == [self.a.mockrun]:
            # every statement about a declared function follows its declaration
            v = ([self.a.mockrun, '-e', op.decl] + v[0][1:], v[1])
        return v

    def variant_(self, key, op, scoped):
        fn = op.fn
        scope = ', in="bench"' if scoped else ''
        if key == 'plain':
            return [], {}
        if key == 'shim':
            return [], {'LD_PRELOAD': self.a.shim}
        if key == 'unarmed':
            return self.mockrun(UNARMED_RULE)
        if key == 'nomatch':
            return self.mockrun('will_return_maybe(%s, %s, in="other-program")' % (fn, op.reply()))
        if key == 'nomatch_from':
            return self.mockrun('will_return_maybe(%s, %s, from="libother.so")' % (fn, op.reply()))
        if key == 'always':
            return self.mockrun('will_return_always(%s, %s%s)' % (fn, op.reply(), scope))
        if key in ('when_int', 'when_fd', 'when_str'):
            if key not in op.when:
                return None
            return self.mockrun('will_return_always(%s, %s, when(%s))' % (fn, op.reply(),
                                                                          op.when[key]))
        if key == 'output':
            if not op.out1:
                return None
            return self.mockrun('will_return_always(%s, %s, %s)' % (fn, op.value, op.out1))
        if key == 'always_in':
            return self.mockrun('will_return_always(%s, %s, in="bench")' % (fn, op.reply()))
        if key in ('queue', 'queue_full'):
            v = op.value + ', %d' % QUEUE + (', ' + op.outs if op.outs else '')
            return self.mockrun('will_return_count(%s, %s%s)' % (fn, v, scope))
        if key == 'expect':
            if not op.expect:
                return None
            st, param, v = op.expect
            return self.mockrun('%s(%s, %s, %s, -1)' % (st, fn, param, v))
        if key == 'audit':
            return [], {'LD_AUDIT': self.a.audit}
        if key == 'trace':
            if not self.have['trace'] or op.decl:
                return None
            return self.mockrun(UNARMED_RULE, extra=['--trace=' + fn, '--trace-file', os.devnull])
        if key in ('fiu_fn', 'fiu_other'):
            if not self.have['fiu'] or (key == 'fiu_fn' and not op.fiu):
                return None
            point = op.fiu if key == 'fiu_fn' else 'posix/io/oc/open'
            return ['fiu-run', '-x', '-f', '',
                    '-c', 'enable_random name=%s,probability=0' % point], {}
        if key == 'fake_time':
            if not op.faketime:
                return None
            return self.mockrun('fake_time("@1700000000")')
        if key == 'faketime':
            if not (op.faketime and self.have['faketime']):
                return None
            return [], {'LD_PRELOAD': self.have['faketime'], 'FAKETIME': '@2023-01-01 00:00:00'}
        if key == 'sockwrap':
            if not (op.sockwrap and self.have['sockwrap']):
                return None
            return [], {'LD_PRELOAD': self.have['sockwrap'], 'SOCKET_WRAPPER_DIR': self.swdir}
        if key == 'strace':
            if not (op.strace and self.have['strace']):
                return None
            name = op.strace.split(':')[0]
            return ['strace', '-f', '-o', os.devnull, '-e', 'trace=' + name,
                    '-e', 'inject=' + op.strace], {}
        if key == 'strace_trace':
            if not (op.strace and self.have['strace']):
                return None
            return ['strace', '-f', '-o', os.devnull, '-e', 'trace=' + op.strace.split(':')[0]], {}
        if key == 'ltrace':
            if not self.have['ltrace']:
                return None
            return ['ltrace', '-f', '-o', os.devnull, '-e', op.ltrace], {}
        raise KeyError(key)

    def run(self, argv, extra_env, ok=(0, 123)):
        env = dict(self.env)
        env.update(extra_env)
        try:
            p = subprocess.run(argv, capture_output=True, text=True, env=env,
                               timeout=self.a.timeout)
        except subprocess.TimeoutExpired:
            self.failures.append(' '.join(argv) + ': timed out')
            return None
        res = parse_line(p.stdout)
        if p.returncode not in ok or res is None or res.get('errors', 0):
            self.failures.append('%s: exit %d, %s %s' % (
                ' '.join(argv), p.returncode, p.stdout.strip()[-200:], p.stderr.strip()[-300:]))
            return None
        return res


# ---- 1. time per call ----

PERCALL_VARIANTS = [
    ('plain', 'plain (ns per call)'),
    ('shim', 'LD_PRELOAD=libmockshim.so, no channel'),
    ('unarmed', 'mockrun, rule for another function'),
    ('nomatch', 'mockrun, rule for FN, in="other-program"'),
    ('nomatch_from', 'mockrun, rule for FN, from="libother.so"'),
    ('always', 'will_return_always(FN, V)'),
    ('queue', 'will_return_count(FN, V, 1000000)'),
    ('expect', 'expect_value_count(FN, PARAM, V, -1)'),
    ('audit', 'LD_AUDIT: a la_symbind64 that keeps every binding'),
    ('trace', 'mockrun --trace=FN'),
    ('fiu_fn', 'fiu-run -x, FN\'s point at probability 0'),
    ('fiu_other', 'fiu-run -x, another point (open)'),
    ('fake_time', 'mockrun fake_time("@1700000000")'),
    ('faketime', 'libfaketime, FAKETIME="@2023-01-01 00:00:00"'),
    ('sockwrap', 'socket_wrapper, SOCKET_WRAPPER_DIR set'),
    ('strace', 'strace -f -e inject=FN:retval=V'),
    ('strace_trace', 'strace -f -e trace=FN (tracing only)'),
    ('ltrace', 'ltrace -f -e FN'),
]

SLOW = {'strace': 500, 'strace_trace': 500, 'ltrace': 100}  # calls per repetition under ptrace


def percall(b, ops):
    a = b.a
    cells = {}  # (variant, op) -> [ns per call, one per round]
    rounds = a.rounds
    t0 = time.time()
    for r in range(rounds):
        for op in ops:
            for key, _ in PERCALL_VARIANTS:
                v = b.variant(key, op)
                if v is None:
                    continue
                prefix, env = v
                n = SLOW.get(key, op.n)
                if a.quick:
                    n = max(n // 10, 10)
                res = b.run(prefix + [a.bench, op.name, str(n), '3'], env)
                cells.setdefault((key, op.name), []).append(res['ns'] if res else None)
        log('per-call: round %d/%d done (%.0f s)' % (r + 1, rounds, time.time() - t0))
    med = {}
    for k, vals in cells.items():
        vals = [x for x in vals if x is not None]
        med[k] = statistics.median(vals) if vals else None
    return med


def percall_table(b, ops, med):
    out = ['## Time per call (ratio to plain, same run)', '',
           'Median over %d interleaved rounds of the fastest of 3 repetitions; the '
           'plain row is ns per call, every other row is its time / plain\'s (lower is '
           'better: < 1 means the mocked reply is cheaper than the real call).  '
           'malloc, socket and getaddrinfo are pairs (with free, close, freeaddrinfo); '
           'FN\'s mocked value: %s.' % (b.a.rounds, ', '.join(
               '%s=%s' % (op.name, op.value) for op in ops)), '']
    out.append('| variant | ' + ' | '.join(op.name for op in ops) + ' |')
    out.append('|---|' + '---:|' * len(ops))
    for key, label in PERCALL_VARIANTS:
        row = []
        for op in ops:
            v = med.get((key, op.name))
            p = med.get(('plain', op.name))
            if (key, op.name) not in med:
                row.append('n/a')
            elif v is None or not p:
                row.append('ERR')
            elif key == 'plain':
                row.append('%.1f ns' % v)
            else:
                row.append('%.2fx' % (v / p))
        if all(c == 'n/a' for c in row):
            if key == 'trace':
                out.append('| %s | %s |' % (label, ' | '.join(['(no --trace in mockrun)'] +
                                                              ['n/a'] * (len(ops) - 1))))
            continue
        out.append('| %s | %s |' % (label, ' | '.join(row)))
    return out


# ---- 2. instructions per call ----

CG_VARIANTS = [
    ('plain', 'plain (Ir per call)'),
    ('shim', 'LD_PRELOAD=libmockshim.so, no channel'),
    ('unarmed', 'mockrun, rule for another function'),
    ('nomatch', 'rule for FN, in="other-program"'),
    ('nomatch_from', 'rule for FN, from="libother.so"'),
    ('always', 'will_return_always'),
    ('always_in', 'will_return_always(FN, V, in="bench"): a matching in='),
    ('output', 'will_return_always(FN, V, OUT): one output, read buf="x", clock *tp={1, 2}'),
    ('when_int', 'will_return_always(FN, V, when(INT == V)): read fd == 100, clock clockid'),
    ('when_fd', 'will_return_always(read, 1, when(fd ~ "/dev/zero")): the path of an fd'),
    ('when_str', 'will_return_always(getaddrinfo, ..., when(node ~ "local*")): a string'),
    ('queue', 'will_return_count(FN, V, 1000000)'),
    ('queue_full', 'the same, after 7,000 calls (event log full)'),
    ('expect', 'expect_value_count(FN, PARAM, V, -1)'),
    ('audit', 'LD_AUDIT: a la_symbind64 that keeps every binding'),
    ('trace', 'mockrun --trace=FN'),
    ('fiu_fn', 'fiu-run -x, FN\'s point at probability 0'),
    ('fiu_other', 'fiu-run -x, another point (open)'),
    ('fake_time', 'mockrun fake_time("@1700000000"): the clock moved'),
    ('faketime', 'libfaketime'),
    ('sockwrap', 'socket_wrapper'),
]


# Replies that valgrind's launcher (a dynamic program, preloaded like
# bench) cannot live with: malloc returning NULL.  Under callgrind these
# rules get in="bench", so their numbers include a matching in= check
# (the always_in row shows what that costs on the other calls).
CG_IN_SCOPE = {('malloc', 'always'), ('malloc', 'queue'), ('malloc', 'queue_full')}


# bench's loops that are baselines, not calls to mock: the empty loop,
# and the hand-written floor stubs (bench/floor.c) through the PLT
BASE_OPS = ('none', 'floor_const', 'floor_queue', 'floor_int', 'floor_read', 'floor_clock')
# the constant stub called as each catalog op's loop calls its function
# (its arguments, its result's type and test): the caller's own share
SITE_FLOOR = {'read': 'floor_read', 'clock': 'floor_clock', 'getpid': 'floor_int',
              'getuid': 'floor_int'}

# Issue 22's limits for replies, instructions per call over the empty loop
FLOOR_TARGETS = {'always': 15, 'queue': 25}
# ... and for one output (buf=, *tp=), over the same reply without it
OUTPUT_LIMIT = 60
# ... and for a traced call, over plain
TRACE_LIMIT = 400
# processes of the tree in the spec-size rows ("xN"): enough that the
# noise of mockrun's own parse of a large spec (milliseconds), the same
# in both rows, is a few microseconds a process
SPEC_PROCS = 250
# ... and for threads that run at once: per-call CPU time over 1 thread's
THREAD_LIMITS = {'unrelated': 1.2, 'shared': 3.0}
# the turns a thread takes into its lane at once (channel.h's MS_LANE_BATCH)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'channel',
                       'channel.h')) as _h:
    LANE_BATCH = int(re.search(r'#define MS_LANE_BATCH (\d+)', _h.read()).group(1))


def floor_table(ops, ir):
    """mockshim's replies beside the hand-written floor stubs: mockshim / floor."""
    none = ir.get(('plain', 'none'))
    floor = {k: ir.get(('plain', f)) for k, f in (('always', 'floor_const'),
                                                  ('queue', 'floor_queue'))}
    if none is None or None in floor.values():
        return []
    fc, fq = floor['always'] - none, floor['queue'] - none
    out = ['### Replies against the floor', '',
           'Instructions per call over the empty loop (bench none).  The floor is a '
           'hand-written stub in a shared library called through the PLT, compiled in the '
           'same benchmark (bench/floor.c): one returning a constant (%+.0f) for '
           'will_return_always, one taking the next value of a queue (%+.0f) for '
           'will_return_count.  Issue 22\'s limits: always %d, queued %d.' % (
               fc, fq, FLOOR_TARGETS['always'], FLOOR_TARGETS['queue']), '',
           '| reply | floor | ' + ' | '.join(op.name for op in ops) + ' |',
           '|---|---:|' + '---:|' * len(ops)]
    for key, label in (('always', 'will_return_always'), ('queue', 'will_return_count')):
        f = fc if key == 'always' else fq
        row, ratio = [], []
        for op in ops:
            v = ir.get((key, op.name))
            if v is None:
                row.append('n/a')
                ratio.append('n/a')
                continue
            d = v - none
            mark = ' †' if (op.name, key) in CG_IN_SCOPE else ''
            row.append('%+.0f%s%s' % (d, mark, '' if d <= FLOOR_TARGETS[key] else ' **over**'))
            ratio.append('%.1fx' % (d / f) if f > 0 else 'n/a')
        out.append('| %s, Ir over the empty loop | %+.0f | %s |' % (label, f, ' | '.join(row)))
        out.append('| %s, mockshim / floor | 1.0x | %s |' % (label, ' | '.join(ratio)))
    site = [ir.get(('plain', SITE_FLOOR[op.name])) if op.name in SITE_FLOOR else None
            for op in ops]
    if any(v is not None for v in site):
        out.append('| the constant stub at this call site (its arguments and result), '
                   'Ir over the empty loop | %+.0f | %s |' % (
                       fc, ' | '.join('n/a' if v is None else '%+.0f' % (v - none)
                                      for v in site)))
        for key, label in (('always', 'will_return_always'), ('queue', 'will_return_count')):
            row = []
            for op, v in zip(ops, site):
                m = ir.get((key, op.name))
                row.append('n/a' if v is None or m is None else '%+.0f' % (m - v))
            out.append('| %s, Ir over that stub | %+.0f | %s |' % (
                label, 0 if key == 'always' else fq - fc, ' | '.join(row)))
        out += ['', 'The last rows take the call site out: read and clock pass arguments '
                'and test the result, which the empty loop does not, and getpid\'s int '
                'result is widened; a hand-written constant stub called the same way '
                '(bench/floor.c: msb_floor_int, msb_floor_read, msb_floor_clock) pays that '
                'too.  Over it, the floor is 0 for a constant and the queue stub\'s '
                'own work (%+.0f) for a queue.' % (fq - fc)]
    return out


def cg_loop_total(b, op, key, prefix, env, n, warm):
    """Instructions callgrind counts in one run of loop_OP n times, or None."""
    f = os.path.join(b.tmp, 'cg.%s.%s.%d' % (op.name, key, n))
    argv = prefix + b.valgrind + ['--callgrind-out-file=' + f, '--toggle-collect=loop_*',
                                  b.a.bench, op.name, str(n), '1', str(warm)]
    if b.run(argv, env) is None:
        return None
    try:
        with open(f) as fh:
            for line in fh:
                if line.startswith('totals:') or line.startswith('summary:'):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def callgrind(b, ops):
    """Instructions per call of each op and variant.  A loop's count is
    n calls and the loop's own entry and exit, the same in every variant
    of one op: measured once per op (plain at n and at 2n), then taken out,
    so that a row is the calls' own count, not that plus a fraction."""
    a = b.a
    ir = {}
    t0 = time.time()
    for op in ops:
        n = op.cg_n if not a.quick else max(op.cg_n // 4, 20)
        fixed = 0
        for key, _ in CG_VARIANTS:
            if op.name in BASE_OPS and key != 'plain':
                continue  # the empty loop and the floor stubs: baselines of replies
            v = b.variant(key, op, scoped=(op.name, key) in CG_IN_SCOPE)
            if v is None:
                continue
            prefix, env = v
            warm = 7000 if key == 'queue_full' else 64
            if key == 'queue_full' and op.cg_n < 2000:
                warm = 6200  # slow calls: just past the log's 6,144 consume events
            total = cg_loop_total(b, op, key, prefix, env, n, warm)
            if key == 'plain' and total is not None:
                twice = cg_loop_total(b, op, key, prefix, env, 2 * n, warm)
                if twice is not None:
                    fixed = max(2 * total - twice, 0)
            ir[(key, op.name)] = (total - fixed) / n if total is not None else None
        log('callgrind: %s done (%.0f s)' % (op.name, time.time() - t0))
    return ir


def callgrind_tables(b, ops, ir):
    out = ['## Instructions per call (callgrind)', '',
           'valgrind --tool=callgrind --toggle-collect=\'loop_*\': only the measured loop '
           'and what it calls (the trampoline, the shim, the real function) are counted, '
           'not start-up or the warm-up.  The plain row is instructions per loop '
           'iteration; every other row is the difference over plain (a mocked reply '
           'skips the real function, so it can be negative).', '']
    out.append('| variant | ' + ' | '.join(op.name for op in ops) + ' |')
    out.append('|---|' + '---:|' * len(ops))
    for key, label in CG_VARIANTS:
        row = []
        for op in ops:
            if (key, op.name) not in ir:
                row.append('n/a')
                continue
            v, p = ir[(key, op.name)], ir.get(('plain', op.name))
            if v is None or p is None:
                row.append('ERR')
            elif key == 'plain':
                row.append('%.1f' % v)
            else:
                row.append('%+.1f' % (v - p) + (' †' if (op.name, key) in CG_IN_SCOPE else ''))
        if all(c == 'n/a' for c in row):
            continue
        out.append('| %s | %s |' % (label, ' | '.join(row)))
    out += ['', '### Targets (instructions per call over plain)', '',
            '| target | limit | ' + ' | '.join(op.name for op in ops) + ' | met |',
            '|---|---:|' + '---:|' * len(ops) + ':---:|']
    for key, label, limit in TARGETS:
        row, met = [], True
        for op in ops:
            v, p = ir.get((key, op.name)), ir.get(('plain', op.name))
            if v is None or p is None:
                row.append('n/a' if (key, op.name) not in ir else 'ERR')
                continue
            d = v - p
            reply = key in ('always', 'queue', 'queue_full')
            if reply:
                # a reply replaces the real function: compare with the
                # cost of calling nothing (the loop alone)
                d = v - ir.get(('plain', 'none'), 0)
            mark = ' †' if (op.name, key) in CG_IN_SCOPE else ''
            if op.crossings == 0 or (reply and op.crossings > 1) or op.decl:
                # not a per-call figure: shown, not judged
                row.append('%+.0f%s ‡' % (d, mark))
                continue
            if op.crossings > 1:
                # the pair's other call goes through an unarmed trampoline:
                # what that costs is half of the unarmed pair's overhead
                partner = (ir.get(('shim', op.name), p) - p) / op.crossings
                d -= partner * (op.crossings - 1)
                mark += ' (per call)'
            ok = d <= limit
            met = met and ok
            row.append(('%+.0f' % d) + mark + ('' if ok else ' **over**'))
        out.append('| %s | +%d | %s | %s |' % (label, limit, ' | '.join(row),
                                                'yes' if met else '**no**'))
    # issue 22: one output costs at most OUTPUT_LIMIT over the bare reply
    row, met, seen = [], True, False
    for op in ops:
        v, bare = ir.get(('output', op.name)), ir.get(('always', op.name))
        if v is None or bare is None:
            row.append('n/a')
            continue
        seen = True
        ok = v - bare <= OUTPUT_LIMIT
        met = met and ok
        row.append('%+.0f%s' % (v - bare, '' if ok else ' **over**'))
    if seen:
        out.append('| one output (buf=, *tp=), over the bare reply | +%d | %s | %s |' % (
            OUTPUT_LIMIT, ' | '.join(row), 'yes' if met else '**no**'))
    out += ['', 'For replies (always, queued) the number is the shim\'s own cost: '
            'instructions per call over the empty loop (bench none), since the real '
            'function no longer runs; for the others it is over plain.  † with '
            'in="bench": valgrind\'s launcher runs under the same preload and cannot '
            'start with malloc returning NULL; the number includes a matching in= check '
            '(compare the always_in row with the always row for the other calls).  '
            'malloc and socket are pairs (malloc+free, socket+close): where both go '
            'through the shim the number is per call: the pair\'s, less the unarmed '
            'trampoline of its other call (half the unarmed pair\'s); ‡ is shown but not judged: a reply on a pair still runs the '
            'real free or close, getaddrinfo\'s real code calls many catalog '
            'functions (malloc, free, socket, ...), each through its trampoline, and '
            'the targets are the catalog\'s: decl and decl_dbl are declared prototypes '
            '(a generic stub saves the argument registers, and for decl_dbl the SSE '
            'ones too).']
    return out


# ---- 3. start-up ----

def write_spec(b, n, fn='getegid'):
    path = os.path.join(b.tmp, 'spec%d%s.ms' % (n, '' if fn == 'getegid' else '-' + fn))
    with open(path, 'w') as f:
        for i in range(n):
            f.write('will_return_maybe(%s, %d)\n' % (fn, i))
    return path


def write_line_spec(b, size):
    """One line of will_return_maybe statements joined by '; ', size bytes or more."""
    path = os.path.join(b.tmp, 'line%d.ms' % size)
    parts, n, i = [], 0, 0
    while n < size:
        t = 'will_return_maybe(getegid, %d); ' % i
        parts.append(t)
        n += len(t)
        i += 1
    with open(path, 'w') as f:
        f.write(''.join(parts) + '\n')
    return path, i


GNU_TIME = '/usr/bin/time'


def spawn_rusage(b, argv):
    """
    (wall ms, CPU ms (user + system), maximum RSS kB or None) of one run of
    argv.  The RSS is GNU time's: a process keeps the largest RSS it had
    across exec, and a child of this script starts as a copy of python
    (some 20 MB), GNU time's child as a copy of a small C program.
    """
    fa = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
          (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
          (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
    rss_file = os.path.join(b.tmp, 'rss.txt')
    timed = os.path.exists(GNU_TIME)
    if timed:
        argv = [GNU_TIME, '-f', '%M', '-o', rss_file] + argv
    t = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, b.env, file_actions=fa)
    _, _, ru = os.wait4(pid, 0)
    wall = (time.perf_counter_ns() - t) / 1e6
    rss = None
    if timed:
        try:
            with open(rss_file) as f:
                rss = int(f.read().split()[-1])
        except (OSError, ValueError, IndexError):
            pass
    return wall, (ru.ru_utime + ru.ru_stime) * 1000.0, rss


# Issue 22's parsing limits: seconds for 1,000,000 statements and for one
# 10 MiB line; mockrun's RSS for 100,000 statements, MB
PARSE_TARGETS = {'1000000': 2.0, 'line': 1.0, 'rss100000': 20.0}


def parsing(b):
    """mockrun -q -f SPEC true for large specs: wall, CPU and RSS."""
    a = b.a
    true = shutil.which('true') or '/bin/true'
    sizes = (1000, 10000, 100000) + (() if a.quick else (1000000,))
    cases = [('%d' % n, n, write_spec(b, n)) for n in sizes]
    lpath, lcount = write_line_spec(b, (1 if a.quick else 10) << 20)
    cases.append(('line', lcount, lpath))
    runs = 1 if a.quick else 3
    res = {}
    t0 = time.time()
    for _ in range(runs):
        for key, n, path in cases:
            res.setdefault(key, []).append(
                spawn_rusage(b, [a.mockrun, '-q', '-f', path, true]))
    log('parsing: done (%.0f s)' % (time.time() - t0))
    out = ['### Parsing', '',
           '`mockrun -q -f SPEC true` (the whole run: parse, channel, program, report) for N '
           '`will_return_maybe(getegid, I)` statements, one per line, and for one line of '
           '%s MiB of them joined by `; `; median of %d runs of wall and CPU time (user + '
           'system: the machine is shared, CPU time is the steadier), and the largest '
           'maximum RSS.  Issue 22\'s limits: 1,000,000 statements in %.0f s, 10 MiB of one '
           'line in %.0f s, RSS under %.0f MB for 100,000.' % (
               1 if a.quick else 10, runs, PARSE_TARGETS['1000000'], PARSE_TARGETS['line'],
               PARSE_TARGETS['rss100000']), '',
           '| spec | statements | wall ms | CPU ms | CPU µs per statement | max RSS MB |',
           '|---|---:|---:|---:|---:|---:|']
    summary = {}
    for key, n, _ in cases:
        walls = [r[0] for r in res[key]]
        cpus = [r[1] for r in res[key]]
        rsses = [r[2] for r in res[key] if r[2] is not None]
        rss = max(rsses) / 1024.0 if rsses else None
        w, c = statistics.median(walls), statistics.median(cpus)
        summary[key] = {'n': n, 'wall': w, 'cpu': c, 'rss': rss}
        out.append('| %s | %d | %.0f | %.0f | %.2f | %s |' % (
            'one line' if key == 'line' else 'lines', n, w, c, c * 1000.0 / n,
            '%.1f' % rss if rss is not None else 'n/a (no GNU time)'))
    b.results['parsing'] = summary
    return out


def spawn_usage(argv, env):
    """
    One run of argv (output to /dev/null), by posix_spawn: its wall ms,
    and from wait4 the CPU ms (user + system) and minor page faults of
    the process and every descendant it waited for.
    """
    path = argv[0] if os.sep in argv[0] else (shutil.which(argv[0]) or argv[0])
    fa = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
          (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
          (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
    t = time.perf_counter_ns()
    pid = os.posix_spawn(path, argv, env, file_actions=fa)
    _, _, ru = os.wait4(pid, 0)
    wall = (time.perf_counter_ns() - t) / 1e6
    return wall, (ru.ru_utime + ru.ru_stime) * 1000.0, ru.ru_minflt


def spawn_ms(argv, env):
    """Wall ms of one run of argv (output to /dev/null), by posix_spawn."""
    return spawn_usage(argv, env)[0]


def time_commands(b, cmds, runs, usage=None):
    """
    Median wall ms of each command over runs runs, interleaved: every run
    takes each command once, in a new random order, so that load from
    other programs on a shared machine falls on all of them alike
    (hyperfine runs one command's runs back to back).  With a dict as
    usage, also the median CPU ms and page faults of each, there as
    {label: (cpu, faults)}: what a loaded machine does not inflate.
    """
    import random
    rnd = random.Random(8)
    times = {label: [] for label, _ in cmds}
    cpu = {label: [] for label, _ in cmds}
    faults = {label: [] for label, _ in cmds}
    order = list(cmds)
    for _ in range(max(runs // 10, 1)):  # warm-up
        for label, c in order:
            spawn_usage(c, b.env)
    for _ in range(runs):
        rnd.shuffle(order)
        for label, c in order:
            w, u, f = spawn_usage(c, b.env)
            times[label].append(w)
            cpu[label].append(u)
            faults[label].append(f)
    if usage is not None:
        usage.update({k: (statistics.median(cpu[k]), statistics.median(faults[k]))
                      for k in cpu})
    return {k: statistics.median(v) for k, v in times.items()}


def hyperfine_commands(b, cmds, runs):
    """hyperfine -N's median ms of each command (a cross-check)."""
    j = os.path.join(b.tmp, 'hf.json')
    argv = ['hyperfine', '-N', '-i', '--style', 'none', '--warmup', str(max(runs // 10, 2)),
            '--runs', str(runs), '--export-json', j]
    for _, c in cmds:
        argv.append(' '.join(shlex_quote(x) for x in c))
    p = subprocess.run(argv, capture_output=True, text=True, env=b.env, timeout=600)
    try:
        with open(j) as f:
            data = json.load(f)
    except (OSError, ValueError):
        b.failures.append('hyperfine: ' + p.stderr[-300:])
        return {}
    return {label: r['median'] * 1000.0 for (label, _), r in zip(cmds, data['results'])}


def shlex_quote(s):
    if re.fullmatch(r'[\w@%+=:,./-]+', s):
        return s
    return "'" + s.replace("'", "'\"'\"'") + "'"


def cg_total(b, name, argv, extra_env):
    """callgrind's total Ir of the process argv[0] runs (b.valgrind prepended), or None."""
    f = os.path.join(b.tmp, 'cg.startup.' + re.sub(r'\W', '_', name))
    if os.path.exists(f):
        os.unlink(f)
    env = dict(b.env)
    env.update(extra_env)
    prefix, rest = [], argv
    if argv and argv[0] == b.a.mockrun:
        # mockrun's own argv up to the program: valgrind goes in front of the program
        k = argv.index('--')
        prefix, rest = argv[:k + 1], argv[k + 1:]
    cmd = prefix + b.valgrind + ['--callgrind-out-file=' + f] + rest
    try:
        subprocess.run(cmd, capture_output=True, env=env, timeout=b.a.timeout)
        with open(f) as fh:
            for line in fh:
                if line.startswith('totals:') or line.startswith('summary:'):
                    return int(line.split()[1])
    except (OSError, subprocess.TimeoutExpired, ValueError):
        pass
    b.failures.append('callgrind: ' + ' '.join(cmd))
    return None


def startup_ir(b, true):
    """
    Start-up in instructions (callgrind: steady where wall time is not):
    the whole process of `true`, loader included, under each preload,
    against an empty preloaded library measured in the same run; and what
    attaching a big spec costs each process.
    """
    a = b.a
    rows = [
        ('true', {}),
        ('LD_PRELOAD=empty.so true', {'LD_PRELOAD': a.empty}),
        ('LD_PRELOAD=libmockshim.so true', {'LD_PRELOAD': a.shim}),
    ]
    ir = {label: cg_total(b, label, [true], env) for label, env in rows}
    mr = [a.mockrun, '-q']
    specs = [(n, write_spec(b, n)) for n in (1, 100000)]
    for n, path in specs:
        ir['spec %d' % n] = cg_total(b, 'spec %d' % n, mr + ['-f', path, '--', true], {})
    b.results['startup_ir'] = ir
    base = ir['LD_PRELOAD=empty.so true']
    out = ['### Start-up in instructions', '',
           'callgrind\'s instruction count (Ir) of the whole process of `true`, the dynamic '
           'loader included, measured in this run: steady where wall time is not.  The '
           'difference and the ratio are over the empty preloaded library (issue 22\'s '
           'baseline).  Under mockrun, `true` attaching a spec of N '
           '`will_return_maybe(getegid, I)` statements (valgrind\'s launcher goes between '
           'mockrun and `true`).', '',
           '| process | Ir | over empty.so | / empty.so |', '|---|---:|---:|---:|']
    for label in [r[0] for r in rows] + ['spec %d' % n for n, _ in specs]:
        v = ir[label]
        shown = label if not label.startswith('spec') else \
            'mockrun -f SPEC true, N=%s, attaching' % label.split()[1]
        if v is None or base is None:
            out.append('| `%s` | ERR | | |' % shown)
            continue
        out.append('| `%s` | %d | %+d | %.3f |' % (shown, v, v - base, v / base))
    return out


def startup(b):
    a = b.a
    true = shutil.which('true') or '/bin/true'
    env = shutil.which('env') or '/usr/bin/env'
    mr = [a.mockrun, '-q']
    cmds = [
        ('true', [true]),
        ('env true', [env, true]),
        ('env LD_PRELOAD=empty.so true', [env, 'LD_PRELOAD=' + a.empty, true]),
        ('env LD_PRELOAD=libmockshim.so true', [env, 'LD_PRELOAD=' + a.shim, true]),
        ('env LD_PRELOAD=libmockshim.so MOCKSHIM=\'will_return(getuid, 0)\' true',
         [env, 'LD_PRELOAD=' + a.shim, 'MOCKSHIM=will_return(getuid, 0)', true]),
        ('env LD_AUDIT=audit.so true (bench/audit.c)', [env, 'LD_AUDIT=' + a.audit, true]),
        ('mockrun --version', [a.mockrun, '--version']),
        ('mockrun -e \'will_return(getuid, 0)\' true', mr + ['-e', 'will_return(getuid, 0)', true]),
        # a declared function: the GOT scan of every loaded object
        ('bench none 1', [a.bench, 'none', '1']),
        ('mockrun -e \'will_return_maybe(getegid, 0)\' bench none 1',
         mr + ['-e', UNARMED_RULE, a.bench, 'none', '1']),
        ('mockrun -e \'mock int msb_add(int a, int b)\' -e \'will_return_maybe(msb_add, 7)\' '
         'bench none 1', mr + ['-e', 'mock int msb_add(int a, int b)', '-e',
                               'will_return_maybe(msb_add, 7)', a.bench, 'none', '1']),
    ]
    if b.have['fiu']:
        cmds.append(('fiu-run -x true', ['fiu-run', '-x', true]))
        cmds.append(('fiu-run -x -f \'\' true (no control fifo)', ['fiu-run', '-x', '-f', '', true]))
    if shutil.which('faketime') and b.have['faketime']:
        # libfaketime's wrapper: it too makes shared memory, starts the
        # program and waits for it
        cmds.append(('faketime \'@2023-01-01 00:00:00\' true',
                     ['faketime', '@2023-01-01 00:00:00', true]))
    if b.have['strace']:
        cmds.append(('strace -f -o /dev/null true', ['strace', '-f', '-o', os.devnull, true]))
    # the spec's cost in mockrun, and in every process that attaches: a
    # shell that runs true SPEC_PROCS times (enough of them that a per-process
    # difference stands out of mockrun's own parse, the same in both rows)
    ten = '; '.join([true] * SPEC_PROCS)
    specs = [(n, write_spec(b, n)) for n in (1, 1000, 10000, 100000)]
    big = []
    for n, path in specs:
        big.append(('spec %d' % n, mr + ['-f', path, true]))
        big.append(('spec %d xN' % n, mr + ['-f', path, 'sh', '-c', ten]))
    # the shell calls getegid (dash: at start), so the rows above make it
    # check that function's statements at its first call; the same spec on
    # a function no process of the tree calls shows the attach alone
    unused = write_spec(b, 100000, 'getsid')
    big.append(('spec 100000 getsid', mr + ['-f', unused, true]))
    big.append(('spec 100000 getsid xN', mr + ['-f', unused, 'sh', '-c', ten]))
    runs = 20 if a.quick else 300
    t0 = time.time()
    usage = {}
    med = time_commands(b, cmds, runs, usage)
    log('start-up: %d interleaved runs done (%.0f s)' % (runs, time.time() - t0))
    big_usage = {}
    med.update(time_commands(b, big, 3 if a.quick else 15, big_usage))
    b.results['spec_faults'] = {k: v[1] for k, v in big_usage.items()}
    log('start-up: specs done (%.0f s)' % (time.time() - t0))
    hf = hyperfine_commands(b, cmds, 10 if a.quick else 100) if b.have['hyperfine'] else {}
    log('start-up: hyperfine done (%.0f s)' % (time.time() - t0))
    bases = ['true', 'env true', 'env LD_PRELOAD=empty.so true']
    out = ['## Start-up', '',
           'Median wall time of %d runs of each command, interleaved in random order '
           '(posix_spawn from the script: the same constant overhead in every row), and '
           'the difference over three baselines: `true` itself, `env true` (one more '
           'exec, what any wrapper that execs pays) and an empty preloaded library.  '
           'The last column is hyperfine -N\'s median (each command\'s runs back to '
           'back: a cross-check, more exposed to load from other programs).  Issue 22\'s '
           'targets: the shim within +0.10 ms of the empty library, mockrun within +0.5 ms '
           'of `env true`.  CPU ms and faults: medians of the same runs\' user + system '
           'time and minor page faults, the command and every process it waited for '
           '(wait4): what a loaded machine inflates least.' % runs, '',
           '| command | ms | over `true` | over `env true` | over empty.so | hyperfine ms '
           '| CPU ms | CPU over `env true` | faults |',
           '|---|---:|---:|---:|---:|---:|---:|---:|---:|']
    for label, _ in cmds:
        cells = []
        for i, bl in enumerate(bases):
            if label in bases and bases.index(label) <= i:
                cells.append('')  # a baseline is not compared with itself or later ones
            else:
                cells.append('%+.2f' % (med[label] - med[bl]))
        u, f = usage[label]
        out.append('| `%s` | %.2f | %s | %s | %.2f | %s | %d |' % (
            label, med[label], ' | '.join(cells), '%.2f' % hf[label] if label in hf else 'n/a',
            u, '' if label in bases[:2] else '%+.2f' % (u - usage['env true'][0]), f))
    b.results['startup'] = dict(med)
    b.results['startup_cpu'] = {k: v[0] for k, v in usage.items()}
    if b.valgrind:
        out += [''] + startup_ir(b, true)
    one, one10 = med['spec 1'], med['spec 1 xN']
    out += ['', '### Spec size', '',
            '`mockrun -f SPEC true` for N `will_return_maybe(getegid, I)` statements; '
            '"xN": `mockrun -f SPEC sh -c \'true; ... (%d times)\'`, so that the cost each '
            'process pays to attach the channel shows (per process over N=1).  The shell '
            '(dash) calls getegid, so it checks that function\'s N statements at its first '
            'call; the getsid row is the same spec on a function no process of the tree '
            'calls: the attach alone.' % SPEC_PROCS, '',
            '| statements | mockrun ms | per statement over N=1 | xN ms | per process over N=1 |',
            '|---:|---:|---:|---:|---:|']
    rows = [(str(n), 'spec %d' % n, n) for n, _ in specs] + \
        [('100000 on getsid', 'spec 100000 getsid', 100000)]
    for shown, key, n in rows:
        m, m10 = med[key], med[key + ' xN']
        if n == 1:
            out.append('| 1 | %.2f | | %.2f | |' % (m, m10))
            continue
        out.append('| %s | %.2f | %.2f µs | %.2f | %+.3f ms |' % (
            shown, m, (m - one) * 1000.0 / (n - 1), m10,
            ((m10 - m) - (one10 - one)) / float(SPEC_PROCS)))
    return out


# ---- 4. threads ----

THREAD_VARIANTS = [
    ('plain', 'threads-shared', 'plain, all call getpid', None),
    ('shim', 'threads-shared', 'LD_PRELOAD=libmockshim.so, all call getpid', None),
    ('unarmed', 'threads-shared', 'mockrun, rule for another function, all call getpid', None),
    ('shared', 'threads-shared', 'one shared queue: will_return_count(getpid, 42, 1000000)',
     ['will_return_count(getpid, 42, %d)' % QUEUE]),
    ('plain', 'threads-unrelated', 'plain, getpid/getuid/getgid/geteuid', None),
    ('unrelated', 'threads-unrelated', 'unrelated queues: will_return_count each of the 4',
     ['will_return_count(%s, 42, %d)' % (f, QUEUE) for f in ('getpid', 'getuid', 'getgid',
                                                              'geteuid')]),
    # what a count kept on one line costs threads that share it, with no
    # mock (bench.c's threads-atomic): what a queue's turn cost before
    # lanes, and still costs for a queue too short for one
    ('atomic', 'threads-atomic', 'one atomic add on one shared line a call, no mock (a count '
     'on one line: a queue without a lane)', None),
]


def threads(b):
    a = b.a
    n = 5000 if a.quick else 200000
    counts = (1, 2, 4)
    vals = {}
    t0 = time.time()
    for r in range(a.rounds):
        for key, mode, label, stmts in THREAD_VARIANTS:
            if key in ('shared', 'unrelated'):
                prefix, env = b.mockrun(*stmts)
            else:  # the floor row runs as plain does
                prefix, env = b.variant('plain' if key == 'atomic' else key, OPS[0])
            for t in counts:
                res = b.run(prefix + [a.bench, mode, str(t), str(n)], env)
                vals.setdefault((label, t), []).append(res['ns'] if res else None)
                vals.setdefault((label, t, 'wall'), []).append(res['wall_ns'] if res else None)
        log('threads: round %d/%d done (%.0f s)' % (r + 1, a.rounds, time.time() - t0))

    def med(k):
        v = [x for x in vals.get(k, []) if x is not None]
        return statistics.median(v) if v else None

    cpus = os.cpu_count() or 1
    par = max(t for t in counts if t <= max(cpus, 1))  # threads that can run at once
    out = ['## Threads', '',
           'Each thread calls its function %d times; ns is the thread\'s CPU time per '
           'call (CLOCK_THREAD_CPUTIME_ID), averaged over the threads, median of %d '
           'rounds; in parentheses the wall time per call of each thread (the machine has '
           '%d CPUs: it grows once the threads outnumber them, and equals the CPU time '
           'where they really ran at once).  Issue 22\'s limits, judged at %d threads '
           '(as many as run at once here): unrelated queues within %.1fx of 1 thread, one '
           'shared queue within %.0fx.' % (n, a.rounds, cpus, par, THREAD_LIMITS['unrelated'],
                                            THREAD_LIMITS['shared']), '',
           '| variant | ' + ' | '.join('%d thread%s' % (t, 's' if t > 1 else '') for t in counts)
           + ' | %d / 1 | 4 / 1 |' % par, '|---|' + '---:|' * (len(counts) + 2)]
    b.results['threads'] = {}
    for key, _, label, _ in THREAD_VARIANTS:
        cells = []
        for t in counts:
            c, w = med((label, t)), med((label, t, 'wall'))
            cells.append('%.1f (%.0f)' % (c, w) if c is not None else 'ERR')
        one, at, four = med((label, 1)), med((label, par)), med((label, 4))
        ratio = '%.2fx' % (at / one) if one and at else 'ERR'
        if key in THREAD_LIMITS and one and at:
            ratio += '' if at / one <= THREAD_LIMITS[key] else ' **over**'
            wall = med((label, par, 'wall'))
            b.results['threads'][key] = (par, at / one, wall / at if wall and at else None)
            b.results['threads'][key + ' ns'] = (one, at)
        if key == 'atomic' and one and at:
            b.results['threads']['floor ns'] = (one, at)
        ratio4 = '%.2fx' % (four / one) if one and four else 'ERR'
        out.append('| %s | %s | %s | %s |' % (label, ' | '.join(cells), ratio, ratio4))
    return out


# ---- 5. memory ----

def memory(b):
    a = b.a
    specs = {n: write_spec(b, n) for n in (1000, 100000)}
    variants = [
        ('plain', [], {}),
        ('LD_PRELOAD=empty.so', [], {'LD_PRELOAD': a.empty}),
        ('LD_PRELOAD=libmockshim.so, no channel', [], {'LD_PRELOAD': a.shim}),
        ('mockrun, 1 rule (another function)', b.mockrun(UNARMED_RULE)[0], {}),
        ('mockrun, 1,000 rules', [a.mockrun, '-q', '-f', specs[1000], '--'], {}),
        ('mockrun, 100,000 rules', [a.mockrun, '-q', '-f', specs[100000], '--'], {}),
    ]
    rows = {}
    for _ in range(5):
        for label, prefix, env in variants:
            res = b.run(prefix + [a.bench, 'rss'], env)
            if res:
                rows.setdefault(label, []).append(res)
    # a program that consumed 1,000,000 queued values: the event log's pages
    consumed = b.run(b.mockrun('will_return_count(getpid, 42, %d)' % QUEUE)[0] +
                     [a.bench, 'getpid', '100000', '3'], {})
    out = ['## Memory', '',
           'VmRSS and its parts from /proc/self/status of bench, kB (median of 5 runs; '
           'shmem is the channel\'s pages the program touched).', '',
           '| process | VmRSS | anon | file | shmem | VmRSS over plain |',
           '|---|---:|---:|---:|---:|---:|']
    base = statistics.median(r['rss_kb'] for r in rows['plain'])

    def line(label, rs):
        m = {k: statistics.median(r[k] for r in rs) for k in ('rss_kb', 'anon_kb', 'file_kb',
                                                             'shmem_kb')}
        return '| %s | %d | %d | %d | %d | %+d |' % (label, m['rss_kb'], m['anon_kb'],
                                                    m['file_kb'], m['shmem_kb'],
                                                    m['rss_kb'] - base)
    mem = {}
    for label, _, _ in variants:
        if label in rows:
            out.append(line(label, rows[label]))
            mem[label] = {k: statistics.median(r[k] for r in rows[label])
                          for k in ('rss_kb', 'anon_kb')}
    mem['plain_rss'] = base
    b.results['memory'] = mem
    if consumed:
        out.append(line('mockrun, after 300,064 queued getpid values consumed', [consumed]))

    # the channel's size, from the memfd mockrun passes
    sizes = {}
    for n in (1, 1000, 10000, 100000):
        stmts = ['-e', UNARMED_RULE] if n == 1 else ['-f', write_spec(b, n)]
        # MOCKSHIM_CHANNEL names two memfds: the spec's, the state's
        p = subprocess.run([a.mockrun, '-q'] + stmts +
                           ['--', 'sh', '-c', 'IFS=,; stat -L -c %s $MOCKSHIM_CHANNEL'],
                           capture_output=True, text=True, env=b.env)
        try:
            sizes[n] = [int(x) for x in p.stdout.split()[:2]]
            sizes[n][1]
        except (IndexError, ValueError):
            sizes.pop(n, None)
            b.failures.append('channel size for %d statements: %s' % (n, p.stderr[-300:]))
    out += ['', '### Channel size', '',
            'The two memfds mockrun creates (stat of the paths in $MOCKSHIM_CHANNEL): the '
            'compiled spec and the state the shims write (counters, events), for N '
            'will_return_maybe(getegid, I) statements.', '',
            '| statements | spec bytes | state bytes | spec bytes per statement over 1 | '
            'state bytes per statement over 1 |', '|---:|---:|---:|---:|---:|']
    for n, (sp, st) in sorted(sizes.items()):
        if n == 1 or 1 not in sizes:
            per = ' | '
        else:
            per = '%.1f | %.1f' % ((sp - sizes[1][0]) / (n - 1), (st - sizes[1][1]) / (n - 1))
        out.append('| %d | %d | %d | %s |' % (n, sp, st, per))
    b.results['channel'] = sizes
    return out


# ---- 6. what an audit module is told of ----

def audit_sees(b):
    """
    Declared prototypes could be bound by LD_AUDIT (la_symbind64) or by
    patching the GOT (what declared.c does).  For the test programs of
    tests/declared, linked four ways, which bindings of decl_add does
    la_symbind64 hear of, and do both of its calls get mocked by GOT
    patching?
    """
    d = os.path.join(b.a.build_dir, 'tests', 'declared')
    rows = []
    for v, how in (('lazy', 'PIE, lazy binding'), ('now', 'PIE, -z now'),
                   ('noplt', 'PIE, -fno-plt'), ('nopie', 'no PIE, lazy')):
        prog = os.path.join(d, 'decl_' + v)
        if not os.path.exists(prog):
            return ['## LD_AUDIT or GOT patching', '', 'tests/declared is not built.']
        env = {'LD_LIBRARY_PATH': d, 'LD_AUDIT': b.a.audit, 'MSB_AUDIT_SHOW': 'decl_add'}
        e = dict(b.env)
        e.update(env)
        p = subprocess.run([prog, 'add', 'pointer'], capture_output=True, text=True, env=e)
        seen = 'yes' if 'la_symbind64 decl_add\n' in p.stderr else '**no**'
        e = dict(b.env)
        e['LD_LIBRARY_PATH'] = d
        p = subprocess.run([b.a.mockrun, '-q', '-e', 'mock int decl_add(int a, int b)', '-e',
                            'will_return_always(decl_add, 77)', prog, 'add', 'pointer'],
                           capture_output=True, text=True, env=e)
        mocked = 'yes' if p.stdout.startswith('add 77\npointer 77 77') else \
            '**no** (%s)' % p.stdout.strip().replace('\n', '; ')
        rows.append('| decl_%s (%s) | %s | %s |' % (v, how, seen, mocked))
    return ['## LD_AUDIT or GOT patching', '',
            'tests/declared/prog.c calls decl_add (libdecl.so) directly and through a '
            'pointer to it.  Middle column: does an audit module\'s la_symbind64 '
            '(bench/audit.c, MSB_AUDIT_SHOW=decl_add) hear of a binding of decl_add?  '
            'It is only told of PLT (JUMP_SLOT) bindings, not of GOT entries '
            '(GLOB_DAT), which -fno-plt calls and taken addresses use.  Last column: '
            'do both calls get mocked with `mock int decl_add(int a, int b)` and GOT '
            'patching?', '',
            '| program | la_symbind64 told of decl_add | GOT patching mocks both calls |',
            '|---|:---:|:---:|'] + rows


# ---- main ----

# ---- 7. what the numbers say, in sentences made from them ----

def verdict(ok):
    return 'met' if ok else '**missed**'


def load_note(b):
    """What the machine's load says of this run's wall times."""
    cpus = os.cpu_count() or 1
    top = max(b.load)
    if top <= cpus:
        return ''
    return ('  The load average reached %.1f on %d CPUs during the run: wall times then '
            'include waiting for a CPU, and only the callgrind and CPU-time figures are '
            'steady.' % (top, cpus))


def summary(b):
    """
    The findings of this run as sentences computed from its own numbers:
    what bench/README.md says about the current tree comes from here
    (run.py --readme), so that no figure in it is typed by hand.
    """
    r = b.results
    out = ['## Summary of this run (generated by run.py from the tables below)', '']
    ir = r.get('ir')
    if ir and ir.get(('plain', 'none')) is not None:
        none = ir[('plain', 'none')]
        fc = ir[('plain', 'floor_const')] - none
        fq = ir[('plain', 'floor_queue')] - none
        for key, label, floor in (('always', '`will_return_always` with a constant', fc),
                                  ('queue', 'a queued value (`will_return_count`)', fq)):
            vals = {op: ir[(key, op)] - none for (k, op) in ir
                    if k == key and ir[(k, op)] is not None and op in CATALOG_OPS}
            if not vals:
                continue
            lo, hi = min(vals.values()), max(vals.values())
            out.append('- %s: %+.0f to %+.0f instructions per call over the empty loop on %s '
                       '(limit %d: %s); the hand-written floor stub costs %+.0f, so mockshim / '
                       'floor is %.1fx to %.1fx.' % (
                           label, lo, hi, ', '.join(sorted(vals)), FLOOR_TARGETS[key],
                           verdict(hi <= FLOOR_TARGETS[key]), floor,
                           lo / floor if floor > 0 else 0, hi / floor if floor > 0 else 0))
            # the same less each call site's own share (its arguments)
            site = {op: ir[(key, op)] - ir[('plain', SITE_FLOOR[op])] + fc for op in vals
                    if ir.get(('plain', SITE_FLOOR[op])) is not None}
            if site and hi > FLOOR_TARGETS[key]:
                out.append('  With each call site\'s own share taken out (a constant stub '
                           'called the same way, bench/floor.c): %s (limit %d: %s).' % (
                               ', '.join('%s %+.0f' % (op, site[op]) for op in sorted(site)),
                               FLOOR_TARGETS[key],
                               verdict(max(site.values()) <= FLOOR_TARGETS[key])))
        ex = {op: ir[('expect', op)] - ir[('plain', op)] for (k, op) in ir
              if k == 'expect' and ir[(k, op)] is not None and op in CATALOG_OPS
              and ir.get(('plain', op)) is not None}
        if ex:
            out.append('- `expect_value`: %+.0f to %+.0f over plain on %s (limit +50: %s).' % (
                min(ex.values()), max(ex.values()), ', '.join(sorted(ex)),
                verdict(max(ex.values()) <= 50)))
        o1 = {op: ir[('output', op)] - ir[('always', op)] for (k, op) in ir
              if k == 'output' and ir[(k, op)] is not None
              and ir.get(('always', op)) is not None}
        if o1:
            out.append('- One output (`buf=` on read, `*tp=` on clock_gettime): %s over the '
                       'same reply without it (limit +%d: %s).' % (
                           ', '.join('%s %+.0f' % (op, o1[op]) for op in sorted(o1)),
                           OUTPUT_LIMIT, verdict(max(o1.values()) <= OUTPUT_LIMIT)))
        tr = {op: ir[('trace', op)] - ir[('plain', op)] for (k, op) in ir
              if k == 'trace' and ir[(k, op)] is not None and op in CATALOG_OPS
              and ir.get(('plain', op)) is not None}
        if tr:
            out.append('- `--trace`: %s over plain per traced call (limit +%d: %s).' % (
                ', '.join('%s %+.0f' % (op, tr[op]) for op in sorted(tr)), TRACE_LIMIT,
                verdict(max(tr.values()) <= TRACE_LIMIT)))
    st = r.get('startup')
    if st:
        shim = st['env LD_PRELOAD=libmockshim.so true'] - st['env LD_PRELOAD=empty.so true']
        mr = st["mockrun -e 'will_return(getuid, 0)' true"] - st['env true']
        cpu = r.get('startup_cpu', {})
        key = "mockrun -e 'will_return(getuid, 0)' true"
        peers = [(k, st[k] - st['env true']) for k in st
                 if k.startswith('fiu-run -x true') or k.startswith('faketime ')]
        out.append('- Start-up: `LD_PRELOAD=libmockshim.so true` is %+.2f ms over an empty '
                   'preload (limit +0.10 ms: %s); `mockrun -e \'will_return(getuid, 0)\' '
                   'true` is %+.2f ms over `env true` (limit +0.5 ms: %s)%s%s; medians of one '
                   'interleaved run.%s' % (
                       shim, verdict(shim <= 0.10), mr, verdict(mr <= 0.5),
                       ', %+.2f ms of CPU time' % (cpu[key] - cpu['env true'])
                       if key in cpu and 'env true' in cpu else '',
                       ''.join('; `%s` %+.2f ms' % (k, d) for k, d in peers),
                       load_note(b)))
        if 'spec 100000 getsid xN' in st and 'spec 100000 xN' in st:
            def per(k):
                return (((st[k + ' xN'] - st[k]) - (st['spec 1 xN'] - st['spec 1'])) /
                        float(SPEC_PROCS))
            fl = r.get('spec_faults', {})
            faults = ''
            if all(k in fl for k in ('spec 1', 'spec 1 xN', 'spec 100000 getsid',
                                     'spec 100000 getsid xN')):
                faults = ', %+.1f page faults' % (
                    ((fl['spec 100000 getsid xN'] - fl['spec 100000 getsid']) -
                     (fl['spec 1 xN'] - fl['spec 1'])) / float(SPEC_PROCS))
            out.append('- Each process that attaches a 100,000-statement spec on a function it '
                       'does not call pays %+.3f ms more than with a 1-statement spec (the xN '
                       '`sh -c` rows on getsid%s; %d processes a run, so that the noise of '
                       'mockrun\'s own parse of the 100,000 statements, the same in both rows, '
                       'is spread over them; limit +0.050 ms: %s by wall time; the instruction '
                       'count below is the steady measure); where the shell calls the function '
                       '(getegid) it checks that function\'s 100,000 statements at the first '
                       'call: %+.3f ms a process, the shell\'s spread over the tree.' % (
                           per('spec 100000 getsid'), faults, SPEC_PROCS,
                           verdict(per('spec 100000 getsid') <= 0.05), per('spec 100000')))
    si = r.get('startup_ir')
    if si and None not in si.values():
        over = si['LD_PRELOAD=libmockshim.so true'] - si['LD_PRELOAD=empty.so true']
        out.append('- Start-up in instructions: `LD_PRELOAD=libmockshim.so true` is %+d Ir '
                   '(%.3fx) over an empty preload; a `true` that attaches a 100,000-statement '
                   'spec runs %+d Ir more than one that attaches a 1-statement spec (limit: '
                   'the +0.050 ms above, about 150,000 instructions here).' % (
                       over, si['LD_PRELOAD=libmockshim.so true'] / si['LD_PRELOAD=empty.so true'],
                       si['spec 100000'] - si['spec 1']))
    th = r.get('threads')
    for key, what in (('unrelated', 'unrelated queues'), ('shared', 'one shared queue')):
        if th and key in th:
            par, ratio, wall = th[key]
            out.append('- Threads, %s: %d threads at %.2fx the CPU time per call of one '
                       '(limit %.1fx: %s)%s.' % (
                           what, par, ratio, THREAD_LIMITS[key],
                           verdict(ratio <= THREAD_LIMITS[key]),
                           '; wall over CPU time %.2f (1.0: they ran at once)' % wall
                           if wall else ''))
    if th and 'floor ns' in th and 'shared ns' in th:
        (fa, fc), (qa, qc) = th['floor ns'], th['shared ns']
        extra = fc - fa  # what the line's moves add to one atomic add
        out.append('- What the lanes save, in the same run: %d threads adding 1 to one '
                   'shared counter with a bare atomic instruction, no mock, take %.1f ns per '
                   'add against %.1f ns alone: the cache line moving between the CPUs adds '
                   '%.1f ns to every add, which a queue counted on one line pays on every '
                   'turn (%.2fx over its %.1f ns alone).  The queue takes its turns %d at a '
                   'time into each thread\'s lane (channel.h) and measured %.1f ns, %.2fx.' % (
                       th['shared'][0], fc, fa, extra, (qa + extra) / qa, qa, LANE_BATCH,
                       qc, qc / qa))
    pa = r.get('parsing')
    if pa:
        keys = [k for k in pa if k != 'line']
        first, last = keys[0], keys[-1]
        per = [(pa[k]['cpu'] - pa[first]['cpu']) * 1000.0 / (pa[k]['n'] - pa[first]['n'])
               for k in keys[1:]]
        if per:
            out.append('- Parsing: CPU time per statement beyond the %d-statement run: %s '
                       '(%s).' % (
                           pa[first]['n'], ', '.join('%.2f µs at %d' % (x, pa[k]['n'])
                                                     for x, k in zip(per, keys[1:])),
                           'linear: the largest spec\'s is not a quarter above the smallest'
                           if per[-1] <= 1.25 * min(per) else
                           '**not linear**: the largest spec\'s is more than a quarter above '
                           'the smallest'))
        if '1000000' in pa:
            x = pa['1000000']
            out.append('- 1,000,000 statements: %.2f s wall, %.2f s CPU (limit %.0f s: %s by '
                       'CPU time, %s by wall time on this shared machine).' % (
                           x['wall'] / 1000, x['cpu'] / 1000, PARSE_TARGETS['1000000'],
                           verdict(x['cpu'] / 1000 <= PARSE_TARGETS['1000000']),
                           verdict(x['wall'] / 1000 <= PARSE_TARGETS['1000000'])))
        if 'line' in pa:
            x = pa['line']
            out.append('- One line of %d statements: %.2f s wall, %.2f s CPU (limit %.0f s for '
                       '10 MiB: %s by CPU time).' % (
                           x['n'], x['wall'] / 1000, x['cpu'] / 1000, PARSE_TARGETS['line'],
                           verdict(x['cpu'] / 1000 <= PARSE_TARGETS['line'])))
        if '100000' in pa and pa['100000']['rss'] is not None:
            x = pa['100000']['rss']
            out.append('- mockrun\'s maximum RSS with 100,000 statements: %.1f MB (limit %.0f '
                       'MB: %s).' % (x, PARSE_TARGETS['rss100000'],
                                     verdict(x <= PARSE_TARGETS['rss100000'])))
    mem = r.get('memory')
    if mem and 'LD_PRELOAD=libmockshim.so, no channel' in mem and 'plain' in mem:
        sh, pl = mem['LD_PRELOAD=libmockshim.so, no channel'], mem['plain']
        out.append('- Memory: the preloaded shim with no channel adds %d kB of RSS to bench, '
                   '%d kB of it anonymous.' % (sh['rss_kb'] - pl['rss_kb'],
                                               sh['anon_kb'] - pl['anon_kb']))
    ch = r.get('channel')
    if ch and 1 in ch and 100000 in ch:
        out.append('- Channel: %d + %d bytes (spec + state) for one statement, %.0f spec bytes '
                   'per statement up to 100,000.' % (
                       ch[1][0], ch[1][1], (ch[100000][0] - ch[1][0]) / 99999.0))
    if len(out) == 2:
        return []
    return out + ['']


README_BEGIN = '<!-- run.py --readme: generated from here -->'
README_END = '<!-- run.py --readme: generated to here -->'


def write_readme(path, text):
    """Replaces the block between the markers in path with text."""
    with open(path) as f:
        doc = f.read()
    i, j = doc.find(README_BEGIN), doc.find(README_END)
    if i < 0 or j < i:
        sys.exit('run.py: %s has no %s ... %s block' % (path, README_BEGIN, README_END))
    doc = doc[:i + len(README_BEGIN)] + '\n\n' + text.rstrip('\n') + '\n\n' + doc[j:]
    with open(path, 'w') as f:
        f.write(doc)


# ---- 8. the syscall tier (issue 25) ----

# (key, label, bench op, SYS_ statement, strace's comparison)
SYS_ROWS = [
    ('getppid', 'SYS_getppid: `will_return_always(SYS_getppid, 42)`', 'getppid',
     'will_return_always(SYS_getppid, 42)', ['-e', 'inject=getppid:retval=42']),
    ('read_buf', 'SYS_read, 1 byte: `will_return_always(SYS_read, _, buf="x", when(fd == 100))`',
     'read', 'will_return_always(SYS_read, _, buf="x", when(fd == 100))',
     ['-e', 'inject=read:retval=1:when={first}..{last}']),
    ('read_real', 'SYS_read: `will_call_real(SYS_read, -1)` (the real call: CONTINUE)', 'read',
     'will_call_real(SYS_read, -1)', ['-e', 'trace=read']),
]
SYS_N = {'plain': 200000, 'sys': 20000, 'strace': 2000}
BENCH_FD = 100  # bench.c's /dev/zero, which its read loop reads
BENCH_WARMUP = 64  # bench.c's WARMUP


def loader_reads(b):
    """
    How many read calls bench makes before its loop's first (on fd
    BENCH_FD): the loader's, of each library's ELF header, whose number
    changes with the libraries bench loads.  strace -e inject counts every
    read, so its when= must start after them (an injected loader read is
    "invalid ELF header").  None when it cannot be told.
    """
    with tempfile.NamedTemporaryFile(prefix='bench-strace.') as log:
        try:
            subprocess.run(['strace', '-f', '-o', log.name, '-e', 'trace=read',
                            b.a.bench, 'read', '1', '1', '0'],
                           capture_output=True, timeout=60, check=True)
        except (OSError, subprocess.SubprocessError):
            return None
        with open(log.name) as f:
            for k, line in enumerate(l for l in f if re.match(r'\d+ +read\(', l)):
                if re.match(r'\d+ +read\(%d,' % BENCH_FD, line):
                    return k
    return None


def syscall_tier(b):
    """
    Per intercepted call, wall time: the bench loop plain, under mockrun
    with a SYS_ statement (the seccomp supervisor answers every call), and
    under strace -f (inject, or trace only for the real call), interleaved
    in each round; then an unarmed syscall under the filter, and start-up.
    """
    a = b.a
    rounds = a.rounds
    unarmed_stmt = 'will_return_maybe(getegid, 0)'
    cells = {}
    t0 = time.time()
    before = loader_reads(b) if b.have['strace'] else None
    for r in range(rounds):
        for key, _, op, stmt, strace_args in SYS_ROWS:
            runs = [('plain', [], SYS_N['plain'])]
            runs.append(('sys', [a.mockrun, '-q', '-e', stmt], SYS_N['sys']))
            ns = {v: max(n // 10, 10) if a.quick else n for v, n in SYS_N.items()}
            if b.have['strace'] and (before is not None or
                                     not any('{first}' in x for x in strace_args)):
                # bench's own reads only: after the loader's, its warm-up
                # and 3 repetitions of the loop (not its /proc reads after)
                runs.append(('strace', ['strace', '-f', '-o', os.devnull] +
                             [x.format(first=(before or 0) + 1,
                                       last=(before or 0) + BENCH_WARMUP + 3 * ns['strace'])
                              for x in strace_args], SYS_N['strace']))
            for variant, prefix, _ in runs:
                n = ns[variant]
                res = b.run(prefix + [a.bench, op, str(n), '3'], {})
                cells.setdefault((key, variant), []).append(res['ns'] if res else None)
        # an unarmed system call (getpid) under the filter, beside the same
        # mockrun run with no SYS_ statement (no filter)
        for variant, stmts in (('nofilter', [unarmed_stmt]),
                               ('filter', [unarmed_stmt, 'will_return_maybe(SYS_getppid, 1)'])):
            argv = [a.mockrun, '-q']
            for s in stmts:
                argv += ['-e', s]
            res = b.run(argv + [a.bench, 'getpid', str(SYS_N['plain'] // (10 if a.quick else 1)),
                                '3'], {})
            cells.setdefault(('unarmed', variant), []).append(res['ns'] if res else None)
        log('syscall tier: round %d/%d done (%.0f s)' % (r + 1, rounds, time.time() - t0))
    med = {}
    for k, vals in cells.items():
        vals = [x for x in vals if x is not None]
        med[k] = statistics.median(vals) if vals else None
    true = shutil.which('true') or '/bin/true'
    runs = 10 if a.quick else 60
    st = time_commands(b, [
        ('no SYS_ statement', [a.mockrun, '-q', '-e', unarmed_stmt, true]),
        ('SYS_ statement', [a.mockrun, '-q', '-e', 'will_fail_count(SYS_unlinkat, EIO, -2)', true]),
    ], runs)
    log('syscall tier: start-up done (%.0f s)' % (time.time() - t0))

    def us(v):
        return '%.2f' % (v / 1000.0) if v is not None else 'ERR'

    out = ['## The syscall tier: SYS_ statements (seccomp user notification)', '',
           'Median over %d rounds (each the fastest of 3 repetitions) of wall time per call '
           'of bench\'s loop, the variants interleaved in each round; µs per call, and the '
           'ratio to plain and to strace in the same run.  strace -f -e inject=FN:retval=V '
           'cannot write the 1-byte buffer: its row injects the return value only, into '
           'bench\'s own reads (when=%s: strace counts every read, and the loader reads %s '
           'libraries\' headers first, counted before the rounds; the SYS_ row aims at '
           'bench\'s fd 100 with when()); for the real call it is -e trace=read.' % (
               rounds, '%d..' % (before + 1) if before is not None else '?',
               before if before is not None else 'its'), '',
           '| call | plain µs | SYS_ statement µs | × plain | strace -f µs | strace / SYS_ |',
           '|---|---:|---:|---:|---:|---:|']
    for key, label, _, _, _ in SYS_ROWS:
        p, s, t = med.get((key, 'plain')), med.get((key, 'sys')), med.get((key, 'strace'))
        out.append('| %s | %s | %s | %s | %s | %s |' % (
            label, us(p), us(s), '%.0f×' % (s / p) if p and s else 'n/a', us(t),
            '%.1f×' % (t / s) if s and t else 'n/a'))
    nf, f = med.get(('unarmed', 'nofilter')), med.get(('unarmed', 'filter'))
    out += ['', 'An unarmed system call under the filter (getpid, with a statement on '
            'SYS_getppid): %s ns per call, %s ns without a filter (%s).' % (
                '%.1f' % f if f else 'ERR', '%.1f' % nf if nf else 'ERR',
                '%+.1f%%' % ((f / nf - 1) * 100) if f and nf else 'n/a'),
            '',
            'Start-up, median of %d interleaved runs of mockrun ... true: %.2f ms with no SYS_ '
            'statement, %.2f ms with `will_fail_count(SYS_unlinkat, EIO, -2)` (%+.2f ms: the '
            'filter, the listener\'s hand-over, the supervisor thread).' % (
                runs, st['no SYS_ statement'], st['SYS_ statement'],
                st['SYS_ statement'] - st['no SYS_ statement'])]
    return out


def header(b):
    def cmd(argv):
        try:
            return subprocess.run(argv, capture_output=True, text=True, cwd=ROOT).stdout.strip()
        except OSError:
            return ''
    cpu = ''
    try:
        with open('/proc/cpuinfo') as f:
            cpu = next((l.split(':', 1)[1].strip() for l in f if l.startswith('model name')), '')
    except OSError:
        pass
    rev = cmd(['git', 'rev-parse', '--short', 'HEAD'])
    dirty = ' (+ uncommitted changes)' if cmd(['git', 'status', '--porcelain',
                                                '--untracked-files=no']) else ''
    peers = ', '.join(k for k in ('fiu', 'faketime', 'sockwrap', 'strace', 'ltrace', 'valgrind',
                                  'hyperfine') if b.have[k])
    return ['# mockshim benchmarks', '',
            '- date: %s' % datetime.datetime.now().strftime('%Y-%m-%d %H:%M %Z').strip(),
            '- tree: %s%s' % (rev, dirty),
            '- machine: %s, %d CPUs, Linux %s, %s' % (cpu, os.cpu_count() or 0,
                                                    platform.release(),
                                                    ' '.join(platform.libc_ver())),
            '- peers found: %s' % peers,
            '- command: `%s`' % ' '.join(shlex_quote(x) for x in sys.argv), '']


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    build = os.path.join(ROOT, 'build')
    p.add_argument('--build-dir', default=build)
    p.add_argument('--bench')
    p.add_argument('--shim')
    p.add_argument('--mockrun')
    p.add_argument('--empty')
    p.add_argument('--audit')
    p.add_argument('--rounds', type=int, default=7)
    p.add_argument('--only', default='percall,callgrind,startup,parsing,threads,memory,audit,syscall',
                   help='sections, comma separated')
    p.add_argument('--ops', default=','.join(op.name for op in OPS),
                   help='calls to measure, comma separated')
    p.add_argument('--quick', action='store_true', help='fewer calls and runs (a smoke test)')
    p.add_argument('--timeout', type=float, default=120)
    p.add_argument('-o', '--output', help='also write the tables there')
    p.add_argument('--readme', help='write the tables and the summary into this file, '
                   'between its generated-block markers (bench/README.md)')
    a = p.parse_args()
    d = a.build_dir
    a.bench = a.bench or os.path.join(d, 'bench', 'bench')
    a.shim = a.shim or os.path.join(d, 'libmockshim', 'libmockshim.so')
    a.mockrun = a.mockrun or os.path.join(d, 'runner', 'mockrun')
    a.empty = a.empty or os.path.join(d, 'bench', 'libmsbenchempty.so')
    a.audit = a.audit or os.path.join(d, 'bench', 'libmsbenchaudit.so')
    for f in (a.bench, a.shim, a.mockrun, a.empty, a.audit):
        if not os.path.exists(f):
            sys.exit('run.py: %s not found: build first (ninja -C build)' % f)
    a.bench, a.shim, a.mockrun, a.empty, a.audit = map(
        os.path.abspath, (a.bench, a.shim, a.mockrun, a.empty, a.audit))
    if a.quick:
        a.rounds = min(a.rounds, 2)
    sections = a.only.split(',')
    ops = [op for op in OPS if op.name in a.ops.split(',')]
    b = Bench(a)
    t0 = time.time()
    out = header(b)
    head = list(out)
    try:
        if 'percall' in sections:
            out += percall_table(b, ops, percall(b, ops)) + ['']
        if 'callgrind' in sections:
            if b.have['valgrind']:
                cg_ops = ops + [Op(n, n, 0, '0', cg_n=2000) for n in BASE_OPS]
                ir = callgrind(b, cg_ops)
                b.results['ir'] = ir
                out += callgrind_tables(b, ops, ir) + ['']
                out += floor_table(ops, ir) + ['']
            else:
                out += ['## Instructions per call', '', 'valgrind is not installed.', '']
        if 'startup' in sections:
            b.load.append(os.getloadavg()[0])
            out += startup(b) + ['']
            b.load.append(os.getloadavg()[0])
        if 'parsing' in sections:
            out += parsing(b) + ['']
        if 'threads' in sections:
            out += threads(b) + ['']
        if 'memory' in sections:
            out += memory(b) + ['']
        if 'audit' in sections:
            out += audit_sees(b) + ['']
        if 'syscall' in sections:
            out += syscall_tier(b) + ['']
    finally:
        shutil.rmtree(b.tmp, ignore_errors=True)
    b.load.append(os.getloadavg()[0])
    out[len(head):len(head)] = summary(b)
    out.insert(len(head) - 1, '- 1-minute load averages sampled during the run, first to last: %s' % (
        ', '.join('%.1f' % x for x in b.load)))
    out.append('Total benchmark time: %.0f s.' % (time.time() - t0))
    if b.failures:
        out += ['', '## Runs that failed (ERR cells)', '']
        out += ['- `%s`' % f.replace('\n', ' ')[:600] for f in b.failures]
    text = '\n'.join(out) + '\n'
    sys.stdout.write(text)
    if a.output:
        with open(a.output, 'w') as f:
            f.write(text)
    if a.readme:
        # under the README's "## Results on this machine": no title of its
        # own, every heading one level down
        body = text.split('\n', 1)[1] if text.startswith('# ') else text
        write_readme(a.readme, re.sub(r'^#', '##', body.lstrip('\n'), flags=re.M))
    return 0


if __name__ == '__main__':
    sys.exit(main())
