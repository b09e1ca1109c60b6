#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mockshim-symbolize through its protocol (sites/sites.h): a site of a
# program built with -g and without, checked against what objdump,
# addr2line and nm say of it; at= names and lines resolved to ranges that
# hold the real call's return address; a misspelt name; Debian's jq.
. "$(dirname "$0")/../lib.sh"
: "${SYMBOLIZE:?}" "${PROG_G:?}" "${PROG_NOG:?}" "${PROG_SRC:?}"

# ask REQUEST...: the helper's answers, a program's map made first
ask() {
	printf '%s\n' "$@" | "$SYMBOLIZE"
}

# ret_of PROG [CALLEE]: the return address (hex, no 0x) of make_buffer's
# call of CALLEE (malloc), from the disassembly: the address of the
# instruction after it
ret_of() {
	objdump -d --no-show-raw-insn "$1" | awk -v callee="${2:-malloc}" '
		/^[0-9a-f]+ <make_buffer>:/ { inside = 1; next }
		/^$/ { inside = 0 }
		inside && found { sub(/:.*/, ""); gsub(/ /, ""); print; exit }
		inside && (index($0, "<" callee "@plt>") || index($0, "<" callee ">")) { found = 1 }'
}

LINE=$(grep -n 'SITE: the call' "$PROG_SRC" | cut -d: -f1)
G=$(basename "$PROG_G")
NOG=$(basename "$PROG_NOG")
RET_G=$(ret_of "$PROG_G")
RET_NOG=$(ret_of "$PROG_NOG")
# make_buffer's call of note_size, whose return address is on the next line
NOTE=$(grep -n 'NOTE: a call' "$PROG_SRC" | cut -d: -f1)
RET_NOTE=$(ret_of "$PROG_G" note_size)

t "the test finds the call in the disassembly"
[ -n "$RET_G" ] && [ -n "$RET_NOG" ] && [ -n "$LINE" ] && [ -n "$RET_NOTE" ] ||
	problem "no call of malloc in make_buffer: [$RET_G] [$RET_NOG] line [$LINE]"
done_t

t "the helper answers hello and maps the program and its libraries"
run ask "hello 1" "obj $PROG_G"
want_rc 0
# the program, and what ldd finds but the vDSO
want_out "ok mockshim-symbolize 1
ok $(( $(ldd "$PROG_G" | grep -vc 'linux-vdso\|linux-gate') + 1 ))"
done_t

t "a site of a -g program: its function and file:line, as addr2line says"
run ask "obj $PROG_G" "sym $G+0x$RET_G"
a2l=$(addr2line -f -e "$PROG_G" "$(printf %x $((0x$RET_G - 1)))")
fn=$(printf '%s\n' "$a2l" | head -1)
fl=$(printf '%s\n' "$a2l" | sed -n 2p)
fl=${fl##*/}
fl=${fl%% *}
[ "$fn" = make_buffer ] || problem "addr2line says [$a2l]"
[ "$fl" = "site_prog.c:$LINE" ] || problem "addr2line says [$a2l], the source line $LINE"
want_out_has "
= make_buffer, site_prog.c:$LINE"
done_t

t "a return address on the line after its call's: the call's line"
run ask "obj $PROG_G" "sym $G+0x$RET_NOTE"
after=$(addr2line -e "$PROG_G" "$RET_NOTE")
after=${after##*:}
[ "${after%% *}" = $((NOTE + 1)) ] || problem "addr2line puts 0x$RET_NOTE at [$after], not line $((NOTE + 1))"
want_out_has "
= make_buffer, site_prog.c:$NOTE"
done_t

t "pc: an instruction's own address (a crash's), not a return address"
crash=$(grep -n 'CRASH: the faulting store' "$PROG_SRC" | cut -d: -f1)
at=$(nm "$PROG_G" | awk '$3 == "crash_here" { print $1 }')
run ask "obj $PROG_G" "pc $G+0x$at" "sym $G+0x$at"
want_out_has "
= crash_here, site_prog.c:$crash
"
want_out_lacks "
= crash_here, site_prog.c:$crash
= crash_here"
done_t

t "a site of a program without debug info: FUNC+0xN from its symbol table (nm)"
start=$(nm "$PROG_NOG" | awk '$3 == "make_buffer" { print $1 }')
run ask "obj $PROG_NOG" "sym $NOG+0x$RET_NOG"
want_out_has "= make_buffer+0x$(printf %x $((0x$RET_NOG - 0x$start)))"
done_t

# in_ranges HEX: one "range" line of $out holds the address
in_ranges() {
	local what obj lo hi
	while read -r what obj lo hi; do
		[ "$what" = range ] && [ "$obj" = "$2" ] && [ $((lo)) -le $((0x$1)) ] &&
			[ $((0x$1)) -le $((hi)) ] && return 0
	done <<< "$out"
	return 1
}

t "at=FUNC: ranges that hold the call's return address"
run ask "obj $PROG_G" "at make_buffer"
in_ranges "$RET_G" "$G" || problem "0x$RET_G not in [$out]"
want_out_has "end 0"
done_t

t "at=FUNC without debug info: the symbol table's range"
run ask "obj $PROG_NOG" "at make_buffer"
in_ranges "$RET_NOG" "$NOG" || problem "0x$RET_NOG not in [$out]"
done_t

t "at=FUNC's range is the function's, not the whole object"
run ask "obj $PROG_G" "at main"
in_ranges "$RET_G" "$G" && problem "main's ranges hold make_buffer's call: [$out]"
want_out_has "range $G "
done_t

t "at=FILE:LINE: ranges that hold the call's return address"
run ask "obj $PROG_G" "at site_prog.c:$LINE"
in_ranges "$RET_G" "$G" || problem "0x$RET_G not in [$out]"
want_out_has "end 0"
done_t

t "at=FILE:LINE holds a return address on the next line, the next line's does not"
run ask "obj $PROG_G" "at site_prog.c:$NOTE"
in_ranges "$RET_NOTE" "$G" || problem "0x$RET_NOTE not in [$out]"
run ask "obj $PROG_G" "at site_prog.c:$((NOTE + 1))"
in_ranges "$RET_NOTE" "$G" && problem "line $((NOTE + 1))'s ranges hold 0x$RET_NOTE: [$out]"
in_ranges "$RET_G" "$G" || problem "0x$RET_G not in [$out]"
done_t

t "at=FILE:LINE by a path's last components"
run ask "obj $PROG_G" "at sites/site_prog.c:$LINE"
in_ranges "$RET_G" "$G" || problem "0x$RET_G not in [$out]"
done_t

t "at=FILE:LINE of another line does not hold the call"
run ask "obj $PROG_G" "at site_prog.c:$((LINE + 3))"
in_ranges "$RET_G" "$G" && problem "line $((LINE + 3)) holds the call: [$out]"
done_t

t "a line without code: an error naming the nearest lines with code"
run ask "obj $PROG_G" "at site_prog.c:1"
want_out_has "end -1 no code at site_prog.c:1 (the nearest lines with code: "
done_t

t "a misspelt function: an error with the closest name and the objects searched"
run ask "obj $PROG_G" "at make_bufer"
want_out_has "end -1 no function 'make_bufer' (did you mean make_buffer"
want_out_has "searched $G, libc.so"
done_t

t "a misspelt file: an error with the closest file"
run ask "obj $PROG_G" "at site_prgo.c:3"
want_out_has "end -1 no file 'site_prgo.c' in the line tables (did you mean site_prog.c"
done_t

t "a function only in a system library: a warning, no range"
run ask "obj $PROG_G" "at malloc"
want_out_has "
end 1 'malloc' is defined only in libc.so.6, a system library, where no call site is (a call from there belongs to its caller in the program)"
done_t

t "at=FILE:LINE where nothing has debug info says so"
run ask "obj $PROG_NOG" "at site_prog.c:$LINE"
want_out_has "none of them has debug info"
done_t

t "an unknown object or an offset outside every function: nothing known"
run ask "obj $PROG_G" "sym nosuchobject.so+0x1234" "sym $G+0x0" "sym garbage"
want_out_has "
-
-
-"
done_t

t "requests out of the protocol get an error line, and the helper goes on"
run ask "bogus" "hello 1"
want_out "err unknown request 'bogus'
ok mockshim-symbolize 1"
done_t

if ! command -v jq >/dev/null; then
	skip_t "a site in Debian's jq's libjq.so.1: a .dynsym name" "jq is not installed"
else
	t "a site in Debian's jq's libjq.so.1: a .dynsym name"
	lib=$(ldd "$(command -v jq)" | awk '$1 ~ /^libjq[.]so/ { print $3 }')
	addr=$(nm -D --defined-only "$lib" | awk '$3 == "jv_parse" { print $1 }')
	[ -n "$addr" ] || problem "no jv_parse in [$lib]"
	run ask "obj jq" "sym $(basename "$lib")+0x$(printf %x $((0x$addr + 9)))"
	want_out_has "= jv_parse+0x9"
	# and found without the program's map, in the system's directories
	run ask "sym $(basename "$lib")+0x$(printf %x $((0x$addr + 9)))"
	want_out "= jv_parse+0x9"
	done_t

	t "at=FUNC in jq's library: the .dynsym function's range"
	run ask "obj jq" "at jv_parse"
	in_ranges "$(printf %x $((0x$addr + 9)))" "$(basename "$lib")" || problem "not in [$out]"
	done_t
fi
finish
