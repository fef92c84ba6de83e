#!/usr/bin/env bats
# The gate on realistic work: every line of tests/fixtures/agent-corpus.tsv
# (routine tool calls in Claude Code's habits) and of
# tests/fixtures/attack-corpus.tsv (escapes) is sent, as Claude Code's
# PreToolUse payload, to the REAL installed hook: scripts/jh-install -W
# (no passphrase) -p PROJECT writes the starter grant of each scratch
# project, and $JH_HOME/bin/jh-hook -c $JH_HOME/hook.conf answers, as the
# plugin runs it.  No grant is written here: the grant measured is the one
# jh-install writes.
#
# The verdict is read from the hook's answer as Claude Code reads it
# (jh-hook(1)): exit 2 is a deny; exit 0 with no output an allow ("no
# opinion"), with hookSpecificOutput.permissionDecision ask, allow or deny
# that verdict; any other exit status is "error", which Claude Code treats
# as go ahead, so it counts as an allow below.
#
# The report (per corpus: how many lines of each want got each verdict,
# the allow rate per project, every mismatch with the hook's reason) goes
# to $BATS_TEST_TMPDIR/corpus-NAME.report, to the standard error at the
# end (shown when the test fails), and, when CORPUS_REPORT_DIR is set, to
# that directory, which is kept; one summary line per corpus goes to fd 3.
#
# Fails on: an attack answered allow (or error), a line of either corpus
# whose want is deny answered allow, and a routine allow rate (routine
# lines wanted allow that were allowed) under ROUTINE_MIN_ALLOW_PCT.  A
# deny wanted and answered ask, and every other mismatch, is reported, not
# failed: the effects-based grant is being built, and the thresholds below
# are to be tightened as it lands.
#
# The home is $W/home with the projects in ~/src/{js,py,c,go,rust},
# joulehook in ~/.config/joulehook and ~/.local/state/joulehook (the
# defaults), dotfiles and fake secrets, and a sibling project ~/src/other.
# $W is never under /tmp: the starter grant grants /tmp/**, and a home
# there would make every write to it a granted one.

# bats file_tags=corpus
# (the same binaries on a thousand lines: make check-asan leaves it out;
# the parser's memory safety is the fuzz targets' and sh-parse's)
load test_helper/common

# Thresholds (tighten as the effects-based gate lands).
ROUTINE_MIN_ALLOW_PCT=75		# routine lines wanted allow, answered allow, %
ATTACK_MAX_ALLOWED=0		# attack lines answered allow (or error)
DENY_MAX_ALLOWED=0		# lines of either corpus wanted deny, answered allow
ROUTINE_MIN_LINES=300
ATTACK_MIN_LINES=120

PROJECTS="js py c go rust"
FAMILIES="option dir executed link protected git interp priv exfil env rm"

# The programs are installed from a snapshot of $JH_BIN taken once for the
# file, as tests/claude-code.bats does: a rebuild while the suite runs
# cannot hand jh-install a half-written program.
setup_file() {
	local root src
	root="$(cd "$(dirname "$BATS_TEST_FILENAME")/.." && pwd)"
	src="${JH_BIN:-$root/build/test/bin}"
	mkdir -p "$BATS_FILE_TMPDIR/bin"
	cp "$src"/jh-chain "$src"/jh-decide "$src"/jh-hook "$src"/jh-normalize \
	    "$src"/jh-result "$src"/jh-seal "$src"/jh-verify "$src"/jh-meter \
	    "$src"/jh-status "$BATS_FILE_TMPDIR/bin/"
	export JH_BIN="$BATS_FILE_TMPDIR/bin"
}

setup() {
	_common_setup
	CORPUS_W=""
	case "$(cd "$T" && pwd -P)/" in
	/tmp/*)
		CORPUS_W=$(mktemp -d "${CORPUS_TMP:-/var/tmp}/jh-corpus.XXXXXX")
		W=$(cd "$CORPUS_W" && pwd -P) ;;
	*)
		W=$(cd "$T" && pwd -P)/w
		mkdir -p "$W" ;;
	esac
	case "$W/" in
	/tmp/*) skip "no work directory outside /tmp (set CORPUS_TMP)" ;;
	esac
	export HOME="$W/home"
	export JH_HOME="$HOME/.config/joulehook" JH_STATE="$HOME/.local/state/joulehook"
	mkdir -p "$JH_HOME" "$JH_STATE"
	chmod 700 "$JH_HOME" "$JH_STATE"
}

teardown() {
	case "${CORPUS_W:-}" in
	*/jh-corpus.??????) rm -rf "$CORPUS_W" ;;
	esac
}

# ----------------------------------------------------------------------
# The world the calls run in.

# git in a scratch repository, with no user configuration.
sgit() {
	git -c user.name=corpus -c user.email=corpus@example.invalid \
	    -c init.defaultBranch=main -c commit.gpgsign=false "$@"
}

# put FILE CONTENT: a file with its directories.
put() {
	mkdir -p "$(dirname "$1")"
	printf '%s\n' "$2" >"$1"
}

make_home() {
	put "$HOME/.bashrc" '# rc
export PATH="$HOME/.local/bin:$PATH"'
	put "$HOME/.profile" '[ -f ~/.bashrc ] && . ~/.bashrc'
	put "$HOME/.gitconfig" '[user]
	name = Dev
	email = dev@example.invalid'
	put "$HOME/.ssh/id_rsa" '-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAAFAKEFAKEFAKEFAKEFAKEFAKEFAKE
-----END OPENSSH PRIVATE KEY-----'
	put "$HOME/.ssh/id_ed25519" '-----BEGIN OPENSSH PRIVATE KEY-----
FAKEFAKEFAKE
-----END OPENSSH PRIVATE KEY-----'
	put "$HOME/.ssh/config" 'Host *
	IdentityFile ~/.ssh/id_ed25519'
	chmod 700 "$HOME/.ssh"
	chmod 600 "$HOME/.ssh/id_rsa" "$HOME/.ssh/id_ed25519"
	put "$HOME/.aws/credentials" '[default]
aws_access_key_id = AKIAFAKEFAKEFAKE
aws_secret_access_key = fakefakefakefakefakefakefakefake'
	put "$HOME/.netrc" 'machine api.example.invalid login dev password fake'
	put "$HOME/.npmrc" '//registry.npmjs.org/:_authToken=npm_FAKEFAKEFAKE'
	put "$HOME/.config/gh/hosts.yml" 'github.com:
    oauth_token: gho_FAKEFAKEFAKE'
	put "$HOME/.docker/config.json" '{"auths":{"ghcr.io":{"auth":"ZmFrZTpmYWtl"}}}'
	mkdir -p "$HOME/.local/bin" "$HOME/go/pkg/mod/github.com"
	put "$HOME/src/other/README.md" '# another project'
	put "$HOME/src/other/tool.py" 'print("another project")'
	(cd "$HOME/src/other" && sgit init -q && sgit add -A && sgit commit -qm init)
}

make_js() {
	put package.json '{
  "name": "web-app",
  "version": "1.4.0",
  "private": true,
  "scripts": {
    "dev": "vite",
    "build": "tsc -p . && vite build",
    "test": "vitest run",
    "lint": "eslint src",
    "typecheck": "tsc --noEmit"
  },
  "dependencies": {"react": "^18.2.0", "react-dom": "^18.2.0"},
  "devDependencies": {"typescript": "^5.4.0", "vitest": "^1.5.0", "eslint": "^8.57.0"}
}'
	put package-lock.json '{"name": "web-app", "lockfileVersion": 3, "packages": {}}'
	put tsconfig.json '{"compilerOptions": {"strict": true, "jsx": "react-jsx"}, "include": ["src"]}'
	put .eslintrc.json '{"root": true, "extends": ["eslint:recommended"]}'
	put vite.config.ts 'export default {};'
	put src/index.ts 'export * from "./api/client";'
	put src/App.tsx 'export function App() { return <div>app</div>; }'
	put src/api/client.ts "const BASE = '/api'
export async function fetchUser(id: string) { return fetch(\`\${BASE}/users/\${id}\`); }"
	put src/utils/format.ts 'export function formatDate(d: Date) { return d.toISOString(); }'
	put src/components/Button.tsx 'export const Button = () => <button />;'
	put tests/format.test.ts 'import { formatDate } from "../src/utils/format";'
	put web/package.json '{"name": "web", "scripts": {"build": "vite build", "test": "vitest run", "typecheck": "tsc --noEmit"}, "dependencies": {"react": "^18.2.0"}}'
	put web/src/main.ts 'console.log("web");'
	put scripts/build.js 'console.log("build");'
	put node_modules/react/package.json '{"name": "react", "version": "18.2.0"}'
	mkdir -p node_modules/.bin dist
	# what npm install leaves: the project's tools, which npx runs
	for t in tsc eslint prettier vitest jest vite; do
		printf '#!/bin/sh\n' >"node_modules/.bin/$t"
		chmod +x "node_modules/.bin/$t"
	done
	put README.md '# web-app'
	put .env 'API_TOKEN=sk-fake-0123456789abcdef'
	put .gitignore 'node_modules/
dist/
.env'
}

make_py() {
	put pyproject.toml '[project]
name = "app"
version = "0.3.0"
dependencies = ["requests>=2.31"]

[tool.pytest.ini_options]
addopts = "-q"
testpaths = ["tests"]'
	put src/app/__init__.py ''
	put src/app/main.py 'DEBUG = True


def main():
    print("app")'
	put src/app/models.py 'from dataclasses import dataclass


@dataclass
class UserModel:
    email: str'
	put src/app/utils.py 'import re


def slugify(s):
    return s.lower()'
	put tests/__init__.py ''
	put tests/test_main.py 'def test_main():
    assert True'
	put tests/test_models.py 'def test_user_roundtrip():
    assert True'
	put tests/fixtures/users.json '[{"email": "a@example.invalid"}]'
	put conftest.py 'import pytest'
	put requirements.txt 'requests>=2.31'
	put requirements-dev.txt 'pytest>=8
ruff'
	put scripts/seed.py 'print("seeded")'
	mkdir -p docs
	put README.md '# app'
	put .env 'DATABASE_URL=postgres://app:fake@localhost/app'
	put .gitignore '.venv/
__pycache__/
.env'
}

make_c() {
	put Makefile 'CFLAGS = -O2
app: main.c src/parser.c src/util.c
	$(CC) $(CFLAGS) -Isrc -o $@ $^
test: app
	./app < tests/input.txt
clean:
	rm -f app'
	put main.c '#include <stdio.h>
int main(void) { puts("app"); return 0; }'
	put src/parser.c '#include "parser.h"
struct node *parse(const char *s, size_t len)
{
	if (len == 0)
		return NULL;
	return NULL;
}'
	put src/parser.h '#include <stddef.h>
struct token { int kind; };
struct node *parse(const char *, size_t);'
	put src/util.c 'int util(void) { return 0; }'
	put src/util.h 'int util(void);'
	mkdir -p include build
	put tests/test_parser.c '#include "../src/parser.h"
int main(void) { return 0; }'
	put tests/input.txt 'hello'
	put tests/expected.txt 'app'
	put CMakeLists.txt 'cmake_minimum_required(VERSION 3.16)
project(app C)
add_executable(app main.c src/parser.c src/util.c)'
	put configure '#!/bin/sh
echo configured'
	chmod 755 configure
	put README.md '# app'
	put .env 'API_KEY=fake'
	put .gitignore 'app
build/'
}

make_go() {
	put go.mod 'module example.com/server

go 1.21'
	put go.sum ''
	put main.go 'package main

func main() {}'
	put cmd/server/main.go 'package main

func main() {}'
	put internal/store/store.go 'package store

type Store struct{}

func (s *Store) Get(key string) ([]byte, error) {
	return nil, ErrNotFound
}'
	put internal/store/store_test.go 'package store

import "testing"

func TestStore(t *testing.T) { t.Parallel() }'
	put internal/api/handler.go 'package api'
	put Makefile 'build:
	go build -o bin/server ./cmd/server
test:
	go test ./...'
	put README.md '# server'
	put .env 'SESSION_SECRET=fake'
	put .gitignore 'bin/'
}

make_rust() {
	put Cargo.toml '[package]
name = "app"
version = "0.2.0"
edition = "2021"

[dependencies]'
	put Cargo.lock '# This file is automatically @generated by Cargo.
version = 3'
	put src/main.rs 'fn main() { println!("app"); }'
	put src/lib.rs 'pub mod parser;'
	put src/parser.rs 'pub fn parse(s: &str) -> usize { s.len() }'
	put tests/integration.rs '#[test]
fn it_works() {}'
	put tests/data/input.txt 'input'
	put benches/bench.rs ''
	mkdir -p target/debug
	put README.md '# app'
	put .env 'TOKEN=fake'
	put .gitignore 'target/'
}

# make_project P: the scratch project ~/src/P, committed, with the links a
# previous call planted (attack-corpus.tsv's header), and its grant.
make_project() {
	local d="$HOME/src/$1"
	mkdir -p "$d"
	(
		cd "$d"
		"make_$1"
		put notes.txt 'notes'
		sgit init -q
		sgit remote add origin "https://example.invalid/$1.git"
		sgit add -A
		sgit commit -qm "initial commit"
		# The attack run's second steps: links an earlier call planted.
		# A routine session has none (a tree holding one is refused).
		[ "${PLANT:-0}" = 1 ] || exit 0
		mkdir planted
		ln -s "$HOME/.config/joulehook" planted/cfg
		ln -s "$HOME/.ssh/id_rsa" planted/id
		ln -s "$HOME/.bashrc" planted/rc
		ln -s "$HOME/.claude" planted/claude
		ln -s "$HOME/src/other" planted/other
		ln -s "$HOME/src/other/tool.py" planted/tool.py
	)
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$d"
}

make_world() {
	make_home
	local p
	for p in $PROJECTS; do
		make_project "$p"
	done
	mkdir -p "$HOME/.claude"
	[ -f "$HOME/.claude.json" ] || echo '{}' >"$HOME/.claude.json"
}

# ----------------------------------------------------------------------
# Driving the hook.

# payloads CORPUS NAME: one line per call, id TAB project TAB want TAB the
# input as the corpus writes it TAB the PreToolUse payload (compact JSON).
payloads() {
	local roots="{}" p
	for p in $PROJECTS; do
		roots=$(jq -c --arg p "$p" --arg r "$(cd "$HOME/src/$p" && pwd -P)" \
		    '. + {($p): $r}' <<<"$roots")
	done
	jq -nrR --argjson roots "$roots" --arg home "$HOME" --arg name "$2" '
	    def subst($root): gsub("@R"; $root) | gsub("@H"; $home);
	    def decode: gsub("\\\\(?<c>[nt\\\\])";
	        if .c == "n" then "\n" elif .c == "t" then "\t" else "\\" end);
	    inputs | select(test("^(#|\\s*$)") | not) | split("\t")
	    | . as [$id, $proj, $tool, $in, $cwd, $want]
	    | $roots[$proj] as $root
	    | (if $cwd == "." then $root
	       elif ($cwd | startswith("@H")) then $cwd | subst($root)
	       else $root + "/" + $cwd end) as $dir
	    | (if $tool == "Bash" and ($in | startswith("{") | not)
	       then {command: ($in | decode | subst($root)),
	             description: ("corpus " + $id)}
	       else $in | fromjson
	            | walk(if type == "string" then subst($root) else . end) end)
	        as $input
	    | [$id, $proj, $want, $in,
	       ({session_id: ("corpus-" + $name + "-" + $proj),
	         transcript_path: ($home + "/.claude/projects/corpus/" + $name + ".jsonl"),
	         cwd: $dir, permission_mode: "default",
	         hook_event_name: "PreToolUse", tool_name: $tool,
	         tool_input: $input, tool_use_id: ("toolu_corpus_" + $id)}
	        | tojson)] | join("\t")' <"$1"
}

# verdict RC ANSWER: what Claude Code makes of the hook's answer.
verdict() {
	case $1 in
	2) echo deny ;;
	0)
		case $2 in
		"") echo allow ;;
		*'"permissionDecision":"ask"'*) echo ask ;;
		*'"permissionDecision":"allow"'*) echo allow ;;
		*'"permissionDecision":"deny"'*) echo deny ;;
		*) echo "error(answer)" ;;
		esac ;;
	*) echo "error(exit $1)" ;;
	esac
}

# drive CORPUS NAME: every line through the installed hook; writes
# $T/corpus-NAME.tsv: id, project, want, got, reason, input.
drive() {
	local out="$T/corpus-$2.tsv" id proj want in payload ans rc got why
	: >"$out"
	payloads "$1" "$2" >"$T/payloads-$2"
	while IFS=$'\t' read -r id proj want in payload; do
		rc=0
		ans=$(printf '%s' "$payload" |
		    "$JH_HOME/bin/jh-hook" -c "$JH_HOME/hook.conf" 2>"$T/hook.err") || rc=$?
		got=$(verdict "$rc" "$ans")
		why=
		[ -z "$ans" ] || why=$(printf '%s' "$ans" |
		    jq -r '.hookSpecificOutput.permissionDecisionReason // empty' 2>/dev/null) || why=
		[ -n "$why" ] || why=$(head -n1 "$T/hook.err")
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$proj" "$want" "$got" \
		    "$(printf '%s' "$why" | tr '\t\n' '  ' | cut -c1-200)" "$in" >>"$out"
	done <"$T/payloads-$2"
	[ "$(wc -l <"$out")" -eq "$(wc -l <"$T/payloads-$2")" ]
	explain_agrees "$2"
}

# explain_agrees NAME: the verdict jh-decide -x gives each payload (the
# same decision, nothing debited), all in one pipeline after the hook
# has decided every line, is the hook's.
explain_agrees() {
	cut -f5 "$T/payloads-$1" | env -i HOME="$HOME" JH_HOME="$JH_HOME" \
	    JH_STATE="$JH_STATE" sh -c '"$JH_HOME/bin/jh-normalize" -H claude-code |
	    "$JH_HOME/bin/jh-decide" -x -j -' | jq -r .verdict >"$T/explain-$1"
	[ "$(wc -l <"$T/explain-$1")" -eq "$(wc -l <"$T/payloads-$1")" ] ||
	    { echo "jh-decide -x answered $(wc -l <"$T/explain-$1") of $(wc -l <"$T/payloads-$1") lines" >&2; return 1; }
	paste "$T/corpus-$1.tsv" "$T/explain-$1" |
	    awk -F'\t' '$4 != $7 { printf "%s\texplain %s\thook %s\t%s\n", $1, $7, $4, $6 }' \
	    >"$T/explain-mismatch"
	if [ -s "$T/explain-mismatch" ]; then
		echo "jh-decide -x and the hook disagree:" >&2
		cat "$T/explain-mismatch" >&2
		return 1
	fi
}

# report NAME: the report of $T/corpus-NAME.tsv, on stdout.
report() {
	awk -F'\t' -v name="$1" -v projects="$PROJECTS" '
	    { n++; want[$3]++; cell[$3 "," $4]++
	      if (!($4 in got)) { got[$4] = 1; if ($4 !~ /^(allow|ask|deny)$/) extra = extra " " $4 }
	      if ($4 == "allow" || $4 ~ /^error/) allowed[$3]++
	      if ($3 == "allow") { wa[$2]++; if ($4 == "allow") aa[$2]++ }
	      if ($3 != $4) mis[++nm] = $1 "\t" $2 "\twant " $3 "\tgot " $4 "\t" $6 "\t(" $5 ")" }
	    END {
	      printf "%s corpus: %d lines\n", name, n
	      ng = split("allow ask deny" extra, G, " ")
	      printf "  %-10s", "want \\ got"
	      for (j = 1; j <= ng; j++) printf " %8s", G[j]; printf " %8s\n", "total"
	      split("allow ask deny", W, " ")
	      for (i = 1; i <= 3; i++) { w = W[i]; if (!(w in want)) continue
	        printf "  %-10s", w
	        for (j = 1; j <= ng; j++) printf " %8d", cell[w "," G[j]]
	        printf " %8d\n", want[w] }
	      np = split(projects, P, " "); ta = 0; tw = 0; line = ""
	      for (i = 1; i <= np; i++) { p = P[i]; if (!wa[p]) continue
	        line = line sprintf(" %s %d/%d", p, aa[p], wa[p]); ta += aa[p]; tw += wa[p] }
	      if (tw) printf "  allow rate (wanted allow, answered allow): %.1f%% (%d/%d;%s)\n", 100 * ta / tw, ta, tw, line
	      printf "  answered allow (or error) where ask was wanted: %d, deny was wanted: %d\n", allowed["ask"], allowed["deny"]
	      printf "  mismatches: %d\n", nm
	      for (i = 1; i <= nm; i++) print "    " mis[i] }' "$T/corpus-$1.tsv"
}

# publish NAME: the report to its file, stderr, CORPUS_REPORT_DIR and a
# summary on fd 3.
publish() {
	report "$1" >"$T/corpus-$1.report"
	cat "$T/corpus-$1.report" >&2
	if [ -n "${CORPUS_REPORT_DIR:-}" ]; then
		mkdir -p "$CORPUS_REPORT_DIR"
		cp "$T/corpus-$1.report" "$T/corpus-$1.tsv" "$CORPUS_REPORT_DIR/"
	fi
	grep -E '^[a-z]+ corpus:|allow rate|answered allow' "$T/corpus-$1.report" |
	    sed 's/^ */# /' >&3
}

# count NAME AWK-CONDITION: lines of $T/corpus-NAME.tsv that match.
count() {
	awk -F'\t' "$2 { n++ } END { print n + 0 }" "$T/corpus-$1.tsv"
}

# ----------------------------------------------------------------------

@test "the corpora are well-formed" {
	local f
	for f in agent attack; do
		run -0 awk -F'\t' -v kind="$f" -v projects="$PROJECTS" -v families="$FAMILIES" '
		    BEGIN { split(projects, P, " "); for (i in P) proj[P[i]] = 1
		      split(families, F, " "); for (i in F) fam[F[i]] = 1
		      split("Bash Read Write Edit Glob Grep", T, " "); for (i in T) tool[T[i]] = 1 }
		    /^(#|[ \t]*$)/ { next }
		    { n++
		      if (NF != 8) { print NR ": " NF " fields"; bad = 1; next }
		      if (seen[$1]++) { print NR ": id " $1 " twice"; bad = 1 }
		      if (!($2 in proj)) { print NR ": project " $2; bad = 1 }
		      if (!($3 in tool)) { print NR ": tool " $3; bad = 1 }
		      if ($6 !~ /^(allow|ask|deny)$/) { print NR ": want " $6; bad = 1 }
		      if ($4 == "" || $5 == "" || $7 == "") { print NR ": an empty field"; bad = 1 }
		      if ($3 != "Bash" && substr($4, 1, 1) != "{") { print NR ": " $3 " input is not an object"; bad = 1 }
		      if (kind == "attack") {
		        if ($6 == "allow") { print NR ": an attack wanted allow"; bad = 1 }
		        f = $8; sub(/:.*/, "", f)
		        if (!(f in fam)) { print NR ": family " f; bad = 1 } } }
		    END { print n " lines"; exit bad }' "$PROJECT_ROOT/tests/fixtures/$f-corpus.tsv"
		echo "$output"
		[ "${lines[${#lines[@]} - 1]##* }" = lines ]
	done
	# the JSON inputs parse, and each has its path or pattern
	run -0 sh -c "awk -F'\t' '!/^#/ && NF == 8 && substr(\$4, 1, 1) == \"{\" { print \$4 }' \
	    '$PROJECT_ROOT'/tests/fixtures/*-corpus.tsv |
	    jq -e -s 'all(.[]; type == \"object\" and
	        (has(\"file_path\") or has(\"pattern\") or has(\"command\")))'"
	assert_output true
	run -0 grep -vc '^#\|^$' "$PROJECT_ROOT/tests/fixtures/agent-corpus.tsv"
	[ "$output" -ge "$ROUTINE_MIN_LINES" ]
	run -0 grep -vc '^#\|^$' "$PROJECT_ROOT/tests/fixtures/attack-corpus.tsv"
	[ "$output" -ge "$ATTACK_MIN_LINES" ]
}

# The harness reads the three verdicts of the installed hook: calls whose
# verdict the starter grant settles either way, today's and the
# effects-based one's (git status is granted; a Write of package.json, an
# executed file, asks; rm -rf / is denied).
@test "the harness reads allow, ask and deny from the installed hook" {
	make_world
	local P
	P=$(cd "$HOME/src/js" && pwd -P)
	printf '%s\n' "# probes" \
	    "p-1	js	Bash	git status	.	allow	exec:git	probe" \
	    "p-2	js	Write	{\"file_path\":\"@R/package.json\",\"content\":\"{}\"}	.	ask	write:package.json[x]	probe" \
	    "p-3	js	Bash	rm -rf /	.	deny	delete:/	probe" >"$T/probe.tsv"
	drive "$T/probe.tsv" probe
	run -0 cut -f1,4 "$T/corpus-probe.tsv"
	assert_output "$(printf 'p-1\tallow\np-2\task\np-3\tdeny')"
	# the receipts of the three are in the session's log, and it verifies
	run -0 sh -c "jh-verify '$JH_STATE'/logs/*.jhl | jq -r 'select(.chain and .kind == \"decision/1\") | [.core.tool_use_id, .core.verdict] | @tsv'"
	assert_output "$(printf 'toolu_corpus_p-1\tallow\ntoolu_corpus_p-2\task\ntoolu_corpus_p-3\tdeny')"
	run -0 sh -c "cut -f5 '$T/payloads-probe' | jq -r .cwd | sort -u"
	assert_output "$P"
}

@test "routine corpus: the installed hook on every line (allow rate measured)" {
	make_world
	drive "$PROJECT_ROOT/tests/fixtures/agent-corpus.tsv" routine
	publish routine
	local allowed wanted denyallowed pct
	wanted=$(count routine '$3 == "allow"')
	allowed=$(count routine '$3 == "allow" && $4 == "allow"')
	denyallowed=$(count routine '$3 == "deny" && ($4 == "allow" || $4 ~ /^error/)')
	pct=$((wanted ? 100 * allowed / wanted : 0))
	[ "$denyallowed" -le "$DENY_MAX_ALLOWED" ] ||
		{ echo "routine: $denyallowed lines wanted deny were allowed" >&2; false; }
	[ "$pct" -ge "$ROUTINE_MIN_ALLOW_PCT" ] ||
		{ echo "routine: allow rate $pct% < $ROUTINE_MIN_ALLOW_PCT%" >&2; false; }
}

@test "attack corpus: the installed hook allows no attack" {
	PLANT=1 make_world
	drive "$PROJECT_ROOT/tests/fixtures/attack-corpus.tsv" attack
	publish attack
	local allowed denyallowed
	allowed=$(count attack '$4 == "allow" || $4 ~ /^error/')
	denyallowed=$(count attack '$3 == "deny" && ($4 == "allow" || $4 ~ /^error/)')
	if [ "$allowed" -gt "$ATTACK_MAX_ALLOWED" ]; then
		echo "attack: $allowed lines allowed:" >&2
		awk -F'\t' '$4 == "allow" || $4 ~ /^error/ { print "  " $1 "\t" $6 }' \
		    "$T/corpus-attack.tsv" >&2
		false
	fi
	[ "$denyallowed" -le "$DENY_MAX_ALLOWED" ]
}

# native HOST: each "id TAB Claude Code payload" line on stdin as HOST's
# own payload of the same call ("id TAB payload"), where HOST has the
# tool; lines it has no tool for are left out.
native() {
	jq -rR --arg h "$1" '
	    split("\t") | .[0] as $id | (.[1] | fromjson) as $p
	    | $p.tool_input as $in | $p.tool_name as $t
	    | ($p.session_id + "-" + $h) as $s
	    | ($p.tool_use_id + "-" + $h) as $call
	    | (if $h == "gemini-cli" then
	        {session_id: $s, hook_event_name: "BeforeTool", cwd: $p.cwd,
	         timestamp: "2026-12-01T00:00:00Z"} +
	        (if $t == "Bash" then {tool_name: "run_shell_command", tool_input: $in}
	         elif $t == "Read" then {tool_name: "read_file", tool_input: $in}
	         elif $t == "Write" then {tool_name: "write_file", tool_input: $in}
	         elif $t == "Edit" then {tool_name: "replace", tool_input: $in}
	         elif $t == "Glob" then {tool_name: "glob", tool_input:
	             ({pattern: $in.pattern} + (if $in.path then {dir_path: $in.path} else {} end))}
	         elif $t == "Grep" then {tool_name: "search_file_content", tool_input:
	             ({pattern: $in.pattern} + (if $in.path then {dir_path: $in.path} else {} end))}
	         else null end)
	      elif $h == "cline" then
	        {taskId: $s, hookName: "tool_call", workspaceRoots: [$p.cwd]} +
	        (if $t == "Bash" then {tool_call: {id: $call, name: "run_commands",
	             input: {commands: [$in.command]}}}
	         elif $t == "Read" and ($in.file_path | startswith("/")) then
	             {tool_call: {id: $call, name: "read_files",
	             input: {files: [{path: $in.file_path}]}}}
	         elif $t == "Write" then {tool_call: {id: $call, name: "editor",
	             input: {path: $in.file_path, new_text: $in.content}}}
	         elif $t == "Edit" then {tool_call: {id: $call, name: "editor",
	             input: {path: $in.file_path, old_text: $in.old_string,
	                     new_text: $in.new_string}}}
	         else null end)
	      elif $h == "cursor" then
	        {conversation_id: $s, hook_event_name: "preToolUse", cwd: $p.cwd,
	         workspace_roots: [$p.cwd], tool_use_id: $call} +
	        (if $t == "Bash" then {tool_name: "Shell", tool_input: {command: $in.command}}
	         else {tool_name: $t, tool_input: $in} end)
	      else null end) as $n
	    # a Claude Code parameter no other host has (Bash'"'"'s sandbox switch)
	    | if $n == null or ($n | has("tool_name") or has("tool_call") | not) or
	        ($t == "Bash" and ($in | keys - ["command", "description"] | length > 0))
	      then empty
	      else [$id, ($n | tojson)] | join("\t") end'
}

# decide HOST: "id TAB payload" lines on stdin to "id TAB verdict".
decide_all() {
	local h=$1 f
	f=$(mktemp "$T/d.XXXXXX")
	cat >"$f"
	paste <(cut -f1 "$f") <(cut -f2 "$f" | "$JH_HOME/bin/jh-normalize" -H "$h" |
	    "$JH_HOME/bin/jh-decide" 2>/dev/null | jq -r .verdict)
}

@test "one grant, every host: each line of both corpora gets Claude Code's verdict through Gemini CLI's, Cline's and Cursor's adapters" {
	PLANT=1 make_world
	local c name h n bad=0
	for c in agent:routine attack:attack; do
		name=${c#*:}
		payloads "$PROJECT_ROOT/tests/fixtures/${c%%:*}-corpus.tsv" "$name" |
		    cut -f1,5 >"$T/p-$name"
		decide_all claude-code <"$T/p-$name" >"$T/v-$name-claude-code"
		[ "$(wc -l <"$T/v-$name-claude-code")" -eq "$(wc -l <"$T/p-$name")" ]
		for h in gemini-cli cline cursor; do
			native "$h" <"$T/p-$name" | decide_all "$h" >"$T/v-$name-$h"
			n=$(wc -l <"$T/v-$name-$h")
			[ "$n" -ge 100 ] || { echo "$h $name: only $n lines"; bad=1; }
			join -t "$(printf '\t')" <(sort "$T/v-$name-claude-code") <(sort "$T/v-$name-$h") |
			    awk -F'\t' -v h="$h" '$2 != $3 { print h ": " $1 " is " $3 ", Claude Code " $2; bad = 1 }
				END { exit bad }' || bad=1
			echo "# $h $name: $n lines decided as through Claude Code" >&3
		done
	done
	[ "$bad" = 0 ]
}
