#!/usr/bin/env bats
# lib/effects.c: what a command line does, by the command table, through
# the tests/sh-effects driver; the cases are tests/fixtures/effects-table.txt.

load test_helper/common

setup() {
	_common_setup
	P="$T/proj"
	H="$T/home"
	mkdir -p "$P/src" "$P/.git" "$H"
	P=$(cd "$P" && pwd -P)
	H=$(cd "$H" && pwd -P)
	echo 'int a;' >"$P/src/a.c"
	: >"$P/Makefile"
	mkdir -p "$P/node_modules/.bin"
	printf '#!/bin/sh\n' >"$P/node_modules/.bin/tsc"
	chmod +x "$P/node_modules/.bin/tsc"
	mkdir -p "$P/app"
	: >"$P/app/__init__.py"
	: >"$P/app/main.py"
	EFX="${JH_TESTBIN:-$BATS_TEST_DIRNAME/../build/test/tests}/sh-effects"
	[ -x "$EFX" ] || skip "no $EFX (make check builds it)"
}

# has JSON TOKEN: the effects of JSON hold TOKEN (NAME or NAME:PATH[/**])
has() {
	local name=${2%%:*} path= tree=0
	[ "$name" != "$2" ] && path=${2#*:}
	path=${path//@P/$P}
	path=${path//@H/$H}
	case "$path" in
	*/\*\*) tree=1; path=${path%/\*\*}; [ -z "$path" ] && path=/ ;;
	esac
	jq -e --arg n "$name" --arg p "$path" --argjson t "$tree" \
	    '.effects | any(.effect == $n and ($p == "" or (.path == $p and
	      ((.tree // 0) == $t))))' <<<"$1" >/dev/null
}

@test "the effects table: every case has what it must and nothing it must not" {
	fails=0
	n=0
	while IFS=$'\t' read -r cmd must mustnot; do
		[ -z "$cmd" ] && continue
		case "$cmd" in \#*) continue ;; esac
		cmd=${cmd//@P/$P}
		cmd=${cmd//@H/$H}
		out=$(printf '%s\n' "$cmd" | (cd "$P" && "$EFX" -e -d "$P" -r "$P" -H "$H"))
		n=$((n + 1))
		if ! jq -e '.ok' <<<"$out" >/dev/null; then
			echo "REFUSED $cmd: $out"
			fails=$((fails + 1))
			continue
		fi
		for t in $must; do
			[ "$t" = - ] && continue
			if ! has "$out" "$t"; then
				echo "MISSING $t in $cmd: $out"
				fails=$((fails + 1))
			fi
		done
		for t in $mustnot; do
			[ "$t" = - ] && continue
			if has "$out" "$t"; then
				echo "UNWANTED $t in $cmd: $out"
				fails=$((fails + 1))
			fi
		done
	done <"$BATS_TEST_DIRNAME/fixtures/effects-table.txt"
	echo "$n cases"
	[ "$n" -ge 80 ]
	[ "$fails" -eq 0 ]
}

@test "a write of a file a program executes is marked executed; a plain source or test file is not" {
	for f in Makefile makefile GNUmakefile package.json sub/package.json .npmrc \
	    conftest.py tests/conftest.py .git/config .git/hooks/pre-commit \
	    .cargo/config.toml build.rs go.mod sub/.git/config lefthook.yml \
	    .pre-commit-config.yaml .venv/lib/python3.11/site-packages/x.pth \
	    sitecustomize.py MAKEFILE PACKAGE.JSON .GIT/HOOKS/pre-commit \
	    tests/Conftest.py MaKefile pacKage.jſon; do
		out=$(printf 'echo x > %s\n' "$f" | "$EFX" -d "$P" -r "$P" -H "$H")
		jq -e '.effects | any(.effect == "write" and .executed == 1)' \
		    <<<"$out" >/dev/null || { echo "not executed: $f: $out"; false; }
	done
	for f in src/a.c README.md src/test_x.py tests/test_util.py src/x.test.ts; do
		out=$(printf 'echo x > %s\n' "$f" | "$EFX" -d "$P" -r "$P" -H "$H")
		jq -e '.effects | any(.effect == "write" and (.executed // 0) == 0)' \
		    <<<"$out" >/dev/null || { echo "executed: $f: $out"; false; }
	done
}

@test "~ and \$HOME are the user's home, never a folder of the project" {
	for c in 'cat ~/.bashrc' 'cat $HOME/.bashrc' 'cat "$HOME/.bashrc"' 'cd && cat .bashrc' \
	    'cd ~ && cat .bashrc' 'pushd ~ && cat .bashrc'; do
		out=$(printf '%s\n' "$c" | "$EFX" -d "$P" -r "$P" -H "$H")
		jq -e --arg p "$H/.bashrc" '.effects | any(.effect == "read" and .path == $p)' \
		    <<<"$out" >/dev/null || { echo "$c: $out"; false; }
	done
}

@test "a value that may split or become an option is unknown where it matters" {
	for c in 'git log $X' 'git log "$X"' 'git commit -m $(id)' 'rm $(cat list)' \
	    'cat *' 'git log *'; do
		out=$(printf '%s\n' "$c" | "$EFX" -d "$P" -r "$P" -H "$H")
		case "$c" in
		'cat *') jq -e '.effects | all(.effect != "unknown")' <<<"$out" >/dev/null ;;
		*) jq -e '.effects | any(.effect == "unknown")' <<<"$out" >/dev/null ;;
		esac || { echo "$c: $out"; false; }
	done
}

@test "a path through a process's own files is refused, never resolved in the gate's process" {
	# /proc/self/cwd is the gate's directory here, the shell's there
	for c in 'cat /proc/self/environ' 'cd ~ && rm -rf /proc/self/cwd/.ssh' \
	    'cat /proc/1/environ' 'cat /dev/fd/3' 'sh /dev/stdin' \
	    'cd /proc/self && cat environ'; do
		run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<"$c"
		[ "$(jq -r .ok <<<"$output")" = false ] ||
			{ echo "not refused: $c: $output"; false; }
		[[ $output == *"process's own files"* ]]
	done
	# a link to a link of /proc/self is a magic link too
	ln -s /proc/self/cwd "$P/here"
	run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<'rm -rf here/.ssh'
	[ "$(jq -r .ok <<<"$output")" = false ]
	# /proc's plain files stay readable
	run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<'cat /proc/cpuinfo'
	[ "$(jq -c '[.effects[] | .effect + ":" + .path]' <<<"$output")" = '["read:/proc/cpuinfo"]' ]
}

@test "a link to what does not exist yet is the path of its target, where a write through it lands" {
	mkdir -p "$H/.claude"
	ln -s ../../home/.claude/settings.local.json "$P/src/cfg.json"
	ln -s "$H/.profile_x" "$P/p2"
	ln -s p2 "$P/p3"
	for c in 'echo x > src/cfg.json:'"$H/.claude/settings.local.json" \
	    'echo x > p2:'"$H/.profile_x" 'echo x > p3:'"$H/.profile_x" \
	    'echo x > src/new.txt:'"$P/src/new.txt"; do
		run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<"${c%%:*}"
		[ "$(jq -r '.effects[0].path' <<<"$output")" = "${c#*:}" ] ||
			{ echo "${c%%:*}: $output"; false; }
	done
	# a loop of links is no path at all
	ln -s l1 "$P/l2"
	ln -s l2 "$P/l1"
	run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<'echo x > l1'
	[ "$(jq -r .ok <<<"$output")" = false ]
}

# A write that lands on a file some program runs is marked executed, the
# way a shell redirection names it or a program makes it under another
# name: a submodule's or worktree's git files, a decompressor's output.
@test "a submodule's git files, a worktree's links and a decompressor's output are marked executed" {
	for cmd in "echo x >> .git/modules/lib/config" \
	    "printf x > .git/modules/a/b/hooks/post-checkout" \
	    "echo x > .git/worktrees/w/commondir" "gunzip -f Makefile.gz" \
	    "xz -d -f package.json.xz" "bunzip2 .npmrc.bz2"; do
		out=$(printf '%s\n' "$cmd" | (cd "$P" && "$EFX" -e -d "$P" -r "$P" -H "$H"))
		jq -e '[.effects[] | select(.effect == "write" and .executed == 1)] | length > 0' \
		    <<<"$out" >/dev/null || { echo "not executed: $cmd: $out"; false; }
	done
	out=$(printf '%s\n' "gzip src/a.c" | (cd "$P" && "$EFX" -e -d "$P" -r "$P" -H "$H"))
	jq -e '[.effects[] | select(.executed == 1)] | length == 0' <<<"$out" >/dev/null
}

# bash's cd takes '..' as text (cd -L), the kernel after the link: the
# directory is followed only where both come to the same place.  A
# symbolic link's relative target is found from the link's directory.
@test "cd through a link and '..': followed only where bash and the kernel agree; ln -s's relative target from the link's directory" {
	mkdir -p "$P/a/b"
	ln -s a/b "$P/l"
	ln -s . "$P/self"
	for c in 'cd l/../.. && echo x >> .bashrc' 'cd l && cd .. && echo x > y' \
	    'cd self/../x && echo x > y'; do
		run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<"$c"
		jq -e '.effects | any(.effect == "unknown") and all(.effect != "write")' <<<"$output" >/dev/null ||
		    { echo "$c: $output"; false; }
	done
	for c in "cd src && cd .. && echo x > y:$P/y" "cd a/b/.. && echo x > y:$P/a/y" \
	    "cd src/.. && echo x > y:$P/y"; do
		run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<"${c%%:*}"
		[ "$(jq -c '[.effects[] | [.effect, .path]]' <<<"$output")" = "[[\"write\",\"${c#*:}\"]]" ] ||
		    { echo "${c%%:*}: $output"; false; }
	done
	# a prompt expansion runs the $(...) a value holds (the table's @P is the project)
	run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<'read v; : "${v@P}"'
	jq -e '.effects | any(.effect == "unknown")' <<<"$output" >/dev/null || { echo "$output"; false; }
	# the link lands in the project, so its ../.config is the project's sibling
	run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<'cd a && ln -s ../.config/joulehook/trust ../l2 && echo x > ../l2'
	jq -e --arg t "${P%/*}/.config/joulehook/trust" '.effects | any(.effect == "write" and .path == $t)' <<<"$output" >/dev/null || { echo "$output"; false; }
	# where the link's directory is not there yet, the target is unknown, never the cwd's
	run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<'mkdir -p inc && ln -s ../src/a.c inc/a.c'
	jq -e '.effects | any(.effect == "unknown") and all(.path != null or .effect != "write" or (.path | startswith("'"$P"'")))' <<<"$output" >/dev/null || { echo "$output"; false; }
}

# An in-place program given a glob rewrites what it matches now.
@test "sed -i or a formatter over a glob that matches an executed file is that file's write" {
	mkdir -p "$P/web"
	echo '{}' >"$P/web/package.json"
	echo '{}' >"$P/web/data.json"
	run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<"sed -i 's/a/b/' web/*.json"
	jq -e '.effects | any(.effect == "write" and .executed == 1)' <<<"$output" >/dev/null || { echo "$output"; false; }
	run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<"sed -i 's/a/b/' web/data*.json"
	jq -e '.effects | all(.effect != "write" or (.executed // 0) == 0)' <<<"$output" >/dev/null || { echo "$output"; false; }
}

# A program that writes into a directory picks the name: the write is
# marked executed where a file of the source's name there would be, or
# where any name there would be (.git/hooks).  Plumbing that builds
# commits or index entries from any content, and init's template and
# separate git directory, are unknown.
@test "a write into a directory is executed where the name it lands under would be; git plumbing and templates are unknown" {
	mkdir -p "$P/.git/hooks" "$P/d" "$T/e"
	: >"$T/e/package.json"
	: >"$T/e/notes.txt"
	for c in "cp $T/e/notes.txt .git/hooks/" "cp $T/e/package.json ." \
	    "cp -t . $T/e/package.json" "install -m755 $T/e/notes.txt .git/hooks/" \
	    "mv $T/e/notes.txt .git/hooks" "go build -o .git/hooks/ ./cmd/x" \
	    "git clone $T/e .git/hooks" "git worktree add .git/hooks HEAD"; do
		run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<"$c"
		jq -e '.effects | any(.effect == "write" and .executed == 1)' <<<"$output" >/dev/null ||
		    { echo "not executed: $c: $output"; false; }
	done
	for c in "cp $T/e/notes.txt d/" "cp $T/e/notes.txt ." "mkdir -p d/e"; do
		run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<"$c"
		jq -e '.effects | all(.effect != "write" or (.executed // 0) == 0)' <<<"$output" >/dev/null ||
		    { echo "executed: $c: $output"; false; }
	done
	for c in 'git init --template=tpl' 'git init --separate-git-dir=g2 .' \
	    'git clone --template=tpl /tmp/r x' 'git mktree <t' 'git commit-tree 4b825dc -m x' \
	    'git update-index --add --cacheinfo 100644,4b825dc,package.json' \
	    'git update-index --index-info <t'; do
		run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<"$c"
		jq -e '.effects | any(.effect == "unknown")' <<<"$output" >/dev/null ||
		    { echo "not unknown: $c: $output"; false; }
	done
}

# A glob whose patterns are all in its last part (rm -f *.o) reaches what
# that part may match in its directory, and what is under that: .git and
# the like only where the part may match them.  Written through, or
# copied into a directory, a glob that may match a name some program
# runs (package.json for *.json) is that name's write.
@test "a glob's last part bounds its directory's effect; a glob that may match an executed name is its write" {
	run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<'rm -f *.o'
	jq -e '.effects | any(.effect == "delete" and .only == "*.o")' <<<"$output" >/dev/null || { echo "$output"; false; }
	# brackets, braces and extglob keep the whole directory
	for c in 'rm -f *.[ch]' 'rm -f *.{c,h}' 'rm -f x\*.o'; do
		run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<"$c"
		jq -e '.effects | all(.only == null)' <<<"$output" >/dev/null || { echo "$c: $output"; false; }
	done
	mkdir -p "$T/e" "$P/build"
	for c in "cp $T/e/*.json ." "cp $T/e/* ." "cp $T/e/*/*.json ." \
	    "cp $T/e/*.py ." "cp $T/e/*.kts ." "echo x | tee *.json" \
	    "echo x | tee */*.c" "cp $T/e/*.sh .git/hooks/" \
	    "find $T/e -name package.json -exec cp {} . \\;" \
	    "find $T/e -name '*.json' -exec cp {} . \\;" \
	    "find $T/e -exec cp {} build/ \\;" "cp -s $T/e/*.json ." \
	    "cp -l $T/e/*.json ."; do
		run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<"$c"
		jq -e '.effects | any(.effect == "write" and .executed == 1)' <<<"$output" >/dev/null || { echo "not executed: $c: $output"; false; }
	done
	for c in "cp src/*.c build/" "echo x | tee src/*.c" "cp $T/e/*.h build/" \
	    "find src -name '*.c' -exec cp {} build/ \\;"; do
		run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<"$c"
		jq -e '.effects | all(.effect != "write" or (.executed // 0) == 0)' <<<"$output" >/dev/null || { echo "executed: $c: $output"; false; }
	done
}

# A package manager's bin directory holds tools, not the project's code:
# .venv/bin/pip is pip, with pip's effects.
@test "a virtual environment's or node_modules' program is the tool of its name" {
	mkdir -p "$P/.venv/bin"
	: >"$P/.venv/pyvenv.cfg"
	printf '#!/bin/sh\n' >"$P/.venv/bin/pip"
	chmod +x "$P/.venv/bin/pip"
	run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<'.venv/bin/pip install requests'
	jq -e '.effects | any(.effect == "install")' <<<"$output" >/dev/null || { echo "$output"; false; }
	run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<'node_modules/.bin/tsc --outDir @H/x'
	jq -e '.effects | any(.effect == "exec")' <<<"$output" >/dev/null || { echo "$output"; false; }
	# a bin directory of the project's own is its code, its words passed on
	mkdir -p "$P/tools/bin"
	printf '#!/bin/sh\n' >"$P/tools/bin/pip"
	chmod +x "$P/tools/bin/pip"
	run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<'tools/bin/pip install requests'
	jq -e '.effects | all(.effect != "install")' <<<"$output" >/dev/null || { echo "$output"; false; }
}

# What a glob matches that is a link is decided where the link leads: a
# write through tee ./nSTAR.md is one of .git/hooks/pre-commit where
# notes.md links there, even to what does not exist yet.
@test "a glob's matches that are links are decided where they lead" {
	mkdir -p "$P/.git/hooks"
	ln -s .git/hooks/pre-commit "$P/notes.md"
	ln -s "$H/.ssh/id_rsa" "$P/key.md"
	ln -s .git/hooks "$P/pre-commzt"
	: >"$P/pre-commit"
	run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<'printf x | tee ./n*.md'
	jq -e --arg p "$P/.git/hooks/pre-commit" '.effects | any(.effect == "write" and .path == $p and .executed == 1)' <<<"$output" >/dev/null || { echo "$output"; false; }
	run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<'cat ./k*.md'
	jq -e --arg p "$H/.ssh/id_rsa" '.effects | any(.effect == "read" and .path == $p)' <<<"$output" >/dev/null || { echo "$output"; false; }
	# cp ./pre-comm?t: the last match is the directory it copies into
	run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<'cp ./pre-comm?t'
	jq -e '.effects | any(.effect == "write" and .executed == 1)' <<<"$output" >/dev/null || { echo "$output"; false; }
	# a delete removes the link alone; ls reads no file
	run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<'rm -f ./n*.md; ls -l ./k*.md'
	jq -e --arg h "$H" '.effects | all((.path // "") | startswith($h) | not)' <<<"$output" >/dev/null || { echo "$output"; false; }
	# a byte past ASCII keeps the whole directory: bash folds it by locale
	run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<'rm -rf .gİ*'
	jq -e '.effects | any(.effect == "vcs-local-destroy")' <<<"$output" >/dev/null || { echo "$output"; false; }
}

# mv and git clone put what a path means elsewhere: a moved link's text
# is read again where it lands; a clone fills its directory with any file.
@test "a moved link is read again where it lands; a clone's directory is a tree of any files" {
	mkdir -p "$P/a/b"
	ln -s ../.. "$P/a/b/up"
	run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<'mv a/b/up h'
	up=$(dirname "$(dirname "$P")")
	jq -e --arg p "$up" '.effects | any(.effect == "write" and .path == $p)' <<<"$output" >/dev/null || { echo "$output"; false; }
	run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<'git clone /tmp/r sub'
	jq -e --arg p "$P/sub" '.effects | any(.effect == "write" and .path == $p and .tree == 1 and .executed == 1)' <<<"$output" >/dev/null || { echo "$output"; false; }
	# ln -s T LINK where LINK links to a directory makes the link in it
	mkdir -p "$P/a/b/c"
	ln -s ../../.. "$P/a/b/c/upd"
	run -0 "$EFX" -d "$P" -r "$P" -H "$H" <<<'ln -s ../../.ssh a/b/c/upd'
	jq -e --arg p "$up/.ssh" '.effects | any(.effect == "write" and .path == $p)' <<<"$output" >/dev/null || { echo "$output"; false; }
}

@test "find | xargs: the find's paths are the command's operands where xargs takes them whole; a planted blank in a name leaves it unknown" {
	run_efx() { printf '%s\n' "$1" | (cd "$P" && "$EFX" -e -d "$P" -r "$P" -H "$H"); }
	out=$(run_efx "find . -name '*.c' | xargs grep -l int")
	has "$out" read:@P/** || fail "$out"
	! has "$out" unknown || fail "$out"
	# a name xargs splits: ./x /HOME/.ssh/id_rsa reads the key
	mkdir -p "$P/x $H/.ssh"
	: >"$P/x $H/.ssh/id_rsa"
	mkdir -p "$H/.ssh"
	echo secret >"$H/.ssh/id_rsa"
	# what xargs really runs, to show the hole the rule closes
	run bash -c "cd '$P' && find . -name id_rsa | xargs cat 2>/dev/null"
	assert_output --partial secret
	out=$(run_efx "find . -name '*.c' | xargs cat")
	has "$out" unknown || fail "$out"
	# -print0 | xargs -0 takes every name whole
	out=$(run_efx "find . -name id_rsa -print0 | xargs -0 cat")
	has "$out" read:@P/** || fail "$out"
	! has "$out" unknown || fail "$out"
	run bash -c "cd '$P' && find . -name id_rsa -print0 | xargs -0 cat"
	refute_output --partial secret
	# a quote, a backslash or a byte past ASCII is xargs' too
	rm -rf "$P/x $H"
	for n in "it's" 'a\b' 'caf'$'\xc3\xa9' 'tab'$'\t'; do
		: >"$P/src/$n"
		out=$(run_efx "find src | xargs cat")
		has "$out" unknown || fail "$n: $out"
		rm -f "$P/src/$n"
	done
	out=$(run_efx "find src | xargs cat")
	has "$out" read:@P/src/** || fail "$out"
}

@test "pnpm NAME and yarn NAME are run NAME only for a script package.json lists, on a line that cannot change it first" {
	local c out
	printf '{"scripts":{"build":"tsc","lint":"eslint .","test:unit":"vitest","check":"x","publish":"x","fmt":"","watch":""}}\n' >"$P/package.json"
	mkdir -p "$P/web" "$T/bare" "$T/linked"
	printf '{"scripts":{"build":"vite build"}}\n' >"$P/web/package.json"
	cp "$P/package.json" "$T/real.json"
	ln -s "$T/real.json" "$T/linked/package.json"
	eff() { printf '%s\n' "$1" | (cd "$P" && "$EFX" -e -d "$P" -r "$P" -H "$H"); }
	# a script's name, first: the script runs, as pnpm run NAME
	for c in "pnpm build" "yarn lint" "pnpm test:unit --watch" \
	    "pnpm lint 2>&1 | tail -5" "yarn build > build.log"; do
		out=$(eff "$c")
		has "$out" exec:"$P" || { echo "$c: $out"; false; }
		! has "$out" unknown || { echo "$c: $out"; false; }
	done
	out=$(eff "cd web && pnpm build")
	has "$out" exec:"$P/web" && ! has "$out" unknown
	# no such script (an empty one is none: pnpm runs a program of that
	# name), a name of the program's own, not the first word,
	# no package.json there, or one through a link: unknown
	for c in "pnpm dev" "yarn check" "pnpm --filter web build" \
	    "cd $T/bare && pnpm build" "cd $T/linked && pnpm build" \
	    "pnpm 'build'x" "pnpm fmt .env" "pnpm watch -n1 id"; do
		out=$(eff "$c")
		has "$out" unknown || { echo "$c: $out"; false; }
	done
	# the line may change package.json before pnpm reads it: unknown
	for c in "echo {} > package.json; pnpm build" \
	    "pnpm build | tee package.json" "pnpm build & rm -f package.json" \
	    "git stash && pnpm build" "git checkout main; yarn lint" \
	    "mv $T/real.json package.json && pnpm build" \
	    "rm -rf $P; pnpm build"; do
		out=$(eff "$c")
		has "$out" unknown:"$P/package.json" || { echo "$c: $out"; false; }
	done
	# a command of the program's own is that command
	out=$(eff "yarn publish")
	has "$out" vcs-remote
}

@test "python -m NAME: the project's module, every file that runs where it really is; a namespace package, src/, or a name of Python's own is not the project's" {
	local out
	mkdir -p "$P/src/pkg" "$T/far/pk" "$P/tool" "$P/ns" "$P/both" "$P/http"
	: >"$P/src/pkg/__init__.py"
	: >"$P/src/pkg/main.py"
	: >"$T/far/pk/__init__.py"
	: >"$T/far/pk/run.py"
	: >"$T/far/one.py"
	: >"$P/tool/__init__.py"
	: >"$P/ns/mod.py"
	: >"$P/both.py"
	: >"$P/both/__init__.py"
	: >"$P/http/__init__.py"
	: >"$P/http/server.py"
	: >"$P/runpy.py"
	ln -s "$T/far/pk" "$P/pk"
	ln -s "$T/far/one.py" "$P/tool/one.py"
	ln -s "$T/far/one.py" "$P/both/__main__.py"
	eff() { printf '%s\n' "$1" | (cd "$P" && "$EFX" -e -d "$P" -r "$P" -H "$H"); }
	out=$(eff "python3 -m app.main --help")
	has "$out" exec:"$P/app/__init__.py" && has "$out" exec:"$P/app/main.py"
	! has "$out" unknown
	# links: decided where they lead
	out=$(eff "python3 -m pk.run")
	has "$out" exec:"$T/far/pk/__init__.py" && has "$out" exec:"$T/far/pk/run.py"
	out=$(eff "python3 -m tool.one")
	has "$out" exec:"$T/far/one.py" && ! has "$out" exec:"$P/tool/one.py"
	# a package before a module of the same name: its __main__.py
	out=$(eff "python3 -m both")
	has "$out" exec:"$T/far/one.py" && ! has "$out" exec:"$P/both.py"
	# a namespace package (no __init__.py) loses to an installed one;
	# src/ is on the path only once installed; runpy and http are
	# Python's own, loaded first or found in its library: unknown
	for c in "python3 -m ns.mod" "python3 -m pkg.main" "python3 -m runpy x" \
	    "python3 -m http.server 8000" "python3 -m nothere.main"; do
		out=$(eff "$c")
		has "$out" unknown || { echo "$c: $out"; false; }
	done
}

@test "npx PROGRAM runs node_modules/.bin/PROGRAM where that link leads, decided there" {
	local out
	mkdir -p "$P/node_modules/typescript/bin" "$T/far"
	printf '#!/bin/sh\n' >"$P/node_modules/typescript/bin/tsc"
	printf '#!/bin/sh\n' >"$T/far/evil"
	chmod +x "$P/node_modules/typescript/bin/tsc" "$T/far/evil"
	rm -f "$P/node_modules/.bin/tsc"
	ln -s ../typescript/bin/tsc "$P/node_modules/.bin/tsc"
	ln -s "$T/far/evil" "$P/node_modules/.bin/eslint"
	eff() { printf '%s\n' "$1" | (cd "$P" && "$EFX" -e -d "$P" -r "$P" -H "$H"); }
	out=$(eff "npx tsc --noEmit")
	has "$out" exec:"$P/node_modules/typescript/bin/tsc"
	! has "$out" install
	out=$(eff "npx eslint src")
	has "$out" exec:"$T/far/evil"
}

@test "pnpm NAME runs node_modules/.bin/NAME where no script or pnpm command has the name; npm exec and pnpm exec run it where its link leads" {
	local out c
	printf '{"scripts":{"build":"tsc"}}\n' >"$P/package.json"
	mkdir -p "$P/node_modules/vitest" "$T/far"
	printf '#!/bin/sh\n' >"$P/node_modules/vitest/vitest.mjs"
	printf '#!/bin/sh\n' >"$T/far/evil"
	chmod +x "$P/node_modules/vitest/vitest.mjs" "$T/far/evil"
	ln -s ../vitest/vitest.mjs "$P/node_modules/.bin/vitest"
	ln -s "$T/far/evil" "$P/node_modules/.bin/prettier"
	ln -s "$T/far/evil" "$P/node_modules/.bin/ls"
	eff() { printf '%s\n' "$1" | (cd "$P" && "$EFX" -e -d "$P" -r "$P" -H "$H"); }
	out=$(eff "pnpm vitest run tests/a.test.ts")
	has "$out" exec:"$P/node_modules/vitest/vitest.mjs" && ! has "$out" unknown
	for c in "pnpm prettier --check src" "npm exec -- prettier src" "pnpm exec prettier src"; do
		out=$(eff "$c")
		has "$out" exec:"$T/far/evil" || { echo "$c: $out"; false; }
	done
	# not there (pnpm runs it from the PATH), or one of pnpm's own
	out=$(eff "pnpm curl example.com")
	has "$out" unknown
	out=$(eff "pnpm ls")
	! has "$out" exec:"$T/far/evil"
	# the line changes package.json, whose script of that name would run
	out=$(eff "pnpm vitest run | tee package.json")
	has "$out" unknown:"$P/package.json"
}
