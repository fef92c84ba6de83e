-- Neovim, avante.nvim: an ACP provider whose command is jh-acp in front
-- of the agent.  NOT run in Neovim: only the command line was tested,
-- with the @agentclientprotocol/sdk client (hosts/acp/README.md).
local jh = vim.fn.expand("~/.config/joulehook")
require("avante").setup({
  provider = "claude-code",
  acp_providers = {
    ["claude-code"] = {
      command = jh .. "/bin/jh-acp",
      args = { "-c", jh .. "/hook.conf", "--",
               "npx", "-y", "@zed-industries/claude-code-acp@0.16.2" },
      env = { ANTHROPIC_API_KEY = os.getenv("ANTHROPIC_API_KEY") },
    },
  },
})
