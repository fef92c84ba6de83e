#!/usr/bin/env bats
# jh-status -P (jh-status(1) "Profiles"): each bound host's declared
# conformance profile, what is bound, whether the ceiling is enforced or
# observed, what the adapter cannot see; the README's host table checked
# against the same source.

load test_helper/common

setup() {
	_common_setup
	export HOME="$T/home"
	mkdir -p "$HOME"
	unset XDG_CONFIG_HOME XDG_STATE_HOME JH_HOME JH_STATE
	C="$HOME/.config/joulehook"
}

install() {
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" "$@"
}

profiles() {
	jh-status -P -c "$C/hook.conf" "$@"
}

@test "-P: only the hosts the installer bound; the gate bound, no meter: minimal, and says so" {
	install -H claude-code -H cline
	run -0 profiles -j
	run -0 jq -r '.[] | .host' <<<"$output"
	assert_output $'claude-code\ncline'
	run -0 profiles -j
	J=$output
	run -0 jq -r '.[] | select(.host == "cline")
	    | [.profile, .conformance, .gate.bound, .meter.bound, .meter.ceiling] | @tsv' <<<"$J"
	assert_output $'cline\tminimal\ttrue\tfalse\tnone'
	# what Cline cannot do is its adapter's, not a restated list
	run -0 jq -c '.[] | select(.host == "cline") | .verdicts' <<<"$J"
	assert_output '["allow","deny","rewrite"]'
	run -0 jq -r '.[] | select(.host == "cline") | .cannot_see[]' <<<"$J"
	assert_output --partial "ask is answered as a deny"
	assert_output --partial "no meter is bound"
	# the text says the same, for people
	run -0 profiles
	assert_output --partial "cline: Cline CLI 3.0.65, profile cline (minimal)"
	assert_output --partial "meter:      not bound"
	refute_output --partial "codex"
}

@test "-P: with the transcript meter Claude Code's ceiling is observed, with jh-proxy (-M) enforced and full" {
	install -H claude-code
	run -0 grep -c '^meter=transcript$' "$C/hook.conf"
	run -0 sh -c 'jh-status -P -j -c "$1" | jq -r ".[0] | [.conformance, .meter.by, .meter.ceiling] | @tsv"' _ "$C/hook.conf"
	assert_output $'minimal\ttranscript\tobserved'
	run -0 sh -c 'jh-status -P -j -c "$1" | jq -r ".[0].cannot_see[]"' _ "$C/hook.conf"
	assert_output --partial "observed, not enforced"
	install -H claude-code -M http://127.0.0.1:9 -l 127.0.0.1:18998
	run -0 sh -c 'jh-status -P -j -c "$1" | jq -r ".[0] | [.conformance, .meter.by, .meter.url, .meter.ceiling] | @tsv"' _ "$C/hook.conf"
	assert_output $'full\tjh-proxy\thttp://127.0.0.1:18998\tenforced'
	run -0 sh -c 'jh-status -P -j -c "$1" | jq -r ".[0].cannot_see[]"' _ "$C/hook.conf"
	refute_output --partial "not enforced"
	# unbound, nothing is claimed
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -u
	run -0 sh -c 'JH_HOME="$1" jh-status -P -j' _ "$C"
	assert_output '[]'
}

@test "-P: the proxy is claimed only for the hosts -M pointed at it" {
	install -H gemini-cli -H codex -M http://127.0.0.1:9 -l 127.0.0.1:18997
	install -H cline
	run -0 sh -c 'jh-status -P -j -c "$1" | jq -r ".[] | [.host, .meter.ceiling, .conformance] | @tsv"' _ "$C/hook.conf"
	assert_line $'gemini-cli\tenforced\tfull'
	assert_line $'cline\tnone\tminimal'
	# Codex's meter needs its profile, and says so
	run -0 sh -c 'jh-status -P -j -c "$1" | jq -r ".[] | select(.host == \"codex\") | .cannot_see[]"' _ "$C/hook.conf"
	assert_output --partial "codex -p joulehook"
}

@test "-P: with the OTLP receiver (-O) the ceiling is observed, for the hosts it bound; the meter-only profile says it gates nothing" {
	install -H claude-code -H codex -O
	run -0 sh -c 'jh-status -P -j -c "$1" | jq -r ".[] | [.host, .profile, .conformance, .meter.by // \"-\", .meter.ceiling, (.verdicts | length)] | @tsv"' _ "$C/hook.conf"
	assert_line $'claude-code\tclaude-code\tminimal\totel\tobserved\t4'
	assert_line $'codex\thooks-family\tminimal\t-\tnone\t3'
	assert_line $'otel\tmeter-only\tminimal\totel\tobserved\t0'
	run -0 jh-status -P -c "$C/hook.conf"
	assert_output --partial "otel: any OpenTelemetry host, profile meter-only (minimal)"
	assert_output --partial "gate:       none: the host offers no seam"
	assert_output --partial "meter:      otel at http://127.0.0.1:4318; the ceiling is observed"
	assert_output --partial "none (no gate)"
}

@test "-P -a: every host the adapters know has a profile, and the README's host table agrees with it" {
	run -0 sh -c 'jh-status -P -a -j | jq -r ".[].host" | sort'
	P=$output
	# the adapters' names, as jh-normalize says them in its error
	run -2 sh -c 'echo "{}" | jh-normalize -H no-such-host'
	for h in $(sed -n 's/.*(known: \([^)]*\)).*/\1/p' <<<"$output" | tr ', ' '\n\n'); do
		grep -qx "$h" <<<"$P" || { echo "no profile for host $h"; return 1; }
	done
	run -0 sh -c 'jh-status -P -a -j | jq -r ".[] | [.name, .profile, .tested] | @tsv"'
	local name prof tested row bad=0
	while IFS=$'\t' read -r name prof tested; do
		row=$(grep -F "| $name |" "$PROJECT_ROOT/README.md" || true)
		if [ -z "$row" ]; then
			echo "README: no host table row for $name"; bad=1; continue
		fi
		awk -F' [|] ' '{print $2}' <<<"$row" | grep -q "^\`$prof\`" ||
		    { echo "README: $name's profile is not $prof: $row"; bad=1; }
		case $tested in
		*"not run"*) grep -q "not run" <<<"$row" || { echo "README: $name was not run: $row"; bad=1; } ;;
		*) ! grep -q "not run" <<<"$row" || { echo "README: $name was run: $row"; bad=1; } ;;
		esac
	done <<<"$output"
	[ "$bad" = 0 ]
}

@test "-P: a planted FIFO or link for a record is refused, never waited on; bad usage is exit 2" {
	install -H cursor
	mv "$C/hosts" "$C/hosts.real"
	mkfifo "$C/hosts"
	run -2 timeout 5 jh-status -P -c "$C/hook.conf"
	assert_output --partial "not a regular file"
	rm "$C/hosts"
	ln -s "$C/hosts.real" "$C/hosts"
	run -2 timeout 5 jh-status -P -c "$C/hook.conf"
	rm "$C/hosts"
	run -2 jh-status -j
	run -2 jh-status -P -r /
	run -2 jh-status -s -a
}
