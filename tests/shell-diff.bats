load test_helper/common
setup() {
	_common_setup
	command -v zsh >/dev/null || skip "zsh is not installed (scripts/deps)"
}

# The shell-command parser (lib/shellparse.c) against the shells
# themselves: bash, and zsh (macOS's default shell, which an agent's
# commands may run in).  What the parser lists must be what the shells
# can parse; a syntax error must never be listed as commands; and every
# file a redirection makes must be among the parser's write targets.

CORPUS="$BATS_TEST_DIRNAME/fixtures/shell-corpus.txt"
export JH_TEST_HOME=/home/u

# The corpus commands, decoded (\n \t \\), one per file in $T/c/N, and
# whether the parser accepts each (true/false) in $T/ok.
decode_corpus() {
	mkdir -p "$T/c"
	sed -n 's/^cmd: //p' "$CORPUS" >"$T/cmd"
	"$JH_TESTBIN/sh-parse" -e <"$T/cmd" | jq -r .ok >"$T/ok"
	CMD="$T/cmd" OUT="$T/c" perl -e '
	    open(my $f, "<", $ENV{CMD}) or die;
	    my $n = 0;
	    while (my $l = <$f>) {
		chomp $l;
		$l =~ s/\\([nt0\\])/$1 eq "n" ? "\n" : $1 eq "t" ? "\t" :
		    $1 eq "0" ? "\0" : "\\"/ge;
		open(my $o, ">", "$ENV{OUT}/" . $n++) or die;
		print $o $l;
	    }'
	[ "$(wc -l <"$T/ok")" -eq "$(wc -l <"$T/cmd")" ]
}

# Lines zsh -n rejects although the parser lists them, and why that is
# sound: the line does not run at all in zsh.
zsh_only_bash() {
	local o c
	case $1 in
	*';;&'*) return 0 ;;	# bash's case ;;& (zsh has ;| instead)
	esac
	# more } than {: bash's text braces ({x},y}); zsh closes a group
	o=${1//[^\{]/}
	c=${1//[^\}]/}
	[ ${#c} -gt ${#o} ] && return 0
	return 1
}

@test "the differential test covers a few hundred corpus commands" {
	decode_corpus
	[ "$(grep -c true "$T/ok")" -ge 200 ]
}

@test "bash -n accepts every corpus command the parser lists" {
	decode_corpus
	n=0
	while read -r ok; do
		f="$T/c/$n"
		n=$((n + 1))
		[ "$ok" = true ] || continue
		if ! bash -n -c "$(cat "$f")" 2>/dev/null; then
			echo "bash -n rejects: $(cat "$f")"
		fi
	done <"$T/ok" >"$T/bad"
	if [ -s "$T/bad" ]; then
		cat "$T/bad"
		false
	fi
}

@test "zsh -n accepts every corpus command the parser lists" {
	decode_corpus
	n=0
	while read -r ok; do
		f="$T/c/$n"
		n=$((n + 1))
		[ "$ok" = true ] || continue
		c=$(cat "$f")
		zsh_only_bash "$c" && continue
		# -n still negates (!) and checks builtins: only a parse
		# error is a rejection
		if zsh -n -c "$c" 2>&1 | grep -q 'parse error'; then
			echo "zsh -n rejects: $c"
		fi
	done <"$T/ok" >"$T/bad"
	if [ -s "$T/bad" ]; then
		cat "$T/bad"
		false
	fi
}

@test "the parser refuses every corpus command bash -n rejects" {
	decode_corpus
	n=0
	while read -r ok; do
		f="$T/c/$n"
		n=$((n + 1))
		[ "$ok" = true ] || continue
		bash -n -c "$(cat "$f")" 2>/dev/null ||
		    echo "listed, but bash -n rejects: $(cat "$f")"
	done <"$T/ok" >"$T/bad"
	if [ -s "$T/bad" ]; then
		cat "$T/bad"
		false
	fi
}

@test "the parser refuses syntax errors bash -n rejects" {
	# One per line, in the corpus's \n escapes.
	cat >"$T/errs" <<-'EOF'
	if a; then fi
	if a; then b; else fi
	if a; then b
	if a; b; fi
	then ls
	fi
	while a; do done
	while a; do b
	while a; b; done
	until a; do; done
	for x in a b; do; done
	for x in a; do b
	for x in a b do echo; done
	case x in a) ls
	case x in a) ls;;
	case x a) ls;; esac
	case x in a) ls esac
	esac
	done
	[[ -f x
	[[ a &&
	(( 1
	f() { ls
	f() { }
	f()
	function { ls; }
	echo a; fi
	{ ls
	( ls
	ls )
	ls ;;
	ls |
	ls &&
	a && || b
	x=1 if true; then :; fi
	echo $(if)
	echo "$(case x in a) ls;; esac"
	for ((i=0; i<3; i++)) do echo; done; done
	select
	EOF
	"$JH_TESTBIN/sh-parse" -e <"$T/errs" | jq -r .ok >"$T/ok"
	us=$'\037'
	paste -d "$us" "$T/ok" "$T/errs" | while IFS=$us read -r ok c; do
		d=$(printf '%s' "$c" | perl -pe 's/\\n/\n/g')
		if bash -n -c "$d" 2>/dev/null; then
			echo "bash -n accepts (fix the list): $c"
		elif [ "$ok" = true ]; then
			echo "listed, but bash -n rejects: $c"
		fi
	done >"$T/bad"
	if [ -s "$T/bad" ]; then
		cat "$T/bad"
		false
	fi
}

# The write targets the parser lists for a command, one per line.
targets() {
	printf '%s\n' "$1" | "$JH_TESTBIN/sh-parse" |
	    jq -r 'if .ok then .cmds[].redir[] | select(.kind == "write") |
	    .target else "REFUSED" end'
}

@test "every file a redirection makes, in bash and in zsh, is a write target" {
	cat >"$T/forms" <<-'EOF'
	echo x >a
	echo x >>a
	echo x >|a
	echo x &>a
	echo x &>>a
	echo x >&a
	echo x 2>a
	echo x 2>>a
	echo x 1>a 2>b
	echo x <>a
	: 3<>a
	echo x 1<>a
	echo x 2<>a
	echo x >!a
	echo x >>!a
	echo x &>!a
	echo x >&!a
	echo x 2>!a
	echo x 2>>!a
	echo x >a >b
	echo x >a 2>&1
	echo x 2>&1 >a
	cat <<<x >a
	echo x > a
	>a
	>>a
	<>a
	echo x >"a b"
	echo x >\!a
	echo x >'!a'
	(echo x) >a
	{ echo x; } >a
	if true; then echo x; fi >a
	for i in 1 2; do echo x; done >a
	while false; do :; done >a
	case x in x) echo x >b;; esac >a
	f() { echo x >a; }; f
	echo x >a; echo y >>b
	echo x >a && echo y >|b
	echo x >&- >a
	echo x 3>a >&3
	EOF
	while read -r form; do
		want=$(targets "$form")
		if [ "$want" = REFUSED ]; then
			echo "refused: $form"
			continue
		fi
		for sh in bash zsh; do
			d=$(mktemp -d "$T/run.XXXXXX")
			(cd "$d" && "$sh" -c "$form" </dev/null >/dev/null \
			    2>&1) || true
			(cd "$d" && find . -type f | sed 's|^\./||') >"$T/made"
			while IFS= read -r file; do
				printf '%s\n' "$want" | grep -qxF -- "$file" ||
				    echo "$sh made '$file', not a target: $form"
			done <"$T/made"
			rm -rf "$d"
		done
	done <"$T/forms" >"$T/bad"
	if [ -s "$T/bad" ]; then
		cat "$T/bad"
		false
	fi
}

@test "a detached >! is refused (bash: file !, zsh: the next word)" {
	run targets 'echo x >! y'
	assert_output REFUSED
	run targets 'echo x >>! y'
	assert_output REFUSED
}
