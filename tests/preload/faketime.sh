#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fake_time(WHEN, rate=, clocks=, stat=, in=): time that moves, in every
# process of the tree.  Bounds on durations are generous: these check
# behaviour (a sleep shortened ten times, a deadline not a day away), not
# speed.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
P=$CLOCKPROBE
Y2030=1893456000
now() { date +%s.%N; }
# since START: seconds, as a decimal
since() { python3 -c "import sys; print('%.2f' % ($(now) - $1))"; }
lt() { python3 -c "import sys; sys.exit(not ($1 < $2))"; }

t "date, perl and python say 2030 under fake_time(\"2030-01-01 00:00:00\")"
run "$M" -q -e 'fake_time("2030-01-01 00:00:00")' date -u '+%Y-%m-%d %H:%M'
want_rc 0; want_out "2030-01-01 00:00"
run "$M" -q -e 'fake_time("2030-01-01 00:00:00")' perl -e 'print scalar gmtime'
want_out_has "Jan  1 00:00:0"; want_out_has "2030"
run "$M" -q -e 'fake_time("2030-01-01 00:00:00")' python3 -I -c \
	'import time, datetime; print(int(time.time()), time.gmtime().tm_year, datetime.datetime.now(datetime.timezone.utc).year)'
set -- $out
[ "${1:-0}" -ge $Y2030 ] && [ "${1:-0}" -le $((Y2030 + 5)) ] || problem "time.time() is $1"
[ "${2:-}" = 2030 ] && [ "${3:-}" = 2030 ] || problem "gmtime/datetime: $out"; done_t

t "python time.sleep(0.3) returns, and the fake clock moved about 0.3 s"
run "$M" -q -e 'fake_time("2030-01-01 00:00:00")' python3 -I -c \
	'import time; a = time.time(); time.sleep(0.3); print("%.2f" % (time.time() - a))'
want_rc 0
lt 0.29 "${out:-0}" && lt "${out:-9}" 1.5 || problem "the clock moved $out s over a 0.3 s sleep"; done_t

t "two processes of a tree read one clock, which runs on"
run "$M" -e 'fake_time("2030-01-01 00:00:00")' sh -c 'date +%s; sleep 1; date +%s'
set -- $out
[ "${1:-0}" -ge $Y2030 ] && [ "${1:-0}" -le $((Y2030 + 3)) ] || problem "first date: $1"
[ $(( ${2:-0} - ${1:-0} )) -ge 1 ] && [ $(( ${2:-0} - ${1:-0} )) -le 3 ] || problem "second date: $2"
want_err_has 'fake_time("2030-01-01 00:00:00"): clocks read 2 times by date['; done_t

# A run's own cost (processes starting: seconds each under qemu-user)
# is measured in the same run, with no sleep, and taken off.
t "rate=10, clocks=all: sleep 2 takes about 0.2 s while the wall clock moves 2 s"
start=$(now)
run "$M" -q -e 'fake_time("+0s", rate=10, clocks=all)' sh -c 'date +%s.%N; sleep 0; date +%s.%N'
base=$(since "$start")
set -- $out
# the fake seconds between the two dates with no sleep: ten times the
# real time sleep 0 and date take to start
moved0=$(python3 -c "print(${2:-0} - ${1:-0})")
start=$(now)
run "$M" -q -e 'fake_time("+0s", rate=10, clocks=all)' sh -c 'date +%s.%N; sleep 2; date +%s.%N'
took=$(since "$start")
set -- $out
lt "$took" "$base + 1.3" || problem "sleep 2 took $took s ($base s without the sleep)"
moved=$(python3 -c "print(${2:-0} - ${1:-0})")
# at least the 2 s slept; an unconverted sleep would add 20
lt 1.9 "$moved" && lt "$moved" "$moved0 + 10" || problem "the wall clock moved $moved s ($moved0 s without the sleep)"; done_t

t "rate=10, clocks=all: python time.sleep(1) takes about 0.1 s"
start=$(now)
run "$M" -q -e 'fake_time("+0s", rate=10, clocks=all)' python3 -I -c 'import time; time.sleep(0)'
base=$(since "$start")
start=$(now)
run "$M" -q -e 'fake_time("+0s", rate=10, clocks=all)' python3 -I -c 'import time; time.sleep(1)'
want_rc 0
took=$(since "$start")
lt "$took" "$base + 0.7" || problem "time.sleep(1) took $took s ($base s without the sleep)"; done_t

t "rate=10 with the wall clocks only: sleep 1 takes 1 s, the wall clock moves 10 s"
start=$(now)
run "$M" -q -e 'fake_time("+0s", rate=10)' sh -c 'date +%s.%N; sleep 1; date +%s.%N'
took=$(since "$start")
set -- $out
lt 0.95 "$took" || problem "sleep 1 took only $took s"
moved=$(python3 -c "print(${2:-0} - ${1:-0})")
lt 9 "$moved" && lt "$moved" 30 || problem "the wall clock moved $moved s"; done_t

t "rate=0 freezes the clock; sleeps take real time"
start=$(now)
run "$M" -q -e 'fake_time("@1700000000", rate=0)' sh -c 'date +%s.%N; sleep 0.5; date +%s.%N'
took=$(since "$start")
want_out "1700000000.000000000
1700000000.000000000"
lt 0.45 "$took" || problem "sleep 0.5 took $took s"; done_t

t "rate=0 on a monotonic clock: a warning when read, with where; the wall clock alone: none"
run "$M" -q -e 'fake_time("@1700000000", rate=0, clocks=all)' true
want_rc 0
want_err_has "-e#1:1:1: warning: rate=0 freezes a monotonic clock: a program that waits for a deadline on it (asyncio.sleep"
run "$M" -q -e 'fake_time("@1700000000", rate=0, clocks={CLOCK_BOOTTIME})' true
want_err_has "warning: rate=0 freezes a monotonic clock"
run "$M" -q -e 'fake_time("@1700000000", rate=0); fake_time("+1d", clocks=all, in="x")' true
want_rc 0; want_err_lacks "warning"; done_t

t "a TIMER_ABSTIME deadline on CLOCK_REALTIME under +1d does not wait a day"
for how in abstime cond sem timerfd; do
	run timeout 20 "$M" -q -e 'fake_time("+1d")' "$P" $how 0.3
	want_rc 0
	set -- $out
	[ "${1:-}" = ok ] && lt 0.25 "${2:-0}" && lt "${2:-9}" 3 || problem "$how: $out"
done; done_t

t "a condition variable's own clock: CLOCK_MONOTONIC is not shifted, a shared one on CLOCK_REALTIME is"
# glibc keeps the clock in bit 1 of __wrefs and process-shared in bit 0:
# read the wrong bit and a monotonic deadline lands a day early (the wait
# returns at once: python's threads spin) and a shared one waits a day
for how in cond-mono cond-shared; do
	run timeout 20 "$M" -q -e 'fake_time("+1d")' "$P" $how 0.3
	want_rc 0
	set -- $out
	[ "${1:-}" = ok ] && lt 0.25 "${2:-0}" && lt "${2:-9}" 3 || problem "$how: $out"
done; done_t

t "rate=10: a CLOCK_REALTIME deadline 1 s away is 0.1 s away; a relative timerfd too"
for how in abstime cond timerfd timerfd-rel; do
	run timeout 20 "$M" -q -e 'fake_time("+0s", rate=10)' "$P" $how 1
	set -- $out
	[ "${1:-}" = ok ] && lt "${2:-9}" 0.6 || problem "$how: $out"
done; done_t

t "stat=true shifts file times; without it they stay"
touch "$T/f"
year=$(date +%Y)
run "$M" -q -e 'fake_time("2030-06-01 00:00:00", stat=true)' ls -l --time-style=+%Y "$T/f"
want_out_has " 2030 "
run "$M" -q -e 'fake_time("2030-06-01 00:00:00")' ls -l --time-style=+%Y "$T/f"
want_out_has " $year "
run "$M" -q -e 'fake_time("2030-06-01 00:00:00", stat=true)' stat -c %Y "$T/f"
[ "${out:-0}" -ge $((Y2030 + 13000000)) ] || problem "stat -c %Y: $out"; done_t

t "WHEN: a zone, a date alone, @seconds, offsets"
run "$M" -q -e 'fake_time("2030-01-01 00:00:00+02:00", rate=0)' date +%s
want_out $((Y2030 - 7200))
run "$M" -q -e 'fake_time("2030-01-01T00:00:00Z", rate=0)' date +%s
want_out $Y2030
run "$M" -q -e 'fake_time("2030-01-01", rate=0)' date +%s
want_out $Y2030
run "$M" -q -e 'fake_time("@1700000000.25", rate=0)' date +%s.%N
want_out 1700000000.250000000
real=$(date +%s)
run "$M" -q -e 'fake_time("-2h30m")' date +%s
[ $((real - 9000 - ${out:-0})) -le 2 ] && [ $((real - 9000 - ${out:-0})) -ge -2 ] || problem "-2h30m: $out vs $real"
run "$M" -q -e 'fake_time("+1.5s", rate=0)' python3 -I -c 'import time; print(time.time())'
a=$(date +%s)
[ "$(python3 -c "print(abs(${out:-0} - 1.5 - $a) < 3)")" = True ] || problem "+1.5s: $out vs $a"; done_t

t "a statement on clock_gettime answers first; the monotonic clock is left alone by default"
run "$M" -q -e 'fake_time("2030-01-01 00:00:00")' \
	-e 'will_return_always(clock_gettime, 0, *tp={1700000000, 0}, when(clockid == CLOCK_REALTIME))' \
	date -u +%Y
want_out 2023
run "$M" -q -e 'fake_time("2030-01-01 00:00:00")' python3 -I -c \
	'import time; print(time.monotonic() < 1e9, time.gmtime().tm_year)'
want_out "True 2030"; done_t

t "in= gives the clock to some programs of the tree"
run "$M" -q -e 'fake_time("2030-01-01 00:00:00", in="date")' sh -c 'date +%Y; perl -e "print((gmtime)[5] + 1900)"'
want_out "2030
$(date +%Y)"
run "$M" -q -e 'fake_time("2030-01-01", in="date")' -e 'fake_time("2040-01-01", in="perl")' \
	sh -c 'date +%Y; perl -e "print((gmtime)[5] + 1900)"'
want_out "2030
2040"; done_t

t "in=\"python3\" reaches python3, whose executable is python3.11 (argv[0] matches too)"
# Debian's /usr/bin/python3 is a symlink to python3.11: the README's
# example names what the user typed
run "$M" -q -e 'fake_time("2030-01-01", in="python3")' \
	sh -c 'date +%Y; /usr/bin/python3 -c "import time; print(time.gmtime().tm_year)"'
want_rc 0; want_out "$(date +%Y)
2030"; done_t

t "the JSON report lists the clock, its reads and its readers"
run "$M" --report json -o "$T/r.json" -e 'fake_time("2030-01-01")' date
want_rc 0
python3 - "$T/r.json" <<'PY' || problem "JSON: $(cat "$T/r.json")"
import json, sys
r = json.load(open(sys.argv[1]))
c = r["clocks"]
assert len(c) == 1 and c[0]["statement"] == 'fake_time("2030-01-01")', c
assert c[0]["reads"] >= 1 and c[0]["processes"][0]["exe"] == "date", c
PY
done_t

t "bad fake_time statements are refused with their position"
run "$M" -e 'fake_time("2030-13-01")' true
want_rc 125; want_err_has '-e#1:1:17: error: malformed time "2030-13-01": expected the month, 01 to 12'
run "$M" -e 'fake_time("2030-02-30 00:00:00")' true
want_rc 125; want_err_has "no such day in that month"
run "$M" -e 'fake_time("2030-01-01 00:00:00 +02:00")' true
want_rc 125; want_err_has "-e#1:1:31: error: malformed time"; want_err_has "no space before the zone"
run "$M" -e 'fake_time("+1y")' true
want_rc 125; want_err_has "-e#1:1:14: error:"; want_err_has "expected a unit: d, h, m or s"
run "$M" -e 'fake_time("tomorrow")' true
want_rc 125; want_err_has '-e#1:1:12: error: malformed time "tomorrow"'
run "$M" -e 'fake_time("+1d", rate=-1)' true
want_rc 125; want_err_has "-e#1:1:23: error: rate= takes a number from 0"
run "$M" -e 'fake_time("+1d", clocks=CLOCK_PROCESS_CPUTIME_ID)' true
want_rc 125; want_err_has "-e#1:1:25: error: clocks= takes all, or CLOCK_REALTIME"
run "$M" -e 'fake_time("+1d", clocks={CLOCK_REALTIME, sundial})' true
want_rc 125; want_err_has "-e#1:1:42: error: unknown clock 'sundial'"
run "$M" -e 'fake_time("+1d", speed=2)' true
want_rc 125; want_err_has "fake_time takes no 'speed='"
run "$M" -e 'fake_time(rate=2)' true
want_rc 125; want_err_has "fake_time needs the time first"
run "$M" -e 'fake_time("+1d")' -e 'fake_time("+2d")' true
want_rc 125; want_err_has "-e#2:1:1: error: a second fake_time for the same processes (the first is at -e#1:1:1)"; done_t

t "a fake clock stays fake under an expectation or a from= that the calls pass by (no fast path around it)"
run "$M" -e 'fake_time("@1700000000"); expect_value_count(clock_gettime, clockid, CLOCK_REALTIME, -1)' date +%s
want_rc 0; want_out "1700000000"; want_err_has "checked 1 time (always)"
run "$M" -e 'fake_time("@1700000000"); will_return_maybe(time, 5, from="libnothing.so")' "$PROBE" time
want_rc 0; want_out "time: 1700000000 1700000000 null=1700000000"; done_t

# The fake clock is 64-bit nanoseconds since 1970: 1677-09-21 00:12:44 to
# 2262-04-11 23:47:16 UTC.  Past either end it used to wrap (2300 read as
# 1715), silently.
# caret COL: stderr's source line is followed by a caret under column COL
caret() {
	case "$err" in *"
    fake_time("*"
$(printf '%*s' $((3 + $1)) '')^"*) ;;
	*) problem "no caret under column $1" ;; esac
}

t "a WHEN outside 1677-09-21 .. 2262-04-11 is refused with a caret under it"
for w in "2300-01-01" "0001-01-01" "2262-04-12" "1677-09-20" "2262-04-11 23:47:17" \
	"@9999999999" "@-9223372037" "9999-12-31T23:59:59Z"; do
	run "$M" -e "fake_time(\"$w\", rate=0)" date -u +%Y
	want_rc 125
	want_out ""
	want_err_has "-e#1:1:12: error: time \"$w\" is out of range: a fake clock shows 1677-09-21 00:12:44 to 2262-04-11 23:47:16 UTC"
	caret 12
done
# the zone moves it in or out
run "$M" -e 'fake_time("2262-04-11 23:00:00-01:00")' true
want_rc 125; want_err_has "is out of range"
done_t

t "the ends of the range are accepted and shown as they are"
run "$M" -q -e 'fake_time("2262-04-11T00:00:00", rate=0)' date -u '+%F %T'
want_rc 0; want_out "2262-04-11 00:00:00"
run "$M" -q -e 'fake_time("2262-04-11 23:47:16", rate=0)' date -u '+%F %T'
want_rc 0; want_out "2262-04-11 23:47:16"
run "$M" -q -e 'fake_time("1677-09-21 00:12:44", rate=0)' date -u '+%F %T'
want_rc 0; want_out "1677-09-21 00:12:44"
run "$M" -q -e 'fake_time("@-9223372036", rate=0)' date -u '+%s %F %T'
want_rc 0; want_out "-9223372036 1677-09-21 00:12:44"; done_t

t "an offset from now that lands outside the range is refused"
# 53000 days and 1,280,000 hours: about 291 years from now
run "$M" -e 'fake_time("+53000d1280000h")' date -u +%Y
want_rc 125; want_out ""
want_err_has '-e#1:1:12: error: time "+53000d1280000h" is out of range: from now it is '
want_err_has "a fake clock shows 1677-09-21 00:12:44 to 2262-04-11 23:47:16 UTC"
caret 12
# an offset back (292 years at most) stays inside from now
run "$M" -q -e 'fake_time("-53000d1280000h", rate=0)' date -u +%Y
want_rc 0; case "$out" in 173?) ;; *) problem "-53000d1280000h: $out" ;; esac
run "$M" -e 'fake_time("+9999999999999s")' true
want_rc 125; want_err_has "-e#1:1:13: error: malformed time"; want_err_has "offset too large"; done_t

t "rate= carries the clock to the end of its range: it stops there, never wraps"
# a day of fake time is 86 ms at rate=1000000: 0.3 s is three days
run "$M" -e 'fake_time("2262-04-10 00:00:00", rate=1000000)' sh -c \
	'date -u +%Y; sleep 0.3; date -u "+%F %T"; perl -e "print scalar(gmtime(time)), qq(\n)"; python3 -I -c "import time; print(int(time.time()))"'
want_rc 0
want_out "2262
2262-04-11 23:47:16
Fri Apr 11 23:47:16 2262
9223372036"
want_err_has 'the clock stopped at the end of its range, 2262-04-11 23:47:16 UTC'
# at rate 1 too, where clock_gettime takes its fast path
run "$M" -q -e 'fake_time("2262-04-11 23:47:16")' sh -c \
	'sleep 1; date -u "+%F %T.%N"; perl -e "print time, qq(\n)"'
want_rc 0
want_out "2262-04-11 23:47:16.854775807
9223372036"
# and going back: the start of the range with the monotonic clocks too
run "$M" -q -e 'fake_time("1677-09-21 00:12:44", rate=1000000, clocks=all)' sh -c \
	'date -u "+%F %T"; python3 -I -c "import time; print(time.monotonic() > 0)"'
want_rc 0; want_out_has "1677-09-2"; want_out_has "True"; done_t

finish
