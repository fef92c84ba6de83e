load test_helper/common
setup() { _common_setup; }

# The shell-command parser (lib/shellparse.c) through its test program,
# against the corpus in tests/fixtures/shell-corpus.txt (its header
# describes the format).  Under the ASan build (JH_TESTBIN pointing at
# build/asan/tests) the same cases also check memory safety.

CORPUS="$BATS_TEST_DIRNAME/fixtures/shell-corpus.txt"

# The corpus is parsed with this home directory (jh_sh_parse_with()).
export JH_TEST_HOME=/home/u

# sh-parse's JSON rendered as the corpus writes it.
RENDER='
def fl: if length == 0 then "" else "^" + (map({"glob": "g", "brace": "b",
    "tilde": "t", "expand": "e", "cmdsub": "c", "procsub": "p"}[.]) | join("")) end;
def w: if test("\\A[A-Za-z0-9_./:=,+%-]+\\z") then . else tojson end;
def cmd:
  [ (if (.cflags | length) > 0 then "[" + (.cflags | join(",")) + "]"
     else empty end),
    (if .cwd != null then "{" + .cwd + "}" else empty end),
    ([.assign, .aflags] | transpose[] | "@" + (.[0] | w) + (.[1] | fl)),
    ([.argv, .flags] | transpose[] | (.[0] | w) + (.[1] | fl)),
    (.redir[] | ">" + .kind + ":" + (.fd | tostring) + ":" +
     (.target | w) + (.tflags | fl))
  ] | join(" ");
if .ok then [.cmds[] | cmd] | join(" ;; ") else "REFUSE: " + .error end'

corpus_field() {
	sed -n "s/^$1: //p" "$CORPUS"
}

@test "the corpus has at least 100 well-formed cases" {
	run awk '
	    /^(#|$)/ { next }
	    { want = substr("cmd:out:why:", 4 * (n % 3) + 1, 4)
	      if (substr($0, 1, 4) != want) { print "line " NR ": want " want; bad = 1 }
	      n++ }
	    END { if (n % 3 != 0) bad = 1; print n / 3 " cases"; exit bad }' \
	    "$CORPUS"
	assert_success
	[ "${output##* }" = cases ]
	[ "${output%% *}" -ge 100 ]
}

@test "every corpus command parses as the corpus says" {
	corpus_field cmd >"$T/cmd"
	corpus_field out >"$T/want"
	corpus_field why >"$T/why"
	"$JH_TESTBIN/sh-parse" -e <"$T/cmd" >"$T/json"
	jq -r "$RENDER" <"$T/json" >"$T/got"
	[ "$(wc -l <"$T/got")" -eq "$(wc -l <"$T/cmd")" ]
	us=$'\037'
	paste -d "$us" "$T/cmd" "$T/want" "$T/got" "$T/why" |
	    while IFS=$us read -r cmd want got why; do
		case $want in
		"REFUSE: "*)
			case $got in
			"REFUSE: "*"${want#REFUSE: }"*) continue ;;
			esac ;;
		*)
			[ "$got" = "$want" ] && continue ;;
		esac
		printf 'cmd:  %s\nwant: %s\ngot:  %s\nwhy:  %s\n\n' \
		    "$cmd" "$want" "$got" "$why"
	    done >"$T/diff"
	if [ -s "$T/diff" ]; then
		cat "$T/diff"
		false
	fi
}

@test "prints one JSON object per command with every field" {
	printf '%s\n' 'A=1 nice ls >x' 'eval x' | "$JH_TESTBIN/sh-parse" >"$T/out"
	run jq -c . "$T/out"
	assert_line --index 0 '{"ok":true,"cmds":[{"assign":["A=1"],"aflags":[[]],"argv":["nice","ls"],"flags":[[],[]],"redir":[{"kind":"write","fd":1,"target":"x","tflags":[]}],"cwd":null,"cflags":[]},{"assign":["A=1"],"aflags":[[]],"argv":["ls"],"flags":[[]],"redir":[],"cwd":null,"cflags":["wrapped"]}]}'
	assert_line --index 1 '{"ok":false,"error":"eval is not supported"}'
}

@test "-a reads the whole input as one script" {
	printf 'cd /x &&\n  make \\\n  all\ncat <<EOF\nbody\nEOF\n' |
	    "$JH_TESTBIN/sh-parse" -a >"$T/out"
	run jq -r "$RENDER" "$T/out"
	assert_output 'cd /x ;; {/x} make all ;; [cwd-unknown] {/x} cat >heredoc:0:"body\n"'
}

@test "refuses a NUL byte" {
	run -0 --separate-stderr "$JH_TESTBIN/sh-parse" -a < <(printf 'echo a\0b')
	assert_output '{"ok":false,"error":"NUL byte in command"}'
}

@test "refuses input over 1 MiB" {
	head -c 2097152 /dev/zero | tr '\0' a >"$T/big"
	run -0 --separate-stderr "$JH_TESTBIN/sh-parse" -a <"$T/big"
	assert_output '{"ok":false,"error":"command longer than 1 MiB"}'
}

@test "refuses nesting 100 deep, and accepts it 32 deep" {
	deep() {
		local i s=$3
		for ((i = 0; i < $1; i++)); do
			s="$2$s$4"
		done
		printf '%s\n' "$s"
	}
	{
		deep 100 '( ' ls ' )'
		deep 100 'echo $(' ls ')'
		deep 100 'echo "${x:-' ls '}"'
		deep 32 '( ' ls ' )'
	} | "$JH_TESTBIN/sh-parse" >"$T/out"
	run jq -r "$RENDER" "$T/out"
	assert_line --index 0 'REFUSE: nesting deeper than 32'
	assert_line --index 1 'REFUSE: nesting deeper than 32'
	assert_line --index 2 'REFUSE: nesting deeper than 32'
	assert_line --index 3 'ls'
}

@test "refuses unbalanced quotes" {
	printf '%s\n' "echo 'a" 'echo "a' 'echo `a' "echo \$'a" |
	    "$JH_TESTBIN/sh-parse" >"$T/out"
	run jq -r .error "$T/out"
	assert_output "$(printf '%s\n' 'unterminated single quote' \
	    'unterminated double quote' 'unterminated backquote' \
	    "unterminated \$'...'")"
}

@test "refuses bash 5.3's \${ command; } and \${| command; }, which run a command in the shell" {
	printf '%s\n' 'echo ${ cat ~/.ssh/id_rsa; }' 'echo "${ id; }"' \
	    'echo ${| REPLY=x; }' $'echo ${\tid; }' 'echo ${HOME} ${#x} ${x:-y}' |
	    "$JH_TESTBIN/sh-parse" >"$T/out"
	run jq -r '.error // "ok"' "$T/out"
	assert_output "$(printf '%s\n' \
	    '${ command; } runs a command in bash 5.3, which this gate does not follow' \
	    '${ command; } runs a command in bash 5.3, which this gate does not follow' \
	    '${ command; } runs a command in bash 5.3, which this gate does not follow' \
	    '${ command; } runs a command in bash 5.3, which this gate does not follow' ok)"
}

@test "runs every corpus command cleanly (ASan build: no reports)" {
	corpus_field cmd >"$T/cmd"
	run -0 --separate-stderr "$JH_TESTBIN/sh-parse" -e <"$T/cmd"
	[ -z "$stderr" ]
	[ "${#lines[@]}" -eq "$(wc -l <"$T/cmd")" ]
	run -0 --separate-stderr "$JH_TESTBIN/sh-parse" -a -e <"$T/cmd"
	[ -z "$stderr" ]
}

@test "without a home, ~, \$HOME and a bare cd stay unknown" {
	printf '%s\n' 'echo ~ ~/x $HOME "$HOME"' 'cd && ls' 'cd ~/src && ls' \
	    'HOME=/srv; cd ~ && ls' |
	    JH_TEST_HOME= "$JH_TESTBIN/sh-parse" >"$T/out"
	run jq -r "$RENDER" "$T/out"
	assert_line --index 0 'echo "~"^t "~/x"^t "$HOME"^e "$HOME"^e'
	assert_line --index 1 'cd ;; [cwd-unknown] ls'
	assert_line --index 2 'cd "~/src"^t ;; [cwd-unknown] ls'
	assert_line --index 3 '@HOME=/srv ;; cd /srv ;; {/srv} ls'
}

@test "a relative home is not used" {
	printf '%s\n' 'echo ~ $HOME' | JH_TEST_HOME=rel "$JH_TESTBIN/sh-parse" |
	    jq -r "$RENDER" >"$T/out"
	run cat "$T/out"
	assert_output 'echo "~"^t "$HOME"^e'
}

@test "loops and calls are bounded: nested loops and calls refuse, not blow up" {
	w=$(seq -s ' ' 1 60)
	printf 'for a in %s; do for b in %s; do for c in %s; do echo $a$b$c; done; done; done\n' "$w" "$w" "$w" |
	    "$JH_TESTBIN/sh-parse" >"$T/out"
	run jq -r .error "$T/out"
	assert_output 'command too complex'
	f='f0() { ls; }'
	for i in $(seq 1 30); do
		f="$f; f$i() { f$((i - 1)); f$((i - 1)); }"
	done
	printf '%s; f30\n' "$f" | "$JH_TESTBIN/sh-parse" >"$T/out"
	run jq -r .error "$T/out"
	assert_output --regexp 'command too complex|nesting deeper than 32'
}
