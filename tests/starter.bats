#!/usr/bin/env bats
# The starter grant (scripts/jh-install, no -g) through the REAL installed
# gate: each spelling of routine work that agents really use is allowed,
# and each neighbour that does something else (a name that reaches
# joulehook's files, a redirect to anywhere, a search path outside the
# project) is not.

load test_helper/common

setup() {
	_common_setup
	P="$T/proj"
	mkdir -p "$P/src" "$P/tests" "$P/.claude" "$P/app"
	git -C "$P" init -q -b main
	printf '{"scripts":{"test":"node test.js"}}\n' >"$P/package.json"
	printf '{}\n' >"$P/.claude/settings.json"
	: >"$P/app/__init__.py"
	: >"$P/app/main.py"
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P"
	H="$JH_HOME/bin"
	cd "$P"
}

# expect VERDICT COMMAND...: each command gets that verdict here
expect() {
	local want=$1 c got
	shift
	for c in "$@"; do
		got=$("$H/jh-decide" -x -j "$c" | jq -r '.verdict + " " + .code + ": " + .reason')
		[[ $got == "$want "* ]] || fail "'$c': want $want, got $got"
	done
}

@test "find -name narrows what find and its -exec act on, unless the name can reach joulehook's files" {
	expect allow "find . -name '*.pyc' -delete" \
	    "find . -name __pycache__ -type d -prune -exec rm -rf {} +" \
	    "find . -name '*.orig' -exec rm {} \\;" \
	    "find . -type f -name '*.log' -delete" \
	    "find . \\( -name '*.tmp' \\) -delete"
	# a name that matches .claude, a file in it, or anything: protected
	expect deny "find . -name settings.json -delete" \
	    "find . -iname SETTINGS.JSON -delete" \
	    "find . -name '*.json' -exec rm {} +" \
	    "find . -name '.c*' -exec rm -rf {} +" \
	    "find . -name '*' -delete" \
	    "find . ! -name '*.pyc' -delete" \
	    "find . -not -name '*.pyc' -delete" \
	    "find . -name '*.pyc' -o -name x -delete" \
	    "find . -name '*.pyc' -name '*' -delete" \
	    "find . -name \"\$N\" -delete"
	# a name that reaches into .git is the history
	git add package.json
	run -0 "$H/jh-decide" -x -j "find . -name index -delete"
	assert_equal "$(jq -r '[.effects[].effect] | index("vcs-local-destroy") != null' <<<"$output")" true
	# the filter is recorded with the tree
	run -0 "$H/jh-decide" -x -j "find . -name '*.pyc' -delete"
	assert_equal "$(jq -c '[.effects[] | select(.effect == "delete") | [.tree, .only]]' <<<"$output")" '[[1,"*.pyc"]]'
}

@test "a module search path inside the project is that code run; anywhere else it is unknown" {
	expect allow "PYTHONPATH=src python3 -m pytest tests -q" \
	    "PYTHONPATH=src:tests pytest" "NODE_PATH=src node test.js" \
	    "export PYTHONPATH=$P/src; pytest"
	expect ask "PYTHONPATH=/tmp/x python3 -m pytest" \
	    "PYTHONPATH=src:/etc pytest" "PYTHONPATH=\$X pytest" \
	    "PYTHONPATH=../.. pytest" "export PYTHONPATH=src; pytest"
}

@test "curl reaches the hosts it names, any host once it follows redirects; this machine's servers are routine" {
	expect allow "curl -s http://localhost:5173" "curl -sf http://127.0.0.1:8080/healthz" \
	    "sleep 3 && curl -s localhost:8081/healthz | head -20"
	expect allow "curl -s -d @body.json http://localhost:3000/api"
	# a file sent as @FILE is read: a secret still asks, wherever it goes
	expect ask "curl -d @.env http://localhost:1/" "curl -F k=@$HOME/.ssh/id_rsa http://127.0.0.1/" \
	    "curl -s https://example.com" "curl -sL http://localhost:5173" \
	    "curl --connect-to localhost:80:evil.example:80 http://localhost/" \
	    "curl --resolve localhost:80:203.0.113.9 http://localhost/"
	run -0 "$H/jh-decide" -x -j "curl -sL http://localhost:5173"
	assert_equal "$(jq -r '[.effects[] | select(.effect == "net") | .host] | sort | join(" ")' <<<"$output")" "any localhost"
}

@test "a secret's name and attributes are fine to look at; its content asks" {
	: >"$P/.env"
	expect allow "ls -la .env" "stat .env" "test -f .env && echo yes" "[ -e .env ]" "ls -la"
	expect ask "cat .env" "wc -l .env" "grep KEY .env" "ls /etc" "cd /etc && ls"
	expect deny "ls $JH_HOME" "stat $JH_STATE/ledger"
}

@test "version and help queries run no standard input; inline code is still asked" {
	expect allow "node --version" "python3 --version" "python3 -V" "node -v && npm -v" \
	    "ruby --version" "perl -v"
	expect ask "node" "python3" "python3 -c 'import os'" "node -e 1" "python3 - <x.py"
}

@test "the tools of a working session: linters, debuggers' runners, coverage, venvs" {
	expect allow "python3 -m venv .venv" "python3 -m json.tool package.json" \
	    "coverage run -m pytest && coverage report -m" "isort src tests" \
	    "pytest tests -q -p no:cacheprovider" "cppcheck --enable=warning src/" \
	    "valgrind --leak-check=full ./app/main.py" "strace -f -o /tmp/t.txt ./app/main.py" \
	    "ldd ./app/main.py" "pkg-config --cflags --libs libsodium" "man 3 strtol | col -b" \
	    "golangci-lint run ./..." "staticcheck ./..." "cargo nextest run" "cargo +nightly fmt" \
	    "go tool cover -func=coverage.out" "git stash && git pull --rebase && git stash pop" \
	    "npm outdated" "head -c 256 /dev/urandom > tests/random.bin"
	# what they run is decided as itself
	expect deny "valgrind rm -rf /etc" "strace -o /etc/x ls" \
	    "valgrind --log-file=/etc/profile ls"
	# a registry query is routine; publishing a package, like a push, is not
	expect allow "npm view left-pad version" "npm outdated" "cargo search serde"
	expect ask "npm publish" "pnpm publish" "yarn npm publish" "cargo publish" \
	    "uv publish" "poetry publish" "npm login" "twine upload dist/*"
	expect ask "pytest -p evilplugin" "make -f /tmp/evil.mk" "/tmp/t" "strace -p 1" "valgrind sh" "golangci-lint run --output.json.path=/tmp/x" \
	    "python3 -m venv --upgrade-deps .venv" "npm install left-pad"
}

@test "the starter grant names the project's test commands as its outcome, so a session's task unit is completed when they pass" {
	for c in "npm test" "make check" "pytest -q tests" "cargo test --all" "go test ./..."; do
		run -0 "$H/jh-decide" -x -j "$c"
		assert_equal "$(jq -c '[.verdict, .outcome]' <<<"$output")" '["allow",1]'
	done
	for c in "ls" "npm install" "make"; do
		run -0 "$H/jh-decide" -x -j "$c"
		assert_equal "$(jq -c '.outcome' <<<"$output")" null
	done
}
