#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# README.md's commands, run as a reader would run them: every command of
# its ```sh blocks, the ``` blocks that show a `$ mockrun` session, and
# the inline `mockrun -e ...` examples, with this build's mockrun and
# shim, each block in a fresh directory.  A command passes when it exits
# as the README says where a marker states it, prints the README's output
# lines where a `$` session shows them (pids and addresses aside), and
# otherwise does not end in 124 to 127 (mockrun's own error, a program
# that could not run, a timeout).
#
# Markers: HTML comments (invisible on a rendered page) in the lines
# just before a block, each `<!-- readme-test: VERB ARGS -->`:
#	skip WHY		the block cannot run here: a TAP SKIP saying why
#	setup SHELL		run in the block's directory first (files it reads)
#	placeholders WORD...	commands naming one of these programs (the
#				reader's own ./prog) must exit 127: their
#				statements were accepted, the program is not here
#	expect TEXT :: N [:: OUT]  the command containing TEXT exits N (* any)
#				and its stdout or stderr contains OUT (!OUT:
#				does not); several may name one command
# README (environment) names the file, for a test of this test.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
README=${README:-$TESTS_DIR/../README.md}
TIMEOUT=${README_TIMEOUT:-60}
[ -r "$README" ] || { echo "Bail out! cannot read $README"; exit 1; }

# the build's programs for the README's words
subst() {
	sed -e "s#build/runner/mockrun#$M#g" -e "s#build/libmockshim/libmockshim.so#$SHIM#g" \
		-e "s#^mockrun #$M #" -e "s#\([;&|(] *\)mockrun #\1$M #g"
}

# what varies from run to run, or from one coreutils to another: pids,
# addresses, buffer sizes (cat reads 128 KiB on Debian 12, 256 on 13)
# (a site's symbolization, " (FUNC, FILE:LINE)" after "at OBJ+0x...",
# depends on the debug info the machine has: compared without it)
norm() {
	sed -E -e 's/\[[0-9]+\]/[PID]/g' -e 's/^[0-9]+ /PID /' -e 's/0x[0-9a-f]+/0xADDR/g' \
		-e 's/\b[0-9]{5,}\b/NUM/g' -e 's/[[:space:]]+$//' \
		-e 's/( at [^ ]+\+0xADDR) \([^()]*\)$/\1/'
}

d_skip= d_setup= d_place= d_expect=()
reset_markers() { d_skip= d_setup= d_place= d_expect=(); }

nblock=0
# check LINE CMD EXPECTED-OUTPUT: one TAP point
check() {
	local line=$1 cmd=$2 want_lines=$3 short e pat rest code text want_code= w
	local has=() lacks=()
	short=$(printf '%s' "$cmd" | tr '\n\t' '  ' | tr -s ' ' | cut -c1-90)
	t "README.md:$line: $short"
	for e in "${d_expect[@]}"; do
		pat=${e%% :: *}
		rest=${e#* :: }
		case $cmd in *"$pat"*) ;; *) continue ;; esac
		code=${rest%% :: *}
		text=
		[ "$code" != "$rest" ] && text=${rest#* :: }
		want_code=$code
		case $text in
		'') ;;
		'!'*) lacks+=("${text#!}") ;;
		*) has+=("$text") ;;
		esac
	done
	if [ -n "$EMULATED" ] && [[ $cmd == *SYS_* ]]; then
		skip_t "$tname" "the syscall tier has no seccomp under $EMULATED"
		return
	fi
	run timeout -k 5 "$TIMEOUT" bash -c "$(printf '%s' "$cmd" | subst)"
	local placeholder=
	for w in $d_place; do
		case " $(printf '%s' "$cmd" | tr '\t\n' '  ') " in *" $w "*) placeholder=$w ;; esac
	done
	w=
	[ "$rc" = 127 ] && [[ $err =~ ^mockrun:\ ([^ :]+):\ No\ such\ file ]] && w=${BASH_REMATCH[1]}
	# the programs a machine may lack (CI installs them); a misspelled
	# one is not among them and fails
	case " git perl busybox python3 getent " in *" $w "*) ;; *) w= ;; esac
	if [ -n "$w" ] && [ -z "$placeholder" ] && ! command -v "$w" >/dev/null; then
		skip_t "$tname" "$w is not installed"
		return
	fi
	if [ -n "$placeholder" ]; then
		want_rc 127
		want_err_has "$placeholder"
	elif [ -n "$want_code" ]; then
		[ "$want_code" = '*' ] || want_rc "$want_code"
		for w in "${has[@]}"; do
			case "$out$err" in *"$w"*) ;; *) problem "no [$w] in its output" ;; esac
		done
		for w in "${lacks[@]}"; do
			case "$out$err" in *"$w"*) problem "[$w] in its output" ;; esac
		done
	else
		case $rc in 124 | 125 | 126 | 127) problem "exit status $rc" ;; esac
	fi
	if [ -n "$want_lines" ]; then
		local got
		got=$(printf '%s\n%s\n' "$out" "$err" | norm)
		while IFS= read -r w; do
			[ -z "$w" ] || [ "$w" = "..." ] && continue
			w=$(printf '%s\n' "$w" | norm)
			printf '%s\n' "$got" | grep -qxF -- "$w" || problem "the README shows [$w]; the run did not print it"
		done <<< "$want_lines"
	fi
	done_t
}

# block LANG FIRST-LINE: the lines in blk[]
block() {
	local lang=$1 first=$2 dir cmd="" cline=0 wl="" i l dollar=0 n=${#blk[@]}
	case $lang in
	sh) ;;
	"") [ "$n" -gt 0 ] && [ "${blk[0]#\$ }" != "${blk[0]}" ] || { reset_markers; return; } ;;
	*) reset_markers; return ;;
	esac
	nblock=$((nblock + 1))
	if [ -n "$d_skip" ]; then
		skip_t "README.md:$first: block $nblock" "$d_skip"
		reset_markers
		return
	fi
	dir=$T/block$nblock
	mkdir -p "$dir"
	if [ -n "$d_setup" ] && ! (cd "$dir" && bash -c "$d_setup") >"$T/.setup" 2>&1; then
		t "README.md:$first: block $nblock's setup"
		problem "setup failed: $(cat "$T/.setup")"
		done_t
		reset_markers
		return
	fi
	for ((i = 0; i < n; i++)); do
		[ "${blk[i]#\$ }" != "${blk[i]}" ] && dollar=1
	done
	flush() {
		if [ -n "$cmd" ]; then
			cd "$dir" || exit 1
			check "$cline" "$cmd" "$wl"
			cd "$T" || exit 1
		fi
		cmd="" wl=""
	}
	for ((i = 0; i < n; i++)); do
		l=${blk[i]}
		if [ -z "${l//[[:space:]]/}" ] || [ "${l#\#}" != "$l" ]; then
			flush
			continue
		fi
		if [ "$dollar" = 1 ] && [ "${l#\$ }" = "$l" ]; then
			[ -n "$cmd" ] && wl+="$l"$'\n'
			continue
		fi
		flush
		cline=$((first + 1 + i))
		cmd=${l#\$ }
		while [ "${cmd%\\}" != "$cmd" ] && [ $((i + 1)) -lt "$n" ]; do
			i=$((i + 1))
			cmd="${cmd%\\} ${blk[i]}"
		done
	done
	flush
	reset_markers
}

# inline `mockrun -e ...` commands; "prints X" after one is its stdout
inline() {
	local line=$1 text=$2 cmd after want
	while [[ $text =~ \`(mockrun (-e|--list)[^\`]*)\`(.*) ]]; do
		cmd=${BASH_REMATCH[1]}
		after=${BASH_REMATCH[3]}
		text=$after
		case $cmd in *[A-Z][A-Z]*\]* | *'[FN]'* | *FN* | *SOCKET*) continue ;; esac
		want=
		if [[ $after =~ ^[[:space:]]*$ ]] && [[ ${lines[line]:-} =~ ^prints\ ([^ ]+) ]]; then
			want=${BASH_REMATCH[1]%.}
		fi
		t "README.md:$line: $cmd"
		run timeout -k 5 "$TIMEOUT" bash -c "$(printf '%s' "$cmd" | subst)"
		case $rc in 124 | 125 | 126 | 127) problem "exit status $rc" ;; esac
		[ -z "$want" ] || want_out "$want"
		done_t
	done
}

mapfile -t lines < "$README"
inb=0 lang= first=0 blk=()
for ((ln = 0; ln < ${#lines[@]}; ln++)); do
	l=${lines[ln]}
	if [ "$inb" = 1 ]; then
		if [ "${l#\`\`\`}" != "$l" ]; then
			inb=0
			block "$lang" "$first"
		else
			blk+=("$l")
		fi
		continue
	fi
	if [ "${l#\`\`\`}" != "$l" ]; then
		inb=1 lang=${l#\`\`\`} first=$((ln + 1)) blk=()
		continue
	fi
	if [[ $l =~ ^\<!--\ readme-test:\ ([a-z]+)\ (.*)\ --\>$ ]]; then
		case ${BASH_REMATCH[1]} in
		skip) d_skip=${BASH_REMATCH[2]} ;;
		setup) d_setup+="${BASH_REMATCH[2]}"$'\n' ;;
		placeholders) d_place+=" ${BASH_REMATCH[2]}" ;;
		expect) d_expect+=("${BASH_REMATCH[2]}") ;;
		*) echo "Bail out! README.md:$((ln + 1)): unknown marker ${BASH_REMATCH[1]}"; exit 1 ;;
		esac
		continue
	fi
	case $l in *'`mockrun -'*) inline "$((ln + 1))" "$l" ;; esac
done
[ "$nblock" -gt 5 ] || { echo "Bail out! only $nblock blocks found in $README"; exit 1; }

# The in= example does what its comment says: python3 (python3.11 on
# Debian) gets the clock a day ahead, date keeps the real one.
t "README: fake_time(\"+1d\", in=\"python3\") moves python3's clock, not date's"
cmd=$(grep -m1 -F "fake_time(\"+1d\", in=\"python3\")" "$README" || true)
if [ -z "$cmd" ]; then
	problem "the README has no fake_time(\"+1d\", in=\"python3\") example"
else
	run bash -c "$(printf '%s' "$cmd" | subst)"
	want_rc 0
	python3 - "$out" <<'PY' || problem "python3's clock is not a day ahead of date's: [$out]"
import sys, time
a, b = sys.argv[1].splitlines()[:2]
fmt = "%a %b %d %H:%M:%S %Y"
da = time.mktime(time.strptime(a.replace("UTC ", ""), "%a %b %d %H:%M:%S %Y"))
db = time.mktime(time.strptime(" ".join(b.split()), fmt))
sys.exit(0 if 86000 < db - da < 86800 else 1)
PY
fi
done_t

finish
