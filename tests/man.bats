#!/usr/bin/env bats
#
# The man pages: lint clean, in step with the programs' options and usage
# lines, and every command in their EXAMPLES runs and prints what the page
# shows.

load test_helper/common

setup() {
	_common_setup
	MAN="$PROJECT_ROOT/man"
	PAGES="jh-chain.1 jh-decide.1 jh-grant.1 jh-hook.1 jh-install.1 jh-meter.1 jh-normalize.1 jh-proxy.1 jh-seal.1 jh-ship.1 jh-status.1 jh-verify.1 joulehook.7 joulehook-formats.5"
	PROGS="jh-chain jh-decide jh-grant jh-hook jh-install jh-meter jh-normalize jh-proxy jh-result jh-seal jh-ship jh-status jh-verify"
}

# The installer and jh-grant are scripts, not build products: run from
# the tree.
prog_path() {
	case $1 in
	jh-install | jh-grant)	printf '%s\n' "$PROJECT_ROOT/scripts/$1" ;;
	*)		printf '%s\n' "$1" ;;
	esac
}

# An installed layout in $T/inst, as make install makes it, first in PATH:
# bin/ with the programs and jh-install, share/joulehook/hosts/ with the
# plugin.  jh-install finds both from where it lies.
install_layout() {
	local p

	mkdir -p "$T/inst/bin" "$T/inst/share/joulehook/hosts"
	for p in "$JH_BIN"/jh-*; do
		case $p in *.o | *.d) continue ;; esac
		ln -s "$p" "$T/inst/bin/"
	done
	ln -s "$PROJECT_ROOT/scripts/jh-install" "$T/inst/bin/jh-install"
	ln -s "$PROJECT_ROOT/scripts/jh-grant" "$T/inst/bin/jh-grant"
	ln -s "$PROJECT_ROOT/hosts/claude-code" \
	    "$T/inst/share/joulehook/hosts/claude-code"
	ln -s "$PROJECT_ROOT/lib/coefficients.json" \
	    "$T/inst/share/joulehook/coefficients.json"
	PATH="$T/inst/bin:$PATH"
}

# A home as a new user has it: JH_HOME and JH_STATE at their defaults,
# not yet made.
fresh_home() {
	unset JH_HOME JH_STATE
	rm -rf "$T/jh" "$T/state"
}

# The exit statuses a program uses, which its page must list.
statuses_of() {
	case $1 in
	jh-hook)	echo 0 1 2 ;;	# 2 blocks; 1: a session event failed
	jh-proxy)	echo 0 2 ;;	# stopped by a signal, or could not start
	*)		echo 0 1 2 ;;
	esac
}

# The option string a program passes to getopt(3), from its sources
# (bin/jh-x.c and its parts, bin/x-*.c); for the installer, the string
# of its getopts line.
getopt_string() {
	case $1 in
	jh-install | jh-grant)
		sed -n 's/^[[:space:]]*while getopts \([^ ]*\) .*/\1/p' \
		    "$PROJECT_ROOT/scripts/$1" | tr -d '\n' ;;
	*)
		sed -n 's/.*getopt(argc, argv, "\([^"]*\)").*/\1/p' \
		    "$PROJECT_ROOT/bin/$1.c" \
		    $(ls "$PROJECT_ROOT/bin/${1#jh-}"-*.c 2>/dev/null) ;;
	esac
}

# The lines of one section of a page's source, without the .Sh line.
section_src() {
	awk -v sh=".Sh $2" '
	    $0 == sh { f = 1; next }
	    /^\.Sh / { f = 0 }
	    f' "$1"
}

# Every word that follows an Fl macro in the given mdoc lines.
fl_words() {
	grep -o 'Fl [^ ]*' | sed 's/^Fl //'
}

# The SYNOPSIS as rendered, one usage line per line, blanks squeezed; a
# usage line too long for 200 columns is joined again.
synopsis_rendered() {
	local p

	p=$(basename "$1")
	p=${p%.*}
	mandoc -T ascii -O width=200 "$1" | col -bx | awk -v p="$p" '
	    /^SYNOPSIS$/ { f = 1; next }
	    /^[A-Z]/ { f = 0 }
	    f && NF { sub(/^ +/, ""); gsub(/ +/, " ");
		if ($1 == p || u == "") { if (u != "") print u; u = $0 }
		else u = u " " $0 }
	    END { if (u != "") print u }'
}

# What a program prints for its usage.  The hook driver and the installer
# have no -h: -h is a bad option to them, and the usage they print for it
# on the standard error is their usage.  The installer prints its two
# forms on one line, "... | -u"; they are split into two.
usage_text() {
	case $1 in
	jh-hook)
		"$1" -h 2>&1 >/dev/null | sed -n '/^usage: /,$p' ;;
	jh-install)
		"$(prog_path "$1")" -h 2>&1 >/dev/null |
		    sed -n 's/^jh-install: \(usage: \)/\1/p' |
		    sed 's/ | \(-[A-Za-z]\)/\n       jh-install \1/' ;;
	jh-grant)
		"$(prog_path "$1")" -h ;;
	*)
		"$1" -h ;;
	esac
}

# A program's usage lines, in the shape of the rendered SYNOPSIS: a line
# that does not start with the program's name continues the usage line
# before it.
usage_lines() {
	usage_text "$1" | sed -e 's/^usage: //' -e 's/^ *//' -e 's/  */ /g' |
	    awk -v p="$1" '
		$1 == p { if (u != "") print u; u = $0; next }
		{ u = u " " $0 }
		END { if (u != "") print u }'
}

# Decodes the few escapes an example may use; fails on any other, so a
# command never runs differently from how the page renders it.
man_unescape() {
	local s=$1 t=$1

	t=${t//\\e/}
	t=${t//\\&/}
	t=${t//\\(dq/}
	t=${t//\\-/}
	case $t in
	*\\*)	return 1 ;;
	esac
	s=${s//\\(dq/\"}
	s=${s//\\&/}
	s=${s//\\-/-}
	s=${s//\\e/\\}
	printf '%s\n' "$s"
}

# Turns the literal displays of a page's EXAMPLES into a script ($T/ex.sh)
# and the output the page shows into $T/ex.want.  In a display, "$ "
# starts a command, "> " continues it (a here-document, say), and any
# other line is output; "..." in an output line stands for any text.
examples_of() {
	local page=$1 line n=0 in_bd=0

	: > "$T/ex.want"
	printf 'cd "%s" || exit 98\n' "$T/work" > "$T/ex.sh"
	while IFS= read -r line; do
		case $line in
		'.Bd -literal'*)
			in_bd=1
			continue ;;
		'.Ed')
			in_bd=0
			continue ;;
		esac
		[ "$in_bd" = 1 ] || continue
		line=$(man_unescape "$line") || {
			fail "$page: unexpected escape in example: $line"
			return 1
		}
		case $line in
		'$ '*)
			[ "$n" -eq 0 ] || status_check "$n" >> "$T/ex.sh"
			n=$((n + 1))
			printf 'echo "@@ %d"\n%s\n' "$n" "${line#\$ }" \
			    >> "$T/ex.sh"
			printf '@@ %d\n' "$n" >> "$T/ex.want" ;;
		'> '* | '>')
			[ "$n" -gt 0 ] || { fail "$page: continuation first"; return 1; }
			printf '%s\n' "${line#>}" | sed 's/^ //' >> "$T/ex.sh" ;;
		*)
			[ "$n" -gt 0 ] ||
			    { fail "$page: output before a command"; return 1; }
			printf '%s\n' "$line" >> "$T/ex.want" ;;
		esac
	done < <(section_src "$page" EXAMPLES)
	[ "$n" -gt 0 ] || { fail "$page: no example commands"; return 1; }
	status_check "$n" >> "$T/ex.sh"
}

status_check() {
	printf 'rc=$?; if [ $rc -ne 0 ]; then echo "@@ command %d exited $rc"; exit 99; fi\n' "$1"
}

# A shown output line as a bash pattern: literal, but "..." matches any text.
glob_of() {
	local s=$1 out= c i

	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		case $c in
		'*' | '?' | '[' | ']' | '\') out+="\\$c" ;;
		*) out+=$c ;;
		esac
	done
	printf '%s' "${out//.../*}"
}

# Runs the examples of a page in $T/work and compares what they print,
# standard output and standard error together, with what the page shows.
run_examples() {
	local -a want got
	local i

	examples_of "$1" || return 1
	mkdir -p "$T/work"
	if ! bash "$T/ex.sh" > "$T/ex.got" 2>&1; then
		fail "$(printf '%s: examples failed\n--- script\n%s\n--- output\n%s' \
		    "$1" "$(cat "$T/ex.sh")" "$(cat "$T/ex.got")")"
		return 1
	fi
	mapfile -t want < "$T/ex.want"
	mapfile -t got < "$T/ex.got"
	for ((i = 0; i < ${#want[@]} || i < ${#got[@]}; i++)); do
		if [ "$i" -ge "${#want[@]}" ] || [ "$i" -ge "${#got[@]}" ] ||
		    [[ ${got[i]} != $(glob_of "${want[i]}") ]]; then
			fail "$(printf '%s: example output differs at line %d\n%s' \
			    "$1" "$((i + 1))" \
			    "$(diff -u "$T/ex.want" "$T/ex.got")")"
			return 1
		fi
	done
}

@test "every page is lint clean and dated Month DD, YYYY" {
	local p
	for p in $PAGES; do
		assert_file_exist "$MAN/$p"
		run mandoc -T lint -W warning "$MAN/$p"
		assert_success
		assert_output ""
		run grep -Ec '^\.Dd (January|February|March|April|May|June|July|August|September|October|November|December) [0-9]{1,2}, [0-9]{4}$' "$MAN/$p"
		assert_output 1
	done
}

@test "the program pages list their exit statuses in a tag list" {
	local p s
	for p in $PROGS; do
		run section_src "$MAN/$p.1" "EXIT STATUS"
		assert_success
		assert_line --index 0 '.Bl -tag -width Ds'
		for s in $(statuses_of "$p"); do
			assert_line ".It $s"
		done
		for s in 0 1 2; do
			case " $(statuses_of "$p") " in
			*" $s "*) ;;
			*) refute_line ".It $s" ;;
			esac
		done
	done
}

@test "every getopt option of each program is documented as .Fl" {
	local prog opts c
	for prog in $PROGS; do
		opts=$(getopt_string "$prog")
		[ -n "$opts" ] || fail "no getopt string in bin/$prog.c"
		for c in $(printf '%s' "$opts" | tr -d ':' | fold -w1); do
			grep -Eq "(^|[[:space:]])Fl $c([[:space:]]|\$)" \
			    "$MAN/$prog.1" ||
			    fail "$prog.1 does not document -$c"
		done
	done
}

@test "every option in each SYNOPSIS and option list is a getopt option" {
	local prog opts w c n
	for prog in $PROGS; do
		opts=$(getopt_string "$prog" | tr -d ':')
		n=0
		for w in $( (section_src "$MAN/$prog.1" SYNOPSIS;
		    grep '^\.It Fl ' "$MAN/$prog.1") | fl_words); do
			[[ $w =~ ^[A-Za-z]+$ ]] ||
			    fail "$prog.1: odd option word Fl $w"
			for c in $(printf '%s' "$w" | fold -w1); do
				case $opts in
				*"$c"*) n=$((n + 1)) ;;
				*) fail "$prog.1 shows -$c, not in \"$opts\"" ;;
				esac
			done
		done
		[ "$n" -gt 0 ] || fail "$prog.1: no options found"
	done
}

@test "each SYNOPSIS renders exactly as the program's -h usage lines" {
	local prog min
	for prog in $PROGS; do
		run usage_lines "$prog"
		assert_success
		case $prog in
		jh-hook)	min=1 ;;	# no -h, one form
		*)		min=2 ;;
		esac
		[ "${#lines[@]}" -ge "$min" ] || fail "$prog -h printed too little"
		assert_equal "$(synopsis_rendered "$MAN/$prog.1")" "$output"
	done
}

@test "the usage of the programs without -h is the one a bad option prints" {
	run -2 jh-hook -h
	assert_line 'usage: jh-hook -c config [-a] [-H host]'
	assert_line '       jh-hook -s socket [-H host] [-t deadline_ms]'
	run -2 "$(prog_path jh-install)" -h
	assert_line --partial 'jh-install: usage: jh-install [-ASW]'
	run usage_lines jh-install
	assert_equal "${#lines[@]}" 2
	assert_line --index 1 'jh-install -u [-H host] ... [-U user]'
	run getopt_string jh-install
	assert_output 'ASWb:C:D:d:g:H:l:M:Op:uU:X'
}

@test "the synopsis check notices a drifted page" {
	sed 's/^\.Op Fl q$/.Op Fl x/' "$MAN/jh-verify.1" > "$T/drift.1"
	run synopsis_rendered "$T/drift.1"
	refute_output "$(usage_lines jh-verify)"
}

@test "jh-seal(1) examples run and print what the page shows" {
	export JH_PASSPHRASE=example-passphrase
	run section_src "$MAN/jh-seal.1" EXAMPLES
	assert_output --partial 'jh-seal -G -k'
	assert_output --partial 'jh-seal -G -R issuer'
	assert_output --partial 'jh-seal -D'
	assert_output --partial 'jh-verify receipts.cbor'
	run_examples "$MAN/jh-seal.1"
}

@test "jh-verify(1) examples run and print what the page shows" {
	jh_keys
	mkdir -p "$T/work"
	decision_json allow > "$T/work/decisions.jsonl"
	decision_json deny |
	    jq -c '.code = "no-grant" | .reason = "no grant covers Bash"' \
	    >> "$T/work/decisions.jsonl"
	run section_src "$MAN/jh-verify.1" EXAMPLES
	assert_output --partial "jq -c 'select(.core.verdict==\"deny\")"
	assert_output --partial 'jh-verify -q -p'
	run_examples "$MAN/jh-verify.1"
}

@test "jh-chain(1) examples run and print what the page shows" {
	jh_keys
	mkdir -p "$T/work"
	decision_json allow > "$T/work/decisions.jsonl"
	decision_json deny |
	    jq -c '.code = "no-grant" | .reason = "no grant covers Bash"' \
	    >> "$T/work/decisions.jsonl"
	run section_src "$MAN/jh-chain.1" EXAMPLES
	assert_output --partial 'jh-seal decisions.jsonl | jh-chain'
	assert_output --partial 'jh-chain -c -i s1'
	assert_output --partial 'jh-verify -c s1.checkpoint'
	run_examples "$MAN/jh-chain.1"
}

@test "jh-normalize(1) examples run and print what the page shows" {
	jh_keys
	run section_src "$MAN/jh-normalize.1" EXAMPLES
	assert_output --partial 'jh-normalize -H claude-code pre.json'
	assert_output --partial 'jh-normalize -H claude-code -r -A -i s1'
	assert_output --partial 'decide deny'
	run_examples "$MAN/jh-normalize.1"
}

@test "jh-decide(1) examples run and print what the page shows" {
	jh_keys
	run section_src "$MAN/jh-decide.1" EXAMPLES
	assert_output --partial 'jh-seal -K grant/1'
	assert_output --partial 'jh-decide -I -g'
	assert_output --partial 'jh-decide events.jsonl'
	assert_output --partial 'jh-verify -L'
	run_examples "$MAN/jh-decide.1"
}

@test "jh-hook(1) examples run and print what the page shows" {
	install_layout
	fresh_home
	run section_src "$MAN/jh-hook.1" EXAMPLES
	assert_output --partial 'jh-hook -c "$conf"'
	run_examples "$MAN/jh-hook.1"
}

@test "jh-grant(1) examples run and print what the page shows" {
	install_layout
	fresh_home
	mkdir -p "$T/work"
	git -C "$T/work" init -q
	run section_src "$MAN/jh-grant.1" EXAMPLES
	assert_output --partial 'jh-grant -y add'
	assert_output --partial 'jh-grant -y remove'
	run_examples "$MAN/jh-grant.1"
}

@test "jh-install(1) examples run and print what the page shows" {
	install_layout
	fresh_home
	export JH_PASSPHRASE=example-passphrase
	run section_src "$MAN/jh-install.1" EXAMPLES
	assert_output --partial '$ jh-install'
	assert_output --partial 'jh-install -u'
	run_examples "$MAN/jh-install.1"
}

@test "jh-proxy(1) examples run and print what the page shows" {
	jh_keys
	run section_src "$MAN/jh-proxy.1" EXAMPLES
	assert_output --partial 'jh-proxy -u https://api.anthropic.com -U proxy.sock'
	assert_output --partial '"billing_error"'
	run_examples "$MAN/jh-proxy.1"
}

@test "jh-status(1) examples run and print what the page shows" {
	jh_keys
	run section_src "$MAN/jh-status.1" EXAMPLES
	assert_output --partial "| jh-status -p"
	assert_output --partial 'jh-status -s > summary.json'
	assert_output --partial '| jh-status -m'
	run_examples "$MAN/jh-status.1"
}

@test "a usage line that -h wraps is joined before the comparison" {
	run usage_lines jh-chain
	assert_success
	assert_equal "${#lines[@]}" 3
	assert_line --index 0 --regexp '^jh-chain .* \[file \.\.\.\]$'
}

@test "joulehook(7) examples run and print what the page shows" {
	run_examples "$MAN/joulehook.7"
}

@test "the example runner fails when a page shows the wrong output" {
	sed 's/^deny no-grant$/allow no-grant/' "$MAN/joulehook.7" \
	    > "$T/wrong.7"
	run run_examples "$T/wrong.7"
	assert_failure
	assert_output --partial 'example output differs'
}

@test "jh-result(1) examples run and print what the page shows" {
	jh_keys
	run section_src "$MAN/jh-result.1" EXAMPLES
	assert_output --partial '| jh-result |'
	run_examples "$MAN/jh-result.1"
}

@test "jh-meter(1) examples run and print what the page shows" {
	jh_keys
	run section_src "$MAN/jh-meter.1" EXAMPLES
	assert_output --partial 'jh-meter aggregate -c 1'
	assert_output --partial 'jh-meter transcript -O offsets'
	run_examples "$MAN/jh-meter.1"
}
