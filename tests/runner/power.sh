#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# power_loss(): a power cut right after a program says it is done (its
# getppid() call, the marker) leaves what the POSIX-minimum model says
# survives (DESIGN.md section 7.3): the six update protocols, torn and
# reorder replayed by --seed, trees of processes, hostile programs, bad
# input; and nothing is left in $TMPDIR.
. "$(dirname "$0")/../lib.sh"

M=$MOCKRUN
W=$T/w
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"

if [ -n "$EMULATED" ]; then
	skip_t "power_loss" "$EMULATED: no PR_SET_CHILD_SUBREAPER, mockrun cannot kill the whole tree"
	finish
	exit
fi

# fresh: a working directory with db/data = "old\n", made before the
# run (names and data there before a run are durable)
fresh() {
	rm -rf "$W"
	mkdir -p "$W/db"
	printf 'old\n' >"$W/db/data"
	printf 'outside\n' >"$W/outside"
}

DEF='power_loss(getppid, paths="db/*")'

# inw CMD...: run in $W
inw() {
	local o=$PWD
	cd "$W" || return
	run "$@"
	cd "$o" || return
}

# cut PY [STMT]: the python program PY run in $W under power_loss at its
# getppid(); its report in $err
cut() {
	local stmt=$DEF
	[ $# -gt 1 ] && stmt=$2
	printf '%s\n' "$1" >"$T/prog.py"
	inw "$M" -e "$stmt" python3 "$T/prog.py"
}

want_file() {
	local got
	got=$(cat "$W/$1" 2>/dev/null; echo x)
	[ "$got" = "$2"$'\n'x ] || problem "$1 holds [${got%x}], expected [$2]"
}

want_gone() {
	[ -e "$W/$1" ] || [ -L "$W/$1" ] && problem "$1 is there, expected gone"
}

want_clean() {
	[ -z "$(ls -A "$TMPDIR")" ] || problem "left in \$TMPDIR: $(ls -A "$TMPDIR")"
}

PRE='import os
def put(name, text, mode="w", sync=False):
    with open(name, mode) as f:
        f.write(text)
        f.flush()
        if sync:
            os.fsync(f.fileno())
def dirsync(name):
    fd = os.open(name, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)
'

# ---- the six protocols ----

t "write+rename without fsync: the update is lost, the temporary name gone"
fresh
cut "$PRE
put('db/tmp', 'new\n')
os.rename('db/tmp', 'db/data')
os.getppid()"
want_rc 0; want_err_has "the power went out at getppid() in python3"; want_err_has "1 rename undone"
want_file db/data old; want_gone db/tmp; want_clean
done_t

t "fsync of the file but not the directory, then rename: lost"
fresh
cut "$PRE
put('db/tmp', 'new\n', sync=True)
os.rename('db/tmp', 'db/data')
os.getppid()"
want_rc 0; want_file db/data old; want_gone db/tmp; want_clean
done_t

t "append without fsync: lost"
fresh
cut "$PRE
put('db/data', 'new\n', 'a')
os.getppid()"
want_rc 0; want_err_has "rolled back 1 file (4 bytes)"; want_file db/data old; want_clean
done_t

# (prog.py: the append without fsync)
t "the JSON report has power_loss, valid against the schema"
fresh
inw "$M" --report json -o "$T/r.json" -e "$DEF" python3 "$T/prog.py"
want_rc 0; want_json "$T/r.json"
grep -q '"power_loss":"the power went out at getppid()' "$T/r.json" || problem "r.json: $(cat "$T/r.json")"
done_t

t "the HTML report says where the power went out and what was rolled back"
fresh
inw "$M" --report html -o "$T/r.html" -e "$DEF" python3 "$T/prog.py"
want_rc 0
grep -q "the power went out at getppid() in python3.*rolled back 1 file (4 bytes)" "$T/r.html" ||
	problem "r.html lacks the power line"
done_t

t "append with fsync: kept"
fresh
cut "$PRE
put('db/data', 'new\n', 'a', sync=True)
os.getppid()"
want_rc 0; want_err_has "rolled back 0 files"; want_file db/data $'old\nnew'; want_clean
done_t

t "write to a temporary, fsync, rename, fsync the directory: kept"
fresh
cut "$PRE
put('db/tmp', 'new\n', sync=True)
os.rename('db/tmp', 'db/data')
dirsync('db')
os.getppid()"
want_rc 0; want_err_has "0 renames undone"; want_file db/data new; want_gone db/tmp; want_clean
done_t

t "overwrite in place with fsync: kept"
fresh
cut "$PRE
put('db/data', 'NEW', 'r+', sync=True)
os.getppid()"
want_rc 0; want_file db/data NEW; want_clean
done_t

t "a name removed since the directory's last fsync is back, with its content"
fresh
cut "$PRE
os.unlink('db/data')
os.mkdir('db/sub')
put('db/sub/x', 'x\n', sync=True)
os.getppid()"
want_rc 0; want_file db/data old; want_gone db/sub; want_err_has "1 removed name back"; want_clean
done_t

t "a removed name whose directory was synced stays removed"
fresh
cut "$PRE
os.unlink('db/data')
dirsync('db')
os.getppid()"
want_rc 0; want_gone db/data; want_clean
done_t

t "O_SYNC writes are durable"
fresh
cut "$PRE
fd = os.open('db/data', os.O_WRONLY | os.O_APPEND | os.O_SYNC)
os.write(fd, b'new\n')
os.getppid()"
want_rc 0; want_file db/data $'old\nnew'
done_t

t "a shared writable mapping: its changes lost without fsync (msync is not seen), kept with it"
for how in none msync fsync; do
	fresh
	cut "$PRE
import mmap
fd = os.open('db/data', os.O_RDWR)
m = mmap.mmap(fd, 0)
m[0:3] = b'NEW'
if '$how' == 'msync':
    m.flush()
if '$how' == 'fsync':
    os.fsync(fd)
os.getppid()"
	want_rc 0
	case $how in
	fsync) want_file db/data NEW ;;
	*) want_file db/data old ;;
	esac
done
done_t

t "writev: tracked; a bad vector is the real call's EFAULT, not a crash"
fresh
cut "$PRE
import ctypes
fd = os.open('db/data', os.O_WRONLY | os.O_APPEND)
os.writev(fd, [b'ab', b'cd\n'])
libc = ctypes.CDLL(None, use_errno=True)
r = libc.writev(fd, ctypes.c_void_p(8), 2)
print(r, ctypes.get_errno(), flush=True)
os.getppid()"
want_rc 0; want_out "-1 14"; want_err_has "rolled back 1 file (5 bytes)"; want_file db/data old
done_t

t "copy_file_range into a tracked file at an offset: lost"
fresh
printf 'src\n' >"$W/src"
cut "$PRE
a = os.open('src', os.O_RDONLY)
b = os.open('db/data', os.O_WRONLY)
os.copy_file_range(a, b, 4, 0, 4)
os.getppid()"
want_rc 0; want_err_has "rolled back 1 file (4 bytes)"; want_file db/data old
done_t

t "sync() makes everything before it durable"
fresh
cut "$PRE
put('db/tmp', 'new\n')
os.rename('db/tmp', 'db/data')
os.sync()
put('db/data', 'later\n', 'a')
os.getppid()"
want_rc 0; want_file db/data new
done_t

t "the shell's echo > file and mv (through libc's open, write, rename): lost"
fresh
# (in=: dash calls getppid itself when it starts)
inw "$M" -e 'power_loss(getppid, paths="db/*", in="python3")' sh -c 'echo new > db/tmp && mv db/tmp db/data && echo n >> db/data; python3 -c "import os; os.getppid()"'
want_rc 0; want_err_has "the power went out at getppid() in python3"; want_err_has "1 rename undone"
want_file db/data old; want_gone db/tmp; want_clean
done_t

t "stdio: fwrite buffered in a FILE, flushed by fflush (C), lost"
fresh
cat >"$T/stdio.c" <<'EOF'
#include <stdio.h>
#include <unistd.h>
int main(void)
{
	FILE *f = fopen("db/data", "a");
	fwrite("new\n", 1, 4, f);
	fflush(f);
	fputs("more\n", f);
	fclose(f);
	getppid();
	return 0;
}
EOF
if cc -o "$T/stdio" "$T/stdio.c" 2>/dev/null; then
	inw "$M" -e 'power_loss(getppid, paths="db/*")' "$T/stdio"
	want_rc 0; want_file db/data old
	done_t
else
	skip_t "$tname" "no C compiler"
fi

t "sqlite3 in WAL mode: synchronous=OFF loses a committed row, FULL keeps it"
KV="$PRE
import sqlite3, sys
db = sqlite3.connect('db/kv.sqlite')
db.execute('PRAGMA journal_mode=WAL')
db.execute('PRAGMA synchronous=' + sys.argv[1])
db.execute('CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v TEXT)')
db.commit()
if len(sys.argv) > 2:
    db.execute('INSERT OR REPLACE INTO kv VALUES (?, ?)', (sys.argv[2], sys.argv[3]))
    db.commit()
    os.getppid()
else:
    print(db.execute('SELECT v FROM kv').fetchall())"
printf '%s\n' "$KV" >"$T/kv.py"
for sync in OFF FULL; do
	fresh
	(cd "$W" && python3 "$T/kv.py" $sync >/dev/null)
	inw "$M" -e "$DEF" python3 "$T/kv.py" $sync k v
	want_rc 0
	inw python3 "$T/kv.py" $sync
	case $sync in
	OFF) want_out "[]" ;;
	FULL) want_out "[('v',)]" ;;
	esac
done
want_clean
done_t

t "stdio: a buffer exit() flushes (fprintf, no fclose) is seen, lost"
fresh
cat >"$T/atexit.c" <<'EOF'
#include <stdio.h>
int main(void)
{
	FILE *f = fopen("db/data", "a");
	fprintf(f, "new\n");
	return 0;
}
EOF
# -fno-builtin: fprintf stays fprintf (not an fwrite the shim sees)
if cc -fno-builtin -o "$T/atexit" "$T/atexit.c" 2>/dev/null; then
	inw "$M" -e 'power_loss(getppid, paths="db/*", in="python3")' sh -c "$T/atexit && python3 -c 'import os; os.getppid()'"
	want_rc 0; want_err_has "rolled back 1 file (4 bytes)"; want_file db/data old
	done_t
else
	skip_t "$tname" "no C compiler"
fi

t "writes past the end (holes) not synced: the file goes back to its durable size"
fresh
cut "$PRE
fd = os.open('db/data', os.O_WRONLY)
os.pwrite(fd, b'z', 10)
os.fsync(fd)
os.pwrite(fd, b'q', 20)
os.pwrite(fd, b'r', 100000)
os.close(fd)
os.getppid()"
want_rc 0
python3 -c "
import sys
d = open('$W/db/data', 'rb').read()
if d != b'old\\n' + bytes(6) + b'z':
    sys.exit('db/data holds %r' % d[:40] + ' (%d bytes)' % len(d))" 2>"$T/hole.err" || problem "$(cat "$T/hole.err")"
want_clean
done_t

t "O_TRUNC and truncate() through a symbolic link in paths=: the old bytes come back"
fresh
ln -s data "$W/db/cur"
printf 'two\n' >"$W/db/two"
ln -s two "$W/db/cur2"
cut "$PRE
fd = os.open('db/cur', os.O_WRONLY | os.O_TRUNC)
os.write(fd, b'xy')
os.close(fd)
os.truncate('db/cur2', 1)
os.getppid()"
want_rc 0; want_file db/data old; want_file db/two two; want_clean
done_t

t "O_CREAT through a symbolic link to a name not there: the name made is gone after the cut"
fresh
ln -s new "$W/db/cur"
cut "$PRE
put('db/cur', 'x')
os.getppid()"
want_rc 0; want_gone db/new; want_file db/data old; want_clean
done_t

# $TMPDIR on another file system than paths= (a tmpfs /tmp, the files on
# disk): a removed or replaced file cannot be kept as a hard link there
OTHER=
for d in /dev/shm /run/user/$(id -u) /tmp; do
	if [ -d "$d" ] && [ -w "$d" ] && [ "$(stat -c %d "$d")" != "$(stat -c %d "$T")" ]; then
		OTHER=$(mktemp -d "$d/mockshim-power.XXXXXX") && break
	fi
done
if [ -n "$OTHER" ]; then
	t "\$TMPDIR on another file system: a file renamed over and one removed come back whole"
	fresh
	printf 'gone\n' >"$W/db/gone"
	ln -s data "$W/db/sym"
	printf '%s\n' "$PRE
put('db/t', 'new\n')
os.rename('db/t', 'db/data')
# written before it is removed: undone into the file made again
fd = os.open('db/gone', os.O_WRONLY)
os.write(fd, b'GONE')
os.unlink('db/gone')
os.unlink('db/sym')
os.getppid()" >"$T/prog.py"
	TMPDIR=$OTHER inw "$M" -e "$DEF" python3 "$T/prog.py"
	want_rc 0; want_file db/data old; want_file db/gone gone; want_gone db/t; want_err_lacks "refused"
	[ "$(readlink "$W/db/sym")" = data ] || problem "db/sym is not the link back"
	[ -z "$(ls -A "$OTHER")" ] || problem "left in $OTHER: $(ls -A "$OTHER")"
	rm -rf "$OTHER"
	done_t
else
	skip_t "\$TMPDIR on another file system" "no writable directory on another file system"
fi

# ---- torn and reorder ----

# ten appends of 1000 bytes, 'a' to 'j', to an empty durable file
TORN="$PRE
fd = os.open('db/log', os.O_WRONLY | os.O_APPEND)
for c in 'abcdefghij':
    os.write(fd, (c * 1000).encode())
os.getppid()"
ALL=$(python3 -c "print(''.join(c * 1000 for c in 'abcdefghij'), end='')")

torn() {
	fresh
	: >"$W/db/log"
	printf '%s\n' "$TORN" >"$T/prog.py"
	inw "$M" --seed "$1" -e "power_loss(getppid, paths=\"db/*\", mode=$2)" python3 "$T/prog.py"
	got=$(cat "$W/db/log")
}

t "torn: a prefix of the writes survives, cut at a 512-byte boundary, the same for the same seed"
seen=
for seed in 1 2 3 4 5 6; do
	torn $seed torn
	want_rc 0
	want_err_has "mode=torn, --seed $seed"
	n=${#got}
	[ "${ALL:0:n}" = "$got" ] || problem "seed $seed: not a prefix of the writes (${got:0:20}...)"
	[ $((n % 512)) -eq 0 ] || [ $((n % 1000)) -eq 0 ] ||
		problem "seed $seed: $n bytes survive: neither a 512-byte boundary nor a whole write"
	first=$got
	torn $seed torn
	[ "$got" = "$first" ] || problem "seed $seed: another outcome the second time (${#first} then ${#got} bytes)"
	seen="$seen ${#got}"
done
[ "$(printf '%s\n' $seen | sort -u | wc -l)" -gt 1 ] || problem "six seeds, one outcome:$seen"
want_clean
done_t

t "reorder: a subset of the writes survives, each whole, the same for the same seed"
seen=
for seed in 1 2 3 4 5 6; do
	torn $seed reorder
	want_rc 0
	python3 - "$got" <<'EOF' || problem "seed $seed: not a subset of whole writes, in order: $got"
import sys
got = sys.argv[1]
chunks = [got[i:i + 1000] for i in range(0, len(got), 1000)]
assert all(len(c) == 1000 and c == c[0] * 1000 for c in chunks), "torn chunk"
assert [c[0] for c in chunks] == sorted(c[0] for c in chunks), "out of order"
EOF
	first=$got
	torn $seed reorder
	[ "$got" = "$first" ] || problem "seed $seed: another outcome the second time"
	seen="$seen ${#got}:$(printf '%s' "$got" | md5sum | cut -c1-6)"
done
[ "$(printf '%s\n' $seen | sort -u | wc -l)" -gt 1 ] || problem "six seeds, one outcome:$seen"
done_t

# ---- processes ----

t "two processes writing one file: both lost"
fresh
cut "$PRE
pid = os.fork()
put('db/data', 'child\n' if pid == 0 else 'parent\n', 'a')
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
os.getppid()"
want_rc 0; want_file db/data old; want_err_has "rolled back 1 file (13 bytes)"
done_t

t "a big overwrite while another thread writes and fsyncs another file: all of it lost"
fresh
python3 -c "
for i in range(8):
    open('$W/db/big%d' % i, 'wb').write(b'o' * (1 << 20))"
cut "$PRE
import threading
stop = False
def syncer():
    fd = os.open('db/y', os.O_WRONLY | os.O_CREAT, 0o644)
    os.fsync(fd)
    while not stop:
        os.write(fd, b'y')
        os.fsync(fd)
t = threading.Thread(target=syncer)
t.start()
# (the records of a write over 64 KiB of old bytes come in pieces: the
# other thread's fall between them)
for i in range(8):
    fd = os.open('db/big%d' % i, os.O_WRONLY)
    os.pwrite(fd, b'n' * (1 << 20), 0)
    os.close(fd)
stop = True
t.join()
os.getppid()"
want_rc 0
python3 -c "
import sys
for i in range(8):
    if open('$W/db/big%d' % i, 'rb').read() != b'o' * (1 << 20):
        sys.exit('db/big%d keeps new bytes' % i)" 2>"$T/big.err" || problem "$(cat "$T/big.err")"
want_clean
done_t

t "a process that closed every descriptor (a daemon's way): its changes are still rolled back, and none goes into its files"
fresh
printf 'other\n' >"$W/db/other"
cut "$PRE
os.closerange(3, 65536)
# the shim's descriptor number now the program's, open for writing
fds = [os.open('db/other', os.O_RDWR) for i in range(600)]
put('db/data', 'new\n', 'a')
os.getppid()"
want_rc 0; want_err_has "rolled back 1 file (4 bytes)"; want_file db/data old; want_file db/other other
want_clean
done_t

t "a child writing after the parent's fsync: the parent's kept, the child's lost"
fresh
cut "$PRE
put('db/data', 'parent\n', 'a', sync=True)
pid = os.fork()
if pid == 0:
    put('db/data', 'child\n', 'a')
    os._exit(0)
os.waitpid(pid, 0)
os.getppid()"
want_rc 0; want_file db/data $'old\nparent'
done_t

t "a daemon that outlived its parent, blocking every signal, is dead before the rollback"
fresh
cut "$PRE
import signal, time
pid = os.fork()
if pid == 0:
    os.setsid()
    if os.fork():
        os._exit(0)
    signal.pthread_sigmask(signal.SIG_BLOCK, range(1, signal.NSIG))
    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(s, signal.SIG_IGN)
    put('pid', str(os.getpid()))
    fd = os.open('db/data', os.O_WRONLY | os.O_APPEND)
    while True:
        os.write(fd, b'd')
        time.sleep(0.001)
os.waitpid(pid, 0)
while not os.path.exists('pid') or not open('pid').read():
    time.sleep(0.01)
time.sleep(0.05)
os.getppid()"
want_rc 0
dpid=$(cat "$W/pid" 2>/dev/null)
[ -n "$dpid" ] || problem "the daemon never started"
[ -n "$dpid" ] && kill -0 "$dpid" 2>/dev/null && { problem "the daemon $dpid is alive"; kill -9 "$dpid"; }
want_file db/data old
want_clean
done_t

# ---- hostile programs ----

t "a symlink renamed over db/data: the rollback never writes outside"
fresh
cut "$PRE
put('db/data', 'new\n', 'a')
os.symlink(os.path.abspath('outside'), 'link')
os.rename('link', 'db/data')
os.getppid()"
want_rc 0; want_file outside outside; want_err_has "refused"
done_t

t "db itself replaced by a symlink to a directory outside: nothing written there"
fresh
mkdir -p "$W/elsewhere"
printf 'else\n' >"$W/elsewhere/data"
cut "$PRE
put('db/data', 'new\n', 'a')
os.rename('db', 'db2')
os.symlink('elsewhere', 'db')
os.getppid()"
want_rc 0; want_file elsewhere/data else; want_file db2/data $'old\nnew'; want_err_has "refused"
done_t

# JOURNAL: the power directory's journal, found through the shim's
# descriptor (a program of mockrun's user can write there)
JOURNAL="
def journal():
    for fd in os.listdir('/proc/self/fd'):
        try:
            t = os.readlink('/proc/self/fd/' + fd)
        except OSError:
            continue
        if t.endswith('/journal'):
            return t
"

t "a FIFO in place of the journal: mockrun does not hang, nothing is rolled back"
fresh
printf '%s\n' "$PRE$JOURNAL
j = journal()
put('db/data', 'new\n', 'a')
os.unlink(j)
os.mkfifo(j)
os.getppid()" >"$T/prog.py"
# (a hang is killed: 137)
inw timeout -s KILL 60 "$M" -e "$DEF" python3 "$T/prog.py"
want_rc 0; want_err_has "its journal could not be read"; want_clean
rm -rf "${TMPDIR:?}"/mockrun-power-*
done_t

t "directories the program made in the power directory are removed too"
fresh
cut "$PRE$JOURNAL
d = os.path.dirname(journal())
os.makedirs(d + '/sub/deeper')
put(d + '/sub/deeper/x', 'x')
os.symlink('/', d + '/sub/root')
os.chmod(d + '/sub', 0o500)
put('db/data', 'new\n', 'a')
os.getppid()"
want_rc 0; want_file db/data old; want_clean
chmod -R u+rwx "$TMPDIR" 2>/dev/null; rm -rf "${TMPDIR:?}"/mockrun-power-*
done_t

t "a directory swapped in from outside paths= after a name was made in it: the rollback leaves it alone"
fresh
mkdir -p "$W/victim"
printf 'precious\n' >"$W/victim/new"
cut "$PRE
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
os.mkdir('db/sub')
put('db/sub/new', 'n')
os.rename('db/sub', 'db2')
# renameat2 by its number: a system call the shim does not see
nr = {'x86_64': 316, 'aarch64': 276}[os.uname().machine]
if libc.syscall(nr, -100, b'victim', -100, b'db/sub', 0) != 0:
    raise OSError(ctypes.get_errno(), 'renameat2')
os.getppid()"
want_rc 0; want_file db/sub/new precious; want_err_has "refused"
done_t

t "a directory removed and made again: its old files come back into the one the rollback makes"
fresh
mkdir "$W/db/sub"
printf 'kept\n' >"$W/db/sub/x"
cut "$PRE
os.unlink('db/sub/x')
os.rmdir('db/sub')
os.mkdir('db/sub')
os.getppid()"
want_rc 0; want_file db/sub/x kept; want_err_lacks "refused"; want_clean
done_t

t "a journal damaged by the program: nothing is rolled back, and the report says why"
fresh
cut "$PRE$JOURNAL
put('db/data', 'new\n', 'a')
with open(journal(), 'ab') as j:
    j.write(b'garbage')
put('db/data', 'more\n', 'a')
os.getppid()"
want_rc 0; want_err_has "its journal is damaged at byte"; want_file db/data $'old\nnew\nmore'; want_clean
done_t

# ---- statements ----

t "paths= with .. (a directory beside the working directory) is tracked and rolled back"
fresh
mkdir -p "$W/sub"
printf '%s\n' "$PRE
put('../db/data', 'new\n', 'a')
os.getppid()" >"$T/prog.py"
cd "$W/sub" || exit 1
run "$M" -e 'power_loss(getppid, paths="../db/*")' python3 "$T/prog.py"
cd - >/dev/null || exit 1
want_rc 0; want_err_has "rolled back 1 file (4 bytes)"; want_file db/data old; want_clean
done_t

t "a power_loss never reached is a leftover (123)"
fresh
cut "$PRE
put('db/data', 'new\n', 'a')" 'power_loss(getppid, paths="db/*")'
want_rc 123; want_file db/data $'old\nnew'; want_clean
done_t

t "power_loss at the second fsync: the changes after the first survive to it"
fresh
cut "$PRE
put('db/data', 'one\n', 'a', sync=True)
put('db/data', 'two\n', 'a', sync=True)
os.getppid()" 'power_loss(fsync, 2, paths="db/*")'
want_rc 0; want_err_has "at fsync()"; want_file db/data $'old\none'
done_t

t "power_loss on a SYS_ name: the supervisor withholds the call, the tree dies, the rollback runs"
fresh
cut "$PRE
put('db/data', 'new\n', 'a')
os.getppid()" 'power_loss(SYS_getppid, paths="db/*")'
want_rc 0; want_err_has "the power went out at SYS_getppid()"; want_file db/data old; want_clean
done_t

t "paths= matching nothing: a warning in the report"
fresh
cut "$PRE
os.getppid()" 'power_loss(getppid, paths="nowhere/*")'
want_rc 0; want_err_has 'warning: power_loss'"'"'s paths="'; want_err_has 'nowhere/*" matches nothing'
done_t

t "an unknown mode: 125, with a caret under it"
run "$M" -e 'power_loss(getppid, paths="db/*", mode=fast)' true
want_rc 125; want_err_has "unknown mode 'fast'"; want_err_has "^"
done_t

t "power_loss without paths=: 125"
run "$M" -e 'power_loss(getppid)' true
want_rc 125; want_err_has 'power_loss needs paths='
done_t

t "the JUnit report says where the power went out"
fresh
printf '%s\n' "$PRE
put('db/data', 'new\n', 'a')
os.getppid()" >"$T/prog.py"
inw "$M" --report junit -o "$T/r.xml" -e 'power_loss(getppid, paths="db/*")' python3 "$T/prog.py"
want_rc 0
grep -q "the power went out at getppid()" "$T/r.xml" || problem "r.xml: $(cat "$T/r.xml")"
done_t

# ---- test files: several runs, the next one the recovery ----

cat >"$T/kv.mock" <<'EOF'
test "a put survives a power cut after its fsync, and the recovery reads it" {
	power_loss(getppid, paths="db/*", in="python3")
	run sh -c 'mkdir db && echo v > db/k && sync db/k db && python3 -c "import os; os.getppid()"'
	expect_power_loss()
	run cat db/k
	expect_stdout("v\n")
}

test "an unsynced rename is lost: the recovery run reads the old value" {
	run sh -c 'mkdir db && echo old > db/k && sync db/k db'
	expect_stdout("")
	power_loss(getppid, paths="db/*", in="python3")
	run sh -c 'echo new > db/k.tmp && mv db/k.tmp db/k && python3 -c "import os; os.getppid()"'
	expect_power_loss()
	run cat db/k
	expect_stdout("old\n")
}
EOF
t "test files: several runs per test, the run after a power cut is the recovery"
run "$M" -t "$T/kv.mock"
want_rc 0; want_out_has "ok 1 - "; want_out_has "ok 2 - "; want_out_lacks "not ok"
want_clean
done_t

cat >"$T/bad.mock" <<'EOF'
test "the put was not synced, yet the test expects it" {
	power_loss(getppid, paths="db/*", in="python3")
	run sh -c 'mkdir db && echo v > db/k && python3 -c "import os; os.getppid()"'
	expect_power_loss()
	run cat db/k
	expect_stdout("v\n")
	run true
}

test "expect_power_loss when the power stayed on" {
	run true
	expect_power_loss()
}
EOF
t "test files: the failing step is named and stops the test; expect_power_loss fails when no cut"
run "$M" -t "$T/bad.mock"
want_rc 1
want_out_has "bad.mock:5: step 2 of 3 (run cat) failed"
want_out_has 'expected stdout to be "v\n", got ""'
want_out_lacks "step 3 of 3"
want_out_has "bad.mock:12: expected the power to go out"
done_t

t "test files: statements after the last of several runs are an error (125)"
printf 'test "t" {\n\trun true\n\trun true\n\twill_fail(read, EIO)\n}\n' >"$T/late.mock"
run "$M" -t "$T/late.mock"
want_rc 125; want_err_has "has statements after its last run"
done_t

finish
