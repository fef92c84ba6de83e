# shellcheck shell=sh disable=SC2154
# hosts/acp/bind.sh: binds an ACP editor (Zed, JetBrains, Neovim) to
# joulehook, sourced by jh-install -H acp, which calls jh_bind (jh_unbind
# with -u).  An ACP agent has no hooks: the editor starts jh-acp(1) in
# the agent's place, and jh-acp gates the agent's requests.  Nothing of
# the editor's is edited here: the editors' settings are JSON or Lua
# the user owns, so this prints the lines to add (hosts/acp/README.md).
#
# Uses from jh-install: say, die, $bindir, $conf.

jh_bind() {
	[ -x "$bindir/jh-acp" ] ||
	    say "warning: $bindir/jh-acp is not there yet (make install puts it there)"
	say "bound acp: start your agent through jh-acp; for Zed, in settings.json:"
	say "  \"agent_servers\": {\"Claude Code (gated)\": {\"command\": \"$bindir/jh-acp\","
	say "    \"args\": [\"-c\", \"$conf\", \"--\", \"claude-code-acp\"]}}"
	say "  (JetBrains acp.json and Neovim: hosts/acp/README.md; the agent is any ACP agent's command)"
}

jh_unbind() {
	say "acp: remove jh-acp from your editor's agent settings; nothing else was written"
}
