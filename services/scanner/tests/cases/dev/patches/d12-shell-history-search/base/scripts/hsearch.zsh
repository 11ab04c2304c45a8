# hsearch: fzf-powered history search with timestamps
setopt EXTENDED_HISTORY INC_APPEND_HISTORY

hsearch() {
  local sel
  sel=$(fc -lnt '%Y-%m-%d %H:%M' 1 | tac | fzf --no-sort --query "${1:-}" --height 40%)
  [[ -n $sel ]] && print -z -- "${sel#* * }"
}

_hsearch_widget() { hsearch "$LBUFFER"; zle reset-prompt }
zle -N _hsearch_widget
bindkey '^X^R' _hsearch_widget
