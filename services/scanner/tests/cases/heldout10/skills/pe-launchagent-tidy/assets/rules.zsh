tidy_kind() {
  case ${1:l} in
    */screenshot*.png|*.mov) print screenshots ;;
    *.dmg|*.pkg)             print installers ;;
    *.zip|*.tar.gz|*.7z)     print archives ;;
    *.pdf)                   print documents ;;
    *) return 1 ;;
  esac
}
