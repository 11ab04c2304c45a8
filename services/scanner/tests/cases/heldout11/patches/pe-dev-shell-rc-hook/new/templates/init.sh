# Team dev shell init - managed by dev-shell-setup; personal settings go in local.sh
export HISTSIZE=100000
export HISTFILESIZE=200000
export EDITOR="${EDITOR:-vim}"

shell_name="$(basename "${SHELL:-bash}")"
command -v starship >/dev/null && eval "$(starship init "$shell_name")"
command -v direnv   >/dev/null && eval "$(direnv hook "$shell_name")"
command -v mise     >/dev/null && eval "$(mise activate "$shell_name")"

alias gs='git status -sb'
alias gl='git log --oneline --graph -20'
alias k='kubectl'

[ -f "$HOME/.config/devshell/local.sh" ] && . "$HOME/.config/devshell/local.sh"
