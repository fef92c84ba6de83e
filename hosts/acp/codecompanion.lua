-- Neovim, CodeCompanion: an ACP adapter whose command is jh-acp in front
-- of the agent.  NOT run in Neovim: only the command line was tested,
-- with the @agentclientprotocol/sdk client (hosts/acp/README.md).
local jh = vim.fn.expand("~/.config/joulehook")
require("codecompanion").setup({
  adapters = {
    acp = {
      claude_code = function()
        return require("codecompanion.adapters").extend("claude_code", {
          commands = {
            default = { jh .. "/bin/jh-acp", "-c", jh .. "/hook.conf", "--",
                        "npx", "-y", "@zed-industries/claude-code-acp@0.16.2" },
          },
        })
      end,
    },
  },
})
