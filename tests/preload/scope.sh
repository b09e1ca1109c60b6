#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Which calls a statement takes: in= by the program, from= by the calling
# object, libraries dlopened after start.
# Needs MOCKRUN, PROBE, SHIM, LIBNOTHING, LIBLATE, PROBE_STATIC (meson sets them).
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
uid=$(id -u)

t "from= matches the calling object; the main program by its executable name"
run "$M" -q -e 'will_return(getuid, 5, from="probe")' "$PROBE" getuid 2
want_rc 0; want_out "5 $uid"; done_t

t "from= that matches no caller leaves the rule unconsumed"
run "$M" -e 'will_return(getuid, 5, from="libnothing.so*")' "$PROBE" getuid 1
want_rc 123; want_out "$uid"; done_t

t "from= naming the program does not match the library's calls"
run "$M" -e 'will_return_maybe(read, _, buf="late", from="probe")' "$PROBE" dlopen "$LIBLATE" /etc/hostname
want_rc 0; want_err_has "used 0 times (maybe)"
case "$out" in *late*) problem "the library's read was mocked: $out" ;; esac; done_t

t "a failed dlopen's dlerror() is the program's, armed or not (the shim binds without dlsym)"
want_msg='dlopen: NULL [libnope-mockshim.so: cannot open shared object file: No such file or directory]'
run env LD_PRELOAD="$SHIM" "$PROBE" dlerror libnope-mockshim.so
want_rc 0; want_out "$want_msg"$'\n'"$want_msg"
run "$M" -q -e 'expect_any_count(dlopen, flags, -1)' "$PROBE" dlerror libnope-mockshim.so
want_rc 0; want_out "$want_msg"$'\n'"$want_msg"
done_t

t "a library dlopened after start is mocked too"
run "$M" -q -e 'will_return(read, _, buf="late")' "$PROBE" dlopen "$LIBLATE" /etc/hostname
want_rc 0; want_out "read_first: 4 [late]"; done_t

t "from= knows a library dlopened after start"
run "$M" -q -e 'will_return(read, _, buf="late", from="liblate.so")' "$PROBE" dlopen "$LIBLATE" /etc/hostname
want_rc 0; want_out "read_first: 4 [late]"; done_t

t "in= scopes a rule to matching executables"
run "$M" -e "will_return(getuid, 5, in=\"probe\")" sh -c "\"$PROBE\" getuid 1"
want_rc 0; want_out "5"; want_err_has "by probe["; done_t

t "in= that matches nothing leaves the rule unconsumed"
run "$M" -e 'will_return(getuid, 5, in="nothing*")' "$PROBE" getuid 1
want_rc 123; want_out "$uid"; done_t

finish
