#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The restaurant's failure paths, and loading modules: MOCKRUN MODULE DIR
. "$(dirname "$0")/../../tests/lib.sh"

M=$1 MOD=$2 D=$3

t "failing.mock fails, and reports the expectation with both values"
run "$M" -m "$MOD" -t "$D/failing.mock"
want_rc 1
want_out_has 'not ok 1 - '
want_out_has 'chef_cook() in waiter['
want_out_has 'parameter order: expected "pizza", got "hotdog"'
want_out_has 'not ok 2 - '
want_out_has 'mock() #2 of the run found no value queued (every will_return value was used)'
done_t

t "module \"path\" in statements loads the module"
run "$M" -q -e "module \"$MOD\"; will_return_count(chef_cook, true, 2); will_return(chef_cook, \"hotdog\"); will_return(chef_cook, 0)" waiter hotdog
want_rc 0; want_out "hotdog"; done_t

t "a module function without its module: 125, before anything runs"
run "$M" -e 'will_return(chef_cook, true)' waiter hotdog
want_rc 125; want_err_has "-e#1:1:13: error: unknown function 'chef_cook'"; done_t

t "-m with what is not a handler module: 125"
run "$M" -m "$(dirname "$(command -v waiter)")/libchef.so" -e 'will_return(getuid, 0)' true
want_rc 125; want_err_has "not a handler module (no MOCKSHIM_MOCK in it)"; done_t

t "-m with a missing file: 125"
run "$M" -m /nonexistent/module.so true
want_rc 125; want_err_has "/nonexistent/module.so: No such file or directory"; done_t

t "statements a handler cannot take are refused"
run "$M" -m "$MOD" -e 'will_fail(chef_cook)' waiter hotdog
want_rc 125; want_err_has "chef_cook() comes from a handler module"; done_t

t "an armed module function is reached through the handler, an unarmed one is not"
run "$M" -m "$MOD" -e 'will_return_maybe(getuid, 0)' waiter hotdog
want_rc 1; want_err_has "Chef couldn't cook hotdog: unknown dish"; done_t

t "MOCKSHIM_REAL reaches the real chef"
run "$M" -m "$REALMOD" -e 'will_return(chef_cook, 7)' waiter hotdog
want_rc 1; want_err_has "Chef couldn't cook hotdog: unknown dish"; want_err_has "all checks passed"; done_t
DECL='mock int chef_cook(const char *order, char **dish_out)'

t "declared: a failed expectation names the parameter and both values"
run "$M" -e "$DECL" -e 'expect_string(chef_cook, order, "pizza")' -e 'will_return(chef_cook, -1)' waiter hotdog
want_rc 123; want_err_has 'chef_cook() call 1 in waiter['
want_err_has 'parameter order: expected "pizza", got "hotdog"'; done_t

t "declared: a value left over is reported"
run "$M" -e "$DECL" -e 'will_return_count(chef_cook, -2, 2)' waiter hotdog
want_rc 123; want_err_has "chef_cook() has remaining non-returned values (1 of 2 used)"; done_t

t "declared and a handler module for one function: 125"
run "$M" -m "$MOD" -e "$DECL" waiter hotdog
want_rc 125; want_err_has "-e#1:1:10: error: chef_cook() comes from a handler module already"; done_t

finish
