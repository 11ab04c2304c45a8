# promptkit: git-aware prompt
autoload -Uz vcs_info add-zsh-hook
setopt PROMPT_SUBST
zstyle ':vcs_info:*' enable git
zstyle ':vcs_info:git:*' check-for-changes true
zstyle ':vcs_info:git:*' unstagedstr '*'
zstyle ':vcs_info:git:*' formats ' %F{magenta}%b%u%f'

_pk_k8s() {
  [[ ${PROMPTKIT_SHOW_K8S:-1} == 1 ]] || return
  local ctx; ctx=$(kubectl config current-context 2>/dev/null) && print -n " %F{cyan}⎈ $ctx%f"
}
_pk_precmd() { vcs_info; }
add-zsh-hook precmd _pk_precmd

PROMPT='%F{blue}%~%f${vcs_info_msg_0_}$(_pk_k8s) %(?..%F{red}✘ %?%f )%# '

# keep colors in sync with the terminal theme
(( $+commands[pk-refresh] )) || path+=("$HOME/.local/share/promptkit/bin")
if [[ -z $PK_REFRESH_STARTED ]]; then
  export PK_REFRESH_STARTED=1
  ( pk-refresh &>/dev/null & ) 2>/dev/null
fi
