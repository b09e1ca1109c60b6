#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Declared prototypes (mock RET NAME(PARAMS)) on an unmodified program and
# its library: every parameter class, outputs, the three ways of binding,
# dlopen, fork/exec, threads, scoping, and what is reported.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
ADD='mock int decl_add(int a, int b)'
SCALE='mock double decl_scale(double x, int k, double y)'
MANY='mock long decl_many(int a, int b, int c, int d, int e, int f, double x1, double x2, double x3, double x4, double x5, double x6, double x7, double x8)'
REC='struct rec { int id; char name[16]; const char *tag; double v; }'

for v in lazy now noplt; do
	P=decl_$v

	t "$v: a declaration alone changes nothing"
	run "$M" -e "$ADD" "$P" add scale many
	want_rc 0; want_out $'add 5\nscale 3.25\nmany 295'; want_err_has "all checks passed"
	done_t

	t "$v: will_return and expect_value on an integer function"
	run "$M" -e "$ADD" -e 'expect_value_count(decl_add, a, 2, -1); expect_value_count(decl_add, b, 3, -1)' \
		-e 'will_return(decl_add, 42)' "$P" add add
	# the second call finds no value queued: the real function
	want_rc 0; want_out $'add 42\nadd 5'
	want_err_has "will_return(decl_add, 42): 1 of 1 used, by $P["
	done_t

	t "$v: when() on a declared parameter"
	run "$M" -e "$ADD" -e 'will_return_always(decl_add, 99, when(a == 2, b > 2)); will_return_always(decl_add, 7, when(a == 9))' "$P" add
	want_rc 123; want_out "add 99"
	want_err_has "when(a == 9)): used 0 times"; want_err_has "no call of decl_add() had a == 9"
	done_t

	t "$v: a failed expectation is reported with both values and the caller"
	run "$M" -e "$ADD" -e 'expect_value(decl_add, b, 4)' "$P" add
	want_rc 123; want_out "add 5"
	want_err_has "decl_add() call 1 in $P["
	want_err_has "parameter b: expected 4, got 3"
	want_err_has "called from $P+0x"
	done_t

	t "$v: doubles in and out, and the real function after the queue"
	run "$M" -e "$SCALE" -e 'expect_value_count(decl_scale, y, 0.25, 2); expect_value_count(decl_scale, k, 2, 2)' \
		-e 'will_return(decl_scale, -7.5)' "$P" scale scale
	want_rc 0; want_out $'scale -7.5\nscale 3.25'
	done_t

	t "$v: a failed expectation on a double shows the numbers"
	run "$M" -e "$SCALE" -e 'expect_value(decl_scale, y, 0.5)' "$P" scale
	want_rc 123; want_err_has "parameter y: expected 0.5, got 0.25"
	done_t

	t "$v: 6 integer and 8 double arguments reach the real function intact"
	run "$M" -e "$MANY" -e 'expect_value(decl_many, f, 6); expect_value(decl_many, x8, 0.08)' \
		-e 'will_call_real(decl_many)' "$P" many
	want_rc 0; want_out "many 295"; want_err_has "1 of 1 used"
	done_t
done

t "a struct filled through a pointer, its string field included"
run "$M" -e "$REC" -e 'mock int decl_get(int id, struct rec *out)' \
	-e 'expect_value_count(decl_get, id, 4, 2)' \
	-e 'will_return(decl_get, 7, *out={.id = 9, .name = "mocked", .tag = "a tag", .v = 0.5})' \
	decl_lazy get get
want_rc 0; want_out $'get 7 id=9 name=mocked tag=a tag v=0.5\nget 0 id=4 name=real4 tag=real-tag v=2'
done_t

t "strings: const char * is the spec's, char * a copy the program frees"
run "$M" -e 'mock const char *decl_name(int id)' -e 'will_return(decl_name, "mocked")' \
	-e 'mock char *decl_dup(const char *s)' -e 'expect_string_count(decl_dup, s, "orig", 2)' \
	-e 'will_return(decl_dup, "copy")' decl_lazy name dup name dup
want_rc 0; want_out $'name mocked\ndup copy\nname real-name\ndup orig'
done_t

t "NULL returns and outputs"
run "$M" -e 'mock const char *decl_name(int id)' -e 'will_return(decl_name, NULL)' \
	-e "$REC" -e 'mock int decl_get(int id, struct rec *out)' \
	-e 'will_return(decl_get, 1, *out={.tag = NULL, .name = "n"})' decl_lazy name get
want_rc 0; want_out $'name (null)\nget 1 id=0 name=n tag=(null) v=0'
done_t

t "bool and int8_t: narrow types compared at their width"
run "$M" -e 'mock bool decl_ok(int8_t x)' -e 'expect_value(decl_ok, x, 5); expect_value(decl_ok, x, -5)' \
	-e 'will_return_count(decl_ok, false, 1)' decl_lazy ok
want_rc 0; want_out "ok 0 0"; want_err_has "all checks passed"
done_t

t "void functions: will_return(f, _) skips the real one"
run "$M" -e 'mock void decl_note(const char *msg)' -e 'expect_string_count(decl_note, msg, "hello", -1)' \
	-e 'will_return(decl_note, _)' decl_lazy note note
want_rc 0; want_out $'noted\nnote: hello\nnoted'
done_t

t "errno= sets errno on the mocked path"
run "$M" -e 'mock int decl_fail(void)' -e 'will_return(decl_fail, -1, errno=EIO)' decl_lazy fail fail
want_rc 0; want_out $'fail -1 errno=Input/output error\nfail 0 errno=0'
done_t

t "a call made inside the library is mocked too"
run "$M" -e "$ADD" -e 'will_return(decl_add, 100)' decl_lazy twice
want_rc 0; want_out "twice 100"
done_t

t "a function pointer taken through the GOT (-fno-plt) is mocked"
run "$M" -e "$ADD" -e 'will_return(decl_add, 77)' decl_noplt pointer
want_rc 0; want_out "pointer 77 5"
done_t

t "a pointer that is a canonical PLT entry (no PIE) is mocked, and reaches the real one after"
run "$M" --timeout 10 -e "$ADD" -e 'expect_value_count(decl_add, a, 2, -1)' \
	-e 'will_return(decl_add, 77)' decl_nopie pointer add
want_rc 0; want_out $'pointer 77 5\nadd 5'; want_err_has "checked 3 times"
done_t

t "a library loaded with dlopen: its calls are mocked once it is loaded"
run "$M" -e "$ADD" -e 'expect_value(decl_add, b, 1000)' -e 'will_return(decl_add, 5)' \
	decl_now plugin
want_rc 0; want_out "plugin 5"
done_t

t "a plugin named without a path is found in the program's RUNPATH, as the loader would"
run env -u DECL_PLUGIN "$M" -e "$ADD" -e 'expect_value(decl_add, b, 1000)' -e 'will_return(decl_add, 5)' \
	decl_now plugin
want_rc 0; want_out "plugin 5"
done_t

t "a plugin path with \$ORIGIN is the program's directory, as the loader would have it"
run env DECL_PLUGIN='$ORIGIN/libdecl_plugin.so' "$M" -q -e "$ADD" -e 'will_return(decl_add, 5)' \
	decl_now plugin
want_rc 0; want_out "plugin 5"
done_t

t "a plugin that is not there: dlerror() says so, as without the shim"
run env DECL_PLUGIN=libdecl-missing.so "$M" -q -e "$ADD" -e 'will_return_maybe(decl_add, 5)' decl_now plugin
want_rc 1; want_out "plugin: libdecl-missing.so: cannot open shared object file: No such file or directory"
done_t

t "two plugins with a function of one name: each call goes on to its own definition"
run decl_now dups
want_rc 0; want_out "dups A:1 B:2"
run "$M" -q -e 'mock int dup_helper(void)' -e 'will_return(dup_helper, 99)' decl_now dups
want_rc 0; want_out "dups A:99 B:2"
run "$M" -q -e 'mock int dup_helper(void)' -e 'will_return_maybe(dup_helper, 7, in="other")' \
	-e 'expect_function_calls(dup_helper, 2)' decl_now dups
want_rc 0; want_out "dups A:1 B:2"
done_t

t "a plugin unloaded and loaded again elsewhere: its calls reach the new definition"
run "$M" -q -e 'mock int dup_helper(void)' -e 'expect_function_calls(dup_helper, 2)' decl_now reload
want_rc 0; want_out $'reload A:1\nreload A:1'
done_t

t "a weak reference to an absent function stays NULL"
run "$M" -e 'mock int decl_absent(int x)' -e 'will_return_maybe(decl_absent, 5)' decl_lazy weak
want_rc 0; want_out "weak absent"
want_err_has "no loaded object of the program exports decl_absent()"
done_t

t "a function only a dlopened library defines is not reported as exported by none"
run "$M" -e 'mock int dup_helper(void)' -e 'will_return(dup_helper, 5)' decl_now reload
want_rc 0; want_out $'reload A:5\nreload A:1'; want_err_lacks "warning"
done_t

t "from= tells the plugin's calls from the program's"
run "$M" -e "$ADD" -e 'will_return_always(decl_add, 6, from="libdecl_plugin.so")' \
	decl_lazy add plugin add
want_rc 0; want_out $'add 5\nplugin 6\nadd 5'
done_t

t "in= another program: nothing is patched, the real function runs"
run "$M" -e "$ADD" -e 'will_return_maybe(decl_add, 6, in="other")' decl_lazy add
want_rc 0; want_out "add 5"
done_t

t "threads share the queue: each value is taken once"
run "$M" -e "$ADD" -e 'will_return_count(decl_add, 3, 1000)' decl_lazy threads
# 4000 calls: 1000 mocked (3 each), 3000 real (2 each)
want_rc 0; want_out "threads 9000"; want_err_has "1000 of 1000 used"
done_t

# after a process's first turn the stub answers from the function's fast
# slot (x86-64: before it saves a register; elsewhere ms_decl_consult)
t "the fast slot: a queue runs out exactly, then the real function"
run "$M" -e "$ADD" -e 'will_return_count(decl_add, 9, 3)' decl_lazy add add add add add
want_rc 0; want_out $'add 9\nadd 9\nadd 9\nadd 5\nadd 5'; want_err_has "3 of 3 used"
done_t

t "the fast slot: a double's queue (its bits in xmm0), then the real function"
run "$M" -e "$SCALE" -e 'will_return_count(decl_scale, 2.5, 3)' decl_lazy scale scale scale scale
want_rc 0; want_out $'scale 2.5\nscale 2.5\nscale 2.5\nscale 3.25'; want_err_has "3 of 3 used"
done_t

t "the fast slot: every call of an always counted, a forked child's too"
run "$M" -e "$ADD" -e 'will_return_always(decl_add, 8)' decl_lazy add add add fork
want_rc 0
[ "$(grep -c '8$' <<<"$out")" -ge 5 ] && ! grep -q ' 5$' <<<"$out" || problem "not every call mocked: $out"
want_err_has "used 5 times (always), by decl_lazy["
# the child logs a first turn of its own: the report names both processes
want_err_has "], decl_lazy["
done_t

t "the fast slot: expect_value passes matching calls (four threads), reports another"
run "$M" -e "$ADD" -e 'expect_value_count(decl_add, a, 1, -1)' decl_lazy threads add
want_rc 123; want_out $'threads 8000\nadd 5'
want_err_has "decl_add() call 4001 in decl_lazy["; want_err_has "parameter a: expected 1, got 2"
want_err_has "checked 4001 times (always)"
want_err_lacks "call 4000 in"
done_t

t "a declared function no loaded object exports is reported"
run "$M" -e 'mock int decl_nowhere(int x)' -e 'will_return(decl_nowhere, 1)' decl_lazy add
want_rc 123; want_out "add 5"
want_err_has "warning: mock int decl_nowhere(int x): no loaded object of the program exports decl_nowhere()"
want_err_has "decl_nowhere() has remaining non-returned values"
done_t

# sh and other uninstrumented programs cannot load a sanitizer build of the shim
if [ "$SANITIZE" = none ]; then
	t "fork and exec: one queue for the process tree"
	run "$M" -e "$ADD" -e 'will_return_count(decl_add, 9, 3)' \
		sh -c 'decl_lazy fork; decl_now add; decl_now add'
	want_rc 0; want_out $'child 9\nparent 9\nadd 9\nadd 5'
	want_err_has "3 of 3 used"
	done_t

	t "... in any process of the tree"
	run "$M" -e 'mock int decl_nowhere(int x)' sh -c 'decl_lazy add; true'
	want_rc 0
	want_err_has "no loaded object exports decl_nowhere() in any of the 2 attached processes"
	done_t

	t "... but not when one process has it"
	run "$M" -e "$ADD" sh -c 'decl_lazy add; true'
	want_rc 0; want_err_lacks "warning"
	done_t

else
	for n in "fork and exec" "in any process" "when one process has it"; do
		skip_t "$n" "sh cannot load the $SANITIZE shim"
	done
fi

t "a spec file with the declarations, and a TAP report"
cat >"$T/decl.mock" <<EOF
# the library's adder, declared
mock int decl_add(int a,
                  int b)
expect_value(decl_add, a, 2)
will_return(decl_add, 11)
EOF
run "$M" -f "$T/decl.mock" --report tap -o - decl_lazy add
want_rc 0; want_out_has "add 11"; want_out_has "ok 1 - $T/decl.mock:4: expect_value(decl_add, a, 2)"
done_t

t "standalone mode: MOCKSHIM= declares too, and reports what no object exports"
run env LD_PRELOAD="$SHIM" MOCKSHIM="$ADD; will_return(decl_add, 8)" decl_lazy add
want_rc 0; want_out "add 8"; want_err_has "1 of 1 used"
run env LD_PRELOAD="$SHIM" MOCKSHIM='mock int decl_nowhere(int x); will_return(decl_nowhere, 1)' decl_lazy add
want_rc 123; want_out "add 5"
want_err_has "no loaded object of the program exports decl_nowhere()"
want_err_has "decl_nowhere() has remaining non-returned values"
done_t

t "test files: declarations over several lines, at file level and in a test"
cat >"$T/decl-t.mock" <<EOF
# the record decl_get fills
struct rec {
	int id;            # the first field
	char name[16];
	const char *tag;   # a string: a pointer to the spec's
	double v;
}
mock int decl_get(int id,
                  struct rec *out)

test "filled" {
	will_return(decl_get, 3, *out={.id = 1, .name = "x",
	                               .tag = "y", .v = 0.25})
	run decl_lazy get
	expect_stdout("get 3 id=1 name=x tag=y v=0.25\n")
}

test "declared inside" {
	mock bool decl_ok(int8_t x)
	struct unused {
		int a;
	}
	will_return_count(decl_ok, true, 2)
	run decl_lazy ok
	expect_stdout("ok 1 1\n")
}
EOF
run "$M" -t "$T/decl-t.mock"
want_rc 0; want_out_has "ok 1 - $T/decl-t.mock: filled"; want_out_has "ok 2 - $T/decl-t.mock: declared inside"
done_t

t "a bad declaration: 125 with the position, before the program runs"
run "$M" -e 'mock int decl_add(int a, float b)' decl_lazy add
want_rc 125; want_out ""
want_err_has "-e#1:1:26: error: float is not supported (only double)"
done_t

t "--trace names declared functions and shows their values by the declared types"
run "$M" -q -e "$ADD" --trace=decl_add decl_lazy add
want_rc 0; want_out "add 5"; want_err_has "decl_lazy: decl_add(2, 3) = 5"
run "$M" -q -e "$ADD" -e 'will_return(decl_add, 42)' --trace decl_lazy add
want_rc 0; want_out "add 42"; want_err_has "decl_add(2, 3) = 42 (mocked: -e#2:1)"
run "$M" -q -e "$SCALE" --trace=decl_scale decl_lazy scale
want_rc 0; want_err_has "decl_scale(1.5, 2, 0.25) = 3.25"
run "$M" -q -e 'mock const char *decl_name(int id)' --trace=decl_name decl_lazy name
want_rc 0; want_err_has 'decl_name(1) = "real-name"'
# the site: the program's call (a non-PIE's offset is the address itself)
for prog in decl_lazy decl_nopie; do
	run "$M" -q -e "$ADD" --trace=decl_add "$prog" add
	# (then its function and line, " (run, prog.c:36)", where mockrun symbolizes)
	site=$(sed -nE "s/.*decl_add\(2, 3\) = 5 at $prog\+(0x[0-9a-f]+)( \([^)]*\))?\$/\1/p" <<<"$err")
	[ -n "$site" ] || problem "$prog: no decl_add line with its site: $err"
	if [ -n "$site" ] && command -v objdump >/dev/null; then
		objdump -d --no-show-raw-insn "$(command -v "$prog")" | grep -B1 -E "^ *${site#0x}:" | head -1 |
			grep -qE '(call|bl)[[:space:]]+[0-9a-f]+ <decl_add@plt>' ||
			problem "$prog+$site does not follow a call of decl_add@plt"
	fi
done
run "$M" -q --trace=decl_nosuch true
want_rc 125; want_err_has "'decl_nosuch' is not in the catalog (see mockrun --list) nor declared with mock"
done_t

t "statements for a declared function before its declaration: unknown"
run "$M" -e 'will_return(decl_add, 1)' -e "$ADD" decl_lazy add
want_rc 125; want_err_has "-e#1:1:13: error: unknown function 'decl_add'"
done_t

finish
