load test_helper/common
setup() { _common_setup; }

# The command table (lib/cmdtab.c) through its lint driver: the table
# keeps to the grammar of lib/cmdtab.h, covers the programs an agent
# runs, and says what the options that matter most do.

LINT="$JH_TESTBIN/cmdtab-lint"

# entry NAME: the entry's line of `cmdtab-lint -l' (tab-separated name,
# opts, args, runs, tags, flags, src).
entry() {
	"$LINT" -l | awk -F '\t' -v n="$1" '$1 == n'
}

# field NAME N: field N of the entry (2 opts, 3 args, 4 runs, 5 tags,
# 6 flags).
field() {
	entry "$1" | cut -f "$2"
}

# spec NAME OPTION: the spec of OPTION in the entry's opts, or nothing.
spec() {
	field "$1" 2 | tr ' ' '\n' | awk -v o="$2" '
	    { n = $0; sub(/[=?:].*/, "", n); k = split(n, a, ",")
	      for (i = 1; i <= k; i++) if (a[i] == o) { print; exit } }'
}

# flag NAME BIT: whether the entry's flags have BIT.
flag() {
	local f
	f=$(field "$1" 6)
	[ -n "$f" ] && [ $(( f & $2 )) -ne 0 ]
}

@test "the table keeps to the grammar of lib/cmdtab.h" {
	run "$LINT"
	assert_success
	assert_output ""
}

@test "it lists at least 150 programs, in strcmp order" {
	"$LINT" -l | cut -f 1 >"$T/names"
	LC_ALL=C sort -c "$T/names"
	[ "$(sort -u "$T/names" | wc -l)" -eq "$(wc -l <"$T/names")" ]
	n=$(awk '{ print $1 }' "$T/names" | sort -u | wc -l)
	echo "$n programs"
	[ "$n" -ge 150 ]
}

@test "-l lists every entry with its seven fields" {
	run "$LINT" -l
	assert_success
	run awk -F '\t' 'NF != 7 { print NR ": " $0; bad = 1 } END { exit bad }' \
	    <<<"$output"
	assert_success
	run "$LINT" -x
	assert_failure 2
}

@test "every program the brief names has an entry" {
	for p in cat head tail wc sort uniq cut tr tee cp mv rm mkdir rmdir \
	    touch ln ls stat du df chmod chown basename dirname realpath \
	    readlink pwd echo printf date env seq yes sleep true false test \
	    '[' expr nl od xxd hexdump md5sum sha256sum base64 install mktemp \
	    split join paste comm fold fmt tac rev shuf numfmt truncate dd \
	    sync id whoami uname hostname nproc which type command file find \
	    xargs grep egrep fgrep rg ag sed awk gawk mawk jq yq diff cmp \
	    patch tar zip unzip gzip gunzip zcat bzip2 xz git gh npm npx pnpm \
	    yarn bun node deno tsc eslint prettier jest vitest python python3 \
	    pip pip3 uv poetry pytest tox black ruff mypy cargo rustc rustup \
	    go gofmt make cmake ninja meson autoreconf cc gcc g++ clang \
	    clang++ ld ar nm objdump strip java javac mvn gradle docker \
	    podman kubectl curl wget ssh scp rsync sftp sudo su doas sh bash \
	    zsh dash nice nohup timeout time stdbuf setsid ionice chrt \
	    builtin exec code vim nvim vi less more watch ps kill pkill lsof \
	    top htop man tree open xdg-open sqlite3 psql redis-cli openssl \
	    ssh-keygen gpg direnv; do
		[ -n "$(entry "$p")" ] || { echo "no entry: $p"; false; }
	done
}

@test "git's subcommands are entries of their own" {
	for s in status diff log show blame add commit checkout switch \
	    restore reset branch tag stash 'stash list' 'stash show' \
	    'stash pop' 'stash apply' 'stash drop' 'stash clear' 'stash push' \
	    'stash save' merge rebase cherry-pick revert fetch pull push clone \
	    init remote config rm mv clean worktree 'worktree add' \
	    'worktree remove' 'worktree list' 'worktree prune' submodule grep \
	    ls-files ls-tree rev-parse rev-list cat-file describe shortlog \
	    reflog bisect apply am format-patch archive gc notes \
	    filter-branch update-ref symbolic-ref for-each-ref show-ref \
	    check-ignore hash-object merge-base name-rev sparse-checkout; do
		[ -n "$(entry "git $s")" ] || { echo "no entry: git $s"; false; }
	done
	flag git 0x2
	flag git 0x1
	[ "$(field git 3)" = s ]
}

@test "git's global options: -C changes directory, -c and --git-dir are unknown" {
	[ "$(spec git -C)" = "-C=c" ]
	[ "$(spec git -c)" = "-c=u" ]
	[ "$(spec git --git-dir)" = "--git-dir=u" ]
	[ "$(spec git --work-tree)" = "--work-tree=u" ]
	[ "$(spec git --exec-path)" = "--exec-path?x" ]
	[ "$(spec git --config-env)" = "--config-env=u" ]
	field git 4 | grep -q '\.git/hooks/\*'
	field git 4 | grep -q '\*\*/\.gitattributes'
}

@test "git options that write files are w" {
	[ "$(spec 'git log' --output)" = "--output=w" ]
	[ "$(spec 'git diff' --output)" = "--output=w" ]
	[ "$(spec 'git format-patch' -o)" = "-o,--output-directory=w" ]
	[ "$(spec 'git archive' --output)" = "-o,--output=w" ]
	[ "$(field 'git diff' 3)" = "r*" ]
}

@test "git's destructive forms are tagged destroy, the others not" {
	[ "$(spec 'git reset' --hard)" = "--hard:destroy" ]
	[ "$(spec 'git reset' --merge)" = "--merge:destroy" ]
	[ "$(spec 'git reset' --keep)" = "--keep:destroy" ]
	[ -z "$(spec 'git reset' --soft)" ]
	[ -z "$(field 'git reset' 5)" ]
	[ "$(field 'git clean' 5)" = destroy ]
	[ "$(field 'git stash drop' 5)" = destroy ]
	[ "$(field 'git stash clear' 5)" = destroy ]
	[ -z "$(field 'git stash pop' 5)" ]
	[ "$(spec 'git branch' -D)" = "-D:destroy" ]
	[ "$(spec 'git branch' --force)" = "-f,--force:destroy" ]
	[ "$(spec 'git branch' -d)" = "-d,--delete" ]
	[ "$(spec 'git checkout' -f)" = "-f,--force:destroy" ]
	[ "$(spec 'git checkout' --)" = "--:end,destroy" ]
	[ "$(spec 'git checkout' -b)" = "-b=i" ]
	[ "$(spec 'git switch' -c)" = "-c,--create=i" ]
	[ "$(spec 'git switch' --discard-changes)" = \
	    "-f,--force,--discard-changes:destroy" ]
	[ "$(spec 'git rm' -f)" = "-f,--force:destroy" ]
	[ "$(spec 'git worktree remove' --force)" = "-f,--force:destroy" ]
	# git restore of a path discards work, --staged alone does not: the
	# interpreter decides (lib/effects.c), so the entry carries no tag
	[ "$(field 'git restore' 5)" = "" ]
}

@test "git history rewrites and remote effects" {
	[ "$(spec 'git commit' --amend)" = "--amend:rewrite" ]
	[ "$(spec 'git commit' -m)" = "-m,--message=i" ]
	[ "$(spec 'git commit' -F)" = "-F,--file=r" ]
	[ "$(field 'git rebase' 5)" = rewrite ]
	[ "$(field 'git filter-branch' 5)" = rewrite ]
	[ "$(field 'git replace' 5)" = rewrite ]
	[ "$(field 'git push' 5)" = remote ]
	for o in --force -f --force-with-lease --force-if-includes --mirror \
	    --delete -d --prune; do
		spec 'git push' "$o" | grep -q ':force$' ||
		    { echo "git push $o: $(spec 'git push' "$o")"; false; }
	done
	for s in fetch pull clone ls-remote 'submodule update'; do
		field "git $s" 5 | grep -qw net || { echo "git $s"; false; }
	done
	[ "$(spec 'git rebase' --exec)" = "-x,--exec=u" ]
}

@test "other programs' options that write, run or delete" {
	[ "$(spec sort -o)" = "-o,--output=w" ]
	[ "$(spec sed -i)" = "-i,--in-place?i:inplace" ]
	[ "$(spec sed -e)" = "-e,--expression=i:pattern" ]
	[ "$(spec grep -f)" = "-f,--file=r:pattern" ]
	[ "$(spec grep -r)" = \
	    "-r,-R,--recursive,--dereference-recursive:recursive" ]
	[ "$(spec tar --to-command)" = "--to-command=x" ]
	[ "$(spec tar -I)" = "-I,--use-compress-program=x" ]
	[ "$(spec tar -C)" = "-C,--directory=c" ]
	[ "$(spec rsync -e)" = "-e,--rsh=x" ]
	[ "$(spec find -delete)" = "-delete:delete,recursive" ]
	[ "$(spec find -fprint)" = "-fprint=w" ]
	[ "$(spec 'go test' -exec)" = "-exec,--exec=x" ]
	[ "$(spec 'go build' -toolexec)" = "-toolexec,--toolexec=x" ]
	[ "$(spec pytest --basetemp)" = "--basetemp=d" ]
	[ "$(spec pytest --junitxml)" = "--junitxml,--junit-xml=w" ]
	[ "$(spec pytest -p)" = "-p=u" ]
	[ "$(spec pytest -c)" = "-c,--config-file=f" ]
	[ "$(spec pytest --rootdir)" = "--rootdir=c" ]
	[ "$(spec 'cargo build' --config)" = "--config=u" ]
	[ "$(spec 'npm install' --node-options)" = "--node-options=u" ]
	[ "$(spec make -f)" = "-f,--file,--makefile=f" ]
	[ "$(spec make -C)" = "-C,--directory=c" ]
	[ "$(spec cp -t)" = "-t,--target-directory=w:target" ]
	[ "$(spec curl -o)" = "-o,--output=w" ]
}

@test "operand rules of the file tools" {
	[ "$(field cp 3)" = 'r*,$w' ]
	[ "$(field mv 3)" = 'rd*,$w' ]
	[ "$(field rm 3)" = 'd*' ]
	[ "$(field mkdir 3)" = 'w*' ]
	[ "$(field touch 3)" = 'w*' ]
	[ "$(field ln 3)" = 'rw*,$w' ]
	[ "$(field tee 3)" = 'w*' ]
	[ "$(field grep 3)" = 'i,r*' ]
	[ "$(field echo 3)" = 'i*' ]
	[ "$(field 'git add' 3)" = 'r*' ]
	[ "$(field 'npm run' 3)" = 'i,A*' ]
	[ "$(spec 'npm run' --)" = "--:rest" ]
	for p in cat head tail wc sort grep tee; do
		flag "$p" 0x200 || { echo "$p is not a filter"; false; }
	done
	flag find 0x400
	flag find 0x10
}

@test "installs, runs files and flags" {
	for s in 'npm install' 'npm ci' 'npm add' 'pip install' \
	    'cargo install' 'cargo add' 'go get' 'go install' 'uv add' \
	    'uv sync' 'uv pip install' 'poetry add' 'poetry install' \
	    'yarn add' 'yarn install' 'pnpm add' 'pnpm install'; do
		field "$s" 5 | grep -qw install || { echo "$s"; false; }
		field "$s" 5 | grep -qw net || { echo "$s"; false; }
	done
	field make 4 | grep -q '^Makefile,makefile,GNUmakefile,\*\*/\*\.mk$'
	field pytest 4 | grep -q '\*\*/conftest\.py'
	field cargo 4 | grep -q 'build\.rs'
	field npm 4 | grep -q 'node_modules/\.bin/\*'
	# runs is build configuration, not the source and test files
	field 'go generate' 4 | grep -q '^go\.mod,go\.work$'
	! field pytest 4 | grep -q 'test_'
	for p in make npm cargo pytest python3 node bash sh git docker ssh; do
		flag "$p" 0x1 || { echo "$p does not run code"; false; }
	done
	for p in cat grep cp sed; do
		! flag "$p" 0x1 || { echo "$p runs code"; false; }
	done
	for p in env nice nohup timeout time stdbuf setsid ionice chrt \
	    command builtin exec xargs; do
		flag "$p" 0x100 || { echo "$p is not a wrapper"; false; }
	done
	[ "$(field bash 3)" = 'x,A*' ]
}
